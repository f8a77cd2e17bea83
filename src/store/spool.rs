//! The spool: writes a hook could not make in time, kept until a process holding the write lock
//! makes them.
//!
//! A hook waits at most `HOOK_BUSY` for the store's write lock (it must never hold a session
//! up), and another process may hold the lock longer: an import, a migration. Rather than drop
//! a lesson, the hook appends it to `spool.jsonl` in the data folder (0600), one JSON object a
//! line, each with a key of its own. Every `Store::write` first drains the spool: in one
//! transaction it applies, in order, each line whose key it has not applied before, records the
//! keys (table `drained`), commits, and only then empties the file. A crash between the commit
//! and the emptying leaves lines whose keys are recorded, so the next drain skips them: every
//! line is applied exactly once.
//!
//! Appending and draining hold an advisory lock on the file (never while waiting for the store's
//! lock, so the two locks cannot deadlock). A line cut short by a killed writer is skipped when
//! drained and logged; the next append starts on a line of its own.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use rusqlite::{Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::history::Action;
use super::index::Tally;
use super::write::{store_new, NewMemory};
use super::Store;

/// The spool's file name in the data folder.
pub const SPOOL_FILE: &str = "spool.jsonl";
/// A spool larger than this takes no more lines: something has held the store's lock for far
/// too long, and a drain must stay a bounded piece of work.
const SPOOL_BYTES: u64 = 64 << 20;
/// How long appending or draining waits for the other to finish with the file.
const FILE_WAIT: Duration = Duration::from_secs(2);
/// Applied keys are kept this long: far longer than a spool line can wait for its drain.
const KEEP_KEYS_SECONDS: i64 = 30 * 86_400;

/// One write a hook could not make.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum Entry {
    /// A lesson from the Stop hook (already masked), stored as `remember` would.
    Remember {
        body: String,
        source: String,
        project: Option<String>,
        /// When the lesson was written, seconds since the epoch.
        created_at: i64,
    },
    /// Memories given to a session (see `injected`).
    Injected { session: String, ids: Vec<i64> },
    /// A session's context was compacted or cleared: forget what it was given.
    Clear { session: String },
}

#[derive(Serialize, Deserialize)]
struct Line {
    key: String,
    #[serde(flatten)]
    entry: Entry,
}

/// What a drain did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Drained {
    pub applied: usize,
    /// Lines that were already applied (a crash left them in the file).
    pub repeated: usize,
    /// Lines that could not be read (cut short by a killed writer).
    pub unreadable: usize,
}

fn path(dir: &Path) -> PathBuf {
    dir.join(SPOOL_FILE)
}

/// Append `entry` to the spool in `dir`.
pub fn append(dir: &Path, entry: Entry) -> Result<()> {
    let path = path(dir);
    let mut file = File::options()
        .read(true)
        .append(true)
        .create(true)
        .mode(0o600)
        .open(&path)
        .with_context(|| format!("could not open the spool {}", path.display()))?;
    lock(&file, &path)?;
    let size = file.metadata()?.len();
    if size > SPOOL_BYTES {
        bail!(
            "the spool {} is full ({size} bytes): the store has been locked for too long",
            path.display()
        );
    }
    let mut text = String::new();
    if size > 0 && !ends_with_newline(&mut file)? {
        text.push('\n');
    }
    text.push_str(&serde_json::to_string(&Line {
        key: new_key(),
        entry,
    })?);
    text.push('\n');
    file.write_all(text.as_bytes())
        .with_context(|| format!("could not write the spool {}", path.display()))?;
    Ok(())
}

/// Apply what the spool holds, if anything: a `stat` when it is empty. Lines are applied in the
/// order they were written, each exactly once.
pub fn drain(store: &mut Store) -> Result<Drained> {
    let path = path(store.dir());
    if std::fs::metadata(&path).map_or(true, |m| m.len() == 0) {
        return Ok(Drained::default());
    }
    let mut file = File::options()
        .read(true)
        .write(true)
        .open(&path)
        .with_context(|| format!("could not open the spool {}", path.display()))?;
    // The store's write lock first, then the file's: the file is locked only while this process
    // holds the store, so an appender or another drainer never waits on a drainer that is
    // itself waiting for the store (which, with writers queued, can take longer than `FILE_WAIT`).
    let drained = store.write_only(|conn| {
        lock(&file, &path)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .with_context(|| format!("could not read the spool {}", path.display()))?;
        apply(conn, &String::from_utf8_lossy(&bytes))
    })?;
    file.set_len(0)
        .with_context(|| format!("could not empty the spool {}", path.display()))?;
    if drained.unreadable > 0 {
        let line = format!(
            "{} spool: {} unreadable lines skipped (a writer was cut short)",
            super::today(),
            drained.unreadable
        );
        crate::files::log(store.dir(), &line)
            .with_context(|| format!("could not log to {}", store.dir().display()))?;
    }
    Ok(drained)
}

