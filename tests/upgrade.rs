//! Stores written by earlier versions of Synapse, opened by this one: every memory kept, a
//! backup first, and the schema brought up to date, also when many processes open it at once.
//!
//! The old files are made here from the schema as those versions wrote it (copied, frozen, into
//! this file), not by undoing today's migrations.

mod common;

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

/// The schema as version `v` (1 to 6) wrote it, from the two frozen above: version 1 differs from 2
/// only in the indexes' settings, 3 from 4 by the `injected` table, 5 adds `drained` to 4, and 6
/// moves the body to the end of each row.
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
    let made = synapse(&fresh, &["list"]);
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
