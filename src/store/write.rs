//! Writes: remember, supersede, forget, restore. Each runs in one transaction (the triggers of
//! `schema` keep both indexes in step inside it) and leaves a history entry.

use anyhow::{bail, Result};
use rusqlite::{Connection, OptionalExtension};
use serde::Serialize;

use super::history::{self, Action};
use super::index::{self, Tally};
use super::{now, Memory, Scope, Store};
use crate::secrets::{self, Secrets};
use crate::text::duplicate::hash;

/// The largest memory, in bytes of UTF-8. A memory is a note, not an archive: 16 MiB holds a
/// long log or a whole design document, and stays well inside what one SQLite value, one hook
/// payload and one read of standard input can carry. Search and drift look at its first
/// `index::HEAD_BYTES`; `read` pages through all of it.
pub const MAX_BODY_BYTES: usize = 16 << 20;

/// A memory about to be stored.
#[derive(Clone, Debug, Default)]
pub struct NewMemory {
    pub body: String,
    pub source: String,
    /// Project key; `None` stores a global memory.
    pub project: Option<String>,
    /// Seconds since the epoch; `None` means now.
    pub created_at: Option<i64>,
    /// Whether every secret `secrets::mask` finds becomes a marker (the default), or the body is
    /// stored as given (`--allow-secrets`).
    pub secrets: Secrets,
}

/// What storing a memory did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Remembered {
    /// The new memory, or the live one it repeats.
    pub id: i64,
    /// The same body was already live in the same scope under `id`; nothing was stored.
    pub duplicate: bool,
    /// The secrets masked in the body before it was stored (or compared, for a duplicate).
    pub masked: Vec<secrets::Found>,
    /// The older memories it replaced, each once, in the order named.
    pub superseded: Vec<i64>,
}

impl Remembered {
    pub fn id(&self) -> i64 {
        self.id
    }

    /// One line on the secrets masked, if any: "masked 2 secrets (github token, password) as
    /// [secret]".
    pub fn masked_line(&self) -> Option<String> {
        if self.masked.is_empty() {
            return None;
        }
        let kinds: Vec<&str> = self.masked.iter().map(|f| f.kind).collect();
        Some(format!(
            "masked {} secret{} ({}) as {}",
            kinds.len(),
            if kinds.len() == 1 { "" } else { "s" },
            kinds.join(", "),
            secrets::MARKER
        ))
    }
}

/// Refuse bodies that would store nothing useful, or more than a memory may hold.
pub(crate) fn check_body(body: &str) -> Result<()> {
    if body.trim().is_empty() {
        bail!("the memory text is empty; give the text as an argument or on standard input");
    }
    if body.len() > MAX_BODY_BYTES {
        bail!(
            "the memory text is {} bytes, more than a memory may hold ({} MiB); store a summary \
             and keep the whole text in a file the memory names",
            body.len(),
            MAX_BODY_BYTES >> 20
        );
    }
    Ok(())
}

/// The live memory in the same project with exactly this body (whose `text::duplicate::hash` is
/// `folded`), other than `except`, if any.
pub(crate) fn live_duplicate(
    conn: &Connection,
    project: Option<&str>,
    body: &str,
    folded: i64,
    except: Option<i64>,
) -> Result<Option<i64>> {
    Ok(conn
        .prepare_cached(
            "SELECT id FROM memories INDEXED BY memories_folded \
             WHERE project IS ?1 AND folded = ?4 AND body = ?2 \
             AND superseded_by IS NULL AND forgotten_at IS NULL AND id IS NOT ?3 LIMIT 1",
        )?
        .query_row(rusqlite::params![project, body, except, folded], |r| {
            r.get(0)
        })
        .optional()?)
}

/// Store `memory` (inside the caller's write transaction) unless the same body is already live in
/// its scope: the one way a new body enters the store, so every write path masks secrets the
/// same way and refuses the same bodies.
pub(crate) fn store_new(
    conn: &Connection,
    tally: &mut Tally,
    memory: &NewMemory,
    action: Action,
) -> Result<Remembered> {
    store_new_unless(conn, tally, memory, action, |_, _| Ok(true))
}

