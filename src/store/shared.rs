//! Team memory in the store: which memories a project shares through its repository's file,
//! under which stable ids, and folding that file's events in.
//!
//! The file itself (where it is, its lines, who writes them) is `team`'s; this module only sees
//! events already read. Folding is idempotent and does not depend on the order of the lines: a
//! share is keyed by its id, a forget or restore applies only when it is newer than the last one
//! applied to that id, and a replacement waits until both of its memories are here.

use anyhow::{bail, Result};
use rusqlite::{Connection, OptionalExtension};
use serde::Serialize;

use super::history::{self, Action};
use super::index::Tally;
use super::write::{self, NewMemory};
use super::{now, Memory, Scope, Store, LIVE};
use crate::secrets::Secrets;

/// One event of a shared file, as `team` read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// The shared memory's stable id (a UUID, the same on every machine).
    pub uid: String,
    /// When it happened, in microseconds since the epoch: a withdrawal and a new share of one
    /// memory are often seconds apart, and the later must win.
    pub at: i64,
    /// `Name <email>` from git, as the author's machine had it.
    pub author: String,
    pub change: Change,
}

/// What an event does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// A memory is shared, replacing the shared memories `supersedes` (their ids).
    Share {
        body: String,
        supersedes: Vec<String>,
    },
    /// A shared memory is withdrawn: copies folded in from the file are forgotten.
    Forget,
    /// A withdrawn memory is shared again.
    Restore,
}

impl Change {
    /// Shares first among events of one second, so a forget of the same second finds its memory.
    fn rank(&self) -> u8 {
        match self {
            Change::Share { .. } => 0,
            Change::Forget => 1,
            Change::Restore => 2,
        }
    }
}

/// What folding a file changed here (memory ids) and which events it could not apply.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Folded {
    /// Memories new here, folded in from teammates' lines.
    pub added: Vec<i64>,
    /// `(old, new)`: memories replaced by a newer shared one.
    pub replaced: Vec<(i64, i64)>,
    /// Copies forgotten because their memory was withdrawn.
    pub withdrawn: Vec<i64>,
    /// Copies restored because their memory was shared again.
    pub restored: Vec<i64>,
    /// Events naming an id this project does not hold (with that id).
    pub unknown: Vec<String>,
}

/// One shared memory of a project, as `status` lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Shared {
    pub uid: String,
    pub memory_id: i64,
    pub author: String,
    /// Shared from this store (rather than folded in from a teammate's line).
    pub mine: bool,
}

/// How the source label of a memory folded in from a teammate begins.
pub const SOURCE_PREFIX: &str = "shared by ";

/// The source label of a memory folded in from `author` (`Name <email>`): the name.
pub fn source_of(author: &str) -> String {
    let name = author.split('<').next().unwrap_or(author).trim();
    format!(
        "{SOURCE_PREFIX}{}",
        if name.is_empty() { "a teammate" } else { name }
    )
}

/// A row of `shared`.
struct Row {
    memory_id: Option<i64>,
    mine: bool,
    state_at: i64,
}

fn row(conn: &Connection, project: &str, uid: &str) -> Result<Option<Row>> {
    Ok(conn
        .prepare_cached(
            "SELECT memory_id, mine, state_at FROM shared WHERE project = ?1 AND uid = ?2",
        )?
        .query_row([project, uid], |r| {
            Ok(Row {
                memory_id: r.get(0)?,
                mine: r.get(1)?,
                state_at: r.get(2)?,
            })
        })
        .optional()?)
}

/// Tie `uid` to `memory_id` (creating the row, or filling in one that named it only as replaced).
fn bind(
    conn: &Connection,
    project: &str,
    uid: &str,
    memory_id: i64,
    author: &str,
    mine: bool,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO shared(project, uid, memory_id, author, mine, state_at, withdrawn, \
         replaced_by, replaced) VALUES (?1, ?2, ?3, ?4, ?5, 0, 0, NULL, 0) \
         ON CONFLICT(project, uid) DO UPDATE SET memory_id = ?3, author = ?4, mine = ?5",
    )?
    .execute(rusqlite::params![project, uid, memory_id, author, mine])?;
    Ok(())
}

