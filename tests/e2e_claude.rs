//! End to end in the real Claude Code client: this repository loaded as a plugin
//! (`--plugin-dir`), the binaries cargo just built (`SYNAPSE_BIN_DIR`), and a stand-in Messages
//! API on 127.0.0.1 that scripts the model's replies and records every request the client sends.
//!
//! Every test runs once per client, as the cases `pinned` (Claude Code 2.1.197, the version the
//! design was measured with: `SYNAPSE_CLAUDE` or `.ci/node/node_modules/.bin/claude`) and `newest`
//! (2.1.332: `SYNAPSE_CLAUDE_NEWEST` or `.ci/node-newest/node_modules/.bin/claude`); the README's
//! test command, `.ci/test`, installs both. A plain `cargo test` lists these tests as ignored;
//! `.ci/test` runs them, and without a client they fail and say so: they are never skipped.
//!
//! Hook and command output reaches the model inside the request's `messages`; where exactly
//! depends on the model and client version, so the checks look for substrings in the text of
//! `messages`, never at fixed positions.

use crate::common;

use std::fs;
use std::io::Write;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::claude_memory::{
    project_key, write_deploy_topic, ClaudeMemory, AGENTS_PHRASE, API_BRANCH, CLAUDE_MD,
    CLAUDE_MD_PHRASE, NEWER_RETRIES, OLDER_RETRIES, PRESENT_PATHS, REPEATED_LINE, REPEATING_TOPIC,
    RULE_FILE, RULE_PHRASE, TOPICS, TOPIC_MISSING_PATH,
};
use common::client::{self, IDEMPOTENCY, WEBHOOK};
use common::http::{next_reply, write_events, write_json, Replies, Request, StandIn};
use common::MCP_TOOLS;
use rstest::rstest;
use serde_json::{json, Value};

/// The model named on every run; it fixes where hook output sits in the request.
const MODEL: &str = "claude-sonnet-4-5";
/// A run taking longer than this is killed and fails the test.
const RUN_TIMEOUT: Duration = Duration::from_secs(60);

const STYLE: &str = "Release notes are written in the past tense and list breaking changes first";
const LEARNED: &str = "Idempotency keys expire after 24 hours (e2e)";
/// How Claude Code names the tools of the plugin's MCP server `synapse`.
const MCP_PREFIX: &str = "mcp__plugin_synapse_synapse__";

// ---------------------------------------------------------------------------------------------
// The stand-in Messages API
// ---------------------------------------------------------------------------------------------

impl Request {
    /// A model call: `POST /v1/messages`, with or without a query string.
    fn is_messages(&self) -> bool {
        self.method == "POST" && self.path.split('?').next() == Some("/v1/messages")
    }

    /// Every text of the call's `messages`, one string each.
    fn texts(&self) -> Vec<String> {
        let mut texts = Vec::new();
        collect_strings(&self.body["messages"], &mut texts);
        texts
    }

    /// The names of the tools the call offers with their schemas.
    fn tools(&self) -> Vec<&str> {
        self.body["tools"]
            .as_array()
            .map(|tools| tools.iter().filter_map(|t| t["name"].as_str()).collect())
            .unwrap_or_default()
    }
}

/// A scripted model reply.
#[derive(Clone, Debug)]
enum Reply {
    /// A text reply that ends the turn.
    Text(String),
    /// A call of the tool `name` with `input`: Claude Code runs it and sends the result in its
    /// next request.
    ToolUse { name: String, input: Value },
}

/// The Messages API on 127.0.0.1, answering with scripted replies.
impl StandIn<Reply> {
    /// Queue the text of the next model reply; unscripted calls get "ok".
    fn script(&self, text: &str) {
        self.push(Reply::Text(text.to_owned()));
    }

    /// Queue a tool call as the next model reply.
    fn script_tool_use(&self, name: &str, input: Value) {
        self.push(Reply::ToolUse {
            name: name.to_owned(),
            input,
        });
    }
}

/// Answer one request: a model call with the next scripted reply (streamed or not, as asked).
fn answer(request: &Request, out: &mut TcpStream, replies: &Replies<Reply>) -> std::io::Result<()> {
    if request.is_messages() {
        let reply = next_reply(replies, || Reply::Text("ok".to_owned()));
        let model = request.body["model"].as_str().unwrap_or(MODEL);
        let (block, stop_reason) = match &reply {
            Reply::Text(text) => (json!({"type": "text", "text": text}), "end_turn"),
            Reply::ToolUse { name, input } => (
                json!({"type": "tool_use", "id": tool_use_id(name), "name": name, "input": input}),
                "tool_use",
            ),
        };
        if request.body["stream"] == json!(false) {
            let message = json!({
                "id": "msg_fake", "type": "message", "role": "assistant", "model": model,
                "content": [block],
                "stop_reason": stop_reason, "stop_sequence": null,
                "usage": {"input_tokens": 10, "output_tokens": 5},
            });
            write_json(out, &message)?;
        } else {
            write_stream(out, model, &reply)?;
        }
    } else if request.method == "HEAD" {
        out.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")?;
    } else {
        write_json(out, &json!({}))?;
    }
    Ok(())
}

/// The id of a scripted call of tool `name` (the tool's name keeps it unique within a run).
fn tool_use_id(name: &str) -> String {
    format!(
        "toolu_{}",
        name.replace(|c: char| !c.is_ascii_alphanumeric(), "")
    )
}

/// A streamed (SSE) reply holding one block, text or a tool call; the body ends when the
/// connection closes.
fn write_stream(out: &mut impl Write, model: &str, reply: &Reply) -> std::io::Result<()> {
    let (start, delta, stop_reason) = match reply {
        Reply::Text(text) => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": text}),
            "end_turn",
        ),
        Reply::ToolUse { name, input } => (
            json!({"type": "tool_use", "id": tool_use_id(name), "name": name, "input": {}}),
            json!({"type": "input_json_delta", "partial_json": input.to_string()}),
            "tool_use",
        ),
    };
    let events = [
        json!({"type": "message_start", "message": {
            "id": "msg_fake", "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 1,
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": start}),
        json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta",
               "delta": {"stop_reason": stop_reason, "stop_sequence": null},
               "usage": {"output_tokens": 5}}),
        json!({"type": "message_stop"}),
    ];
    write_events(out, &events)
}

// ---------------------------------------------------------------------------------------------
// The client
// ---------------------------------------------------------------------------------------------

/// The Claude Code clients every test runs against: users run both, and they differ in where
/// hook output sits and in how MCP tools reach the model.
#[derive(Clone, Copy, Debug)]
enum Client {
    /// 2.1.197, the version the design's facts were measured with.
    Pinned,
    /// 2.1.332, the newest measured: MCP tools deferred behind `ToolSearch`.
    Newest,
}

impl Client {
    /// The executable; its absence fails the test that needs it.
    fn path(self) -> PathBuf {
        common::claude_client(matches!(self, Client::Newest))
    }

    /// Whether the first request names the MCP tools without their schemas, so the model must
    /// load one with `ToolSearch` before calling it.
    fn defers_mcp_tools(self) -> bool {
        matches!(self, Client::Newest)
    }
}

impl std::fmt::Display for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Client::Pinned => "pinned Claude Code client (2.1.197)",
            Client::Newest => "newest Claude Code client (2.1.332)",
        })
    }
}

/// What one `claude -p` run did, with the hook, plugin and error lines of the client's
/// `--debug` log (`debug_log`).
type Run = client::Run<String>;

impl Run {
    /// The model calls of this run.
    fn messages_posts(&self) -> Vec<&Request> {
        self.requests.iter().filter(|r| r.is_messages()).collect()
    }

    /// The first model call; fails when there was none.
    fn main_request(&self) -> &Request {
        match self.messages_posts().first() {
            Some(r) => r,
            None => panic!("{}: no POST /v1/messages arrived\n{}", self.label, self),
        }
    }

    /// Every text of the first model call's `messages`, one string each.
    fn texts(&self) -> Vec<String> {
        self.main_request().texts()
    }

    fn expect_success(&self) {
        assert!(
            self.status.success(),
            "{}: claude failed\n{}",
            self.label,
            self
        );
        let result: Value = serde_json::from_str(self.stdout.trim()).unwrap_or_else(|e| {
            panic!(
                "{}: --output-format json printed no JSON ({e})\n{}",
                self.label, self
            )
        });
        assert_eq!(
            result["is_error"],
            json!(false),
            "{}: the run reported an error\n{}",
            self.label,
            self
        );
    }

    /// The result the client sent back for the model's call of `tool`, as the model reads it
    /// (the last model call holds the whole exchange).
    fn tool_result_of(&self, tool: &str) -> String {
        let last = match self.messages_posts().last() {
            Some(last) => *last,
            None => panic!("{}: no POST /v1/messages arrived\n{}", self.label, self),
        };
        tool_result(last, &tool_use_id(tool))
            .unwrap_or_else(|| panic!("{}: no result for the call of {tool}\n{}", self.label, self))
    }

