//! Claude Code's own memory and instruction files, read as sources: the auto-memory folder,
//! `CLAUDE.md` files and their imports, rules and `AGENTS.md` (and Codex CLI's `MEMORY.md` of its
//! memories), found, split into memories and folded into the store when they change. Which of
//! them a session's client loads itself is `Known`'s to say. Synapse never writes into them.
//!
//! A hook calls `refresh`, whose work is bounded whatever the folders hold (`Limits`):
//! - the files the client loads by their names (a few fixed names, the rules folders, the
//!   `CLAUDE.md` beside each changed file, `MEMORY.md`) are stat'ed, and the files they import
//!   followed as the client follows them (`walk`, `imports`);
//! - the memory folder's topic files are many: the folder is listed only when its own
//!   modification time or inode changed (a file created, deleted or renamed into it, which is how
//!   the client writes one), a bounded number of known files are re-checked in rotation (an edit
//!   in place changes only the file's time), and new files are read newest first (`folder`);
//! - only files whose size, time or inode changed are read, at most `Limits::files` of them and
//!   each up to `Limits::bytes`, and folded in one transaction (`store::sources`).
//!
//! What the limits leave for later is kept in the store (a file found and not read yet) and said
//! (`Left`): `synapse sync` refreshes with no limits.
//!
//! What each file becomes: a topic file one memory (its description and body); any other file
//! one memory per top-level list item or paragraph (`split`), labelled `FILE:LINE`.

pub mod client;
mod find;
mod folder;
pub mod import;
pub mod imports;
mod known;
mod read;
pub mod split;
mod walk;

use std::cell::OnceCell;
use std::path::{Path, PathBuf};

use anyhow::Result;

pub use client::Client;
pub use find::nested;
pub use known::{Known, Left, Loads, Screened, Stale};

use crate::store::sources::{Fold, Folded};
use crate::store::{Scope, Store};

/// How much one refresh may do.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Files read (changed or new ones; unchanged ones are only stat'ed).
    pub files: usize,
    /// Bytes read of one file; the rest of a longer file is not folded until `synapse sync`.
    pub bytes: u64,
    /// Entries of a changed folder's listing stat'ed, recorded or taken out.
    pub looks: usize,
    /// Known topic files re-checked in rotation (for edits in place).
    pub checks: usize,
    /// Entries of one folder listed.
    pub listed: usize,
    /// Imports followed.
    pub imports: usize,
}

/// A hook's limits: its work is bounded whatever the folders hold. A memory folder of ten
/// thousand new files is folded over many sessions, newest first, or at once by `synapse sync`;
/// an edit in place of one of them is seen within ten thousand / `checks` refreshes (an edit
/// through the client, which replaces the file, at the next one).
pub const HOOK: Limits = Limits {
    files: 64,
    bytes: 256 << 10,
    looks: 1_024,
    checks: 256,
    listed: 50_000,
    imports: 256,
};
/// `synapse sync`'s: every file, each up to 8 MiB.
pub const SYNC: Limits = Limits {
    files: usize::MAX,
    bytes: 8 << 20,
    looks: usize::MAX,
    checks: usize::MAX,
    listed: usize::MAX,
    imports: usize::MAX,
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
    /// The folder the client keys the project by (its main work tree's top), under which it
    /// records whether the user approved external imports.
    key_path: PathBuf,
    /// That approval, read once when needed.
    approved: OnceCell<bool>,
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
            key_path,
            approved: OnceCell::new(),
        }
    }

    /// The same place reading `folder` as its auto-memory folder (an import of that folder
    /// names its files `memory/NAME`, as the fold names the project's own).
    pub fn reading_memory_in(&self, folder: PathBuf) -> Place {
        let mut place = self.clone();
        place.client.memory = folder;
        place
    }

    /// The same place naming its files from `folder` (an instruction file imported from
    /// outside the project is named from its own folder), and following imports inside it.
    pub fn named_from(&self, folder: PathBuf) -> Place {
        Place {
            top: Some(folder),
            ..self.clone()
        }
    }

    /// Whether the user approved the project's imports from outside the folder a session works
    /// in (`Client::external_imports_approved`), read once.
    pub fn external_imports_approved(&self) -> bool {
        *self
            .approved
            .get_or_init(|| self.client.external_imports_approved(&self.key_path))
    }
}

/// Fold what changed among the source files `place` can see, within `limits`; the files known
/// afterwards. `near` are folders (relative to the top) where the session works on files: a
/// `CLAUDE.md` in one of them or above it is looked for. `settings` are the caller's
/// `[sources]`: turned off, what was folded is taken out.
pub fn refresh(
    store: &mut Store,
    place: &Place,
    near: &[String],
    limits: Limits,
    settings: &crate::config::Sources,
) -> Result<Known> {
    let scope = place.scope();
    if !settings.read {
        return turned_off(store, place, limits);
    }
    let rows = store.source_files(&scope)?;
    let found = find::candidates(place, near);
    let mut walk = walk::Walk::new(place, limits);
    walk.roots_and_imports(found.candidates, &rows);
    folder::topics(store, &mut walk)?;
    let (fold, notes, mut left) = walk.finish();
    let folded = store.fold_sources(fold)?;
    if !notes.is_empty() {
        let today = crate::store::today();
        for note in notes {
            // A line that cannot be written costs the fold nothing; the store holds the reason.
            drop(crate::files::log(
                store.dir(),
                &format!("{today} sources: {note}"),
            ));
        }
    }
    let files = if folded == Folded::default() {
        rows
    } else {
        store.source_files(&scope)?
    };
    let backlog = store.source_backlog(&scope)?;
    left.waiting += backlog.waiting;
    left.cut = backlog.cut;
    left.problems = backlog.problems;
    left.rules = found.rules_capped.len();
    Ok(Known::new(files, folded, left, place))
}

/// With reading turned off, nothing of the files stays (`config::Sources`): their memories go, a
/// bounded number of files at a time.
fn turned_off(store: &mut Store, place: &Place, limits: Limits) -> Result<Known> {
    let gone = store.some_source_files(&place.scope(), limits.looks)?;
    let folded = store.fold_sources(Fold {
        gone,
        ..Fold::default()
    })?;
    Ok(Known::new(Vec::new(), folded, Left::default(), place))
}

/// A count of bytes as a person reads it: `8 MiB`, `256 KiB`, `5.2 MiB`, `120 bytes`.
pub fn bytes_said(bytes: i64) -> String {
    let (unit, name) = if bytes >= 1 << 20 {
        (1 << 20, "MiB")
    } else if bytes >= 1 << 10 {
        (1 << 10, "KiB")
    } else {
        return format!("{bytes} bytes");
    };
    let tenths = bytes * 10 / unit;
    if tenths % 10 == 0 {
        format!("{} {name}", tenths / 10)
    } else {
        format!("{}.{} {name}", tenths / 10, tenths % 10)
    }
}
