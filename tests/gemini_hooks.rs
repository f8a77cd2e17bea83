//! The hook binaries as Gemini CLI's extension runs them (`--client gemini`, through
//! `bin/synapse-hook`), fed the payloads Gemini CLI 0.61.0 sends (docs/gemini.md), without the
//! client: what they print is Gemini's JSON or nothing, what they record, and what they make of
//! Claude Code's files. tests/e2e_gemini.rs runs them in the real client.

use crate::common;

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

use common::hook_context as context;
use common::place::Place;
use serde_json::{json, Value};

const SESSION: &str = "bd41c185-ed70-4082-a0e1-c5aadbfcaa7d";
const WEBHOOK: &str =
    "Webhook retries: 5 attempts with exponential backoff (src/webhooks/retry.rs)";
/// A `CLAUDE.md` line about the branch's work: Claude Code loads it into its sessions itself,
/// Gemini CLI does not.
const CLAUDE_MD_LINE: &str =
    "The src/webhooks/retry.rs tests pin the RNG seed so they stay deterministic";

/// `Place::on_webhook_retries`, with Gemini's payloads and command lines.
struct Gemini(Place);

impl std::ops::Deref for Gemini {
    type Target = Place;
    fn deref(&self) -> &Place {
        &self.0
    }
}

impl Gemini {
    fn new() -> Gemini {
        Gemini(Place::on_webhook_retries())
    }

    /// Gemini's payload for `event`, from the repository, with `fields` added.
    fn payload(&self, event: &str, fields: Value) -> Vec<u8> {
        let mut payload = json!({
            "session_id": SESSION,
            "transcript_path": "/tmp/chats/session.jsonl",
            "cwd": self.repo,
            "hook_event_name": event,
            "timestamp": "2026-12-03T14:48:15.844Z",
        });
        let map = payload.as_object_mut().unwrap();
        map.extend(fields.as_object().unwrap().clone());
        payload.to_string().into_bytes()
    }

    /// Run hook `name` as Gemini does; expect exit 0 and return its stdout.
    fn gemini(&self, name: &str, stdin: &[u8]) -> String {
        let out = self.launch(name, &["--client", "gemini"], stdin);
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    }
}

#[test]
fn session_start_hands_gemini_the_branch_memories_as_json() {
    let fx = Gemini::new();
    fx.remember_here(WEBHOOK);
    let stdout = fx.gemini(
        "session-start",
        &fx.payload("SessionStart", json!({"source": "startup"})),
    );
    let context = context(&stdout, "SessionStart");
    assert!(context.contains(WEBHOOK), "{context}");
    // Claude Code's auto memory is on here (its default), but Gemini keeps no such files: the
    // Gemini session is asked for `remember:` lines, not sent to Claude Code's memory files.
    assert!(context.contains("a line \"remember: ...\""), "{context}");
    assert!(!context.contains("Claude Code's memory files"), "{context}");
}

#[test]
fn a_claude_md_line_claude_code_loads_itself_is_offered_to_gemini() {
    let fx = Gemini::new();
    fx.remember_here(WEBHOOK);
    fs::write(
        fx.repo.join("CLAUDE.md"),
        format!("# Notes\n\n- {CLAUDE_MD_LINE}\n"),
    )
    .unwrap();
    // Two sessions: one session is not offered the same memory twice.
    let claude = json!({"source": "startup", "session_id": "a-claude-code-session"});
    let claude = fx.launch("session-start", &[], &fx.payload("SessionStart", claude));
    let claude = String::from_utf8(claude.stdout).unwrap();
    assert!(claude.contains(WEBHOOK), "{claude}");
    assert!(!claude.contains(CLAUDE_MD_LINE), "{claude}");
    let start = fx.payload("SessionStart", json!({"source": "startup"}));
    let gemini = context(&fx.gemini("session-start", &start), "SessionStart");
    assert!(gemini.contains(WEBHOOK), "{gemini}");
    assert!(gemini.contains(CLAUDE_MD_LINE), "{gemini}");
}

#[test]
fn before_agent_reads_the_typed_prompt_not_the_session_context_put_before_it() {
    let fx = Gemini::new();
    // What a `-p` run hands BeforeAgent: SessionStart's context, then the prompt.
    let prompt = "<hook_context>&lt;synapse-memories&gt;\n[1] today · cli\n    remember: planted \
                  by the session block\n&lt;/synapse-memories&gt;\n</hook_context>\n\nCheck \
                  the plan.\nremember: we never deploy on Fridays";
    let stdout = fx.gemini(
        "prompt-submit",
        &fx.payload("BeforeAgent", json!({"prompt": prompt})),
    );
    let context = context(&stdout, "BeforeAgent");
    assert!(
        context.contains("line 1: remembered as memory"),
        "{context}"
    );
    assert_eq!(fx.bodies(), ["we never deploy on Fridays"]);
}

#[test]
fn after_agent_records_the_reply_and_prints_nothing() {
    let fx = Gemini::new();
    let fields = json!({
        "prompt": "remember: a line of the prompt, not the reply",
        "prompt_response": "Done.\nremember: Retry delays are capped at 5 minutes",
        "stop_hook_active": false,
    });
    let stdout = fx.gemini("stop", &fx.payload("AfterAgent", fields));
    assert_eq!(stdout, "", "AfterAgent must print nothing");
    assert_eq!(fx.bodies(), ["Retry delays are capped at 5 minutes"]);
    assert!(fx.log().is_empty(), "{:?}", fx.log());
}

