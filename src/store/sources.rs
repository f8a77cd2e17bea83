//! Source files in the store: which files of Claude Code's own memory were folded, as what, at
//! which size and time, and which memories hold their pieces (see `crate::sources` for finding
//! and reading them).
//!
//! A fold runs in one write transaction and changes a file's memories only when the file's row
//! still holds the size and time the folding process saw before it read the file: two sessions
//! that both notice an edit fold it once, and one that read an older version never overwrites a
//! newer fold. Pieces whose text did not change keep their memory (its id, its age, whether it
//! was forgotten or superseded); a piece the file no longer holds is deleted, since the file is
//! the record and the memory only its copy.
//!
//! A row with a negative size is a file found and not read yet (a hook reads a bounded number
//! of files, newest first): `modified` is then the file's modification time, by which the
//! waiting files are taken. A folder's row (`source_folders`) says when its listing was last
//! recorded whole, so that a hook lists it again only once it changed.

use std::collections::HashMap;

use anyhow::{Context, Result};
use rusqlite::{Connection, OptionalExtension};
use serde::Serialize;

use super::history::Action;
use super::index::{self, Tally};
use super::write::{self, NewMemory};
use super::{Scope, Store};

/// What a source file is to Claude Code, which decides whether the client loads it itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// `CLAUDE.md`, `CLAUDE.local.md`, `.claude/CLAUDE.md`, and rules without `paths:`: loaded
    /// whenever the session works at or below the file's `dir`.
    Instructions,
    /// The auto memory's `MEMORY.md`: loaded into every session.
    Index,
    /// A topic file of the auto memory: read only when the model asks for it.
    Topic,
    /// A rule with `paths:`: shown only beside a matching file the model reads.
    Rule,
    /// `AGENTS.md`: loaded only where no `CLAUDE.md` stands beside it.
    Agents,
    /// A file named by an `@path` import and by nothing else: loaded with the file importing it,
    /// where the client follows the import (`sources::Known`).
    Import,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Instructions => "instructions",
            Kind::Index => "index",
            Kind::Topic => "topic",
            Kind::Rule => "rule",
            Kind::Agents => "agents",
            Kind::Import => "import",
        }
    }

    fn parse(text: &str) -> Kind {
        match text {
            "index" => Kind::Index,
            "topic" => Kind::Topic,
            "rule" => Kind::Rule,
            "agents" => Kind::Agents,
            "import" => Kind::Import,
            _ => Kind::Instructions,
        }
    }
}

/// A source file as the store knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// 0 for a file not folded yet.
    pub id: i64,
    /// The scope its memories belong to (`None`: global, like the user's own `CLAUDE.md`).
    pub project: Option<String>,
    /// Absolute.
    pub path: String,
    pub kind: Kind,
    /// How it is named to people: relative to the project, or `~/`-relative.
    pub shown: String,
    /// The folder at or below which Claude Code loads the file itself, if it does.
    pub dir: Option<String>,
    /// A rule's `paths:` globs.
    pub globs: Vec<String>,
    /// Bytes, as last folded; negative for a file found and not read yet.
    pub size: i64,
    /// Nanoseconds since the epoch, as last folded (or found, for a file not read yet).
    pub modified: i64,
    /// The file's inode, as last folded or found (0: not known).
    pub ino: i64,
    /// The files it imports, absolute, as its text names them (existing or not).
    pub imports: Vec<String>,
    /// The importing file, or the linked folder, it was reached through: `None` for a file found
    /// by its own name.
    pub via: Option<String>,
    /// The bytes read when its fold stopped short of its end (a hook's limit); 0 when whole.
    pub cut: i64,
    /// Why the file gave no memories, or fewer than it holds.
    pub problem: Option<String>,
}

impl SourceFile {
    /// Whether the file was found and not read yet.
    pub fn waiting(&self) -> bool {
        self.size < 0
    }
}

/// One piece of a file, about to be folded as a memory.
#[derive(Clone, Debug)]
pub struct Piece {
    /// 1-based line of the file.
    pub line: i64,
    pub text: String,
    /// The memory's source label (`CLAUDE.md:42`, `memory/deploy.md`).
    pub label: String,
    /// When it was written, in seconds, when the file says so (a topic file's frontmatter
    /// `modified`); else the file's modification time.
    pub written: Option<i64>,
}

