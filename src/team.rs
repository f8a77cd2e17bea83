//! Team memory through git: the shared file `.synapse/memories.jsonl` in a repository.
//!
//! The file is an append-only log of events, one JSON object a line (a memory shared, withdrawn
//! or shared again), each naming the memory by a stable id (a random UUID, the same on every
//! machine) with its author and time. Lines are only ever appended, never rewritten, so two
//! branches that both shared something merge by keeping both sides' new lines: the
//! `.gitattributes` beside it asks git for exactly that (`merge=union`). Union merging is safe
//! here because every line stands alone and folding does not depend on their order (see
//! `store::shared`); a line both sides added is folded once, by its id.
//!
//! Sharing is explicit (`synapse share`, or `share = true` in `.synapse/config.toml` for new
//! lessons); folding the file into the store is automatic at SessionStart, and an unchanged file
//! costs it a `stat` and the read of a small mark (`fold_if_changed`). This module reads and
//! writes the file; the store does the rest.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::store::shared::{Change, Event, Folded, MAX_SHARED_BYTES};
use crate::store::{Scope, Store};

/// The shared file, relative to the top of a checkout.
pub const FILE: &str = ".synapse/memories.jsonl";
/// The project's sharing settings, relative to the top of a checkout.
pub const SETTINGS: &str = ".synapse/config.toml";
/// What `.synapse/.gitattributes` says: merge the file by keeping both sides' lines.
const ATTRIBUTES: &str = "memories.jsonl merge=union\n";
/// The largest shared file a hook folds; a larger one waits for `synapse sync`. Bounds the
/// hook's work whatever a repository holds (about 10,000 lessons fit).
pub const HOOK_FOLD_BYTES: u64 = 8 << 20;
/// The largest shared file `synapse sync` (and `doctor`) reads: far past what a team shares,
/// short of what would strain the machine.
pub const SYNC_BYTES: u64 = 256 << 20;
/// The longest line read: a share of the largest body, escaped, with room for its fields.
const MAX_LINE: usize = 2 * MAX_SHARED_BYTES + 4096;
/// The longest author kept.
const MAX_AUTHOR: usize = 256;

/// One line of the file as written. Unknown fields are ignored, so a later Synapse can add some.
#[derive(Debug, Serialize, Deserialize)]
struct Line {
    /// `share`, `forget` or `restore`.
    event: String,
    id: String,
    /// RFC 3339, UTC.
    at: String,
    author: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    supersedes: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    body: Option<String>,
}

/// A shared file's size and modification time, as last folded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileState {
    pub path: String,
    pub size: i64,
    /// Nanoseconds since the epoch.
    pub modified: i64,
}

/// A line that was not folded, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// 1-based.
    pub line: usize,
    pub why: String,
}

/// The file as read: its events, the lines skipped, and its size and time.
#[derive(Debug)]
pub struct Reading {
    pub events: Vec<Event>,
    pub problems: Vec<Problem>,
    pub file: FileState,
}

/// The checkout of the git repository around `folder`, if any.
pub fn checkout(folder: &Path) -> Option<PathBuf> {
    let repo = git2::Repository::discover(folder).ok()?;
    repo.workdir().map(Path::to_path_buf)
}

/// The shared file of the checkout at `top`.
pub fn file_in(top: &Path) -> PathBuf {
    top.join(FILE)
}

/// The author of new events: `user.name <user.email>` from git's configuration.
pub fn author(top: &Path) -> String {
    let config = git2::Repository::open(top)
        .and_then(|r| r.config())
        .or_else(|_| git2::Config::open_default());
    let get = |key: &str| {
        config
            .as_ref()
            .ok()
            .and_then(|c| c.get_string(key).ok())
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    };
    match (get("user.name"), get("user.email")) {
        (Some(name), Some(email)) => format!("{name} <{email}>"),
        (Some(name), None) => name,
        (None, Some(email)) => format!("<{email}>"),
        (None, None) => "unknown".to_owned(),
    }
}

/// A new stable id.
pub fn new_uid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Whether the checkout at `top` shares new lessons (`share = true` in `.synapse/config.toml`).
pub fn shares_new(top: &Path) -> Result<bool> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Settings {
        #[serde(default)]
        share: bool,
    }
    let path = top.join(SETTINGS);
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(toml::from_str::<Settings>(&text)
            .with_context(|| format!("{} is not valid settings", path.display()))?
            .share),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e).with_context(|| format!("could not read {}", path.display())),
    }
}

