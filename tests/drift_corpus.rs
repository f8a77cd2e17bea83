//! Drift measured on the labeled corpus `tests/fixtures/drift/` (its README says how it was
//! written and split): each project file is imported into a store of its own through the real
//! CLI, its checkout made with the paths it lists, and `synapse drift --json` judged against the
//! labels. Rules are tuned on the `dev` half; the `test` half is measured for the report.
//!
//! `cargo test --release --test integration -- --nocapture drift_corpus::` prints both halves.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;

use rstest::rstest;
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Deserialize)]
struct Project {
    project: String,
    files: Vec<String>,
    memory: Vec<Memory>,
    #[serde(default)]
    conflict: Vec<Conflict>,
    #[serde(default)]
    chain: Vec<Chain>,
    #[serde(default)]
    lookalike: Vec<Pair>,
    #[serde(default)]
    duplicate: Vec<Pair>,
    #[serde(default)]
    stale: Vec<Stale>,
}

#[derive(Deserialize)]
struct Memory {
    key: String,
    text: String,
}

#[derive(Deserialize)]
struct Conflict {
    older: String,
    newer: String,
    kind: String,
}

#[derive(Deserialize)]
struct Chain {
    members: Vec<String>,
}

#[derive(Deserialize)]
struct Pair {
    a: String,
    b: String,
}

#[derive(Deserialize)]
struct Stale {
    key: String,
}

/// Counts over one half of the corpus.
#[derive(Default)]
struct Score {
    /// Labeled conflict pairs, and those reported.
    conflicts: usize,
    conflicts_found: usize,
    /// Older chain members, and those reported against a newer member of their chain.
    chained: usize,
    chained_found: usize,
    /// Conflict pairs reported, and those a label names (a pair within one chain counts).
    reported: usize,
    reported_right: usize,
    lookalikes: usize,
    lookalikes_flagged: usize,
    duplicates: usize,
    duplicates_found: usize,
    duplicates_reported: usize,
    stale: usize,
    stale_found: usize,
    stale_reported: usize,
    /// By certainty: conflict pairs reported, those a label names, and labeled pairs and chain
    /// members found.
    certainty: HashMap<String, (usize, usize, usize)>,
    /// Conflicts found and missed, by labeled kind.
    kinds: HashMap<String, (usize, usize)>,
    /// Lines on what went wrong, for tuning.
    misses: String,
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        1.0
    } else {
        a as f64 / b as f64
    }
}

impl Score {
    fn recall(&self) -> f64 {
        ratio(
            self.conflicts_found + self.chained_found,
            self.conflicts + self.chained,
        )
    }

    fn precision(&self) -> f64 {
        ratio(self.reported_right, self.reported)
    }

    fn lookalikes_flagged(&self) -> f64 {
        ratio(self.lookalikes_flagged, self.lookalikes)
    }

