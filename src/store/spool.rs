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
//!
//! A line may no longer apply by the time it is drained: the memories a session was given may
//! have been deleted since (a fold deletes the memory of a removed topic file), a lesson may be
//! no memory at all. Such a line must never fail the drain, since every write drains first and
//! one such line would then fail every write for good. Each line is applied under a savepoint of
//! its own: what no longer applies is left out (the ids that are gone from a given-list, or the
//! whole line when nothing of it can be applied), and each line left out is said in one line of
//! the log. Only the store itself failing (busy, full, unreadable) fails a drain.

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
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Drained {
    pub applied: usize,
    /// Lines that were already applied (a crash left them in the file).
    pub repeated: usize,
    /// Lines that could not be read (cut short by a killed writer).
    pub unreadable: usize,
    /// What no longer applied and was left out, one sentence a line (see the module's comment).
    pub dropped: Vec<String>,
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
    let mut lines: Vec<String> = drained
        .dropped
        .iter()
        .map(|why| format!("{} spool: {why}", super::today()))
        .collect();
    if drained.unreadable > 0 {
        lines.push(format!(
            "{} spool: {} unreadable lines skipped (a writer was cut short)",
            super::today(),
            drained.unreadable
        ));
    }
    for line in lines {
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
        conn.execute_batch("SAVEPOINT spooled")?;
        match apply_entry(conn, &line.entry) {
            Ok(left_out) => {
                conn.execute_batch("RELEASE spooled")?;
                drained.dropped.extend(left_out);
                drained.applied += 1;
            }
            Err(e) if super::is_fault(&e) => return Err(e),
            Err(e) => {
                conn.execute_batch("ROLLBACK TO spooled; RELEASE spooled")?;
                drained
                    .dropped
                    .push(format!("{} was dropped: {e:#}", line.entry.what()));
            }
        }
        // Applied or dropped, a line is done with: its key keeps it from coming back.
        mark.execute(rusqlite::params![line.key, now])?;
    }
    conn.prepare_cached("DELETE FROM drained WHERE at < ?1")?
        .execute([now - KEEP_KEYS_SECONDS])?;
    Ok(drained)
}

/// Apply one spooled write; what of it no longer applied and was left out, said for the log.
fn apply_entry(conn: &Connection, entry: &Entry) -> Result<Option<String>> {
    match entry {
        Entry::Remember {
            body,
            source,
            project,
            created_at,
        } => {
            let memory = NewMemory {
                body: body.clone(),
                source: source.clone(),
                project: project.clone(),
                created_at: Some(*created_at),
                ..NewMemory::default()
            };
            let mut tally = Tally::default();
            store_new(conn, &mut tally, &memory, Action::Remember)?;
            tally.write(conn)?;
            Ok(None)
        }
        Entry::Injected { session, ids } => {
            let gone = super::injected::mark(conn, session, ids)?;
            Ok((!gone.is_empty()).then(|| {
                format!(
                    "{} left out {}: no longer stored (deleted since)",
                    entry.what(),
                    memories_named(&gone)
                )
            }))
        }
        Entry::Clear { session } => {
            super::injected::clear(conn, session)?;
            Ok(None)
        }
    }
}

impl Entry {
    /// What the line is, for the log; never its text.
    fn what(&self) -> String {
        let short = |session: &str| session.chars().take(8).collect::<String>();
        match self {
            Entry::Remember { source, .. } => format!("a lesson ({source})"),
            Entry::Injected { session, .. } => {
                format!("what session {} was given", short(session))
            }
            Entry::Clear { session } => format!("clearing session {}", short(session)),
        }
    }
}

/// "memory 12", "memories 12, 15".
fn memories_named(ids: &[i64]) -> String {
    let listed: Vec<String> = ids.iter().map(i64::to_string).collect();
    match listed.as_slice() {
        [one] => format!("memory {one}"),
        _ => format!("memories {}", listed.join(", ")),
    }
}

/// What the spool in a store's data folder holds, and whether the next write can drain it: what
/// `synapse doctor` says of it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Waiting {
    pub bytes: u64,
    /// Lines not drained yet.
    pub lines: usize,
    /// Lines cut short by a killed writer: skipped when drained.
    pub unreadable: usize,
    /// Lines that no longer apply (a given-list naming memories deleted since, a lesson that is
    /// no memory): left out when drained, with a line in the log.
    pub stale: usize,
    /// Why the spool cannot be drained, if it cannot (writes then go on without it).
    pub blocked: Option<String>,
}

