//! The secret detector's tests (`synapse::secrets::mask`): the dev corpus scores
//! (`tests/fixtures/secrets/dev*.toml`), each form on invented examples, harmless text, UTF-8
//! edges, idempotence, and linear time. The catalogue's loader is tested in its module.
//!
//! One file per family: [`corpus`] (the dev scores), [`catalogue`] (gitleaks' own examples),
//! [`tokens`], [`pem`], [`urls`], [`assignments`], [`lines`], [`prose`], [`mixed`] (examples
//! across the rules) and [`robustness`] (UTF-8 edges, noise, linear time). This file holds the
//! checks they share.

#![deny(clippy::string_slice, clippy::indexing_slicing)]
// A fixture that cannot be read is a failed test, not a case to handle
// (only `robustness` indexes, into a fixed alphabet, and allows it there).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod assignments;
mod catalogue;
mod corpus;
mod lines;
mod mixed;
mod pem;
mod prose;
mod robustness;
#[path = "../fixtures/secrets/corpus.rs"]
mod secrets_corpus;
mod tokens;
mod urls;

use synapse::secrets::{mask, Found, MARKER};

/// Every `Found::at` is a marker, and every marker in the text was found (the text itself
/// holds none here).
fn assert_markers(text: &str, found: &[Found]) {
    for f in found {
        assert_eq!(text.get(f.at..f.at + MARKER.len()), Some(MARKER), "{text}");
    }
}

/// A table of cases checked all at once: each case that fails is recorded with its line, and
/// `report` fails the test naming every one of them, so that one failing case hides no other.
#[derive(Default)]
struct Cases(std::cell::RefCell<Vec<String>>);

impl Cases {
    /// `input` masks to `expected`: found, every `Found::at` a marker, idempotent.
    #[track_caller]
    fn masks(&self, input: &str, expected: &str) {
        let out = mask(input);
        let mut wrong = Vec::new();
        if out.text != expected {
            wrong.push(format!("masked to {:?}, not {expected:?}", out.text));
        }
        if out.found.is_empty() {
            wrong.push("found nothing".to_owned());
        }
        if out
            .found
            .iter()
            .any(|f| out.text.get(f.at..f.at + MARKER.len()) != Some(MARKER))
        {
            wrong.push(format!("a place found is not a marker: {:?}", out.found));
        }
        if mask(&out.text).text != out.text {
            wrong.push("masking it again changes it".to_owned());
        }
        self.record(input, &wrong);
    }

    /// `input` comes out unchanged, with nothing found.
    #[track_caller]
    fn keeps(&self, input: &str) {
        let out = mask(input);
        let wrong: Vec<String> = (out.text != input || !out.found.is_empty())
            .then(|| format!("changed to {:?} ({:?})", out.text, out.found))
            .into_iter()
            .collect();
        self.record(input, &wrong);
    }

    #[track_caller]
    fn record(&self, input: &str, wrong: &[String]) {
        if !wrong.is_empty() {
            let at = std::panic::Location::caller();
            let case = format!(
                "{}:{}: {input:?}: {}",
                at.file(),
                at.line(),
                wrong.join("; ")
            );
            self.0.borrow_mut().push(case);
        }
    }

    /// Fails naming every case that failed.
    #[track_caller]
    fn report(self) {
        let failed = self.0.into_inner();
        assert!(
            failed.is_empty(),
            "{} failing cases:\n{}",
            failed.len(),
            failed.join("\n")
        );
    }
}

/// `input` comes out unchanged (one case).
#[track_caller]
fn keeps(input: &str) {
    let cases = Cases::default();
    cases.keeps(input);
    cases.report();
}
