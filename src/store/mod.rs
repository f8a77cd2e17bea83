//! The SQLite store: one file, `synapse.db`, in the data folder.
//!
//! This module opens it (WAL, a busy timeout, private permissions, migrations) and reads rows;
//! `write` changes them, `history` records every change, `dismissed` keeps the drift findings
//! a person judged fine, `scope` decides what a caller sees, `spool` keeps what a hook could not
//! write in time.
//!
//! Several processes share one store (every Claude Code session runs its own hooks, and the
//! command line may run beside them). Readers never wait: the write-ahead log gives each a
//! snapshot. Writers take the write lock when their transaction begins (`Store::write`), so a
//! busy store makes them wait their turn, up to the busy timeout, instead of failing half-way
//! through a read-then-write.

pub mod browse;
pub mod dismissed;
pub mod history;
pub mod import;
pub mod index;
pub mod injected;
pub mod listing;
pub mod loaded;
mod memory;
pub mod page;
pub mod peek;
mod rank;
pub mod schema;
pub mod scope;
pub mod search;
pub mod shared;
pub mod sources;
pub mod spool;
pub mod write;

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use rusqlite::config::DbConfig;
use rusqlite::{Connection, ErrorCode, OptionalExtension, TransactionBehavior};

use crate::config::Settings;

use memory::{civil, heads};
pub use memory::{Memory, Stamp};
pub(crate) use memory::{HEAD_COLUMNS, MEMORY_COLUMNS};
pub use scope::Scope;

/// How long the write-ahead log may grow between a hook's checkpoints: about 32 pages (a hook
/// writes two or three).
const HOOK_LOG_BYTES: u64 = 128 << 10;
/// How long a command waits for another process's write to finish. An import of 100,000
/// memories holds the lock for about ten seconds; anything longer is worth telling the user.
const BUSY: Duration = Duration::from_secs(30);
/// How long a hook waits for a lock: it must never hold a session up. A hook that cannot write
/// in time leaves its write in the spool.
pub const HOOK_BUSY: Duration = Duration::from_millis(250);
/// How long a hook waits while opening the store for another process creating or migrating it.
const HOOK_OPEN_BUSY: Duration = Duration::from_secs(2);

/// The database file's name inside the data folder.
pub const DB_FILE: &str = "synapse.db";

/// SQL that is true when the row aliased `m` is visible from the scope bound at `?1`.
const VISIBLE: &str = "(m.project IS NULL OR m.project = ?1)";
/// SQL that is true when the row aliased `m` is live.
const LIVE: &str = "(m.superseded_by IS NULL AND m.forgotten_at IS NULL)";

/// An open store.
pub struct Store {
    conn: Connection,
    path: PathBuf,
    dir: PathBuf,
    /// `config.toml` of the data folder, read on first use (or handed over by a hook that
    /// read it already), so a process reads it once.
    settings: std::cell::OnceCell<Settings>,
    /// False for the empty stand-in `open_to_read` gives when the data folder holds no store.
    on_disk: bool,
}

impl Store {
    /// Open the store in the configured data folder.
    pub fn open_default() -> Result<Store> {
        Store::open(&crate::config::data_dir()?)
    }

    /// Open (creating if needed) the store in `dir`: the folder is made private (0700), the file
    /// 0600, and the schema brought up to date. Writers wait up to `BUSY` for one another.
    pub fn open(dir: &Path) -> Result<Store> {
        let store = Store::open_waiting(dir, BUSY)?;
        // A 64 MiB page cache (an upper bound, not an allocation): bulk imports merge FTS5
        // segments far larger than the default 2 MiB. A hook reads a few pages and keeps the
        // default (one statement fewer to prepare).
        store.conn.pragma_update(None, "cache_size", -65536)?;
        Ok(store)
    }

    /// Open the store in `dir` for a verb that only reads: an existing store as `open` does, but
    /// when `dir` holds no store yet, nothing is created (no folder, no file). An empty store in
    /// memory stands in for it instead, so the verb finds no memories; its writes (a fold of
    /// Claude Code's files, say) stay in memory and leave the disk alone.
    pub fn open_to_read(dir: &Path) -> Result<Store> {
        let path = dir.join(DB_FILE);
        if std::fs::symlink_metadata(&path).is_ok() {
            return Store::open(dir);
        }
        let mut conn = Connection::open_in_memory()?;
        conn.pragma_update(None, "foreign_keys", "on")?;
        rank::register(&conn)?;
        schema::migrate(&mut conn, &path, BUSY)?;
        Ok(Store {
            conn,
            path,
            dir: dir.to_owned(),
            settings: std::cell::OnceCell::new(),
            on_disk: false,
        })
    }