/// `store_new` for a caller that can tell when no live memory could hold the body: the store is
/// searched for a live copy only when `may_repeat(project, folded)` says there might be one.
pub(crate) fn store_new_unless(
    conn: &Connection,
    tally: &mut Tally,
    memory: &NewMemory,
    action: Action,
    may_repeat: impl FnOnce(Option<&str>, i64) -> Result<bool>,
) -> Result<Remembered> {
    let masked = masked_body(memory)?;
    let folded = hash(&masked.text);
    let project = memory.project.as_deref();
    let repeated = if may_repeat(project, folded)? {
        live_duplicate(conn, project, &masked.text, folded, None)?
    } else {
        None
    };
    if let Some(id) = repeated {
        return Ok(Remembered {
            id,
            duplicate: true,
            masked: masked.found,
            superseded: Vec::new(),
        });
    }
    let id = insert(conn, tally, memory, &masked.text, folded, action)?;
    Ok(Remembered {
        id,
        duplicate: false,
        masked: masked.found,
        superseded: Vec::new(),
    })
}

/// Store `memory` as a new hidden row whatever else is live (an import's superseded or forgotten
/// memories), masked like every other body; returns the new id. The row is stored as forgotten
/// and left out of the indexes until the caller sets its real state with `set_state`: were it
/// live in between, a later line of the same import with the same body would be taken for its
/// repeat and not stored, and then hidden with it.
pub(crate) fn store_hidden(conn: &Connection, memory: &NewMemory, action: Action) -> Result<i64> {
    let masked = masked_body(memory)?;
    let at = now();
    let id = insert_row(conn, memory, &masked.text, hash(&masked.text), at, true)?;
    history::record(conn, id, at, action, action.other_id())?;
    Ok(id)
}

/// Store `memory` as a new live row whatever else is live (a piece of a source file, which is a
/// copy of that file's text and stands beside any memory that repeats it), masked like every
/// other body; returns the new id and the body as stored.
pub(crate) fn store_copy(
    conn: &Connection,
    tally: &mut Tally,
    memory: &NewMemory,
    action: Action,
) -> Result<(i64, String)> {
    let masked = masked_body(memory)?;
    let folded = hash(&masked.text);
    let id = insert(conn, tally, memory, &masked.text, folded, action)?;
    Ok((id, masked.text))
}

/// Delete the memory `id` outright, with its history and its index entries (a copy of a source
/// file's piece that the file no longer holds: the file is the record, not the store).
///
/// The memories it replaced are no longer superseded (their replacement is gone; a forgotten
/// one stays forgotten), each with a `restore-supersede` entry naming it: nothing is left hidden
/// by a memory that is not there, and the row can go (its id is their `superseded_by`). Nothing
/// else keeps its id: what sessions were given, dismissed findings, where it was read from, and
/// a teammate's shared memory it stood for (which the next fold of the shared file stores
/// again). Its id is never given to another memory (`memories` counts ids with AUTOINCREMENT).
pub(crate) fn delete(conn: &Connection, tally: &mut Tally, id: i64) -> Result<()> {
    let row = IndexedRow::read(conn, id)?;
    if row.live {
        index::remove(conn, tally, &row.entry())?;
    }
    let replaced: Vec<(i64, Option<i64>)> = conn
        .prepare_cached("SELECT id, forgotten_at FROM memories WHERE superseded_by = ?1")?
        .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let at = now();
    for (old, forgotten_at) in replaced {
        set_state(conn, tally, old, None, forgotten_at, at)?;
        history::record(conn, old, at, Action::RestoreSupersede, Some(id))?;
    }
    super::dismissed::forget_memory(conn, id)?;
    for sql in [
        "DELETE FROM history WHERE memory_id = ?1",
        "DELETE FROM injected WHERE memory_id = ?1",
        "DELETE FROM sourced WHERE memory_id = ?1",
        "UPDATE shared SET memory_id = NULL WHERE memory_id = ?1",
        "DELETE FROM memories WHERE id = ?1",
    ] {
        conn.prepare_cached(sql)?.execute([id])?;
    }
    Ok(())
}

