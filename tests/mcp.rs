//! The MCP server, spoken to over stdio as a client would: initialize, tools/list, each tool,
//! paging a long multibyte memory to its last byte, scope isolation and every error path. Then
//! two real third-party clients: the official MCP Python SDK (in both its legacy `initialize`
//! mode and its default mode) and the MCP Inspector's CLI in `--strict` mode. Those two are
//! installed by `.ci/test` (into `.ci/venv` and `.ci/node`), and their tests are listed as ignored
//! by a plain `cargo test`; `.ci/test` runs them, and without the clients they fail and say so:
//! they are never skipped.

use crate::common;
use common::place::Place;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::Duration;

use common::MCP_TOOLS;
use rstest::rstest;
use serde_json::{json, Value};

/// How long one answer may take before the test fails (never reached by a working server).
const ANSWER_WITHIN: Duration = Duration::from_secs(20);

/// A running `synapse-mcp` and the lines it prints.
struct Server {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// Every line it printed on stdout, for the check that all of them are protocol.
    seen: Vec<String>,
    next_id: i64,
}

impl Server {
    /// Start the server with `data` as its data folder, in `cwd`, without CLAUDE_PROJECT_DIR.
    fn start(data: &Path, cwd: &Path) -> Server {
        Server::start_with(data, cwd, &[])
    }

    fn start_with(data: &Path, cwd: &Path, env: &[(&str, &Path)]) -> Server {
        Server::start_args(data, cwd, env, &[])
    }

    fn start_args(
        data: &Path,
        cwd: &Path,
        env: &[(&str, &Path)],
        args: &[&std::ffi::OsStr],
    ) -> Server {
        let mut command = Command::new(common::binary("synapse-mcp"));
        command
            .args(args)
            .env("SYNAPSE_DATA", data)
            .env("HOME", common::test_home(data))
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CLAUDE_CODE_DISABLE_AUTO_MEMORY")
            .env_remove("CLAUDE_PROJECT_DIR")
            .env_remove("SYNAPSE_BUDGET")
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        for (k, v) in env {
            command.env(k, v);
        }
        let mut child = command.spawn().expect("start synapse-mcp");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Server {
            child,
            stdin,
            lines,
            seen: Vec::new(),
            next_id: 1,
        }
    }

    /// Start and initialize at 2025-11-25, as Claude Code 2.1.197 does.
    fn ready(data: &Path, cwd: &Path) -> Server {
        let mut server = Server::start(data, cwd);
        server.initialize("2025-11-25");
        server
    }

    fn send_raw(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("write to synapse-mcp");
        self.stdin.flush().unwrap();
    }

    /// The next line on stdout, parsed; fails the test on a timeout or a line that is not JSON.
    fn receive(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(ANSWER_WITHIN)
            .unwrap_or_else(|e| panic!("no answer from synapse-mcp: {e}"));
        self.seen.push(line.clone());
        serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout carried a line that is not JSON ({e}): {line}"))
    }

    /// Send a request and wait for its response (notifications in between are skipped).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_raw(&message.to_string());
        loop {
            let answer = self.receive();
            if answer["id"] == json!(id) {
                return answer;
            }
        }
    }

    fn initialize(&mut self, version: &str) -> Value {
        let answer = self.request(
            "initialize",
            json!({
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "tests/mcp.rs", "version": "0"},
            }),
        );
        self.send_raw(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        answer
    }

    /// Call a tool; the `result` (a tool error is a result too).
    fn call(&mut self, tool: &str, args: Value) -> Value {
        let answer = self.request("tools/call", json!({"name": tool, "arguments": args}));
        assert!(
            answer.get("error").is_none(),
            "tools/call {tool} {args}: a protocol error, not a result: {answer}"
        );
        answer["result"].clone()
    }

    /// Call a tool that must succeed; its structured content.
    fn ok(&mut self, tool: &str, args: Value) -> Value {
        let result = self.call(tool, args.clone());
        assert_eq!(
            result["isError"],
            json!(false),
            "{tool} {args} failed: {result}"
        );
        let structured = result["structuredContent"].clone();
        assert!(
            structured.is_object(),
            "{tool}: no structured content: {result}"
        );
        // The text block repeats the same JSON, for clients that read only text.
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        assert_eq!(
            serde_json::from_str::<Value>(text).ok(),
            Some(structured.clone()),
            "{tool}: the text block is not the structured content"
        );
        structured
    }

    /// Call a tool that must fail as a tool error; its message.
    fn tool_error(&mut self, tool: &str, args: Value) -> String {
        let result = self.call(tool, args.clone());
        assert_eq!(
            result["isError"],
            json!(true),
            "{tool} {args} should be a tool error: {result}"
        );
        result["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{tool}: an error with no text: {result}"))
            .to_owned()
    }

    /// Check that `tools/list` still answers with every tool.
    fn lists_every_tool(&mut self) {
        let listed = self.request("tools/list", json!({}));
        let tools = listed["result"]["tools"].as_array();
        assert_eq!(tools.map(Vec::len), Some(MCP_TOOLS.len()), "{listed}");
    }

    /// Close stdin and check the server exits on its own, having printed only JSON-RPC.
    fn finish(mut self) {
        drop(self.stdin);
        let status = self.child.wait().unwrap();
        assert!(status.success(), "synapse-mcp exited with {status}");
        for line in self.lines.try_iter() {
            self.seen.push(line);
        }
        for line in &self.seen {
            let value: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("stdout carried a non-JSON line ({e}): {line}"));
            assert_eq!(value["jsonrpc"], "2.0", "not JSON-RPC on stdout: {line}");
        }
    }
}

