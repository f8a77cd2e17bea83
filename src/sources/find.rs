//! Where the source files Claude Code loads by their names are: the fixed names of its
//! instruction files, the rules folders (symbolic links to folders followed as the client follows
//! them), the `CLAUDE.md` files around where a session works, and the memory folder's index,
//! listed without reading a file. The memory folder's topic files are `folder`'s.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::Place;
use crate::store::sources::Kind;

/// The most entries read from a rules folder (and the folders under it), whatever it holds.
pub(super) const MAX_RULE_ENTRIES: usize = 512;
/// The most changed files whose folders are looked in for a `CLAUDE.md`.
const MAX_NEAR: usize = 4_096;

/// A file that may be a source, before it is stat'ed.
#[derive(Clone, Debug)]
pub(super) struct Candidate {
    pub(super) path: PathBuf,
    pub(super) kind: Kind,
    pub(super) project: Option<String>,
    pub(super) dir: Option<String>,
    /// The importing file or the linked folder it is reached through (`SourceFile::via`).
    pub(super) via: Option<String>,
    /// How many imports below a file found by its name (0 for that file).
    pub(super) depth: usize,
}

/// The files found by their names, and whether a rules folder held more than is read.
#[derive(Debug, Default)]
pub(super) struct Found {
    pub(super) candidates: Vec<Candidate>,
    /// Rules folders that held more than `MAX_RULE_ENTRIES` entries.
    pub(super) rules_capped: Vec<PathBuf>,
}

/// The `CLAUDE.md` and `AGENTS.md` files git tracks below the top of the checkout at `top`, as
/// paths from the top: where `synapse sync` looks for nested instruction files, which a hook
/// finds only beside the files a session changes.
pub fn nested(top: &Path) -> Vec<String> {
    let Ok(repo) = git2::Repository::open(top) else {
        return Vec::new();
    };
    let Ok(index) = repo.index() else {
        return Vec::new();
    };
    index
        .iter()
        .filter_map(|entry| String::from_utf8(entry.path).ok())
        .filter(|path| path.ends_with("/CLAUDE.md") || path.ends_with("/AGENTS.md"))
        .collect()
}

/// The files a session loads or may load by their names, before any is stat'ed.
pub(super) fn candidates(place: &Place, near: &[String]) -> Found {
    let mut found = Found::default();
    let config = &place.client.config;
    let user = |path: PathBuf, kind, via: Option<String>| Candidate {
        path,
        kind,
        project: None,
        dir: Some("/".to_owned()),
        via,
        depth: 0,
    };
    found
        .candidates
        .push(user(config.join("CLAUDE.md"), Kind::Instructions, None));
    // Codex's durable memories: no client loads this file (Codex loads only its summary).
    found.candidates.push(Candidate {
        path: place.client.codex_memories.join("MEMORY.md"),
        kind: Kind::Instructions,
        project: None,
        dir: None,
        via: None,
        depth: 0,
    });
    // The user's own rules may link anywhere: the client follows them all.
    let rules = rule_files(
        &config.join("rules"),
        &mut |_| true,
        &mut found.rules_capped,
    );
    for (path, via) in rules {
        found.candidates.push(user(path, Kind::Rule, via));
    }
    let project = place.project.clone();
    let at = |path: PathBuf, kind, dir: &Path, via: Option<String>| Candidate {
        path,
        kind,
        project: project.clone(),
        dir: Some(dir.to_string_lossy().into_owned()),
        via,
        depth: 0,
    };
    if let Some(top) = &place.top {
        for name in ["CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"] {
            found
                .candidates
                .push(at(top.join(name), Kind::Instructions, top, None));
        }
        found
            .candidates
            .push(at(top.join("AGENTS.md"), Kind::Agents, top, None));
        // A project's linked rules folder is read where the client may load it: inside the
        // project, or anywhere once the user approved the project's external imports.
        let mut inside = |real: &Path| real.starts_with(top) || place.external_imports_approved();
        let rules = rule_files(
            &top.join(".claude/rules"),
            &mut inside,
            &mut found.rules_capped,
        );
        for (path, via) in rules {
            found.candidates.push(at(path, Kind::Rule, top, via));
        }
        // Folders between the top and where the session works, and around the files it changes.
        let mut folders: Vec<PathBuf> = Vec::new();
        if let Ok(below) = place.cwd.strip_prefix(top) {
            folders.extend(below.ancestors().map(|a| top.join(a)));
        }
        for file in near.iter().take(MAX_NEAR) {
            folders.extend(Path::new(file).ancestors().skip(1).map(|a| top.join(a)));
        }
        folders.sort();
        folders.dedup();
        for folder in folders.into_iter().filter(|f| f != top) {
            found.candidates.push(at(
                folder.join("CLAUDE.md"),
                Kind::Instructions,
                &folder,
                None,
            ));
            found
                .candidates
                .push(at(folder.join("AGENTS.md"), Kind::Agents, &folder, None));
        }
    }
    if project.is_some() {
        found.candidates.push(Candidate {
            path: place.client.memory.join(super::folder::INDEX),
            kind: Kind::Index,
            project: project.clone(),
            dir: Some("/".to_owned()),
            via: None,
            depth: 0,
        });
    }
    found
}

