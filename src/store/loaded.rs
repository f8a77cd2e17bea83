//! The instruction files a client reported loading into a session (Claude Code's
//! InstructionsLoaded hook): which `CLAUDE.md` files, imports and rules the model has, as the
//! client says, rather than as their places suggest (`sources::Known`).

use std::collections::HashSet;

use anyhow::Result;

use super::Store;

/// The `load_reason` of a file the client loaded as a session started.
pub const AT_START: &str = "session_start";

/// What a client reported loading into one session.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Loaded {
    /// The files, absolute.
    pub paths: HashSet<String>,
    /// Whether the report holds the files loaded as the session started (`AT_START`): the
    /// client then reported that batch, so a file on the path it did not name was not loaded.
    pub at_start: bool,
}

impl Store {
    /// Note that the client loaded the file at `path` (absolute) into `session`, for `reason`
    /// (its `load_reason`).
    pub fn mark_loaded(&mut self, session: &str, path: &str, reason: &str) -> Result<()> {
        self.write(|conn| {
            conn.prepare_cached(
                "INSERT OR IGNORE INTO loaded(session, path, reason, at) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(rusqlite::params![session, path, reason, super::now()])?;
            Ok(())
        })
    }

    /// What the client reported loading into `session`; empty when it reported nothing.
    pub fn loaded_files(&self, session: &str) -> Result<Loaded> {
        let mut stmt = self
            .conn()
            .prepare_cached("SELECT path, reason FROM loaded WHERE session = ?1")?;
        let rows = stmt.query_map([session], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })?;
        let mut loaded = Loaded::default();
        for row in rows {
            let (path, reason) = row?;
            loaded.at_start |= reason == AT_START;
            loaded.paths.insert(path);
        }
        Ok(loaded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_session_keeps_its_own_files_once_and_whether_its_start_was_reported() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        assert_eq!(store.loaded_files("a").unwrap(), Loaded::default());
        store.mark_loaded("a", "/r/CLAUDE.md", AT_START).unwrap();
        store.mark_loaded("a", "/r/CLAUDE.md", AT_START).unwrap();
        store
            .mark_loaded("b", "/r/sub/CLAUDE.md", "nested_traversal")
            .unwrap();
        let a = store.loaded_files("a").unwrap();
        assert_eq!(a.paths, HashSet::from(["/r/CLAUDE.md".to_owned()]));
        assert!(a.at_start);
        let b = store.loaded_files("b").unwrap();
        assert_eq!(b.paths.len(), 1);
        assert!(!b.at_start);
    }
}
