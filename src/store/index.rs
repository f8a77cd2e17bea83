//! The two full-text indexes, kept in step with `memories` inside every write's transaction.
//!
//! Only live memories (neither superseded nor forgotten) are indexed, so search never pays for
//! hidden rows. Both indexes take their text from `memories` (external content), so removing a
//! row must hand FTS5 exactly the text it indexed: callers pass the row as stored.
//!
//! A long body is indexed by its head, its first `HEAD_BYTES`: what search, coverage counting and
//! drift read of a memory stays bounded by a constant however long the memory is (a pasted log of
//! several MiB would otherwise make every search that matched it pay for all of it). The rest of
//! the body is stored exactly and read page by page.
//!
//! This is plain code rather than triggers on purpose: a trigger that writes a virtual table
//! makes SQLite open a statement savepoint for every insert, and FTS5 flushes its pending index
//! at each savepoint, which made a 10,000-memory import ten times slower.

use anyhow::Result;
use rusqlite::Connection;

/// How much of a body the indexes hold: 8 KiB, about 1,200 words of prose (three pages), more
/// than nearly every note; longer ones are searched by their opening. Each search reads this
/// much of every long memory it matches, to count which words of the question it holds.
pub const HEAD_BYTES: usize = 8 << 10;

/// The indexed part of `body`: its longest prefix of at most `HEAD_BYTES` that ends on a
/// character boundary.
pub fn head(body: &str) -> &str {
    crate::text::cut_bytes(body, HEAD_BYTES)
}

/// Add a live memory to both indexes.
pub(crate) fn add(conn: &Connection, id: i64, body: &str, source: &str) -> Result<()> {
    let body = head(body);
    conn.prepare_cached("INSERT INTO memory(rowid, body, source) VALUES (?1, ?2, ?3)")?
        .execute(rusqlite::params![id, body, source])?;
    conn.prepare_cached("INSERT INTO memorygram(rowid, body) VALUES (?1, ?2)")?
        .execute(rusqlite::params![id, body])?;
    Ok(())
}

/// Take a memory out of both indexes (it must be in them, with this exact body).
pub(crate) fn remove(conn: &Connection, id: i64, body: &str, source: &str) -> Result<()> {
    let body = head(body);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_head_ends_on_a_character_boundary() {
        let body = format!("{}é and more", "x".repeat(HEAD_BYTES - 1));
        assert_eq!(head(&body).len(), HEAD_BYTES - 1);
        assert_eq!(head("short"), "short");
        assert_eq!(head(""), "");
    }

    #[test]
    fn the_live_head_is_the_one_migration_6_indexed() {
        // Migration 6 froze its own copy of the rule; while the two agree, rows it re-indexed
        // leave the indexes exactly as `remove` expects them.
        for body in [
            "a".repeat(20_000),
            format!("{}€€", "b".repeat(HEAD_BYTES - 2)),
        ] {
            assert_eq!(head(&body), crate::store::schema::head_v6(&body));
        }
    }
}
