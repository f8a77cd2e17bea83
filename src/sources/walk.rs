//! One refresh's work over the files: what is stat'ed, what is read within the limits, what is
//! left waiting, and the imports followed from the files the client loads by their names.

use std::collections::{HashMap, HashSet, VecDeque};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::find::Candidate;
use super::known::Left;
use super::{imports, read, Limits, Place};
use crate::store::sources::{Fold, Kind, SourceFile};

/// A file's size, modification time (nanoseconds) and inode, as `stat` gives them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Stat {
    pub(super) size: i64,
    pub(super) modified: i64,
    pub(super) ino: i64,
}

impl Stat {
    /// The regular file at `path` (links followed); `None` when there is none, or it is a folder,
    /// a device or a FIFO.
    pub(super) fn of(path: &Path) -> Option<Stat> {
        let meta = std::fs::metadata(path).ok().filter(|m| m.is_file())?;
        Some(Stat {
            size: i64::try_from(meta.size()).unwrap_or(i64::MAX),
            modified: meta
                .mtime()
                .saturating_mul(1_000_000_000)
                .saturating_add(meta.mtime_nsec()),
            ino: i64::try_from(meta.ino()).unwrap_or(i64::MAX),
        })
    }

    fn stamp(self) -> (i64, i64) {
        (self.size, self.modified)
    }
}

/// What one refresh does, gathered before the fold writes it in one transaction.
pub(super) struct Walk<'a> {
    pub(super) place: &'a Place,
    pub(super) limits: Limits,
    pub(super) fold: Fold,
    /// Files that may still be read.
    pub(super) reads_left: usize,
    imports_left: usize,
    /// Lines for the log: files skipped, or read in an unusual way.
    notes: Vec<String>,
    pub(super) left: Left,
}

