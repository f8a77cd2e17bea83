//! Gemini CLI's adapter. Its extension (`gemini/`) runs the same three binaries with
//! `--client gemini`, each for the Gemini event of the same moment: SessionStart for
//! SessionStart, BeforeAgent (the prompt) for UserPromptSubmit, AfterAgent (the reply) for Stop.
//! What to inject or record is decided by the session core (`session`); this module only reads
//! Gemini's payload and frames the answer the way Gemini takes it (measured with Gemini CLI
//! 0.61.0: docs/gemini.md).
//!
//! - Every payload has `session_id`, `transcript_path`, `cwd`, `hook_event_name` and
//!   `timestamp`; SessionStart adds `source` (startup, resume or clear), BeforeAgent `prompt`,
//!   AfterAgent `prompt`, `prompt_response` (the reply) and `stop_hook_active`.
//! - In a run with `-p`, Gemini puts the SessionStart context in front of the prompt as
//!   `<hook_context>...</hook_context>` and a blank line, and hands BeforeAgent that whole text:
//!   the wrapper is cut off, so the prompt hook reads the user's words and not its own block
//!   (whose memory lines would otherwise count as the prompt's, and could read as a typed
//!   `remember:` line).
//! - Standard output must be JSON or nothing: plain text is shown to the person, never given to
//!   the model. Context goes in `hookSpecificOutput.additionalContext`, which Gemini wraps in
//!   `<hook_context>` tags. AfterAgent prints nothing: a `decision` there would make the model
//!   answer again.
//! - Gemini loads its own `GEMINI.md` and none of Claude Code's files, and has no slash
//!   commands of Synapse's: the blocks name the MCP tools and ask for `remember:` lines.

use std::path::PathBuf;

use anyhow::{Context, Result};
use serde::Deserialize;

use super::session::{Adapter, Answer, Event, Payload};
use super::voice::{Lessons, Voice};
use crate::sources::{Known, Loads};

/// Gemini CLI.
pub struct Gemini;

/// The tags Gemini wraps hook context in.
const OPEN: &str = "<hook_context>";
const CLOSE: &str = "</hook_context>";

/// What Gemini CLI sends on stdin; unknown fields are ignored.
#[derive(Debug, Deserialize)]
struct GeminiPayload {
    session_id: String,
    cwd: PathBuf,
    hook_event_name: String,
    #[serde(default)]
    source: Option<String>,
    #[serde(default)]
    prompt: Option<String>,
    #[serde(default)]
    prompt_response: Option<String>,
}

/// Gemini's name for the moment a hook runs at.
fn event_name(event: Event) -> &'static str {
    match event {
        Event::SessionStart => "SessionStart",
        Event::UserPromptSubmit => "BeforeAgent",
        Event::Stop => "AfterAgent",
        // Not wired for Gemini; the nearest moment of Gemini's, for the error.
        Event::Compact => "PreCompress",
        Event::InstructionsLoaded => "InstructionsLoaded",
    }
}

impl Adapter for Gemini {
    fn payload(&self, event: Event, input: &str) -> Result<Payload> {
        payload(event, input)
    }

    fn output(&self, event: Event, answer: Answer) -> Option<String> {
        output(event, answer)
    }

    /// Gemini loads none of Claude Code's files: their memories are Synapse's to offer.
    fn known(&self, known: Known) -> Known {
        known.loaded_by(Loads::Nothing)
    }

    /// The extension's MCP tools as Gemini names them (`mcp_SERVER_TOOL`); lessons as
    /// `remember:` lines or the remember tool.
    fn voice(&self, _: &Known) -> Voice {
        Voice {
            tool: |tool| format!("the mcp_synapse_{tool} tool"),
            lessons: Lessons::Synapse,
            search: "synapse recall",
        }
    }
}

/// Read Gemini's payload for `event` as the hooks' own. A payload of another event is refused:
/// the extension's hooks file would be wired wrong, and a prompt taken for a reply would be
/// recorded as a lesson.
fn payload(event: Event, input: &str) -> Result<Payload> {
    anyhow::ensure!(
        !matches!(event, Event::Compact | Event::InstructionsLoaded),
        "the {} hook is Claude Code's; Gemini CLI's extension does not run it",
        event.name()
    );
    let name = event_name(event);
    let payload: GeminiPayload = serde_json::from_str(input)
        .with_context(|| format!("Gemini CLI's {name} payload is not the expected JSON"))?;
    anyhow::ensure!(
        payload.hook_event_name == name,
        "Gemini CLI ran the {name} hook for {:?}: the extension's hooks/hooks.json is wired wrong",
        payload.hook_event_name
    );
    let (prompt, reply) = match event {
        Event::SessionStart => (None, None),
        Event::UserPromptSubmit => (payload.prompt.map(without_session_context), None),
        Event::Stop => (None, payload.prompt_response),
        Event::Compact | Event::InstructionsLoaded => (None, None),
    };
    Ok(Payload {
        session_id: payload.session_id,
        cwd: payload.cwd,
        source: payload.source,
        prompt,
        last_assistant_message: reply,
        hook_event_name: Some(payload.hook_event_name),
        compact_summary: None,
        loaded_file: None,
    })
}

/// The prompt without the SessionStart context Gemini puts in front of it in a `-p` run.
fn without_session_context(prompt: String) -> String {
    let typed = prompt
        .strip_prefix(OPEN)
        .and_then(|rest| rest.split_once(&format!("{CLOSE}\n\n")))
        .map(|(_, typed)| typed.to_owned());
    typed.unwrap_or(prompt)
}