    /// Fail unless a text of the first model call that comes from `origin` contains `needle`.
    fn expect_text(&self, needle: &str, origin: Origin, what: &str) {
        let found = self
            .texts()
            .iter()
            .any(|t| t.contains(needle) && origin.matches(t));
        assert!(
            found,
            "{}: {what}: no text from {origin:?} contains {needle:?}\n{}",
            self.label, self
        );
    }
}

/// Where a text in the request came from. Claude Code prefixes each hook's output with
/// `<event>[:<source>] hook success: `.
#[derive(Debug, Clone, Copy)]
enum Origin {
    /// The output of the hook whose prefix is given (e.g. `SessionStart:startup`).
    Hook(&'static str),
    /// Anything but hook output: the prompt, or a slash command's expansion.
    NotHook,
}

impl Origin {
    /// The client labels a hook's plain output "EVENT:SOURCE hook success: " and its JSON
    /// `additionalContext` "EVENT hook additional context: " (both clients).
    fn matches(self, text: &str) -> bool {
        match self {
            Origin::Hook(event) => {
                let name = event.split(':').next().unwrap_or(event);
                text.contains(&format!("{event} hook success"))
                    || text.contains(&format!("{name} hook additional context"))
            }
            Origin::NotHook => {
                !text.contains(" hook success") && !text.contains(" hook additional context")
            }
        }
    }
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.write_head(f)?;
        for (i, r) in self.requests.iter().enumerate() {
            writeln!(f, "[{i}] {} {}", r.method, r.path)?;
            if r.is_messages() {
                for t in r.texts() {
                    writeln!(
                        f,
                        "    | {}",
                        client::clip(&t, 3000).replace('\n', "\n    | ")
                    )?;
                }
            }
        }
        writeln!(
            f,
            "--- client logs (hooks, plugins, errors):\n{}",
            self.logs
        )
    }
}

/// The texts inside `messages` (or any part of it), depth first: string `content`s and `text`s.
fn collect_strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| collect_strings(v, out)),
        Value::Object(map) => ["content", "text"]
            .iter()
            .filter_map(|k| map.get(*k))
            .for_each(|v| collect_strings(v, out)),
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------------
// Fixture: a git repository with seeded memories
// ---------------------------------------------------------------------------------------------

/// A Claude Code client as the runs start it, with the plugin.
struct Claude {
    which: Client,
    path: PathBuf,
    /// The plugin's folder: this checkout, or a copy (`plugin_in_a_folder_with_a_space`).
    plugin: PathBuf,
}

/// The task's workspace; each run gets a fresh HOME of its own (`home-N/`).
type Fixture = client::Workspace<Reply, Claude>;

impl Fixture {
    /// The fixture with `make_repo`'s repository.
    fn new(client: Client) -> Fixture {
        let fx = Fixture::without_repo(client);
        make_repo(&fx.repo);
        fx
    }

    /// The fixture with nothing at `repo` yet, for a test that builds its own repository.
    fn without_repo(client: Client) -> Fixture {
        let path = client.path();
        client::assert_built();
        let claude = Claude {
            which: client,
            path,
            plugin: PathBuf::from(env!("CARGO_MANIFEST_DIR")),
        };
        Fixture::start(answer, claude)
    }

    /// Run the CLI over the fixture's data folder, from the repository; expect success.
    fn synapse(&self, args: &[&str]) -> String {
        let out = common::run_synapse(&self.data, &self.repo, args, b"");
        assert!(
            out.status.success(),
            "synapse {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn synapse_json(&self, args: &[&str]) -> Value {
        let out = self.synapse(args);
        serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("synapse {args:?} printed no JSON ({e}): {out}"))
    }

    /// Load the plugin from a copy of its files in a folder whose path has a space, as a user's
    /// may (a command that splits `${CLAUDE_PLUGIN_ROOT}` there fails with exit 127).
    fn plugin_in_a_folder_with_a_space(&mut self) {
        let copy = self.dir.path().join("plugin root").join("synapse");
        common::copy_checkout(&common::PLUGIN_FOLDERS, &copy);
        self.client.plugin = copy;
    }

    /// Script the model calling Synapse's MCP tools in turn, each `(tool, input)` with the tool's
    /// full name. A client that defers MCP tools gets one `ToolSearch` first that loads them all
    /// by name, as its deferred-tool list tells the model to.
    fn script_mcp_calls(&self, calls: &[(&str, Value)]) {
        if self.client.which.defers_mcp_tools() {
            let mut names: Vec<&str> = calls.iter().map(|(tool, _)| *tool).collect();
            names.dedup();
            self.api.script_tool_use(
                "ToolSearch",
                json!({"query": format!("select:{}", names.join(","))}),
            );
        }
        for (tool, input) in calls {
            self.api.script_tool_use(tool, input.clone());
        }
    }

    /// How many times memory `id`'s history says it was superseded.
    fn supersedes_of(&self, id: i64) -> usize {
        let id = id.to_string();
        let history = self.synapse_json(&["history", &id, "--json", "--project", self.repo_arg()]);
        common::supersedes(&history).len()
    }

    /// The task's memories (`seed`) and a second unrelated one; the branch's one's id.
    fn seed_with_style(&self) -> i64 {
        let webhook = self.seed();
        self.remember(STYLE);
        webhook
    }

    /// Run `claude -p prompt` in the repository, with the plugin, a fresh HOME and the stand-in
    /// API.
    fn claude(&mut self, prompt: &str) -> Run {
        self.claude_with(prompt, &[])
    }

    /// `claude` with more arguments for the client.
    fn claude_with(&mut self, prompt: &str, extra: &[&str]) -> Run {
        let home = self.dir.path().join(format!("home-{}", self.runs + 1));
        fs::create_dir_all(&home).unwrap();
        self.claude_at(&home, prompt, extra)
    }

    /// `claude_with` with `home` as HOME, for a test that put files there first.
    fn claude_at(&mut self, home: &Path, prompt: &str, extra: &[&str]) -> Run {
        let label = format!("{}: claude -p {prompt:?}", self.client.which);
        let mut command = client::bare_command(&self.client.path, &self.repo);
        command
            .args(["-p", prompt, "--model", MODEL, "--output-format", "json"])
            .args(extra)
            .arg("--plugin-dir")
            .arg(&self.client.plugin)
            .arg("--debug")
            .env("HOME", home)
            .env("SYNAPSE_DATA", &self.data)
            .env("SYNAPSE_BIN_DIR", common::bin_dir())
            .env("ANTHROPIC_BASE_URL", self.api.base_url())
            .env("ANTHROPIC_API_KEY", "test-key")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("CLAUDE_CODE_MAX_RETRIES", "0");
        self.run(label, &mut command, RUN_TIMEOUT, |_| debug_log(home))
    }
}

/// What the client logged under `home` that helps explain a failure: the hook, plugin, command
/// and error lines of its `--debug` log, and the transcript lines reporting errors (a refused
/// `!` command line of a slash command shows up only there).
fn debug_log(home: &Path) -> String {
    let mut files = common::files_under(&home.join(".claude/debug"));
    files.extend(common::files_under(&home.join(".claude/projects")));
    let mut lines = Vec::new();
    for path in files {
        let keys: &[&str] = match path.extension().and_then(|e| e.to_str()) {
            Some("txt") => &["hook", "plugin", "command", "error"],
            Some("jsonl") => &["stderr", "error"],
            _ => continue,
        };
        let text = fs::read_to_string(&path).unwrap_or_default();
        lines.push(format!("[{}]", path.display()));
        lines.extend(
            text.lines()
                .filter(|l| {
                    let l = l.to_ascii_lowercase();
                    keys.iter().any(|k| l.contains(k))
                })
                .map(|l| client::clip(l, 2000)),
        );
    }
    lines.join("\n")
}