/// The body as it will be stored: checked, and with its secrets masked unless allowed.
fn masked_body(memory: &NewMemory) -> Result<secrets::Masked> {
    check_body(&memory.body)?;
    let masked = if memory.secrets == Secrets::Allow {
        secrets::Masked {
            text: memory.body.clone(),
            found: Vec::new(),
        }
    } else {
        secrets::mask(&memory.body)
    };
    check_body(&masked.text)?;
    Ok(masked)
}

/// Insert one row with `body` (whose `text::duplicate::hash` is `folded`) and its history entry;
/// returns the new id.
fn insert(
    conn: &Connection,
    tally: &mut Tally,
    memory: &NewMemory,
    body: &str,
    folded: i64,
    action: Action,
) -> Result<i64> {
    let at = now();
    let id = insert_row(conn, memory, body, folded, at, false)?;
    let project = memory.project.as_deref();
    let entry = index::Indexed {
        id,
        body,
        source: &memory.source,
        project,
    };
    index::add(conn, tally, &entry)?;
    history::record(conn, id, at, action, action.other_id())?;
    Ok(id)
}

/// Insert the row alone, made at `at` unless the memory gives its time, and forgotten at `at`
/// when `hidden`; returns its id.
fn insert_row(
    conn: &Connection,
    memory: &NewMemory,
    body: &str,
    folded: i64,
    at: i64,
    hidden: bool,
) -> Result<i64> {
    let created = memory.created_at.unwrap_or(at);
    let forgotten_at = hidden.then_some(at);
    conn.prepare_cached(
        "INSERT INTO memories(body, source, project, created_at, updated_at, folded, forgotten_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(rusqlite::params![
        body,
        memory.source,
        memory.project,
        created,
        created,
        folded,
        forgotten_at
    ])?;
    Ok(conn.last_insert_rowid())
}

/// Set a memory's hidden state (`superseded_by`, `forgotten_at`) as of `at`, keeping the indexes
/// in step: a memory leaving the live set leaves them, one coming back returns to them.
pub(crate) fn set_state(
    conn: &Connection,
    tally: &mut Tally,
    id: i64,
    superseded_by: Option<i64>,
    forgotten_at: Option<i64>,
    at: i64,
) -> Result<()> {
    let row = IndexedRow::read(conn, id)?;
    conn.prepare_cached(
        "UPDATE memories SET superseded_by = ?2, forgotten_at = ?3, updated_at = ?4 WHERE id = ?1",
    )?
    .execute(rusqlite::params![id, superseded_by, forgotten_at, at])?;
    let live = superseded_by.is_none() && forgotten_at.is_none();
    let entry = row.entry();
    match (row.live, live) {
        (true, false) => index::remove(conn, tally, &entry),
        (false, true) => index::add(conn, tally, &entry),
        _ => Ok(()),
    }
}

/// What the indexes hold of a stored row (`index::Indexed`), and whether it is live (and so in
/// them): what every change that takes a row out of the indexes or puts it back reads first.
pub(crate) struct IndexedRow {
    id: i64,
    body: String,
    source: String,
    project: Option<String>,
    pub live: bool,
}

impl IndexedRow {
    pub(crate) fn read(conn: &Connection, id: i64) -> Result<IndexedRow> {
        Ok(conn
            .prepare_cached(
                "SELECT body, source, project, superseded_by IS NULL AND forgotten_at IS NULL \
                 FROM memories WHERE id = ?1",
            )?
            .query_row([id], |r| {
                Ok(IndexedRow {
                    id,
                    body: r.get(0)?,
                    source: r.get(1)?,
                    project: r.get(2)?,
                    live: r.get(3)?,
                })
            })?)
    }

    pub(crate) fn entry(&self) -> index::Indexed<'_> {
        index::Indexed {
            id: self.id,
            body: &self.body,
            source: &self.source,
            project: self.project.as_deref(),
        }
    }
}

