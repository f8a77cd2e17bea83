//! Claude Code's own memory and instruction files, read as sources: the auto-memory folder,
//! `CLAUDE.md` files and their imports, rules and `AGENTS.md`, found, split into memories and
//! folded into the store when they change. Synapse never writes into them.
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
pub mod import;
pub mod split;

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use anyhow::Result;

pub use client::Client;

use crate::recall::Hit;
use crate::store::sources::{FileRead, Folded, Kind, Piece, SourceFile};
use crate::store::{Scope, Store};

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
/// The most memories one file gives.
const MAX_PIECES: usize = 500;
/// The most entries read from a rules folder, whatever it holds.
const MAX_RULE_ENTRIES: usize = 512;
/// The most files of the memory folder looked at.
const MAX_MEMORY_FILES: usize = 4_096;
/// The most changed files whose folders are looked in for a `CLAUDE.md`.
const MAX_NEAR: usize = 4_096;

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

/// The source files a session can see, after a refresh.
#[derive(Clone, Debug, Default)]
pub struct Known {
    pub files: Vec<SourceFile>,
    pub folded: Folded,
    /// Files found but not read for the limits: `synapse sync` reads them.
    pub waiting: usize,
    cwd: PathBuf,
    /// Whether the client keeps auto memory (`Client::auto_memory`).
    auto_memory: bool,
}

/// What `Known::screen` lets a hook inject, and the memories it left out with the reason.
#[derive(Debug, Default)]
pub struct Screened {
    pub hits: Vec<Hit>,
    pub repeats: Vec<(i64, String)>,
}

/// A file that may be a source, before it is stat'ed.
struct Candidate {
    path: PathBuf,
    kind: Kind,
    project: Option<String>,
    dir: Option<String>,
}

