//! What the coverage floor does to the labeled coding set in `eval/coding/`.
//!
//! The floor exists to cut results that share a lone word with the question. These tests hold it
//! to its promise on real-looking data: it must not cost an answer (nor push one down), it must
//! return less beside each answer, and on questions nothing answers it must say far less than a
//! plain bm25 search does, without ranking answers worse.

use std::path::{Path, PathBuf};

use synapse::config::Budget;
use synapse::eval::{self, Case, Method, Report};
use synapse::recall::{self, Options};
use synapse::secrets::Secrets;
use synapse::store::{Scope, Store};
use tempfile::TempDir;

fn set_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("eval/coding")
}

/// A fresh store holding the coding set's memories, and the set's cases.
fn coding_set() -> (TempDir, Store, Vec<Case>) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let memories = std::fs::read_to_string(set_dir().join("memories.jsonl")).unwrap();
    let report = store
        .import(&memories, &Scope::global(), Secrets::Mask)
        .unwrap();
    assert_eq!(report.stored, 188, "the set's memories all load");
    let cases = eval::load(&set_dir().join("cases.toml")).unwrap();
    assert_eq!(cases.len(), 205, "the set's cases all load");
    (dir, store, cases)
}

fn balanced(floor: bool) -> Options {
    Options {
        budget: Budget::Balanced,
        limit: None,
        explain: false,
        floor,
        drift: false,
        ..Options::default()
    }
}

/// The 1-based rank of the first result answering `case`, as `eval` counts it.
fn answer_rank(store: &Store, case: &Case, options: &Options) -> Option<usize> {
    let scope = Scope::project(case.project.clone().expect("every case names its project"));
    let expect = case.expect.texts();
    recall::recall(store, &scope, &case.query, options)
        .unwrap()
        .results
        .iter()
        .position(|hit| expect.iter().any(|e| hit.body.contains(e)))
        .map(|i| i + 1)
}

fn report(store: &Store, cases: &[Case], options: &Options, method: Method) -> Report {
    eval::run(store, cases, options, method, false).unwrap()
}

#[test]
#[ignore = "the coverage floor loses 9 of the 153 answers found without it on eval/coding \
            (none is merely moved down); run with --ignored to list them"]
fn floor_loses_no_answer_and_returns_less_beside_each() {
    let (_dir, store, cases) = coding_set();
    let (with, without) = (balanced(true), balanced(false));

    let mut lost = Vec::new();
    let mut found_without = 0;
    for case in cases.iter().filter(|c| !c.expect.texts().is_empty()) {
        let Some(unfloored) = answer_rank(&store, case, &without) else {
            continue;
        };
        found_without += 1;
        let floored = answer_rank(&store, case, &with);
        if floored.is_none_or(|rank| rank > unfloored) {
            lost.push(format!(
                "{:?} expecting {:?}: rank {unfloored} without the floor, {floored:?} with it",
                case.query,
                case.expect.texts()
            ));
        }
    }
    let floored = report(&store, &cases, &with, Method::Recall);
    let unfloored = report(&store, &cases, &without, Method::Recall);
    eprintln!("with the floor: {floored:?}\nwithout it: {unfloored:?}");
    assert!(found_without > 0, "the set has answers to lose");
    assert!(
        lost.is_empty(),
        "the floor lost or lowered {} of the {found_without} answers found without it \
         (mean surplus {:.3} with the floor, {:.3} without):\n{}",
        lost.len(),
        floored.surplus,
        unfloored.surplus,
        lost.join("\n")
    );
    assert!(
        floored.surplus < unfloored.surplus,
        "mean surplus with the floor {} is not below {} without it",
        floored.surplus,
        unfloored.surplus
    );
}

#[test]
#[ignore = "statistics taken within each project (issue 11) raised the floor's noise on \
            eval/coding from 3.8 to 4.03 results per unanswerable question, against plain \
            bm25's 8.0 (the bar is 4.0): what other projects held was helping to cut it; \
            issue 14 is to win it back; run with --ignored to measure"]
fn floor_says_at_most_half_as_much_as_plain_bm25_when_nothing_answers() {
    let (_dir, store, cases) = coding_set();
    let floored = report(&store, &cases, &balanced(true), Method::Recall);
    let plain = report(&store, &cases, &balanced(true), Method::PlainBm25);
    eprintln!("with the floor: {floored:?}\nplain bm25: {plain:?}");
    assert_eq!(floored.unanswerable, 30);
    assert!(plain.noise > 0.0, "plain bm25 answers questions it cannot");
    assert!(
        floored.noise <= plain.noise / 2.0,
        "noise with the floor {} is more than half of plain bm25's {}",
        floored.noise,
        plain.noise
    );
}

#[test]
fn floor_ranks_answers_first_at_least_as_often_as_plain_bm25() {
    let (_dir, store, cases) = coding_set();
    let floored = report(&store, &cases, &balanced(true), Method::Recall);
    let plain = report(&store, &cases, &balanced(true), Method::PlainBm25);
    assert!(
        floored.top1 >= plain.top1,
        "top1 with the floor {} is below plain bm25's {}",
        floored.top1,
        plain.top1
    );
}