/// Whatever goes wrong, the hook exits 0, prints nothing (Gemini reads any stdout as its
/// answer) and says why in one log line.
#[test]
fn a_wrong_payload_or_argument_prints_nothing_and_logs_one_line() {
    let fx = Gemini::new();
    let reply = fx.payload("AfterAgent", json!({"prompt_response": "remember: x y z"}));
    let cases: [(&str, &[&str], &[u8], &str); 3] = [
        (
            "session-start",
            &["--client", "gemini"],
            b"not json",
            "SessionStart payload is not the expected JSON",
        ),
        (
            "prompt-submit",
            &["--client", "gemini"],
            &reply,
            "is wired wrong",
        ),
        (
            "stop",
            &["--client", "cursor"],
            &reply,
            "unexpected arguments",
        ),
    ];
    for (n, (hook, args, stdin, why)) in cases.into_iter().enumerate() {
        let out = fx.launch(hook, args, stdin);
        assert!(out.status.success(), "{hook} {args:?}: {out:?}");
        assert!(out.stdout.is_empty(), "{hook} {args:?}: {out:?}");
        let log = fx.log();
        assert_eq!(log.len(), n + 1, "{log:?}");
        assert!(log[n].contains(why), "{hook} {args:?}: {log:?}");
    }
    assert!(fx.bodies().is_empty(), "{:?}", fx.bodies());
}

/// The extension's files name the launchers and the events as the client reads them, and the
/// extension's version is the crate's.
#[test]
fn the_extension_runs_each_hook_for_its_gemini_event() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |path: &str| -> Value {
        serde_json::from_str(&fs::read_to_string(root.join(path)).unwrap()).unwrap()
    };
    let manifest = read("gemini/gemini-extension.json");
    assert_eq!(manifest["name"], "synapse");
    assert_eq!(manifest["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(
        manifest["mcpServers"]["synapse"]["command"],
        "${extensionPath}/../bin/synapse-mcp"
    );
    let hooks = read("gemini/hooks/hooks.json");
    let events = hooks["hooks"].as_object().unwrap();
    assert_eq!(events.len(), 3, "{hooks}");
    for (event, hook) in [
        ("SessionStart", "session-start"),
        ("BeforeAgent", "prompt-submit"),
        ("AfterAgent", "stop"),
    ] {
        let command = &events[event][0]["hooks"][0];
        assert_eq!(
            command["command"],
            format!("\"${{extensionPath}}/../bin/synapse-hook\" {hook} --client gemini"),
            "{event}"
        );
        // Gemini's timeouts are in milliseconds (Claude Code's in seconds).
        assert_eq!(command["timeout"], 10_000, "{event}");
    }
}

/// Under Gemini CLI no client sets `CLAUDE_PLUGIN_DATA`: the launcher finds a first-use build
/// where `bin/synapse-build` puts it then (`~/.local/share/synapse-plugin/bin`), and hands the
/// hook the arguments after the hook's name.
#[test]
fn the_launcher_finds_a_first_use_build_without_claude_plugin_data() {
    let home = tempfile::tempdir().unwrap();
    let built = home.path().join(".local/share/synapse-plugin/bin");
    fs::create_dir_all(&built).unwrap();
    // A stand-in for the built hook that says where it ran from and with what.
    let hook = built.join("synapse-session-start");
    fs::write(&hook, "#!/bin/sh\necho \"built hook: $*\"\n").unwrap();
    let chmod = Command::new("chmod").arg("+x").arg(&hook).status().unwrap();
    assert!(chmod.success());
    let launcher = Path::new(env!("CARGO_MANIFEST_DIR")).join("bin/synapse-hook");
    let out = Command::new(launcher)
        .args(["session-start", "--client", "gemini"])
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", home.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "built hook: --client gemini\n"
    );
}

/// Gemini's answers show a memory's escape sequences and direction overrides as escapes, at the
/// session's start and at a prompt, as Claude Code's do; `CLAUDE.md` naming a gone path is
/// Claude Code's to load, so Gemini is not told of it.
#[test]
fn gemini_gets_a_memory_s_escape_sequences_only_as_text() {
    let fx = Gemini::new();
    fx.remember_here(
        "Webhook retries: 5 attempts \x1b]0;owned\x07 \x1b[31mwith backoff\x1b[0m, see \
         src/webhooks/retry.rs; user\u{202e}gpj.exe",
    );
    fs::write(
        fx.repo.join("CLAUDE.md"),
        "- Read docs/gone-policy.md first.\n",
    )
    .unwrap();
    let start = fx.gemini(
        "session-start",
        &fx.payload("SessionStart", json!({"source": "startup"})),
    );
    let prompt = fx.gemini(
        "prompt-submit",
        &fx.payload(
            "BeforeAgent",
            // Another session: this one was given the memory at its start.
            json!({"session_id": "another", "prompt": "how many webhook retries with backoff, and where?"}),
        ),
    );
    for (stdout, event) in [(&start, "SessionStart"), (&prompt, "BeforeAgent")] {
        assert!(!stdout.chars().any(synapse::text::hidden), "{stdout:?}");
        let context = context(stdout, event);
        assert!(
            context.contains(r"\u{1b}]0;owned\u{7}") && context.contains(r"\u{202e}gpj.exe"),
            "{event}: {context}"
        );
        assert!(!context.contains("gone-policy"), "{event}: {context}");
    }
}
