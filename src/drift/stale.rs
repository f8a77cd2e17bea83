//! Stale memories: ones naming a file or folder that is gone.
//!
//! Only text that is clearly a path is checked, since calling a memory stale wrongly hides it:
//! a relative path needs a file extension, a `./` or `../` start, or a trailing `/` after two
//! parts (`src/webhooks/stripe.rs`, `./scripts/x.sh`, `src/legacy/`), which leaves out "and/or",
//! `owner/repo` and MIME types; an absolute path needs a first folder that operating systems
//! actually have (`/etc`, `/usr`, `/home`, ...), which leaves out API routes like `/api/v1/x`.
//! URLs, versions, dates and ratios have no such shape. Relative paths are checked only for
//! project memories, against that project's checkout. Whatever the shape, a path is never
//! called missing when it lies under another account's home, a temporary folder, or build
//! output: those come and go, or cannot be seen from here.
//!
//! A glob (`migrations/*.sql`, `src/**/handlers.rs`) is stale when it matches nothing: the
//! folders under its literal start are read, at most `GLOB_ENTRIES` entries, and a glob whose
//! answer would need more is not judged.

use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};

/// A path as a memory writes it (without a `:line` suffix), and where it points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Named {
    pub written: String,
    pub absolute: bool,
    /// A glob (`*`, `?`, `[...]`, `{a,b}`): stale when it matches nothing.
    pub glob: bool,
}

/// The most folder entries judging one glob reads. A checkout's folder named by a glob rarely
/// holds more; past it the glob is not judged, so the cost stays bounded in a huge checkout.
const GLOB_ENTRIES: usize = 4_096;

/// First folders of absolute paths that name real places on Linux and macOS.
const ROOTS: &[&str] = &[
    "Applications",
    "Library",
    "System",
    "Users",
    "Volumes",
    "bin",
    "etc",
    "home",
    "lib",
    "lib64",
    "media",
    "mnt",
    "nix",
    "opt",
    "private",
    "root",
    "sbin",
    "snap",
    "srv",
    "tmp",
    "usr",
    "var",
];

/// Folders whose contents are temporary wherever they are.
const TEMPORARY: &[&str] = &[
    "/tmp/",
    "/var/tmp/",
    "/private/tmp/",
    "/var/folders/",
    "/private/var/folders/",
    "/dev/shm/",
    "/run/",
    "/proc/",
    "/sys/",
    "/dev/",
];

/// Build output and installed dependencies: regenerated, never a sign of drift.
const BUILT: &[&str] = &[
    "target",
    "node_modules",
    "dist",
    "build",
    "out",
    ".venv",
    "venv",
    "__pycache__",
    ".next",
    ".nuxt",
    ".gradle",
    ".cache",
    "coverage",
    ".tox",
    ".pytest_cache",
    ".mypy_cache",
    "Pods",
    "DerivedData",
    ".turbo",
    ".parcel-cache",
    ".expo",
    "site-packages",
];

/// The paths `text` names. Absolute paths under one of `roots` (the checkout, the home folder)
/// count whatever their first folder.
pub fn named(text: &str, roots: &[&Path]) -> Vec<Named> {
    let mut found: Vec<Named> = Vec::new();
    for raw in text.split(|c: char| c.is_whitespace() || c == '`' || c == '"' || c == '\'') {
        let Some(named) = shape(raw, roots) else {
            continue;
        };
        if !found.contains(&named) {
            found.push(named);
        }
    }
    found
}

/// The path in one whitespace-separated piece of text, if it is shaped like one.
fn shape(raw: &str, roots: &[&Path]) -> Option<Named> {
    let token = raw
        .trim_start_matches(['(', '[', '{', '<', '*'])
        .trim_end_matches([')', ']', '}', '>', ',', ';', '!', '?', '*', '.', ':']);
    let token = strip_line_suffix(token);
    if let Some(glob) = glob_shape(raw) {
        return Some(glob);
    }
    if token.len() < 3
        || !token.contains('/')
        || token.contains("://")
        || token.contains("...")
        || token.starts_with("www.")
        || token.contains([
            '@', '*', '?', '{', '}', '<', '>', '$', '%', '|', '=', '(', ')', '[', ']',
        ])
        || !token.chars().any(char::is_alphabetic)
    {
        return None;
    }
    if let Some(rest) = token.strip_prefix('/') {
        let first = rest.split('/').next().unwrap_or("");
        let under_root = roots.iter().any(|r| Path::new(token).starts_with(r));
        return (ROOTS.contains(&first) || under_root).then(|| Named {
            written: token.to_owned(),
            absolute: true,
            glob: false,
        });
    }
    if token.starts_with("~/") {
        return Some(Named {
            written: token.to_owned(),
            absolute: true,
            glob: false,
        });
    }
    if !token.starts_with(|c: char| c.is_alphanumeric() || c == '.' || c == '_') {
        return None;
    }
    let parts: Vec<&str> = token.trim_end_matches('/').split('/').collect();
    let last = parts.last().copied().unwrap_or("");
    let explicit = token.starts_with("./") || token.starts_with("../");
    let folder = token.ends_with('/') && parts.len() >= 2;
    let pathlike = explicit || folder || has_extension(last);
    let clean = parts.iter().all(|p| !p.is_empty() || explicit);
    (pathlike && clean).then(|| Named {
        written: token.to_owned(),
        absolute: false,
        glob: false,
    })
}

