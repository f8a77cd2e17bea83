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
// Written apart from `dev.toml`, in new surroundings and value shapes.
#[case::dev2("dev2", None)]
// The families held-out sets found weakest, in many variants each.
#[case::dev3("dev3", Some(279))]
#[case::dev4("dev4", Some(48))]
#[case::dev5("dev5", None)]
// Lessons and notes written blind.
#[case::dev6("dev6", None)]
// Aimed at the families the held-out sets still missed.
#[case::dev7("dev7", None)]
#[case::dev8("dev8", None)]
#[case::dev9("dev9", None)]
// Key-shaped values after names, in log, config and code settings.
#[case::dev10("dev10", Some(55))]
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
