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

use std::collections::VecDeque;
use std::fs::{self, File};
use std::io::Write;
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::http::{write_json, Request, Server};
use serde_json::{json, Value};
use tempfile::TempDir;

/// The version `.ci/test` installs; a run's label names the version actually run.
const PINNED: &str = "0.61.0";
/// The model named on every run (naming one also skips the client's routing call).
const MODEL: &str = "gemini-2.5-pro";
/// A run taking longer than this is killed and fails the test.
const RUN_TIMEOUT: Duration = Duration::from_secs(90);

const WEBHOOK: &str =
    "Webhook retries: 5 attempts with exponential backoff, see src/webhooks/retry.rs";
const IDEMPOTENCY: &str =
    "Idempotency keys are stored in the idempotency_keys table in Postgres, hashed with SHA-256";
const UNRELATED: &str = "The marketing site is deployed from the www repository by Netlify";
const LEARNED: &str = "Idempotency keys expire after 24 hours (gemini e2e)";
/// How Gemini CLI names the tools of the extension's MCP server `synapse`.
const MCP_PREFIX: &str = "mcp_synapse_";
/// What the extension's launchers run, next to `synapse`.
const BINARIES: [&str; 4] = [
    "synapse-session-start",
    "synapse-prompt-submit",
    "synapse-stop",
    "synapse-mcp",
];
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
struct StandIn {
    server: Server,
    replies: Arc<Mutex<VecDeque<Reply>>>,
}

impl StandIn {
    fn start() -> StandIn {
        let replies = Arc::new(Mutex::new(VecDeque::new()));
        let queue = Arc::clone(&replies);
        let server = Server::start("stand-in API", move |request, out| {
            answer(request, out, &queue)
        });
        StandIn { server, replies }
    }

    fn base_url(&self) -> String {
        self.server.base_url()
    }

    /// Queue the text of the next model reply; unscripted calls get "ok".
    fn script(&self, text: &str) {
        self.replies
            .lock()
            .unwrap()
            .push_back(Reply::Text(text.to_owned()));
    }

    /// Queue a function call as the next model reply.
    fn script_call(&self, name: &str, args: Value) {
        self.replies.lock().unwrap().push_back(Reply::Call {
            name: name.to_owned(),
            args,
        });
    }

    fn requests(&self) -> Vec<Request> {
        self.server.requests()
    }
}

/// Answer one request: a model call with the next scripted reply, as one server-sent event.
fn answer(
    request: &Request,
    out: &mut TcpStream,
    replies: &Mutex<VecDeque<Reply>>,
) -> std::io::Result<()> {
    if request.is_model_call() {
        let reply = replies
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or_else(|| Reply::Text("ok".to_owned()));
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
    let path = match std::env::var_os("SYNAPSE_GEMINI") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/gemini/node_modules/.bin/gemini"),
    };
    assert!(
        path.is_file(),
        "Gemini CLI not found at {}: this test runs the real client and cannot run without it; \
         run the README's test command (.ci/test), which installs @google/gemini-cli {PINNED} \
         into .ci/gemini, or set SYNAPSE_GEMINI",
        path.display()
    );
    path
}

/// What one `gemini -p` run did.
struct Run {
    label: String,
    status: ExitStatus,
    stdout: String,
    stderr: String,
    /// The requests the stand-in received during this run.
    requests: Vec<Request>,
    elapsed: Duration,
}

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
        writeln!(f, "--- {}", self.label)?;
        writeln!(f, "--- exit: {} after {:?}", self.status, self.elapsed)?;
        writeln!(f, "--- stdout:\n{}", clip(self.stdout.trim_end(), 3000))?;
        writeln!(f, "--- stderr:\n{}", clip(self.stderr.trim_end(), 6000))?;
        writeln!(f, "--- requests: {}", self.requests.len())?;
        for (i, r) in self.requests.iter().enumerate() {
            writeln!(f, "[{i}] {} {}", r.method, r.path)?;
            if r.is_model_call() {
                writeln!(f, "    functions: {:?}", r.functions())?;
                // The first user text is the client's own context (folders, MCP instructions).
                for t in r.user_texts().iter().skip(1) {
                    writeln!(f, "    | {}", clip(t, 3000).replace('\n', "\n    | "))?;
                }
                for part in r.parts("model").chain(r.parts("user")) {
                    if part.get("text").is_none() {
                        writeln!(f, "    * {}", clip(&part.to_string(), 2000))?;
                    }
                }
            }
        }
        Ok(())
    }
}

fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}… ({} bytes)", &s[..i], s.len()),
        None => s.to_owned(),
    }
}

// ---------------------------------------------------------------------------------------------
// Fixture: a git repository with seeded memories, and a HOME with the extension linked
// ---------------------------------------------------------------------------------------------

/// A temporary folder with a git repository (`repo/`), the data folder (`data/`), the HOME the
/// client and the CLI run with, and the stand-in API.
struct Fixture {
    dir: TempDir,
    repo: PathBuf,
    data: PathBuf,
    home: PathBuf,
    api: StandIn,
    gemini: PathBuf,
    /// "Gemini CLI 0.61.0", for the labels.
    version: String,
    runs: usize,
}

impl Fixture {
    /// The fixture with the extension linked from this checkout's `gemini/`.
    fn new() -> Fixture {
        let fx = Fixture::unlinked();
        fx.link(&Path::new(env!("CARGO_MANIFEST_DIR")).join("gemini"));
        fx
    }

