//! Claude Code's own memory and instruction files, read as sources: the auto-memory folder,
//! `CLAUDE.md` files and their imports, rules and `AGENTS.md`, found, split into memories and
//! folded into the store when they change. Synapse never writes into them.

pub mod import;
pub mod split;