/// The task's repository (`client::task_repo`), with a `README.md` committed and an untracked
/// `src/webhooks/backoff.rs`.
fn make_repo(repo: &Path) {
    let backoff = (
        "src/webhooks/backoff.rs",
        "pub fn delay(attempt: u32) -> u64 { 1 << attempt }\n",
    );
    client::task_repo(repo, &[("README.md", "# payments\n")], &[backoff]);
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

/// A plain prompt: SessionStart hands over the branch's memory, UserPromptSubmit the prompt's,
/// and the Stop hook records the reply's `remember:` line.
#[rstest]
#[case::pinned(Client::Pinned)]
#[case::newest(Client::Newest)]
#[ignore = "end-to-end: needs both Claude Code clients, run .ci/test"]
fn hooks_inject_memories_and_stop_records_the_reply(#[case] client: Client) {
    let mut fx = Fixture::new(client);
    let webhook = fx.seed_with_style();
    let reply = format!("Noted.\nremember: {LEARNED}");
    fx.api.script(&reply);

    let run = fx.claude("how are idempotency keys stored?");
    run.expect_success();
    let result: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(result["result"], json!(reply), "{run}");
    assert_eq!(
        run.messages_posts().len(),
        1,
        "one model call expected (a Stop hook that prints or blocks makes Claude continue)\n{run}"
    );
    run.expect_text(
        "how are idempotency keys stored?",
        Origin::NotHook,
        "the prompt",
    );
    run.expect_text(
        WEBHOOK,
        Origin::Hook("SessionStart:startup"),
        "SessionStart memory",
    );
    let tag = format!("[{webhook}]");
    run.expect_text(
        &tag,
        Origin::Hook("SessionStart:startup"),
        "SessionStart memory id",
    );
    run.expect_text(
        IDEMPOTENCY,
        Origin::Hook("UserPromptSubmit"),
        "UserPromptSubmit memory",
    );

    let listed = fx.synapse_json(&["list", "--json", "--project", fx.repo_arg()]);
    let bodies: Vec<&str> = listed["memories"]
        .as_array()
        .unwrap_or_else(|| panic!("list printed no memories: {listed}"))
        .iter()
        .filter_map(|m| m["body"].as_str())
        .collect();
    assert!(
        bodies.iter().any(|b| b.contains(LEARNED)),
        "the Stop hook did not record {LEARNED:?}; the project holds {bodies:#?}\n{run}"
    );
}

/// A line the user starts with `remember:` in a prompt is kept, and the model is told so in the
/// prompt hook's context (a new user's "remember: we never deploy on Fridays" stored nothing).
#[rstest]
#[case::pinned(Client::Pinned)]
#[case::newest(Client::Newest)]
#[ignore = "end-to-end: needs both Claude Code clients, run .ci/test"]
fn a_remember_line_the_user_types_is_kept_and_the_model_told(#[case] client: Client) {
    let mut fx = Fixture::new(client);
    fx.seed_with_style();
    fx.api.script("Understood.");
    let fact = "we never deploy on Fridays";
    let run = fx.claude(&format!("Check the release plan.\nremember: {fact}"));
    run.expect_success();
    run.expect_text(
        "line 1: remembered as memory",
        Origin::Hook("UserPromptSubmit"),
        "what the prompt hook kept",
    );
    let listed = fx.synapse_json(&["list", "--json", "--project", fx.repo_arg()]);
    let kept = listed["memories"]
        .as_array()
        .unwrap_or_else(|| panic!("list printed no memories: {listed}"))
        .iter()
        .filter(|m| m["body"] == json!(fact))
        .count();
    assert_eq!(kept, 1, "the project holds {listed:#}\n{run}");
}

/// `/synapse:recall QUESTION`: the prompt hook searches and hands the results to the model.
#[rstest]
#[case::pinned(Client::Pinned)]
#[case::newest(Client::Newest)]
#[ignore = "end-to-end: needs both Claude Code clients, run .ci/test"]
fn recall_command_hands_over_matching_memories(#[case] client: Client) {
    let mut fx = Fixture::new(client);
    let webhook = fx.seed_with_style();

    let run = fx.claude("/synapse:recall webhook retries");
    run.expect_success();
    run.main_request();
    run.expect_text("/synapse:recall", Origin::NotHook, "the command invocation");
    run.expect_text(WEBHOOK, Origin::Hook("UserPromptSubmit"), "recall output");
    let tag = format!("[{webhook}]");
    run.expect_text(
        &tag,
        Origin::Hook("UserPromptSubmit"),
        "recall output's memory id",
    );
}

/// `/synapse:read ID` hands the memory's exact text to the model.
#[rstest]
#[case::pinned(Client::Pinned)]
#[case::newest(Client::Newest)]
#[ignore = "end-to-end: needs both Claude Code clients, run .ci/test"]
fn read_command_hands_over_the_memory_text(#[case] client: Client) {
    let mut fx = Fixture::new(client);
    let webhook = fx.seed_with_style();
    assert!(
        fx.synapse(&["read", &webhook.to_string()])
            .contains(WEBHOOK),
        "synapse read {webhook} does not show the memory"
    );

    let run = fx.claude(&format!("/synapse:read {webhook}"));
    run.expect_success();
    run.main_request();
    run.expect_text("/synapse:read", Origin::NotHook, "the command invocation");
    run.expect_text(WEBHOOK, Origin::Hook("UserPromptSubmit"), "read output");
}

/// The `tool_result` block answering tool call `id` in a request's messages.
fn tool_result_block<'r>(request: &'r Request, id: &str) -> Option<&'r Value> {
    request.body["messages"]
        .as_array()?
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .find(|b| b["type"] == "tool_result" && b["tool_use_id"] == id)
}

/// The texts of the `tool_result` block answering tool call `id` in a request's messages.
fn tool_result(request: &Request, id: &str) -> Option<String> {
    let block = tool_result_block(request, id)?;
    let mut texts = Vec::new();
    collect_strings(&block["content"], &mut texts);
    Some(texts.join("\n"))
}

/// The plugin's MCP server in the real client: the model, scripted, calls `recall` and then
/// `readmemory`; each result reaches the model in the next request with the memory's text, its
/// id and the advisory framing. Claude Code sends the model only the JSON of a result's
/// `structuredContent`, so that JSON is what these checks read. The newest client first names the
/// tools without their schemas, so there the model loads both with `ToolSearch` before calling.
#[rstest]
#[case::pinned(Client::Pinned)]
#[case::newest(Client::Newest)]
#[ignore = "end-to-end: needs both Claude Code clients, run .ci/test"]
fn mcp_tools_hand_the_model_framed_memories_and_exact_pages(#[case] client: Client) {
    let mut fx = Fixture::new(client);
    let webhook = fx.seed_with_style();
    let recall = format!("{MCP_PREFIX}recall");
    let read = format!("{MCP_PREFIX}readmemory");
    let deferred = client.defers_mcp_tools();
    if deferred {
        fx.api.script_tool_use(
            "ToolSearch",
            json!({"query": format!("select:{recall},{read}")}),
        );
    }
    fx.api
        .script_tool_use(&recall, json!({"query": "webhook retries backoff"}));
    fx.api
        .script_tool_use(&read, json!({"id": webhook, "offset": 0}));
    fx.api.script("Webhooks retry 5 times.");

    let allowed = format!("{recall},{read}");
    let run = fx.claude_with(
        "how many times do webhooks retry?",
        &["--allowedTools", &allowed],
    );
    run.expect_success();
    let posts = run.messages_posts();
    let (posts, loaded) = if deferred {
        assert_eq!(
            posts.len(),
            4,
            "ToolSearch, recall, readmemory, then the answer\n{run}"
        );
        (&posts[1..], Some(posts[0]))
    } else {
        assert_eq!(posts.len(), 3, "recall, readmemory, then the answer\n{run}");
        (&posts[..], None)
    };

    if let Some(first) = loaded {
        // Named, one a line, in the first request's list of tools ToolSearch can load.
        let texts = first.texts();
        let named: Vec<&str> = texts
            .iter()
            .filter(|t| t.contains("ToolSearch"))
            .flat_map(|t| t.lines())
            .collect();
        for tool in MCP_TOOLS {
            let name = format!("{MCP_PREFIX}{tool}");
            assert!(
                named.contains(&name.as_str()),
                "{client}: {name} is not among the deferred tools\n{run}"
            );
        }
        // Names only: no Synapse tool is offered with its schema yet (none is always loaded),
        // and the descriptions the model gets once ToolSearch loads them appear nowhere before.
        let early: Vec<&str> = first
            .tools()
            .into_iter()
            .filter(|t| t.starts_with(MCP_PREFIX))
            .collect();
        assert!(
            early.is_empty(),
            "{client}: offered before ToolSearch: {early:?}\n{run}"
        );
        for name in [&recall, &read] {
            let tool = posts[0].body["tools"]
                .as_array()
                .and_then(|tools| tools.iter().find(|t| t["name"] == name.as_str()));
            let description = tool
                .and_then(|t| t["description"].as_str())
                .unwrap_or_else(|| panic!("{client}: {name} came with no description\n{run}"));
            assert_eq!(
                occurrences(first, description),
                0,
                "{client}: {name}'s description reached the model before ToolSearch\n{run}"
            );
        }
    }
    // With their schemas: every tool from the start, or the two ToolSearch loaded.
    let expected: Vec<String> = if deferred {
        vec![recall.clone(), read.clone()]
    } else {
        MCP_TOOLS
            .iter()
            .map(|t| format!("{MCP_PREFIX}{t}"))
            .collect()
    };
    let offered = posts[0].tools();
    for name in &expected {
        assert!(
            offered.contains(&name.as_str()),
            "{client}: the model is not offered {name}; it is offered {offered:?}\n{run}"
        );
    }

    let recalled = tool_result(posts[1], &tool_use_id(&recall))
        .unwrap_or_else(|| panic!("no result for the recall call\n{run}"));
    let recalled_json: Value = serde_json::from_str(&recalled)
        .unwrap_or_else(|e| panic!("the recall result is not the JSON ({e}): {recalled}"));
    assert!(
        recalled_json["about"]
            .as_str()
            .is_some_and(|a| a.contains("advisory, possibly outdated")),
        "the framing did not reach the model: {recalled}"
    );
    let first = &recalled_json["results"][0];
    assert_eq!(first["id"], json!(webhook), "{recalled}");
    assert_eq!(first["text"], json!(WEBHOOK), "{recalled}");
    assert!(first["age"].is_string() && first["source"].is_string());
    assert!(recalled.contains("readmemory"), "{recalled}");

    let page = tool_result(posts[2], &tool_use_id(&read))
        .unwrap_or_else(|| panic!("no result for the readmemory call\n{run}"));
    let page_json: Value = serde_json::from_str(&page)
        .unwrap_or_else(|e| panic!("the readmemory result is not the JSON ({e}): {page}"));
    assert_eq!(page_json["body"], json!(WEBHOOK), "{page}");
    assert_eq!(page_json["id"], json!(webhook), "{page}");
    assert!(page_json["next"].is_null(), "{page}");
    assert!(
        page_json["about"]
            .as_str()
            .is_some_and(|a| a.contains("exactly as stored") && a.contains("advisory")),
        "{page}"
    );
}

