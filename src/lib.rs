//! Synapse: a small, current and honest memory for Claude Code.
//!
//! The map: each module owns one thing, and the modules stand in layers that run one way
//! (`LAYERS`, bottom first; `docs/development.md` draws them).
//!
//! No string is sliced by a computed byte index anywhere in the crate (`clippy::string_slice`):
//! memory text is any UTF-8, and an index inside a character is a panic.
#![deny(clippy::string_slice)]

/// Command-line verbs: one file per subcommand, each parsing into the library and printing.
pub mod cmd;
/// Where things live (the data folder), the budget levels, and the settings (`config.toml`,
/// with the `ignore` globs of drift and the task signal).
pub mod config;
/// Drift: stale, conflicting and duplicate memories, found for an audit or for what is handed over.
pub mod drift;
/// Relevance evaluation: run labeled cases through recall and score the answers.
pub mod eval;
/// Private files: the data folder, files created 0600, atomic whole-file writes, the log.
pub mod files;
/// The MCP server: the memory as tools over stdio (feature `mcp`, binary `synapse-mcp`).
#[cfg(feature = "mcp")]
pub mod mcp;
/// The hooks' front end: one session core (what to offer, what a session was given, the lessons
/// to record) and one adapter per client (Claude Code, Gemini CLI, Codex CLI).
pub mod plugin;
/// Exact paging through one memory's stored bytes.
pub mod read;
/// Recall: query terms, the two search lanes, fusion, the coverage floor, budget packing, and
/// what the hooks offer unasked.
pub mod recall;
/// Recording a memory the way every write path must: masked, stored or spooled, shared.
pub mod record;
/// Secrets in memory text, masked by one detector on every write path.
pub mod secrets;
/// Wiring Synapse into a client's own config (`synapse setup`), and taking it back.
pub mod setup;
/// The task signal: branch, changed files and prompt, from git without reading file contents.
pub mod signal;
/// The clients' own memory and instruction files (Claude Code's, `AGENTS.md`, Codex CLI's
/// memories), read as sources and folded into the store.
pub mod sources;
/// The SQLite store: schema, migrations, scope, writes and history.
pub mod store;
/// Team memory through git: the shared file of a repository, its events, sharing and folding.
pub mod team;
/// Text folding and stemming shared by query terms and coverage counting; English word
/// frequencies; text made safe to show (control characters and direction overrides escaped).
pub mod text;
/// The terminal view (`synapse ui`, feature `ui`): browse, search, read and settle the memory.
#[cfg(feature = "ui")]
pub mod ui;

/// The layers, bottom first: a module may use the modules of the layers below its own, never one
/// of its own layer or above (`docs/development.md` draws them; the test below holds them).
#[cfg(test)]
const LAYERS: &[&[&str]] = &[
    &["text", "files", "secrets", "config"],
    &["signal", "store", "setup"],
    &["read", "team", "drift"],
    &["recall"],
    &["sources", "eval", "record"],
    &["ui"],
    &["plugin", "cmd", "mcp"],
];

#[cfg(test)]
mod layers {
    use std::path::{Path, PathBuf};

    use super::LAYERS;

    fn layer(module: &str) -> Option<usize> {
        LAYERS.iter().position(|l| l.contains(&module))
    }

    /// Every `.rs` file under `dir` (the layering tests here and in `plugin` read them).
    pub(crate) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|x| x == "rs") {
                out.push(path);
            }
        }
    }

    /// The crate's top modules a source names as `crate::NAME` (in a path or a `use` group),
    /// comments and its tests (from the first `#[cfg(test)]` on) left out.
    fn named(source: &str) -> Vec<String> {
        let source = source.split("#[cfg(test)]").next().unwrap_or_default();
        let code: String = source
            .lines()
            .map(|l| l.split("//").next().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n");
        let word = |s: &str| -> String {
            s.trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        };
        let mut names = Vec::new();
        for (at, _) in code.match_indices("crate::") {
            let rest = code.get(at + "crate::".len()..).unwrap_or_default();
            if let Some(group) = rest.strip_prefix('{') {
                // The first word of each item at the group's own depth: `{a::{b, c}, d}` names
                // `a` and `d`.
                let (mut depth, mut item_start) = (1, true);
                for (i, c) in group.char_indices() {
                    if item_start && depth == 1 && !c.is_whitespace() {
                        names.push(word(group.get(i..).unwrap_or_default()));
                        item_start = false;
                    }
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 1 => break,
                        '}' => depth -= 1,
                        ',' if depth == 1 => item_start = true,
                        _ => {}
                    }
                }
            } else {
                names.push(word(rest));
            }
        }
        names.retain(|n| !n.is_empty());
        names
    }

    #[test]
    fn every_top_module_has_a_layer_and_the_layers_run_one_way() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut all = Vec::new();
        rust_files(&src, &mut all);
        let mut wrong = Vec::new();
        for path in &all {
            let rel = path.strip_prefix(&src).unwrap();
            let first = rel
                .components()
                .next()
                .unwrap()
                .as_os_str()
                .to_string_lossy();
            let own = first.trim_end_matches(".rs").to_owned();
            if own == "bin" || own == "lib" {
                continue;
            }
            let Some(mine) = layer(&own) else {
                wrong.push(format!("{own} is in no layer of LAYERS"));
                continue;
            };
            let source = std::fs::read_to_string(path).unwrap();
            for name in named(&source) {
                if name == own || name == "self" {
                    continue;
                }
                match layer(&name) {
                    Some(theirs) if theirs < mine => {}
                    Some(_) => wrong.push(format!(
                        "{} uses crate::{name}, which is not in a layer below {own}'s",
                        rel.display()
                    )),
                    None => wrong.push(format!(
                        "{} names crate::{name}, in no layer",
                        rel.display()
                    )),
                }
            }
        }
        wrong.sort();
        wrong.dedup();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn the_check_reads_paths_and_groups_and_skips_comments_and_tests() {
        let source =
            "use crate::{store::{Store, Scope}, text};\nfn f() { crate::recall::recall(); }\n\
                      // crate::plugin::x\n#[cfg(test)]\nmod tests { use crate::cmd; }";
        assert_eq!(named(source), ["store", "text", "recall"]);
    }
}
