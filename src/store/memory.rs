//! A memory as the store reads it: its row (whole, or with a long body read only to its head)
//! and its time stamps.

use anyhow::Result;
use rusqlite::{Connection, Row};
use serde::Serialize;

use super::{date_of, index};

/// One stored memory, in whatever state it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Memory {
    pub id: i64,
    pub project: Option<String>,
    pub source: String,
    pub created_at: Stamp,
    pub updated_at: Stamp,
    pub superseded_by: Option<i64>,
    pub forgotten_at: Option<Stamp>,
    /// The text: whole, or, from the `heads` readers, only its indexed head (`index::head`)
    /// when `bytes` is larger.
    pub body: String,
    /// The whole body's size in bytes (what `read` pages through).
    #[serde(skip)]
    pub bytes: usize,
    /// The hash of the whole body's folded text (`text::duplicate::hash`), stored with it:
    /// equal for repeats.
    #[serde(skip)]
    pub folded: i64,
}

impl Memory {
    /// Neither superseded nor forgotten: recallable and readable.
    pub fn is_live(&self) -> bool {
        self.superseded_by.is_none() && self.forgotten_at.is_none()
    }

    /// Whether `body` is the whole text, not only its head.
    pub fn is_whole(&self) -> bool {
        self.body.len() == self.bytes
    }

    /// When it was written, in the one order every "newer" and "older" follows (drift's pairs
    /// and chains, recall, the hooks' marks, what a new memory is compared with): its time
    /// (`created_at`: when it was remembered, or, for a piece of a file, the file's modification
    /// time), then, for two of the same second, the order the store received them. Ids are
    /// given in that order and never given again (migration 13), so the id stands for it, and
    /// only there: a second holds no more of the time to tell them by (an import of lines
    /// without times, two lessons of one reply, two files saved together).
    pub fn written(&self) -> (Stamp, i64) {
        (self.created_at, self.id)
    }
}

/// The columns `Memory::from_row` reads, in order (prefix `m.` as the alias of `memories`).
pub(crate) const MEMORY_COLUMNS: &str = "m.id, m.project, m.source, \
    m.created_at, m.updated_at, m.superseded_by, m.forgotten_at, \
    m.body, coalesce(m.folded, 0)";

/// `MEMORY_COLUMNS` with the body read only when it is no longer than its head (`index::HEAD_BYTES`,
/// written out below) (a long one is
/// NULL here, and `Heads` reads its head through SQLite's incremental blob I/O), and the body's
/// size, which SQLite reads from the row's header without loading the body.
pub(crate) const HEAD_COLUMNS: &str = "m.id, m.project, m.source, \
    m.created_at, m.updated_at, m.superseded_by, m.forgotten_at, \
    CASE WHEN octet_length(m.body) <= 8192 THEN m.body END, coalesce(m.folded, 0), \
    octet_length(m.body)";

const _: () = assert!(
    index::HEAD_BYTES == 8192,
    "HEAD_COLUMNS spells out HEAD_BYTES"
);

impl Memory {
    pub(crate) fn from_row(row: &Row) -> rusqlite::Result<Memory> {
        let body: String = row.get(7)?;
        let bytes = body.len();
        Memory::with_body(row, body, bytes)
    }

    /// A row of `HEAD_COLUMNS`; a long body is left empty for `heads` to read.
    pub(super) fn from_head_row(row: &Row) -> rusqlite::Result<Memory> {
        let bytes: i64 = row.get(9)?;
        let body = row.get::<_, Option<String>>(7)?.unwrap_or_default();
        Memory::with_body(row, body, bytes as usize)
    }

    /// The columns both row shapes share, around a body read as each shape holds it.
    fn with_body(row: &Row, body: String, bytes: usize) -> rusqlite::Result<Memory> {
        Ok(Memory {
            id: row.get(0)?,
            project: row.get(1)?,
            source: row.get(2)?,
            created_at: Stamp::read(row, 3)?,
            updated_at: Stamp::read(row, 4)?,
            superseded_by: row.get(5)?,
            forgotten_at: Stamp::maybe_read(row, 6)?,
            body,
            bytes,
            folded: row.get(8)?,
        })
    }
}

/// A stored time: seconds since the Unix epoch, shown as RFC 3339 in UTC
/// (`2026-03-14T10:22:00Z`).
///
/// Kept as seconds and written out only when shown: a hook reads dozens of rows and shows none
/// of their times, and formatting them all was a twentieth of its instructions (by SQLite's
/// `strftime` at first, then still 3% in Rust).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Stamp(i64);

/// Civil time counts from here: a `jiff::Timestamp` stops a day short of the year 9999's end,
/// which SQLite accepts and an import may have stored.
const EPOCH: jiff::civil::DateTime = jiff::civil::DateTime::constant(1970, 1, 1, 0, 0, 0, 0);
/// The first and last seconds a `Stamp` can show: those of `jiff::civil::DateTime`.
const FIRST_SECOND: i64 = -377_705_116_800;
const LAST_SECOND: i64 = 253_402_300_799;

