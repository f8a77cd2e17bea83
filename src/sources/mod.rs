//! Claude Code's own memory and instruction files, read as sources: the auto-memory folder,
//! `CLAUDE.md` files and their imports, rules and `AGENTS.md` (and Codex CLI's `MEMORY.md` of its
//! memories), found, split into memories and folded into the store when they change. Which of
//! them a session's client loads itself is `Known`'s to say. Synapse never writes into them.
//!
//! A hook calls `refresh`: it stats every file it knows of or expects (a few fixed names, the
//! memory folder's and the rules folder's entries, the `CLAUDE.md` beside each changed file),
//! reads only those whose size or modification time changed, at most `Limits::files` of them and
//! each up to `Limits::bytes`, and folds them in one transaction (`store::sources`). An unchanged
//! project costs a read of the `sources` rows and a `stat` per file. `synapse sync` refreshes
//! with no limit on the count.
//!
//! What each file becomes: a topic file one memory (its description and body); any other file
//! one memory per top-level list item or paragraph (`split`), labelled `FILE:LINE`.

pub mod client;
mod find;
pub mod import;
mod known;
mod read;
pub mod split;

use std::collections::{HashMap, HashSet};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use anyhow::Result;

pub use client::Client;
pub use find::nested;
pub use known::{Known, Loads, Screened, Stale};

use crate::store::sources::{Folded, SourceFile};
use crate::store::{Scope, Store};
use find::{candidates, Candidate};

/// How much one refresh may read.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Files read (changed or new ones; unchanged ones are only stat'ed).
    pub files: usize,
    /// Bytes read of one file; the rest of a longer file is not folded.
    pub bytes: u64,
}

/// A hook's limits: its work is bounded whatever the folders hold. A memory folder of a thousand
/// new files is folded over several sessions, or at once by `synapse sync`.
pub const HOOK: Limits = Limits {
    files: 64,
    bytes: 256 << 10,
};
/// `synapse sync`'s: every file, each up to 8 MiB.
pub const SYNC: Limits = Limits {
    files: usize::MAX,
    bytes: 8 << 20,
};
/// Where one session stands: its project, its folders and its client's settings.
#[derive(Clone, Debug)]
pub struct Place {
    /// The project's key (its top folder), `None` for the global scope.
    pub project: Option<String>,
    /// The project's top folder (the checkout, or the folder itself outside git).
    pub top: Option<PathBuf>,
    /// Where the session works.
    pub cwd: PathBuf,
    pub client: Client,
}

impl Place {
    /// The scope the place's memories belong to.
    pub fn scope(&self) -> Scope {
        match &self.project {
            Some(key) => Scope::project(key.clone()),
            None => Scope::global(),
        }
    }

    /// The place of a session working in `cwd`, in `scope`, with the checkout `checkout`.
    pub fn new(scope: &Scope, cwd: &Path, checkout: Option<&Path>) -> Place {
        let project = scope.key().map(str::to_owned);
        let top = checkout
            .map(Path::to_path_buf)
            .or_else(|| project.as_ref().map(PathBuf::from));
        // The client keys its memory folder by the main work tree's top, which the project key is.
        let key_path = project
            .as_ref()
            .map(PathBuf::from)
            .or_else(|| top.clone())
            .unwrap_or_else(|| cwd.to_path_buf());
        Place {
            client: Client::for_project(&key_path),
            project,
            top,
            cwd: cwd.to_path_buf(),
        }
    }
}

/// Fold what changed among the source files `place` can see, within `limits`; the files known
/// afterwards. `near` are folders (relative to the top) where the session works on files: a
/// `CLAUDE.md` in one of them or above it is looked for.
pub fn refresh(store: &mut Store, place: &Place, near: &[String], limits: Limits) -> Result<Known> {
    let scope = place.scope();
    let known = store.source_files(&scope)?;
    if !store.settings()?.sources.read {
        // Turned off: nothing of the files stays (`config::Sources`).
        let folded = store.fold_sources(Vec::new(), known)?;
        return Ok(Known {
            folded,
            cwd: place.cwd.clone(),
            auto_memory: place.client.auto_memory,
            ..Known::default()
        });
    }
    let mut seen: HashSet<(Option<String>, String)> = HashSet::new();
    let mut queue: Vec<Candidate> = candidates(place, near);
    for file in &known {
        queue.push(Candidate {
            path: PathBuf::from(&file.path),
            kind: file.kind,
            project: file.project.clone(),
            dir: file.dir.clone(),
        });
    }
    let by_path: HashMap<(Option<String>, &str), &SourceFile> = known
        .iter()
        .map(|f| ((f.project.clone(), f.path.as_str()), f))
        .collect();
    let (mut reads, mut gone, mut waiting) = (Vec::new(), Vec::new(), 0);
    let mut next = 0;
    while next < queue.len() {
        let candidate = &queue[next];
        next += 1;
        let path = candidate.path.to_string_lossy().into_owned();
        if !seen.insert((candidate.project.clone(), path.clone())) {
            continue;
        }
        let before = by_path.get(&(candidate.project.clone(), path.as_str()));
        let meta = match std::fs::metadata(&candidate.path) {
            Ok(meta) if meta.is_file() => meta,
            _ => {
                if let Some(file) = before {
                    gone.push((*file).clone());
                }
                continue;
            }
        };
        let stamp = (
            i64::try_from(meta.size()).unwrap_or(i64::MAX),
            meta.mtime()
                .saturating_mul(1_000_000_000)
                .saturating_add(meta.mtime_nsec()),
        );
        if before.is_some_and(|f| (f.size, f.modified) == stamp) {
            continue;
        }
        if reads.len() >= limits.files {
            waiting += 1;
            continue;
        }
        let Ok(text) = read::read_start(&candidate.path, limits.bytes) else {
            continue;
        };
        let (read, imports) = read::read_file(place, candidate, &text, stamp, before.copied());
        reads.push(read);
        queue.extend(imports);
    }
    let folded = store.fold_sources(reads, gone)?;
    let files = if folded == Folded::default() {
        known
    } else {
        store.source_files(&scope)?
    };
    Ok(Known {
        files,
        folded,
        waiting,
        cwd: place.cwd.clone(),
        auto_memory: place.client.auto_memory,
        ..Known::default()
    })
}
