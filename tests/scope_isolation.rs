//! Nothing of another project is returned, counted, scored or ordered differently (DESIGN §3):
//! random stores of several projects and global memories, and for each surface a project's
//! answers with the other projects in the store are identical to its answers without them.
//!
//! Ids differ between the two stores (the other projects take ids in between), so answers are
//! compared by body, which each memory makes unique, and ids in the hooks' text by the note each
//! names. The project's and the global memories go in in the same order and with the same times
//! in both stores. The project under test is a folder, so that the hooks (which take their scope
//! from the session's folder) see it; this file holds one test, as the hooks read the data
//! folder from the environment.

use std::path::Path;

use proptest::prelude::*;
use synapse::config::Budget;
use synapse::eval::{self, Case, Method};
use synapse::plugin::hook::{self, Event};
use synapse::recall::{self, Options};
use synapse::secrets::Secrets;
use synapse::store::write::NewMemory;
use synapse::store::{Scope, Store};

/// Words the memories and questions are made of: few enough that they overlap across projects.
const WORDS: &[&str] = &[
    "deploy",
    "webhook",
    "retry",
    "timeout",
    "postgres",
    "port",
    "cache",
    "token",
    "staging",
    "release",
    "android",
    "migration",
    "queue",
    "worker",
    "nightly",
    "backup",
    "ios",
    "lint",
];

/// One memory: which project (`None`: global; `Some(0)`: the project under test), its words and
/// a number that keeps its body unique.
#[derive(Clone, Debug)]
struct Planned {
    project: Option<u8>,
    words: Vec<usize>,
    /// 1: forgotten once stored; 2: supersedes the last memory stored in its scope.
    hide: u8,
}

fn planned() -> impl Strategy<Value = Planned> {
    (
        prop_oneof![Just(None), (0u8..4).prop_map(Some)],
        prop::collection::vec(0..WORDS.len(), 2..7),
        0u8..6,
    )
        .prop_map(|(project, words, hide)| Planned {
            project,
            words,
            hide,
        })
}

fn body(p: &Planned, n: usize) -> String {
    let words: Vec<&str> = p.words.iter().map(|&w| WORDS[w]).collect();
    format!("{} (note {n})", words.join(" "))
}

/// The key of planned project `k`: the folder for the project under test.
fn key(k: u8, folder: &Path) -> String {
    if k == 0 {
        folder.to_str().unwrap().to_owned()
    } else {
        format!("project-{k}")
    }
}

/// A store holding the planned memories, all of them or only the project's and the global ones.
fn store(plan: &[Planned], with_others: bool, folder: &Path) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    // Live memories so far, with their planned project, for supersedes within a scope.
    let mut last: Vec<(i64, Option<u8>)> = Vec::new();
    for (n, p) in plan.iter().enumerate() {
        if !with_others && p.project.is_some_and(|k| k != 0) {
            continue;
        }
        let project = p.project.map(|k| key(k, folder));
        let memory = NewMemory {
            body: body(p, n),
            source: "test".into(),
            project: project.clone(),
            created_at: Some(1_700_000_000 + n as i64 * 60),
            secrets: Secrets::Mask,
        };
        let scope = project.map_or_else(Scope::global, Scope::project);
        let id = store.remember(&memory, &[], &scope).unwrap().id;
        match p.hide {
            1 => store.forget(id, &scope).unwrap(),
            2 => {
                if let Some(&(last, _)) = last.iter().rev().find(|(_, k)| *k == p.project) {
                    store.supersede(last, id, &scope).unwrap();
                }
            }
            _ => {}
        }
        if p.hide != 1 {
            last.push((id, p.project));
        }
    }
    (dir, store)
}

