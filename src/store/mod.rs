//! The SQLite store: one file, `synapse.db`, in the data folder.
//!
//! This module opens it (WAL, a busy timeout, private permissions, migrations) and reads rows;
//! `write` changes them, `history` records every change, `scope` decides what a caller sees.

pub mod history;
pub mod import;
pub mod index;
pub mod injected;
pub mod schema;
pub mod scope;
pub mod write;

use std::fs::{DirBuilder, OpenOptions};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use rusqlite::config::DbConfig;
use rusqlite::{Connection, OptionalExtension, Row};
use serde::Serialize;

pub use scope::Scope;

/// How long the write-ahead log may grow between a hook's checkpoints: about 32 pages (a hook
/// writes two or three).
const HOOK_LOG_BYTES: u64 = 128 << 10;

/// The database file's name inside the data folder.
pub const DB_FILE: &str = "synapse.db";

/// One stored memory, in whatever state it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Memory {
    pub id: i64,
    pub project: Option<String>,
    pub source: String,
    /// RFC 3339, UTC.
    pub created_at: String,
    pub updated_at: String,
    pub superseded_by: Option<i64>,
    pub forgotten_at: Option<String>,
    pub body: String,
    /// Seconds since the Unix epoch, for ordering and ages.
    #[serde(skip)]
    pub created_unix: i64,
}

impl Memory {
    /// Neither superseded nor forgotten: recallable and readable.
    pub fn is_live(&self) -> bool {
        self.superseded_by.is_none() && self.forgotten_at.is_none()
    }
}

/// The columns `Memory::from_row` reads, in order (prefix `m.` as the alias of `memories`).
pub(crate) const MEMORY_COLUMNS: &str = "m.id, m.project, m.source, \
    strftime('%Y-%m-%dT%H:%M:%SZ', m.created_at, 'unixepoch'), \
    strftime('%Y-%m-%dT%H:%M:%SZ', m.updated_at, 'unixepoch'), \
    m.superseded_by, strftime('%Y-%m-%dT%H:%M:%SZ', m.forgotten_at, 'unixepoch'), \
    m.body, m.created_at";

impl Memory {
    pub(crate) fn from_row(row: &Row) -> rusqlite::Result<Memory> {
        Ok(Memory {
            id: row.get(0)?,
            project: row.get(1)?,
            source: row.get(2)?,
            created_at: row.get(3)?,
            updated_at: row.get(4)?,
            superseded_by: row.get(5)?,
            forgotten_at: row.get(6)?,
            body: row.get(7)?,
            created_unix: row.get(8)?,
        })
    }
}

/// SQL that is true when the row aliased `m` is visible from the scope bound at `?1`.
pub(crate) const VISIBLE: &str = "(m.project IS NULL OR m.project = ?1)";
/// SQL that is true when the row aliased `m` is live.
pub(crate) const LIVE: &str = "(m.superseded_by IS NULL AND m.forgotten_at IS NULL)";

