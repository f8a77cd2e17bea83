//! The history table: every change to a memory, so `restore` can undo and `history` can show it.

use anyhow::Result;
use rusqlite::Connection;
use serde::Serialize;

use super::{Scope, Store};

/// What happened to a memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Stored by `remember`.
    Remember,
    /// Stored by `import`, as part of batch `batch` (its `other_id`), which one command undoes.
    Import { batch: i64 },
    /// Replaced by `other_id`.
    Supersede,
    /// Hidden by `forget`.
    Forget,
    /// A supersede undone (`other_id` was the replacement).
    RestoreSupersede,
    /// A forget undone.
    RestoreForget,
    /// Read from a source file of Claude Code's own memory (`store::sources`).
    Source,
    /// A drift finding on it (with `other_id`, for a pair) judged fine (`store::dismissed`).
    Dismiss,
    /// Such a dismissal taken back.
    Undismiss,
}

impl Action {
    /// What a storing action records as `other_id` by itself: an import's batch.
    pub(crate) fn other_id(self) -> Option<i64> {
        match self {
            Action::Import { batch } => Some(batch),
            _ => None,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Action::Remember => "remember",
            Action::Import { .. } => IMPORT,
            Action::Supersede => "supersede",
            Action::Forget => "forget",
            Action::RestoreSupersede => "restore-supersede",
            Action::RestoreForget => "restore-forget",
            Action::Source => "source",
            Action::Dismiss => "dismiss",
            Action::Undismiss => "undismiss",
        }
    }
}

/// The `action` of an import's rows, whose `other_id` is the import's batch.
pub(crate) const IMPORT: &str = "import";

/// The batch the next import makes: one past the largest recorded. Read inside the import's write
/// transaction, so two imports never share a number; imports from before batches were recorded
/// (no `other_id`) belong to none.
pub(crate) fn next_batch(conn: &Connection) -> Result<i64> {
    Ok(conn
        .prepare_cached("SELECT coalesce(max(other_id), 0) + 1 FROM history WHERE action = ?1")?
        .query_row([IMPORT], |r| r.get(0))?)
}

/// One recorded change.
#[derive(Clone, Debug, Serialize)]
pub struct Entry {
    pub at: super::Stamp,
    pub action: String,
    /// The other memory of a supersede, the batch of an import.
    pub other_id: Option<i64>,
}

/// Record a change (inside the caller's transaction).
pub(crate) fn record(
    conn: &Connection,
    memory_id: i64,
    at: i64,
    action: Action,
    other_id: Option<i64>,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO history(memory_id, at, action, other_id) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(rusqlite::params![memory_id, at, action.as_str(), other_id])?;
    Ok(())
}

impl Store {
    /// Every recorded change to a memory visible from `scope`, oldest first.
    pub fn history(&self, id: i64, scope: &Scope) -> Result<Vec<Entry>> {
        self.require(id, scope)?;
        let mut stmt = self.conn().prepare(
            "SELECT at, action, other_id \
             FROM history WHERE memory_id = ?1 ORDER BY id",
        )?;
        let rows = stmt.query_map([id], |r| {
            Ok(Entry {
                at: super::Stamp::read(r, 0)?,
                action: r.get(1)?,
                other_id: r.get(2)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}
