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

/// `input` masks to `expected`.
#[track_caller]
fn masks(input: &str, expected: &str) {
    let out = mask(input);
    assert_eq!(out.text, expected, "input: {input}");
    assert!(!out.found.is_empty(), "found nothing in {input}");
    assert_markers(&out.text, &out.found);
    assert_eq!(mask(&out.text).text, out.text, "idempotent");
}

/// `input` comes out unchanged.
#[track_caller]
fn keeps(input: &str) {
    let out = mask(input);
    assert_eq!(out.text, input);
    assert!(out.found.is_empty(), "{:?}", out.found);
}
