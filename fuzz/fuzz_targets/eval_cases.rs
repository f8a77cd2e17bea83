//! A cases file of any text: parsed or refused, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(cases) = synapse::eval::parse(text) {
        for case in cases {
            assert!(case.expect.texts().len() < usize::MAX);
        }
    }
});