/// Forget `m` (not forgotten yet, checked by the caller) inside the caller's write transaction.
pub(crate) fn forget_in(conn: &Connection, tally: &mut Tally, m: &Memory) -> Result<()> {
    let at = now();
    set_state(conn, tally, m.id, m.superseded_by, Some(at), at)?;
    history::record(conn, m.id, at, Action::Forget, None)
}

/// Mark the live memory `old` as replaced by `new` (both checked by the caller).
pub(crate) fn mark_superseded(
    conn: &Connection,
    tally: &mut Tally,
    old: i64,
    new: i64,
) -> Result<()> {
    let at = now();
    set_state(conn, tally, old, Some(new), None, at)?;
    history::record(conn, old, at, Action::Supersede, Some(new))
}

/// A memory visible from `scope` that must exist and be live.
fn require_live(conn: &Connection, id: i64, scope: &Scope) -> Result<Memory> {
    let m = super::require_in(conn, id, scope)?;
    if !m.is_live() {
        bail!("memory {id} is already superseded or forgotten; restore it first");
    }
    Ok(m)
}

/// Refuse to let a memory of `new_project` hide `old` where that memory's scope does not reach:
/// a project memory superseding a global one would hide it from every other project.
fn check_reach(old: &Memory, new_id: Option<i64>, new_project: Option<&str>) -> Result<()> {
    if old.project.is_none() && new_project.is_some() {
        let new = new_id.map_or_else(
            || "a project memory".to_owned(),
            |id| format!("memory {id}"),
        );
        bail!(
            "memory {} is global, and {new} belongs to one project: superseding would hide the \
             global memory from every other project too; remember the new text with --global to \
             replace it everywhere, or forget memory {} if it holds nowhere",
            old.id,
            old.id
        );
    }
    Ok(())
}

impl Store {
    /// Store a memory unless the same body is already live in its scope; mark `supersedes` as
    /// replaced by it in the same transaction. Every id in `supersedes` must be live and visible
    /// from `visible`.
    pub fn remember(
        &mut self,
        memory: &NewMemory,
        supersedes: &[i64],
        visible: &Scope,
    ) -> Result<Remembered> {
        check_body(&memory.body)?;
        // An id named twice is replaced once: a second mark would record a second supersede.
        let mut olds: Vec<i64> = Vec::with_capacity(supersedes.len());
        for &old in supersedes {
            if !olds.contains(&old) {
                olds.push(old);
            }
        }
        self.write(|conn| {
            for &old in &olds {
                let old = require_live(conn, old, visible)?;
                check_reach(&old, None, memory.project.as_deref())?;
            }
            let mut tally = Tally::default();
            let mut outcome = store_new(conn, &mut tally, memory, Action::Remember)?;
            for &old in &olds {
                if old == outcome.id {
                    bail!("memory {old} cannot supersede itself");
                }
                mark_superseded(conn, &mut tally, old, outcome.id)?;
            }
            tally.write(conn)?;
            outcome.superseded = olds;
            Ok(outcome)
        })
    }

    /// Mark `old` as replaced by `new`; both must be live and visible.
    pub fn supersede(&mut self, old: i64, new: i64, scope: &Scope) -> Result<()> {
        self.supersede_all(&[old], new, scope)
    }

    /// Mark each of `olds` as replaced by `new`, in one transaction: every one must be live,
    /// visible and other than `new`, or nothing is changed (the error names the first that is
    /// not). An id named twice is replaced once.
    pub fn supersede_all(&mut self, olds: &[i64], new: i64, scope: &Scope) -> Result<()> {
        if let Some(old) = olds.iter().find(|&&old| old == new) {
            bail!("memory {old} cannot supersede itself");
        }
        self.write(|conn| {
            let by = require_live(conn, new, scope)?;
            let mut tally = Tally::default();
            let mut done: Vec<i64> = Vec::with_capacity(olds.len());
            for &old in olds {
                if done.contains(&old) {
                    continue;
                }
                let replaced = require_live(conn, old, scope)?;
                check_reach(&replaced, Some(new), by.project.as_deref())?;
                mark_superseded(conn, &mut tally, old, new)?;
                done.push(old);
            }
            tally.write(conn)
        })
    }

