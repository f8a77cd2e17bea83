//! The secrets corpus (`tests/fixtures/secrets/`, see its README) through all four write paths,
//! as users reach them: `synapse remember`, `/synapse:remember` (the prompt hook), a `remember:`
//! lesson in a reply (the Stop hook), and `synapse import`. Every secret must be masked whole and
//! every look-alike stored unchanged.
//!
//! The detector was tuned on `dev.toml` and `dev2.toml` (a second set, written later by another
//! hand) and is being tuned on `dev3.toml` (the families held-out sets found weakest) and
//! `dev4.toml` (half of a fourth set, split from `test4.toml` before tuning); `test.toml`
//! (the other half of the first corpus), `test2.toml` and `test3.toml` (written later still, each
//! by a hand that saw neither the detector nor the other sets) are held out. All are run and their
//! figures printed (`--nocapture`), one test for each set and path. Each set's case gives its bar
//! (`Bar`): the finished tuning sets must pass whole, the held-out sets stay at least as good as
//! when they were last measured (a floor against regressions, not a target to tune for), and
//! held-out misses are printed by kind only.

mod common;
#[path = "fixtures/secrets/corpus.rs"]
mod secrets_corpus;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use rstest::rstest;
use secrets_corpus::{corpus, leaks, Corpus};
use serde_json::json;
use WritePath::{Import, Remember, Slash, Stop};

/// One case, on its way through a write path.
struct Case {
    label: String,
    text: String,
    /// Empty for a look-alike.
    secrets: Vec<String>,
}

fn cases(c: &Corpus) -> Vec<Case> {
    let secrets = c.secret.iter().map(|s| Case {
        label: format!("secret {}", s.format),
        text: s.text.clone(),
        secrets: s.secrets.clone(),
    });
    let lookalikes = c.lookalike.iter().map(|l| Case {
        label: format!("look-alike {}", l.kind),
        text: l.text.clone(),
        secrets: Vec::new(),
    });
    secrets.chain(lookalikes).collect()
}

/// The four ways a note reaches the store.
#[derive(Clone, Copy, Debug)]
enum WritePath {
    /// `synapse remember -`.
    Remember,
    /// `/synapse:remember` (the prompt hook).
    Slash,
    /// A `<remember>` lesson in a reply (the Stop hook).
    Stop,
    /// `synapse import` of a JSON Lines file.
    Import,
}

impl WritePath {
    fn name(self) -> &'static str {
        match self {
            Remember => "remember",
            Slash => "slash",
            Stop => "stop",
            Import => "import",
        }
    }
}

fn hook(data: &Path, name: &str, payload: &serde_json::Value) {
    let out = common::run_hook(name, data, payload.to_string().as_bytes(), &[]);
    assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
}

/// Store every case through `path`, each in a project of its own (folder `case-N`); the stored
/// body of each case, by index.
fn store_all(path: WritePath, cases: &[Case], root: &Path) -> HashMap<usize, String> {
    let name = path.name();
    let data = root.join(format!("data-{name}"));
    let folder = |i: usize| {
        let f = root.join(format!("{name}-case-{i}"));
        std::fs::create_dir_all(&f).unwrap();
        f.canonicalize().unwrap()
    };
    let folders: Vec<PathBuf> = (0..cases.len()).map(folder).collect();
    if let Import = path {
        let lines: String = cases
            .iter()
            .zip(&folders)
            .map(|(c, f)| format!("{}\n", json!({"body": c.text, "project": f})))
            .collect();
        let file = root.join("import.jsonl");
        std::fs::write(&file, lines).unwrap();
        let out = common::run_synapse(&data, root, &["import", file.to_str().unwrap()], b"");
        assert!(out.status.success(), "{out:?}");
    } else {
        let chunk = cases.len().div_ceil(4);
        std::thread::scope(|scope| {
            for (part, (cs, fs)) in cases.chunks(chunk).zip(folders.chunks(chunk)).enumerate() {
                let data = &data;
                scope.spawn(move || {
                    for (c, f) in cs.iter().zip(fs) {
                        store_one(path, data, &c.text, f, part);
                    }
                });
            }
        });
    }
    // Hooks that could not get the lock in time (four run at once) spooled their write: the
    // next write stores it.
    let out = common::run_synapse(&data, root, &["remember", "drains the spool"], b"");
    assert!(out.status.success(), "{out:?}");
    let log = std::fs::read_to_string(data.join("synapse.log")).unwrap_or_default();
    assert!(log.is_empty(), "{name}: a hook failed: {log}");
    let db = rusqlite::Connection::open(data.join("synapse.db")).unwrap();
    let mut stmt = db.prepare("SELECT project, body FROM memories").unwrap();
    let rows = stmt
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
        .unwrap();
    let index: HashMap<String, usize> = folders
        .iter()
        .enumerate()
        .map(|(i, f)| (f.to_str().unwrap().to_owned(), i))
        .collect();
    rows.map(|r| r.unwrap())
        .filter_map(|(project, body)| {
            let body = match path {
                Stop => body.strip_prefix(STOP_LEAD)?.to_owned(),
                _ => body,
            };
            Some((*index.get(&project)?, body))
        })
        .collect()
}