/// An open store.
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Open the store in the configured data folder.
    pub fn open_default() -> Result<Store> {
        Store::open(&crate::config::data_dir()?)
    }

    /// Open (creating if needed) the store in `dir`: the folder is made private (0700), the file
    /// 0600, and the schema brought up to date.
    pub fn open(dir: &Path) -> Result<Store> {
        if !dir.exists() {
            DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .with_context(|| format!("could not create the data folder {}", dir.display()))?;
        }
        let path = dir.join(DB_FILE);
        if !path.exists() {
            OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
                .with_context(|| format!("could not create {}", path.display()))?;
        } else {
            let mut perms = std::fs::metadata(&path)
                .with_context(|| format!("could not read {}", path.display()))?
                .permissions();
            if perms.mode() & 0o077 != 0 {
                perms.set_mode(0o600);
                std::fs::set_permissions(&path, perms)
                    .with_context(|| format!("could not make {} private", path.display()))?;
            }
        }
        let mut conn = Connection::open(&path)
            .with_context(|| format!("could not open the store {}", path.display()))?;
        conn.busy_timeout(Duration::from_secs(5))?;
        conn.pragma_update_and_check(None, "journal_mode", "wal", |_| Ok(()))
            .with_context(|| {
                format!("could not open {} (is it a synapse store?)", path.display())
            })?;
        conn.pragma_update(None, "synchronous", "normal")?;
        // A 64 MiB page cache (an upper bound, not an allocation): bulk imports merge FTS5
        // segments far larger than the default 2 MiB.
        conn.pragma_update(None, "cache_size", -65536)?;
        conn.pragma_update(None, "foreign_keys", "on")?;
        conn.pragma_update(None, "mmap_size", 1i64 << 30)?;
        // Plan each statement once, whatever its bound values. Otherwise SQLite re-plans a
        // statement whose plan looked at a bound value (FTS5's own index lookups, for one) on
        // its first run with a new value: in a hook, which runs most statements once or twice,
        // that was about a millisecond of parsing and planning again. The store keeps no
        // statistics that bound values could refine a plan with.
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
        schema::migrate(&mut conn, &path)?;
        Ok(Store { conn, path })
    }

    /// Set the store up for a hook, a short process that must never hold a session up: wait
    /// at most `busy_ms` for a lock, and do not checkpoint on close (copying the write-ahead log
    /// into the database and syncing it would cost every hook about a millisecond). The hook
    /// calls `trim_log` when it is done instead.
    pub fn for_hook(&self, busy_ms: u64) -> Result<()> {
        self.conn.busy_timeout(Duration::from_millis(busy_ms))?;
        self.conn
            .set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
        Ok(())
    }

    /// Checkpoint the write-ahead log into the database and empty it once it is longer than
    /// `HOOK_LOG_BYTES`. A process that opens the store first reads the whole log back (SQLite
    /// rebuilds its index of the log then), and with one short process after another the log
    /// would never restart by itself: left alone, it would grow, and every hook with it.
    pub fn trim_log(&self) -> Result<()> {
        let log = PathBuf::from(format!("{}-wal", self.path.display()));
        let bytes = std::fs::metadata(&log).map_or(0, |m| m.len());
        if bytes > HOOK_LOG_BYTES {
            self.conn
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
                .with_context(|| format!("could not checkpoint {}", log.display()))?;
        }
        Ok(())
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn conn(&self) -> &Connection {
        &self.conn
    }

    pub(crate) fn conn_mut(&mut self) -> &mut Connection {
        &mut self.conn
    }

    /// A memory visible from `scope`, in any state; `None` if missing or out of scope.
    pub fn get(&self, id: i64, scope: &Scope) -> Result<Option<Memory>> {
        let sql = format!("SELECT {MEMORY_COLUMNS} FROM memories m WHERE {VISIBLE} AND m.id = ?2");
        Ok(self
            .conn
            .query_row(&sql, rusqlite::params![scope.key(), id], Memory::from_row)
            .optional()?)
    }

    /// Like `get`, but a missing id is an error that names it.
    pub fn require(&self, id: i64, scope: &Scope) -> Result<Memory> {
        self.get(id, scope)?
            .with_context(|| format!("no memory {id} in this scope (see `synapse list --all`)"))
    }

    /// Memories visible from `scope`, newest first; only live ones unless `all`.
    pub fn list(&self, scope: &Scope, all: bool) -> Result<Vec<Memory>> {
        let live = if all { "1" } else { LIVE };
        let sql = format!(
            "SELECT {MEMORY_COLUMNS} FROM memories m WHERE {VISIBLE} AND {live} \
             ORDER BY m.created_at DESC, m.id DESC"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map([scope.key()], Memory::from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The newest live memories visible from `scope`.
    pub fn recent(&self, scope: &Scope, limit: usize) -> Result<Vec<Memory>> {
        let sql = format!(
            "SELECT {MEMORY_COLUMNS} FROM memories m INDEXED BY memories_recent \
             WHERE {VISIBLE} AND {LIVE} ORDER BY m.created_at DESC, m.id DESC LIMIT ?2"
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt.query_map(
            rusqlite::params![scope.key(), limit as i64],
            Memory::from_row,
        )?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Live memories by id, in the order asked, skipping any not visible or not live. One
    /// statement for the whole list (recall asks for a hundred or more candidates at once); the
    /// `CROSS JOIN` keeps SQLite walking the list and looking each id up, in order.
    pub fn live_by_ids(&self, ids: &[i64], scope: &Scope) -> Result<Vec<Memory>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT {MEMORY_COLUMNS} FROM json_each(?2) AS asked CROSS JOIN memories m \
             ON m.id = asked.value WHERE {VISIBLE} AND {LIVE} ORDER BY asked.key"
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt.query_map(
            rusqlite::params![scope.key(), serde_json::to_string(ids)?],
            Memory::from_row,
        )?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Run `read` in one read transaction. Each statement outside a transaction is one of its
    /// own, which in a write-ahead-logged store takes and drops locks and checks the log again;
    /// a recall runs twenty or more statements. Inside a caller's transaction, `read` just runs.
    pub fn read<T>(&self, read: impl FnOnce() -> Result<T>) -> Result<T> {
        if !self.conn.is_autocommit() {
            return read();
        }
        let tx = self.conn.unchecked_transaction()?;
        let out = read()?;
        // Nothing was written: ending the transaction only releases the snapshot.
        tx.rollback()?;
        Ok(out)
    }

    /// Roughly how many memories the store holds (the highest id), for weighing terms; O(1).
    pub fn size_hint(&self) -> Result<i64> {
        Ok(self
            .conn
            .query_row("SELECT coalesce(max(id), 0) FROM memories", [], |r| {
                r.get(0)
            })?)
    }

    /// How many live memories `scope` sees.
    pub fn count_live(&self, scope: &Scope) -> Result<i64> {
        let sql = format!("SELECT count(*) FROM memories m WHERE {VISIBLE} AND {LIVE}");
        Ok(self.conn.query_row(&sql, [scope.key()], |r| r.get(0))?)
    }
}

/// Today's date in UTC, `YYYY-MM-DD` (for sources and log lines).
pub fn today() -> String {
    // Days to a civil date (Howard Hinnant's algorithm), to avoid a date crate in the hooks.
    let z = now().div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// Seconds since the Unix epoch, now.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}
