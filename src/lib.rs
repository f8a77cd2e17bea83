//! Synapse: a small, current and honest memory for Claude Code.
//!
//! The map: each module owns one thing.

/// Command-line verbs: one file per subcommand, each parsing into the library and printing.
pub mod cmd;
/// Where things live (the data folder) and the budget levels.
pub mod config;
/// Drift: stale, conflicting and duplicate memories, found for an audit or for what is handed over.
pub mod drift;
/// Relevance evaluation: run labeled cases through recall and score the answers.
pub mod eval;
/// The Claude Code hooks: payloads in, the injected block or a recorded lesson out.
pub mod hook;
/// The blocks the hooks inject, framed so memory text cannot forge them.
pub mod inject;
/// Lessons marked in a reply (`remember:`), with secrets masked before storing.
pub mod lessons;
/// Exact paging through one memory's stored bytes.
pub mod read;
/// Recall: query terms, the two search lanes, fusion, the coverage floor, budget packing.
pub mod recall;
/// The task signal: branch, changed files and prompt, from git without reading file contents.
pub mod signal;
/// The SQLite store: schema, migrations, scope, writes and history.
pub mod store;
/// Text folding and stemming shared by query terms and coverage counting.
pub mod text;