/// A file read for a fold: the file as it is now, what the folding process saw in the store
/// before it read it (`None`: no row), and its pieces.
#[derive(Debug)]
pub struct FileRead {
    pub file: SourceFile,
    pub seen: Option<(i64, i64)>,
    pub pieces: Vec<Piece>,
}

/// A folder as last listed whole: its modification time and inode, and where the re-check of
/// its files in rotation stands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Folder {
    pub modified: i64,
    pub ino: i64,
    /// The last source id re-checked; 0 to start over.
    pub cursor: i64,
}

/// Everything one refresh changes, written in one transaction (`Store::fold_sources`).
#[derive(Debug, Default)]
pub struct Fold {
    /// Files read, to fold.
    pub reads: Vec<FileRead>,
    /// Files no longer there (or no longer reached), as the caller saw them.
    pub gone: Vec<SourceFile>,
    /// Files found and not read (for the limits): a new row, or a known file's row marked
    /// changed, each with what the caller saw of it (`None`: no row).
    pub waiting: Vec<(SourceFile, Option<(i64, i64)>)>,
    /// Known files found unchanged whose row lacks their inode: `(row, inode)`.
    pub restamped: Vec<(SourceFile, i64)>,
    /// A folder of `project` listed whole: its path and stamp.
    pub listed: Option<(String, String, Folder)>,
    /// Where the rotation over a folder's files stands: `(project, folder, cursor)`.
    pub cursor: Option<(String, String, i64)>,
}

impl Fold {
    /// Whether the fold only moves a rotation's cursor.
    fn only_cursor(&self) -> bool {
        self.cursor.is_some()
            && self.reads.is_empty()
            && self.gone.is_empty()
            && self.waiting.is_empty()
            && self.restamped.is_empty()
            && self.listed.is_none()
    }

    fn is_empty(&self) -> bool {
        self.reads.is_empty()
            && self.gone.is_empty()
            && self.waiting.is_empty()
            && self.restamped.is_empty()
            && self.listed.is_none()
            && self.cursor.is_none()
    }
}

/// What one fold changed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Folded {
    /// Files whose memories were replaced.
    pub files: usize,
    /// Files gone, with their memories.
    pub gone: usize,
    pub added: usize,
    pub removed: usize,
}

/// Where a memory copied from a source file comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    pub source: i64,
    pub line: i64,
}

/// How many of a scope's source files wait to be read, were cut, or could not be read.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Backlog {
    /// Files found and not read yet.
    pub waiting: usize,
    /// Files folded only up to a limit.
    pub cut: usize,
    /// Files that gave no memories, or fewer than they hold, and why (`SourceFile::problem`).
    pub problems: usize,
}

impl SourceFile {
    fn from_row(r: &rusqlite::Row) -> rusqlite::Result<SourceFile> {
        let lines = |text: Option<String>| -> Vec<String> {
            text.map(|t| t.lines().map(str::to_owned).collect())
                .unwrap_or_default()
        };
        Ok(SourceFile {
            id: r.get(0)?,
            project: r.get(1)?,
            path: r.get(2)?,
            kind: Kind::parse(&r.get::<_, String>(3)?),
            shown: r.get(4)?,
            dir: r.get(5)?,
            globs: lines(r.get(6)?),
            size: r.get(7)?,
            modified: r.get(8)?,
            ino: r.get(9)?,
            imports: lines(r.get(10)?),
            via: r.get(11)?,
            cut: r.get(12)?,
            problem: r.get(13)?,
        })
    }
}

const FILE_COLUMNS: &str =
    "id, project, path, kind, shown, dir, globs, size, modified, ino, imports, via, cut, problem";

/// The kinds of file whose rows a session reads whole at every refresh: all but topic files,
/// which are many and looked at a bounded number at a time.
const KINDS_READ_WHOLE: &str = "('instructions', 'index', 'rule', 'agents', 'import')";

