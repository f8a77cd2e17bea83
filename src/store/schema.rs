//! The schema and its numbered migrations, tracked by `PRAGMA user_version`.
//!
//! Each migration runs in one transaction. An existing file is copied aside before it is
//! migrated, and a file written by a newer Synapse is refused rather than guessed at.
//! Released migrations are never edited: a change is a new entry at the end of `MIGRATIONS`.
//! That is why this file is long: every migration stays here as it shipped, beside the frozen
//! helpers it calls and the tests that they still agree with the live rules.

use std::path::Path;
use std::time::Duration;

use std::os::unix::fs::OpenOptionsExt;

use anyhow::{bail, Context, Result};
use rusqlite::{Connection, TransactionBehavior};

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
    // 5: the keys of spooled writes already applied (`spool`), so that a spool a crash left in
    // place is never applied twice.
    r#"
    CREATE TABLE drained (
        key TEXT PRIMARY KEY,
        at  INTEGER NOT NULL
    ) WITHOUT ROWID;
    "#,
    // 6: the body moves to the end of each row. SQLite stores a long value across overflow
    // pages and reaches the columns after it by walking them, so a 4 MiB memory made every
    // search that matched it read a thousand pages to learn its project. Long bodies are
    // indexed by their head from now on (`index`); `index_heads_v6` re-indexes those that were
    // indexed whole.
    r#"
    CREATE TABLE memories_v6 (
        id            INTEGER PRIMARY KEY,
        project       TEXT,
        source        TEXT NOT NULL DEFAULT '',
        created_at    INTEGER NOT NULL,
        updated_at    INTEGER NOT NULL,
        superseded_by INTEGER REFERENCES memories(id),
        forgotten_at  INTEGER,
        folded        INTEGER,
        body          TEXT NOT NULL
    );
    INSERT INTO memories_v6(id, project, source, created_at, updated_at, superseded_by,
                            forgotten_at, folded, body)
        SELECT id, project, source, created_at, updated_at, superseded_by, forgotten_at,
               folded, body FROM memories;
    DROP TABLE memories;
    ALTER TABLE memories_v6 RENAME TO memories;
    CREATE INDEX memories_recent ON memories(created_at, id)
        WHERE superseded_by IS NULL AND forgotten_at IS NULL;
    CREATE INDEX memories_project ON memories(project, id);
    CREATE INDEX memories_folded ON memories(project, folded);
    "#,
    // 7: statistics within a scope. The indexes keep no copy of the text (they need none, and
    // a deleted row no longer has to be handed back exactly) and gain a `scope` column holding
    // one token per scope; `scopes` numbers the scopes ('' was the global one until migration
    // 10) and counts each one's indexed rows and tokens. Filled in by `index_scopes_v7`.
    r#"
    CREATE TABLE scopes (
        id      INTEGER PRIMARY KEY,
        project TEXT NOT NULL UNIQUE,
        docs    INTEGER NOT NULL DEFAULT 0,
        words   INTEGER NOT NULL DEFAULT 0,
        grams   INTEGER NOT NULL DEFAULT 0
    );
    DROP TABLE memory;
    DROP TABLE memorygram;
    CREATE VIRTUAL TABLE memory USING fts5(
        body, source, scope,
        content = '', contentless_delete = 1,
        tokenize = 'porter unicode61 remove_diacritics 2'
    );
    CREATE VIRTUAL TABLE memorygram USING fts5(
        body, scope,
        content = '', contentless_delete = 1,
        tokenize = 'trigram remove_diacritics 1'
    );
    INSERT INTO memory(memory, rank) VALUES ('hashsize', 67108864);
    INSERT INTO memorygram(memorygram, rank) VALUES ('hashsize', 67108864);
    "#,
    // 8: a project memory may no longer hide a global one (it hid it from every other project);
    // global memories superseded by a project's are live again. Done by `unhide_global_v8`.
    "",
    // 9: team memory (`shared`): each stable id of a project's shared file
    // (`.synapse/memories.jsonl`) and the memory that holds it here, shared from this store
    // (`mine`) or folded in from the file; a row without a memory is an id the file names as
    // replaced before its own line arrived. No defaults or constraints beyond the key: every
    // process parses the whole schema when it opens the store, and they cost each hook 26k
    // instructions here; `store::shared` writes every column.
    r#"
    CREATE TABLE shared (
        project     TEXT,
        uid         TEXT,
        memory_id   INTEGER,
        author      TEXT,
        mine        INTEGER,
        state_at    INTEGER,
        withdrawn   INTEGER,
        replaced_by TEXT,
        replaced    INTEGER,
        PRIMARY KEY (project, uid)
    ) WITHOUT ROWID;
    "#,
    // 10: the global scope's key in `scopes` is NULL, as a global memory's project is in
    // `memories`, instead of '': one spelling, so that every lookup of a scope is
    // `project IS ?1` with the memory's own project bound. The table is rebuilt, since its
    // `project` was NOT NULL; numbers and counts are kept, and with them every index row's token.
    // UNIQUE keeps one row per project but holds NULLs distinct, so the partial index on
    // `project IS NULL` (the same value in every row it holds) admits one global row only. A
    // fixed number for the global scope would instead have renumbered it in existing stores,
    // and re-tokened its index rows.
    r#"
    CREATE TABLE scopes_v10 (
        id      INTEGER PRIMARY KEY,
        project TEXT UNIQUE,
        docs    INTEGER NOT NULL DEFAULT 0,
        words   INTEGER NOT NULL DEFAULT 0,
        grams   INTEGER NOT NULL DEFAULT 0
    );
    INSERT INTO scopes_v10(id, project, docs, words, grams)
        SELECT id, nullif(project, ''), docs, words, grams FROM scopes;
    DROP TABLE scopes;
    ALTER TABLE scopes_v10 RENAME TO scopes;
    CREATE UNIQUE INDEX scopes_global ON scopes(project IS NULL) WHERE project IS NULL;
    "#,
    // 11: sources, the files of Claude Code's own memory that Synapse reads (`store::sources`):
    // each file with its size and modification time as last folded (`kind`: what the file is to
    // the client, `dir`: the folder at or below which the client loads it itself, `globs`: a
    // rule's `paths:`), and which memories hold which of its pieces, from which line. A file's
    // memories are ordinary rows of `memories`, searched and audited like any other; `sourced`
    // marks them as copies that the next fold of their file replaces.
    r#"
    CREATE TABLE sources (
        id       INTEGER PRIMARY KEY,
        project  TEXT,
        path     TEXT NOT NULL,
        kind     TEXT NOT NULL,
        shown    TEXT NOT NULL,
        dir      TEXT,
        globs    TEXT,
        size     INTEGER NOT NULL,
        modified INTEGER NOT NULL
    );
    CREATE UNIQUE INDEX sources_path ON sources(path, ifnull(project, ''));
    CREATE INDEX sources_project ON sources(project);
    CREATE TABLE sourced (
        memory_id INTEGER PRIMARY KEY,
        source_id INTEGER NOT NULL,
        line      INTEGER NOT NULL
    );
    CREATE INDEX sourced_source ON sourced(source_id);
    "#,
    // 12: drift findings a person looked at and judged fine (`store::dismissed`), so an audit
    // stops reporting them: the finding's kind, its memory, the newer memory of a pair (0 for a
    // stale finding, which has none: a key column cannot be NULL here) and its reason, which
    // keeps apart the stale findings of one memory and lets a dismissal lapse when the reason
    // changes; and when it was dismissed.
    r#"
    CREATE TABLE dismissed (
        memory_id INTEGER NOT NULL,
        newer     INTEGER NOT NULL,
        kind      TEXT NOT NULL,
        why       TEXT NOT NULL,
        at        INTEGER NOT NULL,
        PRIMARY KEY (memory_id, newer, kind, why)
    ) WITHOUT ROWID;
    "#,
    // 13: an id names one memory forever. Without AUTOINCREMENT, SQLite gives a new row the
    // largest id plus one, so deleting the newest memory (a piece its file no longer holds) freed
    // its id for the next one, and whatever still named the old memory (a session shown it, a
    // `replaces #N` in a reply) named another. The table is rebuilt with AUTOINCREMENT, every id
    // kept (the full-text indexes are keyed by them and stay as they are); the count of ids
    // starts past the largest id anything still names, so none of those is given again; then
    // the references that deletions before this version left behind go. An id deleted before
    // this version that nothing names any more cannot be known, and may be given once more.
    r#"
    CREATE TABLE memories_v13 (
        id            INTEGER PRIMARY KEY AUTOINCREMENT,
        project       TEXT,
        source        TEXT NOT NULL DEFAULT '',
        created_at    INTEGER NOT NULL,
        updated_at    INTEGER NOT NULL,
        superseded_by INTEGER REFERENCES memories(id),
        forgotten_at  INTEGER,
        folded        INTEGER,
        body          TEXT NOT NULL
    );
    INSERT INTO memories_v13(id, project, source, created_at, updated_at, superseded_by,
                             forgotten_at, folded, body)
        SELECT id, project, source, created_at, updated_at, superseded_by, forgotten_at,
               folded, body FROM memories ORDER BY id;
    DROP TABLE memories;
    ALTER TABLE memories_v13 RENAME TO memories;
    CREATE INDEX memories_recent ON memories(created_at, id)
        WHERE superseded_by IS NULL AND forgotten_at IS NULL;
    CREATE INDEX memories_project ON memories(project, id);
    CREATE INDEX memories_folded ON memories(project, folded);

    INSERT INTO sqlite_sequence(name, seq)
        SELECT 'memories', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'memories');
    UPDATE sqlite_sequence SET seq = max(seq, coalesce((SELECT max(id) FROM (
        SELECT max(id) AS id FROM memories
        UNION ALL SELECT max(superseded_by) FROM memories
        UNION ALL SELECT max(memory_id) FROM history
        UNION ALL SELECT max(other_id) FROM history WHERE action <> 'import'
        UNION ALL SELECT max(memory_id) FROM injected
        UNION ALL SELECT max(memory_id) FROM shared
        UNION ALL SELECT max(memory_id) FROM sourced
        UNION ALL SELECT max(memory_id) FROM dismissed
        UNION ALL SELECT max(newer) FROM dismissed
        UNION ALL SELECT max(rowid) FROM memory
    )), 0)) WHERE name = 'memories';

    DELETE FROM injected WHERE memory_id NOT IN (SELECT id FROM memories);
    UPDATE shared SET memory_id = NULL
        WHERE memory_id IS NOT NULL AND memory_id NOT IN (SELECT id FROM memories);
    DELETE FROM sourced WHERE memory_id NOT IN (SELECT id FROM memories);
    DELETE FROM dismissed WHERE memory_id NOT IN (SELECT id FROM memories)
        OR (newer != 0 AND newer NOT IN (SELECT id FROM memories));
    "#,
    // 14: source files read as the client reads them, at a bounded cost (`store::sources`): a
    // file's inode (a file replaced by a rename is a new one), the files it imports (absolute
    // paths, one a line, whether they exist or not), the importing file or linked folder it was
    // reached through (`via`), the bytes read when its fold stopped short of its end (`cut`, 0
    // for a whole file), and why it gave no or fewer memories (`problem`). A row with a negative
    // size is a file found and not read yet, `modified` its modification time. `source_folders`
    // keeps a folder's modification time and inode as of its last whole listing (an unchanged
    // folder gained, lost and renamed nothing) and where the re-check of its files in rotation
    // stands (`cursor`, the last source id re-checked). Rows are looked up by project and kind (a
    // session reads the few files the client loads by name, never its thousands of topic files).
    r#"
    ALTER TABLE sources ADD COLUMN ino INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE sources ADD COLUMN imports TEXT;
    ALTER TABLE sources ADD COLUMN via TEXT;
    ALTER TABLE sources ADD COLUMN cut INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE sources ADD COLUMN problem TEXT;
    DROP INDEX sources_project;
    CREATE INDEX sources_kind ON sources(project, kind);
    CREATE INDEX sources_waiting ON sources(project, modified) WHERE size < 0;
    CREATE INDEX sources_cut ON sources(project) WHERE cut > 0 OR problem IS NOT NULL;
    CREATE TABLE source_folders (
        project  TEXT NOT NULL,
        path     TEXT NOT NULL,
        modified INTEGER NOT NULL,
        ino      INTEGER NOT NULL,
        cursor   INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (project, path)
    ) WITHOUT ROWID;
    "#,
    // 15: the instruction files a client reported loading into a session (Claude Code's
    // InstructionsLoaded hook: `store::loaded`), and why it loaded each (its `load_reason`:
    // `session_start`, `include`, `nested_traversal`, ...), which say what the model has better
    // than the files' places do.
    r#"
    CREATE TABLE loaded (
        session TEXT NOT NULL,
        path    TEXT NOT NULL,
        reason  TEXT NOT NULL,
        at      INTEGER NOT NULL,
        PRIMARY KEY (session, path)
    ) WITHOUT ROWID;
    "#,
];