/// A place (its repository, `project`, and its data folder) and a second project (`other`, a
/// git repository beside it), each with their own memories.
struct Fixture {
    place: Place,
    data: PathBuf,
    project: PathBuf,
    other: PathBuf,
}

impl Fixture {
    fn new() -> Fixture {
        let place = Place::new("main");
        let other = place.root.join("website");
        common::git_repo(&other, "main");
        Fixture {
            data: place.data.clone(),
            project: place.repo.clone(),
            other,
            place,
        }
    }

    /// `synapse remember` from `cwd` with `text` on stdin; the new id.
    fn remember_in(&self, cwd: &Path, text: &str) -> i64 {
        let args = ["remember", "--source", "test"];
        self.place.json_in(cwd, &args, text.as_bytes())["id"]
            .as_i64()
            .unwrap()
    }

    fn server(&self) -> Server {
        Server::ready(&self.data, &self.project)
    }
}

/// A long memory of every UTF-8 width: 1 to 4 bytes per character, NUL, tabs, CRLF.
fn multibyte_body() -> String {
    let mut body = String::from("Payment retry runbook: the webhook queue and its backoff.\n");
    let mut n = 0;
    while body.len() < 40_000 {
        body.push_str(&format!(
            "{n:05} ascii é ü ß 日本語 ✓ → 🚀🦀 \u{0}\t crlf\r\n"
        ));
        n += 1;
    }
    body
}

#[rstest]
fn initialize_answers_the_version_asked_and_teaches_the_loop(
    #[values("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")] version: &str,
) {
    let fx = Fixture::new();
    let mut server = Server::start(&fx.data, &fx.project);
    let answer = server.initialize(version);
    let result = &answer["result"];
    assert_eq!(result["protocolVersion"], version, "{answer}");
    assert_eq!(result["serverInfo"]["name"], "synapse", "{answer}");
    assert!(result["capabilities"]["tools"].is_object(), "{answer}");
    let instructions = result["instructions"].as_str().unwrap();
    assert!(instructions.len() < 2048, "{} bytes", instructions.len());
    for needed in [
        "recall",
        "readmemory",
        "offset 0",
        "`next`",
        "null",
        "advisory",
    ] {
        assert!(
            instructions.contains(needed),
            "instructions lack {needed:?}"
        );
    }
    server.finish();
}

/// Newer clients first ask `server/discover` (protocol 2026-07-28), then call tools with the
/// version and client in each request's `_meta`, with no `initialize` at all.
#[test]
fn newer_clients_discover_and_call_tools_without_initialize() {
    let fx = Fixture::new();
    let mut server = Server::start(&fx.data, &fx.project);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "tests/mcp.rs", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let discovered = server.request("server/discover", json!({"_meta": meta}));
    let versions = discovered["result"]["supportedVersions"].to_string();
    assert!(
        versions.contains("2025-11-25") && versions.contains("2026-07-28"),
        "{discovered}"
    );
    assert!(discovered["result"]["instructions"]
        .as_str()
        .is_some_and(|i| i.contains("readmemory")));
    let listed = server.request("tools/list", json!({"_meta": meta}));
    assert_eq!(
        listed["result"]["tools"].as_array().map(Vec::len),
        Some(MCP_TOOLS.len())
    );
    let found = server.request(
        "tools/call",
        json!({"_meta": meta, "name": "recall", "arguments": {"query": "anything"}}),
    );
    assert_eq!(found["result"]["isError"], json!(false), "{found}");
    server.finish();
}

/// A version the server does not know gets the newest it speaks with `initialize`.
#[test]
fn an_unknown_version_gets_the_newest_the_server_speaks() {
    let fx = Fixture::new();
    let mut server = Server::start(&fx.data, &fx.project);
    let answer = server.initialize("1999-01-01");
    assert_eq!(
        answer["result"]["protocolVersion"], "2025-11-25",
        "{answer}"
    );
    server.finish();
}

