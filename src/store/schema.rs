//! The schema and its numbered migrations, tracked by `PRAGMA user_version`.
//!
//! Each migration runs in one transaction. An existing file is copied aside before it is
//! migrated, and a file written by a newer Synapse is refused rather than guessed at.
//! Released migrations are never edited: a change is a new entry at the end of `MIGRATIONS`.

use std::path::Path;

use anyhow::{bail, Context, Result};
use rusqlite::Connection;

/// Migration N (1-based) is `MIGRATIONS[N - 1]`.
const MIGRATIONS: &[&str] = &[
    // 1: memories, their history, and the two full-text indexes (kept in step by `index`).
    r#"
    CREATE TABLE memories (
        id            INTEGER PRIMARY KEY,
        body          TEXT NOT NULL,
        source        TEXT NOT NULL DEFAULT '',
        project       TEXT,
        created_at    INTEGER NOT NULL,
        updated_at    INTEGER NOT NULL,
        superseded_by INTEGER REFERENCES memories(id),
        forgotten_at  INTEGER
    );
    CREATE INDEX memories_body ON memories(project, substr(body, 1, 64));
    CREATE INDEX memories_recent ON memories(created_at, id)
        WHERE superseded_by IS NULL AND forgotten_at IS NULL;
    CREATE INDEX memories_project ON memories(project, id);

    CREATE TABLE history (
        id        INTEGER PRIMARY KEY,
        memory_id INTEGER NOT NULL REFERENCES memories(id),
        at        INTEGER NOT NULL,
        action    TEXT NOT NULL,
        other_id  INTEGER
    );
    CREATE INDEX history_memory ON history(memory_id, id);

    CREATE VIRTUAL TABLE memory USING fts5(
        body, source,
        content = 'memories', content_rowid = 'id',
        tokenize = 'porter unicode61 remove_diacritics 2'
    );
    CREATE VIRTUAL TABLE memorygram USING fts5(
        body,
        content = 'memories', content_rowid = 'id',
        tokenize = 'trigram remove_diacritics 1'
    );
    -- A larger in-memory buffer before each flush means fewer segments to merge on bulk writes.
    INSERT INTO memory(memory, rank) VALUES ('hashsize', 16777216);
    INSERT INTO memorygram(memorygram, rank) VALUES ('hashsize', 16777216);

    "#,
    // 2: a 64 MiB buffer lets a 100,000-memory import write each index as one segment instead of
    // several, which halves the cost of a trigram phrase at query time (p95 6 ms -> 3.8 ms there).
    r#"
    INSERT INTO memory(memory, rank) VALUES ('hashsize', 67108864);
    INSERT INTO memorygram(memorygram, rank) VALUES ('hashsize', 67108864);
    "#,
    // 3: a hash of each body as drift compares it for duplicates (case, spacing and punctuation
    // folded), so finding a memory's repeats, folded or exact, is one lookup of a small integer
    // index; it replaces the index on each body's first 64 bytes. Filled in by `backfill_folded`.
    r#"
    ALTER TABLE memories ADD COLUMN folded INTEGER;
    DROP INDEX memories_body;
    CREATE INDEX memories_folded ON memories(project, folded);
    "#,
    // 4: which memories the hooks have injected into which Claude Code session, so a prompt
    // never brings the same memory twice (cleared when the session's context is compacted).
    r#"
    CREATE TABLE injected (
        session   TEXT NOT NULL,
        memory_id INTEGER NOT NULL REFERENCES memories(id),
        at        INTEGER NOT NULL,
        PRIMARY KEY (session, memory_id)
    ) WITHOUT ROWID;
    "#,
];

/// The schema version this build writes.
pub const LATEST: i64 = MIGRATIONS.len() as i64;

/// Bring the database at `path` (already open as `conn`) up to `LATEST`.
pub fn migrate(conn: &mut Connection, path: &Path) -> Result<()> {
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if version > LATEST {
        bail!(
            "{} has schema version {version}, newer than this synapse understands ({LATEST}); \
             upgrade synapse, or point SYNAPSE_DATA at another folder",
            path.display()
        );
    }
    if version == LATEST {
        return Ok(());
    }
    if version == 0 {
        let tables: i64 = conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?;
        if tables > 0 {
            bail!(
                "{} is an SQLite file but not a synapse store (it has tables and no schema version); \
                 move it away or point SYNAPSE_DATA at another folder",
                path.display()
            );
        }
    } else {
        backup(conn, path, version)?;
    }
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        let next = index as i64 + 1;
        let tx = conn.transaction()?;
        tx.execute_batch(sql)
            .with_context(|| format!("migration {next} failed on {}", path.display()))?;
        if next == 3 {
            backfill_folded(&tx)
                .with_context(|| format!("migration {next} failed on {}", path.display()))?;
        }
        tx.pragma_update(None, "user_version", next)?;
        tx.commit()?;
    }
    Ok(())
}

/// Fill `memories.folded` for rows written before migration 3.
fn backfill_folded(conn: &Connection) -> Result<()> {
    let rows: Vec<(i64, String)> = conn
        .prepare("SELECT id, body FROM memories")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut update = conn.prepare("UPDATE memories SET folded = ?2 WHERE id = ?1")?;
    for (id, body) in rows {
        update.execute(rusqlite::params![id, crate::drift::duplicate::hash(&body)])?;
    }
    Ok(())
}

/// Copy the whole database aside (`synapse.db.v1.bak`) before changing its schema.
fn backup(conn: &Connection, path: &Path, version: i64) -> Result<()> {
    let target = path.with_extension(format!("db.v{version}.bak"));
    if target.exists() {
        std::fs::remove_file(&target)
            .with_context(|| format!("could not replace the old backup {}", target.display()))?;
    }
    let target_text = target
        .to_str()
        .with_context(|| format!("backup path {} is not UTF-8", target.display()))?;
    conn.execute("VACUUM INTO ?1", [target_text])
        .with_context(|| format!("could not back up {} before migrating", path.display()))?;
    Ok(())
}
