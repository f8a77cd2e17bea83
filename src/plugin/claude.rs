//! Claude Code's adapter: its hooks' payloads in, its answers out (measured with 2.1.197 and
//! 2.1.332: docs/claude-code.md). The plugin's `hooks/hooks.json` runs the binaries with no
//! argument (or `--client claude`).
//!
//! - Payloads: `session_id`, `cwd`, `hook_event_name`, and per event `source` (SessionStart),
//!   `prompt` (UserPromptSubmit), `last_assistant_message` (Stop), `compact_summary`
//!   (PostCompact), `file_path` (InstructionsLoaded, one per instruction file it loads).
//! - Plain stdout of SessionStart, UserPromptSubmit and PreCompact reaches the model; JSON with
//!   `systemMessage` shows the person a line beside `hookSpecificOutput.additionalContext`.
//! - The client loads `CLAUDE.md` files, rules and its auto memory's `MEMORY.md` itself; while
//!   its auto memory is on, the model keeps lessons as memory files, which Synapse reads.

use anyhow::{Context, Result};
use serde::Deserialize;

use super::session::{Adapter, Answer, Event, Payload};
use super::voice::{Lessons, Voice};
use crate::sources::Known;

/// Claude Code.
pub struct ClaudeCode;

/// What Claude Code sends on stdin (docs/formats.md); unknown fields are ignored.
#[derive(Debug, Deserialize)]
struct Sent {
    session_id: String,
    cwd: std::path::PathBuf,
    #[serde(default)]
    source: Option<String>,
    #[serde(default)]
    prompt: Option<String>,
    #[serde(default)]
    last_assistant_message: Option<String>,
    #[serde(default)]
    hook_event_name: Option<String>,
    #[serde(default)]
    compact_summary: Option<String>,
    /// InstructionsLoaded: the file, and why the client loaded it.
    #[serde(default)]
    file_path: Option<String>,
    #[serde(default)]
    load_reason: Option<String>,
}

impl Adapter for ClaudeCode {
    fn payload(&self, event: Event, input: &str) -> Result<Payload> {
        let sent: Sent = serde_json::from_str(input)
            .with_context(|| format!("{} payload is not the expected JSON", event.name()))?;
        // The one hook that acts on another client event than its binary's name would have it
        // read as: a mix-up would record a file as loaded, or miss one.
        let loading = sent.hook_event_name.as_deref() == Some("InstructionsLoaded");
        anyhow::ensure!(
            loading == (event == Event::InstructionsLoaded),
            "the {} hook ran for {:?}: the plugin's hooks/hooks.json is wired wrong",
            event.name(),
            sent.hook_event_name
        );
        Ok(Payload {
            session_id: sent.session_id,
            cwd: sent.cwd,
            source: sent.source,
            prompt: sent.prompt,
            last_assistant_message: sent.last_assistant_message,
            hook_event_name: sent.hook_event_name,
            compact_summary: sent.compact_summary,
            loaded_file: sent
                .file_path
                .map(|path| (path, sent.load_reason.unwrap_or_default())),
        })
    }

    /// The context alone as plain text, as before lines existed; with a line, JSON whose
    /// `systemMessage` the person sees and whose `additionalContext` the model gets. Plain
    /// output keeps no trailing newline in the model's context and `additionalContext` keeps
    /// every byte (measured in 2.1.197 and 2.1.332), so the context's last newline is left off:
    /// the model's text is the same either way, but for the client's label before it. A Stop
    /// hook's line is JSON with no context (anything else makes Claude continue); PostCompact's
    /// output is pasted into the compaction's result as it is, so its line is plain text.
    fn output(&self, event: Event, answer: Answer) -> Option<String> {
        let Some(line) = answer.line else {
            return answer.context;
        };
        if event == Event::Compact {
            return Some(line + "\n");
        }
        let mut out = serde_json::json!({ "systemMessage": line });
        if let Some(context) = answer.context {
            out["hookSpecificOutput"] = serde_json::json!({
                "hookEventName": event.name(),
                "additionalContext": context.strip_suffix('\n').unwrap_or(&context),
            });
        }
        Some(out.to_string() + "\n")
    }

    fn known(&self, known: Known) -> Known {
        known
    }

    /// The plugin's MCP tools by the names Claude Code gives them; lessons in its memory files
    /// while its auto memory is on (asking for `remember:` lines too would make two places to
    /// write), else in Synapse's store.
    fn voice(&self, known: &Known) -> Voice {
        let lessons = if known.auto_memory() {
            Lessons::Files("Claude Code's memory files")
        } else {
            Lessons::Synapse
        };
        Voice {
            tool: tool_name,
            lessons,
            search: "/synapse:recall",
        }
    }
}

/// A plugin MCP tool as Claude Code names it. Since 2.1.332 the client defers MCP tools: the
/// model finds one by its name with ToolSearch, which this full name matches.
fn tool_name(tool: &str) -> String {
    format!("the {PREFIX}{tool} tool")
}

/// The names Claude Code gives the plugin's MCP tools (`mcp__plugin_<plugin>_<server>__`).
const PREFIX: &str = "mcp__plugin_synapse_synapse__";