/// The file's size and modification time, or `None` when there is no file.
fn state(path: &Path) -> Result<Option<FileState>> {
    match std::fs::metadata(path) {
        Ok(meta) => Ok(Some(FileState {
            path: path.display().to_string(),
            size: i64::try_from(meta.len()).unwrap_or(i64::MAX),
            modified: meta
                .mtime()
                .saturating_mul(1_000_000_000)
                .saturating_add(meta.mtime_nsec()),
        })),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("could not look at {}", path.display())),
    }
}

/// Read the shared file at `path`, up to `limit` bytes (a longer file is refused); `None` when
/// there is none. A line that is not a valid event is skipped and reported, never fatal.
pub fn read(path: &Path, limit: u64) -> Result<Option<Reading>> {
    let Some(file) = state(path)? else {
        return Ok(None);
    };
    if u64::try_from(file.size).unwrap_or(u64::MAX) > limit {
        bail!(
            "{} is {} bytes, more than {} MiB",
            path.display(),
            file.size,
            limit >> 20
        );
    }
    let opened =
        std::fs::File::open(path).with_context(|| format!("could not open {}", path.display()))?;
    let mut reader = BufReader::new(opened.take(limit));
    let mut events = Vec::new();
    let mut problems = Vec::new();
    let mut line = Vec::new();
    for number in 1.. {
        line.clear();
        let read = reader
            .by_ref()
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut line)
            .with_context(|| format!("could not read {}", path.display()))?;
        if read == 0 {
            break;
        }
        if line.len() > MAX_LINE && line.last() != Some(&b'\n') {
            reader
                .skip_until(b'\n')
                .with_context(|| format!("could not read {}", path.display()))?;
            problems.push(Problem {
                line: number,
                why: format!(
                    "longer than a shared memory may be ({} KiB)",
                    MAX_LINE >> 10
                ),
            });
            continue;
        }
        let Ok(text) = std::str::from_utf8(&line) else {
            problems.push(Problem {
                line: number,
                why: "not UTF-8".to_owned(),
            });
            continue;
        };
        if text.trim().is_empty() {
            continue;
        }
        match parse(text.trim()) {
            Ok(event) => events.push(event),
            Err(why) => problems.push(Problem { line: number, why }),
        }
    }
    Ok(Some(Reading {
        events,
        problems,
        file,
    }))
}

/// One line as an event, or why it is not one.
fn parse(text: &str) -> std::result::Result<Event, String> {
    let line: Line = serde_json::from_str(text).map_err(|e| format!("not an event: {e}"))?;
    if !is_stable_id(&line.id) {
        return Err(format!("{:?} is not a shared memory id", line.id));
    }
    let at = line
        .at
        .parse::<jiff::Timestamp>()
        .map_err(|_| format!("{:?} is not a time", line.at))?
        .as_microsecond();
    let author = line.author.trim();
    if author.is_empty() || author.len() > MAX_AUTHOR {
        return Err("the author is empty or too long".to_owned());
    }
    let change = match (line.event.as_str(), line.body) {
        ("share", Some(body)) => {
            if body.trim().is_empty() {
                return Err("the shared memory is empty".to_owned());
            }
            if body.len() > MAX_SHARED_BYTES {
                return Err(format!(
                    "the shared memory is {} bytes, more than {} KiB",
                    body.len(),
                    MAX_SHARED_BYTES >> 10
                ));
            }
            if let Some(bad) = line.supersedes.iter().find(|s| !is_stable_id(s)) {
                return Err(format!("{bad:?} is not a shared memory id"));
            }
            Change::Share {
                body,
                supersedes: line.supersedes,
            }
        }
        ("share", None) => return Err("a share without a body".to_owned()),
        ("forget", _) => Change::Forget,
        ("restore", _) => Change::Restore,
        (other, _) => return Err(format!("{other:?} is not an event Synapse knows")),
    };
    Ok(Event {
        uid: line.id,
        at,
        author: author.to_owned(),
        change,
    })
}

/// Whether `text` is a stable id: a UUID written as Synapse writes one (lowercase, hyphens),
/// so one memory never goes by two spellings.
fn is_stable_id(text: &str) -> bool {
    uuid::Uuid::try_parse(text).is_ok_and(|u| u.hyphenated().to_string() == text)
}

