//! Stores written by earlier versions of Synapse, opened by this one: every memory kept, a
//! backup first, and the schema brought up to date, also when many processes open it at once.
//!
//! The old files are made here from the schema as those versions wrote it (copied, frozen, into
//! this file), not by undoing today's migrations.

use crate::common;

use std::path::Path;
use std::process::Output;

use rstest::rstest;
use rusqlite::Connection;
use serde_json::Value;

/// The schema of version 4 (migrations 1 to 4), as Synapse wrote it: the body second in each
/// row, and bodies indexed whole.
const SCHEMA_V4: &str = r#"
    CREATE TABLE memories (
        id            INTEGER PRIMARY KEY,
        body          TEXT NOT NULL,
        source        TEXT NOT NULL DEFAULT '',
        project       TEXT,
        created_at    INTEGER NOT NULL,
        updated_at    INTEGER NOT NULL,
        superseded_by INTEGER REFERENCES memories(id),
        forgotten_at  INTEGER,
        folded        INTEGER
    );
    CREATE INDEX memories_recent ON memories(created_at, id)
        WHERE superseded_by IS NULL AND forgotten_at IS NULL;
    CREATE INDEX memories_project ON memories(project, id);
    CREATE INDEX memories_folded ON memories(project, folded);
    CREATE TABLE history (
        id        INTEGER PRIMARY KEY,
        memory_id INTEGER NOT NULL REFERENCES memories(id),
        at        INTEGER NOT NULL,
        action    TEXT NOT NULL,
        other_id  INTEGER
    );
    CREATE INDEX history_memory ON history(memory_id, id);
    CREATE VIRTUAL TABLE memory USING fts5(
        body, source, content = 'memories', content_rowid = 'id',
        tokenize = 'porter unicode61 remove_diacritics 2'
    );
    CREATE VIRTUAL TABLE memorygram USING fts5(
        body, content = 'memories', content_rowid = 'id',
        tokenize = 'trigram remove_diacritics 1'
    );
    CREATE TABLE injected (
        session   TEXT NOT NULL,
        memory_id INTEGER NOT NULL REFERENCES memories(id),
        at        INTEGER NOT NULL,
        PRIMARY KEY (session, memory_id)
    ) WITHOUT ROWID;
    PRAGMA user_version = 4;
"#;

/// The schema of version 2: no `folded` column, no `injected` table.
const SCHEMA_V2: &str = r#"
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
        body, source, content = 'memories', content_rowid = 'id',
        tokenize = 'porter unicode61 remove_diacritics 2'
    );
    CREATE VIRTUAL TABLE memorygram USING fts5(
        body, content = 'memories', content_rowid = 'id',
        tokenize = 'trigram remove_diacritics 1'
    );
    PRAGMA user_version = 2;
"#;

/// What migrations 7 to 9 added to version 6, as they wrote it: contentless indexes with a scope
/// token in each row (replacing version 6's), `scopes` keying the global memories' scope `''`, and
/// the `shared` table.
const SINCE_V6_TO_V9: &str = r#"
    CREATE TABLE scopes (
        id      INTEGER PRIMARY KEY,
        project TEXT NOT NULL UNIQUE,
        docs    INTEGER NOT NULL DEFAULT 0,
        words   INTEGER NOT NULL DEFAULT 0,
        grams   INTEGER NOT NULL DEFAULT 0
    );
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
    PRAGMA application_id = 1398361665;
    PRAGMA user_version = 9;
"#;

