//! The memory folder's topic files, looked at for a bounded cost however many there are.
//!
//! A folder's own modification time (and inode) changes when an entry is created, deleted or
//! renamed in it, and Claude Code writes a memory file by writing a new file and renaming it over
//! the old one (measured: docs/claude-code.md). So an unchanged folder is not listed at all; a
//! changed one is listed by names and inodes, without a `stat` per entry, and only the entries
//! whose inode the store does not know are stat'ed (a bounded number per refresh; the listing is
//! recorded as done once all were). An edit in place keeps the inode and the folder's time, so
//! the known files are also re-checked a bounded number per refresh, in rotation by id. New and
//! changed files are read newest first; those the limits leave wait in the store, oldest last.

use std::collections::{HashMap, HashSet};
use std::os::unix::fs::{DirEntryExt, MetadataExt};
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::Result;

use super::find::Candidate;
use super::walk::{Stat, Walk};
use crate::store::sources::{Folder, Kind, SourceFile};
use crate::store::Store;

/// The auto memory's index file, which the client loads into every session (`find` looks at it
/// with the files found by their names).
pub(super) const INDEX: &str = "MEMORY.md";

/// A folder changed this recently may change again within the same tick of the file system's
/// clock, which its time would not show: its listing is not recorded as done until it is older.
const SETTLED: Duration = Duration::from_secs(2);

/// A topic file that may be read: found as `stat`, known as `before`.
struct Offer {
    path: String,
    stat: Stat,
    before: Option<SourceFile>,
}

/// Look at the memory folder of `walk`'s project: list it if it changed, re-check known files in
/// rotation, and read what changed and what waits, newest first, within the limits.
pub(super) fn topics(store: &Store, walk: &mut Walk) -> Result<()> {
    let Some(project) = walk.place.project.clone() else {
        return Ok(());
    };
    let folder = walk.place.client.memory.clone();
    let key = folder.to_string_lossy().into_owned();
    let Some(meta) = std::fs::metadata(&folder).ok().filter(|m| m.is_dir()) else {
        // No folder: its files went with it, a bounded number at a time.
        for row in store.some_topic_files(&project, walk.limits.looks)? {
            walk.fold.gone.push(row);
        }
        return Ok(());
    };
    let stamp = Folder {
        modified: meta
            .mtime()
            .saturating_mul(1_000_000_000)
            .saturating_add(meta.mtime_nsec()),
        ino: i64::try_from(meta.ino()).unwrap_or(i64::MAX),
        cursor: 0,
    };
    let stored = store.source_folder(&project, &key)?;
    let mut offers = Vec::new();
    let mut handled: HashSet<String> = HashSet::new();
    let listed = stored
        .as_ref()
        .is_some_and(|f| (f.modified, f.ino) == (stamp.modified, stamp.ino));
    if !listed {
        let started = SystemTime::now();
        let done = list(store, walk, &project, &folder, &mut offers, &mut handled)?;
        if done && settled(stamp.modified, started) {
            walk.fold.listed = Some((project.clone(), key.clone(), stamp));
        }
    }
    // In rotation: the next known files after where the last refresh stopped.
    let cursor = stored.map_or(0, |f| f.cursor);
    let rows = store.topic_files_after(&project, cursor, walk.limits.checks)?;
    let next = match rows.last() {
        Some(last) if rows.len() >= walk.limits.checks => last.id,
        _ => 0,
    };
    if next != cursor {
        walk.fold.cursor = Some((project.clone(), key, next));
    }
    // A known file is offered again if it is there, and goes if not.
    let mut look_again = |row: SourceFile, walk: &mut Walk| match Stat::of(Path::new(&row.path)) {
        None => walk.fold.gone.push(row),
        Some(stat) => offers.push(Offer {
            path: row.path.clone(),
            stat,
            before: Some(row),
        }),
    };
    for row in rows {
        if !handled.contains(&row.path) {
            look_again(row, walk);
        }
    }
    // Files found earlier and not read yet, newest first, as many as may still be read.
    for row in store.waiting_files(&project, walk.reads_left)? {
        if handled.insert(row.path.clone()) {
            look_again(row, walk);
        }
    }
    offers.sort_by_key(|o| std::cmp::Reverse(o.stat.modified));
    for offer in offers {
        let candidate = Candidate {
            path: offer.path.into(),
            kind: Kind::Topic,
            project: Some(project.clone()),
            dir: None,
            via: None,
            depth: 0,
        };
        walk.look(&candidate, offer.stat, offer.before.as_ref());
    }
    Ok(())
}

/// List the folder by names and inodes and compare it with the store: entries the store does
/// not know (by name and inode) are stat'ed and offered, rows without an entry are gone; at most
/// `Limits::looks` of them. Whether the whole listing was dealt with.
fn list(
    store: &Store,
    walk: &mut Walk,
    project: &str,
    folder: &Path,
    offers: &mut Vec<Offer>,
    handled: &mut HashSet<String>,
) -> Result<bool> {
    let mut entries: Vec<(String, i64)> = Vec::new();
    let mut whole = true;
    for entry in std::fs::read_dir(folder)?.flatten() {
        if entries.len() >= walk.limits.listed {
            whole = false;
            walk.left.unlisted = true;
            break;
        }
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        if !name.ends_with(".md") || name == INDEX || entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let path = folder.join(name).to_string_lossy().into_owned();
        entries.push((path, i64::try_from(entry.ino()).unwrap_or(i64::MAX)));
    }
    let known = store.topic_inodes(project)?;
    let mut looks = walk.limits.looks;
    let mut done = whole;
    if whole {
        let there: HashSet<&str> = entries.iter().map(|(p, _)| p.as_str()).collect();
        let mut gone = Vec::new();
        for (path, &(id, _)) in known.iter().filter(|(p, _)| !there.contains(p.as_str())) {
            if looks == 0 {
                done = false;
                break;
            }
            looks -= 1;
            handled.insert(path.clone());
            gone.push(id);
        }
        walk.fold.gone.extend(store.source_files_by_id(&gone)?);
    }
    // Entries the store does not know by name and inode: new, or replaced (a rename over them).
    let mut changed = Vec::new();
    let mut unlooked = 0;
    for (path, ino) in &entries {
        let before = known.get(path.as_str());
        if before.is_some_and(|&(_, known)| known == *ino) {
            continue;
        }
        if looks == 0 {
            unlooked += 1;
            continue;
        }
        looks -= 1;
        handled.insert(path.clone());
        changed.push((path, before.map(|&(id, _)| id)));
    }
    let ids: Vec<i64> = changed.iter().filter_map(|(_, id)| *id).collect();
    let rows: HashMap<i64, SourceFile> = store
        .source_files_by_id(&ids)?
        .into_iter()
        .map(|f| (f.id, f))
        .collect();
    for (path, id) in changed {
        let Some(stat) = Stat::of(Path::new(path)) else {
            continue;
        };
        offers.push(Offer {
            path: path.clone(),
            stat,
            before: id.and_then(|id| rows.get(&id).cloned()),
        });
    }
    if unlooked > 0 {
        done = false;
        walk.left.waiting += unlooked;
    }
    Ok(done)
}

/// Whether a folder last changed at `modified` (nanoseconds) had settled by `now`.
fn settled(modified: i64, now: SystemTime) -> bool {
    let now = now
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
    let margin = i64::try_from(SETTLED.as_nanos()).unwrap_or(i64::MAX);
    now.saturating_sub(modified) > margin
}