/// Synapse's mark in the file's header (`PRAGMA application_id`, "SYNA"), written by migration 7:
/// a file without it at version 7 or later, or with another application's, is not a store.
pub const APPLICATION_ID: i32 = 0x5359_4e41;

/// The tables every Synapse store before migration 7 has, which a file without the mark must
/// have to be taken for one.
const EARLY_TABLES: &[&str] = &["memories", "history", "memory", "memorygram"];

/// The schema version this build writes.
pub const LATEST: i64 = MIGRATIONS.len() as i64;

/// Bring the database at `path` (already open as `conn`) up to `LATEST`.
///
/// Many processes may open a store at once (a new session starts three hooks, and several
/// sessions may start together), so each step takes the write lock first and reads the version
/// again under it: the first process migrates, the others wait, then find nothing left to do; a
/// step that finds the store busy is tried again for at most `busy`, the opener's wait.
pub fn migrate(conn: &mut Connection, path: &Path, busy: Duration) -> Result<()> {
    let version = user_version(conn)?;
    refuse_foreign(conn, path)?;
    refuse_newer(version, path)?;
    if version == LATEST {
        return Ok(());
    }
    if version > 0 {
        backup(conn, path)?;
    }
    loop {
        let version = user_version(conn)?;
        refuse_newer(version, path)?;
        if version == LATEST {
            return Ok(());
        }
        let next = version + 1;
        // A step that rebuilds a table must not have its rows' references checked half-way;
        // the setting only takes effect outside a transaction, and the step checks them itself.
        let rebuilds = next == 6 || next == 13;
        if rebuilds {
            conn.pragma_update(None, "foreign_keys", "off")?;
        }
        // A step can fail busy at once where SQLite would deadlock waiting, while several
        // processes create one store: it is tried again, since whoever held the lock may have
        // done it.
        let stepped = super::while_busy(busy, busy_error, || step(conn, version, path));
        if rebuilds {
            conn.pragma_update(None, "foreign_keys", "on")?;
        }
        stepped.with_context(|| format!("migration {next} failed on {}", path.display()))?;
    }
}

