//! The Claude Code plugin's front end: the hooks Claude Code runs, the blocks they inject, the
//! slash commands they run on the prompt as typed, and the lessons they record from a reply;
//! Gemini CLI's extension runs the same hooks (`gemini` reads its payloads and frames answers).
//! What to offer and how to write is decided below (`recall::unasked`, `record`): this layer
//! reads payloads and frames answers.

pub mod gemini;
pub mod hook;
pub mod inject;
pub mod lessons;
pub mod notice;
pub mod slash;