#[test]
fn tools_list_has_every_tool_with_valid_described_schemas() {
    let fx = Fixture::new();
    let mut server = fx.server();
    let answer = server.request("tools/list", json!({}));
    let tools = answer["result"]["tools"].as_array().unwrap().clone();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names.len(), MCP_TOOLS.len(), "{names:?}");
    for name in MCP_TOOLS {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    for tool in &tools {
        let name = tool["name"].as_str().unwrap();
        let description = tool["description"].as_str().unwrap_or_default();
        assert!(
            description.len() > 40 && description.len() < 2048,
            "{name}: {description:?}"
        );
        let schema = &tool["inputSchema"];
        assert_eq!(schema["type"], "object", "{name}: {schema}");
        assert_eq!(schema["additionalProperties"], json!(false), "{name}");
        let properties = schema["properties"].as_object().unwrap();
        for (field, spec) in properties {
            assert!(
                spec["description"].as_str().is_some_and(|d| d.len() > 10),
                "{name}.{field} has no description: {spec}"
            );
            assert!(
                spec.get("type").is_some() || spec.get("enum").is_some(),
                "{name}.{field} has no type: {spec}"
            );
            let format = spec["format"].as_str().unwrap_or("int64");
            assert!(!format.starts_with('u'), "{name}.{field}: format {format}");
            assert!(!spec.to_string().contains("null"), "{name}.{field}: {spec}");
        }
        for field in schema["required"].as_array().into_iter().flatten() {
            let field = field.as_str().unwrap();
            assert!(properties.contains_key(field), "{name}: required {field}");
        }
        assert!(!schema.to_string().contains("$ref"), "{name}: {schema}");
        let hints = &tool["annotations"];
        let read_only = matches!(name, "recall" | "readmemory" | "drift");
        assert_eq!(hints["readOnlyHint"], json!(read_only), "{name}: {hints}");
        assert_eq!(hints["openWorldHint"], json!(false), "{name}: {hints}");
    }
    let required = |tool: &str| -> Vec<String> {
        let t = tools.iter().find(|t| t["name"] == tool).unwrap();
        let mut r: Vec<String> = t["inputSchema"]["required"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect();
        r.sort();
        r
    };
    assert_eq!(required("recall"), ["query"]);
    assert_eq!(required("readmemory"), ["id"]);
    assert_eq!(required("remember"), ["text"]);
    assert_eq!(required("supersede"), ["new", "old"]);
    assert!(required("drift").is_empty());
    server.finish();
}

#[test]
fn recall_then_readmemory_pages_a_long_multibyte_memory_byte_for_byte() {
    let fx = Fixture::new();
    let body = multibyte_body();
    let id = fx.remember_in(&fx.project, &body);
    fx.remember_in(
        &fx.project,
        "The marketing site deploys from the www repository",
    );
    let mut server = fx.server();

    let found = server.ok("recall", json!({"query": "payment retry runbook"}));
    let about = found["about"].as_str().unwrap();
    assert!(about.contains("advisory, possibly outdated"), "{about}");
    assert!(about.contains("payment retry runbook"), "{about}");
    assert!(found["next"].as_str().unwrap().contains("readmemory"));
    let hit = found["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("memory {id} not recalled: {found}"))
        .clone();
    assert_eq!(hit["abridged"], json!(true), "{hit}");
    assert_eq!(hit["bytes"], json!(body.len()));
    assert_eq!(hit["age"], "today");
    assert_eq!(hit["source"], "test");
    assert_eq!(hit["scope"], "project");
    assert!(hit["read"].as_str().unwrap().contains("readmemory"));

    // Each page is the stored bytes from its offset to its `next`, as text: the NULs (and a
    // carriage return a page ends on) shown as escapes, since a model reads the answer.
    let mut offset = json!(0);
    let mut pages = 0;
    while !offset.is_null() {
        let page = server.ok("readmemory", json!({"id": id, "offset": offset}));
        assert_eq!(page["offset"], offset);
        assert_eq!(page["total"], json!(body.len()));
        let about = page["about"].as_str().unwrap();
        assert!(about.contains("advisory"), "{about}");
        assert!(about.contains("control characters shown as"), "{about}");
        let from = offset.as_u64().unwrap() as usize;
        let to = page["next"].as_u64().map_or(body.len(), |n| n as usize);
        let stored = body.get(from..to).expect("a page ends on a character");
        assert_eq!(page["body"], json!(synapse::text::visible(stored)));
        offset = page["next"].clone();
        pages += 1;
    }
    assert!(pages >= 7, "{pages} pages for {} bytes", body.len());

    // The exact end answers an empty page and no next.
    let end = server.ok("readmemory", json!({"id": id, "offset": body.len()}));
    assert_eq!(end["body"], "");
    assert!(end["next"].is_null());
    server.finish();
}

/// Every tool's answer shows a memory's escape sequences and direction overrides as escapes:
/// the model (and the person the client shows the result to) never gets them raw.
#[test]
fn a_memory_s_escape_sequences_reach_the_model_only_as_text() {
    let fx = Fixture::new();
    let sly =
        "Payment retry runbook \x1b]0;owned\x07 \x1b[31mred\x1b[0m user\u{202e}gpj.exe \u{9b}2J";
    let id = fx.remember_in(&fx.project, sly);
    fx.remember_in(&fx.project, sly.replace("runbook", "guide").as_str());
    let mut server = fx.server();
    let answers = [
        server.ok("recall", json!({"query": "payment retry runbook"})),
        server.ok("readmemory", json!({"id": id})),
        server.ok("drift", json!({})),
        server.ok("remember", json!({"text": format!("{sly} again")})),
    ];
    for (n, answer) in answers.iter().enumerate() {
        let text = answer.to_string();
        assert!(!text.chars().any(synapse::text::hidden), "{text:?}");
        if n == 2 {
            continue; // the audit finds nothing to quote here; it is checked for raw text only
        }
        let shown = serde_json::to_string(answer).unwrap();
        assert!(
            shown.contains(r"\\u{1b}]0;owned\\u{7}") || shown.contains(r"\\u{202e}gpj"),
            "{shown}"
        );
    }
    assert_eq!(
        answers[1]["body"],
        json!(
            r"Payment retry runbook \u{1b}]0;owned\u{7} \u{1b}[31mred\u{1b}[0m user\u{202e}gpj.exe \u{9b}2J"
        )
    );
    server.finish();
}

#[test]
fn remember_reports_duplicates_contradictions_missing_paths_and_masks_secrets() {
    let fx = Fixture::new();
    std::fs::create_dir_all(fx.project.join("src")).unwrap();
    std::fs::write(fx.project.join("src/retry.rs"), "// retry\n").unwrap();
    let mut server = fx.server();

    let first = server.ok(
        "remember",
        json!({"text": "Webhook retries: 3 attempts with backoff", "source": "PR #12"}),
    );
    let id = first["id"].as_i64().unwrap();
    assert!(first["duplicate_of"].is_null());
    assert!(first["about"]
        .as_str()
        .unwrap()
        .contains(&format!("memory {id}")));

    let again = server.ok(
        "remember",
        json!({"text": "Webhook retries: 3 attempts with backoff"}),
    );
    assert_eq!(again["duplicate_of"], json!(id), "{again}");
    assert_eq!(again["id"], json!(id));
    assert!(again["about"]
        .as_str()
        .unwrap()
        .contains("nothing was stored"));

    let newer = server.ok(
        "remember",
        json!({"text": "Webhook retries: 5 attempts with backoff"}),
    );
    let newer_id = newer["id"].as_i64().unwrap();
    let conflict = newer["drift"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "conflict")
        .unwrap_or_else(|| panic!("no contradiction reported: {newer}"));
    assert_eq!(conflict["id"], json!(id));
    assert_eq!(conflict["newer"], json!(newer_id));
    assert!(newer["about"]
        .as_str()
        .unwrap()
        .contains(&format!("contradicts {id}")));

    let stale = server.ok(
        "remember",
        json!({"text": "The retry loop lives in src/retry.rs and src/gone/backoff.rs"}),
    );
    let missing = stale["missing_paths"].as_array().unwrap();
    assert_eq!(missing.len(), 1, "{stale}");
    assert!(missing[0].as_str().unwrap().contains("src/gone/backoff.rs"));
    // Every gone path is named, each once.
    let two = server.ok(
        "remember",
        json!({"text": "Jitter is added in src/gone/jitter.rs, capped in src/gone/cap.rs"}),
    );
    assert_eq!(
        two["missing_paths"],
        json!(["src/gone/jitter.rs", "src/gone/cap.rs"]),
        "{two}"
    );

    let token = format!("ghp_{}", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
    let secret = server.ok(
        "remember",
        json!({"text": format!("The CI token is {token} for the deploy job")}),
    );
    assert!(!secret["masked"].as_array().unwrap().is_empty(), "{secret}");
    assert!(secret["about"].as_str().unwrap().contains("masked"));
    let stored = server.ok("readmemory", json!({"id": secret["id"]}));
    let text = stored["body"].as_str().unwrap();
    assert!(
        !text.contains(&token) && text.contains("[secret]"),
        "{text}"
    );

    let global = server.ok(
        "remember",
        json!({"text": "Prefer small pull requests", "global": true}),
    );
    let hit = server.ok("recall", json!({"query": "small pull requests"}));
    assert_eq!(hit["results"][0]["id"], global["id"]);
    assert_eq!(hit["results"][0]["scope"], "global");

    let replacing = server.ok(
        "remember",
        json!({"text": "Webhook retries: 8 attempts", "supersedes": [newer_id]}),
    );
    assert_eq!(replacing["superseded"], json!([newer_id]));
    let gone = server.tool_error("readmemory", json!({"id": newer_id}));
    assert!(gone.contains("no readable memory"), "{gone}");

    let empty = server.tool_error("remember", json!({"text": "   "}));
    assert!(empty.contains("empty"), "{empty}");
    server.finish();
}

/// The supersede actions recorded for memory `id`, each with the memory that replaced it.
fn supersedes_of(fx: &Fixture, id: i64) -> Vec<Value> {
    common::supersedes(&fx.place.json(&["history", &id.to_string()], b""))
}

/// The tool names the live memories close to a new one, and replaces one id or a list
/// of them in the same call, each once.
#[test]
fn remember_names_similar_memories_and_supersedes_one_id_or_a_list() {
    let fx = Fixture::new();
    let old = fx.remember_in(&fx.project, "Webhook retry limit is 5 attempts");
    fx.remember_in(&fx.project, "The staging database is Postgres 16");
    let mut server = fx.server();

    let new = server.ok("remember", json!({"text": "Webhook retries: 8 attempts"}));
    let new_id = new["id"].as_i64().unwrap();
    let similar = new["similar"].as_array().unwrap();
    assert_eq!(similar.len(), 1, "{new}");
    assert_eq!(similar[0]["id"], json!(old));
    assert_eq!(similar[0]["gist"], "Webhook retry limit is 5 attempts");
    assert_eq!(similar[0]["age"], "today");
    let about = new["about"].as_str().unwrap();
    assert!(
        about.contains(&format!("similar: #{old} Webhook retry limit")),
        "{about}"
    );

    // One id: the same text again is a repeat of the new memory, which now replaces the old.
    let one = server.ok(
        "remember",
        json!({"text": "Webhook retries: 8 attempts", "supersedes": old}),
    );
    assert_eq!(one["duplicate_of"], json!(new_id), "{one}");
    assert_eq!(one["superseded"], json!([old]));
    assert_eq!(supersedes_of(&fx, old), [json!(new_id)]);
    let again = server.tool_error("remember", json!({"text": "x y", "supersedes": old}));
    assert!(again.contains("already superseded"), "{again}");

    // A list, with an id named twice.
    let a = fx.remember_in(&fx.project, "Refunds settle in 5 days");
    let b = fx.remember_in(&fx.project, "Refunds settle within a week");
    let both = server.ok(
        "remember",
        json!({"text": "Refunds settle in 3 days", "supersedes": [a, b, a]}),
    );
    let both_id = both["id"].as_i64().unwrap();
    assert_eq!(both["superseded"], json!([a, b]), "{both}");
    assert_eq!(supersedes_of(&fx, a), [json!(both_id)]);
    assert_eq!(supersedes_of(&fx, b), [json!(both_id)]);
    let wrong = server.tool_error("remember", json!({"text": "x", "supersedes": "7"}));
    assert!(wrong.contains("input schema"), "{wrong}");
    server.finish();
}

#[test]
fn remember_shares_a_project_memory_when_the_checkout_says_so() {
    // Every write path shares through `record`: the tool did not, before it went through it.
    let fx = Fixture::new();
    std::fs::create_dir_all(fx.project.join(".synapse")).unwrap();
    std::fs::write(fx.project.join(".synapse/config.toml"), "share = true\n").unwrap();
    let mut server = fx.server();

    let shared = server.ok("remember", json!({"text": "Refunds settle in 5 days"}));
    assert!(shared["shared"].is_string(), "{shared}");
    assert!(shared["about"].as_str().unwrap().contains("shared through"));
    let global = server.ok(
        "remember",
        json!({"text": "Prefer rebase over merge", "global": true}),
    );
    assert!(global.get("shared").is_none(), "{global}");
    server.finish();

    let file = std::fs::read_to_string(fx.project.join(".synapse/memories.jsonl")).unwrap();
    assert!(file.contains("Refunds settle in 5 days"), "{file}");
    assert!(
        !file.contains("rebase"),
        "a global memory was shared: {file}"
    );
}

#[test]
fn supersede_forget_and_restore_hide_and_bring_back() {
    let fx = Fixture::new();
    let old = fx.remember_in(&fx.project, "Deploys run from the release branch");
    let new = fx.remember_in(&fx.project, "Deploys run from main since March");
    let mut server = fx.server();
    let recalled = |server: &mut Server| -> Vec<i64> {
        let found = server.ok("recall", json!({"query": "deploys run"}));
        common::result_ids(&found)
    };
    assert!(recalled(&mut server).contains(&old));

    let done = server.ok("supersede", json!({"old": old, "new": new}));
    assert_eq!(done["superseded"], json!(old));
    assert!(!recalled(&mut server).contains(&old));
    let twice = server.tool_error("supersede", json!({"old": old, "new": new}));
    assert!(twice.contains("already superseded"), "{twice}");

    let back = server.ok("restore", json!({"id": old}));
    assert_eq!(back["undid"], "supersede");
    assert!(recalled(&mut server).contains(&old));

    let forgot = server.ok("forget", json!({"id": new}));
    assert_eq!(forgot["forgotten"], json!(new));
    assert!(!recalled(&mut server).contains(&new));
    let hidden = server.tool_error("readmemory", json!({"id": new}));
    assert!(hidden.contains("no readable memory"), "{hidden}");
    let back = server.ok("restore", json!({"id": new}));
    assert_eq!(back["undid"], "forget");
    assert_eq!(
        server.ok("readmemory", json!({"id": new}))["id"],
        json!(new)
    );

    let live = server.tool_error("restore", json!({"id": new}));
    assert!(live.contains("nothing to restore"), "{live}");
    let itself = server.tool_error("supersede", json!({"old": new, "new": new}));
    assert!(itself.contains("cannot supersede itself"), "{itself}");

    let audit = server.ok("drift", json!({}));
    assert!(audit["about"]
        .as_str()
        .unwrap()
        .contains("nothing was changed"));
    assert_eq!(audit["memories"], json!(2));
    server.finish();
}

#[test]
fn drift_audits_this_project() {
    let fx = Fixture::new();
    let older = fx.remember_in(&fx.project, "The API rate limit is 100 requests per minute");
    let newer = fx.remember_in(&fx.project, "The API rate limit is 250 requests per minute");
    fx.remember_in(&fx.other, "The API rate limit is 900 requests per minute");
    let mut server = fx.server();
    let audit = server.ok("drift", json!({}));
    assert_eq!(audit["memories"], json!(2), "{audit}");
    let conflict = &audit["conflict"][0];
    assert_eq!(conflict["id"], json!(older), "{audit}");
    assert_eq!(conflict["newer"], json!(newer), "{audit}");
    assert!(conflict["says"].as_str().unwrap().contains("contradicted"));
    let unknown = server.tool_error("drift", json!({"folder": "/"}));
    assert!(unknown.contains("unknown field"), "{unknown}");
    server.finish();
}

/// The knowledge written for Claude Code (its memory files, `CLAUDE.md`) reaches any client
/// through the server: recall finds a topic file, drift audits `CLAUDE.md` with file and line.
#[test]
fn claude_code_s_memory_files_are_served_to_every_client() {
    use common::claude_memory::{ClaudeMemory, MISSING_PATHS};
    let dir = tempfile::tempdir().unwrap();
    let (home, data) = (dir.path().join("home"), dir.path().join("data"));
    let memory = ClaudeMemory::build(&home, &dir.path().join("repo"));
    let mut server = Server::start_with(&data, &memory.repo, &[("HOME", &home)]);
    server.initialize("2025-11-25");
    let caching = memory.topic("caching.md");
    let found = server.ok(
        "recall",
        json!({"query": "order summary cache redis invalidate"}),
    );
    let first = &found["results"][0];
    assert!(
        first["text"].as_str().unwrap().contains(caching.phrase),
        "{found}"
    );
    assert!(
        first["source"]
            .as_str()
            .unwrap()
            .starts_with("memory/caching.md"),
        "{found}"
    );
    let audit = server.ok("drift", json!({}));
    let stale = audit["stale"].as_array().unwrap();
    for (path, line) in memory.missing_paths() {
        assert!(
            stale.iter().any(|f| f["source"]["file"] == "CLAUDE.md"
                && f["source"]["line"] == json!(line)
                && f["why"].as_str().unwrap().contains(path)),
            "{path} at CLAUDE.md:{line}: {audit}"
        );
    }
    assert_eq!(
        stale
            .iter()
            .filter(|f| f["source"]["file"] == "CLAUDE.md")
            .count(),
        MISSING_PATHS.len(),
        "{audit}"
    );
    server.finish();
}

/// The scope is the server's folder, or CLAUDE_PROJECT_DIR: another project's memory is
/// answered exactly as a missing one, by every tool.
#[test]
fn another_projects_memory_reads_exactly_like_a_missing_one() {
    let fx = Fixture::new();
    let theirs = fx.remember_in(
        &fx.other,
        "Website secret sauce: the CDN purges at midnight",
    );
    let ours = fx.remember_in(&fx.project, "Payments reconcile at midnight");
    let missing = theirs + ours + 1000;
    let mut server = fx.server();

    let found = server.ok("recall", json!({"query": "website CDN purges midnight"}));
    let ids = common::result_ids(&found);
    assert_eq!(ids, [ours], "{found}");
    assert!(!found["results"].to_string().contains("CDN"), "{found}");

    for (tool, args) in [
        ("readmemory", json!({"id": "ID"})),
        ("forget", json!({"id": "ID"})),
        ("restore", json!({"id": "ID"})),
        ("supersede", json!({"old": "ID", "new": ours})),
        ("supersede", json!({"old": ours, "new": "ID"})),
        ("remember", json!({"text": "x", "supersedes": ["ID"]})),
    ] {
        let with = |id: i64| -> Value {
            serde_json::from_str(&args.to_string().replace("\"ID\"", &id.to_string())).unwrap()
        };
        let other = server.tool_error(tool, with(theirs));
        let absent = server.tool_error(tool, with(missing));
        assert_eq!(
            other.replace(&theirs.to_string(), "N"),
            absent.replace(&missing.to_string(), "N"),
            "{tool}: another project's id and a missing id answer differently"
        );
    }
    server.finish();

    // CLAUDE_PROJECT_DIR wins over the working folder.
    let mut server = Server::start_with(
        &fx.data,
        &fx.project,
        &[("CLAUDE_PROJECT_DIR", fx.other.as_path())],
    );
    server.initialize("2025-11-25");
    let found = server.ok("recall", json!({"query": "website CDN purges midnight"}));
    assert_eq!(found["results"][0]["id"], json!(theirs), "{found}");
    assert!(server
        .tool_error("readmemory", json!({"id": ours}))
        .contains("no readable memory"));
    server.finish();

    // --project wins over both (for clients that start servers in no particular folder).
    let mut server = Server::start_args(
        &fx.data,
        &fx.other,
        &[("CLAUDE_PROJECT_DIR", fx.other.as_path())],
        &["--project".as_ref(), fx.project.as_os_str()],
    );
    server.initialize("2025-11-25");
    assert_eq!(
        server.ok("readmemory", json!({"id": ours}))["id"],
        json!(ours)
    );
    assert!(server
        .tool_error("readmemory", json!({"id": theirs}))
        .contains("no readable memory"));
    server.finish();
}

#[test]
fn bad_arguments_are_tool_errors_that_say_what_to_fix() {
    let fx = Fixture::new();
    let id = fx.remember_in(&fx.project, "Ünïcödé first: é is two bytes");
    let mut server = fx.server();
    let cases: Vec<(&str, Value, &str)> = vec![
        ("readmemory", json!({"id": 0}), "not a memory id"),
        ("readmemory", json!({"id": -4}), "not a memory id"),
        ("readmemory", json!({"id": "seven"}), "input schema"),
        ("readmemory", json!({}), "missing field `id`"),
        (
            "readmemory",
            json!({"id": 999_999}),
            "no readable memory 999999",
        ),
        (
            "readmemory",
            json!({"id": id, "offset": 1}),
            "inside a character",
        ),
        (
            "readmemory",
            json!({"id": id, "offset": 10_000}),
            "past the end",
        ),
        ("readmemory", json!({"id": id, "offset": -1}), "negative"),
        (
            "readmemory",
            json!({"id": id, "page": 2}),
            "unknown field `page`",
        ),
        ("recall", json!({}), "missing field `query`"),
        ("recall", json!({"query": "x", "limit": 0}), "below 1"),
        (
            "recall",
            json!({"query": "x", "budget": "huge"}),
            "unknown variant",
        ),
        ("remember", json!({"text": 5}), "input schema"),
        (
            "remember",
            json!({"text": "a", "supersedes": [0]}),
            "not a memory id",
        ),
        (
            "remember",
            json!({"text": "a", "supersedes": 0}),
            "not a memory id",
        ),
        ("forget", json!({"id": 999_999}), "no memory 999999"),
        ("supersede", json!({"old": id}), "missing field `new`"),
    ];
    for (tool, args, expected) in cases {
        let message = server.tool_error(tool, args.clone());
        assert!(
            message.contains(expected),
            "{tool} {args}: {message:?} does not say {expected:?}"
        );
    }
    // Nothing was lost or changed by the failed calls.
    let page = server.ok("readmemory", json!({"id": id}));
    assert_eq!(page["body"], "Ünïcödé first: é is two bytes");
    server.finish();
}

#[test]
fn bad_protocol_input_gets_json_rpc_errors_and_the_server_carries_on() {
    let fx = Fixture::new();
    let mut server = fx.server();

    let unknown_tool = server.request("tools/call", json!({"name": "nope", "arguments": {}}));
    assert!(unknown_tool["error"]["code"].is_i64(), "{unknown_tool}");

    let unknown_method = server.request("memories/delete_all", json!({}));
    assert_eq!(unknown_method["error"]["code"], -32601, "{unknown_method}");

    // Well-formed JSON that is not a JSON-RPC message: Invalid Request.
    server.send_raw(r#"{"jsonrpc":"2.0","id":77,"method":42}"#);
    let invalid = server.receive();
    assert_eq!(invalid["error"]["code"], -32600, "{invalid}");

    // Text that is not JSON: a parse error with a null id (there is none to answer), and the
    // server goes on.
    for garbage in ["this is not json {", "\u{1b}[A\u{0}"] {
        server.send_raw(garbage);
        let parse_error = server.receive();
        assert_eq!(parse_error["error"]["code"], -32700, "{parse_error}");
        assert_eq!(parse_error["id"], Value::Null, "{parse_error}");
    }
    let pong = server.request("ping", json!({}));
    assert_eq!(pong["result"], json!({}), "{pong}");

    server.lists_every_tool();
    server.finish();
}

/// A client that speaks out of turn before `initialize` (a notification, a stray response) does
/// not lose its server.
#[test]
fn messages_before_initialize_do_not_end_the_session() {
    let fx = Fixture::new();
    let mut server = Server::start(&fx.data, &fx.project);
    server.send_raw(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    server.send_raw(r#"{"jsonrpc":"2.0","id":"stray","result":{}}"#);
    server.send_raw("not json at all");
    let parse_error = server.receive();
    assert_eq!(parse_error["error"]["code"], -32700, "{parse_error}");
    let answer = server.initialize("2025-11-25");
    assert_eq!(
        answer["result"]["protocolVersion"], "2025-11-25",
        "{answer}"
    );
    server.send_raw(r#"{"jsonrpc":"2.0","id":"stray-again","result":{}}"#);
    server.lists_every_tool();
    server.finish();
}

/// A store that cannot be opened is a tool error, not a dead server: `initialize` never touches
/// the disk, and the next call tries again.
#[test]
fn a_store_that_cannot_be_opened_is_a_tool_error() {
    let fx = Fixture::new();
    std::fs::write(fx.project.join("not-a-folder"), "x").unwrap();
    let mut server = Server::ready(&fx.project.join("not-a-folder"), &fx.project);
    for _ in 0..2 {
        let message = server.tool_error("recall", json!({"query": "anything"}));
        assert!(
            message.contains("could not open the memory store"),
            "{message}"
        );
    }
    server.finish();
}

// ---------------------------------------------------------------------------------------------
// Third-party clients
// ---------------------------------------------------------------------------------------------

/// A tool `.ci/test` installs, or a failure saying how to get it.
fn installed(relative: &str, what: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    assert!(
        path.is_file(),
        "{what} not found at {}: this test runs the real client and cannot run without it; run \
         the README's test command (.ci/test), which installs it",
        path.display()
    );
    path
}

/// The official MCP Python SDK, in its legacy `initialize` mode and its default mode (which
/// probes `server/discover` first), lists the tools, recalls and pages a memory to its end.
#[test]
#[ignore = "end-to-end: needs the MCP Python SDK in .ci/venv, run .ci/test"]
fn the_official_python_sdk_drives_the_server() {
    let python = installed(".ci/venv/bin/python", "The MCP Python SDK's venv");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_client.py");
    let fx = Fixture::new();
    let body = multibyte_body();
    let id = fx.remember_in(&fx.project, &body);
    let expected = fx.data.join("expected.txt");
    std::fs::write(&expected, &body).unwrap();
    for mode in ["legacy", "auto"] {
        let out = Command::new(&python)
            .arg(&script)
            .arg(mode)
            .arg(common::binary("synapse-mcp"))
            .arg(&fx.project)
            .arg(id.to_string())
            .arg(&expected)
            .env("SYNAPSE_DATA", &fx.data)
            .env_remove("CLAUDE_PROJECT_DIR")
            .output()
            .expect("run the Python client");
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "mode {mode}: {}\n{said}", out.status);
        assert!(
            said.contains(&format!(
                "paged {} bytes of memory {id} as text",
                body.len()
            )),
            "mode {mode}: {said}"
        );
        assert!(said.contains("tools: drift forget readmemory recall remember restore supersede"));
    }
}

/// The MCP Inspector's CLI lists the tools and finds no schema portability problem.
#[test]
#[ignore = "end-to-end: needs the MCP Inspector in .ci/node, run .ci/test"]
fn the_inspector_lists_the_tools_with_no_finding_in_strict_mode() {
    let inspector = installed(
        ".ci/node/node_modules/.bin/mcp-inspector",
        "The MCP Inspector",
    );
    let fx = Fixture::new();
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(&inspector)
        .arg("--cli")
        .arg(common::binary("synapse-mcp"))
        .args(["--method", "tools/list", "--strict"])
        .arg("-e")
        .arg(format!("SYNAPSE_DATA={}", fx.data.display()))
        .arg("--cwd")
        .arg(&fx.project)
        .env("HOME", home.path())
        .output()
        .expect("run the MCP Inspector");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "mcp-inspector --cli --strict: {}\n{stdout}\n{stderr}",
        out.status
    );
    assert!(stderr.trim().is_empty(), "findings on stderr:\n{stderr}");
    let listed: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("the inspector printed no JSON ({e}): {stdout}"));
    let mut names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    names.sort();
    let mut expected = MCP_TOOLS.to_vec();
    expected.sort();
    assert_eq!(names, expected);
}

// ---------------------------------------------------------------------------------------------
// The plugin's launcher
// ---------------------------------------------------------------------------------------------

/// `bin/synapse-mcp` runs the built server, so the protocol goes through it untouched.
#[test]
fn the_launcher_runs_the_built_server() {
    let fx = Fixture::new();
    let launcher = Path::new(env!("CARGO_MANIFEST_DIR")).join("bin/synapse-mcp");
    let bin_dir = common::binary("synapse-mcp").parent().unwrap().to_owned();
    let mut command = Command::new(&launcher);
    command
        .env("SYNAPSE_DATA", &fx.data)
        .env("SYNAPSE_BIN_DIR", &bin_dir)
        .current_dir(&fx.project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("run bin/synapse-mcp");
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"t","version":"0"}}}}}}"#
    )
    .unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let answer: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("not one JSON-RPC answer ({e}): {stdout:?}"));
    assert_eq!(
        answer["result"]["serverInfo"]["name"], "synapse",
        "{answer}"
    );
}