/// Whether `error` is SQLite's busy or locked.
fn busy_error(error: &anyhow::Error) -> bool {
    error
        .downcast_ref::<rusqlite::Error>()
        .is_some_and(super::is_busy_error)
}

/// Run the migration after `version`, unless another process did so first.
fn step(conn: &mut Connection, version: i64, path: &Path) -> Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let now = user_version(&tx)?;
    if now != version {
        return Ok(());
    }
    refuse_foreign(&tx, path)?;
    let next = version + 1;
    let migration = usize::try_from(version)
        .ok()
        .and_then(|v| MIGRATIONS.get(v))
        .with_context(|| format!("no migration after version {version}"))?;
    tx.execute_batch(migration)?;
    match next {
        3 => backfill_folded(&tx)?,
        6 => {
            index_heads_v6(&tx)?;
            let broken: i64 =
                tx.query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
                    r.get(0)
                })?;
            if broken > 0 {
                bail!("{broken} references no longer hold after rebuilding the memories table");
            }
        }
        7 => {
            index_scopes_v7(&tx)?;
            tx.pragma_update(None, "application_id", APPLICATION_ID)?;
        }
        8 => unhide_global_v8(&tx)?,
        13 => {
            let broken: i64 =
                tx.query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
                    r.get(0)
                })?;
            if broken > 0 {
                bail!("{broken} references no longer hold after rebuilding the memories table");
            }
        }
        _ => {}
    }
    tx.pragma_update(None, "user_version", next)?;
    tx.commit()?;
    Ok(())
}