/// Look at the spool of `store`'s data folder without changing anything; `None` when it is
/// empty.
pub fn waiting(store: &Store) -> Result<Option<Waiting>> {
    let path = path(store.dir());
    let Ok(meta) = std::fs::symlink_metadata(&path) else {
        return Ok(None);
    };
    if meta.is_file() && meta.len() == 0 {
        return Ok(None);
    }
    let mut waiting = Waiting {
        bytes: meta.len(),
        ..Waiting::default()
    };
    // A drain opens the file to read and empty it: what fails here fails there.
    let mut file = match File::options().read(true).write(true).open(&path) {
        Ok(file) => file,
        Err(e) => {
            waiting.blocked = Some(format!("{} cannot be opened: {e}", path.display()));
            return Ok(Some(waiting));
        }
    };
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .with_context(|| format!("could not read the spool {}", path.display()))?;
    let conn = store.conn();
    let mut seen = conn.prepare_cached("SELECT 1 FROM drained WHERE key = ?1")?;
    let mut stored = conn.prepare_cached("SELECT 1 FROM memories WHERE id = ?1")?;
    for raw in String::from_utf8_lossy(&bytes).lines() {
        if raw.trim().is_empty() {
            continue;
        }
        let Ok(line) = serde_json::from_str::<Line>(raw) else {
            waiting.unreadable += 1;
            continue;
        };
        if seen
            .query_row([&line.key], |_| Ok(()))
            .optional()?
            .is_some()
        {
            continue;
        }
        waiting.lines += 1;
        let applies = match &line.entry {
            Entry::Remember { body, .. } => super::write::check_body(body).is_ok(),
            Entry::Injected { ids, .. } => {
                let mut all = true;
                for &id in ids {
                    all &= stored.query_row([id], |_| Ok(())).optional()?.is_some();
                }
                all
            }
            Entry::Clear { .. } => true,
        };
        waiting.stale += usize::from(!applies);
    }
    Ok(Some(waiting))
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
pub(crate) mod tests {
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

    /// The one piece of a new `CLAUDE.md` in project "p", folded: its memory.
    pub(crate) fn fold_piece(store: &mut Store, text: &str) -> i64 {
        use crate::store::sources::{FileRead, Kind, Piece, SourceFile};
        let file = SourceFile {
            id: 0,
            project: Some("p".into()),
            path: "/p/CLAUDE.md".into(),
            kind: Kind::Instructions,
            shown: "CLAUDE.md".into(),
            dir: Some("/p".into()),
            globs: Vec::new(),
            size: 1,
            modified: 1,
        };
        let pieces = vec![Piece {
            line: 1,
            text: text.into(),
            label: "CLAUDE.md:1".into(),
        }];
        let read = FileRead {
            file,
            seen: None,
            pieces,
        };
        store.fold_sources(vec![read], Vec::new()).unwrap();
        let found = store.list(&Scope::project("p"), false).unwrap();
        found.into_iter().find(|m| m.body == text).unwrap().id
    }

    fn log(dir: &Path) -> String {
        std::fs::read_to_string(dir.join(crate::files::LOG_FILE)).unwrap_or_default()
    }

    /// A hook that could not write spooled what it gave a session; a fold then deleted one of
    /// those memories (its file dropped the piece). The drain failed on a foreign key, and since
    /// every write drains first, every write after it failed too.
    #[test]
    fn a_given_memory_deleted_before_the_drain_is_left_out_and_writes_go_on() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let piece = fold_piece(&mut store, "Deploys need two approvals");
        let kept = crate::store::remember_at(&mut store, "Webhooks retry 8 times", Some("p"), None);
        let given = Entry::Injected {
            session: "session-1".into(),
            ids: vec![piece, kept],
        };
        // The fold of a process that held the lock while the hook spooled: it drained before.
        store
            .write_only(|conn| {
                append(dir.path(), given)?;
                append(dir.path(), lesson("spooled after the list"))?;
                let mut tally = Tally::default();
                crate::store::write::delete(conn, &mut tally, piece)?;
                tally.write(conn)
            })
            .unwrap();
        assert!(store.get(piece, &Scope::project("p")).unwrap().is_none());

        let memory = NewMemory {
            body: "written after the drain".into(),
            project: Some("p".into()),
            ..NewMemory::default()
        };
        store.remember(&memory, &[], &Scope::project("p")).unwrap();
        let given: Vec<i64> = store.injected("session-1").unwrap().into_iter().collect();
        assert_eq!(given, [kept]);
        assert!(bodies(&store).contains(&"spooled after the list".to_owned()));
        assert_eq!(std::fs::metadata(path(dir.path())).unwrap().len(), 0);
        let log = log(dir.path());
        assert_eq!(log.lines().count(), 1, "{log}");
        assert!(log.contains(&format!("left out memory {piece}")), "{log}");
        store.forget(kept, &Scope::project("p")).unwrap();
    }

    #[test]
    fn a_line_that_no_longer_applies_is_dropped_with_one_log_line() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        append(dir.path(), lesson("  ")).unwrap();
        let gone = Entry::Injected {
            session: "session-2".into(),
            ids: vec![404],
        };
        append(dir.path(), gone).unwrap();
        append(dir.path(), lesson("still stored")).unwrap();
        let drained = drain(&mut store).unwrap();
        assert_eq!((drained.applied, drained.dropped.len()), (2, 2));
        assert_eq!(bodies(&store), ["still stored"]);
        let log = log(dir.path());
        assert_eq!(log.lines().count(), 2, "{log}");
        assert!(log.contains("a lesson (session test) was dropped"), "{log}");
        assert!(log.contains("left out memory 404"), "{log}");
        // Dropped or not, a line is applied once: the same file again changes nothing.
        assert!(store.injected("session-2").unwrap().is_empty());
    }

    /// A spool that cannot be drained (here: a folder where its file should be) is logged, and
    /// the write goes on.
    #[test]
    fn a_spool_that_cannot_be_read_does_not_stop_a_write() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        std::fs::create_dir(path(dir.path())).unwrap();
        std::fs::write(path(dir.path()).join("x"), "x").unwrap();
        let memory = NewMemory {
            body: "written anyway".into(),
            project: Some("p".into()),
            ..NewMemory::default()
        };
        store.remember(&memory, &[], &Scope::project("p")).unwrap();
        assert_eq!(bodies(&store), ["written anyway"]);
        let log = log(dir.path());
        assert!(
            log.contains("spool not drained: could not open the spool"),
            "{log}"
        );
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