/// Note that the shared memory `old` is replaced by `new` (applied by `replace_ready`).
fn link(conn: &Connection, project: &str, old: &str, new: &str) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO shared(project, uid, memory_id, author, mine, state_at, withdrawn, \
         replaced_by, replaced) VALUES (?1, ?2, NULL, '', 0, 0, 0, ?3, 0) \
         ON CONFLICT(project, uid) DO UPDATE SET replaced_by = ?3, replaced = 0 \
         WHERE replaced_by IS NOT ?3",
    )?
    .execute([project, old, new])?;
    Ok(())
}

/// Apply every replacement of `project` whose two memories are both here and not yet applied:
/// the older is superseded by the newer when both are live. Each is applied once, so a user who
/// restores the older one here keeps it.
fn replace_ready(conn: &Connection, tally: &mut Tally, project: &str) -> Result<Vec<(i64, i64)>> {
    let ready: Vec<(String, i64, i64)> = conn
        .prepare_cached(
            "SELECT o.uid, o.memory_id, n.memory_id FROM shared o \
             JOIN shared n ON n.project = o.project AND n.uid = o.replaced_by \
             WHERE o.project = ?1 AND o.replaced = 0 \
             AND o.memory_id IS NOT NULL AND n.memory_id IS NOT NULL",
        )?
        .query_map([project], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut done = Vec::new();
    for (uid, old, new) in ready {
        // A memory no longer stored is no side of a replacement.
        let live = |id: i64| -> Result<bool> {
            Ok(conn
                .prepare_cached(
                    "SELECT superseded_by IS NULL AND forgotten_at IS NULL FROM memories \
                     WHERE id = ?1",
                )?
                .query_row([id], |r| r.get(0))
                .optional()?
                .unwrap_or(false))
        };
        if old != new && live(old)? && live(new)? {
            write::mark_superseded(conn, tally, old, new)?;
            done.push((old, new));
        }
        conn.prepare_cached("UPDATE shared SET replaced = 1 WHERE project = ?1 AND uid = ?2")?
            .execute([project, uid.as_str()])?;
    }
    Ok(done)
}

impl Store {
    /// Fold `events` of `project`'s shared file into the store, in one transaction. Teammates'
    /// memories are stored masked, as every write path masks, with their authors as source and
    /// the time of their event as creation time.
    pub fn fold_shared(&mut self, project: &str, mut events: Vec<Event>) -> Result<Folded> {
        events
            .sort_by(|a, b| (a.at, a.change.rank(), &a.uid).cmp(&(b.at, b.change.rank(), &b.uid)));
        let scope = Scope::project(project);
        self.write(|conn| {
            let mut tally = Tally::default();
            let mut folded = Folded::default();
            // Shares first, then their ids and replacements written together, then withdrawals:
            // a write to `shared` between two memories' index rows would make FTS5 flush its
            // pending rows each time (about 0.4 ms a memory). Order does not matter across these
            // kinds: a share of a known id does nothing, and a withdrawal needs its share.
            let mut bound = Bound::default();
            for event in &events {
                if let Change::Share { body, supersedes } = &event.change {
                    share_one(
                        conn, &mut tally, project, event, body, supersedes, &mut bound,
                    )?;
                }
            }
            for (uid, (id, author)) in &bound.ids {
                bind(conn, project, uid, *id, author, false)?;
            }
            for (old, new) in &bound.links {
                link(conn, project, old, new)?;
            }
            folded.added = bound.added;
            for event in events.iter().filter(|e| e.change.rank() > 0) {
                withdraw_one(conn, &mut tally, &scope, project, event, &mut folded)?;
            }
            folded.replaced = replace_ready(conn, &mut tally, project)?;
            tally.write(conn)?;
            Ok(folded)
        })
    }

    /// Share the live memories `ids` of `scope`'s project: each gets a stable id (a new one from
    /// `new_uid`, or the one it has) and the events to write are handed to `append`, which writes
    /// them to the file before the store commits. Returns, for each id, the event written, or
    /// `None` when it was already shared.
    pub fn share(
        &mut self,
        scope: &Scope,
        ids: &[i64],
        author: &str,
        mut new_uid: impl FnMut() -> String,
        append: impl FnOnce(&[Event]) -> Result<()>,
    ) -> Result<Vec<Option<Event>>> {
        let Some(project) = scope.key() else {
            bail!("global memories are never shared: sharing works inside a git repository");
        };
        self.write(|conn| {
            let at = now_micros();
            let mut out = Vec::new();
            for &id in ids {
                let m = super::require_in(conn, id, scope)?;
                check_shareable(&m, project)?;
                check_not_a_copy(conn, &m)?;
                let event = match uid_of(conn, project, id)? {
                    Some((_, _, false)) => None,
                    Some((uid, _, true)) => Some(Event {
                        uid,
                        at,
                        author: author.to_owned(),
                        change: Change::Restore,
                    }),
                    None => {
                        let uid = new_uid();
                        bind(conn, project, &uid, id, author, true)?;
                        let supersedes = replaced_uids(conn, project, id)?;
                        Some(Event {
                            uid,
                            at,
                            author: author.to_owned(),
                            change: Change::Share {
                                body: m.body.clone(),
                                supersedes,
                            },
                        })
                    }
                };
                if let Some(e) = &event {
                    set_withdrawn(conn, project, &e.uid, at, false)?;
                }
                out.push(event);
            }
            let written: Vec<Event> = out.iter().flatten().cloned().collect();
            if !written.is_empty() {
                append(&written)?;
            }
            Ok(out)
        })
    }

    /// Withdraw the shared memory `id` of `scope`'s project: the forget event is handed to
    /// `append`. A copy folded in from a teammate is forgotten here too; a memory shared from
    /// here stays, local only.
    pub fn unshare(
        &mut self,
        scope: &Scope,
        id: i64,
        author: &str,
        append: impl FnOnce(&Event) -> Result<()>,
    ) -> Result<Event> {
        let Some(project) = scope.key() else {
            bail!("global memories are never shared, so there is nothing to unshare");
        };
        self.write(|conn| {
            let m = super::require_in(conn, id, scope)?;
            let (uid, mine) = match uid_of(conn, project, id)? {
                Some((uid, mine, false)) => (uid, mine),
                Some((_, _, true)) => bail!("memory {id} is already unshared"),
                None => bail!("memory {id} is not shared; `synapse status` lists what is"),
            };
            let at = now_micros();
            set_withdrawn(conn, project, &uid, at, true)?;
            if !mine && m.forgotten_at.is_none() {
                let mut tally = Tally::default();
                write::forget_in(conn, &mut tally, &m)?;
                tally.write(conn)?;
            }
            let event = Event {
                uid,
                at,
                author: author.to_owned(),
                change: Change::Forget,
            };
            append(&event)?;
            Ok(event)
        })
    }

    /// The live memories of `project` that are shared (and not withdrawn), by memory id; one
    /// row a memory, the one shared from here if it goes by two ids.
    pub fn shared(&self, project: &str) -> Result<Vec<Shared>> {
        let sql = format!(
            "SELECT s.uid, s.memory_id, s.author, max(s.mine) FROM shared s \
             JOIN memories m ON m.id = s.memory_id \
             WHERE s.project = ?1 AND s.withdrawn = 0 AND {LIVE} \
             GROUP BY s.memory_id ORDER BY s.memory_id"
        );
        let mut stmt = self.conn().prepare(&sql)?;
        let rows = stmt.query_map([project], |r| {
            Ok(Shared {
                uid: r.get(0)?,
                memory_id: r.get(1)?,
                author: r.get(2)?,
                mine: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The live memories of `project` that are not shared: local only (copies of Claude Code's
    /// files are not counted: they follow their files, and are never shared as copies).
    pub fn local_only(&self, project: &str) -> Result<Vec<i64>> {
        let sql = format!(
            "SELECT m.id FROM memories m WHERE m.project = ?1 AND {LIVE} AND NOT EXISTS \
             (SELECT 1 FROM shared s WHERE s.project = ?1 AND s.memory_id = m.id \
              AND s.withdrawn = 0) \
             AND NOT EXISTS (SELECT 1 FROM sourced c WHERE c.memory_id = m.id) ORDER BY m.id"
        );
        let mut stmt = self.conn().prepare(&sql)?;
        let rows = stmt.query_map([project], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

/// Refuse to share a copy of a piece of Claude Code's files (`store::sources`): the file is the
/// record, and a shared copy would outlive its edits. `CLAUDE.md` reaches the team through git
/// already; a topic file is imported first (`synapse import --from claude-memory`), which makes
/// the store's own memory of it.
fn check_not_a_copy(conn: &rusqlite::Connection, m: &Memory) -> Result<()> {
    let copied: bool = conn
        .prepare_cached("SELECT EXISTS (SELECT 1 FROM sourced WHERE memory_id = ?1)")?
        .query_row([m.id], |r| r.get(0))?;
    if copied {
        bail!(
            "memory {} is read from {}, a file of Claude Code's, and follows that file: share \
             the file through git, or import it first (`synapse import --from claude-memory \
             FOLDER` or `--from markdown FILE`) and share the imported memory",
            m.id,
            m.source
        );
    }
    Ok(())
}

/// Refuse to share what must stay here: another project's or a global memory, one that is not
/// live, or one larger than a shared memory may be.
fn check_shareable(m: &Memory, project: &str) -> Result<()> {
    if m.project.as_deref() != Some(project) {
        bail!(
            "memory {} is global: only a project's own memories are shared with it",
            m.id
        );
    }
    if !m.is_live() {
        bail!(
            "memory {} is superseded or forgotten; share the memory that replaced it",
            m.id
        );
    }
    let found = crate::secrets::mask(&m.body).found;
    if !found.is_empty() {
        let kinds: Vec<&str> = found.iter().map(|f| f.kind).collect();
        bail!(
            "memory {} holds what looks like a secret ({}); nothing of it was shared. Remember \
             the lesson again without the secret and share that",
            m.id,
            kinds.join(", ")
        );
    }
    if m.body.len() > MAX_SHARED_BYTES {
        bail!(
            "memory {} is {} bytes, more than a shared memory may hold ({} KiB): share a summary",
            m.id,
            m.body.len(),
            MAX_SHARED_BYTES >> 10
        );
    }
    Ok(())
}

/// Now, in microseconds since the epoch (the unit of `Event::at`).
pub fn now_micros() -> i64 {
    jiff::Timestamp::now().as_microsecond()
}

/// The largest body a shared memory may have, in bytes: a lesson, not a log. Lines of the file
/// longer than this are skipped when folding, so a hostile line costs a bounded amount.
pub const MAX_SHARED_BYTES: usize = 64 << 10;

/// The stable id under which memory `id` is shared, with whether it was shared from here and
/// whether it is withdrawn: the one still shared first, then the one shared from here.
fn uid_of(conn: &Connection, project: &str, id: i64) -> Result<Option<(String, bool, bool)>> {
    Ok(conn
        .prepare_cached(
            "SELECT uid, mine, withdrawn FROM shared \
             WHERE project = ?1 AND memory_id = ?2 ORDER BY withdrawn, mine DESC LIMIT 1",
        )?
        .query_row(rusqlite::params![project, id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .optional()?)
}

/// The stable ids of the shared memories that memory `id` replaced here.
fn replaced_uids(conn: &Connection, project: &str, id: i64) -> Result<Vec<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT s.uid FROM memories m JOIN shared s \
         ON s.project = ?1 AND s.memory_id = m.id \
         WHERE m.superseded_by = ?2 ORDER BY s.uid",
    )?;
    let rows = stmt.query_map(rusqlite::params![project, id], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn set_withdrawn(conn: &Connection, project: &str, uid: &str, at: i64, on: bool) -> Result<()> {
    conn.prepare_cached(
        "UPDATE shared SET withdrawn = ?3, state_at = max(state_at, ?4) \
         WHERE project = ?1 AND uid = ?2",
    )?
    .execute(rusqlite::params![project, uid, on, at])?;
    Ok(())
}

/// What a fold's shares stored, to be written to `shared` after them.
#[derive(Default)]
struct Bound {
    /// Memory id and author, by uid.
    ids: foldhash::HashMap<String, (i64, String)>,
    /// (old uid, new uid).
    links: Vec<(String, String)>,
    /// New memories.
    added: Vec<i64>,
}

/// Store one share event unless its id is here (or was stored earlier in this fold).
fn share_one(
    conn: &Connection,
    tally: &mut Tally,
    project: &str,
    event: &Event,
    body: &str,
    supersedes: &[String],
    bound: &mut Bound,
) -> Result<()> {
    for old in supersedes.iter().filter(|old| **old != event.uid) {
        bound.links.push((old.clone(), event.uid.clone()));
    }
    let here = bound.ids.contains_key(&event.uid)
        || row(conn, project, &event.uid)?.is_some_and(|r| r.memory_id.is_some());
    if here {
        return Ok(());
    }
    let memory = NewMemory {
        body: body.to_owned(),
        source: source_of(&event.author),
        project: Some(project.to_owned()),
        created_at: Some(event.at.div_euclid(1_000_000)),
        secrets: Secrets::Mask,
    };
    let stored = write::store_new(conn, tally, &memory, Action::Remember)?;
    bound
        .ids
        .insert(event.uid.clone(), (stored.id, event.author.clone()));
    if !stored.duplicate {
        bound.added.push(stored.id);
    }
    Ok(())
}

/// Apply one forget or restore event, when it is newer than the last one applied to its id.
fn withdraw_one(
    conn: &Connection,
    tally: &mut Tally,
    scope: &Scope,
    project: &str,
    event: &Event,
    folded: &mut Folded,
) -> Result<()> {
    let forget = match event.change {
        Change::Forget => true,
        Change::Restore => false,
        Change::Share { .. } => return Ok(()),
    };
    let known = row(conn, project, &event.uid)?;
    let Some((row, id)) = known.and_then(|r| r.memory_id.map(|id| (r, id))) else {
        folded.unknown.push(event.uid.clone());
        return Ok(());
    };
    if event.at <= row.state_at {
        return Ok(());
    }
    set_withdrawn(conn, project, &event.uid, event.at, forget)?;
    if row.mine {
        return Ok(());
    }
    // A memory that is no longer stored has nothing to forget or restore.
    let Some(m) = super::get(conn, id, scope)? else {
        return Ok(());
    };
    if forget && m.forgotten_at.is_none() {
        write::forget_in(conn, tally, &m)?;
        folded.withdrawn.push(id);
    } else if !forget && m.forgotten_at.is_some() {
        // Restored only where that makes no second live copy of one text.
        let folded_hash = crate::text::duplicate::hash(&m.body);
        let repeated = m.superseded_by.is_none()
            && write::live_duplicate(conn, Some(project), &m.body, folded_hash, Some(id))?
                .is_some();
        if !repeated {
            let at = now();
            write::set_state(conn, tally, id, m.superseded_by, None, at)?;
            history::record(conn, id, at, Action::RestoreForget, None)?;
            folded.restored.push(id);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(uid: &str, at: i64, change: Change) -> Event {
        Event {
            uid: uid.into(),
            at,
            author: "Ann <ann@example.com>".into(),
            change,
        }
    }

    /// A teammate's memory that repeats a piece of a file here is bound to that piece; once the
    /// file drops the piece, a later event on the teammate's memory made the whole fold fail.
    #[test]
    fn a_shared_memory_whose_copy_here_was_deleted_never_fails_a_fold() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let text = "Deploys need two approvals";
        let piece = crate::store::spool::tests::fold_piece(&mut store, text);
        let share = |supersedes: Vec<String>| Change::Share {
            body: text.into(),
            supersedes,
        };
        let folded = store
            .fold_shared("p", vec![event("u1", 1_000_000, share(Vec::new()))])
            .unwrap();
        assert!(folded.added.is_empty(), "bound to the piece: {folded:?}");
        store
            .write(|conn| {
                let mut tally = Tally::default();
                write::delete(conn, &mut tally, piece)?;
                tally.write(conn)
            })
            .unwrap();
        let later = vec![
            event("u1", 2_000_000, Change::Forget),
            event("u2", 3_000_000, share(vec!["u1".into()])),
        ];
        store.fold_shared("p", later).unwrap();
        let live = store.list(&Scope::project("p"), false).unwrap();
        assert_eq!(live.len(), 1, "{live:?}");
        assert!(live[0].source.starts_with(SOURCE_PREFIX));
    }
}