fn user_version(conn: &Connection) -> Result<i64> {
    Ok(conn.pragma_query_value(None, "user_version", |r| r.get(0))?)
}

/// Refuse a file that is not a Synapse store, before anything is written to it: another
/// application's SQLite file must come out of this unchanged. True when the store is already at
/// this build's schema, so there is nothing to migrate.
pub fn refuse_foreign(conn: &Connection, path: &Path) -> Result<bool> {
    // A store this build wrote says so in its header: two reads of the first page, which every
    // hook pays for. Anything else is looked at whole.
    let id: i32 = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
    if id == APPLICATION_ID && user_version(conn)? == LATEST {
        return Ok(true);
    }
    // One statement, so one snapshot: read apart, the version and the tables could straddle
    // another process's first migration and look like a file with tables and no version.
    let (version, id, tables, early): (i64, i32, i64, i64) = conn.query_row(
        "SELECT (SELECT user_version FROM pragma_user_version), \
                (SELECT application_id FROM pragma_application_id), \
                (SELECT count(*) FROM sqlite_master), \
                (SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN \
                    (SELECT value FROM json_each(?1)))",
        [serde_json::to_string(EARLY_TABLES)?],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    )?;
    let why = if version < 0 {
        "its schema version is negative"
    } else if id != 0 && id != APPLICATION_ID {
        "it carries another application's id"
    } else if version == 0 && tables > 0 {
        "it has tables and no schema version"
    } else if (1..7).contains(&version) && early != EARLY_TABLES.len() as i64 {
        "it lacks the tables every synapse store has"
    } else if version >= 7 && id != APPLICATION_ID {
        "it lacks synapse's application id"
    } else {
        return Ok(version == LATEST);
    };
    bail!(
        "{} is an SQLite file but not a synapse store ({why}); move it away or point \
         SYNAPSE_DATA at another folder",
        path.display()
    )
}

fn refuse_newer(version: i64, path: &Path) -> Result<()> {
    if version > LATEST {
        bail!(
            "{} has schema version {version}, newer than this synapse understands ({LATEST}); \
             upgrade synapse, or point SYNAPSE_DATA at another folder",
            path.display()
        );
    }
    Ok(())
}

/// Fill `memories.folded` for rows written before migration 3, with the hash as migration 3
/// defined it (`folded_v3`), whatever `text::duplicate::hash` has become since.
fn backfill_folded(conn: &Connection) -> Result<()> {
    let rows: Vec<(i64, String)> = conn
        .prepare("SELECT id, body FROM memories")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut update = conn.prepare("UPDATE memories SET folded = ?2 WHERE id = ?1")?;
    for (id, body) in rows {
        update.execute(rusqlite::params![id, folded_v3(&body)])?;
    }
    Ok(())
}