/// What the Stop path puts on a line of its own before each case in its `<remember>` block, and
/// takes off the stored body: the Stop hook keeps only what reads as a lesson, and a case alone
/// (a private key, one masked word) is not one (`lessons::marked`), while what this test measures
/// is the masking (on a line of its own, the case is masked as it would be alone).
const STOP_LEAD: &str = "From the deploy logs:\n";

fn store_one(path: WritePath, data: &Path, text: &str, folder: &Path, part: usize) {
    let session = format!("corpus-{part}");
    match path {
        Remember => {
            let out = common::run_synapse(data, folder, &["remember", "-"], text.as_bytes());
            assert!(out.status.success(), "{out:?}");
        }
        Slash => {
            let prompt = format!("/synapse:remember {text}");
            let payload = json!({"session_id": session, "cwd": folder, "prompt": prompt});
            hook(data, "synapse-prompt-submit", &payload);
        }
        Stop => {
            let reply = format!("Done.\n<remember>{STOP_LEAD}{text}</remember>\nAnything else?");
            let payload =
                json!({"session_id": session, "cwd": folder, "last_assistant_message": reply});
            hook(data, "synapse-stop", &payload);
        }
        Import => unreachable!("an import stores every case at once"),
    }
}

/// What a set must hold on every path.
#[derive(Clone, Copy, Debug)]
enum Bar {
    /// A set tuned on: at least `masked` percent of its secrets masked and at most 2% of its
    /// look-alikes changed. Its misses are printed case by case.
    Tuned { masked: usize },
    /// A held-out set: at least as good as when it was last measured (`masked` percent of its
    /// secrets, at most `changed` look-alikes changed). Its misses are printed by kind only, never
    /// case by case, so that nobody tunes the detector on it.
    HeldOut { masked: usize, changed: usize },
}

