//! The instruction files a client reported loading into a session (Claude Code's
//! InstructionsLoaded hook): which `CLAUDE.md` files, imports and rules the model has, as the
//! client says, rather than as their places suggest (`sources::Known`).

use std::collections::HashSet;

use anyhow::Result;

use super::Store;

impl Store {
    /// Note that the client loaded the file at `path` (absolute) into `session`.
    pub fn mark_loaded(&mut self, session: &str, path: &str) -> Result<()> {
        self.write(|conn| {
            conn.prepare_cached(
                "INSERT OR IGNORE INTO loaded(session, path, at) VALUES (?1, ?2, ?3)",
            )?
            .execute(rusqlite::params![session, path, super::now()])?;
            Ok(())
        })
    }

    /// The files the client reported loading into `session`; empty when it reported none.
    pub fn loaded_files(&self, session: &str) -> Result<HashSet<String>> {
        let mut stmt = self
            .conn()
            .prepare_cached("SELECT path FROM loaded WHERE session = ?1")?;
        let paths = stmt.query_map([session], |r| r.get(0))?;
        Ok(paths.collect::<rusqlite::Result<_>>()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_session_keeps_its_own_files_once() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        assert!(store.loaded_files("a").unwrap().is_empty());
        store.mark_loaded("a", "/r/CLAUDE.md").unwrap();
        store.mark_loaded("a", "/r/CLAUDE.md").unwrap();
        store.mark_loaded("b", "/r/sub/CLAUDE.md").unwrap();
        assert_eq!(
            store.loaded_files("a").unwrap(),
            HashSet::from(["/r/CLAUDE.md".to_owned()])
        );
        assert_eq!(store.loaded_files("b").unwrap().len(), 1);
    }
}