fn apply(conn: &Connection, text: &str) -> Result<Drained> {
    let now = super::now();
    let mut drained = Drained::default();
    let mut seen = conn.prepare_cached("SELECT 1 FROM drained WHERE key = ?1")?;
    let mut mark = conn.prepare_cached("INSERT INTO drained(key, at) VALUES (?1, ?2)")?;
    let mut tally = Tally::default();
    for raw in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(line) = serde_json::from_str::<Line>(raw) else {
            drained.unreadable += 1;
            continue;
        };
        if seen
            .query_row([&line.key], |_| Ok(()))
            .optional()?
            .is_some()
        {
            drained.repeated += 1;
            continue;
        }
        match line.entry {
            Entry::Remember {
                body,
                source,
                project,
                created_at,
            } => {
                let memory = NewMemory {
                    body,
                    source,
                    project,
                    created_at: Some(created_at),
                    ..NewMemory::default()
                };
                // A lesson that is empty once masked has nothing to store; skip it like an
                // unreadable line rather than block every later one.
                if store_new(conn, &mut tally, &memory, Action::Remember).is_err() {
                    drained.unreadable += 1;
                }
            }
            Entry::Injected { session, ids } => super::injected::mark(conn, &session, &ids)?,
            Entry::Clear { session } => super::injected::clear(conn, &session)?,
        }
        mark.execute(rusqlite::params![line.key, now])?;
        drained.applied += 1;
    }
    conn.prepare_cached("DELETE FROM drained WHERE at < ?1")?
        .execute([now - KEEP_KEYS_SECONDS])?;
    tally.write(conn)?;
    Ok(drained)
}

/// Take the file's advisory lock, waiting at most `FILE_WAIT`.
fn lock(file: &File, path: &Path) -> Result<()> {
    let start = Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(()),
            Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < FILE_WAIT => {
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                bail!(
                    "the spool {} stayed locked for {FILE_WAIT:?}",
                    path.display()
                )
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("could not lock {}", path.display()))
            }
        }
    }
}

fn ends_with_newline(file: &mut File) -> Result<bool> {
    let mut last = [0u8; 1];
    file.seek(SeekFrom::End(-1))?;
    file.read_exact(&mut last)?;
    Ok(last[0] == b'\n')
}

/// A key no other spool line has: this process, this instant, and bits from the standard
/// library's per-process random hasher keys.
fn new_key() -> String {
    use std::hash::{BuildHasher, Hasher};
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(nanos);
    format!("{}-{nanos:x}-{:016x}", std::process::id(), hasher.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Scope;

    fn lesson(body: &str) -> Entry {
        Entry::Remember {
            body: body.into(),
            source: "session test".into(),
            project: Some("p".into()),
            created_at: 1_700_000_000,
        }
    }

    fn bodies(store: &Store) -> Vec<String> {
        let mut out: Vec<String> = store
            .list(&Scope::project("p"), true)
            .unwrap()
            .into_iter()
            .map(|m| m.body)
            .collect();
        out.reverse();
        out
    }

    #[test]
    fn a_drain_applies_each_line_once_in_order_and_empties_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        append(dir.path(), lesson("first lesson")).unwrap();
        append(dir.path(), lesson("second lesson")).unwrap();
        let copy = std::fs::read(path(dir.path())).unwrap();
        let drained = drain(&mut store).unwrap();
        assert_eq!(drained.applied, 2);
        assert_eq!(bodies(&store), ["first lesson", "second lesson"]);
        assert_eq!(std::fs::metadata(path(dir.path())).unwrap().len(), 0);
        // As if a crash had come between the commit and the emptying.
        std::fs::write(path(dir.path()), &copy).unwrap();
        let again = drain(&mut store).unwrap();
        assert_eq!((again.applied, again.repeated), (0, 2));
        assert_eq!(bodies(&store).len(), 2);
    }

    #[test]
    fn a_line_cut_short_is_skipped_and_the_next_append_starts_a_new_line() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        std::fs::write(path(dir.path()), "{\"key\":\"k\",\"op\":\"remem").unwrap();
        append(dir.path(), lesson("after the cut")).unwrap();
        let drained = drain(&mut store).unwrap();
        assert_eq!((drained.applied, drained.unreadable), (1, 1));
        assert_eq!(bodies(&store), ["after the cut"]);
    }

    #[test]
    fn any_write_drains_first() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        append(dir.path(), lesson("spooled")).unwrap();
        let memory = NewMemory {
            body: "written".into(),
            project: Some("p".into()),
            ..NewMemory::default()
        };
        store.remember(&memory, &[], &Scope::project("p")).unwrap();
        assert_eq!(bodies(&store), ["spooled", "written"]);
    }
}