    /// Hide a memory from recall and reading; `restore` brings it back.
    pub fn forget(&mut self, id: i64, scope: &Scope) -> Result<()> {
        self.write(|conn| {
            let m = super::require_in(conn, id, scope)?;
            if m.forgotten_at.is_some() {
                bail!("memory {id} is already forgotten");
            }
            let mut tally = Tally::default();
            forget_in(conn, &mut tally, &m)?;
            tally.write(conn)
        })
    }

    /// Undo the latest hiding of a memory: a forget first, else a supersede. Returns what was
    /// undone.
    pub fn restore(&mut self, id: i64, scope: &Scope) -> Result<&'static str> {
        self.write(|conn| {
            let m = super::require_in(conn, id, scope)?;
            let at = now();
            let mut tally = Tally::default();
            let undone = if m.forgotten_at.is_some() {
                set_state(conn, &mut tally, id, m.superseded_by, None, at)?;
                history::record(conn, id, at, Action::RestoreForget, None)?;
                "forget"
            } else if let Some(by) = m.superseded_by {
                set_state(conn, &mut tally, id, None, None, at)?;
                history::record(conn, id, at, Action::RestoreSupersede, Some(by))?;
                "supersede"
            } else {
                bail!("memory {id} is live: there is nothing to restore");
            };
            tally.write(conn)?;
            // Restoring could make two live copies of one body; refuse rather than repeat it.
            let live_again = m.forgotten_at.is_none() || m.superseded_by.is_none();
            if live_again {
                let folded = hash(&m.body);
                let project = m.project.as_deref();
                if let Some(dup) = live_duplicate(conn, project, &m.body, folded, Some(id))? {
                    bail!("memory {id} would repeat live memory {dup} exactly; forget {dup} first");
                }
            }
            Ok(undone)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(body: &str) -> NewMemory {
        NewMemory {
            body: body.into(),
            project: Some("p".into()),
            ..NewMemory::default()
        }
    }

    #[test]
    fn restore_refuses_to_make_a_second_live_copy() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let scope = Scope::project("p");
        let first = store.remember(&note("same"), &[], &scope).unwrap().id();
        store.forget(first, &scope).unwrap();
        let second = store.remember(&note("same"), &[], &scope).unwrap();
        assert!(!second.duplicate && second.id != first);
        let err = store.restore(first, &scope).unwrap_err().to_string();
        assert!(err.contains("would repeat"), "{err}");
        assert!(store
            .get(first, &scope)
            .unwrap()
            .unwrap()
            .forgotten_at
            .is_some());
    }

    /// Deleting the newest memory (a piece its file dropped) freed its id, and the next memory
    /// took it: whatever still named the old memory named the new one.
    #[test]
    fn a_deleted_memory_s_id_is_never_given_again() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let scope = Scope::project("p");
        store.remember(&note("first"), &[], &scope).unwrap();
        let piece = crate::store::spool::tests::fold_piece(&mut store, "a piece of CLAUDE.md");
        store
            .write(|conn| {
                let mut tally = Tally::default();
                delete(conn, &mut tally, piece)?;
                tally.write(conn)
            })
            .unwrap();
        let next = store.remember(&note("next"), &[], &scope).unwrap().id();
        assert!(
            next > piece,
            "memory {next} took the id of deleted memory {piece}"
        );
    }

    #[test]
    fn restoring_a_forget_of_a_superseded_memory_keeps_it_hidden() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let scope = Scope::project("p");
        let old = store.remember(&note("old"), &[], &scope).unwrap().id();
        store.remember(&note("new"), &[old], &scope).unwrap();
        store.forget(old, &scope).unwrap();
        assert_eq!(store.restore(old, &scope).unwrap(), "forget");
        assert!(!store.get(old, &scope).unwrap().unwrap().is_live());
        assert_eq!(store.restore(old, &scope).unwrap(), "supersede");
        assert!(store.get(old, &scope).unwrap().unwrap().is_live());
    }
}