/// The schema as version `v` (1 to 6, and 9) wrote it, from the three frozen above: version 1
/// differs from 2 only in the indexes' settings, 3 from 4 by the `injected` table, 5 adds `drained`
/// to 4, 6 moves the body to the end of each row, and 9 is 6 with the indexes migrations 7 to 9
/// made.
fn schema_at(v: i64) -> String {
    const DRAINED: &str = "CREATE TABLE drained (key TEXT PRIMARY KEY, at INTEGER NOT NULL) \
                           WITHOUT ROWID;";
    let v4 = SCHEMA_V4.replace("PRAGMA user_version = 4;", "");
    let injected = v4.find("    CREATE TABLE injected").unwrap();
    match v {
        1 => SCHEMA_V2.replace("user_version = 2", "user_version = 1"),
        2 => SCHEMA_V2.to_owned(),
        3 => format!("{}PRAGMA user_version = 3;", &v4[..injected]),
        4 => SCHEMA_V4.to_owned(),
        5 => format!("{v4}{DRAINED} PRAGMA user_version = 5;"),
        6 => {
            // Migration 6 made the table under another name and renamed it, which SQLite records
            // by quoting the name; the body went last, the project before the source.
            const MEMORIES_V6: &str = r#"CREATE TABLE "memories" (
                id INTEGER PRIMARY KEY, project TEXT, source TEXT NOT NULL DEFAULT '',
                created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
                superseded_by INTEGER REFERENCES memories(id), forgotten_at INTEGER,
                folded INTEGER, body TEXT NOT NULL
            );"#;
            let start = v4.find("    CREATE TABLE memories").unwrap();
            let end = start + v4[start..].find(");").unwrap() + 2;
            let rest = format!("{}{}", &v4[..start], &v4[end..]);
            format!("{MEMORIES_V6}{rest}{DRAINED} PRAGMA user_version = 6;")
        }
        9 => {
            let v6 = schema_at(6).replace("PRAGMA user_version = 6;", "");
            let start = v6.find("    CREATE VIRTUAL TABLE memory ").unwrap();
            let end = v6.find("    CREATE TABLE injected").unwrap();
            format!("{}{}{SINCE_V6_TO_V9}", &v6[..start], &v6[end..])
        }
        _ => unreachable!("no released version {v}"),
    }
}

/// Make `data/synapse.db` with `schema`, holding `bodies` as live memories of project `p`,
/// indexed as that version indexed them (whole).
fn old_store(data: &Path, schema: &str, bodies: &[&str]) {
    std::fs::create_dir_all(data).unwrap();
    let conn = Connection::open(data.join("synapse.db")).unwrap();
    conn.execute_batch(schema).unwrap();
    for (i, body) in bodies.iter().enumerate() {
        let id = i as i64 + 1;
        conn.execute(
            "INSERT INTO memories(id, body, source, project, created_at, updated_at) \
             VALUES (?1, ?2, 'old', 'p', 1700000000, 1700000000)",
            rusqlite::params![id, body],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO memory(rowid, body, source) VALUES (?1, ?2, 'old')",
            rusqlite::params![id, body],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO memorygram(rowid, body) VALUES (?1, ?2)",
            rusqlite::params![id, body],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO history(memory_id, at, action) VALUES (?1, 1700000000, 'remember')",
            [id],
        )
        .unwrap();
    }
    // Versions 3 on stored the folded-text hash of each body.
    if schema.contains("folded") {
        for (i, body) in bodies.iter().enumerate() {
            conn.execute(
                "UPDATE memories SET folded = ?2 WHERE id = ?1",
                rusqlite::params![i as i64 + 1, synapse::text::duplicate::hash(body)],
            )
            .unwrap();
        }
    }
}

/// Make `data/synapse.db` at version 9 holding `memories` (a body and its project, `None` for a
/// global one) as live memories from the source `old`, the nth created at 1700000000 + n, written
/// as version 9 wrote them: each indexed by its head with its scope's token and counted in its
/// scope, the global scope keyed `''`.
fn store_v9(data: &Path, memories: &[(&str, Option<&str>)]) {
    use rusqlite::params;
    use synapse::store::index::{head, scope_token, Size};
    std::fs::create_dir_all(data).unwrap();
    let conn = Connection::open(data.join("synapse.db")).unwrap();
    conn.execute_batch(&schema_at(9)).unwrap();
    for (i, &(body, project)) in memories.iter().enumerate() {
        let (id, at) = (i as i64 + 1, 1_700_000_001 + i as i64);
        let folded = synapse::text::duplicate::hash(body);
        conn.execute(
            "INSERT INTO memories(id, project, source, created_at, updated_at, folded, body) \
             VALUES (?1, ?2, 'old', ?3, ?3, ?4, ?5)",
            params![id, project, at, folded, body],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO history(memory_id, at, action) VALUES (?1, ?2, 'remember')",
            [id, at],
        )
        .unwrap();
        let key = project.unwrap_or("");
        conn.execute("INSERT OR IGNORE INTO scopes(project) VALUES (?1)", [key])
            .unwrap();
        let n: i64 = conn
            .query_row("SELECT id FROM scopes WHERE project = ?1", [key], |r| {
                r.get(0)
            })
            .unwrap();
        let (head, token) = (head(body), scope_token(n));
        conn.execute(
            "INSERT INTO memory(rowid, body, source, scope) VALUES (?1, ?2, 'old', ?3)",
            params![id, head, token],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO memorygram(rowid, body, scope) VALUES (?1, ?2, ?3)",
            params![id, head, token],
        )
        .unwrap();
        let size = Size::of(head, "old");
        conn.execute(
            "UPDATE scopes SET docs = docs + 1, words = words + ?2, grams = grams + ?3 \
             WHERE id = ?1",
            params![n, size.words, size.grams],
        )
        .unwrap();
    }
}