/// `text` with each `[id]` replaced by the number of the note that memory holds.
fn without_ids(store: &Store, scope: &Scope, text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let digits = after.chars().take_while(char::is_ascii_digit).count();
        match (
            after[..digits].parse::<i64>(),
            after[digits..].starts_with(']'),
        ) {
            (Ok(id), true) => {
                let body = store.get(id, scope).unwrap().map(|m| m.body);
                out.push_str(&format!("[{body:?}]"));
                rest = &after[digits + 1..];
            }
            _ => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// What the hooks hand over in the project's folder: a session's start, then each question as a
/// prompt, with the data folder `data`.
fn hooked(store: &Store, data: &Path, folder: &Path, questions: &[String]) -> Vec<String> {
    std::env::set_var("SYNAPSE_DATA", data);
    let scope = Scope::project(key(0, folder));
    let payload = |event: &str, prompt: &str| {
        serde_json::json!({
            "session_id": "isolation",
            "cwd": folder,
            "hook_event_name": event,
            "source": "startup",
            "prompt": prompt,
            "last_assistant_message": prompt,
        })
        .to_string()
    };
    let mut out = Vec::new();
    let started = hook::run(Event::SessionStart, &payload("SessionStart", "")).unwrap();
    out.push(format!(
        "start: {}",
        without_ids(store, &scope, &started.context.unwrap_or_default())
    ));
    for q in questions {
        let given = hook::run(Event::UserPromptSubmit, &payload("UserPromptSubmit", q)).unwrap();
        out.push(format!(
            "prompt {q}: {}",
            without_ids(store, &scope, &given.context.unwrap_or_default())
        ));
    }
    out
}

/// What the project sees, id-free: each surface's answer as text.
fn answers(store: &Store, folder: &Path, questions: &[String]) -> Vec<String> {
    let scope = Scope::project(key(0, folder));
    let options = Options {
        budget: Budget::Balanced,
        explain: true,
        ..Options::default()
    };
    let body_of = |id: i64| store.get(id, &scope).unwrap().map(|m| m.body);
    let mut out = Vec::new();
    for q in questions {
        let found = recall::recall(store, &scope, q, &options).unwrap();
        for hit in &found.results {
            out.push(format!(
                "recall {q}: {} score {} coverage {} {}",
                hit.body, hit.score, hit.coverage, hit.text
            ));
        }
        for e in found.explain.iter().flatten() {
            out.push(format!(
                "explain {q}: {:?} {:?} {:?} {} {:?} {}",
                body_of(e.id),
                e.words.map(|p| (p.rank, p.bm25)),
                e.trigrams.map(|p| (p.rank, p.bm25)),
                e.fused,
                e.held,
                e.outcome
            ));
        }
        for f in &found.drift {
            out.push(format!(
                "recall drift {q}: {:?} {:?}",
                body_of(f.id),
                f.kind
            ));
        }
    }
    for m in store.list(&scope, true).unwrap() {
        out.push(format!("list: {}", m.body));
        let page = synapse::read::read(store, &scope, m.id, 0, 64).unwrap();
        let page = page.map(|p| (p.body, p.next, p.total));
        out.push(format!("read {}: {page:?}", m.body));
        for entry in store.history(m.id, &scope).unwrap() {
            let other = entry.other_id.map(body_of);
            out.push(format!("history {}: {} {other:?}", m.body, entry.action));
        }
    }
    let mut exported = Vec::new();
    store.export(&scope, &mut exported).unwrap();
    for line in String::from_utf8(exported).unwrap().lines() {
        let mut line: serde_json::Value = serde_json::from_str(line).unwrap();
        for field in ["id", "superseded_by"] {
            if let Some(id) = line[field].as_i64() {
                line[field] = serde_json::json!(body_of(id));
            }
        }
        // Hiding a memory stamps it with the time it happened, which differs between the runs.
        for field in ["updated_at", "forgotten_at"] {
            if !line[field].is_null() && line[field] != line["created_at"] {
                line[field] = serde_json::json!("when it was hidden");
            }
        }
        out.push(format!("export: {line}"));
    }
    for f in synapse::drift::audit(store, &scope, &Default::default()).unwrap() {
        out.push(format!("audit: {:?} {:?}", body_of(f.id), f.kind));
    }
    let cases: Vec<Case> = questions
        .iter()
        .map(|q| Case {
            query: q.clone(),
            project: Some(key(0, folder)),
            expect: Default::default(),
        })
        .collect();
    for method in [Method::Recall, Method::PlainBm25] {
        let report = eval::run(store, &cases, &options, method, false).unwrap();
        out.push(format!(
            "eval {method:?}: {} {}",
            report.noise, report.surplus
        ));
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn other_projects_change_nothing_a_project_sees(
        plan in prop::collection::vec(planned(), 10..60),
        asked in prop::collection::vec(prop::collection::vec(0..WORDS.len(), 1..4), 1..5),
    ) {
        let questions: Vec<String> = asked
            .iter()
            .map(|ws| ws.iter().map(|&w| WORDS[w]).collect::<Vec<_>>().join(" "))
            .collect();
        let folder = tempfile::tempdir().unwrap();
        let folder = folder.path().canonicalize().unwrap();
        let (a, alone) = store(&plan, false, &folder);
        let (b, shared) = store(&plan, true, &folder);
        prop_assert_eq!(answers(&alone, &folder, &questions), answers(&shared, &folder, &questions));
        prop_assert_eq!(
            hooked(&alone, a.path(), &folder, &questions),
            hooked(&shared, b.path(), &folder, &questions)
        );
    }
}