/// Fold what changed among the source files `place` can see, within `limits`; the files known
/// afterwards. `near` are folders (relative to the top) where the session works on files: a
/// `CLAUDE.md` in one of them or above it is looked for.
pub fn refresh(store: &mut Store, place: &Place, near: &[String], limits: Limits) -> Result<Known> {
    let scope = match &place.project {
        Some(key) => Scope::project(key.clone()),
        None => Scope::global(),
    };
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
        let Ok(text) = read_start(&candidate.path, limits.bytes) else {
            continue;
        };
        let (read, imports) = read_file(place, candidate, &text, stamp, before.copied());
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
    })
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
fn candidates(place: &Place, near: &[String]) -> Vec<Candidate> {
    let mut found = Vec::new();
    let config = &place.client.config;
    let user = |path: PathBuf, kind| Candidate {
        path,
        kind,
        project: None,
        dir: Some("/".to_owned()),
    };
    found.push(user(config.join("CLAUDE.md"), Kind::Instructions));
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

/// The first `limit` bytes of a file, as text (a multibyte character cut at the end, or any
/// byte that is not UTF-8, is replaced).
fn read_start(path: &Path, limit: u64) -> std::io::Result<String> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limit)
        .read_to_end(&mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// A file read for its fold, and the files it imports (to be looked at in turn).
fn read_file(
    place: &Place,
    candidate: &Candidate,
    text: &str,
    stamp: (i64, i64),
    before: Option<&SourceFile>,
) -> (FileRead, Vec<Candidate>) {
    let path = &candidate.path;
    let shown = shown(place, path);
    let (front, body, first) = split::front(text);
    // A rules folder's file is a rule only while it has `paths:`; without, the client loads it.
    let kind = match candidate.kind {
        Kind::Rule if front.paths.is_empty() => Kind::Instructions,
        kind => kind,
    };
    let mut imports = Vec::new();
    let pieces: Vec<Piece> = match kind {
        Kind::Topic => split::topic(text)
            .map(|(name, chunk)| Piece {
                line: i64::try_from(chunk.line).unwrap_or(i64::MAX),
                label: titled(&shown, name.as_deref()),
                text: chunk.text,
            })
            .into_iter()
            .collect(),
        _ => {
            if matches!(kind, Kind::Instructions | Kind::Agents) {
                let folder = path.parent().unwrap_or(Path::new("/"));
                for import in split::imports(body) {
                    if let Some(target) = resolve_import(&import, folder, place) {
                        imports.push(Candidate {
                            path: target,
                            kind: Kind::Instructions,
                            project: candidate.project.clone(),
                            dir: candidate.dir.clone(),
                        });
                    }
                }
            }
            let folder = path.parent().unwrap_or(Path::new("/"));
            split::sections(body, first, MAX_PIECES)
                .into_iter()
                .filter(|chunk| kind != Kind::Index || !points_to_a_topic(&chunk.text, folder))
                .map(|chunk| Piece {
                    line: i64::try_from(chunk.line).unwrap_or(i64::MAX),
                    label: format!("{shown}:{}", chunk.line),
                    text: chunk.text,
                })
                .collect()
        }
    };
    let file = SourceFile {
        id: before.map_or(0, |f| f.id),
        project: candidate.project.clone(),
        path: path.to_string_lossy().into_owned(),
        kind,
        shown: file_name_shown(place, path),
        dir: match kind {
            Kind::Topic | Kind::Rule => None,
            _ => candidate.dir.clone(),
        },
        globs: front.paths,
        size: stamp.0,
        modified: stamp.1,
    };
    let read = FileRead {
        seen: before.map(|f| (f.size, f.modified)),
        file,
        pieces,
    };
    (read, imports)
}

/// Whether an entry of `MEMORY.md` is only a pointer to a topic file beside it
/// (`[Title](file.md) — hook`): the topic file is the memory, and a copy of its pointer would
/// only count its words twice in every search.
fn points_to_a_topic(entry: &str, folder: &Path) -> bool {
    split::linked_file(entry).is_some_and(|target| folder.join(target).is_file())
}

/// A topic file's label: where it is, then its `name` (`memory/pagination.md · List
/// pagination`). The name is often the only place the file's subject is named, and a label's
/// words are searched and counted like the text's; kept out of the text, it does not stop two
/// files saying the same thing under two names from being found repeats.
fn titled(shown: &str, name: Option<&str>) -> String {
    match name.map(str::trim).filter(|n| !n.is_empty()) {
        Some(name) => format!("{shown} · {}", name.replace(['\n', '\r'], " ")),
        None => shown.to_owned(),
    }
}

/// An `@path` import's file: relative to the importing file's folder, `~/` to the home.
fn resolve_import(import: &str, folder: &Path, place: &Place) -> Option<PathBuf> {
    let path = if let Some(rest) = import.strip_prefix("~/") {
        place.client.home.as_ref()?.join(rest)
    } else {
        folder.join(import)
    };
    let path = std::fs::canonicalize(path).ok()?;
    path.is_file().then_some(path)
}

/// A memory's label for a file: `memory/NAME` in the memory folder, relative to the top in the
/// project, `~/`-relative elsewhere.
fn shown(place: &Place, path: &Path) -> String {
    if let Ok(rest) = path.strip_prefix(&place.client.memory) {
        return format!("memory/{}", rest.display());
    }
    file_name_shown(place, path)
}

/// A file as drift names it: relative to the project, or `~/`-relative (the memory folder).
fn file_name_shown(place: &Place, path: &Path) -> String {
    if let Some(rest) = place.top.as_deref().and_then(|t| path.strip_prefix(t).ok()) {
        return rest.display().to_string();
    }
    place.client.shown(path)
}

impl Known {
    /// Where the blocks ask the model to keep lessons: in the client's files when its auto
    /// memory is on.
    pub fn saving(&self) -> crate::plugin::inject::Saving {
        if self.auto_memory {
            crate::plugin::inject::Saving::ClientFiles
        } else {
            crate::plugin::inject::Saving::Synapse
        }
    }

    /// The files known for `place`, as last folded, without looking at them.
    pub fn unchanged(store: &Store, place: &Place) -> Result<Known> {
        let scope = match &place.project {
            Some(key) => Scope::project(key.clone()),
            None => Scope::global(),
        };
        Ok(Known {
            files: store.source_files(&scope)?,
            cwd: place.cwd.clone(),
            auto_memory: place.client.auto_memory,
            ..Known::default()
        })
    }

    /// Whether Claude Code loads `file` itself into a session working in this one's folder.
    pub fn loaded(&self, file: &SourceFile) -> bool {
        let under = |dir: &Option<String>| {
            dir.as_deref()
                .is_some_and(|d| self.cwd.starts_with(Path::new(d)))
        };
        match file.kind {
            Kind::Topic | Kind::Rule => false,
            Kind::Index => true,
            Kind::Instructions => under(&file.dir),
            Kind::Agents => {
                let beside = Path::new(&file.path).with_file_name("CLAUDE.md");
                under(&file.dir)
                    && !self
                        .files
                        .iter()
                        .any(|f| Path::new(&f.path) == beside && f.kind == Kind::Instructions)
            }
        }
    }

    /// The memories of the files Claude Code loads itself into this session.
    pub fn loaded_memories(&self, store: &Store) -> Result<HashSet<i64>> {
        let mut ids = HashSet::new();
        for file in self.files.iter().filter(|f| self.loaded(f)) {
            ids.extend(store.memories_of_source(file.id)?);
        }
        Ok(ids)
    }

    /// The rules whose `paths:` match one of `files` (relative to the top).
    pub fn rules_for(&self, files: &[String]) -> Vec<&SourceFile> {
        self.files
            .iter()
            .filter(|f| f.kind == Kind::Rule && !files.is_empty())
            .filter(|f| {
                let mut set = globset::GlobSetBuilder::new();
                for glob in &f.globs {
                    if let Ok(g) = globset::Glob::new(glob) {
                        set.add(g);
                    }
                }
                set.build()
                    .is_ok_and(|set| files.iter().any(|file| set.is_match(file)))
            })
            .collect()
    }

    /// What of `hits` a hook may inject: not a memory that repeats a line of a file Claude Code
    /// loads itself (drift's duplicate test, line by line; the model has that line already).
    /// The pieces of those files are not searched at all (`loaded_memories`).
    pub fn screen(&self, store: &Store, hits: Vec<Hit>) -> Result<Screened> {
        let loaded: HashMap<i64, &SourceFile> = self
            .files
            .iter()
            .filter(|f| self.loaded(f))
            .map(|f| (f.id, f))
            .collect();
        if loaded.is_empty() || hits.is_empty() {
            return Ok(Screened {
                hits,
                repeats: Vec::new(),
            });
        }
        let sources: Vec<i64> = loaded.keys().copied().collect();
        let lines = store.source_hashes(&sources)?;
        let mut screened = Screened::default();
        for hit in hits {
            let repeated = crate::drift::line_hashes(&hit.body).find_map(|h| lines.get(&h));
            match repeated {
                Some(&(memory, source, line)) if memory != hit.id => {
                    let file = loaded.get(&source).map_or("", |f| f.shown.as_str());
                    screened.repeats.push((
                        hit.id,
                        format!("{} repeats {file}:{line}, which Claude Code loads", hit.id),
                    ));
                }
                _ => screened.hits.push(hit),
            }
        }
        Ok(screened)
    }
}
