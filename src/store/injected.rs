//! Which memories the hooks have injected into which Claude Code session.

use std::collections::HashSet;

use anyhow::Result;

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
        let tx = self.conn_mut().transaction()?;
        {
            let mut stmt = tx.prepare_cached(
                "INSERT OR IGNORE INTO injected(session, memory_id, at) VALUES (?1, ?2, ?3)",
            )?;
            for id in ids {
                stmt.execute(rusqlite::params![session, id, super::now()])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Forget what `session` was given: its context was compacted or cleared.
    pub fn clear_injected(&self, session: &str) -> Result<()> {
        self.conn()
            .execute("DELETE FROM injected WHERE session = ?1", [session])?;
        Ok(())
    }
}
