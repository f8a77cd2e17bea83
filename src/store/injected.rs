//! Which memories the hooks have injected into which Claude Code session.

use foldhash::HashSet;

use anyhow::Result;
use rusqlite::Connection;

use super::Store;

impl Store {
    /// The memories already injected into `session`.
    pub fn injected(&self, session: &str) -> Result<HashSet<i64>> {
        let mut stmt = self
            .conn()
            .prepare_cached("SELECT memory_id FROM injected WHERE session = ?1")?;
        let ids = stmt.query_map([session], |r| r.get(0))?;
        Ok(ids.collect::<rusqlite::Result<_>>()?)
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