/// A relative glob in one piece of text: a path of two parts or more, starting with a plain
/// folder name, with a wildcard in a later part, and a last part that names files (an
/// extension, or a wildcard alone). `**bold**` markdown around a path is not a glob.
fn glob_shape(raw: &str) -> Option<Named> {
    let token = raw
        .trim_start_matches(['(', '[', '<'])
        .trim_end_matches([')', ']', '>', ',', ';', '!', '?', '.', ':']);
    let token = match token.strip_prefix("**") {
        Some(inner) if inner.ends_with("**") => return None,
        _ => token,
    };
    let parts: Vec<&str> = token.split('/').collect();
    let wild = |p: &str| p.contains(['*', '?', '[', '{']);
    let last = *parts.last()?;
    let shaped = parts.len() >= 2
        && !wild(parts[0])
        && parts[0]
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && parts[0] != ".."
        && parts[1..].iter().any(|p| wild(p))
        && parts.iter().all(|p| !p.is_empty())
        && !token.contains(['@', '$', '%', '|', '=', '(', ')', '<', '>', '\\', ':'])
        && file_part(last);
    (shaped && GlobBuilder::new(token).build().is_ok()).then(|| Named {
        written: token.to_owned(),
        absolute: false,
        glob: true,
    })
}

/// A glob's last part that names files: `*.sql`, `V*__*.sql`, `*.{yml,yaml}`, `*`, `**`.
fn file_part(last: &str) -> bool {
    let tail = last.trim_start_matches(['*', '?']);
    let braced = tail.starts_with(".{") && tail.ends_with('}');
    last == "*" || last == "**" || braced || has_extension(tail)
}

/// Whether a located path is gone: a file or folder that does not exist, or a glob that
/// matches nothing (`false` too when a glob could not be judged within `GLOB_ENTRIES`).
pub fn gone(named: &Named, place: &Path) -> bool {
    if !named.glob {
        return !place.exists();
    }
    matches_something(place) == Some(false)
}

/// Whether the glob `pattern` (an absolute path with wildcards) matches a file or folder:
/// `None` when finding out would read more than `GLOB_ENTRIES` entries.
fn matches_something(pattern: &Path) -> Option<bool> {
    let text = pattern.to_str()?;
    let parts: Vec<&str> = text.split('/').collect();
    let first = parts
        .iter()
        .position(|p| p.contains(['*', '?', '[', '{']))?;
    let base = parts[..first].join("/");
    let rest = parts[first..].join("/");
    let matcher = GlobBuilder::new(&rest)
        .literal_separator(true)
        .build()
        .ok()?
        .compile_matcher();
    let depth = if rest.contains("**") {
        usize::MAX
    } else {
        parts.len() - first
    };
    let mut budget = GLOB_ENTRIES;
    walk(Path::new(&base), "", depth, &matcher, &mut budget)
}

/// Depth-first search under `folder` (whose path below the glob's base is `prefix`) for an
/// entry `matcher` accepts, reading at most `budget` entries. Build output, `.git` and
/// symbolic links to folders are not entered.
fn walk(
    folder: &Path,
    prefix: &str,
    depth: usize,
    matcher: &GlobMatcher,
    budget: &mut usize,
) -> Option<bool> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Some(false);
    };
    let mut folders = Vec::new();
    for entry in entries {
        if *budget == 0 {
            return None;
        }
        *budget -= 1;
        let Ok(entry) = entry else { continue };
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let relative = format!("{prefix}{name}");
        if matcher.is_match(&relative) {
            return Some(true);
        }
        let is_folder = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_folder && depth > 1 && name != ".git" && !BUILT.contains(&name.as_ref()) {
            folders.push((entry.path(), format!("{relative}/")));
        }
    }
    let mut unknown = false;
    for (path, prefix) in folders {
        match walk(&path, &prefix, depth - 1, matcher, budget) {
            Some(true) => return Some(true),
            Some(false) => {}
            None => unknown = true,
        }
    }
    if unknown {
        None
    } else {
        Some(false)
    }
}

