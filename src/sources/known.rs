//! What a session's refresh knows of the source files: which ones Claude Code loads itself into
//! this session, which rules a changed file selects, what of the hooks' hits repeats a loaded
//! line, and which loaded lines name a path that is gone.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Serialize;

use super::imports::{CLIENT_MAX_BYTES, MAX_DEPTH};
use super::Place;
use crate::recall::Hit;
use crate::store::sources::{Folded, Kind, SourceFile};
use crate::store::{Scope, Store};

/// How many lines of `MEMORY.md` the client loads into a session (measured: docs/claude-code.md).
const INDEX_LINES_LOADED: i64 = 200;
/// The most pieces of the loaded files a session's start reads for gone paths
/// (`Known::stale_lines`): a session's work stays bounded however much the client loads.
const STALE_PIECES: usize = 500;

/// The lines of the files the client loads into a session that name gone paths
/// (`Known::stale_lines`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stale {
    pub lines: Vec<crate::drift::StaleLine>,
    /// Pieces of the loaded files left unread past `STALE_PIECES` (`synapse drift` reads all).
    pub unread: usize,
}

/// What the limits of a refresh left out, to be said rather than kept silent: `synapse sync`
/// does it all.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Left {
    /// Files found and not read yet (a hook reads a bounded number, newest first).
    pub waiting: usize,
    /// Files folded only up to a limit of bytes.
    pub cut: usize,
    /// Files that gave no memories, or fewer than they hold (unreadable, not text, too many
    /// pieces): `synapse doctor` names them.
    pub problems: usize,
    /// The memory folder holds more entries than one listing reads.
    pub unlisted: bool,
    /// Rules folders holding more entries than are read.
    pub rules: usize,
    /// More imports than one refresh follows.
    pub imports: bool,
}

impl Left {
    /// Whether anything was left out.
    pub fn any(&self) -> bool {
        *self != Left::default()
    }

    /// What was left out, one sentence each, for `synapse sync` and `synapse doctor`.
    pub fn said(&self) -> Vec<String> {
        let mut said = Vec::new();
        let files = |n: usize| {
            if n == 1 {
                "1 file".to_owned()
            } else {
                format!("{n} files")
            }
        };
        if self.waiting > 0 {
            said.push(format!(
                "{} found and not read yet (a hook reads {} at a time, newest first)",
                files(self.waiting),
                super::HOOK.files
            ));
        }
        if self.unlisted {
            said.push(format!(
                "the memory folder holds more than {} entries, more than a hook lists",
                super::HOOK.listed
            ));
        }
        if self.cut > 0 {
            said.push(format!(
                "{} folded only in part (a limit of bytes)",
                files(self.cut)
            ));
        }
        if self.problems > 0 {
            said.push(format!(
                "{} gave no memories or fewer than they hold",
                files(self.problems)
            ));
        }
        if self.rules > 0 {
            said.push(format!(
                "a rules folder holds more than {} entries; the rest is not read",
                super::find::MAX_RULE_ENTRIES
            ));
        }
        if self.imports {
            said.push(format!(
                "more than {} imports; the rest are not followed by a hook",
                super::HOOK.imports
            ));
        }
        said
    }
}

/// The source files a session can see, after a refresh.
#[derive(Clone, Debug, Default)]
pub struct Known {
    /// Every known file but topic files (which the client never loads by itself).
    pub files: Vec<SourceFile>,
    pub folded: Folded,
    /// What the limits left out.
    pub left: Left,
    /// Whether the client keeps auto memory (`Client::auto_memory`).
    pub(super) auto_memory: bool,
    /// Which of these files the session's client loads itself (`loaded_by`).
    pub(super) loads: Loads,
    /// The files Claude Code loads into this session by their places and imports (their ids):
    /// the inference, where no report says otherwise.
    by_place: HashSet<i64>,
    /// The folder the session works in.
    cwd: PathBuf,
    /// The files the client reported loading into the session (`reported`).
    pub(super) reported: HashSet<String>,
    /// Whether `reported` is the whole of what the client loaded of the files it reports
    /// (instruction files and rules), rather than what it has reported so far.
    pub(super) whole: bool,
}

