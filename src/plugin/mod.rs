//! The hooks' front end: one session core and one adapter per client.
//!
//! - The core decides what every client's hooks do alike: `session` (what to offer, marking what
//!   a session was given, recording lessons; one file per hook), the blocks it injects
//!   (`inject`, a session's ending with the loaded lines that name gone paths: `stale`) and how
//!   they speak to a client's model (`voice`), the person's line (`notice`), the lessons of a
//!   reply (`lessons`) and the slash commands run on the prompt as typed (`slash`). What to offer and how to write is decided below it (`recall::unasked`,
//!   `record`).
//! - An adapter per client reads its payloads and writes its answers, and says what the client
//!   loads itself and how its model reads a memory: `claude` (Claude Code), `gemini` (Gemini
//!   CLI), `codex` (Codex CLI). Each implements `session::Adapter`.
//! - `hook` is the process: it picks the adapter the arguments name and runs the core.
//!
//! The layers run one way: `hook` -> adapters -> core. No adapter imports another, and no module
//! of the core imports an adapter (a test below reads the sources to hold that); the next client
//! is one new adapter and one line in `hook`.

pub mod claude;
pub mod codex;
pub mod gemini;
pub mod hook;
pub mod inject;
pub mod lessons;
pub mod notice;
pub mod session;
pub mod slash;
pub mod stale;
pub mod voice;

#[cfg(test)]
mod layers {
    use std::path::Path;

    /// The adapters, one per client: the files `plugin/NAME.rs`.
    const ADAPTERS: [&str; 3] = ["claude", "codex", "gemini"];
    /// Above the adapters: the process, which picks one.
    const ABOVE: [&str; 1] = ["hook"];
    /// The most lines a file of the front end may have: a newcomer reads one whole.
    const MOST_LINES: usize = 500;

    /// The modules of `plugin` a source file names: every word of its `use` trees that start
    /// from `super` or `crate::plugin`, and every `super::NAME::` or `plugin::NAME::` in its
    /// code (comments left out).
    fn named(source: &str) -> Vec<String> {
        let code: String = source
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let mut names = Vec::new();
        for statement in code.split(';') {
            let Some((_, tree)) = statement.split_once("use ") else {
                continue;
            };
            let tree: String = tree.split_whitespace().collect();
            if tree.starts_with("super::") || tree.starts_with("crate::plugin::") {
                names.extend(
                    tree.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .map(str::to_owned),
                );
            }
        }
        for prefix in ["super::", "plugin::"] {
            for (at, _) in code.match_indices(prefix) {
                let rest = code.get(at + prefix.len()..).unwrap_or_default();
                let word: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if rest.get(word.len()..).is_some_and(|r| r.starts_with("::")) {
                    names.push(word);
                }
            }
        }
        names
    }

    #[test]
    fn layers_run_one_way_and_files_stay_small() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/plugin");
        let mut all = Vec::new();
        crate::layers::rust_files(&root, &mut all);
        assert!(all.len() > 10, "found only {all:?}");
        let mut wrong = Vec::new();
        for path in &all {
            let source = std::fs::read_to_string(path).unwrap();
            let shown = path.strip_prefix(&root).unwrap().display().to_string();
            let lines = source.lines().count();
            if lines > MOST_LINES {
                wrong.push(format!("{shown} has {lines} lines (at most {MOST_LINES})"));
            }
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            let is_adapter = path.parent() == Some(root.as_path()) && ADAPTERS.contains(&&*stem);
            let is_above = path.parent() == Some(root.as_path()) && ABOVE.contains(&&*stem);
            if is_above || path.ends_with("mod.rs") && path.parent() == Some(root.as_path()) {
                continue;
            }
            for name in named(&source) {
                if ABOVE.contains(&name.as_str()) {
                    wrong.push(format!("{shown} imports {name}, which is above it"));
                } else if ADAPTERS.contains(&name.as_str()) && name != stem {
                    let what = if is_adapter {
                        "another adapter"
                    } else {
                        "an adapter"
                    };
                    wrong.push(format!("{shown} imports {name}, {what}"));
                }
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn the_check_finds_an_import_in_a_group_and_a_path() {
        let grouped = "use super::{inject, gemini::Gemini};\nfn f() {}";
        assert!(named(grouped).contains(&"gemini".to_owned()));
        let path = "fn f() { crate::plugin::claude::ClaudeCode; }";
        assert!(named(path).contains(&"claude".to_owned()));
        let comment = "// see super::gemini::output\nfn f() {}";
        assert!(!named(comment).contains(&"gemini".to_owned()));
    }
}