/// What the hook prints for `answer`: Gemini's JSON, the context it hands the model in
/// `additionalContext` and the person's line in `systemMessage`; nothing when there is neither.
/// The closing tag is broken wherever the context holds it (a memory may quote one), so the
/// text cannot end Gemini's wrapper early, and the prompt hook finds where the wrapper ends.
/// AfterAgent prints nothing: the person's line of a saved lesson is Claude Code's alone, as
/// nothing printed there was measured to leave Gemini's turn alone.
fn output(event: Event, answer: Answer) -> Option<String> {
    if event == Event::Stop {
        return None;
    }
    let mut out = serde_json::Map::new();
    if let Some(line) = answer.line {
        out.insert("systemMessage".into(), line.into());
    }
    if let Some(context) = answer.context {
        out.insert(
            "hookSpecificOutput".into(),
            serde_json::json!({
                "hookEventName": event_name(event),
                "additionalContext": context.replace(CLOSE, "‹/hook_context>"),
            }),
        );
    }
    (!out.is_empty()).then(|| serde_json::Value::Object(out).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    /// A payload as Gemini CLI 0.61.0 sent it (docs/gemini.md), with `fields` added.
    fn sent(event: &str, fields: Value) -> String {
        let mut payload = json!({
            "session_id": "bd41c185-ed70-4082-a0e1-c5aadbfcaa7d",
            "transcript_path": "/home/u/.gemini/tmp/app/chats/session-bd41c185.jsonl",
            "cwd": "/home/u/app",
            "hook_event_name": event,
            "timestamp": "2026-12-03T14:48:15.844Z",
        });
        payload
            .as_object_mut()
            .unwrap()
            .extend(fields.as_object().unwrap().clone());
        payload.to_string()
    }

    #[test]
    fn session_start_reads_the_session_and_its_source() {
        let p = payload(
            Event::SessionStart,
            &sent("SessionStart", json!({"source": "resume"})),
        )
        .unwrap();
        assert_eq!(p.session_id, "bd41c185-ed70-4082-a0e1-c5aadbfcaa7d");
        assert_eq!(p.cwd, PathBuf::from("/home/u/app"));
        assert_eq!(p.source.as_deref(), Some("resume"));
        assert_eq!((p.prompt, p.last_assistant_message), (None, None));
    }

    #[test]
    fn before_agent_reads_the_prompt_without_the_session_context_put_before_it() {
        let prompt = "<hook_context><synapse-memories>\n[3] today\n    remember: not typed\n\
                      </synapse-memories></hook_context>\n\nwhich port?\nremember: typed";
        let p = payload(
            Event::UserPromptSubmit,
            &sent("BeforeAgent", json!({"prompt": prompt})),
        )
        .unwrap();
        assert_eq!(p.prompt.as_deref(), Some("which port?\nremember: typed"));
    }

    #[test]
    fn before_agent_keeps_a_prompt_with_no_context_whole() {
        for prompt in ["which port?", "<hook_context>no end", "say <hook_context>"] {
            let p = payload(
                Event::UserPromptSubmit,
                &sent("BeforeAgent", json!({"prompt": prompt})),
            )
            .unwrap();
            assert_eq!(p.prompt.as_deref(), Some(prompt));
        }
    }

    #[test]
    fn after_agent_reads_the_reply_not_the_prompt() {
        let p = payload(
            Event::Stop,
            &sent(
                "AfterAgent",
                json!({"prompt": "remember: a prompt line", "prompt_response": "Done.\nremember: x",
                       "stop_hook_active": false}),
            ),
        )
        .unwrap();
        assert_eq!(
            p.last_assistant_message.as_deref(),
            Some("Done.\nremember: x")
        );
        assert_eq!(p.prompt, None);
    }

    #[test]
    fn a_payload_of_another_event_is_refused() {
        let err = payload(
            Event::Stop,
            &sent("BeforeAgent", json!({"prompt": "remember: x"})),
        )
        .unwrap_err();
        assert!(format!("{err:#}").contains("wired wrong"), "{err:#}");
        let err = payload(Event::SessionStart, "not json").unwrap_err();
        assert!(
            format!("{err:#}").contains("SessionStart payload"),
            "{err:#}"
        );
    }

    #[test]
    fn context_is_framed_as_gemini_takes_it_and_cannot_close_its_wrapper() {
        let context = "<synapse-memories>\n[1] a </hook_context> quoted\n</synapse-memories>\n";
        let printed = output(
            Event::UserPromptSubmit,
            Answer {
                context: Some(context.into()),
                line: None,
            },
        )
        .unwrap();
        let value: Value = serde_json::from_str(&printed).unwrap();
        assert_eq!(value["hookSpecificOutput"]["hookEventName"], "BeforeAgent");
        let context = value["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap();
        assert!(!context.contains(CLOSE), "{context}");
        assert!(
            context.contains("[1] a ‹/hook_context> quoted"),
            "{context}"
        );
        let answer = Answer {
            context: Some("x".into()),
            line: Some("Synapse · 1 note for main".into()),
        };
        let value: Value =
            serde_json::from_str(&output(Event::SessionStart, answer).unwrap()).unwrap();
        assert_eq!(
            value,
            json!({
                "systemMessage": "Synapse · 1 note for main",
                "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "x"}
            })
        );
    }

    #[test]
    fn nothing_is_printed_without_context_or_line_nor_after_the_reply() {
        assert_eq!(output(Event::SessionStart, Answer::default()), None);
        let line = Answer {
            context: None,
            line: Some("Synapse saved #3".into()),
        };
        assert_eq!(output(Event::Stop, line), None);
    }
}