/// Texts a user may well type after a slash command that a shell would have mangled or run:
/// quotes, expansions, substitutions, separators, globs, line breaks, leading dashes. Each
/// reaches Synapse exactly as typed.
const HOSTILE: &[&str] = &[
    "We don't retry 4xx responses",
    "Paths live in $HOME/.config and ${XDG_DATA_HOME:-~/.local/share}",
    "Run `cargo test` first; `whoami` is not a command here",
    "Output of $(id -u) and $((1+2)) is text",
    "deploys; touch {CANARY}-semicolon",
    "a && touch {CANARY}-and || echo no",
    "logs | grep ERROR > /dev/null",
    "Globs: src/*.rs, tests/**/*.rs and ~/.ssh/id_*",
    "\"double quotes\" and 'single quotes' and \"mixed' ones",
    "First line of the lesson\nsecond line\n\tthird, indented",
    "-rf --help is how it starts",
    "back\\slash \\n and \\$ stay",
    "100% of the time, #hash and !bang !! and ^caret",
    "<remember>a tag</remember> & <b>html</b> & ampersands",
    "Ünïcödé ✓, 日本語 and emoji 🚀 stay whole",
    "redirect < input.txt >> output.txt 2>&1",
    "$ARGUMENTS and $1 are not placeholders here",
];