impl Store {
    /// The source files folded into `scope`, and the global ones (the user's), by path: every
    /// kind but topic files (`topic_files` and the rotation read those).
    pub fn source_files(&self, scope: &Scope) -> Result<Vec<SourceFile>> {
        let mut stmt = self.conn().prepare_cached(&format!(
            "SELECT {FILE_COLUMNS} FROM sources WHERE (project IS NULL OR project = ?1) \
             AND kind IN {KINDS_READ_WHOLE} ORDER BY path"
        ))?;
        let rows = stmt.query_map([scope.key()], SourceFile::from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Every source file folded into `scope`, and the global ones, topic files too: for an audit
    /// of the whole scope.
    pub fn all_source_files(&self, scope: &Scope) -> Result<Vec<SourceFile>> {
        let mut stmt = self.conn().prepare_cached(&format!(
            "SELECT {FILE_COLUMNS} FROM sources WHERE project IS NULL OR project = ?1 ORDER BY path"
        ))?;
        let rows = stmt.query_map([scope.key()], SourceFile::from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The rows of the source file at the absolute path `path`, in every scope that folded it.
    pub fn source_files_at(&self, path: &str) -> Result<Vec<SourceFile>> {
        let mut stmt = self.conn().prepare_cached(&format!(
            "SELECT {FILE_COLUMNS} FROM sources WHERE path = ?1 ORDER BY id"
        ))?;
        let rows = stmt.query_map([path], SourceFile::from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The source files with the ids `ids` (those that exist).
    pub fn source_files_by_id(&self, ids: &[i64]) -> Result<Vec<SourceFile>> {
        let mut stmt = self
            .conn()
            .prepare_cached(&format!("SELECT {FILE_COLUMNS} FROM sources WHERE id = ?1"))?;
        let mut found = Vec::new();
        for &id in ids {
            if let Some(file) = stmt.query_row([id], SourceFile::from_row).optional()? {
                found.push(file);
            }
        }
        Ok(found)
    }

    /// Every topic file of `project` (waiting ones too), by path: its id and inode, all a
    /// folder's listing is compared with.
    pub fn topic_inodes(&self, project: &str) -> Result<HashMap<String, (i64, i64)>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT path, id, ino FROM sources WHERE project = ?1 AND kind = 'topic'",
        )?;
        let rows = stmt.query_map([project], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The next `count` folded topic files of `project` after the id `after`, by id: the
    /// rotation that re-checks known files a bounded number at a time.
    pub fn topic_files_after(
        &self,
        project: &str,
        after: i64,
        count: usize,
    ) -> Result<Vec<SourceFile>> {
        let mut stmt = self.conn().prepare_cached(&format!(
            "SELECT {FILE_COLUMNS} FROM sources WHERE project = ?1 AND kind = 'topic' \
             AND id > ?2 AND size >= 0 ORDER BY id LIMIT ?3"
        ))?;
        let count = i64::try_from(count).unwrap_or(i64::MAX);
        let rows = stmt.query_map(rusqlite::params![project, after, count], |r| {
            SourceFile::from_row(r)
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Up to `count` topic files of `project`, waiting ones too.
    pub fn some_topic_files(&self, project: &str, count: usize) -> Result<Vec<SourceFile>> {
        let mut stmt = self.conn().prepare_cached(&format!(
            "SELECT {FILE_COLUMNS} FROM sources WHERE project = ?1 AND kind = 'topic' LIMIT ?2"
        ))?;
        let count = i64::try_from(count).unwrap_or(i64::MAX);
        let rows = stmt.query_map(rusqlite::params![project, count], SourceFile::from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The `count` newest topic files of `project` found and not read yet.
    pub fn waiting_files(&self, project: &str, count: usize) -> Result<Vec<SourceFile>> {
        let mut stmt = self.conn().prepare_cached(&format!(
            "SELECT {FILE_COLUMNS} FROM sources WHERE project = ?1 AND size < 0 \
             AND kind = 'topic' ORDER BY modified DESC LIMIT ?2"
        ))?;
        let count = i64::try_from(count).unwrap_or(i64::MAX);
        let rows = stmt.query_map(rusqlite::params![project, count], SourceFile::from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Up to `count` source files of `scope` of any kind, the user's global ones too: what a
    /// fold takes out, a bounded number at a time, when reading them is turned off.
    pub fn some_source_files(&self, scope: &Scope, count: usize) -> Result<Vec<SourceFile>> {
        let mut stmt = self.conn().prepare_cached(&format!(
            "SELECT {FILE_COLUMNS} FROM sources WHERE project IS NULL OR project = ?1 LIMIT ?2"
        ))?;
        let count = i64::try_from(count).unwrap_or(i64::MAX);
        let rows = stmt.query_map(rusqlite::params![scope.key(), count], SourceFile::from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// How many source files `scope` sees (its own and the global ones), every kind.
    pub fn count_source_files(&self, scope: &Scope) -> Result<usize> {
        let n: i64 = self
            .conn()
            .prepare_cached("SELECT count(*) FROM sources WHERE project IS NULL OR project = ?1")?
            .query_row([scope.key()], |r| r.get(0))?;
        Ok(usize::try_from(n).unwrap_or(0))
    }

    /// How many of `scope`'s source files wait, were cut, or could not be read.
    pub fn source_backlog(&self, scope: &Scope) -> Result<Backlog> {
        let count = |sql: &str| -> Result<usize> {
            let n: i64 = self
                .conn()
                .prepare_cached(sql)?
                .query_row([scope.key()], |r| r.get(0))?;
            Ok(usize::try_from(n).unwrap_or(0))
        };
        Ok(Backlog {
            waiting: count(
                "SELECT count(*) FROM sources WHERE (project IS NULL OR project = ?1) \
                 AND size < 0",
            )?,
            cut: count(
                "SELECT count(*) FROM sources WHERE (project IS NULL OR project = ?1) \
                 AND (cut > 0 OR problem IS NOT NULL) AND cut > 0",
            )?,
            problems: count(
                "SELECT count(*) FROM sources WHERE (project IS NULL OR project = ?1) \
                 AND (cut > 0 OR problem IS NOT NULL) AND problem IS NOT NULL",
            )?,
        })
    }

    /// The source files of `scope` that were cut or could not be read (or gave fewer memories
    /// than they hold), by path.
    pub fn source_problems(&self, scope: &Scope) -> Result<Vec<SourceFile>> {
        let mut stmt = self.conn().prepare_cached(&format!(
            "SELECT {FILE_COLUMNS} FROM sources WHERE (project IS NULL OR project = ?1) \
             AND (cut > 0 OR problem IS NOT NULL) ORDER BY path"
        ))?;
        let rows = stmt.query_map([scope.key()], SourceFile::from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The folder `path` of `project` as last listed whole, if it was.
    pub fn source_folder(&self, project: &str, path: &str) -> Result<Option<Folder>> {
        Ok(self
            .conn()
            .prepare_cached(
                "SELECT modified, ino, cursor FROM source_folders WHERE project = ?1 AND path = ?2",
            )?
            .query_row([project, path], |r| {
                Ok(Folder {
                    modified: r.get(0)?,
                    ino: r.get(1)?,
                    cursor: r.get(2)?,
                })
            })
            .optional()?)
    }

    /// Fold what `fold` holds, in one transaction. A file whose row changed since the caller
    /// saw it is left as it is.
    pub fn fold_sources(&mut self, fold: Fold) -> Result<Folded> {
        if fold.is_empty() {
            return Ok(Folded::default());
        }
        if let (true, Some((project, path, cursor))) = (fold.only_cursor(), &fold.cursor) {
            self.move_cursor(project, path, *cursor)?;
            return Ok(Folded::default());
        }
        self.write(|conn| {
            let mut tally = Tally::default();
            let mut folded = Folded::default();
            for file in &fold.gone {
                let seen = Some((file.size, file.modified));
                let Some(id) = row_if_unchanged(conn, file, seen)? else {
                    continue;
                };
                folded.removed += remove_file(conn, &mut tally, id)?;
                folded.gone += 1;
            }
            for read in fold.reads {
                let Some(id) = row_if_unchanged(conn, &read.file, read.seen)? else {
                    continue;
                };
                let (added, removed) = fold_file(conn, &mut tally, id, read)?;
                folded.files += 1;
                folded.added += added;
                folded.removed += removed;
            }
            for (file, seen) in &fold.waiting {
                if let Some(id) = row_if_unchanged(conn, file, *seen)? {
                    conn.prepare_cached(
                        "UPDATE sources SET size = -1, modified = ?2, ino = ?3 WHERE id = ?1",
                    )?
                    .execute(rusqlite::params![
                        id,
                        file.modified,
                        file.ino
                    ])?;
                }
            }
            for (file, ino) in &fold.restamped {
                conn.prepare_cached(
                    "UPDATE sources SET ino = ?2 WHERE id = ?1 AND size = ?3 AND modified = ?4",
                )?
                .execute(rusqlite::params![
                    file.id,
                    ino,
                    file.size,
                    file.modified
                ])?;
            }
            if let Some((project, path, folder)) = &fold.listed {
                conn.prepare_cached(
                    "INSERT INTO source_folders(project, path, modified, ino) \
                     VALUES (?1, ?2, ?3, ?4) ON CONFLICT(project, path) \
                     DO UPDATE SET modified = ?3, ino = ?4",
                )?
                .execute(rusqlite::params![
                    project,
                    path,
                    folder.modified,
                    folder.ino
                ])?;
            }
            if let Some((project, path, cursor)) = &fold.cursor {
                conn.prepare_cached(
                    "INSERT INTO source_folders(project, path, modified, ino, cursor) \
                     VALUES (?1, ?2, -1, 0, ?3) ON CONFLICT(project, path) \
                     DO UPDATE SET cursor = ?3",
                )?
                .execute(rusqlite::params![project, path, cursor])?;
            }
            tally.write(conn)?;
            Ok(folded)
        })
    }

    /// Record where the rotation over the folder `path` of `project` stands, unless the store
    /// is busy: a rotation's place is not worth a wait (nor the spool's drain), and the next
    /// refresh re-checks the same files if it stays.
    fn move_cursor(&mut self, project: &str, path: &str, cursor: i64) -> Result<()> {
        let conn = self.conn();
        let waits: i64 = conn.pragma_query_value(None, "busy_timeout", |r| r.get(0))?;
        conn.busy_timeout(std::time::Duration::ZERO)?;
        let moved = conn
            .prepare_cached(
                "INSERT INTO source_folders(project, path, modified, ino, cursor) \
                 VALUES (?1, ?2, -1, 0, ?3) ON CONFLICT(project, path) DO UPDATE SET cursor = ?3",
            )
            .and_then(|mut stmt| stmt.execute(rusqlite::params![project, path, cursor]));
        conn.busy_timeout(std::time::Duration::from_millis(
            u64::try_from(waits).unwrap_or(0),
        ))?;
        match moved {
            Err(e) if super::is_busy_error(&e) => Ok(()),
            other => other
                .map(drop)
                .context("could not record where the files' re-check stands"),
        }
    }

    /// Where each of `ids` that is a copy of a source file's piece comes from.
    pub fn origins(&self, ids: &[i64]) -> Result<HashMap<i64, Origin>> {
        let mut stmt = self
            .conn()
            .prepare_cached("SELECT source_id, line FROM sourced WHERE memory_id = ?1")?;
        let mut found = HashMap::new();
        for &id in ids {
            if let Some((source, line)) = stmt
                .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?
            {
                found.insert(id, Origin { source, line });
            }
        }
        Ok(found)
    }

    /// Where every memory copied from a source file `scope` sees (its own and the global ones)
    /// comes from: one query, for an audit of the whole scope.
    pub fn origins_in(&self, scope: &Scope) -> Result<HashMap<i64, Origin>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT s.memory_id, s.source_id, s.line FROM sourced s \
             JOIN sources f ON f.id = s.source_id WHERE f.project IS NULL OR f.project = ?1",
        )?;
        let rows = stmt.query_map([scope.key()], |r| {
            Ok((
                r.get(0)?,
                Origin {
                    source: r.get(1)?,
                    line: r.get(2)?,
                },
            ))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The live memories of the source file `source`, in the file's order.
    pub fn memories_of_source(&self, source: i64) -> Result<Vec<i64>> {
        self.memories_of_source_through(source, i64::MAX)
    }

    /// `memories_of_source`, only those starting at or before line `last`.
    pub fn memories_of_source_through(&self, source: i64, last: i64) -> Result<Vec<i64>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT s.memory_id FROM sourced s JOIN memories m ON m.id = s.memory_id \
             WHERE s.source_id = ?1 AND s.line <= ?2 \
             AND m.superseded_by IS NULL AND m.forgotten_at IS NULL ORDER BY s.line",
        )?;
        let rows = stmt.query_map([source, last], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The folded-text hashes (`text::duplicate::hash`) of the live memories of the files
    /// `sources`, each with its memory and where it comes from.
    pub fn source_hashes(&self, sources: &[i64]) -> Result<HashMap<i64, (i64, i64, i64)>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT coalesce(m.folded, 0), m.id, s.line FROM sourced s \
             JOIN memories m ON m.id = s.memory_id \
             WHERE s.source_id = ?1 AND m.superseded_by IS NULL AND m.forgotten_at IS NULL",
        )?;
        let mut found = HashMap::new();
        for &source in sources {
            let rows = stmt.query_map([source], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, i64>(2)?,
                ))
            })?;
            for row in rows {
                let (folded, id, line) = row?;
                found.entry(folded).or_insert((id, source, line));
            }
        }
        Ok(found)
    }
}

/// The id of `file`'s row if it still holds the size and time `seen` (no row when `seen` is
/// `None`); a new file gets its row here. `None` when another process folded it meanwhile.
fn row_if_unchanged(
    conn: &Connection,
    file: &SourceFile,
    seen: Option<(i64, i64)>,
) -> Result<Option<i64>> {
    let now: Option<(i64, i64, i64)> = conn
        .prepare_cached(
            "SELECT id, size, modified FROM sources WHERE path = ?1 AND ifnull(project, '') = ?2",
        )?
        .query_row(
            rusqlite::params![file.path, file.project.as_deref().unwrap_or("")],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
    match (now, seen) {
        (Some((id, size, modified)), Some(seen)) if (size, modified) == seen => Ok(Some(id)),
        (None, None) => {
            conn.prepare_cached(
                "INSERT INTO sources(project, path, kind, shown, size, modified) \
                 VALUES (?1, ?2, ?3, ?4, -1, -1)",
            )?
            .execute(rusqlite::params![
                file.project,
                file.path,
                file.kind.as_str(),
                file.shown
            ])?;
            Ok(Some(conn.last_insert_rowid()))
        }
        _ => Ok(None),
    }
}

/// One stored piece of a file: its memory, text and label.
struct Stored {
    id: i64,
    body: String,
    label: String,
}

/// Replace the memories of the file `id` by `read`'s pieces, keeping those whose text is
/// unchanged; returns how many were added and removed.
fn fold_file(
    conn: &Connection,
    tally: &mut Tally,
    id: i64,
    read: FileRead,
) -> Result<(usize, usize)> {
    let file = &read.file;
    let mut stored: HashMap<String, Vec<Stored>> = HashMap::new();
    {
        let mut stmt = conn.prepare_cached(
            "SELECT m.id, m.body, m.source FROM sourced s JOIN memories m ON m.id = s.memory_id \
             WHERE s.source_id = ?1 ORDER BY s.line DESC",
        )?;
        let rows = stmt.query_map([id], |r| {
            Ok(Stored {
                id: r.get(0)?,
                body: r.get(1)?,
                label: r.get(2)?,
            })
        })?;
        for row in rows {
            let row = row?;
            stored.entry(row.body.clone()).or_default().push(row);
        }
    }
    let created = file.modified.div_euclid(1_000_000_000);
    let mut added = 0;
    for piece in read.pieces {
        let masked = crate::secrets::mask(&piece.text).text;
        if let Some(kept) = stored.get_mut(&masked).and_then(Vec::pop) {
            if kept.label != piece.label {
                relabel(conn, tally, kept.id, &piece.label)?;
            }
            set_origin(conn, kept.id, id, piece.line)?;
            continue;
        }
        let memory = NewMemory {
            body: piece.text,
            source: piece.label,
            project: file.project.clone(),
            created_at: Some(piece.written.unwrap_or(created)),
            ..NewMemory::default()
        };
        let (new, _) = write::store_copy(conn, tally, &memory, Action::Source)
            .with_context(|| format!("could not fold line {} of {}", piece.line, file.path))?;
        set_origin(conn, new, id, piece.line)?;
        added += 1;
    }
    let mut removed = 0;
    for old in stored.into_values().flatten() {
        write::delete(conn, tally, old.id)?;
        conn.prepare_cached("DELETE FROM sourced WHERE memory_id = ?1")?
            .execute([old.id])?;
        removed += 1;
    }
    let lines = |items: &[String]| (!items.is_empty()).then(|| items.join("\n"));
    conn.prepare_cached(
        "UPDATE sources SET kind = ?2, shown = ?3, dir = ?4, globs = ?5, size = ?6, \
         modified = ?7, ino = ?8, imports = ?9, via = ?10, cut = ?11, problem = ?12 \
         WHERE id = ?1",
    )?
    .execute(rusqlite::params![
        id,
        file.kind.as_str(),
        file.shown,
        file.dir,
        lines(&file.globs),
        file.size,
        file.modified,
        file.ino,
        lines(&file.imports),
        file.via,
        file.cut,
        file.problem,
    ])?;
    Ok((added, removed))
}

/// Delete the file `id`'s row and memories; returns how many memories went.
fn remove_file(conn: &Connection, tally: &mut Tally, id: i64) -> Result<usize> {
    let ids: Vec<i64> = conn
        .prepare_cached("SELECT memory_id FROM sourced WHERE source_id = ?1")?
        .query_map([id], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for &memory in &ids {
        write::delete(conn, tally, memory)?;
    }
    conn.prepare_cached("DELETE FROM sourced WHERE source_id = ?1")?
        .execute([id])?;
    conn.prepare_cached("DELETE FROM sources WHERE id = ?1")?
        .execute([id])?;
    Ok(ids.len())
}

fn set_origin(conn: &Connection, memory: i64, source: i64, line: i64) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO sourced(memory_id, source_id, line) VALUES (?1, ?2, ?3) \
         ON CONFLICT(memory_id) DO UPDATE SET source_id = ?2, line = ?3",
    )?
    .execute(rusqlite::params![memory, source, line])?;
    Ok(())
}

/// Give a kept piece the label of its new line, in its row and (when live) its index entry,
/// which holds the label.
fn relabel(conn: &Connection, tally: &mut Tally, id: i64, label: &str) -> Result<()> {
    let row = write::IndexedRow::read(conn, id)?;
    if row.live {
        let entry = row.entry();
        index::remove(conn, tally, &entry)?;
        let relabelled = index::Indexed {
            source: label,
            ..entry
        };
        index::add(conn, tally, &relabelled)?;
    }
    conn.prepare_cached("UPDATE memories SET source = ?2 WHERE id = ?1")?
        .execute(rusqlite::params![id, label])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(size: i64, modified: i64) -> SourceFile {
        SourceFile {
            id: 0,
            project: Some("/p".into()),
            path: "/p/CLAUDE.md".into(),
            kind: Kind::Instructions,
            shown: "CLAUDE.md".into(),
            dir: Some("/p".into()),
            globs: Vec::new(),
            size,
            modified,
            ino: 0,
            imports: Vec::new(),
            via: None,
            cut: 0,
            problem: None,
        }
    }

    fn reads(reads: Vec<FileRead>) -> Fold {
        Fold {
            reads,
            ..Fold::default()
        }
    }

    fn read(size: i64, seen: Option<(i64, i64)>, texts: &[&str]) -> FileRead {
        FileRead {
            file: file(size, size),
            seen,
            pieces: texts
                .iter()
                .enumerate()
                .map(|(n, t)| Piece {
                    line: n as i64 + 1,
                    text: (*t).to_owned(),
                    label: format!("CLAUDE.md:{}", n + 1),
                    written: None,
                })
                .collect(),
        }
    }

    fn bodies(store: &Store) -> Vec<(i64, String)> {
        let scope = Scope::project("/p");
        let mut rows: Vec<(i64, String)> = store
            .list(&scope, true)
            .unwrap()
            .into_iter()
            .map(|m| (m.id, m.body))
            .collect();
        rows.sort();
        rows
    }

    #[test]
    fn a_fold_keeps_unchanged_pieces_and_replaces_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let first = store
            .fold_sources(reads(vec![read(10, None, &["one", "two"])]))
            .unwrap();
        assert_eq!((first.files, first.added, first.removed), (1, 2, 0));
        let before = bodies(&store);
        let second = store
            .fold_sources(reads(vec![read(11, Some((10, 10)), &["two", "three"])]))
            .unwrap();
        assert_eq!((second.added, second.removed), (1, 1));
        let after = bodies(&store);
        let two = |rows: &[(i64, String)]| rows.iter().find(|(_, b)| b == "two").unwrap().0;
        assert_eq!(
            two(&before),
            two(&after),
            "an unchanged piece keeps its memory"
        );
        assert!(after.iter().all(|(_, b)| b != "one"));
        let origins = store.origins(&[two(&after)]).unwrap();
        assert_eq!(origins[&two(&after)].line, 1, "the piece moved to line 1");
    }

    /// A memory superseded by a piece made every later fold of the file fail (a foreign key
    /// on the deleted piece) once the file no longer held that piece.
    #[test]
    fn a_piece_the_file_drops_lets_go_of_the_memory_it_superseded() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let scope = Scope::project("/p");
        store
            .fold_sources(reads(vec![read(10, None, &["one"])]))
            .unwrap();
        let piece = bodies(&store)[0].0;
        let mine = NewMemory {
            body: "uno".into(),
            project: Some("/p".into()),
            ..NewMemory::default()
        };
        let mine = store.remember(&mine, &[], &scope).unwrap().id;
        store.supersede(mine, piece, &scope).unwrap();
        store
            .dismiss(
                "duplicate",
                mine,
                Some(piece),
                "repeats CLAUDE.md:1",
                &scope,
            )
            .unwrap();
        let folded = store
            .fold_sources(reads(vec![read(11, Some((10, 10)), &["two"])]))
            .unwrap();
        assert_eq!((folded.added, folded.removed), (1, 1));
        assert!(store.get(mine, &scope).unwrap().unwrap().is_live());
        let last = store.history(mine, &scope).unwrap().pop().unwrap();
        assert_eq!(
            (last.action.as_str(), last.other_id),
            ("restore-supersede", Some(piece))
        );
        assert!(store
            .recent(&scope, 10)
            .unwrap()
            .iter()
            .any(|m| m.id == mine));
        // A later memory may be given the piece's id: no dismissal names it any more.
        assert!(store.dismissals(&scope).unwrap().is_empty());
    }

    #[test]
    fn a_fold_from_a_stale_look_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        store
            .fold_sources(reads(vec![read(10, None, &["one"])]))
            .unwrap();
        store
            .fold_sources(reads(vec![read(12, Some((10, 10)), &["newest"])]))
            .unwrap();
        // A process that looked before the last fold, and read an older version, loses.
        let late = store
            .fold_sources(reads(vec![read(11, Some((10, 10)), &["older"])]))
            .unwrap();
        assert_eq!(late, Folded::default());
        // So does one that saw no row at all, and one deleting a file someone folded anew.
        let fresh = store
            .fold_sources(Fold {
                reads: vec![read(11, None, &["older"])],
                gone: vec![file(10, 10)],
                ..Fold::default()
            })
            .unwrap();
        assert_eq!(fresh, Folded::default());
        let rows = bodies(&store);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].1, "newest");
        let gone = store
            .fold_sources(Fold {
                gone: vec![file(12, 12)],
                ..Fold::default()
            })
            .unwrap();
        assert_eq!((gone.gone, gone.removed), (1, 1));
        assert!(bodies(&store).is_empty());
        assert!(store
            .source_files(&Scope::project("/p"))
            .unwrap()
            .is_empty());
    }

    /// Moving the rotation's cursor never waits for a busy store: the next refresh re-checks
    /// the same files instead.
    #[test]
    fn the_rotation_moves_on_without_waiting_for_a_busy_store() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let cursor = |at: i64| Fold {
            cursor: Some(("/p".into(), "/m".into(), at)),
            ..Fold::default()
        };
        store.fold_sources(cursor(7)).unwrap();
        assert_eq!(store.source_folder("/p", "/m").unwrap().unwrap().cursor, 7);
        let other = Connection::open(dir.path().join("synapse.db")).unwrap();
        other.execute_batch("BEGIN IMMEDIATE").unwrap();
        store
            .conn()
            .busy_timeout(std::time::Duration::from_secs(30))
            .unwrap();
        let started = std::time::Instant::now();
        store.fold_sources(cursor(9)).unwrap();
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        other.execute_batch("ROLLBACK").unwrap();
        assert_eq!(store.source_folder("/p", "/m").unwrap().unwrap().cursor, 7);
        let waits: i64 = store
            .conn()
            .pragma_query_value(None, "busy_timeout", |r| r.get(0))
            .unwrap();
        assert_eq!(waits, 30_000, "the store's own wait is put back");
    }
}
