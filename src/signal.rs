//! The task signal: what the session is about, judged without reading any file's contents.
//!
//! The current branch, the files changed against HEAD (index and work tree) plus untracked ones,
//! and at UserPromptSubmit the prompt. Outside git, or in a repository without commits, whatever
//! can be known is used and the rest is empty.

use std::path::Path;

use git2::{Repository, StatusOptions};

/// At most this many changed files count: a huge change set says little about any one file.
const MAX_FILES: usize = 40;
/// Branch names that say nothing about the task.
const PLAIN_BRANCHES: &[&str] = &["main", "master", "develop", "dev", "trunk", "head"];
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
    /// The branch and changed files of the repository containing `folder`, if any.
    pub fn of_folder(folder: &Path) -> Signal {
        Signal::of_repo(Repository::discover(folder).ok().as_ref())
    }

    /// The branch and changed files of an open repository (`None` outside git).
    pub fn of_repo(repo: Option<&Repository>) -> Signal {
        let Some(repo) = repo else {
            return Signal::default();
        };
        Signal {
            branch: branch(repo),
            files: changed_files(repo),
            prompt: None,
        }
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
                branch.split(['/', '-', '_']).for_each(&mut add);
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

/// Files changed in the index or work tree against HEAD, and untracked files, ignored ones left
/// out.
fn changed_files(repo: &Repository) -> Vec<String> {
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
        .take(MAX_FILES)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_words_from_branch_files_and_prompt() {
        let signal = Signal {
            branch: Some("feature/webhook-retries".into()),
            files: vec!["src/webhooks/retry_policy.rs".into(), "README.md".into()],
            prompt: Some("why 5 attempts?".into()),
        };
        assert_eq!(
            signal.query(),
            "feature webhook retries retry policy webhooks README why 5 attempts?"
        );
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
        let signal = Signal::of_folder(&repo);
        assert_eq!(signal.branch.as_deref(), Some("fresh-start"));
        assert_eq!(signal.files, ["notes.md"]);
    }
}
