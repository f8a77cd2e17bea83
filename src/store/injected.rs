//! Which memories the hooks have injected into which Claude Code session.

use foldhash::HashSet;

use anyhow::{Context, Result};
use rusqlite::{Connection, OptionalExtension};

use super::{Scope, Store, LIVE, VISIBLE};

/// A memory given to a session that a live memory has replaced since.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replaced {
    pub old: i64,
    pub new: i64,
    /// The new memory's source label, which says who wrote it.
    pub source: String,
}

impl Store {
    /// The memories already injected into `session`.
    pub fn injected(&self, session: &str) -> Result<HashSet<i64>> {
        let mut stmt = self
            .conn()
            .prepare_cached("SELECT memory_id FROM injected WHERE session = ?1")?;
        let ids = stmt.query_map([session], |r| r.get(0))?;
        Ok(ids.collect::<rusqlite::Result<_>>()?)
    }

    /// The memories given to `session` that a live memory visible from `scope` has replaced
    /// since, where the session was not given that newer memory: what the session holds is out
    /// of date, and nothing has told it yet (telling it marks the newer one given). In order of
    /// the older id.
    pub fn replaced_since_given(&self, session: &str, scope: &Scope) -> Result<Vec<Replaced>> {
        let sql = format!(
            "SELECT o.id, m.id, m.source FROM injected i \
             JOIN memories o ON o.id = i.memory_id \
             JOIN memories m ON m.id = o.superseded_by \
             WHERE i.session = ?2 AND o.forgotten_at IS NULL AND {VISIBLE} AND {LIVE} \
             AND NOT EXISTS (SELECT 1 FROM injected g WHERE g.session = ?2 AND g.memory_id = m.id) \
             ORDER BY o.id"
        );
        let mut stmt = self.conn().prepare_cached(&sql)?;
        let rows = stmt.query_map(rusqlite::params![scope.key(), session], |r| {
            Ok(Replaced {
                old: r.get(0)?,
                new: r.get(1)?,
                source: r.get(2)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Of `ids`, those shown to `session`: given to it (what a hook or a slash command put in its
    /// context by text or by id, `injected`), or written by its own replies (a source label
    /// starting with `own`, as the Stop hook labels a session's lessons). What a session may
    /// replace with `remember (replaces #N): ...`.
    pub fn shown_to(&self, session: &str, own: &str, ids: &[i64]) -> Result<HashSet<i64>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM injected WHERE session = ?1 AND memory_id = ?2) \
             OR EXISTS (SELECT 1 FROM memories WHERE id = ?2 \
                        AND substr(source, 1, length(?3)) = ?3)",
        )?;
        let mut shown = HashSet::default();
        for &id in ids {
            if stmt.query_row(rusqlite::params![session, id, own], |r| r.get(0))? {
                shown.insert(id);
            }
        }
        Ok(shown)
    }

    /// Note that `ids` were injected into `session`. An id no longer stored (a fold deleted its
    /// memory after the hook read it) is left out, and said in one line of the log: the session
    /// was given a memory that is gone, and nothing is left to note.
    pub fn mark_injected(&mut self, session: &str, ids: &[i64]) -> Result<()> {
        let gone = self.write(|conn| mark(conn, session, ids))?;
        if gone.is_empty() || !self.on_disk() {
            return Ok(());
        }
        let listed: Vec<String> = gone.iter().map(i64::to_string).collect();
        let line = format!(
            "{} given to session {}: {} no longer stored (deleted since it was read), left out",
            super::today(),
            session.chars().take(8).collect::<String>(),
            listed.join(", ")
        );
        crate::files::log(self.dir(), &line)
            .with_context(|| format!("could not log to {}", self.dir().display()))
    }

    /// Forget what `session` was given: its context was compacted or cleared.
    pub fn clear_injected(&mut self, session: &str) -> Result<()> {
        self.write(|conn| clear(conn, session))
    }
}

/// `mark_injected` inside the caller's write transaction; the ids left out because no memory
/// has them (any more).
pub(crate) fn mark(conn: &Connection, session: &str, ids: &[i64]) -> Result<Vec<i64>> {
    let mut insert = conn.prepare_cached(
        "INSERT OR IGNORE INTO injected(session, memory_id, at) \
         SELECT ?1, id, ?3 FROM memories WHERE id = ?2",
    )?;
    let mut stored = conn.prepare_cached("SELECT 1 FROM memories WHERE id = ?1")?;
    let mut gone = Vec::new();
    for &id in ids {
        let added = insert.execute(rusqlite::params![session, id, super::now()])?;
        if added == 0 && stored.query_row([id], |_| Ok(())).optional()?.is_none() {
            gone.push(id);
        }
    }
    Ok(gone)
}

/// `clear_injected` inside the caller's write transaction.
pub(crate) fn clear(conn: &Connection, session: &str) -> Result<()> {
    conn.prepare_cached("DELETE FROM injected WHERE session = ?1")?
        .execute([session])?;
    Ok(())
}
