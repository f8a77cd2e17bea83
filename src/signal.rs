//! The task signal: what the session is about, judged without reading any file's contents.
//!
//! The current branch, the files changed against HEAD (index and work tree) plus untracked ones,
//! and at UserPromptSubmit the prompt. Outside git, or in a repository without commits, whatever
//! can be known is used and the rest is empty. Changed files that `[signal] ignore` in
//! `config.toml` matches (by default lockfiles and build output) are left out before they count:
//! a change to `Cargo.lock` alone says as much about the task as no change.
//!
//! Listing changed files stats every tracked file: under a millisecond in a small checkout, but
//! over a hundred in one of twenty thousand files. In a large checkout the hooks therefore list
//! them on a thread of their own while the store opens (`Pending`), and go on without them past
//! a deadline. A small one is listed in place: a second thread costs more than it saves there.

use std::path::Path;
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use git2::{Repository, StatusOptions};

use crate::config::Ignore;

/// At most this many changed files count (ignored ones are not counted): a huge change set says
/// little about any one file.
const MAX_FILES: usize = 40;
/// Branch names that say nothing about the task.
const PLAIN_BRANCHES: &[&str] = &["main", "master", "develop", "dev", "trunk", "head"];
/// A branch's first part that names the kind of change, not its subject (`feature/...`): the
/// types of the Conventional Commits convention and the usual prefixes of branching workflows.
/// Matched only before a `/`, so `fix-login` keeps its word.
const BRANCH_KINDS: &[&str] = &[
    "feature", "feat", "fix", "bugfix", "hotfix", "chore", "release", "refactor", "docs", "test",
    "ci", "build", "perf", "style", "revert", "wip",
];
/// Path parts that say nothing about the task.
const PLAIN_PARTS: &[&str] = &["src", "lib", "tests", "test", "app", "mod", "index", "main"];

/// What the session is about.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Signal {
    /// The checked-out branch, if any.
    pub branch: Option<String>,
    /// Changed and untracked files, relative to the work tree top.
    pub files: Vec<String>,
    /// The user's prompt (UserPromptSubmit only).
    pub prompt: Option<String>,
}

impl Signal {
    /// The branch and changed files of the repository containing `folder`, if any, however long
    /// listing them takes; files `ignore` matches left out.
    pub fn of_folder(folder: &Path, ignore: &Ignore) -> Signal {
        Pending::start(Repository::discover(folder).ok(), ignore).wait(Duration::MAX)
    }

    /// Nothing to go on.
    pub fn is_empty(&self) -> bool {
        self.query().trim().is_empty()
    }

    /// The signal as recall words: the branch split at `/`, `-` and `_`, each changed file's
    /// stem and folder names, then the prompt.
    pub fn query(&self) -> String {
        let mut words: Vec<String> = Vec::new();
        let mut add = |w: &str| {
            let w = w.trim();
            let plain = PLAIN_PARTS.contains(&w.to_ascii_lowercase().as_str());
            if w.len() > 1 && !plain && !words.iter().any(|x| x == w) {
                words.push(w.to_owned());
            }
        };
        if let Some(branch) = &self.branch {
            if !PLAIN_BRANCHES.contains(&branch.to_ascii_lowercase().as_str()) {
                let subject = match branch.split_once('/') {
                    Some((kind, rest))
                        if BRANCH_KINDS.contains(&kind.to_ascii_lowercase().as_str()) =>
                    {
                        rest
                    }
                    _ => branch.as_str(),
                };
                subject.split(['/', '-', '_']).for_each(&mut add);
            }
        }
        for file in &self.files {
            let path = Path::new(file);
            if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
                stem.split(['-', '_', '.']).for_each(&mut add);
            }
            for part in path.parent().into_iter().flat_map(|p| p.iter()) {
                if let Some(part) = part.to_str() {
                    add(part);
                }
            }
        }
        let mut query = words.join(" ");
        if let Some(prompt) = &self.prompt {
            query.push(' ');
            query.push_str(prompt);
        }
        query
    }
}

/// A git index larger than this (about 5,000 tracked files) makes a checkout large.
const LARGE_INDEX_BYTES: u64 = 512 << 10;

