//! Query terms from any question: no panic, and never more than the most terms searched.
#![no_main]

use libfuzzer_sys::fuzz_target;
use synapse::recall::terms::{Terms, MAX_TERMS};
use synapse::text::WordStemmer;

fuzz_target!(|question: &str| {
    let terms = Terms::parse(question, &WordStemmer::default());
    assert!(terms.kept.len() <= MAX_TERMS);
});
