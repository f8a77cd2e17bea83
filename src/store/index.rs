//! The two full-text indexes, kept in step with `memories` inside every write's transaction.
//!
//! Only live memories (neither superseded nor forgotten) are indexed, so search never pays for
//! hidden rows. Both indexes take their text from `memories` (external content), so removing a
//! row must hand FTS5 exactly the text it indexed: callers pass the row as stored.
//!
//! This is plain code rather than triggers on purpose: a trigger that writes a virtual table
//! makes SQLite open a statement savepoint for every insert, and FTS5 flushes its pending index
//! at each savepoint, which made a 10,000-memory import ten times slower.

use anyhow::Result;
use rusqlite::Connection;

/// Add a live memory to both indexes.
pub(crate) fn add(conn: &Connection, id: i64, body: &str, source: &str) -> Result<()> {
    conn.prepare_cached("INSERT INTO memory(rowid, body, source) VALUES (?1, ?2, ?3)")?
        .execute(rusqlite::params![id, body, source])?;
    conn.prepare_cached("INSERT INTO memorygram(rowid, body) VALUES (?1, ?2)")?
        .execute(rusqlite::params![id, body])?;
    Ok(())
}

/// Take a memory out of both indexes (it must be in them, with this exact text).
pub(crate) fn remove(conn: &Connection, id: i64, body: &str, source: &str) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO memory(memory, rowid, body, source) VALUES ('delete', ?1, ?2, ?3)",
    )?
    .execute(rusqlite::params![id, body, source])?;
    conn.prepare_cached(
        "INSERT INTO memorygram(memorygram, rowid, body) VALUES ('delete', ?1, ?2)",
    )?
    .execute(rusqlite::params![id, body])?;
    Ok(())
}
