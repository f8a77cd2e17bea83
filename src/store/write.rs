//! Writes: remember, supersede, forget, restore. Each runs in one transaction (the triggers of
//! `schema` keep both indexes in step inside it) and leaves a history entry.

use anyhow::{bail, Context, Result};
use rusqlite::{Connection, OptionalExtension};

use super::history::{self, Action};
use super::index;
use super::{now, Scope, Store};
use crate::drift::duplicate::hash;

/// A memory about to be stored.
#[derive(Clone, Debug, Default)]
pub struct NewMemory {
    pub body: String,
    pub source: String,
    /// Project key; `None` stores a global memory.
    pub project: Option<String>,
    /// Seconds since the epoch; `None` means now.
    pub created_at: Option<i64>,
}

/// What `remember` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Remembered {
    /// Stored under this new id.
    Stored(i64),
    /// The same body is already live in the same scope under this id; nothing was stored.
    Duplicate(i64),
}

impl Remembered {
    pub fn id(self) -> i64 {
        match self {
            Remembered::Stored(id) | Remembered::Duplicate(id) => id,
        }
    }
}

/// Refuse bodies that would store nothing useful.
pub(crate) fn check_body(body: &str) -> Result<()> {
    if body.trim().is_empty() {
        bail!("the memory text is empty; give the text as an argument or on standard input");
    }
    Ok(())
}

/// The live memory in the same project with exactly this body (whose `duplicate::hash` is
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

/// Insert one row (its body's `duplicate::hash` is `folded`) and its history entry; returns the
/// new id.
pub(crate) fn insert(
    conn: &Connection,
    memory: &NewMemory,
    folded: i64,
    action: Action,
) -> Result<i64> {
    let at = now();
    let created = memory.created_at.unwrap_or(at);
    conn.prepare_cached(
        "INSERT INTO memories(body, source, project, created_at, updated_at, folded) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(rusqlite::params![
        memory.body,
        memory.source,
        memory.project,
        created,
        created,
        folded
    ])?;
    let id = conn.last_insert_rowid();
    index::add(conn, id, &memory.body, &memory.source)?;
    history::record(conn, id, at, action, None)?;
    Ok(id)
}

/// Set a memory's hidden state (`superseded_by`, `forgotten_at`) as of `at`, keeping the indexes
/// in step: a memory leaving the live set leaves them, one coming back returns to them.
pub(crate) fn set_state(
    conn: &Connection,
    id: i64,
    superseded_by: Option<i64>,
    forgotten_at: Option<i64>,
    at: i64,
) -> Result<()> {
    let (body, source, was_live): (String, String, bool) = conn.query_row(
        "SELECT body, source, superseded_by IS NULL AND forgotten_at IS NULL \
         FROM memories WHERE id = ?1",
        [id],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    conn.prepare_cached(
        "UPDATE memories SET superseded_by = ?2, forgotten_at = ?3, updated_at = ?4 WHERE id = ?1",
    )?
    .execute(rusqlite::params![id, superseded_by, forgotten_at, at])?;
    let live = superseded_by.is_none() && forgotten_at.is_none();
    match (was_live, live) {
        (true, false) => index::remove(conn, id, &body, &source),
        (false, true) => index::add(conn, id, &body, &source),
        _ => Ok(()),
    }
}

/// Mark the live memory `old` as replaced by `new` (both checked by the caller).
fn mark_superseded(conn: &Connection, old: i64, new: i64) -> Result<()> {
    let at = now();
    set_state(conn, old, Some(new), None, at)?;
    history::record(conn, old, at, Action::Supersede, Some(new))
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
        for &old in supersedes {
            let m = self.require(old, visible)?;
            if !m.is_live() {
                bail!("memory {old} is already superseded or forgotten; restore it first");
            }
        }
        let tx = self.conn_mut().transaction()?;
        let folded = hash(&memory.body);
        let project = memory.project.as_deref();
        let outcome = match live_duplicate(&tx, project, &memory.body, folded, None)? {
            Some(id) => Remembered::Duplicate(id),
            None => Remembered::Stored(insert(&tx, memory, folded, Action::Remember)?),
        };
        for &old in supersedes {
            if old == outcome.id() {
                bail!("memory {old} cannot supersede itself");
            }
            mark_superseded(&tx, old, outcome.id())?;
        }
        tx.commit()?;
        Ok(outcome)
    }

    /// Mark `old` as replaced by `new`; both must be live and visible.
    pub fn supersede(&mut self, old: i64, new: i64, scope: &Scope) -> Result<()> {
        if old == new {
            bail!("memory {old} cannot supersede itself");
        }
        for id in [old, new] {
            if !self.require(id, scope)?.is_live() {
                bail!("memory {id} is already superseded or forgotten; restore it first");
            }
        }
        let tx = self.conn_mut().transaction()?;
        mark_superseded(&tx, old, new)?;
        tx.commit()?;
        Ok(())
    }

    /// Hide a memory from recall and reading; `restore` brings it back.
    pub fn forget(&mut self, id: i64, scope: &Scope) -> Result<()> {
        let m = self.require(id, scope)?;
        if m.forgotten_at.is_some() {
            bail!("memory {id} is already forgotten");
        }
        let tx = self.conn_mut().transaction()?;
        let at = now();
        set_state(&tx, id, m.superseded_by, Some(at), at)?;
        history::record(&tx, id, at, Action::Forget, None)?;
        tx.commit()?;
        Ok(())
    }

    /// Undo the latest hiding of a memory: a forget first, else a supersede. Returns what was
    /// undone.
    pub fn restore(&mut self, id: i64, scope: &Scope) -> Result<&'static str> {
        let m = self.require(id, scope)?;
        let tx = self.conn_mut().transaction()?;
        let at = now();
        let undone = if m.forgotten_at.is_some() {
            set_state(&tx, id, m.superseded_by, None, at)?;
            history::record(&tx, id, at, Action::RestoreForget, None)?;
            "forget"
        } else if let Some(by) = m.superseded_by {
            set_state(&tx, id, None, None, at)?;
            history::record(&tx, id, at, Action::RestoreSupersede, Some(by))?;
            "supersede"
        } else {
            bail!("memory {id} is live: there is nothing to restore");
        };
        // Restoring could make two live copies of one body; refuse rather than repeat it.
        let live_again = m.forgotten_at.is_none() || m.superseded_by.is_none();
        if live_again {
            let folded = hash(&m.body);
            if let Some(dup) = live_duplicate(&tx, m.project.as_deref(), &m.body, folded, Some(id))?
            {
                bail!("memory {id} would repeat live memory {dup} exactly; forget {dup} first");
            }
        }
        tx.commit()
            .with_context(|| format!("could not restore memory {id}"))?;
        Ok(undone)
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
        assert!(matches!(second, Remembered::Stored(id) if id != first));
        let err = store.restore(first, &scope).unwrap_err().to_string();
        assert!(err.contains("would repeat"), "{err}");
        assert!(store
            .get(first, &scope)
            .unwrap()
            .unwrap()
            .forgotten_at
            .is_some());
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