    /// The fixture with its repository and HOME, and no extension linked yet.
    fn unlinked() -> Fixture {
        let gemini = gemini_path();
        // The launchers find the binaries in SYNAPSE_BIN_DIR; a missing one would make them start
        // a background build instead.
        let bin_dir = common::bin_dir();
        for name in BINARIES {
            assert!(
                bin_dir.join(name).is_file(),
                "{name} is not in {}: cargo did not build it",
                bin_dir.display()
            );
        }
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        let data = dir.path().join("data");
        let home = common::test_home(&data);
        make_repo(&repo);
        write_settings(&home);
        let mut fx = Fixture {
            dir,
            repo,
            data,
            home,
            api: StandIn::start(),
            gemini,
            version: String::new(),
            runs: 0,
        };
        let out = fx.command().arg("--version").output().unwrap();
        assert!(out.status.success(), "gemini --version: {out:?}");
        fx.version = format!("Gemini CLI {}", String::from_utf8_lossy(&out.stdout).trim());
        fx
    }

    /// `gemini` with the environment of every run: the fixture's HOME and data folder, the
    /// binaries cargo built, the stand-in API, and nothing else of the caller's.
    fn command(&self) -> Command {
        let bin_dir = common::bin_dir();
        let mut command = Command::new(&self.gemini);
        command
            .current_dir(&self.repo)
            .env_clear()
            .env("HOME", &self.home)
            .env("SYNAPSE_DATA", &self.data)
            .env("SYNAPSE_BIN_DIR", bin_dir)
            .env("GOOGLE_GEMINI_BASE_URL", self.api.base_url())
            .env("GEMINI_API_KEY", "test-key")
            .stdin(Stdio::null());
        for name in ["PATH", "TMPDIR"] {
            if let Some(value) = std::env::var_os(name) {
                command.env(name, value);
            }
        }
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
            self.version,
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

    fn repo_arg(&self) -> &str {
        self.repo.to_str().unwrap()
    }

    /// Remember `text` in the repository's project; its id.
    fn remember(&self, text: &str) -> i64 {
        let args = ["remember", "--project", self.repo_arg(), "--json", text];
        let out = common::synapse_json(&self.data, &self.repo, &args);
        out["id"]
            .as_i64()
            .unwrap_or_else(|| panic!("remember printed no id: {out}"))
    }

    /// The usual memories: one about the branch's work, one about the prompt, one unrelated.
    fn seed(&self) -> i64 {
        let webhook = self.remember(WEBHOOK);
        self.remember(IDEMPOTENCY);
        self.remember(UNRELATED);
        webhook
    }

    /// The bodies of the project's live memories.
    fn bodies(&self) -> Vec<String> {
        common::project_bodies(&self.data, &self.repo)
    }

    /// Run `gemini -p prompt` in the repository.
    fn gemini(&mut self, prompt: &str) -> Run {
        self.runs += 1;
        let label = format!("{}: gemini -p {prompt:?}", self.version);
        let stdout_path = self.dir.path().join(format!("run-{}.stdout", self.runs));
        let stderr_path = self.dir.path().join(format!("run-{}.stderr", self.runs));
        let before = self.api.requests().len();
        let mut command = self.command();
        command
            .args(["-p", prompt, "--model", MODEL, "--output-format", "json"])
            .stdout(File::create(&stdout_path).unwrap())
            .stderr(File::create(&stderr_path).unwrap())
            // Its own process group: the client restarts itself in a child process, and starts
            // hooks and the MCP server, all of which a timed-out run must not leave behind.
            .process_group(0);
        let start = Instant::now();
        let mut child = command
            .spawn()
            .unwrap_or_else(|e| panic!("could not start {}: {e}", self.gemini.display()));
        let (status, timed_out) = common::wait_or_kill_group(&mut child, RUN_TIMEOUT);
        let run = Run {
            label,
            status,
            stdout: fs::read_to_string(&stdout_path).unwrap(),
            stderr: fs::read_to_string(&stderr_path).unwrap(),
            requests: self.api.requests()[before..].to_vec(),
            elapsed: start.elapsed(),
        };
        eprintln!(
            "{}: {} in {:?}, {} requests",
            run.label,
            run.status,
            run.elapsed,
            run.requests.len()
        );
        assert!(
            !timed_out,
            "{}: killed after {RUN_TIMEOUT:?}\n{run}",
            run.label
        );
        run
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

/// A repository on `feature/webhook-retries` with a commit, a modified `src/webhooks/retry.rs`
/// and an untracked `src/webhooks/backoff.rs`: the task SessionStart reads.
fn make_repo(repo: &Path) {
    common::git_repo(repo, "feature/webhook-retries");
    fs::create_dir_all(repo.join("src/webhooks")).unwrap();
    fs::write(
        repo.join("src/webhooks/retry.rs"),
        "pub const MAX_ATTEMPTS: u32 = 3;\n",
    )
    .unwrap();
    common::git(repo, &["add", "."]);
    common::git(repo, &["commit", "-q", "-m", "retries"]);
    fs::write(
        repo.join("src/webhooks/retry.rs"),
        "pub const MAX_ATTEMPTS: u32 = 5;\n",
    )
    .unwrap();
    fs::write(
        repo.join("src/webhooks/backoff.rs"),
        "pub fn delay(attempt: u32) -> u64 { 1 << attempt }\n",
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

    let bodies = fx.bodies();
    assert!(
        bodies.iter().any(|b| b == LEARNED),
        "{}: AfterAgent did not record {LEARNED:?}; the project holds {bodies:#?}\n{run}",
        fx.version
    );
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
            fx.version
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