/// Every hostile text reaches the store exactly as typed through `/synapse:remember` in the
/// real client, and none of them runs anything.
#[rstest]
#[case::pinned(Client::Pinned)]
#[case::newest(Client::Newest)]
#[ignore = "end-to-end: needs both Claude Code clients, run .ci/test"]
fn slash_command_text_reaches_synapse_exactly_as_typed(#[case] client: Client) {
    let mut fx = Fixture::new(client);
    let canary = fx.dir.path().join("ran");
    let canary = canary.to_str().unwrap();
    let mut failures = Vec::new();
    for template in HOSTILE {
        let text = template.replace("{CANARY}", canary);
        let run = fx.claude(&format!("/synapse:remember {text}"));
        run.expect_success();
        let listed = fx.synapse_json(&["list", "--json", "--project", fx.repo_arg()]);
        let stored = listed["memories"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["body"].as_str() == Some(text.as_str()));
        let reported = run
            .texts()
            .iter()
            .any(|t| t.contains("Synapse ran /synapse:remember") && t.contains("remembered as"));
        if !stored || !reported {
            failures.push(format!(
                "{text:?}: stored exactly {stored}, reported to the model {reported}\n{run}"
            ));
        }
    }
    for (i, template) in HOSTILE.iter().enumerate().take(5) {
        let text = template.replace("{CANARY}", canary);
        let run = fx.claude(&format!("/synapse:recall {text}"));
        run.expect_success();
        let echoed = format!("Synapse memories for \"{text}\"");
        if !run.texts().iter().any(|t| t.contains(&echoed)) {
            failures.push(format!(
                "recall {i} {text:?}: the search was not for the text\n{run}"
            ));
        }
    }
    for typed in ["1; touch {CANARY}-forget", "$(touch {CANARY}-read)"] {
        let typed = typed.replace("{CANARY}", canary);
        let verb = if typed.starts_with('1') {
            "forget"
        } else {
            "read"
        };
        let run = fx.claude(&format!("/synapse:{verb} {typed}"));
        run.expect_success();
        if !run
            .texts()
            .iter()
            .any(|t| t.contains(&format!("Synapse ran /synapse:{verb}")))
        {
            failures.push(format!("/synapse:{verb} {typed:?}: no answer\n{run}"));
        }
    }
    let ran: Vec<_> = fs::read_dir(fx.dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("ran"))
        .collect();
    assert!(ran.is_empty(), "a command ran: {ran:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The lines of `claude plugin validate` output that report something wrong: the newest client
/// marks a warning with a sign (and its plugin directory checks, such as a missing icon, do not
/// change the exit status), the pinned one names warnings and errors in words.
fn validation_complaints(output: &str) -> Vec<&str> {
    output
        .lines()
        .filter(|line| {
            let lower = line.to_lowercase();
            ['⚠', '✘', '✖'].iter().any(|sign| line.contains(*sign))
                || ["warning", "error", "problem"]
                    .iter()
                    .any(|word| lower.contains(word))
        })
        .collect()
}

/// The client's own validator accepts the plugin folder, the plugin manifest and the marketplace
/// manifest (when there is one) with warnings counted as errors, and says nothing against any of
/// them: a warning line fails the test even where the status is 0.
#[rstest]
#[case::pinned(Client::Pinned)]
#[case::newest(Client::Newest)]
#[ignore = "end-to-end: needs both Claude Code clients, run .ci/test"]
fn manifests_pass_strict_validation(#[case] client: Client) {
    let claude = client.path();
    let home = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut targets = vec![root.to_path_buf(), root.join(".claude-plugin/plugin.json")];
    let marketplace = root.join(".claude-plugin/marketplace.json");
    if marketplace.exists() {
        targets.push(marketplace);
    }
    for target in targets {
        let out = Command::new(&claude)
            .args(["plugin", "validate", "--strict"])
            .arg(&target)
            .env_clear()
            .env("HOME", home.path())
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .stdin(Stdio::null())
            .output()
            .expect("run claude plugin validate");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.status.success() && text.contains("Validation passed"),
            "{client}: claude plugin validate --strict {}: {}\n{text}",
            target.display(),
            out.status
        );
        let complaints = validation_complaints(&text);
        assert!(
            complaints.is_empty(),
            "{client}: claude plugin validate --strict {} passed with complaints: \
             {complaints:#?}\n{text}",
            target.display()
        );
    }
}

/// The complaint filter catches what each client prints for a warning, and lets a clean run
/// through (the lines are the clients' own, 2.1.197 and 2.1.332).
#[test]
fn validation_complaints_are_the_warning_lines() {
    let clean = "Validating marketplace manifest: /p/.claude-plugin/marketplace.json\n\n\
                 Hosts not declared: list what these parts reach under \"network.hosts\"\n\
                 \u{2714} These checks found nothing to report\n\n\u{2714} Validation passed\n";
    assert!(validation_complaints(clean).is_empty());
    let newest =
        "\u{26a0} Found 1 plugin directory warning:\n\n  \u{276f} .claude-plugin/plugin.json \
                  icon: No icon (ICON_MISSING).\n\n\u{2714} Validation passed\n";
    assert_eq!(
        validation_complaints(newest),
        ["\u{26a0} Found 1 plugin directory warning:"]
    );
    let pinned =
        "\u{26a0} Found 1 warning:\n  \u{276f} hooks: ${CLAUDE_PLUGIN_ROOT} is unquoted\n\n\
                  \u{2714} Validation passed with warnings\n";
    assert_eq!(
        validation_complaints(pinned),
        [
            "\u{26a0} Found 1 warning:",
            "\u{2714} Validation passed with warnings"
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// Claude Code's own memory (tests/common/claude_memory.rs)
// ---------------------------------------------------------------------------------------------

/// How many times `needle` occurs in the strings of a request's body: its system prompt, its
/// messages and its tools.
fn occurrences(request: &Request, needle: &str) -> usize {
    fn walk(value: &Value, needle: &str) -> usize {
        match value {
            Value::String(s) => s.matches(needle).count(),
            Value::Array(items) => items.iter().map(|v| walk(v, needle)).sum(),
            Value::Object(map) => map.values().map(|v| walk(v, needle)).sum(),
            _ => 0,
        }
    }
    walk(&request.body, needle)
}

/// The fixture says what it is: every phrase a test counts sits in one file once, the paths it
/// calls missing are missing and the others there, the newer of the contradicting pair is newer,
/// and the auto memory is where the client's key puts it.
#[test]
fn claude_memory_fixture_holds_what_it_says() {
    let dir = tempfile::tempdir().unwrap();
    let memory = ClaudeMemory::build(&dir.path().join("home"), &dir.path().join("repo"));
    let mut files = common::files_under(&memory.repo);
    files.extend(common::files_under(&memory.home));
    files.retain(|f| !f.components().any(|c| c.as_os_str() == ".git"));
    let texts: Vec<(PathBuf, String)> = files
        .into_iter()
        .map(|f| (f.clone(), fs::read_to_string(f).unwrap()))
        .collect();
    let holders = |needle: &str| -> Vec<&Path> {
        texts
            .iter()
            .filter(|(_, t)| t.contains(needle))
            .map(|(f, _)| f.as_path())
            .collect()
    };

    assert_eq!(
        memory.memory_dir,
        memory
            .home
            .join(".claude/projects")
            .join(
                memory
                    .repo
                    .to_str()
                    .unwrap()
                    .replace(|c: char| !c.is_ascii_alphanumeric(), "-"),
            )
            .join("memory")
    );
    assert_eq!(
        fs::read_to_string(memory.memory_dir.join("MEMORY.md")).unwrap(),
        memory.index
    );
    assert!(TOPICS.len() >= 10);
    assert_eq!(memory.index.lines().count(), TOPICS.len());
    for topic in &TOPICS {
        let path = memory.memory_dir.join(topic.file);
        assert_eq!(holders(topic.phrase), [path.as_path()], "{}", topic.file);
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.starts_with(&format!("---\nname: {}\n", topic.name)));
        assert!(text.contains("metadata:\n  type: project\n---\n"));
        let line = format!("- [{}]({}) — {}", topic.name, topic.file, topic.hook);
        assert_eq!(memory.index.matches(&line).count(), 1, "{line}");
    }
    assert_eq!(
        memory.topic(OLDER_RETRIES).phrase.replace('5', "8"),
        memory.topic(NEWER_RETRIES).phrase
    );
    let modified = |file: &str| {
        fs::metadata(memory.memory_dir.join(file))
            .unwrap()
            .modified()
            .unwrap()
    };
    assert!(modified(OLDER_RETRIES) + Duration::from_secs(300 * 86_400) < modified(NEWER_RETRIES));

    for phrase in [CLAUDE_MD_PHRASE, RULE_PHRASE, AGENTS_PHRASE] {
        assert_eq!(holders(phrase).len(), 1, "{phrase}");
    }
    assert!(fs::read_to_string(memory.repo.join(RULE_FILE))
        .unwrap()
        .contains(RULE_PHRASE));
    assert!((35..=50).contains(&CLAUDE_MD.lines().count()));
    for (path, line) in memory.missing_paths() {
        assert!(!memory.repo.join(path).exists(), "{path}");
        assert!(CLAUDE_MD.lines().nth(line - 1).unwrap().contains(path));
    }
    for path in PRESENT_PATHS {
        assert!(memory.repo.join(path).is_file(), "{path}");
        assert_eq!(CLAUDE_MD.matches(path).count(), 1, "{path}");
    }
    let (file, path) = TOPIC_MISSING_PATH;
    assert!(memory.topic(file).body.contains(path) && !memory.repo.join(path).exists());
    let body = memory.topic(REPEATING_TOPIC).body;
    assert_eq!(body.lines().next(), Some(REPEATED_LINE));
    assert_eq!(
        CLAUDE_MD.lines().nth(memory.repeated_line() - 1),
        Some(REPEATED_LINE)
    );

    memory.on_api_branch();
    let status = Command::new("git")
        .args(["status", "--porcelain", "--branch"])
        .current_dir(&memory.repo)
        .output()
        .unwrap();
    let status = String::from_utf8(status.stdout).unwrap();
    assert!(
        status.starts_with(&format!("## {API_BRANCH}\n")),
        "{status}"
    );
    assert!(
        status.contains(" M src/api/handlers.rs\n?? src/api/pagination.rs\n"),
        "{status}"
    );
}

/// A key past 200 characters is cut and followed by a hash; the value measured with 2.1.332.
#[test]
fn a_long_project_key_is_cut_and_hashed_as_the_client_does() {
    let path: String = std::iter::once("/tmp/cc-research/w".to_owned())
        .chain((1..=25).map(|i| format!("/segment_{i:02}")))
        .collect();
    let key = project_key(&path);
    assert_eq!(key.len(), 207, "{key}");
    assert!(key.ends_with("-segment-16-segme-p9fr5r"), "{key}");
    assert_eq!(project_key("/tmp/w/my.repo_x y"), "-tmp-w-my-repo-x-y");
}

/// A prompt about one topic of the auto memory: the client loads `MEMORY.md` itself, once, and
/// never a topic file, so the topic's words in the request are Synapse's doing, and a second copy
/// of the index would be too.
#[rstest]
#[case::pinned(Client::Pinned)]
#[case::newest(Client::Newest)]
#[ignore = "end-to-end: needs both Claude Code clients, run .ci/test"]
fn a_topic_file_the_prompt_is_about_reaches_the_model_once_beside_the_index(
    #[case] client: Client,
) {
    let mut fx = Fixture::without_repo(client);
    let memory = ClaudeMemory::build(&fx.dir.path().join("home"), &fx.repo);
    let topic = memory.topic("api-rate-limits.md");

    let run = fx.claude_at(
        &memory.home,
        "What rate limit does the public API apply per token, and what does a caller get past it?",
        &[],
    );
    run.expect_success();
    let request = run.main_request();
    assert_eq!(
        occurrences(request, memory.index.trim_end()),
        1,
        "MEMORY.md should reach the model once, by the client's own load\n{run}"
    );
    assert!(
        occurrences(request, topic.phrase) >= 1,
        "the topic file {} ({:?}) did not reach the model\n{run}",
        topic.file,
        topic.phrase
    );
}

/// The issue's deploy example: a topic file of the auto memory answers the prompt exactly, and
/// the prompt hook hands over its text or a pointer the model can follow (the file, which it
/// opens with its own Read tool), never a slash command only the person can run.
#[rstest]
#[case::pinned(Client::Pinned)]
#[case::newest(Client::Newest)]
#[ignore = "end-to-end: needs both Claude Code clients, run .ci/test"]
fn a_topic_file_answering_the_prompt_is_handed_over_or_pointed_at(#[case] client: Client) {
    let mut fx = Fixture::new(client);
    fx.seed_with_style();
    let home = fx.dir.path().join("home-deploy");
    write_deploy_topic(&home, &fx.repo.canonicalize().unwrap());
    let run = fx.claude_at(&home, "how do we deploy to production?", &[]);
    run.expect_success();
    let handed = run.texts().iter().any(|t| {
        Origin::Hook("UserPromptSubmit").matches(t)
            && (t.contains("after the canary passes") || t.contains("memory/deploy.md"))
    });
    assert!(
        handed,
        "neither the topic's text nor a pointer to memory/deploy.md from the prompt hook\n{run}"
    );
    for text in run.texts() {
        if Origin::Hook("UserPromptSubmit").matches(&text) {
            assert!(!text.contains("/synapse:read"), "{text}\n{run}");
        }
    }
}

/// Both clients report the instruction files they load (InstructionsLoaded), and the plugin's
/// hook keeps the report for the session: a nested `CLAUDE.md` loaded when the model reads a file
/// below it (both clients), and the project's `CLAUDE.md` at the start (2.1.197 always; 2.1.332
/// sends that batch only some of the time, measured in docs/claude-code.md).
#[rstest]
#[case::pinned(Client::Pinned)]
#[case::newest(Client::Newest)]
#[ignore = "end-to-end: needs both Claude Code clients, run .ci/test"]
fn the_instruction_files_the_client_loads_are_recorded(#[case] client: Client) {
    let mut fx = Fixture::new(client);
    fx.seed_with_style();
    fs::write(
        fx.repo.join("CLAUDE.md"),
        "# Notes\n\n- Use tabs in Makefiles\n",
    )
    .unwrap();
    let nested = fx.repo.join("src/webhooks/CLAUDE.md");
    fs::write(&nested, "- Webhook handlers never block\n").unwrap();
    let repo = fx.repo.canonicalize().unwrap();
    let read = repo.join("src/webhooks/retry.rs");
    fx.api
        .script_tool_use("Read", json!({"file_path": read.to_str().unwrap()}));
    fx.api.script("Read it.");
    let run = fx.claude("what does retry.rs hold?");
    run.expect_success();
    let db = rusqlite::Connection::open(fx.data.join("synapse.db")).unwrap();
    let recorded: Vec<(String, String)> = db
        .prepare("SELECT path, reason FROM loaded")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let has = |file: &Path, reason: &str| {
        recorded
            .iter()
            .any(|(p, r)| Path::new(p) == file && r == reason)
    };
    let log = fs::read_to_string(fx.data.join("synapse.log")).unwrap_or_default();
    assert!(
        has(&repo.join("src/webhooks/CLAUDE.md"), "nested_traversal"),
        "{client}: the nested CLAUDE.md's report is not kept: {recorded:?}; synapse.log: \
         {log}\n{run}"
    );
    if matches!(client, Client::Pinned) {
        assert!(
            has(&repo.join("CLAUDE.md"), "session_start"),
            "{client}: the project's CLAUDE.md's report is not kept: {recorded:?}\n{run}"
        );
    }
}

/// SessionStart on a branch that changes files under `src/api/`: Synapse hands over the rule
/// scoped to those paths (the client shows it only once the model reads such a file), and never
/// a line of `CLAUDE.md`, which the client has loaded already.
#[rstest]
#[case::pinned(Client::Pinned)]
#[case::newest(Client::Newest)]
#[ignore = "end-to-end: needs both Claude Code clients, run .ci/test"]
fn session_start_on_an_api_branch_hands_over_the_scoped_rule_and_no_claude_md_line(
    #[case] client: Client,
) {
    let mut fx = Fixture::without_repo(client);
    let memory = ClaudeMemory::build(&fx.dir.path().join("home"), &fx.repo);
    memory.on_api_branch();

    let run = fx.claude_at(&memory.home, "Carry on with the branch.", &[]);
    run.expect_success();
    let request = run.main_request();
    let repeated: Vec<String> = memory
        .claude_md_items()
        .into_iter()
        .map(|line| (line, occurrences(request, line)))
        .filter(|(_, n)| *n != 1)
        .map(|(line, n)| format!("{n} x {line:?}"))
        .collect();
    assert!(
        repeated.is_empty() && occurrences(request, CLAUDE_MD_PHRASE) == 1,
        "each CLAUDE.md line should reach the model once, by the client's own load: \
         {repeated:#?}\n{run}"
    );
    run.expect_text(
        RULE_PHRASE,
        Origin::Hook("SessionStart:startup"),
        "the rule scoped to src/api/",
    );
}

/// A plugin installed under a path with a space: every hook runs, `/synapse:drift`'s shell line
/// runs and the MCP server answers a tool call, in both clients (the hook commands and the
/// command's line quote `${CLAUDE_PLUGIN_ROOT}`; the server's command is run without a shell).
#[rstest]
#[case::pinned(Client::Pinned)]
#[case::newest(Client::Newest)]
#[ignore = "end-to-end: needs both Claude Code clients, run .ci/test"]
fn a_plugin_path_with_a_space_runs_the_hooks_the_drift_command_and_the_mcp_server(
    #[case] client: Client,
) {
    let mut fx = Fixture::new(client);
    fx.plugin_in_a_folder_with_a_space();
    fx.seed_with_style();
    fx.api
        .script("Noted.\nremember: the plugin runs from a folder with a space");
    let run = fx.claude("how are idempotency keys stored?");
    run.expect_success();
    run.expect_text(
        WEBHOOK,
        Origin::Hook("SessionStart:startup"),
        "SessionStart memory",
    );
    run.expect_text(
        IDEMPOTENCY,
        Origin::Hook("UserPromptSubmit"),
        "UserPromptSubmit memory",
    );
    let listed = fx.synapse_json(&["list", "--json", "--project", fx.repo_arg()]);
    assert!(
        listed
            .to_string()
            .contains("runs from a folder with a space"),
        "{client}: the Stop hook did not record the lesson: {listed}\n{run}"
    );
    fx.api.script("Nothing to change.");
    let run = fx.claude("/synapse:drift");
    run.expect_success();
    assert!(
        run.texts().iter().any(|t| t.contains("finding(s) among")),
        "{client}: /synapse:drift's output did not reach the model\n{run}"
    );

    // plugin.json starts the server as `${CLAUDE_PLUGIN_ROOT}/bin/synapse-mcp`, one word however
    // many spaces the path holds.
    let recall = format!("{MCP_PREFIX}recall");
    fx.script_mcp_calls(&[(&recall, json!({"query": "idempotency keys"}))]);
    fx.api.script("They are hashed.");
    let run = fx.claude_with(
        "where are idempotency keys kept?",
        &["--allowedTools", &recall],
    );
    run.expect_success();
    let recalled = run.tool_result_of(&recall);
    assert!(
        recalled.contains(IDEMPOTENCY),
        "{client}: recall from a plugin path with a space did not answer: {recalled}\n{run}"
    );
}

/// Write-time replacement in the real client: a reply's `remember (replaces #N): ...`
/// line supersedes memory N exactly once, through the Stop hook.
#[rstest]
#[case::pinned(Client::Pinned)]
#[case::newest(Client::Newest)]
#[ignore = "end-to-end: needs both Claude Code clients, run .ci/test"]
fn a_reply_replacing_a_memory_supersedes_it_once(#[case] client: Client) {
    let mut fx = Fixture::new(client);
    fx.seed_with_style();
    let old = fx.remember("Webhook retry limit is 5 attempts");
    let new_text = "Webhook retries: 8 attempts since the gateway change";
    fx.api
        .script(&format!("Updated.\nremember (replaces #{old}): {new_text}"));
    let run = fx.claude("the gateway now allows 8 webhook retries");
    run.expect_success();
    assert_eq!(fx.supersedes_of(old), 1, "{client}\n{run}");
    let listed = fx.synapse_json(&["list", "--json", "--project", fx.repo_arg()]);
    let live: Vec<&str> = listed["memories"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["body"].as_str())
        .collect();
    assert!(live.contains(&new_text), "{client}: {live:#?}");
    assert!(
        !live.contains(&"Webhook retry limit is 5 attempts"),
        "{client}: {live:#?}"
    );
}

/// The MCP `remember` tool's `supersedes` replaces the memory it names, in the real client.
#[rstest]
#[case::pinned(Client::Pinned)]
#[case::newest(Client::Newest)]
#[ignore = "end-to-end: needs both Claude Code clients, run .ci/test"]
fn the_remember_tool_replaces_the_memory_it_names(#[case] client: Client) {
    let mut fx = Fixture::new(client);
    fx.seed_with_style();
    let old = fx.remember("Webhook retry limit is 5 attempts");
    let remember = format!("{MCP_PREFIX}remember");
    fx.script_mcp_calls(&[(
        &remember,
        json!({"text": "Webhook retries: 8 attempts since the gateway change", "supersedes": [old]}),
    )]);
    fx.api.script("Saved.");
    let run = fx.claude_with(
        "remember that webhooks now retry 8 times",
        &["--allowedTools", &remember],
    );
    run.expect_success();
    assert_eq!(fx.supersedes_of(old), 1, "{client}\n{run}");
}

/// What the client answers, in `-p` mode, for a tool the user has not allowed (both clients).
const NOT_GRANTED: &str = "but you haven't granted it yet";

/// Reading needs no grant: the PreToolUse hook in plugin.json allows `recall`,
/// `readmemory` and `drift`, so with no `--allowedTools` and no settings the model's calls of
/// them run (where a call that needs a grant is refused in `-p` mode, as a prompt would ask in a
/// terminal). `remember` writes, so it still needs the user's grant: refused, nothing stored. And
/// the user keeps the last word: an `ask` rule of theirs for `recall` outranks the plugin's allow.
#[rstest]
#[case::pinned(Client::Pinned)]
#[case::newest(Client::Newest)]
#[ignore = "end-to-end: needs both Claude Code clients, run .ci/test"]
fn read_only_tools_need_no_grant_and_remember_still_does(#[case] client: Client) {
    let mut fx = Fixture::new(client);
    let webhook = fx.seed_with_style();
    let [recall, read, drift, remember] =
        ["recall", "readmemory", "drift", "remember"].map(|t| format!("{MCP_PREFIX}{t}"));
    let unasked = "Webhook retries were raised to 9 without anyone granting it";
    fx.script_mcp_calls(&[
        (&recall, json!({"query": "webhook retries"})),
        (&read, json!({"id": webhook, "offset": 0})),
        (&drift, json!({})),
        (&remember, json!({"text": unasked})),
    ]);
    fx.api.script("Webhooks retry 5 times.");
    let run = fx.claude("how many times do webhooks retry?");
    run.expect_success();

    let as_json = |tool: &str| -> Value {
        let text = run.tool_result_of(tool);
        serde_json::from_str(&text).unwrap_or_else(|e| {
            panic!("{client}: {tool} did not run without a grant ({e}): {text}\n{run}")
        })
    };
    assert_eq!(
        as_json(&recall)["results"][0]["text"],
        json!(WEBHOOK),
        "{run}"
    );
    assert_eq!(as_json(&read)["body"], json!(WEBHOOK), "{run}");
    assert!(as_json(&drift)["count"].is_u64(), "{run}");

    let last = *run.messages_posts().last().unwrap();
    let refused = tool_result_block(last, &tool_use_id(&remember))
        .unwrap_or_else(|| panic!("{client}: no result for the remember call\n{run}"));
    assert!(
        refused["is_error"] == json!(true) && refused.to_string().contains(NOT_GRANTED),
        "{client}: remember ran without the user's grant: {refused}\n{run}"
    );
    let listed = fx.synapse_json(&["list", "--json", "--project", fx.repo_arg()]);
    assert!(
        !listed.to_string().contains(unasked),
        "{client}: a refused remember stored its text: {listed}"
    );

    let home = fx.dir.path().join("home-asks");
    fs::create_dir_all(home.join(".claude")).unwrap();
    let settings = json!({"permissions": {"ask": [recall]}});
    fs::write(home.join(".claude/settings.json"), settings.to_string()).unwrap();
    fx.script_mcp_calls(&[(&recall, json!({"query": "webhook retries"}))]);
    fx.api.script("I could not look.");
    let run = fx.claude_at(&home, "how many times do webhooks retry?", &[]);
    run.expect_success();
    let asked = run.tool_result_of(&recall);
    assert!(
        asked.contains(NOT_GRANTED),
        "{client}: the user's ask rule for recall did not outrank the plugin's allow: {asked}\n{run}"
    );
}

/// The `permissions.allow` entry that lets the read-only tools run where the plugin's hooks do not
/// (`disableAllHooks`, or managed settings that allow only managed hooks): the line the README
/// and `synapse doctor` give (`cmd::doctor::wiring::READ_ONLY_ALLOW`), checked as written.
const READ_ONLY_ALLOW: &str = synapse::cmd::doctor::wiring::READ_ONLY_ALLOW;

/// With hooks off, `recall` needs a grant again (so the plugin's hook is what allowed it), and
/// `READ_ONLY_ALLOW` in the user's settings is that grant for all three read-only tools.
#[rstest]
#[case::pinned(Client::Pinned)]
#[case::newest(Client::Newest)]
#[ignore = "end-to-end: needs both Claude Code clients, run .ci/test"]
fn with_hooks_off_the_allow_line_lets_the_read_only_tools_run(#[case] client: Client) {
    let mut fx = Fixture::new(client);
    let webhook = fx.seed_with_style();
    let [recall, read, drift] =
        ["recall", "readmemory", "drift"].map(|t| format!("{MCP_PREFIX}{t}"));
    for with_line in [false, true] {
        let home = fx.dir.path().join(format!("home-hooks-off-{with_line}"));
        fs::create_dir_all(home.join(".claude")).unwrap();
        let settings = if with_line {
            format!(r#"{{"disableAllHooks": true, {READ_ONLY_ALLOW}}}"#)
        } else {
            r#"{"disableAllHooks": true}"#.to_owned()
        };
        fs::write(home.join(".claude/settings.json"), settings).unwrap();
        fx.script_mcp_calls(&[
            (&recall, json!({"query": "webhook retries"})),
            (&read, json!({"id": webhook, "offset": 0})),
            (&drift, json!({})),
        ]);
        fx.api.script("Done.");
        let run = fx.claude_at(&home, "how many times do webhooks retry?", &[]);
        run.expect_success();
        for tool in [&recall, &read, &drift] {
            let result = run.tool_result_of(tool);
            let refused = result.contains(NOT_GRANTED);
            assert_eq!(
                refused, !with_line,
                "{client}: hooks off, allow line {with_line}: {tool} answered {result}\n{run}"
            );
        }
    }
}

/// A model that searches the newest client's deferred tools by a word rather than by name: the
/// word most likely, "memory", brings up the read path first (`readmemory`, then `recall`, by the
/// search hints the server sends), loads them, and `recall` then runs. The pinned client offers
/// every MCP tool with its schema from the start and has no ToolSearch, so it has no case here.
#[rstest]
#[case::newest(Client::Newest)]
#[ignore = "end-to-end: needs both Claude Code clients, run .ci/test"]
fn a_search_for_memory_among_deferred_tools_finds_the_read_path_first(#[case] client: Client) {
    assert!(client.defers_mcp_tools(), "{client} offers no ToolSearch");
    let mut fx = Fixture::new(client);
    fx.seed_with_style();
    let [recall, read] = ["recall", "readmemory"].map(|t| format!("{MCP_PREFIX}{t}"));
    fx.api
        .script_tool_use("ToolSearch", json!({"query": "memory"}));
    fx.api
        .script_tool_use(&recall, json!({"query": "webhook retries"}));
    fx.api.script("Five attempts.");
    let run = fx.claude("how many times do webhooks retry?");
    run.expect_success();

    let last = *run.messages_posts().last().unwrap();
    let found: Vec<&str> = tool_result_block(last, &tool_use_id("ToolSearch"))
        .and_then(|b| b["content"].as_array())
        .map(|refs| {
            refs.iter()
                .filter_map(|r| r["tool_name"].as_str())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        found.get(..2),
        Some([read.as_str(), recall.as_str()].as_slice()),
        "{client}: ToolSearch \"memory\" found {found:?}\n{run}"
    );
    let recalled = run.tool_result_of(&recall);
    assert!(
        recalled.contains(WEBHOOK),
        "{client}: recall, loaded by the search, did not answer: {recalled}\n{run}"
    );
}

/// The slash commands the prompt hook answers are the user's: a model that loads one as a skill
/// (`Skill(synapse:read, "7")`, as both clients list commands to the model) is refused by the
/// client, and never reads a text saying a hook "has already read" a memory when none ran.
#[rstest]
#[case::pinned(Client::Pinned)]
#[case::newest(Client::Newest)]
#[ignore = "end-to-end: needs both Claude Code clients, run .ci/test"]
fn the_model_cannot_run_the_commands_the_hook_answers(#[case] client: Client) {
    let mut fx = Fixture::new(client);
    let id = fx.seed_with_style();
    fx.api.script_tool_use(
        "Skill",
        json!({"skill": "synapse:read", "args": id.to_string()}),
    );
    fx.api.script("I cannot run that command myself.");
    let run = fx.claude("what does your memory about webhook retries say exactly?");
    run.expect_success();
    let result = run.tool_result_of("Skill");
    assert!(
        result.contains("disable-model-invocation"),
        "{client}: the client let the model load /synapse:read as a skill: {result}\n{run}"
    );
    let last = run
        .messages_posts()
        .last()
        .map(|r| r.texts())
        .unwrap_or_default();
    assert!(
        !last
            .iter()
            .any(|t| t.contains("has already read the memory")),
        "{client}: the command's text reached the model though no hook ran\n{run}"
    );
}

/// `synapse doctor` follows what the client itself records: after `claude plugin install` it
/// finds the plugin enabled, the binaries and the MCP server answering; after `claude plugin
/// disable` it says to enable it; after `claude plugin uninstall` it says it is not installed.
#[rstest]
#[case::pinned(Client::Pinned)]
#[case::newest(Client::Newest)]
#[ignore = "end-to-end: needs both Claude Code clients, run .ci/test"]
fn doctor_follows_the_client_s_install_disable_and_uninstall(#[case] client: Client) {
    let fx = Fixture::new(client);
    let claude = client.path();
    let home = fx.dir.path().join("home-doctor");
    fs::create_dir_all(&home).unwrap();
    // The plugin's own files only: the client copies the whole folder into its cache.
    let plugin = fx.dir.path().join("marketplace");
    common::copy_checkout(&common::PLUGIN_FOLDERS, &plugin);
    let plugin_cli = |args: &[&str]| {
        let out = Command::new(&claude)
            .args(["plugin"])
            .args(args)
            .current_dir(&fx.repo)
            .env_clear()
            .env("HOME", &home)
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .stdin(Stdio::null())
            .output()
            .expect("run claude plugin");
        assert!(
            out.status.success(),
            "{client}: claude plugin {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let bin_dir = common::bin_dir();
    let doctor = || {
        let out = common::run_synapse_with(
            &fx.data,
            &fx.repo,
            &["doctor", "--json"],
            b"",
            &[
                ("HOME", home.to_str().unwrap()),
                ("SYNAPSE_BIN_DIR", bin_dir.to_str().unwrap()),
            ],
        );
        let report: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{client}: doctor printed no JSON ({e}): {out:?}"));
        (out.status.success(), report)
    };

    let (ok, report) = doctor();
    assert!(
        !ok && report["problems"].to_string().contains("not installed"),
        "{client}: {report}"
    );
    plugin_cli(&["marketplace", "add", plugin.to_str().unwrap()]);
    plugin_cli(&["install", "synapse@synapse"]);
    let (ok, report) = doctor();
    assert!(ok, "{client}: doctor after claude plugin install: {report}");
    let checks = report["plugin"].to_string();
    assert!(
        checks.contains("synapse@synapse") && checks.contains("answers initialize"),
        "{client}: {report}"
    );

    plugin_cli(&["disable", "synapse@synapse"]);
    let (ok, report) = doctor();
    assert!(
        !ok && report["problems"]
            .to_string()
            .contains("claude plugin enable synapse@synapse"),
        "{client}: doctor after claude plugin disable: {report}"
    );

    plugin_cli(&["uninstall", "synapse@synapse"]);
    let (ok, report) = doctor();
    assert!(
        !ok && report["problems"].to_string().contains("not installed"),
        "{client}: doctor after claude plugin uninstall: {report}"
    );
}

/// The events of a run with `--output-format stream-json --verbose`, one JSON object a line.
fn stream_events(run: &Run) -> Vec<Value> {
    run.stdout
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            serde_json::from_str(l).unwrap_or_else(|e| {
                panic!(
                    "{}: a stream-json line is no JSON ({e}): {l}\n{run}",
                    run.label
                )
            })
        })
        .collect()
}

/// The SessionStart block the model was given, from its opening tag to the end of the text the
/// client wraps it in: the client's label before it differs between plain and JSON output.
fn session_block(run: &Run) -> String {
    let texts = run.texts();
    let text = texts
        .iter()
        .find(|t| {
            t.contains("<synapse-memories>") && Origin::Hook("SessionStart:startup").matches(t)
        })
        .unwrap_or_else(|| panic!("{}: no SessionStart block\n{run}", run.label));
    let at = text.find("<synapse-memories>").unwrap();
    text[at..].to_owned()
}

/// The person sees Synapse's line (stream-json carries what the SessionStart hook
/// printed, and the newest client shows the Stop hook's message), while the model is given
/// the same block, byte for byte, as with `notice = "off"`, when the hook prints it as plain
/// text as before; and a Stop hook's line makes no second model call.
#[rstest]
#[case::pinned(Client::Pinned)]
#[case::newest(Client::Newest)]
#[ignore = "end-to-end: needs both Claude Code clients, run .ci/test"]
fn the_person_sees_a_line_and_the_model_the_same_block(#[case] client: Client) {
    let mut fx = Fixture::new(client);
    fx.seed_with_style();
    let stream = ["--output-format", "stream-json", "--verbose"];
    let prompt = "how are idempotency keys stored?";
    fs::create_dir_all(&fx.data).unwrap();
    fs::write(fx.data.join("config.toml"), "[hooks]\nnotice = \"off\"\n").unwrap();
    let before = fx.claude_with(prompt, &stream);
    fs::remove_file(fx.data.join("config.toml")).unwrap();
    let now = fx.claude_with(prompt, &stream);
    assert!(
        before
            .texts()
            .iter()
            .any(|t| t.contains("SessionStart:startup hook success: <synapse-memories>")),
        "notice = off prints plain text, as before\n{before}"
    );
    assert_eq!(session_block(&now), session_block(&before), "{now}");

    let started: Vec<Value> = stream_events(&now)
        .into_iter()
        .filter(|e| e["subtype"] == "hook_response" && e["hook_event"] == "SessionStart")
        .collect();
    let printed: Vec<Value> = started
        .iter()
        .filter_map(|e| serde_json::from_str(e["stdout"].as_str()?).ok())
        .collect();
    let line = printed
        .iter()
        .find_map(|p| p["systemMessage"].as_str())
        .unwrap_or_else(|| panic!("no SessionStart line in the stream: {started:?}\n{now}"));
    assert!(
        line.starts_with("Synapse · ") && line.contains(" for feature/webhook-retries"),
        "{line}"
    );

    fx.api.script(&format!("Noted.\nremember: {LEARNED}"));
    let saved = fx.claude_with(prompt, &stream);
    assert_eq!(
        saved.messages_posts().len(),
        1,
        "a Stop hook's line must not make Claude continue\n{saved}"
    );
    let listed = fx.synapse_json(&["list", "--json", "--project", fx.repo_arg()]);
    let id = listed["memories"]
        .as_array()
        .and_then(|all| all.iter().find(|m| m["body"].as_str() == Some(LEARNED)))
        .and_then(|m| m["id"].as_i64())
        .unwrap_or_else(|| panic!("the Stop hook kept no lesson: {listed}\n{saved}"));
    if matches!(client, Client::Newest) {
        let shown: Vec<String> = stream_events(&saved)
            .iter()
            .filter(|e| e["subtype"] == "informational")
            .filter_map(|e| e["content"].as_str().map(str::to_owned))
            .collect();
        assert!(
            shown
                .iter()
                .any(|c| c.contains(&format!("Synapse saved #{id}"))),
            "{shown:?}\n{saved}"
        );
    }
}

/// Before a compaction the summary is asked for the session's lessons (the client
/// adds a PreCompact hook's plain output to the summary's instructions), and after it the
/// `remember:` lines of the summary are kept.
#[rstest]
#[case::pinned(Client::Pinned)]
#[case::newest(Client::Newest)]
#[ignore = "end-to-end: needs both Claude Code clients, run .ci/test"]
fn a_compaction_asks_the_summary_for_lessons_and_keeps_them(#[case] client: Client) {
    let mut fx = Fixture::new(client);
    fx.seed_with_style();
    let home = fx.dir.path().join("home-compact");
    fs::create_dir_all(&home).unwrap();
    fx.claude_at(&home, "the webhook retries fail in staging", &[])
        .expect_success();
    if matches!(client, Client::Pinned) {
        // The pinned client answers the first `/compact` of a continued `-p` session with "Not
        // enough messages to compact." however long the session is (seen after one turn and
        // after five), and compacts at the second.
        let refused = fx.claude_at(&home, "/compact", &["--continue"]);
        assert!(refused.stdout.contains("Not enough messages"), "{refused}");
    }
    let summary = "<analysis>short</analysis>\n<summary>\n1. Primary request: fix the webhook \
                   retries in staging.\n\nremember: staging webhooks time out after 10 s, so \
                   retries must back off from 2 s\nremember: the staging queue is drained at \
                   02:00 UTC\n</summary>";
    fx.api.script(summary);
    let compacted = fx.claude_at(&home, "/compact", &["--continue"]);
    compacted.expect_success();
    let asked = compacted.messages_posts().iter().any(|r| {
        r.texts()
            .iter()
            .any(|t| t.contains(synapse::plugin::hook::BEFORE_COMPACTION))
    });
    assert!(
        asked,
        "the summary was not asked for the lessons\n{compacted}"
    );
    let bodies = fx.synapse(&["list", "--json", "--project", fx.repo_arg()]);
    for lesson in [
        "staging webhooks time out after 10 s",
        "drained at 02:00 UTC",
    ] {
        assert!(
            bodies.contains(lesson),
            "{lesson:?} not kept: {bodies}\n{compacted}"
        );
    }
}

/// In the interactive client, as a person runs it, Synapse's lines are on the screen:
/// the session start's, and the one saying a `remember:` line typed in a prompt was saved.
/// tmux runs the client in a terminal, with onboarding and the folder's trust already answered
/// in a fresh HOME, against the stand-in API.
#[rstest]
#[case::pinned(Client::Pinned)]
#[case::newest(Client::Newest)]
#[ignore = "end-to-end: needs both Claude Code clients and tmux, run .ci/test"]
fn the_interactive_client_shows_synapse_s_lines(#[case] client: Client) {
    common::tmux::Tmux::require("run Claude Code in a terminal");
    let fx = Fixture::new(client);
    fx.seed_with_style();
    let home = fx.dir.path().join("home-tui");
    fs::create_dir_all(&home).unwrap();
    let key = "sk-ant-test-0123456789abcdefghij";
    let approved = &key[key.len() - 20..];
    let settings = json!({
        "hasCompletedOnboarding": true,
        "theme": "dark",
        "customApiKeyResponses": {"approved": [approved], "rejected": []},
        "projects": {fx.repo_arg(): {"hasTrustDialogAccepted": true,
                                     "hasCompletedProjectOnboarding": true}},
    });
    fs::write(home.join(".claude.json"), settings.to_string()).unwrap();
    let bin_dir = common::bin_dir();
    let quote = |p: &Path| format!("'{}'", p.to_str().unwrap().replace('\'', r"'\''"));
    let command = format!(
        "env -i HOME={} PATH={} TERM=xterm-256color SYNAPSE_DATA={} SYNAPSE_BIN_DIR={} \
         ANTHROPIC_BASE_URL={} ANTHROPIC_API_KEY={key} CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
         {} --plugin-dir {} --model {MODEL}",
        quote(&home),
        quote(Path::new(&std::env::var("PATH").unwrap_or_default())),
        quote(&fx.data),
        quote(&bin_dir),
        fx.api.base_url(),
        quote(&fx.client.path),
        quote(&fx.client.plugin),
    );
    // One tmux server for each case: the cases run at once in this process.
    let name = match client {
        Client::Pinned => "claude-pinned",
        Client::Newest => "claude-newest",
    };
    let tmux = common::tmux::Tmux::start(name, &fx.repo, &command);
    tmux.wait_for(
        "the session starts",
        &[
            "SessionStart:startup says: Synapse · ",
            " for feature/webhook-retries",
        ],
    );
    // Enter only once the client shows the text: the newest client takes text and an Enter
    // that reach it in one read as a paste, a line break in the prompt.
    tmux.type_text("remember: release branches are cut on Mondays");
    tmux.wait_for(
        "the prompt is typed",
        &["remember: release branches are cut on Mondays"],
    );
    tmux.press("Enter");
    let screen = tmux.wait_for(
        "the prompt is sent",
        &["UserPromptSubmit says: Synapse saved #"],
    );
    let listed = fx.synapse_json(&["list", "--json", "--project", fx.repo_arg()]);
    let saved = listed["memories"]
        .as_array()
        .and_then(|all| {
            all.iter()
                .find(|m| m["body"] == "release branches are cut on Mondays")
        })
        .and_then(|m| m["id"].as_i64())
        .unwrap_or_else(|| panic!("the typed line was not kept: {listed}\n{screen}"));
    assert!(
        screen.contains(&format!("Synapse saved #{saved}")),
        "{screen}"
    );
}
