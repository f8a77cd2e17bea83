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
//! figures printed (`--nocapture`). Each set has a floor (`floor`): the finished tuning sets must
//! pass whole, the held-out sets stay at least as good as when they were first measured (a floor
//! against regressions, not a target to tune for), and held-out misses are printed by kind only.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize)]
struct Corpus {
    secret: Vec<Secret>,
    lookalike: Vec<Lookalike>,
}

#[derive(Deserialize)]
struct Secret {
    format: String,
    text: String,
    secrets: Vec<String>,
}

#[derive(Deserialize)]
struct Lookalike {
    kind: String,
    text: String,
}

fn corpus(half: &str) -> Corpus {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/secrets")
        .join(format!("{half}.toml"));
    let text = std::fs::read_to_string(&path).unwrap();
    toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Whether `stored` leaks any piece of a listed secret: a three-character piece of it that
/// occurs in the stored text more often than in the ideal one (the original with each listed
/// secret replaced by the marker). A leaked prefix (`hun[secret]`) counts, and so does a key
/// masked only in part; characters the surroundings share with a secret do not.
fn leaks(original: &str, secrets: &[String], stored: &str) -> Option<String> {
    let mut ideal = original.to_owned();
    for s in secrets {
        ideal = ideal.replace(s.as_str(), "[secret]");
    }
    let count = |text: &str, piece: &str| text.matches(piece).count();
    for s in secrets {
        let chars: Vec<char> = s.chars().collect();
        for window in chars.windows(3.min(chars.len())) {
            let piece: String = window.iter().collect();
            if count(stored, &piece) > count(&ideal, &piece) {
                return Some(piece);
            }
        }
    }
    None
}

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

fn hook(data: &Path, name: &str, payload: &serde_json::Value) {
    let out = common::run_hook(name, data, payload.to_string().as_bytes(), &[]);
    assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
}

/// Store every case through `path`, each in a project of its own (folder `case-N`); the stored
/// body of each case, by index.
fn store_all(path: &str, cases: &[Case], root: &Path) -> HashMap<usize, String> {
    let data = root.join(format!("data-{path}"));
    let folder = |i: usize| {
        let f = root.join(format!("{path}-case-{i}"));
        std::fs::create_dir_all(&f).unwrap();
        f.canonicalize().unwrap()
    };
    let folders: Vec<PathBuf> = (0..cases.len()).map(folder).collect();
    match path {
        "import" => {
            let lines: String = cases
                .iter()
                .zip(&folders)
                .map(|(c, f)| format!("{}\n", json!({"body": c.text, "project": f})))
                .collect();
            let file = root.join("import.jsonl");
            std::fs::write(&file, lines).unwrap();
            let out = common::run_synapse(&data, root, &["import", file.to_str().unwrap()], b"");
            assert!(out.status.success(), "{out:?}");
        }
        _ => {
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
    }
    // Hooks that could not get the lock in time (four run at once) spooled their write: the
    // next write stores it.
    let out = common::run_synapse(&data, root, &["remember", "drains the spool"], b"");
    assert!(out.status.success(), "{out:?}");
    let log = std::fs::read_to_string(data.join("synapse.log")).unwrap_or_default();
    assert!(log.is_empty(), "{path}: a hook failed: {log}");
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
        .filter_map(|(project, body)| Some((*index.get(&project)?, body)))
        .collect()
}

fn store_one(path: &str, data: &Path, text: &str, folder: &Path, part: usize) {
    let session = format!("corpus-{part}");
    match path {
        "remember" => {
            let out = common::run_synapse(data, folder, &["remember", "-"], text.as_bytes());
            assert!(out.status.success(), "{out:?}");
        }
        "slash" => {
            let prompt = format!("/synapse:remember {text}");
            let payload = json!({"session_id": session, "cwd": folder, "prompt": prompt});
            hook(data, "synapse-prompt-submit", &payload);
        }
        "stop" => {
            let reply = format!("Done.\n<remember>{text}</remember>\nAnything else?");
            let payload =
                json!({"session_id": session, "cwd": folder, "last_assistant_message": reply});
            hook(data, "synapse-stop", &payload);
        }
        other => unreachable!("{other}"),
    }
}

/// The share of a set's secrets (in percent) that every path must mask. The tuned sets pass
/// whole (`dev5` first measured at 103/118, `dev6` at 96/100, `dev7` at 114/133, `dev8` at
/// 140/150). `dev3` and
/// `dev4` are being tuned (`dev3` first measured at 234/280, now 279/280; `dev4` at 38/49, now
/// 46/49); the held-out sets stay at least as good as they are: test at 100/101,
/// test2 at 182/184, test3 at 264/266 (233/266 when first measured, before dev3's tuning), test4
/// at 48/49 (45/49 before dev4's tuning), test5 at 115/118 (103/118 before dev5's tuning), test6
/// at 100/100 (96/100 before dev6's tuning), test7 at 128/132 (117/132 before dev7's tuning),
/// test8 at 147/150 (141/150 before dev8's tuning), test9 at 140/150 (139/150 before dev9's).
/// `dev9` (first measured at 136/150) is at 149/150: its miss is a password with a `$` at the end
/// of a long sentence.
fn floor(half: &str) -> usize {
    match half {
        "dev" | "dev2" | "dev5" | "dev6" | "dev7" | "dev8" | "test6" => 100,
        "dev3" => 99,
        "dev9" => 99,
        "test9" => 93,
        "dev4" => 93,
        "test5" => 97,
        "test7" => 96,
        "test4" => 97,
        "test2" | "test8" => 98,
        "test3" => 99,
        _ => 95,
    }
}

/// Whether `changed` of `lookalikes` is few enough: at most 2% in the sets tuned on; in the
/// held-out sets, no more than when they were last measured (test 0, test2 1 of its 162, test3 1
/// of its 193, test4 1 of its 17, test5 0 of its 41, test6 1 of its 50, test7 1 of its 65,
/// test8 0 of its 75 and test9 1 of its 75;
/// each of these but test7's was changed before any rule was written for its half; test7's is
/// changed by a rule of the third pass on dev7 and probes, which moved two secrets of test5 and
/// test7 into the masked).
fn few_changed(half: &str, changed: usize, lookalikes: usize) -> bool {
    match half {
        "test" | "test5" | "test8" => changed == 0,
        "test2" | "test3" | "test4" | "test6" | "test7" | "test9" => changed <= 1,
        _ => changed * 50 <= lookalikes,
    }
}

#[test]
fn every_write_path_masks_every_secret_and_keeps_look_alikes() {
    let root = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for half in [
        "dev", "dev2", "dev3", "dev4", "dev5", "dev6", "dev7", "dev8", "dev9", "test", "test2",
        "test3", "test4", "test5", "test6", "test7", "test8", "test9",
    ] {
        let cases = cases(&corpus(half));
        let secrets = cases.iter().filter(|c| !c.secrets.is_empty()).count();
        let lookalikes = cases.len() - secrets;
        for path in ["remember", "slash", "stop", "import"] {
            let dir = root.path().join(format!("{half}-{path}"));
            std::fs::create_dir_all(&dir).unwrap();
            let stored = store_all(path, &cases, &dir);
            let (mut leaked, mut changed, mut missing) = (0, 0, 0);
            for (i, case) in cases.iter().enumerate() {
                // The hooks trim a lesson; the other paths store the text as given.
                let Some(body) = stored.get(&i) else {
                    missing += 1;
                    failures.push(format!("{half} {path}: {} was not stored", case.label));
                    continue;
                };
                if !case.secrets.is_empty() {
                    if let Some(piece) = leaks(&case.text, &case.secrets, body) {
                        leaked += 1;
                        failures.push(format!("{half} {path}: {} leaks {piece:?}", case.label));
                    }
                } else if body.trim() != case.text.trim() {
                    changed += 1;
                    failures.push(format!("{half} {path}: {} was changed", case.label));
                }
            }
            eprintln!(
                "{half:>4} {path:<8}: secrets masked {}/{secrets}, look-alikes changed \
                 {changed}/{lookalikes} ({:.1}%), not stored {missing}",
                secrets - leaked,
                100.0 * changed as f64 / lookalikes as f64
            );
            let floor = floor(half);
            if floor == 100 {
                assert!(leaked == 0 && missing == 0, "{failures:#?}");
                assert!(few_changed(half, changed, lookalikes), "{failures:#?}");
            } else {
                let held = failures.iter().filter(|f| f.starts_with(half)).count();
                assert!(
                    (secrets - leaked - missing) * 100 >= secrets * floor
                        && few_changed(half, changed, lookalikes),
                    "{half} {path}: below its floor of {floor}% ({held} misses)"
                );
            }
        }
    }
    // The held-out half is reported by kind only, never case by case, so that nobody tunes the
    // detector on it.
    let mut by_label: HashMap<String, usize> = HashMap::new();
    for f in failures.iter().filter(|f| f.starts_with("test")) {
        let label = f
            .split(": ")
            .nth(1)
            .unwrap_or("")
            .split(" leaks ")
            .next()
            .unwrap_or("");
        let label = label
            .trim_end_matches(" was changed")
            .trim_end_matches(" was not stored");
        *by_label.entry(label.to_owned()).or_default() += 1;
    }
    let mut labels: Vec<_> = by_label.into_iter().collect();
    labels.sort();
    eprintln!("held-out misses by kind (over the four paths): {labels:?}");
}