    /// The store in the configured data folder, for a verb that only reads (`open_to_read`).
    pub fn open_default_to_read() -> Result<Store> {
        Store::open_to_read(&crate::config::data_dir()?)
    }

    /// Whether this store is a file in the data folder; false for the stand-in `open_to_read`
    /// gives when there is no store yet.
    pub fn on_disk(&self) -> bool {
        self.on_disk
    }

    /// Open the store for a hook, a short process that must never hold a session up: it waits at
    /// most `HOOK_BUSY` for a lock, and does not checkpoint on close (copying the write-ahead log
    /// into the database and syncing it would cost every hook about a millisecond); the hook
    /// calls `trim_log` when it is done instead.
    pub fn open_for_hook(dir: &Path) -> Result<Store> {
        // Opening waits longer: it only ever waits for another process creating or migrating
        // the store (the write-ahead log lets it read past any other writer), which happens
        // once, and a hook that gives up then has nothing to show.
        let store = Store::open_waiting(dir, HOOK_OPEN_BUSY)?;
        store.conn.busy_timeout(HOOK_BUSY)?;
        store
            .conn
            .set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
        Ok(store)
    }

    fn open_waiting(dir: &Path, busy: Duration) -> Result<Store> {
        crate::files::private_dir(dir)?;
        let path = dir.join(DB_FILE);
        crate::files::private_file(&path)?;
        let mut conn = Connection::open(&path).map_err(|e| explain(e, &path))?;
        conn.busy_timeout(busy)?;
        // Before anything is written (turning on the log writes the header): another
        // application's file is refused as it is.
        let current = schema::refuse_foreign(&conn, &path)
            .map_err(|e| explain_any(e, &path))
            .context("could not check its schema version")?;
        // Turning the log on can fail at once, not waiting, while another process creates the
        // same new store.
        while_busy(busy, is_busy_error, || {
            conn.pragma_update_and_check(None, "journal_mode", "wal", |_| Ok(()))
        })
        .map_err(|e| explain(e, &path))
        .context("could not turn on its write-ahead log")?;
        conn.pragma_update(None, "synchronous", "normal")?;
        conn.pragma_update(None, "foreign_keys", "on")?;
        conn.pragma_update(None, "mmap_size", 1i64 << 30)?;
        // Plan each statement once, whatever its bound values. Otherwise SQLite re-plans a
        // statement whose plan looked at a bound value (FTS5's own index lookups, for one) on
        // its first run with a new value: in a hook, which runs most statements once or twice,
        // that was about a millisecond of parsing and planning again. The store keeps no
        // statistics that bound values could refine a plan with.
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
        rank::register(&conn)?;
        // A store already at this schema was just checked whole; every hook starts here.
        if !current {
            schema::migrate(&mut conn, &path, busy)
                .map_err(|e| explain_any(e, &path))
                .context("could not check its schema version")?;
        }
        Ok(Store {
            conn,
            path,
            dir: dir.to_owned(),
            settings: std::cell::OnceCell::new(),
            on_disk: true,
        })
    }

    /// The settings of the data folder, read once: for the front ends (a command, the MCP
    /// server), which pass what each module below needs as arguments.
    pub fn settings(&self) -> Result<&Settings> {
        if let Some(settings) = self.settings.get() {
            return Ok(settings);
        }
        let settings = Settings::load(&self.dir)?;
        Ok(self.settings.get_or_init(|| settings))
    }