impl Stamp {
    /// The time in `column`, refused when it is past what a stamp can show.
    pub(crate) fn read(row: &Row, column: usize) -> rusqlite::Result<Stamp> {
        let seconds: i64 = row.get(column)?;
        if !(FIRST_SECOND..=LAST_SECOND).contains(&seconds) {
            return Err(rusqlite::Error::FromSqlConversionFailure(
                column,
                rusqlite::types::Type::Integer,
                format!("{seconds} seconds is past the years -9999 to 9999").into(),
            ));
        }
        Ok(Stamp(seconds))
    }

    /// The time in `column`, which may be NULL.
    fn maybe_read(row: &Row, column: usize) -> rusqlite::Result<Option<Stamp>> {
        match row.get_ref(column)? {
            rusqlite::types::ValueRef::Null => Ok(None),
            _ => Stamp::read(row, column).map(Some),
        }
    }

    /// For the crate's unit tests: the stamp of `seconds` since the epoch.
    #[cfg(test)]
    pub(crate) fn from_seconds(seconds: i64) -> Stamp {
        Stamp(seconds)
    }

    /// Seconds since the Unix epoch.
    pub fn seconds(self) -> i64 {
        self.0
    }

    /// The UTC date, `YYYY-MM-DD`.
    pub fn date(self) -> String {
        date_of(self.0)
    }
}

impl std::fmt::Display for Stamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `read` let in only seconds that a civil time can hold.
        match civil(self.0) {
            Some(t) => write!(f, "{t}Z"),
            None => write!(f, "{}", self.0),
        }
    }
}

/// The civil time in UTC `seconds` after the epoch, if it falls in the years -9999 to 9999.
pub(super) fn civil(seconds: i64) -> Option<jiff::civil::DateTime> {
    jiff::Span::new()
        .try_seconds(seconds)
        .and_then(|span| EPOCH.checked_add(span))
        .ok()
}

impl Serialize for Stamp {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Rows read by `HEAD_COLUMNS`, with the first `limit` bytes (at most `index::HEAD_BYTES`) of
/// their long bodies then read in place: bounded work per memory however long it is.
pub(super) fn heads(conn: &Connection, mut rows: Vec<Memory>, limit: usize) -> Result<Vec<Memory>> {
    for m in rows.iter_mut().filter(|m| m.body.len() > limit) {
        let cut = crate::text::whole_chars(m.body.as_bytes(), limit)?;
        m.body = cut;
    }
    let mut blob: Option<rusqlite::blob::Blob> = None;
    for m in rows.iter_mut().filter(|m| m.body.is_empty() && m.bytes > 0) {
        let blob = match blob.as_mut() {
            Some(b) => {
                b.reopen(m.id)?;
                b
            }
            None => {
                blob.insert(conn.blob_open(rusqlite::MAIN_DB, "memories", "body", m.id, true)?)
            }
        };
        let mut bytes = vec![0u8; limit.min(index::HEAD_BYTES).min(m.bytes)];
        blob.read_at_exact(&mut bytes, 0)?;
        m.body = crate::text::whole_chars(&bytes, bytes.len())?;
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    #[rstest::rstest]
    #[case::epoch(0)]
    #[case::before_the_epoch(-86_401)]
    #[case::leap_day(951_782_400)]
    #[case::a_recent_second(1_773_483_720)]
    #[case::the_last_second_of_9999(253_402_300_799)]
    #[case::the_first_second_of_year_0(-62_167_219_200)]
    fn a_stamp_reads_as_sqlite_writes_it(#[case] seconds: i64) {
        // Stored times were shown by `strftime` before; the text must not change.
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let (sqlite, ours): (String, String) = conn
            .query_row(
                "SELECT strftime('%Y-%m-%dT%H:%M:%SZ', ?1, 'unixepoch'), ?1",
                [seconds],
                |r| Ok((r.get(0)?, super::Stamp::read(r, 1)?.to_string())),
            )
            .unwrap();
        assert_eq!(ours, sqlite);
        let day: String = conn
            .query_row("SELECT date(?1, 'unixepoch')", [seconds], |r| r.get(0))
            .unwrap();
        assert_eq!(super::date_of(seconds), day);
    }

    #[test]
    fn a_null_time_has_no_stamp() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let (none, some) = conn
            .query_row("SELECT NULL, 0", [], |r| {
                Ok((
                    super::Stamp::maybe_read(r, 0)?,
                    super::Stamp::maybe_read(r, 1)?,
                ))
            })
            .unwrap();
        assert_eq!(none, None);
        assert_eq!(
            some.map(|s| s.to_string()).as_deref(),
            Some("1970-01-01T00:00:00Z")
        );
    }

    #[test]
    fn a_stamp_reads_the_years_a_civil_time_holds_and_no_others() {
        use jiff::civil::DateTime;
        let seconds = |t: DateTime| t.duration_since(super::EPOCH).as_secs();
        assert_eq!(super::FIRST_SECOND, seconds(DateTime::MIN));
        assert_eq!(super::LAST_SECOND, seconds(DateTime::MAX));
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let read = |s: i64| conn.query_row("SELECT ?1", [s], |r| super::Stamp::read(r, 0));
        assert_eq!(
            read(super::FIRST_SECOND).unwrap().to_string(),
            "-009999-01-01T00:00:00Z"
        );
        assert!(read(super::FIRST_SECOND - 1).is_err());
        assert!(read(super::LAST_SECOND + 1).is_err());
    }
}
