//! Where the source files are: the fixed names of Claude Code's instruction files, the entries
//! of the memory and rules folders, and the folders around where a session works, listed without
//! reading a file.

use std::path::{Path, PathBuf};

use super::Place;
use crate::store::sources::Kind;

/// The most entries read from a rules folder, whatever it holds.
const MAX_RULE_ENTRIES: usize = 512;
/// The most files of the memory folder looked at.
const MAX_MEMORY_FILES: usize = 4_096;
/// The most changed files whose folders are looked in for a `CLAUDE.md`.
const MAX_NEAR: usize = 4_096;

/// A file that may be a source, before it is stat'ed.
pub(super) struct Candidate {
    pub(super) path: PathBuf,
    pub(super) kind: Kind,
    pub(super) project: Option<String>,
    pub(super) dir: Option<String>,
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

/// The files a session may have as sources, before any is stat'ed.
pub(super) fn candidates(place: &Place, near: &[String]) -> Vec<Candidate> {
    let mut found = Vec::new();
    let config = &place.client.config;
    let user = |path: PathBuf, kind| Candidate {
        path,
        kind,
        project: None,
        dir: Some("/".to_owned()),
    };
    found.push(user(config.join("CLAUDE.md"), Kind::Instructions));
    // Codex's durable memories: no client loads this file (Codex loads only its summary).
    found.push(Candidate {
        path: place.client.codex_memories.join("MEMORY.md"),
        kind: Kind::Instructions,
        project: None,
        dir: None,
    });
    for path in rule_files(&config.join("rules")) {
        found.push(user(path, Kind::Rule));
    }
    let project = place.project.clone();
    let at = |path: PathBuf, kind, dir: &Path| Candidate {
        path,
        kind,
        project: project.clone(),
        dir: Some(dir.to_string_lossy().into_owned()),
    };
    if let Some(top) = &place.top {
        for name in ["CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"] {
            found.push(at(top.join(name), Kind::Instructions, top));
        }
        found.push(at(top.join("AGENTS.md"), Kind::Agents, top));
        for path in rule_files(&top.join(".claude/rules")) {
            found.push(at(path, Kind::Rule, top));
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
            found.push(at(folder.join("CLAUDE.md"), Kind::Instructions, &folder));
            found.push(at(folder.join("AGENTS.md"), Kind::Agents, &folder));
        }
    }
    if project.is_some() {
        let memory = &place.client.memory;
        let mut names: Vec<PathBuf> = std::fs::read_dir(memory)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .take(MAX_MEMORY_FILES)
            .collect();
        names.sort();
        for path in names {
            let index = path.file_name().is_some_and(|n| n == "MEMORY.md");
            found.push(Candidate {
                path,
                kind: if index { Kind::Index } else { Kind::Topic },
                project: project.clone(),
                dir: index.then(|| "/".to_owned()),
            });
        }
    }
    found
}

/// The `*.md` files under a rules folder (at most `MAX_RULE_ENTRIES` entries looked at).
fn rule_files(folder: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut folders = vec![folder.to_path_buf()];
    let mut entries = 0;
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            entries += 1;
            if entries > MAX_RULE_ENTRIES {
                return files;
            }
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => folders.push(path),
                Ok(_) if path.extension().is_some_and(|x| x == "md") => files.push(path),
                _ => {}
            }
        }
    }
    files.sort();
    files
}