/// Each set through each write path, against the set's bar. Beside each case, its figures
/// (`examples/secrets_score`): secrets masked, and look-alikes changed; for a held-out set, also
/// what the hand rules masked (docs/secrets.md).
#[rstest]
#[case::dev("dev", Bar::Tuned { masked: 100 })]
#[case::dev2("dev2", Bar::Tuned { masked: 100 })]
// 279/280 (234/280 when first measured).
#[case::dev3("dev3", Bar::Tuned { masked: 99 })]
// 48/49 (38/49 when first measured).
#[case::dev4("dev4", Bar::Tuned { masked: 97 })]
#[case::dev5("dev5", Bar::Tuned { masked: 100 })]
#[case::dev6("dev6", Bar::Tuned { masked: 100 })]
// 133/133; 1 of its 65 look-alikes changed.
#[case::dev7("dev7", Bar::Tuned { masked: 100 })]
#[case::dev8("dev8", Bar::Tuned { masked: 100 })]
#[case::dev9("dev9", Bar::Tuned { masked: 100 })]
// 55/60 (45/60 when first measured).
#[case::dev10("dev10", Bar::Tuned { masked: 91 })]
// 100/101, 1 of 107 changed (hand rules: 100/101, 0). A case named `test` alone is not
// generated at all.
#[case::test_("test", Bar::HeldOut { masked: 99, changed: 1 })]
// 182/184, 4 of 162 changed (hand rules: 182/184, 1).
#[case::test2("test2", Bar::HeldOut { masked: 98, changed: 4 })]
// 257/266, 4 of 193 changed (hand rules: 264/266, 1).
#[case::test3("test3", Bar::HeldOut { masked: 96, changed: 4 })]
// 47/49, 0 of 17 changed (hand rules: 48/49, 1).
#[case::test4("test4", Bar::HeldOut { masked: 95, changed: 0 })]
// 113/118, 0 of 41 changed (hand rules: 115/118, 0).
#[case::test5("test5", Bar::HeldOut { masked: 95, changed: 0 })]
// 98/100, 1 of 50 changed (hand rules: 100/100, 1).
#[case::test6("test6", Bar::HeldOut { masked: 98, changed: 1 })]
// 129/132, 0 of 65 changed (hand rules: 128/132, 1).
#[case::test7("test7", Bar::HeldOut { masked: 97, changed: 0 })]
// 145/150, 0 of 75 changed (hand rules: 147/150, 0).
#[case::test8("test8", Bar::HeldOut { masked: 96, changed: 0 })]
// 141/150, 3 of 75 changed (hand rules: 141/150, 1).
#[case::test9("test9", Bar::HeldOut { masked: 94, changed: 3 })]
// 59/60, 1 of 26 changed (main with gitleaks' catalogue alone: 50/60, 1).
#[case::test10("test10", Bar::HeldOut { masked: 98, changed: 1 })]
fn every_write_path_masks_every_secret_and_keeps_look_alikes(
    #[case] half: &str,
    #[case] bar: Bar,
    #[values(Remember, Slash, Stop, Import)] path: WritePath,
) {
    let root = tempfile::tempdir().unwrap();
    let cases = cases(&corpus(half));
    let secrets = cases.iter().filter(|c| !c.secrets.is_empty()).count();
    let lookalikes = cases.len() - secrets;
    let stored = store_all(path, &cases, root.path());
    let path = path.name();
    let (mut leaked, mut changed, mut missing) = (0, 0, 0);
    // Each miss: the case's label, and what went wrong.
    let mut misses: Vec<(&str, String)> = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        // The hooks trim a lesson; the other paths store the text as given.
        let Some(body) = stored.get(&i) else {
            missing += 1;
            misses.push((&case.label, "was not stored".to_owned()));
            continue;
        };
        if !case.secrets.is_empty() {
            if let Some(piece) = leaks(&case.text, &case.secrets, body).first() {
                leaked += 1;
                misses.push((&case.label, format!("leaks {piece:?}")));
            }
        } else if body.trim() != case.text.trim() {
            changed += 1;
            misses.push((&case.label, "was changed".to_owned()));
        }
    }
    eprintln!(
        "{half:>5} {path:<8}: secrets masked {}/{secrets}, look-alikes changed \
         {changed}/{lookalikes} ({:.1}%), not stored {missing}",
        secrets - leaked,
        100.0 * changed as f64 / lookalikes as f64
    );
    // A case not stored counts against the secrets masked, so a bar of 100% allows none.
    let masked = secrets.saturating_sub(leaked + missing);
    let (floor, few_changed, shown) = match bar {
        Bar::Tuned { masked } => {
            let shown: Vec<String> = misses
                .iter()
                .map(|(l, what)| format!("{l} {what}"))
                .collect();
            (masked, changed * 50 <= lookalikes, shown.join("\n"))
        }
        Bar::HeldOut {
            masked,
            changed: most,
        } => {
            let mut by_kind: BTreeMap<&str, usize> = BTreeMap::new();
            for (label, _) in &misses {
                *by_kind.entry(label).or_default() += 1;
            }
            eprintln!("{half:>5} {path:<8}: held-out misses by kind: {by_kind:?}");
            (masked, changed <= most, format!("{by_kind:?} (by kind)"))
        }
    };
    assert!(
        masked * 100 >= secrets * floor && few_changed,
        "{half} {path}: below its bar {bar:?} ({masked}/{secrets} masked, {changed}/{lookalikes} \
         look-alikes changed); misses:\n{shown}"
    );
}

/// Every set in `tests/fixtures/secrets/` has its case above, with its bar: a set added without
/// one fails here rather than go unmeasured.
#[test]
fn every_set_has_a_case() {
    // Case lines only: a case commented out runs nothing.
    let cases: Vec<&str> = include_str!("secrets.rs")
        .lines()
        .filter(|l| l.trim_start().starts_with("#[case"))
        .collect();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/secrets");
    let mut sets = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let set = path.file_stem().unwrap().to_str().unwrap();
            let case = format!("(\"{set}\", Bar::");
            assert!(
                cases.iter().any(|l| l.contains(&case)),
                "{set}.toml has no case with its bar"
            );
            sets += 1;
        }
    }
    assert!(sets > 0, "no set in {}", dir.display());
}
