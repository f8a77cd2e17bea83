//! Synapse: a small, current and honest memory for Claude Code.
//!
//! The map: each module owns one thing.
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
