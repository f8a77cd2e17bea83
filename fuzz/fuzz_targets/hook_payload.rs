//! The three hooks on any payload text, with a real store: they answer or fail with an error
//! (which the hook's top level logs), never a panic.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use synapse::plugin::hook::{self, Event};

fn data() -> &'static tempfile::TempDir {
    static DATA: OnceLock<tempfile::TempDir> = OnceLock::new();
    DATA.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary folder");
        std::env::set_var("SYNAPSE_DATA", dir.path());
        dir
    })
}

fuzz_target!(|input: &str| {
    let data = data();
    // As given, and as the prompt and reply of a well-formed payload.
    let cwd = data.path().display().to_string();
    let wrapped = serde_json::json!({
        "session_id": "fuzz",
        "cwd": cwd,
        "prompt": input,
        "last_assistant_message": input,
        "hook_event_name": "UserPromptSubmit",
    })
    .to_string();
    // An error is a hook's answer to a bad payload (its top level logs it); only a panic fails.
    for event in [Event::SessionStart, Event::UserPromptSubmit, Event::Stop] {
        std::hint::black_box(hook::run(event, input).is_ok());
        std::hint::black_box(hook::run(event, &wrapped).is_ok());
    }
});
