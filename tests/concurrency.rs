//! Many processes on one store at once, as when several Claude Code sessions run beside the
//! command line: every acknowledged write and every lesson is there afterwards, and the store is
//! sound.
//!
//! Writers (`synapse remember`, `forget`, `supersede`) and hook processes (SessionStart,
//! UserPromptSubmit, and Stop with a lesson) each run in a loop on their own thread until the
//! time is up. The test runs a short version; `bench/concurrency.sh` runs the full one (16
//! processes for 30 seconds) through the same code:
//!
//! `SYNAPSE_STRESS_SECS` (default 3), `SYNAPSE_STRESS_WRITERS` (8), `SYNAPSE_STRESS_HOOKS` (8).

use crate::common::place::Place;

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// What the threads saw acknowledged, and what failed.
#[derive(Default)]
struct Ledger {
    /// Body of each acknowledged `remember`, by id.
    remembered: HashMap<i64, String>,
    forgotten: HashSet<i64>,
    superseded: Vec<(i64, i64)>,
    /// Lessons handed to a Stop hook that exited 0 silently.
    lessons: Vec<String>,
    hook_runs: usize,
    failures: Vec<String>,
}

fn writer(place: &Place, w: u64, until: Instant, ledger: &Mutex<Ledger>) {
    let mut mine: Vec<i64> = Vec::new();
    let mut n = 0u64;
    while Instant::now() < until {
        n += 1;
        let (args, what): (Vec<String>, &str) = match n % 5 {
            3 if mine.len() > 2 => (vec!["forget".into(), mine.remove(0).to_string()], "forget"),
            4 if mine.len() > 2 => {
                let old = mine.remove(0);
                let new = mine[0];
                (
                    vec!["supersede".into(), old.to_string(), new.to_string()],
                    "supersede",
                )
            }
            _ => (
                vec![
                    "remember".into(),
                    format!("writer {w} note {n}: webhook retries settle after attempt {n}"),
                ],
                "remember",
            ),
        };
        let mut full = args.clone();
        full.push("--json".into());
        let refs: Vec<&str> = full.iter().map(String::as_str).collect();
        let out = place.synapse(&refs, b"");
        let mut ledger = ledger.lock().unwrap();
        if !out.status.success() {
            ledger.failures.push(format!(
                "synapse {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
            continue;
        }
        match what {
            "remember" => {
                let v: Value = serde_json::from_slice(&out.stdout).unwrap();
                let id = v["id"].as_i64().unwrap();
                ledger.remembered.insert(id, args[1].clone());
                mine.push(id);
            }
            "forget" => {
                ledger.forgotten.insert(args[1].parse().unwrap());
            }
            _ => {
                let pair = (args[1].parse().unwrap(), args[2].parse().unwrap());
                ledger.superseded.push(pair);
            }
        }
    }
}

fn hooks(place: &Place, h: u64, until: Instant, ledger: &Mutex<Ledger>) {
    let mut n = 0u64;
    while Instant::now() < until {
        n += 1;
        let session = format!("session-{h}-{}", n / 3);
        let (name, payload, lesson) = match n % 3 {
            0 => (
                "synapse-session-start",
                json!({"session_id": session, "cwd": place.repo, "source": "startup"}),
                None,
            ),
            1 => (
                "synapse-prompt-submit",
                json!({"session_id": session, "cwd": place.repo,
                       "prompt": "how many times do webhook retries happen?"}),
                None,
            ),
            _ => {
                let lesson = format!("hook {h} lesson {n}: deploys wait for the canary");
                (
                    "synapse-stop",
                    json!({"session_id": session, "cwd": place.repo,
                           "last_assistant_message": format!("Done.\nremember: {lesson}")}),
                    Some(lesson),
                )
            }
        };
        let out = place.hook_output(name, &payload);
        let mut ledger = ledger.lock().unwrap();
        ledger.hook_runs += 1;
        // Stop gives the model nothing: at most the person's line of what it saved.
        let person_only = || {
            let printed: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
            let line = printed["systemMessage"].as_str().unwrap_or_default();
            printed.as_object().is_some_and(|o| o.len() == 1)
                && (line.starts_with("Synapse saved #") || line.starts_with("Synapse will save"))
        };
        let silent = out.stderr.is_empty()
            && (name != "synapse-stop" || out.stdout.is_empty() || person_only());
        if !out.status.success() || !silent {
            ledger.failures.push(format!("{name}: {out:?}"));
        } else if let Some(lesson) = lesson {
            ledger.lessons.push(lesson);
        }
    }
}

#[test]
fn writers_and_hooks_at_once_lose_nothing() {
    let secs = setting("SYNAPSE_STRESS_SECS", 3);
    let writers = setting("SYNAPSE_STRESS_WRITERS", 8);
    let hook_threads = setting("SYNAPSE_STRESS_HOOKS", 8);
    let place = Place::new("feature/webhook-retries");
    for i in 0..20 {
        let out = place.synapse(
            &[
                "remember",
                &format!("seed {i}: webhook retries back off exponentially from 200 ms"),
            ],
            b"",
        );
        assert!(out.status.success(), "{out:?}");
    }
    let ledger = Mutex::new(Ledger::default());
    let until = Instant::now() + Duration::from_secs(secs);
    std::thread::scope(|scope| {
        for w in 0..writers {
            let (place, ledger) = (&place, &ledger);
            scope.spawn(move || writer(place, w, until, ledger));
        }
        for h in 0..hook_threads {
            let (place, ledger) = (&place, &ledger);
            scope.spawn(move || hooks(place, h, until, ledger));
        }
    });
    // One more write drains whatever the hooks spooled.
    let out = place.synapse(&["remember", "the last write of the run"], b"");
    assert!(out.status.success(), "{out:?}");

    let ledger = ledger.into_inner().unwrap();
    let listed = place.synapse(&["list", "--all", "--json"], b"");
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let rows: HashMap<i64, &Value> = listed["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["id"].as_i64().unwrap(), m))
        .collect();
    let mut lost = Vec::new();
    for (id, body) in &ledger.remembered {
        if rows.get(id).and_then(|m| m["body"].as_str()) != Some(body) {
            lost.push(format!("remember {id} ({body})"));
        }
    }
    for id in &ledger.forgotten {
        if rows.get(id).is_none_or(|m| m["forgotten_at"].is_null()) {
            lost.push(format!("forget {id}"));
        }
    }
    for (old, new) in &ledger.superseded {
        if rows.get(old).and_then(|m| m["superseded_by"].as_i64()) != Some(*new) {
            lost.push(format!("supersede {old} {new}"));
        }
    }
    let mut lessons_lost = 0;
    for lesson in &ledger.lessons {
        let copies = rows
            .values()
            .filter(|m| m["body"].as_str() == Some(lesson))
            .count();
        if copies != 1 {
            lessons_lost += 1;
            lost.push(format!("lesson {lesson:?} stored {copies} times"));
        }
    }
    let log = std::fs::read_to_string(place.data.join("synapse.log")).unwrap_or_default();
    let db = rusqlite::Connection::open(place.data.join("synapse.db")).unwrap();
    let integrity: String = db
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    let spooled: i64 = db
        .query_row("SELECT count(*) FROM drained", [], |r| r.get(0))
        .unwrap();
    let writes = ledger.remembered.len() + ledger.forgotten.len() + ledger.superseded.len();
    eprintln!(
        "{} processes for {secs} s: {writes} writes acknowledged, {} failed; {} hook runs; \
         {} lessons, {lessons_lost} lost ({spooled} went through the spool); integrity {integrity}",
        writers + hook_threads,
        ledger.failures.len(),
        ledger.hook_runs,
        ledger.lessons.len()
    );
    assert!(ledger.failures.is_empty(), "{:#?}", ledger.failures);
    assert!(lost.is_empty(), "{lost:#?}");
    assert!(log.is_empty(), "a hook logged a failure:\n{log}");
    assert_eq!(integrity, "ok");
    assert!(writes > 0 && !ledger.lessons.is_empty());
}