/// Each scope of the store at `db`: its number, project and counts (rows, words, trigrams).
type ScopeRow = (i64, Option<String>, i64, i64, i64);

fn scopes_of(db: &Path) -> Vec<ScopeRow> {
    Connection::open(db)
        .unwrap()
        .prepare("SELECT id, project, docs, words, grams FROM scopes ORDER BY id")
        .unwrap()
        .query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// The schema of the store at `db`: every table, index and trigger with its SQL, and the two
/// header fields Synapse sets.
fn schema_of(db: &Path) -> Vec<String> {
    let conn = Connection::open(db).unwrap();
    let mut rows: Vec<String> = conn
        .prepare("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
        .unwrap()
        .query_map([], |r| {
            // The SQL as written, without its layout.
            let sql: Option<String> = r.get(3)?;
            let sql = sql.map(|s| s.split_whitespace().collect::<String>());
            Ok(format!(
                "{} {} {} {sql:?}",
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    for pragma in ["user_version", "application_id"] {
        let value: i64 = conn.pragma_query_value(None, pragma, |r| r.get(0)).unwrap();
        rows.push(format!("{pragma} {value}"));
    }
    rows
}

fn synapse(data: &Path, args: &[&str]) -> Output {
    common::run_synapse(data, data.parent().unwrap(), args, b"")
}

fn json(data: &Path, args: &[&str]) -> Value {
    let mut args = args.to_vec();
    args.push("--json");
    let out = synapse(data, &args);
    assert!(
        out.status.success(),
        "synapse {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn version(path: &Path) -> i64 {
    Connection::open(path)
        .unwrap()
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap()
}

/// FTS5's own check of both indexes (internal consistency; a long body is indexed by its head,
/// so the index is not compared with the whole stored text).
fn indexes_are_sound(db: &Path) {
    let conn = Connection::open(db).unwrap();
    for table in ["memory", "memorygram"] {
        conn.execute(
            &format!("INSERT INTO {table}({table}, rank) VALUES ('integrity-check', 0)"),
            [],
        )
        .unwrap_or_else(|e| panic!("{table} failed its integrity check: {e}"));
    }
    let ok: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ok, "ok");
}

#[test]
fn a_version_2_store_is_backed_up_then_migrated_keeping_every_memory() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    old_store(&data, SCHEMA_V2, &["kept across the upgrade"]);
    let db = data.join("synapse.db");

    let listed = json(&data, &["list", "--project", "p"]);
    assert!(
        listed.to_string().contains("kept across the upgrade"),
        "{listed}"
    );
    let found = json(&data, &["recall", "upgrade", "--project", "p"]);
    assert_eq!(found["results"].as_array().unwrap().len(), 1, "{found}");
    assert!(version(&db) >= 6);
    let folded: Option<i64> = Connection::open(&db)
        .unwrap()
        .query_row("SELECT folded FROM memories", [], |r| r.get(0))
        .unwrap();
    assert!(
        folded.is_some(),
        "migration 3 fills in the hash of existing memories"
    );

    let backup = data.join("synapse.db.v2.bak");
    assert_eq!(version(&backup), 2, "the backup is the file as it was");
    let body: String = Connection::open(&backup)
        .unwrap()
        .query_row("SELECT body FROM memories", [], |r| r.get(0))
        .unwrap();
    assert_eq!(body, "kept across the upgrade");
    let mode = std::os::unix::fs::MetadataExt::mode(&std::fs::metadata(&backup).unwrap());
    assert_eq!(
        mode & 0o777,
        0o600,
        "the backup holds every memory: private"
    );
    indexes_are_sound(&db);
}

#[test]
fn migration_6_puts_the_body_last_and_indexes_a_long_body_by_its_head() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    // Two old memories: one short, one of 40 KiB whose last word lies past the head.
    let long = format!(
        "opening words of a pasted log {} trailingmarker",
        "filler text line\n".repeat(2_400)
    );
    old_store(&data, SCHEMA_V4, &["a short note on quokkas", &long]);
    let db = data.join("synapse.db");

    let found = json(&data, &["recall", "pasted", "log", "--project", "p"]);
    assert_eq!(found["results"][0]["id"], 2, "{found}");
    assert_eq!(found["results"][0]["abridged"], true, "{found}");
    assert_eq!(found["results"][0]["bytes"], long.len(), "{found}");
    let past_head = json(&data, &["recall", "trailingmarker", "--project", "p"]);
    assert!(
        past_head["results"].as_array().unwrap().is_empty(),
        "a word past the head is no longer indexed: {past_head}"
    );
    let columns: Vec<String> = Connection::open(&db)
        .unwrap()
        .prepare("SELECT name FROM pragma_table_info('memories')")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        columns.last().map(String::as_str),
        Some("body"),
        "{columns:?}"
    );

    // Reading gives the whole body back, byte for byte.
    let mut text = String::new();
    let mut offset = 0;
    loop {
        let page = json(
            &data,
            &[
                "read",
                "2",
                "--project",
                "p",
                "--offset",
                &offset.to_string(),
            ],
        );
        text.push_str(page["memory"]["body"].as_str().unwrap());
        match page["memory"]["next"].as_u64() {
            Some(next) => offset = next as usize,
            None => break,
        }
    }
    assert_eq!(text, long);

    // Forgetting takes the head out of the indexes exactly as it went in.
    let forgot = synapse(&data, &["forget", "2", "--project", "p"]);
    assert!(forgot.status.success(), "{forgot:?}");
    let gone = json(&data, &["recall", "pasted", "log", "--project", "p"]);
    assert!(gone["results"].as_array().unwrap().is_empty(), "{gone}");
    indexes_are_sound(&db);
    let history: i64 = Connection::open(&db)
        .unwrap()
        .query_row(
            "SELECT count(*) FROM history WHERE memory_id = 2",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(history, 2, "the old history survives the rebuild");
}

/// A new store's first users arrive together (the hooks of several sessions, a command): each
/// process either creates the store or waits for the one that does; none fails, none logs.
#[test]
fn many_processes_opening_a_new_store_at_once_all_succeed() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let cwd = dir.path().canonicalize().unwrap();
    let bin = |name: &str| {
        Path::new(env!("CARGO_BIN_EXE_synapse"))
            .parent()
            .unwrap()
            .join(name)
    };
    let children: Vec<_> = (0..24)
        .map(|i| {
            let mut command = if i % 2 == 0 {
                let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_synapse"));
                c.args(["remember", &format!("note {i} from a process of its own")]);
                c
            } else {
                std::process::Command::new(bin("synapse-prompt-submit"))
            };
            let mut child = command
                .env("SYNAPSE_DATA", &data)
                .current_dir(&cwd)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            let payload = serde_json::json!({"session_id": "s", "cwd": cwd,
                "prompt": format!("/synapse:remember lesson {i} of a hook of its own")});
            let mut stdin = child.stdin.take().unwrap();
            std::io::Write::write_all(&mut stdin, payload.to_string().as_bytes()).unwrap();
            drop(stdin);
            child
        })
        .collect();
    let failures: Vec<String> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .filter(|o| !o.status.success() || !o.stderr.is_empty())
        .map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
        .collect();
    assert!(failures.is_empty(), "{failures:#?}");
    let log = std::fs::read_to_string(data.join("synapse.log")).unwrap_or_default();
    assert!(log.is_empty(), "{log}");
    // A write stores whatever a hook had to spool.
    json(&data, &["remember", "the last one"]);
    let listed = json(&data, &["list"]);
    assert_eq!(listed["memories"].as_array().unwrap().len(), 25, "{listed}");
    assert!(
        !data.join("synapse.db.v0.bak").exists(),
        "a new store needs no backup"
    );
}

/// A store of every released version opens with every memory, searchable, backed up first, and
/// with the schema a new store has.
#[rstest]
#[case(1)]
#[case(2)]
#[case(3)]
#[case(4)]
#[case(5)]
#[case(6)]
fn a_store_of_each_released_version_migrates_with_its_data_intact(#[case] v: i64) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let long = format!("a long pasted note {}", "more lines of it\n".repeat(1_000));
    let bodies = [
        "the deploy runs on fridays",
        "quokkas are marsupials",
        long.as_str(),
    ];
    old_store(&data, &schema_at(v), &bodies);
    let db = data.join("synapse.db");

    let listed = json(&data, &["list", "--project", "p"]);
    let listed = listed["memories"].as_array().unwrap();
    assert_eq!(listed.len(), 3, "{listed:?}");
    for (i, body) in bodies.iter().enumerate() {
        let page = json(&data, &["read", &(i + 1).to_string(), "--project", "p"]);
        assert_eq!(page["memory"]["total"], body.len(), "memory {}", i + 1);
    }
    let found = json(&data, &["recall", "quokkas", "--project", "p"]);
    assert_eq!(found["results"][0]["id"], 2, "{found}");
    assert_eq!(version(&data.join(format!("synapse.db.v{v}.bak"))), v);
    indexes_are_sound(&db);

    let fresh = dir.path().join("fresh");
    // A write makes the store (reading a missing one creates nothing).
    let made = synapse(&fresh, &["remember", "a fresh store", "--project", "p"]);
    assert!(made.status.success(), "{made:?}");
    assert_eq!(schema_of(&db), schema_of(&fresh.join("synapse.db")));
}

/// Another application's SQLite file in the data folder is refused, named, and left exactly as
/// it was, with no backup made of it.
#[rstest]
#[case::a_schema_version_of_4(
    "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); PRAGMA user_version = 4;"
)]
#[case::a_negative_version("CREATE TABLE notes (id INTEGER); PRAGMA user_version = -3;")]
#[case::another_application_id("PRAGMA application_id = 252006674;")]
#[case::version_7_without_the_id("CREATE TABLE memories (id INTEGER); PRAGMA user_version = 7;")]
fn a_file_that_is_not_a_store_is_refused_and_left_alone(#[case] setup: &str) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let db = data.join("synapse.db");
    Connection::open(&db).unwrap().execute_batch(setup).unwrap();
    let before = std::fs::read(&db).unwrap();

    let out = synapse(&data, &["list"]);
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("not a synapse store"), "{said}");
    assert!(
        std::fs::read(&db).unwrap() == before,
        "the file is unchanged"
    );
    let names: Vec<String> = std::fs::read_dir(&data)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.contains(".bak")), "{names:?}");
}