/// A signal whose changed files may still be being listed on another thread.
pub struct Pending {
    branch: Option<String>,
    files: Files,
    started: Instant,
}

enum Files {
    Listed(Vec<String>),
    Listing(Receiver<Vec<String>>),
}

impl Pending {
    /// Read the branch and start listing the changed files of `repo` (`None` outside git), those
    /// `ignore` matches left out: in place in a small checkout, on another thread in a large one.
    pub fn start(repo: Option<Repository>, ignore: &Ignore) -> Pending {
        let started = Instant::now();
        let Some(repo) = repo else {
            return Pending {
                branch: None,
                files: Files::Listed(Vec::new()),
                started,
            };
        };
        let branch = branch(&repo);
        let index_bytes = std::fs::metadata(repo.path().join("index")).map_or(0, |m| m.len());
        let files = if index_bytes <= LARGE_INDEX_BYTES {
            Files::Listed(changed_files(&repo, ignore))
        } else {
            let (send, files) = mpsc::channel();
            let ignore = ignore.clone();
            std::thread::spawn(move || {
                // The receiver is gone only if the hook went on without the files.
                drop(send.send(changed_files(&repo, &ignore)));
            });
            Files::Listing(files)
        };
        Pending {
            branch,
            files,
            started,
        }
    }

    /// The signal, with the changed files if they were listed within `deadline` of the start.
    pub fn wait(self, deadline: Duration) -> Signal {
        let files = match self.files {
            Files::Listed(files) => files,
            Files::Listing(files) => files
                .recv_timeout(deadline.saturating_sub(self.started.elapsed()))
                .unwrap_or_default(),
        };
        Signal {
            branch: self.branch,
            files,
            prompt: None,
        }
    }
}

/// The short name of the checked-out branch; in a repository without commits, the branch HEAD
/// will create.
fn branch(repo: &Repository) -> Option<String> {
    if let Ok(head) = repo.head() {
        return head
            .shorthand()
            .ok()
            .filter(|s| *s != "HEAD")
            .map(str::to_owned);
    }
    let head = repo.find_reference("HEAD").ok()?;
    let target = head.symbolic_target().ok().flatten()?;
    target.strip_prefix("refs/heads/").map(str::to_owned)
}

