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

use std::path::{Path, PathBuf};

/// A path as a memory writes it (without a `:line` suffix), and where it points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Named {
    pub written: String,
    pub absolute: bool,
}

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
        });
    }
    if token.starts_with("~/") {
        return Some(Named {
            written: token.to_owned(),
            absolute: true,
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
    })
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
    // The project's own checkout counts wherever it lives, even in a temporary folder.
    if checkout.is_some_and(|root| path.starts_with(root)) {
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
    }
}
