//! Looking at a store without changing it: what a status line, run after every message, may do.
//!
//! `Store::open` creates the data folder and the file when they are missing, narrows their
//! permissions and migrates an older schema. A status line must do none of that: it opens an
//! existing file read-only, and a store at another schema version is left for the next hook or
//! command to bring up to date (the line shows nothing until then).

use std::path::Path;

use anyhow::{bail, Context, Result};
use rusqlite::{Connection, OpenFlags};

use super::{schema, Scope, Store, DB_FILE, LIVE};

/// How long a look waits for a lock: only a process creating or migrating the store holds one
/// a reader must wait for, and a status line must not hang.
const PEEK_BUSY: std::time::Duration = std::time::Duration::from_millis(50);

/// How far `count_live_by_place` counts each kind: a count at the cap means "this many or more".
pub const COUNT_CAP: i64 = 999;

/// The live memories a scope sees, by where they belong (each at most `COUNT_CAP`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Memories of the scope's project.
    pub project: i64,
    /// Global memories.
    pub global: i64,
}

impl Store {
    /// Open the store in `dir` read-only, if there is one: `None` when `synapse.db` does not
    /// exist (nothing is created). A file that is not a Synapse store at this build's schema is
    /// an error.
    pub fn peek(dir: &Path) -> Result<Option<Store>> {
        let path = dir.join(DB_FILE);
        if !path.is_file() {
            return Ok(None);
        }
        let conn = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .with_context(|| format!("could not open {} to read", path.display()))?;
        conn.busy_timeout(PEEK_BUSY)?;
        // Read through a memory map, as every other connection does: fewer copies of pages.
        conn.pragma_update(None, "mmap_size", 1i64 << 30)?;
        // The check every opening makes (another application's file refused, with why); a
        // store at an older schema is left for the next hook or command to migrate.
        if !schema::refuse_foreign(&conn, &path)? {
            bail!(
                "{} is not at this build's schema version ({}): a store to migrate is left to \
                 the next hook or command",
                path.display(),
                schema::LATEST
            );
        }
        Ok(Some(Store {
            conn,
            path,
            dir: dir.to_owned(),
            settings: std::cell::OnceCell::new(),
            on_disk: true,
        }))
    }

    /// How many live memories `scope` sees, of its project and global, each counted up to
    /// `COUNT_CAP` and no further: two index ranges that stop there, so the work does not grow
    /// with the store (an exact count reads every row's state).
    pub fn count_live_by_place(&self, scope: &Scope) -> Result<Counts> {
        let count = |place: &str| -> Result<i64> {
            let sql = format!(
                "SELECT count(*) FROM (SELECT 1 FROM memories m WHERE {place} AND {LIVE} LIMIT ?2)"
            );
            Ok(self
                .conn
                .query_row(&sql, rusqlite::params![scope.key(), COUNT_CAP], |r| {
                    r.get(0)
                })?)
        };
        let project = match scope.key() {
            Some(_) => count("m.project = ?1")?,
            None => 0,
        };
        let global = count("m.project IS NULL")?;
        Ok(Counts { project, global })
    }
}
