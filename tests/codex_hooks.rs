//! The hook binaries as Codex CLI runs them (`--client codex`, through `bin/synapse-hook`), fed
//! the payloads Codex CLI 0.171.0 sends (docs/codex.md), without the client: what they print is
//! JSON Codex takes, what they record, which files they leave to Codex (it loads `AGENTS.md`
//! itself) and how the blocks name Synapse's tools to Codex's model. tests/e2e_codex.rs runs
//! them in the real client.

use crate::common;

use std::fs;

use common::hook_context as context;
use common::place::Place;
use serde_json::{json, Value};

const SESSION: &str = "01a2504a-0208-77c1-aa94-efb5b110ed77";
const WEBHOOK: &str =
    "Webhook retries: 5 attempts with exponential backoff (src/webhooks/retry.rs)";
/// Lines about the branch's work in the two instruction files: Codex loads `AGENTS.md` itself,
/// Claude Code loads the `CLAUDE.md` beside it instead.
const AGENTS_LINE: &str = "Webhook retry tests use a fixed clock and never sleep";
const CLAUDE_LINE: &str = "Webhook retry backoff is jittered by twenty percent";
/// A line of Codex's own memories, which no client loads.
const CODEX_MEMORY: &str = "Webhook retries stop once the receiver answers 410 Gone";

/// `Place::on_webhook_retries`, with Codex's payloads and command lines.
struct Codex(Place);

impl std::ops::Deref for Codex {
    type Target = Place;
    fn deref(&self) -> &Place {
        &self.0
    }
}

impl Codex {
    fn new() -> Codex {
        Codex(Place::on_webhook_retries())
    }

    /// Codex's payload for `event`, from the repository, with `fields` added.
    fn payload(&self, event: &str, fields: Value) -> Vec<u8> {
        let mut payload = json!({
            "session_id": SESSION,
            "transcript_path": "/tmp/sessions/rollout.jsonl",
            "cwd": self.repo,
            "hook_event_name": event,
            "model": "gpt-5",
            "permission_mode": "default",
        });
        let map = payload.as_object_mut().unwrap();
        map.extend(fields.as_object().unwrap().clone());
        payload.to_string().into_bytes()
    }

    /// Run hook `name` as a hooks.json command string runs it, with `args` after it, feeding
    /// it `stdin`; expect exit 0 and nothing on stderr.
    fn launch_quietly(&self, name: &str, args: &[&str], stdin: &[u8]) -> String {
        let out = self.launch(name, args, stdin);
        assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    }

    fn codex(&self, name: &str, stdin: &[u8]) -> String {
        self.launch_quietly(name, &["--client", "codex"], stdin)
    }
}

/// What a hook's stdout hands Codex: its JSON, which it must be, whole.
fn json_of(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not JSON alone ({e}): {stdout:?}"))
}

