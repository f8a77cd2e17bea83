//! The secret masker on any text: no panic, and masking what it masked changes nothing more.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let once = synapse::secrets::mask(text);
    let twice = synapse::secrets::mask(&once.text);
    assert_eq!(once.text, twice.text, "masking is idempotent");
});
