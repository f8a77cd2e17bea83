//! End to end in the real Gemini CLI: the extension in `gemini/` linked into a HOME of the test's
//! own (`gemini extensions link`, as a user installs it), the binaries cargo just built
//! (`SYNAPSE_BIN_DIR`), and a stand-in Gemini API on 127.0.0.1 (`GOOGLE_GEMINI_BASE_URL`) that
//! scripts the model's replies and records every request the client sends.
//!
//! The client is the pinned `@google/gemini-cli` (0.61.0) that the README's test command,
//! `.ci/test`, installs into `.ci/gemini`; `SYNAPSE_GEMINI` names another. A plain `cargo test`
//! lists these tests as ignored; without the client they fail and say so: never skipped.
//!
//! Where hook context lands in the request was measured with 0.61.0 (docs/gemini.md): in a `-p`
//! run, SessionStart's context is put before the prompt in the same text, as
//! `<hook_context>...</hook_context>` and a blank line; BeforeAgent's is a text of its own after
//! the prompt, in the same wrapper.

use crate::common;

use std::fs;
use std::io::Write;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::client::{self, IDEMPOTENCY, WEBHOOK};
use common::http::{next_reply, write_json, Replies, Request, StandIn};
use serde_json::{json, Value};

/// The version `.ci/test` installs; a run's label names the version actually run.
const PINNED: &str = "0.61.0";
/// The model named on every run (naming one also skips the client's routing call).
const MODEL: &str = "gemini-2.5-pro";
/// A run taking longer than this is killed and fails the test.
const RUN_TIMEOUT: Duration = Duration::from_secs(90);

const LEARNED: &str = "Idempotency keys expire after 24 hours (gemini e2e)";
/// How Gemini CLI names the tools of the extension's MCP server `synapse`.
const MCP_PREFIX: &str = "mcp_synapse_";
/// What the client prints on standard error when an extension's hooks are broken: a hook that
/// failed or timed out, or a hooks file naming events it does not know.
const HOOK_TROUBLE: [&str; 3] = ["failed for event", "Invalid hook event name", "timed out"];

// ---------------------------------------------------------------------------------------------
// The stand-in Gemini API
// ---------------------------------------------------------------------------------------------

impl Request {
    /// A model call: the streamed `generateContent` every turn of the agent makes.
    fn is_model_call(&self) -> bool {
        self.method == "POST" && self.path.contains(":streamGenerateContent")
    }

    /// The texts of the user turns, one string per part.
    fn user_texts(&self) -> Vec<&str> {
        self.parts("user")
            .filter_map(|part| part["text"].as_str())
            .collect()
    }

    /// The parts of the turns of `role`.
    fn parts<'a>(&'a self, role: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
        self.body["contents"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(move |turn| turn["role"] == role)
            .filter_map(|turn| turn["parts"].as_array())
            .flatten()
    }

    /// The names of the functions (tools) the call offers the model.
    fn functions(&self) -> Vec<&str> {
        self.body["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|tool| tool["functionDeclarations"].as_array())
            .flatten()
            .filter_map(|f| f["name"].as_str())
            .collect()
    }

    /// What the client sent back for the model's call of function `name`.
    fn function_response(&self, name: &str) -> Option<&Value> {
        self.parts("user")
            .map(|part| &part["functionResponse"])
            .find(|response| response["name"] == name)
            .map(|response| &response["response"])
    }
}

/// A scripted model reply.
#[derive(Clone, Debug)]
enum Reply {
    /// A text that ends the turn.
    Text(String),
    /// A call of function `name` with `args`: the client runs it and sends the result in its next
    /// request.
    Call { name: String, args: Value },
}

/// The Gemini API on 127.0.0.1, answering with scripted replies.
impl StandIn<Reply> {
    /// Queue the text of the next model reply; unscripted calls get "ok".
    fn script(&self, text: &str) {
        self.push(Reply::Text(text.to_owned()));
    }

