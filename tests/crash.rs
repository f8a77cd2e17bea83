//! Writers killed with SIGKILL at random points (opening a new store, migrating, in the middle
//! of a transaction, while draining the spool): the store always opens, passes SQLite's
//! integrity check, and holds every write that was acknowledged before the kill; a spooled
//! lesson is stored exactly once however often its drain is cut short.

use crate::common;

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// How many writers are killed.
const KILLS: usize = 200;

/// A fixed-seed generator for kill delays (no crate needed for this much randomness).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

fn spawn(data: &Path, cwd: &Path, program: &Path, args: &[&str], stdin: &[u8]) -> Child {
    let mut child = Command::new(program)
        .args(args)
        .env("SYNAPSE_DATA", data)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    // A child killed before it reads its input closes the pipe: that is part of the test.
    drop(pipe.write_all(stdin));
    child
}

/// Let `child` run for `delay`, then SIGKILL it if it is still running. `Some(stdout)` when it
/// finished by itself with exit 0: its write was acknowledged.
fn run_then_kill(mut child: Child, delay: Duration) -> Option<String> {
    let start = Instant::now();
    while start.elapsed() < delay {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    if child.try_wait().unwrap().is_none() {
        child.kill().unwrap();
    }
    let out = child.wait_with_output().unwrap();
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The store opens (through the real binary) and passes SQLite's and FTS5's checks; the live
/// bodies it holds, by id.
fn check_store(data: &Path, cwd: &Path) -> HashMap<i64, (String, bool)> {
    let out = common::run_synapse(data, cwd, &["list", "--all", "--json"], b"");
    assert!(
        out.status.success(),
        "the store does not open: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let db = rusqlite::Connection::open(data.join("synapse.db")).unwrap();
    let integrity: String = db
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
    for table in ["memory", "memorygram"] {
        db.execute(
            &format!("INSERT INTO {table}({table}, rank) VALUES ('integrity-check', 0)"),
            [],
        )
        .unwrap_or_else(|e| panic!("{table}: {e}"));
    }
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    listed["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let id = m["id"].as_i64().unwrap();
            let body = m["body"].as_str().unwrap().to_owned();
            (id, (body, m["forgotten_at"].is_null()))
        })
        .collect()
}

/// One and a half times the median microseconds of an uninterrupted `remember` into an
/// existing store on this machine.
fn calibrate(dir: &Path, cwd: &Path) -> u64 {
    let data = dir.join("calibrate");
    let mut runs: Vec<u64> = (0..6)
        .map(|_| {
            let start = Instant::now();
            let out = common::run_synapse(&data, cwd, &["remember", "calibration"], b"");
            assert!(out.status.success(), "{out:?}");
            u64::try_from(start.elapsed().as_micros()).unwrap()
        })
        .collect();
    // The first run created the store.
    runs.remove(0);
    runs.sort_unstable();
    runs[2] * 3 / 2
}

#[test]
fn writers_killed_at_random_points_lose_no_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let cwd = dir.path();
    let lines: String = (0..20)
        .map(|i| format!("{{\"body\": \"imported line {i}\"}}\n"))
        .collect();
    let import = dir.path().join("import.jsonl");
    std::fs::write(&import, lines).unwrap();

    // Kill delays are drawn below one and a half times a writer's uninterrupted run on this
    // machine, so most kills land whatever the machine's speed (a fixed bound let most writers
    // finish once the store opened faster).
    let span = calibrate(dir.path(), cwd);
    let mut rng = Lcg(20_261_201);
    let mut remembered: HashMap<i64, String> = HashMap::new();
    let mut forgotten: Vec<i64> = Vec::new();
    let mut imported = false;
    let mut lessons: Vec<String> = Vec::new();
    let mut killed = 0;
    for i in 0..KILLS {
        let delay = Duration::from_micros(rng.below(span));
        let synapse = common::binary("synapse");
        match i % 4 {
            0 | 1 => {
                let text = format!("crash note {i}");
                let child = spawn(&data, cwd, &synapse, &["remember", &text, "--json"], b"");
                match run_then_kill(child, delay) {
                    Some(out) => {
                        let v: Value = serde_json::from_str(&out).unwrap();
                        remembered.insert(v["id"].as_i64().unwrap(), text);
                    }
                    None => killed += 1,
                }
            }
            2 => {
                let lesson = format!("crash lesson {i}");
                let payload = json!({"session_id": "s", "cwd": cwd,
                    "last_assistant_message": format!("remember: {lesson}")});
                let stop = common::binary("synapse-stop");
                let child = spawn(&data, cwd, &stop, &[], payload.to_string().as_bytes());
                match run_then_kill(child, delay) {
                    Some(_) => lessons.push(lesson),
                    None => killed += 1,
                }
            }
            _ if i % 8 == 3 && !imported => {
                let child = spawn(
                    &data,
                    cwd,
                    &synapse,
                    &["import", import.to_str().unwrap()],
                    b"",
                );
                match run_then_kill(child, delay) {
                    Some(_) => imported = true,
                    None => killed += 1,
                }
            }
            _ => {
                let Some(&id) = remembered.keys().find(|id| !forgotten.contains(id)) else {
                    continue;
                };
                let child = spawn(&data, cwd, &synapse, &["forget", &id.to_string()], b"");
                match run_then_kill(child, delay) {
                    Some(_) => forgotten.push(id),
                    None => killed += 1,
                }
            }
        }
        if !data.join("synapse.db").exists() {
            continue;
        }
        let rows = check_store(&data, cwd);
        for (id, text) in &remembered {
            assert_eq!(rows.get(id).map(|r| &r.0), Some(text), "after kill {i}");
        }
        for id in &forgotten {
            assert_eq!(
                rows.get(id).map(|r| r.1),
                Some(false),
                "forget {id}, after kill {i}"
            );
        }
        let copies = rows.values().filter(|r| r.0 == "imported line 7").count();
        assert!(
            copies == usize::from(imported) || (!imported && copies <= 1),
            "after kill {i}"
        );
    }
    // The last lessons may wait in the spool: one more write stores them.
    let out = common::run_synapse(&data, cwd, &["remember", "after the kills"], b"");
    assert!(out.status.success(), "{out:?}");
    let rows = check_store(&data, cwd);
    for lesson in &lessons {
        let copies = rows.values().filter(|r| &r.0 == lesson).count();
        assert_eq!(copies, 1, "{lesson}");
    }
    eprintln!(
        "{KILLS} writers, {killed} killed before they finished: {} remembered, {} forgotten, \
         import {imported}, {} lessons; every check passed",
        remembered.len(),
        forgotten.len(),
        lessons.len()
    );
    assert!(
        killed >= KILLS / 4,
        "too few kills landed ({killed}): the test proves little"
    );
}

#[test]
fn a_spool_drain_cut_short_stores_each_lesson_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let cwd = dir.path();
    let out = common::run_synapse(&data, cwd, &["remember", "first"], b"");
    assert!(out.status.success());

    // Another process holds the store: every lesson goes to the spool.
    let lock = rusqlite::Connection::open(data.join("synapse.db")).unwrap();
    lock.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let lessons: Vec<String> = (0..12).map(|i| format!("spooled lesson {i}")).collect();
    let children: Vec<Child> = lessons
        .iter()
        .map(|lesson| {
            let payload = json!({"session_id": "s", "cwd": cwd,
                "last_assistant_message": format!("remember: {lesson}")});
            spawn(
                &data,
                cwd,
                &common::binary("synapse-stop"),
                &[],
                payload.to_string().as_bytes(),
            )
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        // The store was locked: the person is told the lesson waits, the model nothing.
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{out:?}");
        assert_eq!(
            said.trim_end(),
            r#"{"systemMessage":"Synapse will save 1 lesson (the store was busy)"}"#
        );
    }
    lock.execute_batch("ROLLBACK").unwrap();
    drop(lock);
    let spool = std::fs::read_to_string(data.join("spool.jsonl")).unwrap();
    assert_eq!(spool.lines().count(), lessons.len(), "{spool}");

    // Drainers killed at random points until one finishes.
    let mut rng = Lcg(7);
    let mut attempts = 0;
    loop {
        attempts += 1;
        assert!(attempts < 500, "no drain ever finished");
        let delay = Duration::from_micros(rng.below(20_000));
        let text = format!("drainer {attempts}");
        let child = spawn(
            &data,
            cwd,
            &common::binary("synapse"),
            &["remember", &text],
            b"",
        );
        let finished = run_then_kill(child, delay).is_some();
        let rows = check_store(&data, cwd);
        for lesson in &lessons {
            let copies = rows.values().filter(|r| &r.0 == lesson).count();
            assert!(copies <= 1, "{lesson} stored {copies} times");
            if finished {
                assert_eq!(copies, 1, "{lesson} after a finished drain");
            }
        }
        if finished {
            break;
        }
    }
    assert_eq!(
        std::fs::metadata(data.join("spool.jsonl")).unwrap().len(),
        0
    );
    eprintln!("the spool drained exactly once after {attempts} attempts");
}