/// Before the binaries are built, the launcher starts the build and says so on stderr only:
/// anything on stdout would break the client's connection.
#[test]
fn the_launcher_says_nothing_on_stdout_while_the_server_is_not_built() {
    let plugin = tempfile::tempdir().unwrap();
    let bin = plugin.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("bin");
    for name in ["synapse-mcp", "synapse-find"] {
        std::fs::copy(source.join(name), bin.join(name)).unwrap();
    }
    // A stand-in for the build that leaves a mark (and prints, as a real build does).
    let started = plugin.path().join("build-started");
    std::fs::write(
        bin.join("synapse-build"),
        format!("#!/bin/sh\necho building\ntouch '{}'\n", started.display()),
    )
    .unwrap();
    let chmod = Command::new("chmod")
        .arg("+x")
        .arg(bin.join("synapse-build"))
        .status()
        .unwrap();
    assert!(chmod.success());
    let data = plugin.path().join("data");
    let out = Command::new(bin.join("synapse-mcp"))
        .env_clear()
        // Its own bin/ first (it must not find itself there), then the system's.
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env("CLAUDE_PLUGIN_ROOT", plugin.path())
        .env("CLAUDE_PLUGIN_DATA", &data)
        .stdin(Stdio::null())
        .output()
        .expect("run the launcher");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        out.stdout.is_empty(),
        "stdout: {:?}",
        String::from_utf8_lossy(&out.stdout)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("being installed"), "{stderr}");
    let deadline = std::time::Instant::now() + ANSWER_WITHIN;
    while !started.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the build was not started"
        );
        thread::sleep(Duration::from_millis(20));
    }
}

// ---------------------------------------------------------------------------------------------
// What the hooks pay for
// ---------------------------------------------------------------------------------------------

/// The functions of `binary` that come from the server's crates.
fn server_functions(binary: &Path) -> Vec<String> {
    common::functions_naming(
        binary,
        &["tokio::", "rmcp::", "schemars::", "futures_util::"],
    )
}

/// The hook binaries link none of the MCP server's code: no function of tokio, rmcp, schemars or
/// futures is in them (the server itself has thousands, which shows the check can see them).
#[test]
fn the_hook_binaries_link_none_of_the_servers_crates() {
    let server = server_functions(&common::binary("synapse-mcp")).len();
    assert!(server > 100, "synapse-mcp has {server} such functions");
    for hook in common::HOOK_BINARIES {
        let found = server_functions(&common::binary(hook));
        assert!(
            found.is_empty(),
            "{hook} links functions of the server's crates: {found:#?}"
        );
    }
}
