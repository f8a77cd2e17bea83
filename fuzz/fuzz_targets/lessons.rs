//! The lesson extractor on any reply (what the Stop hook reads): no panic, and every lesson is
//! a piece of the reply's text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|reply: &str| {
    for lesson in synapse::plugin::lessons::marked(reply) {
        assert!(!lesson.trim().is_empty());
    }
    // A prompt is searched for a slash command the same way, by the prompt hook.
    std::hint::black_box(synapse::plugin::slash::parse(reply).is_some());
});
