//! Codex CLI's adapter. Codex runs the hooks of `~/.codex/hooks.json` (or a project's
//! `.codex/hooks.json`) as command strings, and drops `args`: each names the binary's launcher,
//! the event and `--client codex` in one string (`"…/bin/synapse-hook" stop --client codex`).
//! Measured with Codex CLI 0.171.0 (docs/codex.md):
//!
//! - Payloads carry `session_id`, `cwd`, `hook_event_name`, `model`, and per event `source`
//!   (SessionStart: startup, resume, clear, compact), `turn_id` and `prompt` (UserPromptSubmit),
//!   `last_assistant_message` (Stop), `trigger` (PreCompact, PostCompact). Nothing in them
//!   names the client, hence `--client codex`.
//! - Context reaches the model as a developer message, from plain stdout or from
//!   `hookSpecificOutput.additionalContext`; output that starts like JSON and is not the
//!   expected JSON fails the hook, so the answer is always JSON. `systemMessage` is shown to
//!   the person (in the terminal view, under the turn; `codex exec` does not print it). Hook
//!   text over 2,500 tokens (its bytes / 4) is cut and the whole saved to a file: the blocks stay
//!   under `inject::MAX_CHARS`, well below.
//! - Stop prints nothing or JSON (anything else is reported as a failed hook).
//! - PreCompact's output never reaches the compaction's prompt and PostCompact is given no
//!   summary: neither hook has lessons to record. A SessionStart with `compact` follows.
//! - Codex loads every `AGENTS.md` from the repository's top to the working folder itself, and
//!   none of Claude Code's files; its model sees the MCP server `synapse`'s tools as the
//!   functions of the namespace `mcp__synapse`.

use anyhow::{Context, Result};
use serde::Deserialize;

use super::session::{Adapter, Answer, Event, Payload};
use super::voice::{Lessons, Voice};
use crate::sources::{Known, Loads};

/// Codex CLI.
pub struct Codex;

/// What Codex sends on stdin; unknown fields are ignored.
#[derive(Debug, Deserialize)]
struct Sent {
    session_id: String,
    cwd: std::path::PathBuf,
    hook_event_name: String,
    #[serde(default)]
    source: Option<String>,
    #[serde(default)]
    prompt: Option<String>,
    #[serde(default)]
    last_assistant_message: Option<String>,
}

/// The events of Codex's a binary may be run for.
fn event_names(event: Event) -> &'static [&'static str] {
    match event {
        Event::SessionStart => &["SessionStart"],
        Event::UserPromptSubmit => &["UserPromptSubmit"],
        Event::Stop => &["Stop"],
        Event::Compact => &["PreCompact", "PostCompact"],
        // Claude Code's alone.
        Event::InstructionsLoaded => &[],
    }
}

impl Adapter for Codex {
    /// A payload of another event is refused: the hooks file would be wired wrong, and a
    /// prompt taken for a reply would be recorded as a lesson.
    fn payload(&self, event: Event, input: &str) -> Result<Payload> {
        let sent: Sent = serde_json::from_str(input).with_context(|| {
            format!(
                "Codex CLI's {} payload is not the expected JSON",
                event.name()
            )
        })?;
        anyhow::ensure!(
            event_names(event).contains(&sent.hook_event_name.as_str()),
            "Codex CLI ran the {} hook for {:?}: its hooks.json is wired wrong",
            event.name(),
            sent.hook_event_name
        );
        Ok(Payload {
            session_id: sent.session_id,
            cwd: sent.cwd,
            source: sent.source,
            prompt: sent.prompt,
            last_assistant_message: sent.last_assistant_message,
            hook_event_name: Some(sent.hook_event_name),
            compact_summary: None,
            loaded_file: None,
        })
    }