/// Which of the source files a client loads into its sessions itself: their memories are then
/// neither searched nor offered again (the model has their text).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Loads {
    /// Claude Code: `CLAUDE.md` files and rules on the working path and what they import, the
    /// auto memory's `MEMORY.md`, and an `AGENTS.md` with no `CLAUDE.md` beside it.
    #[default]
    ClaudeCode,
    /// Codex CLI: every `AGENTS.md` from the repository's top to the working folder, and none
    /// of Claude Code's files.
    Agents,
    /// None of them (Gemini CLI, which loads its own `GEMINI.md`).
    Nothing,
}

/// What `Known::screen` lets a hook inject, and the memories it left out with the reason.
#[derive(Debug, Default)]
pub struct Screened {
    pub hits: Vec<Hit>,
    pub repeats: Vec<(i64, String)>,
}

impl Known {
    /// The files known for `place` after a fold, with what Claude Code loads of them.
    pub(super) fn new(files: Vec<SourceFile>, folded: Folded, left: Left, place: &Place) -> Known {
        let by_place = loaded_by_the_client(&files, place);
        Known {
            files,
            folded,
            left,
            auto_memory: place.client.auto_memory,
            loads: Loads::ClaudeCode,
            by_place,
            cwd: place.cwd.clone(),
            reported: HashSet::new(),
            whole: false,
        }
    }

    /// Whether Claude Code keeps auto memory here, so its model writes memory files (the
    /// adapter decides what the blocks then ask of the model).
    pub fn auto_memory(&self) -> bool {
        self.auto_memory && self.loads == Loads::ClaudeCode
    }

    /// The same files as a session of a client that loads `loads` of them sees them (Claude
    /// Code's by default): only what it loads is screened out as what the model has.
    pub fn loaded_by(self, loads: Loads) -> Known {
        Known { loads, ..self }
    }

    /// The same files, with those Claude Code reported loading into the session (its
    /// InstructionsLoaded hook: `CLAUDE.md` files, their imports, nested ones, matched rules).
    /// A reported file is loaded; when the report is `whole` (the session is past its start,
    /// when the reports arrive), an instruction file or rule it does not name is not, whatever
    /// its place suggests. With no report (a client that sends none), the places decide.
    pub fn reported(self, reported: HashSet<String>, whole: bool) -> Known {
        Known {
            reported,
            whole,
            ..self
        }
    }

    /// The files known for `place`, as last folded, without looking at them.
    pub fn unchanged(store: &Store, place: &Place) -> Result<Known> {
        let files = store.source_files(&place.scope())?;
        Ok(Known::new(files, Folded::default(), Left::default(), place))
    }

    /// Whether the session's client loads `file` itself into a session working in this one's
    /// folder.
    pub fn loaded(&self, file: &SourceFile) -> bool {
        match self.loads {
            Loads::Nothing => return false,
            Loads::Agents => {
                return file.kind == Kind::Agents
                    && file
                        .dir
                        .as_deref()
                        .is_some_and(|d| self.cwd.starts_with(Path::new(d)))
            }
            Loads::ClaudeCode => {}
        }
        if self.reported.contains(&file.path) {
            return true;
        }
        let reportable = matches!(
            file.kind,
            Kind::Instructions | Kind::Agents | Kind::Rule | Kind::Import
        );
        if reportable && self.whole && !self.reported.is_empty() {
            return false;
        }
        self.by_place.contains(&file.id)
    }

    /// The memories of the files Claude Code loads itself into this session.
    pub fn loaded_memories(&self, store: &Store) -> Result<HashSet<i64>> {
        let mut ids = HashSet::new();
        for file in self.files.iter().filter(|f| self.loaded(f)) {
            // The client loads MEMORY.md's first 200 lines only: the rest the model has not seen.
            let last = match file.kind {
                Kind::Index => INDEX_LINES_LOADED,
                _ => i64::MAX,
            };
            ids.extend(store.memories_of_source_through(file.id, last)?);
        }
        Ok(ids)
    }