    /// Queue a function call as the next model reply.
    fn script_call(&self, name: &str, args: Value) {
        self.push(Reply::Call {
            name: name.to_owned(),
            args,
        });
    }
}

/// Answer one request: a model call with the next scripted reply, as one server-sent event.
fn answer(request: &Request, out: &mut TcpStream, replies: &Replies<Reply>) -> std::io::Result<()> {
    if request.is_model_call() {
        let reply = next_reply(replies, || Reply::Text("ok".to_owned()));
        let part = match reply {
            Reply::Text(text) => json!({"text": text}),
            Reply::Call { name, args } => json!({"functionCall": {"name": name, "args": args}}),
        };
        // One server-sent event holding the whole reply; the body ends when the connection
        // closes.
        let chunk = json!({
            "candidates": [{"content": {"role": "model", "parts": [part]},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5,
                              "totalTokenCount": 15},
            "modelVersion": MODEL,
        });
        write!(
            out,
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n\
             data: {chunk}\r\n\r\n"
        )?;
    } else if request.path.contains(":generateContent") {
        // The client's own small calls (none is expected with a model named): a plain answer.
        let answer = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]},
                                            "finishReason": "STOP", "index": 0}]});
        write_json(out, &answer)?;
    } else {
        write_json(out, &json!({}))?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The client
// ---------------------------------------------------------------------------------------------

/// The Gemini CLI executable; its absence fails the test.
fn gemini_path() -> PathBuf {
    let package = format!("@google/gemini-cli {PINNED}");
    client::executable("SYNAPSE_GEMINI", ".ci/gemini", "gemini", &package)
}

/// What one `gemini -p` run did (the test reads no log of it).
type Run = client::Run<()>;

impl Run {
    /// The model calls of this run.
    fn model_calls(&self) -> Vec<&Request> {
        self.requests.iter().filter(|r| r.is_model_call()).collect()
    }

    /// The first model call; fails when there was none.
    fn first_call(&self) -> &Request {
        match self.model_calls().first() {
            Some(r) => r,
            None => panic!("{}: no model call arrived\n{self}", self.label),
        }
    }

    /// Fail unless the client ran, answered with the scripted `reply`, and reported no trouble
    /// with the extension's hooks.
    fn expect_reply(&self, reply: &str) {
        assert!(
            self.status.success(),
            "{}: gemini failed\n{self}",
            self.label
        );
        let result: Value = serde_json::from_str(self.stdout.trim()).unwrap_or_else(|e| {
            panic!(
                "{}: --output-format json printed no JSON ({e})\n{self}",
                self.label
            )
        });
        assert_eq!(result["response"], json!(reply), "{}\n{self}", self.label);
        for trouble in HOOK_TROUBLE {
            assert!(
                !self.stderr.contains(trouble),
                "{}: the client reports {trouble:?}\n{self}",
                self.label
            );
        }
    }

    /// Fail unless a user text of the first model call that comes from `origin` contains
    /// `needle`.
    fn expect_text(&self, needle: &str, origin: Origin, what: &str) {
        let call = self.first_call();
        let found = call
            .user_texts()
            .iter()
            .any(|t| t.contains(needle) && origin.matches(t));
        assert!(
            found,
            "{}: {what}: no text from {origin:?} contains {needle:?}\n{self}",
            self.label
        );
    }
}

/// Where a user text in the request came from.
#[derive(Debug, Clone, Copy)]
enum Origin {
    /// SessionStart's context, which a `-p` run puts before this prompt in the same text.
    SessionStart(&'static str),
    /// BeforeAgent's context: a wrapped text of its own.
    BeforeAgent,
}

impl Origin {
    fn matches(self, text: &str) -> bool {
        match self {
            Origin::SessionStart(prompt) => {
                text.starts_with("<hook_context>")
                    && text.ends_with(&format!("</hook_context>\n\n{prompt}"))
            }
            Origin::BeforeAgent => {
                text.starts_with("<hook_context>") && text.ends_with("</hook_context>")
            }
        }
    }
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.write_head(f)?;
        for (i, r) in self.requests.iter().enumerate() {
            writeln!(f, "[{i}] {} {}", r.method, r.path)?;
            if r.is_model_call() {
                writeln!(f, "    functions: {:?}", r.functions())?;
                // The first user text is the client's own context (folders, MCP instructions).
                for t in r.user_texts().iter().skip(1) {
                    writeln!(
                        f,
                        "    | {}",
                        client::clip(t, 3000).replace('\n', "\n    | ")
                    )?;
                }
                for part in r.parts("model").chain(r.parts("user")) {
                    if part.get("text").is_none() {
                        writeln!(f, "    * {}", client::clip(&part.to_string(), 2000))?;
                    }
                }
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Fixture: a git repository with seeded memories, and a HOME with the extension linked
// ---------------------------------------------------------------------------------------------

/// Gemini CLI as the runs start it.
struct Gemini {
    path: PathBuf,
    /// "Gemini CLI 0.61.0", for the labels.
    version: String,
}

/// The task's workspace, with a HOME holding the client's settings (and the extension, once
/// linked).
type Fixture = client::Workspace<Reply, Gemini>;

impl Fixture {
    /// The fixture with the extension linked from this checkout's `gemini/`.
    fn new() -> Fixture {
        let fx = Fixture::unlinked();
        fx.link(&Path::new(env!("CARGO_MANIFEST_DIR")).join("gemini"));
        fx
    }

    /// The fixture with its repository and HOME, and no extension linked yet.
    fn unlinked() -> Fixture {
        let path = gemini_path();
        client::assert_built();
        let version = String::new();
        let mut fx = Fixture::start(answer, Gemini { path, version });
        // The task SessionStart reads: a changed file and one not yet added.
        let backoff = (
            "src/webhooks/backoff.rs",
            "pub fn delay(attempt: u32) -> u64 { 1 << attempt }\n",
        );
        client::task_repo(&fx.repo, &[], &[backoff]);
        write_settings(&fx.home);
        let out = fx.command().arg("--version").output().unwrap();
        assert!(out.status.success(), "gemini --version: {out:?}");
        let number = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        fx.client.version = format!("Gemini CLI {number}");
        fx
    }

    /// `gemini` with the environment of every run: the fixture's HOME and data folder, the
    /// binaries cargo built, the stand-in API, and nothing else of the caller's.
    fn command(&self) -> Command {
        let mut command = client::bare_command(&self.client.path, &self.repo);
        command
            .env("HOME", &self.home)
            .env("SYNAPSE_DATA", &self.data)
            .env("SYNAPSE_BIN_DIR", common::bin_dir())
            .env("GOOGLE_GEMINI_BASE_URL", self.api.base_url())
            .env("GEMINI_API_KEY", "test-key");
        command
    }

    /// Link the extension at `extension` as a user does, from the repository (the consent
    /// also trusts that folder, so the runs need no `--skip-trust`).
    fn link(&self, extension: &Path) {
        let out = self
            .command()
            .args(["extensions", "link"])
            .arg(extension)
            .arg("--consent")
            .output()
            .unwrap();
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.status.success() && said.contains("linked successfully"),
            "{}: gemini extensions link {} failed: {said}",
            self.client.version,
            extension.display()
        );
    }

    /// Link a copy of the extension and the launchers it runs, in a folder whose path has a
    /// space, as a user's checkout may be.
    fn link_from_a_folder_with_a_space(&self) {
        let copy = self.dir.path().join("my plugins").join("synapse");
        common::copy_checkout(&["gemini", "bin"], &copy);
        self.link(&copy.join("gemini"));
    }

    /// Run `gemini -p prompt` in the repository.
    fn gemini(&mut self, prompt: &str) -> Run {
        let label = format!("{}: gemini -p {prompt:?}", self.client.version);
        // The client restarts itself in a child process, and starts hooks and the MCP server:
        // the run ends them all with its process group.
        let mut command = self.command();
        command.args(["-p", prompt, "--model", MODEL, "--output-format", "json"]);
        self.run(label, &mut command, RUN_TIMEOUT, |_| ())
    }
}

/// The client's settings in `home`, as a user of the extension would have them: an API key as
/// the way in (with `GOOGLE_GEMINI_BASE_URL` alone the client picks its "gateway" sign-in,
/// which 0.61.0 refuses in a `-p` run), nothing sent to Google, no self-update; and a policy
/// that lets the MCP server's read-only tools run without asking (a `-p` run offers the model
/// only the tools a policy allows; an extension's own policy may not allow).
fn write_settings(home: &Path) {
    let gemini = home.join(".gemini");
    fs::create_dir_all(gemini.join("policies")).unwrap();
    let settings = json!({
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": false},
        "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
    });
    fs::write(gemini.join("settings.json"), settings.to_string()).unwrap();
    fs::write(
        gemini.join("policies/synapse.toml"),
        "[[rule]]\nmcpName = \"synapse\"\ntoolName = \"*\"\n\
         toolAnnotations = { readOnlyHint = true }\ndecision = \"allow\"\npriority = 100\n",
    )
    .unwrap();
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

/// A plain prompt: SessionStart hands over the branch's memory, BeforeAgent the prompt's, and
/// AfterAgent records the reply's `remember:` line; each hook's answer is JSON the client takes.
#[test]
#[ignore = "end-to-end: needs Gemini CLI, run .ci/test"]
fn hooks_inject_memories_and_after_agent_records_the_reply() {
    let mut fx = Fixture::new();
    let webhook = fx.seed();
    let reply = format!("Noted.\nremember: {LEARNED}");
    fx.api.script(&reply);

    let prompt = "how are idempotency keys stored?";
    let run = fx.gemini(prompt);
    run.expect_reply(&reply);
    assert_eq!(
        run.model_calls().len(),
        1,
        "one model call expected (AfterAgent asks for no retry)\n{run}"
    );
    let at_start = Origin::SessionStart(prompt);
    run.expect_text(WEBHOOK, at_start, "SessionStart memory");
    run.expect_text(&format!("[{webhook}]"), at_start, "SessionStart memory id");
    run.expect_text(IDEMPOTENCY, Origin::BeforeAgent, "BeforeAgent memory");
    // The prompt hook offers only what this session was not given at its start.
    let offered_twice = run
        .first_call()
        .user_texts()
        .iter()
        .any(|t| Origin::BeforeAgent.matches(t) && t.contains(WEBHOOK));
    assert!(
        !offered_twice,
        "BeforeAgent offered the branch's memory again\n{run}"
    );
    // A Gemini session is asked for `remember:` lines, whatever Claude Code's auto memory does.
    run.expect_text("a line \"remember: ...\"", at_start, "how to save a lesson");

    let what = format!("{}: AfterAgent", fx.client.version);
    fx.expect_recorded(LEARNED, &what, &run);
}

/// A line the user starts with `remember:` is kept once, and the model told so; the SessionStart
/// block a `-p` run puts before the prompt is not read as the user's words.
#[test]
#[ignore = "end-to-end: needs Gemini CLI, run .ci/test"]
fn a_remember_line_the_user_types_is_kept_and_the_model_told() {
    let mut fx = Fixture::new();
    fx.seed();
    fx.api.script("Understood.");
    let fact = "we never deploy webhooks on Fridays";
    let run = fx.gemini(&format!("Check the release plan.\nremember: {fact}"));
    run.expect_reply("Understood.");
    run.expect_text(
        "line 1: remembered as memory",
        Origin::BeforeAgent,
        "what the prompt hook kept",
    );
    let bodies = fx.bodies();
    let kept = bodies.iter().filter(|b| *b == fact).count();
    assert_eq!(kept, 1, "the project holds {bodies:#?}\n{run}");
}

/// The extension's MCP server in the real client: its tools are offered to the model, and a
/// scripted call of `recall` returns the memory, its id and the advisory framing in the next
/// request.
#[test]
#[ignore = "end-to-end: needs Gemini CLI, run .ci/test"]
fn the_recall_tool_is_offered_and_returns_memories() {
    let mut fx = Fixture::new();
    let webhook = fx.seed();
    let recall = format!("{MCP_PREFIX}recall");
    fx.api
        .script_call(&recall, json!({"query": "webhook retries backoff"}));
    fx.api.script("Webhooks retry 5 times.");

    let run = fx.gemini("how many times do webhooks retry?");
    run.expect_reply("Webhooks retry 5 times.");
    let calls = run.model_calls();
    assert_eq!(calls.len(), 2, "recall, then the answer\n{run}");
    // Offered from the first call: the read-only tools, which the policy lets run.
    for tool in ["recall", "readmemory", "drift"] {
        let name = format!("{MCP_PREFIX}{tool}");
        assert!(
            calls[0].functions().contains(&name.as_str()),
            "{}: {name} is not offered\n{run}",
            fx.client.version
        );
    }
    let result = calls[1]
        .function_response(&recall)
        .unwrap_or_else(|| panic!("no result of {recall} in the second call\n{run}"))
        .to_string();
    assert!(
        !result.contains("\"error\""),
        "{recall} failed: {result}\n{run}"
    );
    for needle in [WEBHOOK, &format!("\\\"id\\\":{webhook}"), "advisory"] {
        assert!(
            result.contains(needle),
            "{recall}'s result lacks {needle:?}: {result}\n{run}"
        );
    }
}

/// An extension linked from a folder whose path has a space: every hook runs (their commands
/// quote `${extensionPath}`) and the MCP server starts (the client runs its command without a
/// shell).
#[test]
#[ignore = "end-to-end: needs Gemini CLI, run .ci/test"]
fn an_extension_path_with_a_space_runs_the_hooks_and_the_server() {
    let mut fx = Fixture::unlinked();
    fx.link_from_a_folder_with_a_space();
    fx.seed();
    let reply = "Noted.\nremember: the extension runs from a folder with a space";
    fx.api.script(reply);
    let prompt = "how are idempotency keys stored?";
    let run = fx.gemini(prompt);
    run.expect_reply(reply);
    run.expect_text(WEBHOOK, Origin::SessionStart(prompt), "SessionStart memory");
    run.expect_text(IDEMPOTENCY, Origin::BeforeAgent, "BeforeAgent memory");
    let recall = format!("{MCP_PREFIX}recall");
    assert!(
        run.first_call().functions().contains(&recall.as_str()),
        "{recall} is not offered: the MCP server did not start\n{run}"
    );
    let bodies = fx.bodies();
    assert!(
        bodies
            .iter()
            .any(|b| b == "the extension runs from a folder with a space"),
        "AfterAgent did not record the lesson: {bodies:#?}\n{run}"
    );
}
