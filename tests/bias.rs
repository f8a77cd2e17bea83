//! What the evidence floor does to the labeled sets in `eval/` (the `test` half of each).
//!
//! The floor exists to cut results far behind the best one. These tests hold it to its promise
//! on real-looking data: it must not cost an answer (nor push one down), it must return less
//! beside each answer, and it must not rank answers first less often than plain bm25.
//!
//! Only the bars the floor meets are tests; `cargo run --release --example floor_bars` prints
//! every bar on both sets, met or not.

use std::path::{Path, PathBuf};

use rstest::rstest;
use synapse::config::Budget;
use synapse::eval::{self, Case, Half, Method, Report};
use synapse::recall::{self, Options};
use synapse::secrets::Secrets;
use synapse::store::{Scope, Store};
use tempfile::TempDir;

/// The labeled sets, each with its memory count and case count.
const SETS: [(&str, usize, usize); 2] = [("coding", 188, 205), ("platform", 236, 239)];

fn set_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("eval")
        .join(name)
}

/// A fresh store holding a set's memories, and the `test` half of its cases: the half no rule
/// was tuned on.
fn test_half(name: &str) -> (TempDir, Store, Vec<Case>) {
    let &(_, memories, cases) = SETS.iter().find(|(n, _, _)| *n == name).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let text = std::fs::read_to_string(set_dir(name).join("memories.jsonl")).unwrap();
    let report = store
        .import(&text, &Scope::global(), Secrets::Mask)
        .unwrap();
    assert_eq!(
        report.stored, memories,
        "{name}: the set's memories all load"
    );
    let all = eval::load(&set_dir(name).join("cases.toml")).unwrap();
    assert_eq!(all.len(), cases, "{name}: the set's cases all load");
    (dir, store, eval::half(all, Half::Test))
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

/// A set's test half as recall with the floor reports it, and as plain bm25 does; both printed.
fn floored_and_plain(name: &str) -> (Report, Report) {
    let (_dir, store, cases) = test_half(name);
    let floored = report(&store, &cases, &balanced(true), Method::Recall);
    let plain = report(&store, &cases, &balanced(true), Method::PlainBm25);
    eprintln!("{name}: with the floor: {floored:?}\nplain bm25: {plain:?}");
    (floored, plain)
}

#[rstest]
#[case::coding("coding")]
fn floor_loses_no_answer_and_returns_less_beside_each(#[case] name: &str) {
    let (_dir, store, cases) = test_half(name);
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
    eprintln!("{name}: with the floor: {floored:?}\nwithout it: {unfloored:?}");
    assert!(found_without > 0, "{name}: the set has answers to lose");
    assert!(
        lost.is_empty(),
        "{name}: the floor lost or lowered {} of the {found_without} answers found without it \
         (mean surplus {:.3} with the floor, {:.3} without):\n{}",
        lost.len(),
        floored.surplus,
        unfloored.surplus,
        lost.join("\n")
    );
    assert!(
        floored.surplus < unfloored.surplus,
        "{name}: mean surplus with the floor {} is not below {} without it",
        floored.surplus,
        unfloored.surplus
    );
}

#[rstest]
#[case::coding("coding")]
fn floor_finds_and_ranks_answers_first_at_least_as_often_as_plain_bm25(#[case] name: &str) {
    let (floored, plain) = floored_and_plain(name);
    assert!(
        floored.top1 >= plain.top1,
        "{name}: top1 with the floor {} is below plain bm25's {}",
        floored.top1,
        plain.top1
    );
    assert!(
        floored.found >= plain.found,
        "{name}: found with the floor {} is below plain bm25's {}",
        floored.found,
        plain.found
    );
}