#[test]
fn session_start_speaks_codex_s_language() {
    let fx = Codex::new();
    fx.remember_here(WEBHOOK);
    let start = fx.payload("SessionStart", json!({"source": "startup"}));
    let stdout = fx.codex("session-start", &start);
    let context = context(&stdout, "SessionStart");
    assert!(context.contains(WEBHOOK), "{context}");
    assert!(
        context.contains("the readmemory tool of mcp__synapse with its id"),
        "{context}"
    );
    assert!(context.contains("a line \"remember: ...\""), "{context}");
    // Claude Code's auto memory is on here (its default), but Codex keeps no such files, and
    // has none of Synapse's slash commands.
    assert!(!context.contains("Claude Code's memory files"), "{context}");
    assert!(!context.contains("/synapse:"), "{context}");
    let line = json_of(&stdout)["systemMessage"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(line, "Synapse · 1 note for feature/webhook-retries");
}

/// Codex loads every `AGENTS.md` on the path itself and no `CLAUDE.md`; Claude Code loads the
/// `CLAUDE.md` and not the `AGENTS.md` beside it. Each is offered what it has not loaded, and
/// Codex's own memories reach both.
#[test]
fn each_client_is_offered_the_instruction_file_it_does_not_load() {
    let fx = Codex::new();
    // Memories about other things, so that the webhook's words are the rare ones.
    for other in [
        "The marketing site deploys from the www repository",
        "Payments use Stripe in test mode on staging",
        "The docs build with mdbook",
    ] {
        fx.remember_here(other);
    }
    fs::write(
        fx.repo.join("AGENTS.md"),
        format!("# Agents\n\n- {AGENTS_LINE}\n"),
    )
    .unwrap();
    fs::write(
        fx.repo.join("CLAUDE.md"),
        format!("# Notes\n\n- {CLAUDE_LINE}\n"),
    )
    .unwrap();
    let memories = fx.home().join(".codex/memories");
    fs::create_dir_all(&memories).unwrap();
    fs::write(
        memories.join("MEMORY.md"),
        format!("# Memory\n\n- {CODEX_MEMORY}\n"),
    )
    .unwrap();

    let start = |session: &str| {
        fx.payload(
            "SessionStart",
            json!({"source": "startup", "session_id": session}),
        )
    };
    let codex = context(&fx.codex("session-start", &start("codex")), "SessionStart");
    assert!(!codex.contains(AGENTS_LINE), "{codex}");
    assert!(codex.contains(CLAUDE_LINE), "{codex}");
    assert!(codex.contains(CODEX_MEMORY), "{codex}");
    let claude = fx.launch_quietly("session-start", &[], &start("claude"));
    let claude = common::context_of(&claude);
    assert!(claude.contains(AGENTS_LINE), "{claude}");
    assert!(!claude.contains(CLAUDE_LINE), "{claude}");
    assert!(claude.contains(CODEX_MEMORY), "{claude}");
}

#[test]
fn stop_records_the_reply_and_shows_the_person_a_line() {
    let fx = Codex::new();
    let fields = json!({
        "turn_id": "01a2504a-026d-7962-b560-29e8a2d7301c",
        "stop_hook_active": false,
        "last_assistant_message": "Done.\nremember: Retry delays are capped at 5 minutes",
    });
    let stdout = fx.codex("stop", &fx.payload("Stop", fields));
    assert_eq!(fx.bodies(), ["Retry delays are capped at 5 minutes"]);
    let value = json_of(&stdout);
    assert!(
        value["systemMessage"]
            .as_str()
            .unwrap()
            .starts_with("Synapse saved #"),
        "{value}"
    );
    assert!(value.get("hookSpecificOutput").is_none(), "{value}");
    assert!(fx.log().is_empty(), "{:?}", fx.log());
}

/// Codex's compaction hooks carry no summary, and a PreCompact's text reaches no model: the
/// hook, if wired, does nothing and says nothing.
#[test]
fn the_compaction_hooks_are_quiet_in_codex() {
    let fx = Codex::new();
    for event in ["PreCompact", "PostCompact"] {
        let fields = json!({"turn_id": "t", "trigger": "manual"});
        let stdout = fx.codex("compact", &fx.payload(event, fields));
        assert_eq!(stdout, "", "{event}");
    }
    assert!(fx.log().is_empty(), "{:?}", fx.log());
    assert!(fx.bodies().is_empty());
}

/// A prompt's pointers name what Codex's model can follow: the tool, or the file.
#[test]
fn a_prompt_s_pointers_name_codex_s_tool() {
    let fx = Codex::new();
    fx.remember_here("The canary runs in eu-west only, for 30 minutes");
    let prompt = json!({"turn_id": "t", "prompt": "where does the canary run?"});
    let stdout = fx.codex("prompt-submit", &fx.payload("UserPromptSubmit", prompt));
    let context = context(&stdout, "UserPromptSubmit");
    assert!(context.contains("eu-west"), "{context}");
    assert!(context.contains("readmemory tool"), "{context}");
    assert!(!context.contains("/synapse:"), "{context}");
}
