//! Which memories the hooks have injected into which Claude Code session.

use foldhash::HashSet;

use anyhow::Result;
use rusqlite::Connection;

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

    /// Note that `ids` were injected into `session`.
    pub fn mark_injected(&mut self, session: &str, ids: &[i64]) -> Result<()> {
        self.write(|conn| mark(conn, session, ids))
    }

    /// Forget what `session` was given: its context was compacted or cleared.
    pub fn clear_injected(&mut self, session: &str) -> Result<()> {
        self.write(|conn| clear(conn, session))
    }
}

/// `mark_injected` inside the caller's write transaction.
pub(crate) fn mark(conn: &Connection, session: &str, ids: &[i64]) -> Result<()> {
    let mut stmt = conn.prepare_cached(
        "INSERT OR IGNORE INTO injected(session, memory_id, at) VALUES (?1, ?2, ?3)",
    )?;
    for id in ids {
        stmt.execute(rusqlite::params![session, id, super::now()])?;
    }
    Ok(())
}

/// `clear_injected` inside the caller's write transaction.
pub(crate) fn clear(conn: &Connection, session: &str) -> Result<()> {
    conn.prepare_cached("DELETE FROM injected WHERE session = ?1")?
        .execute([session])?;
    Ok(())
}