/// The folded-text hash of migration 3, frozen with it: FNV-1a over the body folded (lowercase,
/// no diacritics), letters and digits only, single spaces, a separator between two digits kept
/// as a dot. `text::duplicate::hash` is the live rule; a test checks the two still agree, and a
/// change to the live one needs a migration that recomputes the stored values.
pub(crate) fn folded_v3(body: &str) -> i64 {
    use unicode_normalization::char::is_combining_mark;
    use unicode_normalization::UnicodeNormalization;
    let folded: String = if body.is_ascii() {
        body.to_ascii_lowercase()
    } else {
        body.nfd()
            .filter(|c| !is_combining_mark(*c))
            .flat_map(char::to_lowercase)
            .collect()
    };
    let chars: Vec<char> = folded.chars().collect();
    let mut key = String::with_capacity(folded.len());
    let mut gap = false;
    for (i, &c) in chars.iter().enumerate() {
        let digits_around = i > 0
            && chars.get(i - 1).is_some_and(char::is_ascii_digit)
            && chars.get(i + 1).is_some_and(char::is_ascii_digit);
        if c.is_alphanumeric() {
            if gap && !key.is_empty() {
                key.push(' ');
            }
            gap = false;
            key.push(c);
        } else if !c.is_whitespace() && digits_around {
            key.push('.');
        } else {
            gap = true;
        }
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in key.bytes() {
        h ^= u64::from(byte);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h as i64
}

/// The part of a body migration 6 indexes: the longest prefix of at most 8 KiB that ends on a
/// character boundary. Frozen with the migration; `index::head` is the live rule.
pub(crate) fn head_v6(body: &str) -> &str {
    let mut end = body.len().min(8 << 10);
    while !body.is_char_boundary(end) {
        end -= 1;
    }
    body.get(..end).unwrap_or("")
}

/// Migration 6: live memories longer than their indexed head were indexed whole; index their
/// head instead, as every write now does.
fn index_heads_v6(conn: &Connection) -> Result<()> {
    let long: Vec<(i64, String, String)> = conn
        .prepare(
            "SELECT id, body, source FROM memories WHERE octet_length(body) > 8192 \
             AND superseded_by IS NULL AND forgotten_at IS NULL",
        )?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    for (id, body, source) in long {
        let head = head_v6(&body);
        conn.execute(
            "INSERT INTO memory(memory, rowid, body, source) VALUES ('delete', ?1, ?2, ?3)",
            rusqlite::params![id, body, source],
        )?;
        conn.execute(
            "INSERT INTO memorygram(memorygram, rowid, body) VALUES ('delete', ?1, ?2)",
            rusqlite::params![id, body],
        )?;
        conn.execute(
            "INSERT INTO memory(rowid, body, source) VALUES (?1, ?2, ?3)",
            rusqlite::params![id, head, source],
        )?;
        conn.execute(
            "INSERT INTO memorygram(rowid, body) VALUES (?1, ?2)",
            rusqlite::params![id, head],
        )?;
    }
    Ok(())
}

/// Migration 7: index every live memory again, oldest first, with its scope's token, and count
/// what each scope holds. The rules are frozen here as they were (`head_v6`, `scope_token_v7`,
/// `size_v7`); `index` holds the live ones, and a test checks that the two agree.
fn index_scopes_v7(conn: &Connection) -> Result<()> {
    let mut rows = conn.prepare(
        "SELECT id, body, source, coalesce(project, '') FROM memories \
         WHERE superseded_by IS NULL AND forgotten_at IS NULL ORDER BY id",
    )?;
    let mut rows = rows.query([])?;
    while let Some(row) = rows.next()? {
        let (id, body, source, project): (i64, String, String, String) =
            (row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?);
        conn.execute(
            "INSERT OR IGNORE INTO scopes(project) VALUES (?1)",
            [&project],
        )?;
        let n: i64 = conn.query_row(
            "SELECT id FROM scopes WHERE project = ?1",
            [&project],
            |r| r.get(0),
        )?;
        let (head, token) = (head_v6(&body), scope_token_v7(n));
        conn.prepare_cached(
            "INSERT INTO memory(rowid, body, source, scope) VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(rusqlite::params![id, head, source, token])?;
        conn.prepare_cached("INSERT INTO memorygram(rowid, body, scope) VALUES (?1, ?2, ?3)")?
            .execute(rusqlite::params![id, head, token])?;
        let (words, grams) = size_v7(head, &source);
        conn.prepare_cached(
            "UPDATE scopes SET docs = docs + 1, words = words + ?2, grams = grams + ?3 \
             WHERE id = ?1",
        )?
        .execute(rusqlite::params![n, words, grams])?;
    }
    Ok(())
}

/// Migration 8: each global memory superseded by a project memory, and not forgotten, is live
/// again: indexed as migration 7 indexed (`head_v6`, `scope_token_v7`, `size_v7`), with a
/// `restore-supersede` entry in its history naming the project memory.
fn unhide_global_v8(conn: &Connection) -> Result<()> {
    let hidden: Vec<(i64, i64, String, String)> = conn
        .prepare(
            "SELECT g.id, g.superseded_by, g.body, g.source FROM memories g \
             JOIN memories p ON p.id = g.superseded_by \
             WHERE g.project IS NULL AND p.project IS NOT NULL AND g.forgotten_at IS NULL",
        )?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<rusqlite::Result<_>>()?;
    if hidden.is_empty() {
        return Ok(());
    }
    conn.execute("INSERT OR IGNORE INTO scopes(project) VALUES ('')", [])?;
    let n: i64 = conn.query_row("SELECT id FROM scopes WHERE project = ''", [], |r| r.get(0))?;
    let at: i64 = conn.query_row("SELECT unixepoch()", [], |r| r.get(0))?;
    for (id, by, body, source) in hidden {
        conn.execute(
            "UPDATE memories SET superseded_by = NULL, updated_at = ?2 WHERE id = ?1",
            rusqlite::params![id, at],
        )?;
        conn.execute(
            "INSERT INTO history(memory_id, at, action, other_id) \
             VALUES (?1, ?2, 'restore-supersede', ?3)",
            rusqlite::params![id, at, by],
        )?;
        let (head, token) = (head_v6(&body), scope_token_v7(n));
        conn.execute(
            "INSERT INTO memory(rowid, body, source, scope) VALUES (?1, ?2, ?3, ?4)",
            rusqlite::params![id, head, source, token],
        )?;
        conn.execute(
            "INSERT INTO memorygram(rowid, body, scope) VALUES (?1, ?2, ?3)",
            rusqlite::params![id, head, token],
        )?;
        let (words, grams) = size_v7(head, &source);
        conn.execute(
            "UPDATE scopes SET docs = docs + 1, words = words + ?2, grams = grams + ?3 \
             WHERE id = ?1",
            rusqlite::params![n, words, grams],
        )?;
    }
    Ok(())
}

/// Migration 7's scope token: scope `n` as three characters of plane 15's private-use area, in
/// base 65,534.
pub(crate) fn scope_token_v7(n: i64) -> String {
    [n / (65_534 * 65_534), n / 65_534, n]
        .into_iter()
        .map(|d| char::from_u32(0xF_0000 + d.rem_euclid(65_534) as u32).unwrap_or('\u{F0000}'))
        .collect()
}

/// Migration 7's row size: (word tokens of the head and the source, plus the scope's; trigrams
/// of the head, plus the scope's). A word is a run of letters and digits.
pub(crate) fn size_v7(head: &str, source: &str) -> (i64, i64) {
    let count = |text: &str| {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .count() as i64
    };
    let chars = head.chars().count() as i64;
    (count(head) + count(source) + 1, (chars - 2).max(0) + 1)
}

/// Copy the whole database aside (`synapse.db.vN.bak`, N its schema version) before changing
/// its schema. The copy is made under a name of this process's own, private from the start, and
/// renamed into place when whole; a copy of a store another process has already migrated is
/// dropped (that process kept its own).
fn backup(conn: &Connection, path: &Path) -> Result<()> {
    let temp = path.with_extension(format!("db.{}.bak-tmp", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&temp)
        .with_context(|| format!("could not create the backup {}", temp.display()))?;
    let temp_text = temp
        .to_str()
        .with_context(|| format!("backup path {} is not UTF-8", temp.display()))?;
    let copied = conn
        .execute("VACUUM INTO ?1", [temp_text])
        .with_context(|| format!("could not back up {} before migrating", path.display()))
        .and_then(|_| {
            let copy = Connection::open(&temp)?;
            user_version(&copy)
        });
    let version = match copied {
        Ok(version) => version,
        Err(e) => {
            remove(&temp)?;
            return Err(e);
        }
    };
    if version == LATEST {
        return remove(&temp);
    }
    let target = path.with_extension(format!("db.v{version}.bak"));
    std::fs::rename(&temp, &target)
        .with_context(|| format!("could not move the backup into {}", target.display()))
}

fn remove(path: &Path) -> Result<()> {
    std::fs::remove_file(path).with_context(|| format!("could not remove {}", path.display()))
}

#[cfg(test)]
mod released;

#[cfg(test)]
mod tests {
    use super::{folded_v3, head_v6, scope_token_v7, size_v7};
    use crate::store::index::{self, HEAD_BYTES};
    use crate::text::duplicate::hash;

    /// The live hash may only change with a migration that recomputes the stored values.
    #[test]
    fn the_live_duplicate_hash_is_still_migration_3s() {
        for text in [
            "",
            "Use pnpm, not npm.",
            "timeout 1.5s vs 15s",
            "Configuração Élan — ok!",
            "漢字 and ñu 😀 1,000",
            "a.b 3-4 5 .6",
        ] {
            assert_eq!(folded_v3(text), hash(text), "{text:?}");
        }
    }

    /// Migrations 6, 7 and 8 indexed and counted rows by their own frozen rules. While the live
    /// rules agree, a row they indexed leaves the indexes and the counts exactly as
    /// `index::remove` expects; a change to a live rule needs a migration that re-indexes.
    #[test]
    fn the_live_index_rules_are_still_migrations_6_and_7s() {
        let bodies = [
            String::new(),
            "Retry the webhook 3 times, then give up.".into(),
            "--a--b-- ..c".into(),
            "ab".into(),
            "Configuração Élan — ok! 漢字 and ñu 😀 1,000".into(),
            "nul\0inside\0\0words \0".into(),
            "word ".repeat(3_000),
            "a".repeat(20_000),
            format!("{}é and more past the cut", "x".repeat(HEAD_BYTES - 1)),
            format!("{}€€", "b".repeat(HEAD_BYTES - 2)),
            format!("{}😀 past the cut", "c".repeat(HEAD_BYTES - 3)),
            "連接池の大きさ ".repeat(1_000),
        ];
        for body in &bodies {
            let opening: String = body.chars().take(30).collect();
            let head = index::head(body);
            assert_eq!(head, head_v6(body), "{opening:?}, {} bytes", body.len());
            for source in ["", "cli", "stop hook: café", "a\0b"] {
                let size = index::Size::of(head, source);
                let frozen = size_v7(head, source);
                assert_eq!(
                    (size.words, size.grams),
                    frozen,
                    "{opening:?} from {source:?}"
                );
            }
        }
        const BASE: i64 = 65_534;
        let edges = [
            BASE - 1,
            BASE,
            BASE + 1,
            BASE * BASE - 1,
            BASE * BASE,
            BASE * BASE + 1,
            BASE * BASE * BASE - 1,
            BASE * BASE * BASE,
            i64::MAX,
        ];
        for n in (0..200_000).step_by(7).chain(edges) {
            assert_eq!(index::scope_token(n), scope_token_v7(n), "scope {n}");
        }
    }

    /// A store at version 11 gains the table of dismissed findings, after a backup, and keeps
    /// its memories.
    #[test]
    fn migration_12_adds_dismissed_findings_to_a_version_11_store() {
        let dir = tempfile::tempdir().unwrap();
        let scope = crate::store::Scope::project("p");
        let id = {
            let mut store = crate::store::Store::open(dir.path()).unwrap();
            let memory = crate::store::write::NewMemory {
                body: "Use pnpm.".into(),
                project: Some("p".into()),
                ..Default::default()
            };
            let id = store.remember(&memory, &[], &scope).unwrap().id;
            // Back to version 11 as it shipped: no table of dismissals (nor what came after).
            store.conn().execute_batch(UNDO_15).unwrap();
            store.conn().execute_batch(UNDO_14).unwrap();
            store
                .conn()
                .execute_batch("DROP TABLE dismissed; PRAGMA user_version = 11;")
                .unwrap();
            id
        };
        let mut store = crate::store::Store::open(dir.path()).unwrap();
        assert!(dir.path().join("synapse.db.v11.bak").exists());
        let version: i64 = store
            .conn()
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(version, super::LATEST);
        store
            .dismiss("stale", id, None, "x.rs is gone", &scope)
            .unwrap();
        assert_eq!(store.dismissals(&scope).unwrap()[0].id, id);
        assert_eq!(store.get(id, &scope).unwrap().unwrap().body, "Use pnpm.");
    }

    /// A store at version 12 (ids counted without AUTOINCREMENT), whose newest memory was
    /// deleted with something still naming it, is rebuilt: every id kept and found by search as
    /// before, ids counted past every id still named, and what named a deleted memory gone.
    #[test]
    fn migration_13_counts_ids_past_every_id_still_named() {
        let dir = tempfile::tempdir().unwrap();
        let scope = crate::store::Scope::project("p");
        let (kept, deleted) = {
            let mut store = crate::store::Store::open(dir.path()).unwrap();
            let kept =
                crate::store::remember_at(&mut store, "Use pnpm for installs", Some("p"), None);
            let deleted =
                crate::store::remember_at(&mut store, "Deploys on Fridays", Some("p"), None);
            // Back to version 12 as it shipped: what came after taken out, the table without
            // AUTOINCREMENT; then the newest memory deleted as a fold did then, a teammate's
            // shared memory still bound to it.
            store.conn().execute_batch(UNDO_15).unwrap();
            store.conn().execute_batch(UNDO_14).unwrap();
            store
                .conn()
                .execute_batch(&format!(
                    "PRAGMA foreign_keys = off;
                     CREATE TABLE memories_v12 (
                        id INTEGER PRIMARY KEY, project TEXT, source TEXT NOT NULL DEFAULT '',
                        created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
                        superseded_by INTEGER REFERENCES memories(id), forgotten_at INTEGER,
                        folded INTEGER, body TEXT NOT NULL);
                     INSERT INTO memories_v12 SELECT * FROM memories;
                     DROP TABLE memories;
                     ALTER TABLE memories_v12 RENAME TO memories;
                     CREATE INDEX memories_recent ON memories(created_at, id)
                        WHERE superseded_by IS NULL AND forgotten_at IS NULL;
                     CREATE INDEX memories_project ON memories(project, id);
                     CREATE INDEX memories_folded ON memories(project, folded);
                     DELETE FROM sqlite_sequence;
                     PRAGMA foreign_keys = on;
                     PRAGMA user_version = 12;
                     INSERT INTO shared(project, uid, memory_id, author, mine, state_at,
                        withdrawn, replaced_by, replaced) VALUES ('p', 'u1', {deleted}, 'a', 0, 0,
                        0, NULL, 0);"
                ))
                .unwrap();
            let mut tally = crate::store::index::Tally::default();
            let row = crate::store::write::IndexedRow::read(store.conn(), deleted).unwrap();
            crate::store::index::remove(store.conn(), &mut tally, &row.entry()).unwrap();
            tally.write(store.conn()).unwrap();
            store
                .conn()
                .execute_batch(&format!(
                    "DELETE FROM history WHERE memory_id = {deleted};
                     DELETE FROM memories WHERE id = {deleted};"
                ))
                .unwrap();
            (kept, deleted)
        };
        let mut store = crate::store::Store::open(dir.path()).unwrap();
        assert!(dir.path().join("synapse.db.v12.bak").exists());
        let next = crate::store::remember_at(&mut store, "Deploys on Tuesdays", Some("p"), None);
        assert!(
            next > deleted,
            "memory {next} took deleted memory {deleted}'s id"
        );
        let found = crate::recall::recall(
            &store,
            &scope,
            "pnpm installs",
            &crate::recall::Options::default(),
        )
        .unwrap();
        assert_eq!(found.results[0].id, kept);
        let bound: Option<i64> = store
            .conn()
            .query_row("SELECT memory_id FROM shared WHERE uid = 'u1'", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(bound, None);
        let sql: String = store
            .conn()
            .query_row(
                "SELECT sql FROM sqlite_master WHERE name = 'memories'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert!(sql.contains("AUTOINCREMENT"), "{sql}");
    }

    /// What migration 14 added, taken out again: a store back at version 13.
    const UNDO_14: &str = "
        DROP TABLE source_folders;
        DROP INDEX sources_kind;
        DROP INDEX sources_waiting;
        DROP INDEX sources_cut;
        CREATE INDEX sources_project ON sources(project);
        ALTER TABLE sources DROP COLUMN ino;
        ALTER TABLE sources DROP COLUMN imports;
        ALTER TABLE sources DROP COLUMN via;
        ALTER TABLE sources DROP COLUMN cut;
        ALTER TABLE sources DROP COLUMN problem;
        PRAGMA user_version = 13;
    ";

    /// A store at version 13 keeps its source files and their memories through migration 14,
    /// which knows none of their inodes yet (the next listing learns them without a read).
    #[test]
    fn migration_14_keeps_a_version_13_stores_source_files() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = crate::store::Store::open(dir.path()).unwrap();
            store
                .conn()
                .execute_batch(
                    "INSERT INTO sources(project, path, kind, shown, size, modified) \
                     VALUES ('/p', '/p/CLAUDE.md', 'instructions', 'CLAUDE.md', 10, 20);",
                )
                .unwrap();
            store.conn().execute_batch(UNDO_15).unwrap();
            store.conn().execute_batch(UNDO_14).unwrap();
        }
        let store = crate::store::Store::open(dir.path()).unwrap();
        assert!(dir.path().join("synapse.db.v13.bak").exists());
        let files = store
            .source_files(&crate::store::Scope::project("/p"))
            .unwrap();
        assert_eq!(files.len(), 1);
        let file = &files[0];
        assert_eq!(
            (file.size, file.modified, file.ino, file.cut),
            (10, 20, 0, 0)
        );
        assert!(file.imports.is_empty() && file.via.is_none() && file.problem.is_none());
    }

    /// What migration 15 added, taken out again: a store back at version 14.
    const UNDO_15: &str = "DROP TABLE loaded; PRAGMA user_version = 14;";

    /// A store at version 14 gains the table of the files a client reported loading.
    #[test]
    fn migration_15_adds_the_files_a_client_loaded_to_a_version_14_store() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = crate::store::Store::open(dir.path()).unwrap();
            store.conn().execute_batch(UNDO_15).unwrap();
        }
        let mut store = crate::store::Store::open(dir.path()).unwrap();
        assert!(dir.path().join("synapse.db.v14.bak").exists());
        store
            .mark_loaded("s", "/r/CLAUDE.md", "session_start")
            .unwrap();
        assert_eq!(store.loaded_files("s").unwrap().paths.len(), 1);
    }

    /// `scopes` holds one row per project and one global row: UNIQUE alone would admit any
    /// number of global (NULL) rows.
    #[test]
    fn scopes_admit_one_row_per_project_and_one_global_row() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::Store::open(dir.path()).unwrap();
        let add = |project: Option<&str>| {
            store
                .conn()
                .execute("INSERT INTO scopes(project) VALUES (?1)", [project])
        };
        for project in [None, Some("p"), Some("q")] {
            add(project).unwrap();
        }
        for project in [None, Some("p")] {
            assert!(add(project).is_err(), "a second row for {project:?}");
        }
    }
}
