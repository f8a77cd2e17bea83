//! The dev corpus scores (`tests/fixtures/secrets/dev.toml` and `dev2.toml`): every secret
//! masked, look-alikes unchanged, masking idempotent, with per-format and per-kind figures
//! printed so that a miss shows where it is.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use std::collections::BTreeMap;

use rstest::rstest;

use super::assert_markers;
use super::secrets_corpus::{corpus, leaks};
use synapse::secrets::mask;

/// A corpus's score: every secret masked (no 3-character piece of it left beyond what the ideal
/// masking keeps), look-alikes unchanged, both idempotent. Prints the per-format and per-kind
/// figures and every miss; returns (masked, secrets, changed, look-alikes, texts whose masking
/// is not idempotent).
fn score(name: &str) -> (usize, usize, usize, usize, usize) {
    let corpus = corpus(name);

    let mut by_format: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut misses = Vec::new();
    let mut unstable = Vec::new();
    for e in &corpus.secret {
        let out = mask(&e.text);
        let leaked = leaks(&e.text, &e.secrets, &out.text);
        let entry = by_format.entry(&e.format).or_default();
        entry.1 += 1;
        if leaked.is_empty() {
            entry.0 += 1;
        } else {
            misses.push(format!(
                "MISS [{}] leaked {:?}\n  in:  {}\n  out: {}",
                e.format,
                leaked.iter().take(4).collect::<Vec<_>>(),
                e.text,
                out.text
            ));
        }
        // idempotent, and every marker reported
        let again = mask(&out.text).text;
        if again != out.text {
            unstable.push(format!(
                "NOT IDEMPOTENT\n  once:  {}\n  twice: {again}",
                out.text
            ));
        }
        assert_markers(&out.text, &out.found);
    }

    let mut by_kind: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut changed = Vec::new();
    for l in &corpus.lookalike {
        let out = mask(&l.text);
        let entry = by_kind.entry(&l.kind).or_default();
        entry.1 += 1;
        if out.text != l.text {
            entry.0 += 1;
            changed.push(format!(
                "CHANGED [{}]\n  in:  {}\n  out: {}",
                l.kind, l.text, out.text
            ));
        }
        let again = mask(&out.text).text;
        if again != out.text {
            unstable.push(format!(
                "NOT IDEMPOTENT\n  once:  {}\n  twice: {again}",
                out.text
            ));
        }
    }

    let masked: usize = by_format.values().map(|v| v.0).sum();
    let total = corpus.secret.len();
    let touched: usize = by_kind.values().map(|v| v.0).sum();
    let harmless = corpus.lookalike.len();
    println!("{name}: secret formats (masked/entries):");
    for (format, (ok, n)) in &by_format {
        let flag = if ok < n { "  <-- miss" } else { "" };
        println!("  {format:32} {ok}/{n}{flag}");
    }
    println!("{name}: look-alike kinds (changed/entries):");
    for (kind, (bad, n)) in &by_kind {
        let flag = if *bad > 0 { "  <-- changed" } else { "" };
        println!("  {kind:32} {bad}/{n}{flag}");
    }
    for m in misses.iter().chain(&changed).chain(&unstable) {
        println!("{m}");
    }
    println!("{name}: secrets masked {masked}/{total}, look-alikes changed {touched}/{harmless}");
    (masked, total, touched, harmless, unstable.len())
}

/// What every development set holds: masking idempotent, at least `floor` secrets masked (every
/// one when `None`), and at most 2% of look-alikes changed.
#[rstest]
#[case::dev("dev", None)]
// Written apart from `dev.toml` in new surroundings and value shapes: the rules must hold on it as
// well.
// After the one reader of issue 37: 241/242.
#[case::dev2("dev2", Some(241))]
// The families held-out sets found weakest (passwords in prose and on command lines, credential
// files, authorization headers, connection strings, keys under many names), in many variants
// each. Being tuned on: first measured at 234/280 masked and 2/174 changed, now at 279/280 and
// 0/174; it must not fall below that while the rules grow to cover it whole.
// After the one reader of issue 37: 278/280.
#[case::dev3("dev3", Some(278))]
// Written blind on 2026-12-01: first measured at 103/118 masked and 1/42 changed, tuned to
// 118/118 and 0/42.
// After the one reader of issue 37: 117/118.
#[case::dev5("dev5", Some(117))]
// Lessons and notes written blind on 2026-12-02: first measured at 96/100 masked and 1/50
// changed, tuned to 100/100 and 0/50.
#[case::dev6("dev6", None)]
// Written blind on 2026-12-02, aimed at the families the held-out sets still miss: first measured
// at 114/133 masked and 1/65 changed, tuned to 133/133 and 1/65.
// After the one reader of issue 37: 131/133.
#[case::dev7("dev7", Some(131))]
fn corpus_score(#[case] name: &str, #[case] floor: Option<usize>) {
    let (masked, total, touched, harmless, unstable) = score(name);
    assert_eq!(unstable, 0, "masking is idempotent");
    assert!(
        masked >= floor.unwrap_or(total),
        "{masked}/{total} {name} secrets masked"
    );
    assert!(
        touched * 100 <= harmless * 2,
        "at most 2% of look-alikes changed ({touched}/{harmless})"
    );
}