/// Append `events` to the shared file of the checkout at `top`, creating it (and the
/// `.gitattributes` that merges it by union) if needed. Each line is one write to a file opened
/// for appending, so lines of two processes never interleave.
pub fn append(top: &Path, events: &[Event]) -> Result<()> {
    let path = file_in(top);
    let folder = path.parent().unwrap_or(top);
    std::fs::create_dir_all(folder)
        .with_context(|| format!("could not create {}", folder.display()))?;
    let attributes = folder.join(".gitattributes");
    if !attributes.exists() {
        std::fs::write(&attributes, ATTRIBUTES)
            .with_context(|| format!("could not write {}", attributes.display()))?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .with_context(|| format!("could not open {}", path.display()))?;
    for event in events {
        let mut text = serde_json::to_string(&line_of(event))?;
        text.push('\n');
        file.write_all(text.as_bytes())
            .with_context(|| format!("could not write to {}", path.display()))?;
    }
    Ok(())
}

fn line_of(event: &Event) -> Line {
    let (name, supersedes, body) = match &event.change {
        Change::Share { body, supersedes } => ("share", supersedes.clone(), Some(body.clone())),
        Change::Forget => ("forget", Vec::new(), None),
        Change::Restore => ("restore", Vec::new(), None),
    };
    Line {
        event: name.to_owned(),
        id: event.uid.clone(),
        at: jiff::Timestamp::from_microsecond(event.at)
            .map_or_else(|_| event.at.to_string(), |t| t.to_string()),
        author: event.author.clone(),
        supersedes,
        body,
    }
}

/// What a fold did: the store's changes and the lines skipped.
#[derive(Debug, Default, Serialize)]
pub struct Synced {
    pub file: Option<String>,
    #[serde(flatten)]
    pub folded: Folded,
    pub skipped: Vec<Problem>,
}

/// Fold the shared file of the checkout at `top` into `scope`'s project, unless it is unchanged
/// since the last fold (a `stat` of it and a read of the small mark the last fold left in the data
/// folder: no SQL, so an unchanged file costs a hook next to nothing) or absent. `limit` bounds
/// the file's size (`HOOK_FOLD_BYTES` in a hook). `None` when nothing was read.
pub fn fold_if_changed(
    store: &mut Store,
    scope: &Scope,
    top: &Path,
    limit: u64,
) -> Result<Option<Synced>> {
    let Some(project) = scope.key() else {
        return Ok(None);
    };
    let path = file_in(top);
    let Some(now) = state(&path)? else {
        return Ok(None);
    };
    // Too large for a hook: `synapse sync` folds it, and `synapse doctor` says so.
    if u64::try_from(now.size).unwrap_or(u64::MAX) > limit {
        return Ok(None);
    }
    let mark = mark_of(store.dir(), project);
    if std::fs::read_to_string(&mark).is_ok_and(|text| text == mark_text(project, &now)) {
        return Ok(None);
    }
    fold(store, project, &path, limit).map(Some)
}

/// Fold the shared file at `path` into `project`, whatever was folded before, and leave the mark
/// that says so.
pub fn fold(store: &mut Store, project: &str, path: &Path, limit: u64) -> Result<Synced> {
    let Some(reading) = read(path, limit)? else {
        return Ok(Synced::default());
    };
    let folded = store.fold_shared(project, reading.events)?;
    let mut mark = crate::files::AtomicFile::create(&mark_of(store.dir(), project))?;
    mark.write_all(mark_text(project, &reading.file).as_bytes())?;
    mark.commit()?;
    Ok(Synced {
        file: Some(path.display().to_string()),
        folded,
        skipped: reading.problems,
    })
}

/// Where the data folder `data` marks `project`'s shared file as last folded: a file named by a
/// hash of the project key. Should the hash change with the Rust release, the marks are simply
/// not found and each file is folded once more, which changes nothing.
fn mark_of(data: &Path, project: &str) -> PathBuf {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::hash::DefaultHasher::new();
    project.hash(&mut hasher);
    data.join(format!("shared-{:016x}.state", hasher.finish()))
}

/// What a mark holds: the project (two keys may share a hash) and the file as folded.
fn mark_text(project: &str, file: &FileState) -> String {
    format!(
        "{project}\n{}\n{}\n{}\n",
        file.path, file.size, file.modified
    )
}

/// Share the memories `ids` of `scope` through the checkout at `top`; the events written (one
/// per memory not already shared).
pub fn share(
    store: &mut Store,
    scope: &Scope,
    top: &Path,
    ids: &[i64],
) -> Result<Vec<Option<Event>>> {
    let author = author(top);
    store.share(scope, ids, &author, new_uid, |events| append(top, events))
}

/// Withdraw the shared memory `id` of `scope` through the checkout at `top`.
pub fn unshare(store: &mut Store, scope: &Scope, top: &Path, id: i64) -> Result<Event> {
    let author = author(top);
    store.unshare(scope, id, &author, |event| {
        append(top, std::slice::from_ref(event))
    })
}

/// Share the new memory `id` when the checkout at `top` shares new lessons (`share = true` in
/// `.synapse/config.toml`); the event written, if any. A memory that may not be shared (a
/// secret, say) stays local: the error says why.
pub fn share_if_set(
    store: &mut Store,
    scope: &Scope,
    top: Option<&Path>,
    id: i64,
) -> Result<Option<Event>> {
    let Some(top) = top else {
        return Ok(None);
    };
    if !shares_new(top)? {
        return Ok(None);
    }
    Ok(share(store, scope, top, &[id])?
        .into_iter()
        .flatten()
        .next())
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    const ID: &str = "3f2504e0-4f89-41d3-9a0c-0305e82c3301";

    #[test]
    fn a_written_event_reads_back_the_same() {
        let event = Event {
            uid: ID.to_owned(),
            at: 1_764_600_000_123_456,
            author: "Ada <ada@example.com>".to_owned(),
            change: Change::Share {
                body: "line one\n\"quoted\" and ünïcode".to_owned(),
                supersedes: vec!["00000000-0000-4000-8000-000000000001".to_owned()],
            },
        };
        let text = serde_json::to_string(&line_of(&event)).unwrap();
        assert!(!text.contains('\n'));
        assert_eq!(parse(&text), Ok(event));
    }

    /// A share line of `event` for `id` at `at`.
    fn line(event: &str, id: &str, at: &str) -> String {
        format!(r#"{{"event":"{event}","id":"{id}","at":"{at}","author":"a","body":"b"}}"#)
    }

    const AT: &str = "2026-01-01T00:00:00Z";

    #[rstest]
    #[case::an_id_of_digits(line("share", "42", AT), "not a shared memory id")]
    #[case::an_upper_case_id(line("share", &ID.to_uppercase(), AT), "not a shared memory id")]
    #[case::a_word_for_a_time(line("share", ID, "yesterday"), "not a time")]
    #[case::an_unknown_event(line("merge", ID, AT), "not an event Synapse knows")]
    #[case::a_line_missing_its_fields(r#"{"event":"share","id":5}"#.to_owned(), "not an event")]
    #[case::a_share_without_a_body(
        format!(r#"{{"event":"share","id":"{ID}","at":"{AT}","author":"a"}}"#),
        "a share without a body"
    )]
    fn lines_that_are_not_events_say_why(#[case] text: String, #[case] why: &str) {
        let error = parse(&text).unwrap_err();
        assert!(error.contains(why), "{text}: {error}");
    }

    #[test]
    fn an_overlong_or_binary_line_is_skipped_and_the_next_one_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("memories.jsonl");
        let good =
            format!(r#"{{"event":"forget","id":"{ID}","at":"2026-01-01T00:00:00Z","author":"a"}}"#);
        let long = "x".repeat(MAX_LINE + 10);
        let mut bytes = format!("{long}\n{good}\n\n").into_bytes();
        bytes.extend_from_slice(b"\xff\xfe not text\n");
        bytes.extend_from_slice(good.as_bytes());
        std::fs::write(&path, bytes).unwrap();
        let reading = read(&path, 1 << 20).unwrap().unwrap();
        assert_eq!(reading.events.len(), 2);
        let skipped: Vec<(usize, &str)> = reading
            .problems
            .iter()
            .map(|p| (p.line, p.why.as_str()))
            .collect();
        assert_eq!(skipped.len(), 2, "{skipped:?}");
        assert_eq!(skipped[0].0, 1);
        assert_eq!(skipped[1], (4, "not UTF-8"));
        assert!(
            read(&path, 100).is_err(),
            "a file over the limit is refused"
        );
        assert!(read(&dir.path().join("none"), 100).unwrap().is_none());
    }

    #[test]
    fn the_source_names_the_author_without_the_email() {
        use crate::store::shared::source_of;
        assert_eq!(
            source_of("Ada Lovelace <ada@example.com>"),
            "shared by Ada Lovelace"
        );
        assert_eq!(source_of("<ada@example.com>"), "shared by a teammate");
        assert_eq!(source_of("ada"), "shared by ada");
    }
}