    /// The lines of the files the client loads into this session (`loaded`, the memories
    /// `loaded_memories` gives) that name a path drift is certain is gone, by file and line: the
    /// model was told to follow them. At most `STALE_PIECES` pieces are read.
    /// A path `ignore` matches (the settings' `[drift] ignore`) is never stale.
    pub fn stale_lines(
        store: &Store,
        scope: &Scope,
        loaded: &HashSet<i64>,
        ignore: &crate::config::Ignore,
    ) -> Result<Stale> {
        let mut ids: Vec<i64> = loaded.iter().copied().collect();
        ids.sort_unstable();
        let unread = ids.len().saturating_sub(STALE_PIECES);
        ids.truncate(STALE_PIECES);
        let memories = store.live_openings_by_ids(&ids, scope, crate::drift::READ_BYTES)?;
        let found = crate::drift::stale_among(store, scope, &memories, ignore)?;
        Ok(Stale {
            lines: crate::drift::stale_lines(&found),
            unread,
        })
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
        let mut lines = store.source_hashes(&sources)?;
        lines.retain(|_, &mut (_, source, line)| {
            loaded.get(&source).map(|f| f.kind) != Some(Kind::Index) || line <= INDEX_LINES_LOADED
        });
        let mut screened = Screened::default();
        for hit in hits {
            let repeated = crate::drift::line_hashes(&hit.body).find_map(|h| lines.get(&h));
            match repeated {
                Some(&(memory, source, line)) if memory != hit.id => {
                    let file = loaded.get(&source).map_or("", |f| f.shown.as_str());
                    screened.repeats.push((
                        hit.id,
                        format!("{} repeats {file}:{line}, which the client loads", hit.id),
                    ));
                }
                _ => screened.hits.push(hit),
            }
        }
        Ok(screened)
    }
}

/// The ids of the files among `files` that the client loads into a session at `place`: those it
/// loads by their names, and what they import (`imports`), breadth first to the depth it follows.
/// A project file's import counts only inside the folder the session works in, or anywhere
/// once the user approved the project's external imports; a user's file's, anywhere.
fn loaded_by_the_client(files: &[SourceFile], place: &Place) -> HashSet<i64> {
    let cwd = place.cwd.as_path();
    let under = |dir: &Option<String>| {
        dir.as_deref()
            .is_some_and(|d| cwd.starts_with(Path::new(d)))
    };
    let reachable = |file: &SourceFile| {
        file.project.is_none()
            || Path::new(&file.path).starts_with(cwd)
            || place.external_imports_approved()
    };
    let by_path: HashMap<(Option<&str>, &str), &SourceFile> = files
        .iter()
        .map(|f| ((f.project.as_deref(), f.path.as_str()), f))
        .collect();
    let small = |file: &SourceFile| file.size <= CLIENT_MAX_BYTES;
    let by_name = |file: &SourceFile| match file.kind {
        Kind::Topic | Kind::Rule | Kind::Import => false,
        // The client loads MEMORY.md only while its auto memory is on.
        Kind::Index => place.client.auto_memory,
        Kind::Instructions => {
            under(&file.dir) && small(file) && (file.via.is_none() || reachable(file))
        }
        Kind::Agents => {
            let beside = Path::new(&file.path).with_file_name("CLAUDE.md");
            under(&file.dir)
                && small(file)
                && !files
                    .iter()
                    .any(|f| Path::new(&f.path) == beside && f.kind == Kind::Instructions)
        }
    };
    let mut loaded: HashSet<i64> = HashSet::new();
    let mut queue: VecDeque<(&SourceFile, usize)> = VecDeque::new();
    for file in files.iter().filter(|f| !f.waiting() && by_name(f)) {
        loaded.insert(file.id);
        queue.push_back((file, 0));
    }
    while let Some((file, depth)) = queue.pop_front() {
        if depth >= MAX_DEPTH || file.kind == Kind::Index {
            continue;
        }
        for target in &file.imports {
            let Some(&imported) = by_path.get(&(file.project.as_deref(), target.as_str())) else {
                continue;
            };
            if imported.waiting() || !small(imported) {
                continue;
            }
            if (file.project.is_none() || reachable(imported)) && loaded.insert(imported.id) {
                queue.push_back((imported, depth + 1));
            }
        }
    }
    loaded
}
