//! The integration tests, as one binary that links the crate once: each file of `tests/` is a
//! module here, and `common` holds what they share. A new file `tests/foo.rs` is one line below,
//! `mod foo;`, and starts with `use crate::common;` where it uses the shared helpers;
//! `every_test_file_is_a_module` fails until it is declared.
//!
//! Two files are binaries of their own (`Cargo.toml` says why): `scope_isolation.rs` and
//! `store_machine.rs` set the process's environment for the hook code they call in process.

mod common;

mod bias;
mod big;
mod capture;
mod cli;
mod codex_hooks;
mod concurrency;
mod crash;
mod drift;
mod drift_corpus;
mod e2e_claude;
mod e2e_codex;
mod e2e_gemini;
mod e2e_install;
mod e2e_setup;
mod gemini_hooks;
mod hooks;
mod launchers;
mod mcp;
mod paging;
mod retrieval;
mod secrets;
#[path = "secrets_rules/main.rs"]
mod secrets_rules;
// The secret corpus's reader, which `secrets` and `secrets_rules` share.
#[path = "fixtures/secrets/corpus.rs"]
mod secrets_corpus;
mod sources;
mod sources_drift;
mod sources_reading;
mod statusline;
mod team;
mod tidy;
mod ui_tmux;
mod upgrade;

use std::path::Path;

/// Every test file is a module of this binary or a target of its own in `Cargo.toml`: a file
/// left out would compile nowhere and its tests would never run.
#[test]
fn every_test_file_is_a_module() {
    let main = include_str!("main.rs");
    let manifest = include_str!("../Cargo.toml");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = if path.is_dir() {
            let root = ["main.rs", "mod.rs"].iter().any(|f| path.join(f).is_file());
            if !root {
                continue;
            }
            path.file_name()
        } else if path.extension().is_some_and(|e| e == "rs") {
            path.file_stem()
        } else {
            continue;
        };
        let name = name.unwrap().to_str().unwrap();
        let declared = main.contains(&format!("mod {name};"))
            || manifest.contains(&format!("name = \"{name}\""));
        if name != "main" && !declared {
            missing.push(name.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "test files neither in tests/main.rs nor a [[test]] of Cargo.toml, so never run: {missing:?}"
    );
}