/// Before version 8 a project memory could supersede a global one, hiding it from every other
/// project; migration 8 makes such a global memory live again, with the undoing in its history.
#[test]
fn migration_8_brings_back_a_global_memory_a_project_hid() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    old_store(
        &data,
        &schema_at(6),
        &["Node 20 everywhere", "this project pins Node 22"],
    );
    let db = data.join("synapse.db");
    {
        let conn = Connection::open(&db).unwrap();
        conn.execute_batch(
            "UPDATE memories SET project = NULL WHERE id = 1;
             UPDATE memories SET superseded_by = 2 WHERE id = 1;
             INSERT INTO history(memory_id, at, action, other_id)
                 VALUES (1, 1700000000, 'supersede', 2);
             INSERT INTO memory(memory, rowid, body, source)
                 VALUES ('delete', 1, 'Node 20 everywhere', 'old');
             INSERT INTO memorygram(memorygram, rowid, body)
                 VALUES ('delete', 1, 'Node 20 everywhere');",
        )
        .unwrap();
    }
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let elsewhere = elsewhere.to_str().unwrap();
    let found = json(&data, &["recall", "node", "--project", elsewhere]);
    assert_eq!(found["results"][0]["id"], 1, "{found}");
    let history = json(&data, &["history", "1", "--project", elsewhere]);
    let actions: Vec<&str> = history["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions.last(), Some(&"restore-supersede"), "{history}");
    indexes_are_sound(&db);
}

