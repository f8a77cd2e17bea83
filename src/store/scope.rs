//! Scope: which project a folder belongs to, and what it may see.
//!
//! A project key is the canonical absolute path of the project root: the top of the git work tree
//! (every worktree of one repository shares the main work tree's key), or the folder itself
//! outside git. A folder sees global memories and its own project's, nothing else.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// What a caller may see and where it writes by default.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scope {
    project: Option<String>,
}

impl Scope {
    /// Global memories only.
    pub fn global() -> Scope {
        Scope { project: None }
    }

    /// Global memories plus the project with this key.
    pub fn project(key: impl Into<String>) -> Scope {
        Scope {
            project: Some(key.into()),
        }
    }

    /// The scope of a folder: its project root's key.
    pub fn of_folder(folder: &Path) -> Result<Scope> {
        Ok(Scope::project(project_key(folder)?))
    }

    /// The scope of a folder whose repository was already looked up (see `project_key_in`).
    pub fn of_folder_in(folder: &Path, repo: Option<&git2::Repository>) -> Result<Scope> {
        Ok(Scope::project(project_key_in(folder, repo)?))
    }

    /// The scope for a `--project` argument: an existing folder resolves like `of_folder`, anything
    /// else is taken as a key verbatim (imports and evals use plain keys such as `conv-26`).
    /// Without an argument, the current folder's scope.
    pub fn resolve(project: Option<&str>) -> Result<Scope> {
        match project {
            Some(p) if Path::new(p).is_dir() => Scope::of_folder(Path::new(p)),
            Some(p) if p.trim().is_empty() => anyhow::bail!("--project needs a folder or a key"),
            Some(p) => Ok(Scope::project(p)),
            None => {
                let cwd = std::env::current_dir().context("could not read the current folder")?;
                Scope::of_folder(&cwd)
            }
        }
    }

    /// The project key, `None` for the global scope.
    pub fn key(&self) -> Option<&str> {
        self.project.as_deref()
    }
}

impl super::Store {
    /// `Scope::resolve` for a command that reads what a project holds: a `--project` naming
    /// neither a folder nor a project with memories is a mistake to point out, not a project
    /// that sees only the global memories.
    pub fn scope_named(&self, project: Option<&str>) -> Result<Scope> {
        let scope = Scope::resolve(project)?;
        let (Some(named), Some(key)) = (project, scope.key()) else {
            return Ok(scope);
        };
        if Path::new(named).is_dir() {
            return Ok(scope);
        }
        if self.has_project(key)? {
            return Ok(scope);
        }
        let known = self.projects()?;
        let listed = if known.is_empty() {
            "none yet".to_owned()
        } else {
            known.join(", ")
        };
        anyhow::bail!(
            "--project {named:?} names no folder and no project with memories (known projects: \
             {listed}); give a project's folder or one of these keys"
        )
    }
}

/// The project key of `folder`: its git project root, or the folder itself outside git.
pub fn project_key(folder: &Path) -> Result<String> {
    project_key_in(folder, git2::Repository::discover(folder).ok().as_ref())
}

/// Like `project_key`, for a caller that has already looked up the folder's repository
/// (`None` outside git): the hooks open it once for the scope and the task signal.
pub fn project_key_in(folder: &Path, repo: Option<&git2::Repository>) -> Result<String> {
    let folder = folder
        .canonicalize()
        .with_context(|| format!("could not resolve the folder {}", folder.display()))?;
    let root = repo.and_then(git_root).unwrap_or(folder);
    root.to_str()
        .map(str::to_owned)
        .with_context(|| format!("the folder {} is not valid UTF-8", root.display()))
}

/// The folder that names a repository's project: the main work tree's top, shared by its linked
/// worktrees; for worktrees of a bare repository, which has no main work tree, the bare
/// repository itself. `None` for a bare repository opened directly.
fn git_root(repo: &git2::Repository) -> Option<PathBuf> {
    let top = if repo.is_worktree() {
        // A linked worktree's common dir is the main repository's .git folder, or the bare
        // repository.
        let main = git2::Repository::open(repo.commondir()).ok()?;
        match main.workdir() {
            Some(top) => top.to_path_buf(),
            None => repo.commondir().to_path_buf(),
        }
    } else {
        repo.workdir()?.to_path_buf()
    };
    top.canonicalize().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_git_folder_is_its_own_project() {
        let dir = tempfile::tempdir().unwrap();
        let key = project_key(dir.path()).unwrap();
        assert_eq!(key, dir.path().canonicalize().unwrap().to_str().unwrap());
    }

    #[test]
    fn subfolders_and_worktrees_share_the_root_key() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("main");
        std::fs::create_dir_all(main.join("src/deep")).unwrap();
        let repo = git2::Repository::init(&main).unwrap();
        let sig = git2::Signature::now("t", "t@example.com").unwrap();
        let tree = repo
            .find_tree(repo.index().unwrap().write_tree().unwrap())
            .unwrap();
        repo.commit(Some("HEAD"), &sig, &sig, "init", &tree, &[])
            .unwrap();
        let linked = dir.path().join("linked");
        repo.worktree("linked", &linked, None).unwrap();

        let root = project_key(&main).unwrap();
        assert_eq!(project_key(&main.join("src/deep")).unwrap(), root);
        assert_eq!(project_key(&linked).unwrap(), root);
    }

    #[test]
    fn worktrees_of_a_bare_repository_share_its_key() {
        let dir = tempfile::tempdir().unwrap();
        let bare = git2::Repository::init_bare(dir.path().join("repo.git")).unwrap();
        let sig = git2::Signature::now("t", "t@example.com").unwrap();
        let tree = bare
            .find_tree(bare.treebuilder(None).unwrap().write().unwrap())
            .unwrap();
        bare.commit(Some("HEAD"), &sig, &sig, "init", &tree, &[])
            .unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        bare.worktree("a", &a, None).unwrap();
        bare.worktree("b", &b, None).unwrap();
        std::fs::create_dir_all(b.join("src")).unwrap();

        let key = project_key(&a).unwrap();
        assert_eq!(key, bare.path().canonicalize().unwrap().to_str().unwrap());
        assert_eq!(project_key(&b).unwrap(), key);
        assert_eq!(project_key(&b.join("src")).unwrap(), key);
    }

    #[test]
    fn a_missing_folder_is_a_key() {
        let scope = Scope::resolve(Some("conv-26")).unwrap();
        assert_eq!(scope.key(), Some("conv-26"));
    }
}