    /// Precision and recall of the conflicts reported at each certainty.
    fn by_certainty(&self) -> String {
        let mut rows: Vec<_> = self.certainty.iter().collect();
        rows.sort();
        let labeled = self.conflicts + self.chained;
        rows.iter()
            .map(|(sure, (reported, right, found))| {
                format!(
                    "{sure} precision {:.3} ({right}/{reported}) recall {:.3} ({found}/{labeled})",
                    ratio(*right, *reported),
                    ratio(*found, labeled)
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn summary(&self, half: &str) -> String {
        let mut kinds: Vec<_> = self.kinds.iter().collect();
        kinds.sort();
        let kinds: Vec<String> = kinds
            .iter()
            .map(|(k, (found, all))| format!("{k} {found}/{all}"))
            .collect();
        format!(
            "{half}: conflicts precision {:.3} ({}/{}) recall {:.3} (pairs {}/{}, chain members \
             {}/{}); look-alikes flagged {}/{} ({:.3}); duplicates {}/{} found, {} reported; \
             stale {}/{} found, {} reported\n  by kind: {}\n  by certainty: {}",
            self.precision(),
            self.reported_right,
            self.reported,
            self.recall(),
            self.conflicts_found,
            self.conflicts,
            self.chained_found,
            self.chained,
            self.lookalikes_flagged,
            self.lookalikes,
            self.lookalikes_flagged(),
            self.duplicates_found,
            self.duplicates,
            self.duplicates_reported,
            self.stale_found,
            self.stale,
            self.stale_reported,
            kinds.join(", "),
            self.by_certainty()
        )
    }
}

/// Import one project file into a fresh store and score `synapse drift` on it.
fn score_project(path: &Path, score: &mut Score) {
    let text = std::fs::read_to_string(path).unwrap();
    let project: Project =
        toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // Under target/tmp: a checkout under /tmp would be exempt from stale checks.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let checkout = dir.path().join("checkout");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&checkout).unwrap();
    git2::Repository::init(&checkout).unwrap();
    for file in &project.files {
        let place = checkout.join(file);
        if file.ends_with('/') {
            std::fs::create_dir_all(&place).unwrap();
        } else {
            std::fs::create_dir_all(place.parent().unwrap()).unwrap();
            std::fs::write(&place, "x").unwrap();
        }
    }
    let global = project.project.is_empty();
    let lines: String = project
        .memory
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let at = 1_700_000_000 + 3_600 * i as i64;
            let time = chrono_like(at);
            let mut line = json!({"body": m.text, "source": "corpus", "created_at": time});
            if global {
                line["project"] = Value::Null;
            }
            format!("{line}\n")
        })
        .collect();
    let file = dir.path().join("memories.jsonl");
    std::fs::write(&file, lines).unwrap();
    let data = dir.path().join("data");
    let run = |args: &[&str]| -> Value {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_synapse"))
            .args(args)
            .env("SYNAPSE_DATA", &data)
            .env("HOME", &home)
            .current_dir(&checkout)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    run(&["import", file.to_str().unwrap(), "--json"]);
    let listed = run(&["list", "--all", "--json"]);
    let mut key_of: HashMap<i64, &str> = HashMap::new();
    for m in listed["memories"].as_array().unwrap() {
        let body = m["body"].as_str().unwrap();
        let memory = project
            .memory
            .iter()
            .find(|x| x.text == body)
            .unwrap_or_else(|| panic!("{}: stored body changed: {body}", path.display()));
        key_of.insert(m["id"].as_i64().unwrap(), &memory.key);
    }
    assert_eq!(key_of.len(), project.memory.len(), "{}", path.display());
    let text_of =
        |key: &str| -> &str { &project.memory.iter().find(|m| m.key == key).unwrap().text };
    let drift = run(&["drift", "--json"]);
    let pairs = |kind: &str| -> Vec<(String, String, String)> {
        drift[kind]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                let older = key_of[&f["id"].as_i64().unwrap()].to_owned();
                let newer = key_of[&f["newer"].as_i64().unwrap()].to_owned();
                (older, newer, f["why"].as_str().unwrap_or("").to_owned())
            })
            .collect()
    };
    // Every finding says how sure it is; a pair's certainty by its two keys, either order.
    let mut sure_of: HashMap<(String, String), String> = HashMap::new();
    for kind in ["stale", "conflict", "duplicate"] {
        for f in drift[kind].as_array().unwrap() {
            let sure = f["certainty"].as_str().unwrap_or_else(|| panic!("{f}"));
            let expected = if kind == "conflict" {
                ["likely", "possible"].as_slice()
            } else {
                ["certain"].as_slice()
            };
            assert!(expected.contains(&sure), "{kind} {f}");
            if let Some(newer) = f["newer"].as_i64() {
                let (a, b) = (key_of[&f["id"].as_i64().unwrap()], key_of[&newer]);
                sure_of.insert((a.min(b).to_owned(), a.max(b).to_owned()), sure.to_owned());
            }
        }
    }
    let sure = |a: &str, b: &str| sure_of[&(a.min(b).to_owned(), a.max(b).to_owned())].clone();
    let name = path.file_name().unwrap().to_string_lossy();
    let conflicts = pairs("conflict");
    let unordered: HashSet<(String, String)> = conflicts
        .iter()
        .map(|(a, b, _)| (a.clone().min(b.clone()), a.clone().max(b.clone())))
        .collect();
    let has = |a: &str, b: &str| unordered.contains(&(a.min(b).to_owned(), a.max(b).to_owned()));
    let chain_of: HashMap<&str, usize> = project
        .chain
        .iter()
        .enumerate()
        .flat_map(|(n, c)| c.members.iter().map(move |m| (m.as_str(), n)))
        .collect();
    let labeled: HashSet<(&str, &str)> = project
        .conflict
        .iter()
        .map(|c| {
            (
                c.older.as_str().min(&c.newer),
                c.older.as_str().max(&c.newer),
            )
        })
        .collect();
    for c in &project.conflict {
        let found = has(&c.older, &c.newer);
        score.conflicts += 1;
        score.conflicts_found += usize::from(found);
        if found {
            score
                .certainty
                .entry(sure(&c.older, &c.newer))
                .or_default()
                .2 += 1;
        }
        let entry = score.kinds.entry(c.kind.clone()).or_default();
        entry.0 += usize::from(found);
        entry.1 += 1;
        if !found {
            writeln!(
                score.misses,
                "MISSED {name} {} ({}):\n    {}\n    {}",
                c.older,
                c.kind,
                text_of(&c.older),
                text_of(&c.newer)
            )
            .unwrap();
        }
    }
    for chain in &project.chain {
        for (n, older) in chain.members.iter().enumerate() {
            if n + 1 == chain.members.len() {
                continue;
            }
            let found = chain.members[n + 1..]
                .iter()
                .find(|newer| has(older, newer));
            score.chained += 1;
            score.chained_found += usize::from(found.is_some());
            if let Some(newer) = found {
                score.certainty.entry(sure(older, newer)).or_default().2 += 1;
            }
            if found.is_none() {
                writeln!(
                    score.misses,
                    "MISSED {name} chain member {older}:\n    {}\n    newest: {}",
                    text_of(older),
                    text_of(chain.members.last().unwrap())
                )
                .unwrap();
            }
        }
    }
    for (a, b, why) in &conflicts {
        let right = labeled.contains(&(a.as_str().min(b), a.as_str().max(b)))
            || matches!((chain_of.get(a.as_str()), chain_of.get(b.as_str())), (Some(x), Some(y)) if x == y);
        score.reported += 1;
        score.reported_right += usize::from(right);
        let counts = score.certainty.entry(sure(a, b)).or_default();
        counts.0 += 1;
        counts.1 += usize::from(right);
        if !right {
            writeln!(
                score.misses,
                "WRONG {name} {a} vs {b} ({why}):\n    {}\n    {}",
                text_of(a),
                text_of(b)
            )
            .unwrap();
        }
    }
    let duplicates = pairs("duplicate");
    let dup_set: HashSet<(String, String)> = duplicates
        .iter()
        .map(|(a, b, _)| (a.clone().min(b.clone()), a.clone().max(b.clone())))
        .collect();
    for l in &project.lookalike {
        let key = (l.a.clone().min(l.b.clone()), l.a.clone().max(l.b.clone()));
        let flagged = has(&l.a, &l.b) || dup_set.contains(&key);
        score.lookalikes += 1;
        score.lookalikes_flagged += usize::from(flagged);
    }
    for d in &project.duplicate {
        score.duplicates += 1;
        let key = (d.a.clone().min(d.b.clone()), d.a.clone().max(d.b.clone()));
        score.duplicates_found += usize::from(dup_set.contains(&key));
    }
    score.duplicates_reported += duplicates.len();
    let stale_reported: BTreeSet<&str> = drift["stale"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| key_of[&f["id"].as_i64().unwrap()])
        .collect();
    let stale_labeled: BTreeSet<&str> = project.stale.iter().map(|s| s.key.as_str()).collect();
    score.stale += stale_labeled.len();
    score.stale_found += stale_labeled.intersection(&stale_reported).count();
    score.stale_reported += stale_reported.len();
    for key in stale_reported.symmetric_difference(&stale_labeled) {
        writeln!(
            score.misses,
            "STALE {name} {key} ({}): {}",
            if stale_labeled.contains(key) {
                "missed"
            } else {
                "wrongly reported"
            },
            text_of(key)
        )
        .unwrap();
    }
}

/// An RFC 3339 time for `seconds` since the epoch (UTC).
fn chrono_like(seconds: i64) -> String {
    let rest = seconds.rem_euclid(86_400);
    format!(
        "{}T{:02}:{:02}:{:02}Z",
        synapse::store::date_of(seconds),
        rest / 3_600,
        rest % 3_600 / 60,
        rest % 60
    )
}

fn score_half(half: &str) -> Score {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/drift")
        .join(half);
    let mut files: Vec<_> = std::fs::read_dir(&folder)
        .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    assert_eq!(
        files.len(),
        8,
        "{}: one project of each kind",
        folder.display()
    );
    let mut score = Score::default();
    for file in &files {
        score_project(file, &mut score);
    }
    score
}

/// The floors each half holds, just under what it measured after the one-value and release rules
/// (dev 0.958 / 0.475 / 1 of 80; test 0.853 / 0.412 / 6 of 80): a change that falls below one fails.
/// `docs/drift.md` has the history of both halves.
#[rstest]
#[case::dev_half("dev", 0.95, 0.47, 0.02)]
#[case::test_half("test", 0.84, 0.41, 0.08)]
fn drift_on_the_corpus(
    #[case] half: &str,
    #[case] precision: f64,
    #[case] recall: f64,
    #[case] lookalikes: f64,
) {
    let score = score_half(half);
    eprintln!("{}", score.summary(half));
    if std::env::var_os("DRIFT_MISSES").is_some() {
        eprintln!("{}", score.misses);
    }
    assert!(score.precision() >= precision, "{}", score.summary(half));
    assert!(score.recall() >= recall, "{}", score.summary(half));
    assert!(
        score.lookalikes_flagged() <= lookalikes,
        "{}",
        score.summary(half)
    );
    assert_eq!(
        score.duplicates_found,
        score.duplicates,
        "{}",
        score.summary(half)
    );
    assert_eq!(score.stale_found, score.stale, "{}", score.summary(half));
}

#[test]
fn civil_times_are_right() {
    assert_eq!(chrono_like(0), "1970-01-01T00:00:00Z");
    assert_eq!(chrono_like(1_700_000_000), "2023-11-14T22:13:20Z");
    assert_eq!(chrono_like(951_782_400), "2000-02-29T00:00:00Z");
}