/// The `*.md` files under a rules folder, as the client walks it: a symbolic link to a folder is
/// followed (once, whatever loops the links make) when `follow` allows where it leads, and a file
/// reached through one is named by its own path, with the link as its `via`. At most
/// `MAX_RULE_ENTRIES` entries are looked at; a folder that holds more is added to `capped`.
fn rule_files(
    folder: &Path,
    follow: &mut dyn FnMut(&Path) -> bool,
    capped: &mut Vec<PathBuf>,
) -> Vec<(PathBuf, Option<String>)> {
    let mut files = Vec::new();
    let mut visited: HashSet<PathBuf> = HashSet::new();
    // Each folder with the link it was reached through, if any.
    let mut folders: Vec<(PathBuf, Option<String>)> = vec![(folder.to_path_buf(), None)];
    let mut entries = 0;
    while let Some((folder, via)) = folders.pop() {
        let Ok(real) = std::fs::canonicalize(&folder) else {
            continue;
        };
        if !visited.insert(real.clone()) {
            continue;
        }
        for entry in std::fs::read_dir(&real).into_iter().flatten().flatten() {
            entries += 1;
            if entries > MAX_RULE_ENTRIES {
                capped.push(folder.to_path_buf());
                files.sort();
                return files;
            }
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_symlink() {
                let Ok(target) = std::fs::canonicalize(&path) else {
                    continue;
                };
                if !follow(&target) {
                    continue;
                }
                let link = Some(path.to_string_lossy().into_owned());
                if target.is_dir() {
                    folders.push((target, link));
                } else if target.is_file() && is_markdown(&path) {
                    files.push((target, link));
                }
            } else if kind.is_dir() {
                folders.push((path, via.clone()));
            } else if is_markdown(&path) {
                files.push((path, via.clone()));
            }
        }
    }
    files.sort();
    files
}

fn is_markdown(path: &Path) -> bool {
    path.extension().is_some_and(|x| x == "md")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn linked_rule_folders_are_followed_once_where_allowed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let rules = root.join("p/.claude/rules");
        std::fs::create_dir_all(rules.join("own")).unwrap();
        std::fs::write(rules.join("own/a.md"), "a").unwrap();
        std::fs::create_dir_all(root.join("p/shared")).unwrap();
        std::fs::write(root.join("p/shared/b.md"), "b").unwrap();
        std::fs::create_dir_all(root.join("elsewhere")).unwrap();
        std::fs::write(root.join("elsewhere/c.md"), "c").unwrap();
        symlink(root.join("p/shared"), rules.join("shared")).unwrap();
        symlink(root.join("elsewhere"), rules.join("far")).unwrap();
        // A loop: the shared folder links back to the rules folder.
        symlink(&rules, root.join("p/shared/back")).unwrap();
        let top = root.join("p");
        let mut inside = |real: &Path| real.starts_with(&top);
        let mut capped = Vec::new();
        let found = rule_files(&rules, &mut inside, &mut capped);
        let link = rules.join("shared").to_string_lossy().into_owned();
        assert_eq!(
            found,
            [
                (rules.join("own/a.md"), None),
                (root.join("p/shared/b.md"), Some(link)),
            ]
        );
        assert!(capped.is_empty());
        let mut anywhere = |_: &Path| true;
        let all = rule_files(&rules, &mut anywhere, &mut capped);
        assert!(all.iter().any(|(p, _)| p.ends_with("elsewhere/c.md")));
    }

    #[test]
    fn a_rules_folder_past_the_cap_is_said() {
        let dir = tempfile::tempdir().unwrap();
        for n in 0..=MAX_RULE_ENTRIES {
            std::fs::write(dir.path().join(format!("r{n}.md")), "r").unwrap();
        }
        let mut capped = Vec::new();
        let found = rule_files(dir.path(), &mut |_| true, &mut capped);
        assert_eq!(found.len(), MAX_RULE_ENTRIES);
        assert_eq!(capped, [dir.path().to_path_buf()]);
    }
}