    /// Run `change` in one write transaction, committed when it returns `Ok` and rolled back
    /// otherwise. The transaction takes the write lock as it begins (`BEGIN IMMEDIATE`): a
    /// deferred one that reads first and then writes cannot wait for a writer ahead of it (its
    /// snapshot would be stale) and fails at once, however long the busy timeout. First, what the
    /// spool holds is written, so that it lands before anything newer.
    ///
    /// A spool that cannot be drained for any reason but a busy store (its file unreadable, its
    /// file lock held by a stuck process) does not stop this write: the failure is logged and
    /// the write goes on, and the spool waits for a later drain (`synapse doctor` says why it
    /// does not drain). A busy store would fail this write the same way, so that is returned.
    pub fn write<T>(&mut self, change: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        // The stand-in of a missing store leaves the data folder's files alone.
        if self.on_disk {
            match spool::drain(self) {
                Err(e) if is_busy(&e) => return Err(e),
                Err(e) => {
                    let line = format!("{} spool not drained: {e:#}", today());
                    crate::files::log(&self.dir, &line)
                        .with_context(|| format!("could not log to {}", self.dir.display()))?;
                }
                Ok(_) => {}
            }
        }
        self.write_only(change)
    }

    /// `write` without draining the spool (the drain itself).
    fn write_only<T>(&mut self, change: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| explain(e, &path))?;
        let out = change(&tx)?;
        tx.commit().map_err(|e| explain(e, &path))?;
        Ok(out)
    }

    /// Checkpoint the write-ahead log into the database and empty it once it is longer than
    /// `HOOK_LOG_BYTES`. A process that opens the store first reads the whole log back (SQLite
    /// rebuilds its index of the log then), and with one short process after another the log
    /// would never restart by itself: left alone, it would grow, and every hook with it. When
    /// another process is reading or writing, the checkpoint is left to a later hook.
    pub fn trim_log(&self) -> Result<()> {
        let log = PathBuf::from(format!("{}-wal", self.path.display()));
        let bytes = std::fs::metadata(&log).map_or(0, |m| m.len());
        if bytes <= HOOK_LOG_BYTES {
            return Ok(());
        }
        match self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        {
            Err(e) if is_busy_error(&e) => Ok(()),
            other => other.with_context(|| format!("could not checkpoint {}", log.display())),
        }
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The data folder the store lives in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn conn(&self) -> &Connection {
        &self.conn
    }

    /// A memory visible from `scope`, in any state; `None` if missing or out of scope.
    pub fn get(&self, id: i64, scope: &Scope) -> Result<Option<Memory>> {
        get(&self.conn, id, scope)
    }

    /// Like `get`, but a missing id is an error that names it.
    pub fn require(&self, id: i64, scope: &Scope) -> Result<Memory> {
        require_in(&self.conn, id, scope)
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

    /// The newest live memories visible from `scope`, with their heads (see `Memory::body`).
    pub fn recent(&self, scope: &Scope, limit: usize) -> Result<Vec<Memory>> {
        let sql = format!(
            "SELECT {HEAD_COLUMNS} FROM memories m INDEXED BY memories_recent \
             WHERE {VISIBLE} AND {LIVE} ORDER BY m.created_at DESC, m.id DESC LIMIT ?2"
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt.query_map(
            rusqlite::params![scope.key(), limit as i64],
            Memory::from_head_row,
        )?;
        heads(
            &self.conn,
            rows.collect::<rusqlite::Result<_>>()?,
            index::HEAD_BYTES,
        )
    }

    /// Live memories by id with their heads (see `Memory::body`), in the order asked, skipping
    /// any not visible or not live. One statement for the whole list (recall asks for a hundred
    /// or more candidates at once); the `CROSS JOIN` keeps SQLite walking the list and looking
    /// each id up, in order.
    pub fn live_by_ids(&self, ids: &[i64], scope: &Scope) -> Result<Vec<Memory>> {
        self.live_openings_by_ids(ids, scope, index::HEAD_BYTES)
    }

    /// `live_by_ids`, reading at most the first `bytes` of each body: drift compares the
    /// openings of many memories.
    pub fn live_openings_by_ids(
        &self,
        ids: &[i64],
        scope: &Scope,
        bytes: usize,
    ) -> Result<Vec<Memory>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        // One short statement run per id: cheaper to prepare than a join over a list of ids,
        // and as cheap to run for the few dozen ids a recall or a drift check asks for.
        let sql = format!(
            "SELECT {HEAD_COLUMNS} FROM memories m WHERE m.id = ?2 AND {VISIBLE} AND {LIVE}"
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let mut rows = Vec::with_capacity(ids.len());
        for &id in ids {
            if let Some(m) = stmt
                .query_row(rusqlite::params![scope.key(), id], Memory::from_head_row)
                .optional()?
            {
                rows.push(m);
            }
        }
        heads(&self.conn, rows, bytes)
    }

    /// The live memories visible from `scope`, newest first, with their heads (see
    /// `Memory::body`): what a drift audit reads.
    pub fn live_heads(&self, scope: &Scope) -> Result<Vec<Memory>> {
        let sql = format!(
            "SELECT {HEAD_COLUMNS} FROM memories m WHERE {VISIBLE} AND {LIVE} \
             ORDER BY m.created_at DESC, m.id DESC"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map([scope.key()], Memory::from_head_row)?;
        heads(
            &self.conn,
            rows.collect::<rusqlite::Result<_>>()?,
            index::HEAD_BYTES,
        )
    }

    /// One memory visible from `scope`, in any state, with its head (see `Memory::body`).
    pub fn head(&self, id: i64, scope: &Scope) -> Result<Memory> {
        let sql = format!("SELECT {HEAD_COLUMNS} FROM memories m WHERE {VISIBLE} AND m.id = ?2");
        let row = self
            .conn
            .prepare_cached(&sql)?
            .query_row(rusqlite::params![scope.key(), id], Memory::from_head_row)
            .optional()?
            .with_context(|| format!("no memory {id} in this scope (see `synapse list --all`)"))?;
        Ok(heads(&self.conn, vec![row], index::HEAD_BYTES)?.remove(0))
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

    /// Whether any memory, in any state, belongs to project `key`.
    pub fn has_project(&self, key: &str) -> Result<bool> {
        Ok(self
            .conn
            .prepare_cached("SELECT 1 FROM memories WHERE project = ?1 LIMIT 1")?
            .query_row([key], |_| Ok(()))
            .optional()?
            .is_some())
    }

    /// The keys of every project with memories, in order.
    pub fn projects(&self) -> Result<Vec<String>> {
        let mut stmt = self.conn.prepare(
            "SELECT DISTINCT project FROM memories WHERE project IS NOT NULL ORDER BY project",
        )?;
        let rows = stmt.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// How many live memories `scope` sees.
    pub fn count_live(&self, scope: &Scope) -> Result<i64> {
        let sql = format!("SELECT count(*) FROM memories m WHERE {VISIBLE} AND {LIVE}");
        Ok(self.conn.query_row(&sql, [scope.key()], |r| r.get(0))?)
    }
}

/// A memory visible from `scope`, in any state, read on `conn` (a transaction's, say).
pub(crate) fn get(conn: &Connection, id: i64, scope: &Scope) -> Result<Option<Memory>> {
    let sql = format!("SELECT {MEMORY_COLUMNS} FROM memories m WHERE {VISIBLE} AND m.id = ?2");
    Ok(conn
        .prepare_cached(&sql)?
        .query_row(rusqlite::params![scope.key(), id], Memory::from_row)
        .optional()?)
}

/// `get`, with a missing id an error that names it.
pub(crate) fn require_in(conn: &Connection, id: i64, scope: &Scope) -> Result<Memory> {
    get(conn, id, scope)?
        .with_context(|| format!("no memory {id} in this scope (see `synapse list --all`)"))
}

/// Whether an error (anywhere in its chain) is SQLite saying another process holds the lock
/// it waited for: the one failure a hook answers by spooling its write.
pub fn is_busy(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<rusqlite::Error>()
            .is_some_and(is_busy_error)
    })
}

/// Whether an error (anywhere in its chain) is the store itself failing (busy, full, unreadable,
/// out of memory...) rather than what was asked of it (a constraint, a value too big): the
/// failures a spooled line cannot be blamed for (`spool`).
pub(crate) fn is_fault(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<rusqlite::Error>()
            .and_then(rusqlite::Error::sqlite_error_code)
            .is_some_and(|code| {
                matches!(
                    code,
                    ErrorCode::DatabaseBusy
                        | ErrorCode::DatabaseLocked
                        | ErrorCode::DiskFull
                        | ErrorCode::SystemIoFailure
                        | ErrorCode::DatabaseCorrupt
                        | ErrorCode::NotADatabase
                        | ErrorCode::ReadOnly
                        | ErrorCode::CannotOpen
                        | ErrorCode::PermissionDenied
                        | ErrorCode::OutOfMemory
                        | ErrorCode::FileLockingProtocolFailed
                        | ErrorCode::NoLargeFileSupport
                        | ErrorCode::InternalMalfunction
                        | ErrorCode::OperationAborted
                        | ErrorCode::OperationInterrupted
                )
            })
    })
}

/// `attempt`, tried again every 5 ms while it fails busy, for at most `limit`. Some of SQLite's
/// busy answers come at once, without waiting for the lock (turning on the log while another
/// process creates the store; a lock SQLite would deadlock waiting for), and whoever holds it
/// may be doing the same work.
fn while_busy<T, E>(
    limit: Duration,
    is_busy: impl Fn(&E) -> bool,
    mut attempt: impl FnMut() -> std::result::Result<T, E>,
) -> std::result::Result<T, E> {
    let started = std::time::Instant::now();
    loop {
        match attempt() {
            Err(e) if is_busy(&e) && started.elapsed() < limit => {
                std::thread::sleep(Duration::from_millis(5));
            }
            done => return done,
        }
    }
}

fn is_busy_error(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}

/// An SQLite error on the store at `path`, said the way a user can act on: what happened, not a
/// guess at why.
fn explain(error: rusqlite::Error, path: &Path) -> anyhow::Error {
    let context = error
        .sqlite_error_code()
        .and_then(|code| said(code, path))
        .unwrap_or_else(|| format!("store {}", path.display()));
    anyhow::Error::new(error).context(context)
}

/// `explain` for an error that may wrap an SQLite one (migrations add their own context).
fn explain_any(error: anyhow::Error, path: &Path) -> anyhow::Error {
    let context = error
        .chain()
        .find_map(|c| c.downcast_ref::<rusqlite::Error>())
        .and_then(rusqlite::Error::sqlite_error_code)
        .and_then(|code| said(code, path));
    match context {
        Some(context) => error.context(context),
        None => error,
    }
}

/// What an SQLite result code means for the store at `path`, when it means something a user can
/// act on.
fn said(code: ErrorCode, path: &Path) -> Option<String> {
    let shown = path.display();
    Some(match code {
        ErrorCode::DiskFull => format!("the disk holding {shown} is full; free some space"),
        ErrorCode::ReadOnly => format!(
            "{shown} is read-only: Synapse needs to write it and its folder (check the \
             permissions, or point SYNAPSE_DATA at a writable folder)"
        ),
        ErrorCode::CannotOpen => format!(
            "could not open {shown}: its folder must exist and be writable (check the \
             permissions, or point SYNAPSE_DATA at another folder)"
        ),
        ErrorCode::PermissionDenied => format!("permission denied on {shown}"),
        ErrorCode::NotADatabase => format!(
            "{shown} is not an SQLite database; move it away or point SYNAPSE_DATA at another \
             folder"
        ),
        ErrorCode::DatabaseCorrupt => format!(
            "{shown} is damaged; `sqlite3 {shown} .recover` may save its contents, and a backup \
             may sit beside it (synapse.db.vN.bak)"
        ),
        ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => format!(
            "{shown} is busy: another Synapse process (an import?) held its write lock longer \
             than this one could wait; try again when it is done"
        ),
        ErrorCode::SystemIoFailure => format!("reading or writing {shown} failed (I/O error)"),
        _ => return None,
    })
}

/// Today's date in UTC, `YYYY-MM-DD` (for sources and log lines).
pub fn today() -> String {
    date_of(now())
}

/// The UTC date, `YYYY-MM-DD`, of `seconds` since the epoch (the seconds themselves past the
/// years a civil time holds).
pub fn date_of(seconds: i64) -> String {
    civil(seconds).map_or_else(|| seconds.to_string(), |t| t.date().to_string())
}

/// Seconds since the Unix epoch, now.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// For the crate's unit tests: remember `body` in `project` (`None`: global), written at `at`
/// (`None`: now), as a writer in project `p`; its id.
#[cfg(test)]
pub(crate) fn remember_at(
    store: &mut Store,
    body: &str,
    project: Option<&str>,
    at: Option<i64>,
) -> i64 {
    let memory = write::NewMemory {
        body: body.into(),
        project: project.map(str::to_owned),
        created_at: at,
        ..write::NewMemory::default()
    };
    store
        .remember(&memory, &[], &Scope::project("p"))
        .expect("a test memory is stored")
        .id
}
