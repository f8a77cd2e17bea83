//! Which files an `@path` import reaches, followed the way Claude Code follows them (measured
//! with 2.1.197 and 2.1.332 against a stand-in API: docs/claude-code.md).
//!
//! The client reads a chain of at most five files: the file it loads by its name and four
//! levels of imports below it. An import is resolved by name (`~/` from the home, a relative path
//! from the importing file's folder), and read only when it is a regular file of at most 4 MiB
//! whose extension, if it has one, is a text file's. A file the user keeps in `~/.claude` may
//! import any file; a project's file only files inside the folder the session works in, unless
//! the user approved the project's external imports once (the client asks, and records the
//! answer in its own settings: `Client::external_imports_approved`). Synapse goes further in one
//! way: it never reads a device, a FIFO, or a file under `/proc`, `/sys` or `/dev`, which the
//! older client read (`@/proc/self/environ` put the session's environment in its context).

use std::path::{Component, Path, PathBuf};

/// How many levels of imports the client follows below a file it loads by name.
pub const MAX_DEPTH: usize = 4;

/// The largest file the client loads as instructions (a `CLAUDE.md`, a rule, an import); a larger
/// one is skipped whole.
pub const CLIENT_MAX_BYTES: i64 = 4 << 20;

/// The extensions of files the client imports (the list in both measured clients); a file with
/// any other extension is skipped as not text, a file with none is read.
const TEXT_EXTENSIONS: &[&str] = &[
    "md",
    "txt",
    "text",
    "json",
    "yaml",
    "yml",
    "toml",
    "xml",
    "csv",
    "html",
    "htm",
    "css",
    "scss",
    "sass",
    "less",
    "js",
    "ts",
    "tsx",
    "jsx",
    "mjs",
    "cjs",
    "mts",
    "cts",
    "py",
    "pyi",
    "pyw",
    "rb",
    "erb",
    "rake",
    "go",
    "rs",
    "java",
    "kt",
    "kts",
    "scala",
    "c",
    "cpp",
    "cc",
    "cxx",
    "h",
    "hpp",
    "hxx",
    "cs",
    "swift",
    "sh",
    "bash",
    "zsh",
    "fish",
    "ps1",
    "bat",
    "cmd",
    "env",
    "ini",
    "cfg",
    "conf",
    "config",
    "properties",
    "sql",
    "graphql",
    "gql",
    "proto",
    "vue",
    "svelte",
    "astro",
    "ejs",
    "hbs",
    "pug",
    "jade",
    "php",
    "pl",
    "pm",
    "lua",
    "r",
    "dart",
    "ex",
    "exs",
    "erl",
    "hrl",
    "clj",
    "cljs",
    "cljc",
    "edn",
    "hs",
    "lhs",
    "elm",
    "ml",
    "mli",
    "f",
    "f90",
    "f95",
    "for",
    "cmake",
    "make",
    "makefile",
    "gradle",
    "sbt",
    "rst",
    "adoc",
    "asciidoc",
    "org",
    "tex",
    "latex",
    "lock",
    "log",
    "diff",
    "patch",
];

/// Folders of the system's own files (processes, devices, the kernel's settings), never read.
const SYSTEM_FOLDERS: &[&str] = &["/proc", "/sys", "/dev"];

/// The absolute path an import names, as the client resolves it: `~/...` from `home`, an
/// absolute path as it is, anything else from `folder` (the importing file's); `.` and `..`
/// resolved by name, not through links. `None` for `~/` without a home.
pub fn resolve(import: &str, folder: &Path, home: Option<&Path>) -> Option<PathBuf> {
    let import = import.trim();
    let path = if let Some(rest) = import.strip_prefix("~/") {
        home?.join(rest)
    } else {
        folder.join(import)
    };
    Some(by_name(&path))
}

/// `path` with `.` and `..` resolved by name.
pub fn by_name(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                if out.parent().is_some() {
                    out.pop();
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Why an import of `path` is never read, when it is not: an extension the client skips as not
/// text, or a system folder (devices, processes). `real` is the path with its links resolved.
pub fn refused(path: &Path, real: &Path) -> Option<&'static str> {
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    if extension.is_some_and(|e| !TEXT_EXTENSIONS.contains(&e.as_str())) {
        return Some("not a text file's extension, which Claude Code skips");
    }
    if [path, real]
        .iter()
        .any(|p| SYSTEM_FOLDERS.iter().any(|f| p.starts_with(f)))
    {
        return Some("a device or process file, never read");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case::relative("docs/a.md", "/p/docs/a.md")]
    #[case::dot("./a.md", "/p/a.md")]
    #[case::up("../x/a.md", "/x/a.md")]
    #[case::above_the_root("../../../a.md", "/a.md")]
    #[case::absolute("/etc/hostname", "/etc/hostname")]
    #[case::home("~/notes/a.md", "/home/u/notes/a.md")]
    fn an_import_resolves_by_name(#[case] import: &str, #[case] want: &str) {
        let got = resolve(import, Path::new("/p"), Some(Path::new("/home/u")));
        assert_eq!(got, Some(PathBuf::from(want)));
    }

    #[test]
    fn home_without_a_home_resolves_to_nothing() {
        assert_eq!(resolve("~/a.md", Path::new("/p"), None), None);
    }

    #[rstest]
    #[case::markdown("/p/a.md", None)]
    #[case::upper_case("/p/A.MD", None)]
    #[case::no_extension("/p/notes", None)]
    #[case::picture("/p/logo.png", Some("extension"))]
    #[case::archive("/p/x.tar.gz", Some("extension"))]
    #[case::process("/proc/self/environ", Some("process"))]
    #[case::device("/dev/zero", Some("device"))]
    #[case::kernel("/sys/kernel/notes", Some("device"))]
    fn some_imports_are_never_read(#[case] path: &str, #[case] why: Option<&str>) {
        let path = Path::new(path);
        let got = refused(path, path);
        assert_eq!(got.is_some(), why.is_some(), "{got:?}");
        if let (Some(got), Some(why)) = (got, why) {
            assert!(got.contains(why), "{got}");
        }
    }

    #[test]
    fn a_link_into_the_system_folders_is_refused_by_where_it_leads() {
        let why = refused(Path::new("/p/env.md"), Path::new("/proc/1/environ"));
        assert!(why.is_some());
    }
}