impl<'a> Walk<'a> {
    pub(super) fn new(place: &'a Place, limits: Limits) -> Walk<'a> {
        Walk {
            place,
            limits,
            fold: Fold::default(),
            reads_left: limits.files,
            imports_left: limits.imports,
            notes: Vec::new(),
            left: Left::default(),
        }
    }

    /// The fold to write, the log's lines, and what the limits left out.
    pub(super) fn finish(self) -> (Fold, Vec<String>, Left) {
        (self.fold, self.notes, self.left)
    }

    /// Look at the files found by their names (`roots`) and at every known one (`rows`: all but
    /// topic files), and follow the imports of those that import, breadth first as the client
    /// does (a file reached twice counts at its shallowest). An imported file no longer reached
    /// (its import removed, its importer gone, the chain grown too deep) leaves the store.
    pub(super) fn roots_and_imports(&mut self, roots: Vec<Candidate>, rows: &[SourceFile]) {
        let by_path: HashMap<(Option<&str>, &str), &SourceFile> = rows
            .iter()
            .map(|f| ((f.project.as_deref(), f.path.as_str()), f))
            .collect();
        let mut queue: VecDeque<Candidate> = roots.into();
        // Files found by their names in an earlier session (a `CLAUDE.md` beside a file changed
        // then) are looked at as long as they are there; imported ones only through an import.
        queue.extend(
            rows.iter()
                .filter(|f| f.kind != Kind::Import)
                .map(|f| Candidate {
                    path: PathBuf::from(&f.path),
                    kind: f.kind,
                    project: f.project.clone(),
                    dir: f.dir.clone(),
                    via: f.via.clone(),
                    depth: 0,
                }),
        );
        let mut seen: HashSet<(Option<String>, PathBuf)> = HashSet::new();
        while let Some(candidate) = queue.pop_front() {
            if !seen.insert((candidate.project.clone(), candidate.path.clone())) {
                continue;
            }
            let key = (
                candidate.project.as_deref(),
                candidate.path.to_str().unwrap_or(""),
            );
            let before = by_path.get(&key).copied();
            let Some(stat) = Stat::of(&candidate.path) else {
                if let Some(row) = before {
                    self.fold.gone.push(row.clone());
                }
                continue;
            };
            let imported = self.look(&candidate, stat, before);
            let imports_others = matches!(
                candidate.kind,
                Kind::Instructions | Kind::Agents | Kind::Rule | Kind::Import
            );
            if !imports_others || candidate.depth >= imports::MAX_DEPTH {
                continue;
            }
            for target in imported {
                if let Some(next) = self.import(&candidate, &target) {
                    queue.push_back(next);
                }
            }
        }
        for row in rows.iter().filter(|f| f.kind == Kind::Import) {
            if !seen.contains(&(row.project.clone(), PathBuf::from(&row.path))) {
                self.fold.gone.push(row.clone());
            }
        }
    }

    /// Look at one file found there (`stat`), known as `before`: read it when it changed and the
    /// limits allow, else leave it waiting. The files it imports (as just read, or as known).
    pub(super) fn look(
        &mut self,
        candidate: &Candidate,
        stat: Stat,
        before: Option<&SourceFile>,
    ) -> Vec<String> {
        if !self.changed(candidate, stat, before) {
            if let Some(row) = before.filter(|f| f.ino != stat.ino) {
                self.fold.restamped.push((row.clone(), stat.ino));
            }
            return before.map(|f| f.imports.clone()).unwrap_or_default();
        }
        if self.reads_left == 0 {
            self.wait(candidate, stat, before);
            return before.map(|f| f.imports.clone()).unwrap_or_default();
        }
        self.reads_left -= 1;
        let text = read::read_text(&candidate.path, stat.size, self.limits.bytes);
        let shown = read::shown(self.place, &candidate.path);
        match &text {
            Ok(read) => {
                if let Some(note) = &read.note {
                    self.notes.push(format!("{shown}: {note}"));
                }
            }
            Err(why) if before.and_then(|f| f.problem.as_ref()) != Some(why) => {
                self.notes
                    .push(format!("{shown}: {why}; no memories read from it"));
            }
            Err(_) => {}
        }
        let read = read::read_file(
            self.place,
            candidate,
            text,
            (stat.stamp(), stat.ino),
            before,
        );
        let imported = read.file.imports.clone();
        // A file still unreadable as it was changes nothing: no fold to write.
        let same = before.is_some_and(|f| {
            read.file.problem.is_some()
                && read.pieces.is_empty()
                && f.problem == read.file.problem
                && (f.size, f.modified) == stat.stamp()
        });
        if !same {
            self.fold.reads.push(read);
        }
        imported
    }

    /// Whether `candidate`, found as `stat`, must be read again: new, changed, not read yet, cut
    /// short of what these limits read, unreadable last time (a permission put right changes no
    /// time), or now reached another way than its row says.
    fn changed(&self, candidate: &Candidate, stat: Stat, before: Option<&SourceFile>) -> bool {
        let Some(row) = before else {
            return true;
        };
        let same_kind = match candidate.kind {
            Kind::Rule => matches!(row.kind, Kind::Rule | Kind::Instructions),
            kind => kind == row.kind,
        };
        let limit = i64::try_from(self.limits.bytes).unwrap_or(i64::MAX);
        row.waiting()
            || (row.size, row.modified) != stat.stamp()
            || !same_kind
            || row.via != candidate.via
            || (row.cut > 0 && limit > row.cut)
            || row
                .problem
                .as_deref()
                .is_some_and(|p| p.starts_with("unreadable"))
    }

    /// Leave a file found and not read (for the limits) waiting: a row with a negative size,
    /// dated by the file's time so that the newest are read first.
    pub(super) fn wait(&mut self, candidate: &Candidate, stat: Stat, before: Option<&SourceFile>) {
        if before.is_some_and(SourceFile::waiting) {
            return;
        }
        let file = SourceFile {
            id: before.map_or(0, |f| f.id),
            project: candidate.project.clone(),
            path: candidate.path.to_string_lossy().into_owned(),
            kind: candidate.kind,
            shown: read::file_name_shown(self.place, &candidate.path),
            dir: candidate.dir.clone(),
            globs: Vec::new(),
            size: -1,
            modified: stat.modified,
            ino: stat.ino,
            imports: Vec::new(),
            via: candidate.via.clone(),
            cut: 0,
            problem: None,
        };
        let seen = before.map(|f| (f.size, f.modified));
        self.fold.waiting.push((file, seen));
    }

    /// The file `target` imported by `from`, when the client would read it there: never a
    /// system file or one it skips as not text; from a project's file, only inside the project
    /// (the client loads what lies inside the folder a session works in: `Known`), or anywhere
    /// once the user approved the project's external imports; from the user's own files,
    /// anywhere.
    fn import(&mut self, from: &Candidate, target: &str) -> Option<Candidate> {
        let path = PathBuf::from(target);
        let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        if imports::refused(&path, &real).is_some() {
            return None;
        }
        let users = from.project.is_none();
        let inside = self
            .place
            .top
            .as_ref()
            .is_some_and(|top| real.starts_with(top) && path.starts_with(top));
        if !users && !inside && !self.place.external_imports_approved() {
            return None;
        }
        if self.imports_left == 0 {
            self.left.imports = true;
            return None;
        }
        self.imports_left -= 1;
        Some(Candidate {
            path,
            kind: Kind::Import,
            project: from.project.clone(),
            dir: from.dir.clone(),
            via: Some(from.path.to_string_lossy().into_owned()),
            depth: from.depth + 1,
        })
    }
}