/// Version 9 keyed the global scope `''` in `scopes` and NULL in `memories`; migration 10 keys it
/// NULL in both. A store of global and project memories migrated from version 9 is the store this
/// build writes for the same memories: the same counts in each scope, the same recall with the
/// same scores, and later writes counted in the global scope it had, not in a second one.
#[test]
fn migration_10_keys_the_global_scope_null_and_changes_no_recall() {
    let dir = tempfile::tempdir().unwrap();
    let long = format!(
        "a pasted deploy log {}",
        "retry after the timeout\n".repeat(500)
    );
    let memories = [
        ("deploys go out on fridays by release train", Some("p")),
        ("never deploy on a holiday; the release train waits", None),
        ("the cache holds 200 entries for 5 minutes", Some("p")),
        ("café menus are cached for 5 minutes", None),
        ("deploys of q run on the ARM runners", Some("q")),
        (long.as_str(), Some("p")),
        ("連接池 の 大きさ is 20 connections", Some("q")),
    ];
    let old = dir.path().join("old");
    store_v9(&old, &memories);
    let db = old.join("synapse.db");
    let before = scopes_of(&db);
    assert_eq!(before[1].1.as_deref(), Some(""), "version 9's spelling");

    // The same memories, imported by this build into a store of its own.
    let fresh = dir.path().join("fresh");
    let lines: Vec<String> = memories
        .iter()
        .enumerate()
        .map(|(i, (body, project))| {
            let at = format!("2023-11-14T22:13:{:02}Z", 21 + i);
            serde_json::json!({"body": body, "project": project, "source": "old",
                "created_at": at, "updated_at": at})
            .to_string()
        })
        .collect();
    let imported = common::run_synapse(
        &fresh,
        dir.path(),
        &["import", "-"],
        lines.join("\n").as_bytes(),
    );
    assert!(imported.status.success(), "{imported:?}");
    let fresh_db = fresh.join("synapse.db");

    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    for (query, project) in [
        ("deploy release train", "p"),
        ("cache minutes", "p"),
        ("timeout retry", "p"),
        ("deploy runners", "q"),
        ("連接池", "q"),
        ("holiday minutes", elsewhere.to_str().unwrap()),
    ] {
        let args = ["recall", query, "--project", project, "--explain"];
        let (migrated, written) = (json(&old, &args), json(&fresh, &args));
        assert!(
            !migrated["results"].as_array().unwrap().is_empty(),
            "{query}: {migrated}"
        );
        assert_eq!(migrated, written, "{query} in {project}");
    }
    assert_eq!(version(&db), synapse::store::schema::LATEST);
    assert_eq!(version(&old.join("synapse.db.v9.bak")), 9);
    let keyed_null: Vec<ScopeRow> = before
        .into_iter()
        .map(|(n, project, docs, words, grams)| {
            (n, project.filter(|p| !p.is_empty()), docs, words, grams)
        })
        .collect();
    assert_eq!(scopes_of(&db), keyed_null, "every count kept");
    assert_eq!(scopes_of(&db), scopes_of(&fresh_db));
    assert_eq!(schema_of(&db), schema_of(&fresh_db));

    // A global memory written, another forgotten: counted in the global scope both stores have.
    for data in [&old, &fresh] {
        json(data, &["remember", "--global", "always pin the toolchain"]);
        let forgot = synapse(data, &["forget", "2", "--project", "p"]);
        assert!(forgot.status.success(), "{forgot:?}");
    }
    assert_eq!(scopes_of(&db).len(), 3, "{:?}", scopes_of(&db));
    assert_eq!(scopes_of(&db), scopes_of(&fresh_db));
    indexes_are_sound(&db);
}