    /// JSON: the person's line in `systemMessage`, the model's context in `additionalContext`
    /// (SessionStart and UserPromptSubmit only: Stop takes none, and PreCompact's would go
    /// nowhere).
    fn output(&self, event: Event, answer: Answer) -> Option<String> {
        let mut out = serde_json::Map::new();
        if let Some(line) = answer.line {
            out.insert("systemMessage".into(), line.into());
        }
        let takes_context = matches!(event, Event::SessionStart | Event::UserPromptSubmit);
        if let Some(context) = answer.context.filter(|_| takes_context) {
            out.insert(
                "hookSpecificOutput".into(),
                serde_json::json!({
                    "hookEventName": event.name(),
                    "additionalContext": context,
                }),
            );
        }
        (!out.is_empty()).then(|| serde_json::Value::Object(out).to_string() + "\n")
    }

    fn known(&self, known: Known) -> Known {
        known.loaded_by(Loads::Agents)
    }

    fn voice(&self, _: &Known) -> Voice {
        Voice {
            tool: |tool| format!("the {tool} tool of mcp__synapse"),
            lessons: Lessons::Synapse,
            search: "synapse recall",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    /// A payload as Codex CLI 0.171.0 sent it (docs/codex.md), with `fields` added.
    fn sent(event: &str, fields: Value) -> String {
        let mut payload = json!({
            "session_id": "01a2504a-0208-77c1-aa94-efb5b110ed77",
            "transcript_path": "/home/u/.codex/sessions/2026/12/07/rollout.jsonl",
            "cwd": "/home/u/app",
            "hook_event_name": event,
            "model": "gpt-5",
            "permission_mode": "default",
        });
        payload
            .as_object_mut()
            .unwrap()
            .extend(fields.as_object().unwrap().clone());
        payload.to_string()
    }

    #[test]
    fn each_event_reads_its_own_payload_and_refuses_another() {
        let start = Codex
            .payload(
                Event::SessionStart,
                &sent("SessionStart", json!({"source": "startup"})),
            )
            .unwrap();
        assert_eq!(start.source.as_deref(), Some("startup"));
        let stop = sent(
            "Stop",
            json!({"turn_id": "t", "stop_hook_active": false, "last_assistant_message": "remember: x y"}),
        );
        let stop = Codex.payload(Event::Stop, &stop).unwrap();
        assert_eq!(
            stop.last_assistant_message.as_deref(),
            Some("remember: x y")
        );
        let prompt = sent(
            "UserPromptSubmit",
            json!({"turn_id": "t", "prompt": "remember: a b"}),
        );
        let err = Codex.payload(Event::Stop, &prompt).unwrap_err();
        assert!(format!("{err:#}").contains("wired wrong"), "{err:#}");
        let compact = sent("PostCompact", json!({"turn_id": "t", "trigger": "manual"}));
        assert!(Codex.payload(Event::Compact, &compact).is_ok());
        let err = Codex.payload(Event::SessionStart, "{").unwrap_err();
        assert!(format!("{err:#}").contains("Codex CLI's SessionStart payload"));
    }

    #[test]
    fn answers_are_json_and_stop_takes_a_line_alone() {
        let answer = || Answer {
            context: Some("{not json, a block}\n".into()),
            line: Some("Synapse · 1 note".into()),
        };
        let printed = Codex.output(Event::UserPromptSubmit, answer()).unwrap();
        let value: Value = serde_json::from_str(&printed).unwrap();
        assert_eq!(value["systemMessage"], "Synapse · 1 note");
        assert_eq!(
            value["hookSpecificOutput"],
            json!({"hookEventName": "UserPromptSubmit", "additionalContext": "{not json, a block}\n"})
        );
        let printed = Codex.output(Event::Stop, answer()).unwrap();
        assert_eq!(printed, "{\"systemMessage\":\"Synapse · 1 note\"}\n");
        assert_eq!(Codex.output(Event::Stop, Answer::default()), None);
        let request = Answer {
            context: Some("a request for the summary".into()),
            line: None,
        };
        assert_eq!(Codex.output(Event::Compact, request), None);
    }

    /// Hook text over 2,500 tokens, counted as bytes / 4, is cut: the largest block is under it.
    #[test]
    fn the_largest_block_is_under_codex_s_cut() {
        assert!(crate::plugin::inject::MAX_CHARS.div_ceil(4) < 2_500);
    }
}