/// Files changed in the index or work tree against HEAD, and untracked files; those git ignores
/// and those `ignore` matches left out.
fn changed_files(repo: &Repository, ignore: &Ignore) -> Vec<String> {
    let mut options = StatusOptions::new();
    options
        .include_untracked(true)
        .recurse_untracked_dirs(true)
        .include_ignored(false)
        .exclude_submodules(true);
    let Ok(statuses) = repo.statuses(Some(&mut options)) else {
        return Vec::new();
    };
    statuses
        .iter()
        .filter_map(|entry| entry.path().ok().map(str::to_owned))
        .filter(|path| !ignore.matches(path))
        .take(MAX_FILES)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[test]
    fn query_words_from_branch_files_and_prompt() {
        let signal = Signal {
            branch: Some("feature/webhook-retries".into()),
            files: vec!["src/webhooks/retry_policy.rs".into(), "README.md".into()],
            prompt: Some("why 5 attempts?".into()),
        };
        assert_eq!(
            signal.query(),
            "webhook retries retry policy webhooks README why 5 attempts?"
        );
        let kind_only_before_a_slash = Signal {
            branch: Some("fix-login/Feature".into()),
            ..Signal::default()
        };
        assert_eq!(kind_only_before_a_slash.query(), "fix login Feature");
        let plain = Signal {
            branch: Some("main".into()),
            ..Signal::default()
        };
        assert!(plain.is_empty());
    }

    #[test]
    fn outside_git_and_without_commits() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain");
        std::fs::create_dir(&plain).unwrap();
        // A temporary folder may itself sit inside a repository; only check what is here.
        let repo = dir.path().join("repo");
        let git = Repository::init(&repo).unwrap();
        git.set_head("refs/heads/fresh-start").unwrap();
        std::fs::write(repo.join("notes.md"), "x").unwrap();
        let ignore = Ignore::default();
        let signal = Signal::of_folder(&repo, &ignore);
        assert_eq!(signal.branch.as_deref(), Some("fresh-start"));
        assert_eq!(signal.files, ["notes.md"]);
        let pending = Pending::start(Some(Repository::discover(&repo).unwrap()), &ignore);
        assert_eq!(pending.wait(Duration::from_secs(10)), signal);
        assert!(Pending::start(None, &ignore)
            .wait(Duration::ZERO)
            .is_empty());
    }

    #[test]
    fn a_large_checkout_is_listed_aside_and_not_waited_for() {
        let dir = tempfile::tempdir().unwrap();
        let git = Repository::init(dir.path()).unwrap();
        git.set_head("refs/heads/fix-login").unwrap();
        let mut index = git.index().unwrap();
        let blob = git.blob(b"x").unwrap();
        let tracked = 1 + LARGE_INDEX_BYTES as usize / 60;
        for i in 0..tracked {
            let path = format!("f{i:06}.txt");
            let entry = git2::IndexEntry {
                ctime: git2::IndexTime::new(0, 0),
                mtime: git2::IndexTime::new(0, 0),
                dev: 0,
                ino: 0,
                mode: 0o100644,
                uid: 0,
                gid: 0,
                file_size: 1,
                id: blob,
                flags: path.len() as u16,
                flags_extended: 0,
                path: path.into_bytes(),
            };
            index.add(&entry).unwrap();
        }
        index.write().unwrap();
        assert!(std::fs::metadata(git.path().join("index")).unwrap().len() > LARGE_INDEX_BYTES);
        std::fs::write(dir.path().join("login.rs"), "x").unwrap();
        let ignore = Ignore::default();
        let signal = Pending::start(Some(git), &ignore).wait(Duration::ZERO);
        assert_eq!(signal.branch.as_deref(), Some("fix-login"));
        assert!(signal.files.is_empty(), "the listing is not waited for");
        let again = Pending::start(Some(Repository::open(dir.path()).unwrap()), &ignore);
        let signal = again.wait(Duration::from_secs(60));
        // The tracked files are missing from the work tree: all of them are changes.
        assert_eq!(signal.files.len(), MAX_FILES, "given time, it is listed");
    }

    #[rstest]
    #[case::defaults(None, &["src/billing/invoice.rs"])]
    #[case::nothing_ignored(Some(&[][..]), &["Cargo.lock", "src/billing/invoice.rs", "web/node_modules/react/index.js", "web/yarn.lock"])]
    #[case::a_user_list(Some(&["src/"][..]), &["Cargo.lock", "web/node_modules/react/index.js", "web/yarn.lock"])]
    fn ignored_changes_are_left_out(#[case] patterns: Option<&[&str]>, #[case] listed: &[&str]) {
        let dir = tempfile::tempdir().unwrap();
        let git = Repository::init(dir.path()).unwrap();
        git.set_head("refs/heads/fix-invoices").unwrap();
        for file in [
            "Cargo.lock",
            "src/billing/invoice.rs",
            "web/node_modules/react/index.js",
            "web/yarn.lock",
        ] {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x").unwrap();
        }
        let ignore =
            patterns.map_or_else(Ignore::default, |p| Ignore::new(p.iter().copied()).unwrap());
        let mut files = Signal::of_folder(dir.path(), &ignore).files;
        files.sort();
        assert_eq!(files, listed);
    }

    #[test]
    fn ignored_changes_do_not_take_the_places_of_others() {
        let dir = tempfile::tempdir().unwrap();
        Repository::init(dir.path()).unwrap();
        for i in 0..2 * MAX_FILES {
            let crate_dir = dir.path().join(format!("crates/c{i:03}"));
            std::fs::create_dir_all(&crate_dir).unwrap();
            std::fs::write(crate_dir.join("Cargo.lock"), "x").unwrap();
        }
        std::fs::write(dir.path().join("login.rs"), "x").unwrap();
        let signal = Signal::of_folder(dir.path(), &Ignore::default());
        assert_eq!(signal.files, ["login.rs"]);
        let only_lockfiles = Signal::of_folder(dir.path(), &Ignore::new(["login.rs"]).unwrap());
        assert!(only_lockfiles
            .files
            .iter()
            .all(|f| f.ends_with("/Cargo.lock")));
        assert_eq!(only_lockfiles.files.len(), MAX_FILES);
    }
}