/// `file.rs`, `ADR-7.md`, `.env.example`: a dot followed by a short extension with a letter.
fn has_extension(name: &str) -> bool {
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return false;
    };
    (!stem.is_empty() || name.starts_with('.'))
        && (1..=10).contains(&ext.len())
        && ext.chars().all(|c| c.is_ascii_alphanumeric())
        && ext.chars().any(|c| c.is_ascii_alphabetic())
}

/// `src/x.rs:42` and `src/x.rs:42:7` name `src/x.rs`; so does `src/x.rs#L42`.
fn strip_line_suffix(token: &str) -> &str {
    let token = match token.split_once("#L") {
        Some((path, line))
            if line
                .chars()
                .all(|c| c.is_ascii_digit() || c == '-' || c == 'L') =>
        {
            path
        }
        _ => token,
    };
    let mut end = token;
    for _ in 0..2 {
        match end.rsplit_once(':') {
            Some((head, tail)) if !tail.is_empty() && tail.chars().all(|c| c.is_ascii_digit()) => {
                end = head
            }
            _ => break,
        }
    }
    end
}

/// Where a named path is on this machine, or `None` when it must not be judged: relative
/// without a checkout, or under another account's home, a temporary folder or build output.
pub fn locate(named: &Named, checkout: Option<&Path>, home: Option<&Path>) -> Option<PathBuf> {
    let written = named.written.trim_end_matches('/');
    let path = if !named.absolute {
        checkout?.join(written.trim_start_matches("./"))
    } else {
        match written.strip_prefix("~/") {
            Some(rest) => home?.join(rest),
            None => PathBuf::from(written),
        }
    };
    // Build output is judged below the checkout (or home), wherever that checkout lives.
    let inside = [checkout, home]
        .into_iter()
        .flatten()
        .find_map(|root| path.strip_prefix(root).ok())
        .unwrap_or(&path);
    let built = inside.components().any(|c| {
        let part = c.as_os_str().to_string_lossy();
        BUILT.contains(&part.as_ref()) || part.ends_with(".egg-info")
    });
    if built {
        return None;
    }
    if !named.absolute {
        return Some(path);
    }
    // The project's own checkout and the user's own home count wherever they live, even in a
    // temporary folder (a CI runner's home often is one).
    if [checkout, home]
        .into_iter()
        .flatten()
        .any(|root| path.starts_with(root))
    {
        return Some(path);
    }
    let text = format!("{}/", path.display());
    if TEMPORARY.iter().any(|t| text.starts_with(t)) {
        return None;
    }
    if let Some(tmp) = std::env::var_os("TMPDIR").filter(|t| !t.is_empty()) {
        if path.starts_with(Path::new(&tmp)) {
            return None;
        }
    }
    let own_home = home.is_some_and(|h| path.starts_with(h));
    let in_a_home = ["/home/", "/Users/", "/root/"]
        .iter()
        .any(|h| text.starts_with(h));
    if in_a_home && !own_home {
        return None;
    }
    Some(path)
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    fn written(text: &str) -> Vec<String> {
        named(text, &[Path::new("/work/app")])
            .into_iter()
            .map(|n| n.written)
            .collect()
    }

    #[test]
    fn finds_paths_and_strips_line_numbers() {
        assert_eq!(
            written("see src/webhooks/stripe.rs:120 and `./scripts/x.sh`, docs/ADR-7.md."),
            ["src/webhooks/stripe.rs", "./scripts/x.sh", "docs/ADR-7.md"]
        );
        assert_eq!(
            written("edit /etc/nginx/nginx.conf:12:3"),
            ["/etc/nginx/nginx.conf"]
        );
        assert_eq!(written("see /work/app/x.md"), ["/work/app/x.md"]);
    }

    #[test]
    fn ignores_what_is_not_a_path() {
        let text = "see https://x.io/a/b.html, v1.2.3, 2024/03/01, 3/4 of calls, and/or, \
                    POST /api/v1/payments, application/json, rust-lang/rust, ~user/x";
        assert!(written(text).is_empty(), "{:?}", written(text));
    }

    #[rstest]
    #[case::another_linux_home("/home/alice/notes.txt")]
    #[case::another_mac_home("/Users/bob/x.md")]
    #[case::tmp("/tmp/build.log")]
    #[case::mac_temporary_folders("/var/folders/ab/x.txt")]
    #[case::cargo_target("target/debug/app.d")]
    #[case::node_modules("web/node_modules/react/index.js")]
    #[case::dist("dist/app.js")]
    fn never_judges_other_homes_temporary_or_built_paths(#[case] text: &str) {
        let home = Path::new("/home/me");
        let checkout = Path::new("/work/app");
        let named = &named(text, &[])[0];
        assert_eq!(locate(named, Some(checkout), Some(home)), None, "{text}");
    }

    #[test]
    fn judges_its_own_home_and_a_checkout_in_a_temporary_folder() {
        let home = Path::new("/home/me");
        let checkout = Path::new("/work/app");
        let own = &named("/home/me/.zshrc", &[])[0];
        assert_eq!(
            locate(own, Some(checkout), Some(home)),
            Some(PathBuf::from("/home/me/.zshrc"))
        );
        let in_tmp = Path::new("/tmp/ci/app");
        let own = &named("/tmp/ci/app/tools/gen.py", &[in_tmp])[0];
        assert_eq!(
            locate(own, Some(in_tmp), Some(home)),
            Some(PathBuf::from("/tmp/ci/app/tools/gen.py")),
            "a checkout in a temporary folder still counts"
        );
        let relative = &named("src/x.rs", &[])[0];
        assert_eq!(locate(relative, None, Some(home)), None, "no checkout");
        let tmp_home = Path::new("/tmp/runner/home");
        let dotfile = &named("~/.config/nvim/init.lua", &[])[0];
        assert_eq!(
            locate(dotfile, None, Some(tmp_home)),
            Some(PathBuf::from("/tmp/runner/home/.config/nvim/init.lua")),
            "a home in a temporary folder still counts"
        );
    }

    #[rstest]
    #[case::files_in_a_folder("migrations/*.sql", "migrations/0001_init.sql", true)]
    #[case::any_depth("src/**/handlers.rs", "src/api/v2/handlers.rs", true)]
    #[case::any_depth_at_the_top("src/**/handlers.rs", "src/handlers.rs", true)]
    #[case::alternatives("config/*.{yml,yaml}", "config/app.yaml", true)]
    #[case::wrong_extension("migrations/*.sql", "migrations/0001_init.py", false)]
    #[case::no_such_folder("legacy/*.xml", "src/main.rs", false)]
    #[case::star_stays_in_its_folder("src/*.rs", "src/deep/main.rs", false)]
    fn a_glob_is_gone_when_it_matches_nothing(
        #[case] glob: &str,
        #[case] file: &str,
        #[case] matches: bool,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let checkout = dir.path();
        std::fs::create_dir_all(checkout.join(file).parent().unwrap()).unwrap();
        std::fs::write(checkout.join(file), "x").unwrap();
        let named = named(&format!("see `{glob}` for them"), &[]);
        assert_eq!(named.len(), 1, "{named:?}");
        assert!(named[0].glob);
        let place = locate(&named[0], Some(checkout), None).unwrap();
        assert_eq!(gone(&named[0], &place), !matches, "{glob} against {file}");
    }

    #[rstest]
    #[case::bold_markdown("**src/main.rs**")]
    #[case::a_wildcard_first("*/x.rs")]
    #[case::a_url_like("https://x.io/*.js")]
    #[case::no_file_part("src/*/things")]
    fn these_are_not_globs(#[case] text: &str) {
        assert!(named(text, &[]).iter().all(|n| !n.glob), "{text}");
    }

    #[test]
    fn a_glob_past_the_entry_budget_is_not_judged() {
        let dir = tempfile::tempdir().unwrap();
        let many = dir.path().join("many");
        std::fs::create_dir_all(&many).unwrap();
        for i in 0..GLOB_ENTRIES + 10 {
            std::fs::write(many.join(format!("f{i}.txt")), "").unwrap();
        }
        let named = &named("many/*.sql", &[])[0];
        let place = locate(named, Some(dir.path()), None).unwrap();
        assert!(!gone(named, &place), "cut off: not judged");
    }
}
