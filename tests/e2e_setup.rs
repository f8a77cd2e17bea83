//! End to end, `synapse setup` in each real client: in a fresh HOME, and in one holding the
//! user's own entries, setup runs twice from a copy of the checkout, the client itself lists
//! what it wired (`claude plugin list`, `gemini extensions list`, Codex's `hooks/list` and
//! `codex mcp list`), and `--undo` leaves the client's config files as they were, byte for byte.
//! For Codex, hooks trusted by `--trust` run in `codex exec` (against a stand-in Responses API on
//! 127.0.0.1) and untrusted ones are skipped.
//!
//! The clients: Claude Code from `.ci/node` (`SYNAPSE_CLAUDE`), Gemini CLI from `.ci/gemini`
//! (`SYNAPSE_GEMINI`), Codex CLI from `.ci/codex` (`SYNAPSE_CODEX`). A plain `cargo test` lists
//! these tests as ignored; the README's test command (`.ci/test`) runs them.

use crate::common;

use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead as _, BufReader, Write as _};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{client, http};
use serde_json::{json, Value};

/// Codex CLI's version the facts were measured with (`.ci/test` installs it).
const CODEX: &str = "0.171.0";
/// The system's folders: no Synapse there, nor Rust.
const SYSTEM_PATH: &str = "/usr/bin:/bin";

/// A person's machine: a HOME, a copy of the Synapse checkout, a data folder.
struct Machine {
    dir: tempfile::TempDir,
    /// The folder of the client's executable, first on PATH.
    client_dir: PathBuf,
}

impl Machine {
    fn new(client: &Path) -> Machine {
        let dir = tempfile::tempdir().unwrap();
        let mut folders = common::PLUGIN_FOLDERS.to_vec();
        folders.push("gemini");
        common::copy_checkout(&folders, &dir.path().join("synapse"));
        fs::create_dir_all(dir.path().join("home")).unwrap();
        Machine {
            dir,
            client_dir: client.parent().unwrap().to_owned(),
        }
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn checkout(&self) -> PathBuf {
        self.dir.path().join("synapse")
    }

    fn path(&self) -> String {
        format!("{}:{SYSTEM_PATH}", self.client_dir.display())
    }

    /// `synapse ARGS` from the checkout, as the person runs it there.
    fn synapse(&self, args: &[&str]) -> String {
        let out = Command::new(env!("CARGO_BIN_EXE_synapse"))
            .args(args)
            .env_clear()
            .env("HOME", self.home())
            .env("PATH", self.path())
            .env("SYNAPSE_DATA", self.dir.path().join("data"))
            .current_dir(self.checkout())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "synapse {args:?} failed: {text}");
        eprintln!("synapse {args:?}:\n{text}");
        text
    }

    /// A client's command in this HOME; it must succeed.
    fn run(&self, program: &Path, args: &[&str]) -> String {
        let out = self.command(program, args).output().unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "{program:?} {args:?} failed: {text}");
        text
    }

    /// A client's command's standard output (for JSON); it must succeed.
    fn stdout(&self, program: &Path, args: &[&str]) -> String {
        let out = self.command(program, args).output().unwrap();
        assert!(out.status.success(), "{program:?} {args:?} failed: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    }

    fn command(&self, program: &Path, args: &[&str]) -> Command {
        let mut command = Command::new(program);
        command
            .args(args)
            .env_clear()
            .env("HOME", self.home())
            .env("PATH", self.path())
            .current_dir(self.home())
            .stdin(Stdio::null());
        command
    }

    /// The bytes of each file, `None` for one that is not there.
    fn snapshot(&self, files: &[&str]) -> BTreeMap<String, Option<Vec<u8>>> {
        files
            .iter()
            .map(|f| (f.to_string(), fs::read(self.home().join(f)).ok()))
            .collect()
    }

    fn write(&self, file: &str, text: &str) {
        let path = self.home().join(file);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
}

/// Setup twice (the second changes nothing), `check` what the client lists, undo, and compare
/// the client's config files with how they were.
fn twice_then_undo(machine: &Machine, client: &str, files: &[&str], check: impl Fn(&Machine)) {
    let before = machine.snapshot(files);
    let first = machine.synapse(&["setup", client]);
    assert!(first.contains("changed: "), "{first}");
    let wired = machine.snapshot(files);
    assert_ne!(before, wired, "setup changed none of {files:?}");
    let second = machine.synapse(&["setup", client]);
    assert!(
        second.contains("is wired already: nothing changed"),
        "{second}"
    );
    assert_eq!(
        wired,
        machine.snapshot(files),
        "the second setup changed a file"
    );
    check(machine);
    let undone = machine.synapse(&["setup", "--undo", client]);
    assert!(!undone.contains("changed since setup"), "{undone}");
    let after = machine.snapshot(files);
    for (file, was) in &before {
        assert!(
            after[file] == *was,
            "{file} is not as before setup:\nbefore: {:?}\nafter:  {:?}",
            was.as_deref().map(String::from_utf8_lossy),
            after[file].as_deref().map(String::from_utf8_lossy)
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Claude Code
// ---------------------------------------------------------------------------------------------

const CLAUDE_FILES: [&str; 4] = [
    ".claude/settings.json",
    ".claude/plugins/installed_plugins.json",
    ".claude/plugins/known_marketplaces.json",
    ".claude.json",
];

fn claude_lists_the_plugin(machine: &Machine) {
    let claude = common::claude_client(false);
    let list = machine.run(&claude, &["plugin", "list"]);
    assert!(list.contains("synapse@synapse"), "{list}");
    assert!(list.contains("enabled"), "{list}");
}

#[test]
#[ignore = "runs the real Claude Code client; .ci/test runs it"]
fn claude_setup_in_a_fresh_home_twice_then_undo() {
    let claude = common::claude_client(false);
    let machine = Machine::new(&claude);
    twice_then_undo(&machine, "claude", &CLAUDE_FILES, claude_lists_the_plugin);
}

#[test]
#[ignore = "runs the real Claude Code client; .ci/test runs it"]
fn claude_setup_keeps_the_users_own_settings_and_mcp_server() {
    let claude = common::claude_client(false);
    let machine = Machine::new(&claude);
    machine.write(
        ".claude/settings.json",
        "{\n  \"env\": {\"MAKEFLAGS\": \"-j2\"},\n  \"permissions\": {\"allow\": [\"Bash(make:*)\"]}\n}\n",
    );
    machine.write(
        ".claude.json",
        "{\"mcpServers\": {\"docs\": {\"type\": \"stdio\", \"command\": \"docs-mcp\", \"args\": []}}}",
    );
    let check = |machine: &Machine| {
        claude_lists_the_plugin(machine);
        let settings: Value = serde_json::from_slice(
            &fs::read(machine.home().join(".claude/settings.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(settings["env"]["MAKEFLAGS"], "-j2", "{settings}");
        assert_eq!(settings["permissions"]["allow"][0], "Bash(make:*)");
        let list = machine.run(&claude, &["mcp", "list"]);
        assert!(list.contains("docs"), "{list}");
    };
    twice_then_undo(&machine, "claude", &CLAUDE_FILES, check);
}

// ---------------------------------------------------------------------------------------------
// Gemini CLI
// ---------------------------------------------------------------------------------------------

const GEMINI_FILES: [&str; 5] = [
    ".gemini/settings.json",
    ".gemini/trustedFolders.json",
    ".gemini/extension_integrity.json",
    ".gemini/extensions/extension-enablement.json",
    ".gemini/extensions/synapse/.gemini-extension-install.json",
];

fn gemini() -> PathBuf {
    client::executable("SYNAPSE_GEMINI", ".ci/gemini", "gemini", "Gemini CLI")
}

fn gemini_lists_the_extension(machine: &Machine) {
    let list = machine.run(&gemini(), &["extensions", "list"]);
    assert!(list.contains("synapse"), "{list}");
    assert!(
        list.contains(&machine.checkout().join("gemini").display().to_string()),
        "{list}"
    );
}

#[test]
#[ignore = "runs the real Gemini CLI; .ci/test runs it"]
fn gemini_setup_in_a_fresh_home_twice_then_undo() {
    let machine = Machine::new(&gemini());
    twice_then_undo(
        &machine,
        "gemini",
        &GEMINI_FILES,
        gemini_lists_the_extension,
    );
}

#[test]
#[ignore = "runs the real Gemini CLI; .ci/test runs it"]
fn gemini_setup_keeps_the_users_own_mcp_server() {
    let machine = Machine::new(&gemini());
    machine.write(
        ".gemini/settings.json",
        "{\n  // mine\n  \"mcpServers\": {\"docs\": {\"command\": \"docs-mcp\"}}\n}\n",
    );
    let check = |machine: &Machine| {
        gemini_lists_the_extension(machine);
        let settings = fs::read_to_string(machine.home().join(".gemini/settings.json")).unwrap();
        assert!(settings.contains("\"docs\""), "{settings}");
    };
    twice_then_undo(&machine, "gemini", &GEMINI_FILES, check);
}

// ---------------------------------------------------------------------------------------------
// Codex CLI
// ---------------------------------------------------------------------------------------------

const CODEX_FILES: [&str; 2] = [".codex/config.toml", ".codex/hooks.json"];
/// The user's own config: a comment, a model provider (the stand-in API's, filled in), their
/// own MCP server and their own hook.
const USERS_CODEX_CONFIG: &str = r#"# my Codex settings
model = "gpt-5"   # the one we pay for
model_provider = "standin"
check_for_update_on_startup = false

[model_providers.standin]
name = "stand-in"
base_url = "BASE_URL/v1"
env_key = "STANDIN_KEY"
wire_api = "responses"

[projects."REPO"]
trust_level = "trusted"

[mcp_servers.docs]
command = "docs-mcp"

[[hooks.SessionStart]]
hooks = [{ type = "command", command = "echo mine", timeout = 5 }]
"#;

fn codex() -> PathBuf {
    client::executable("SYNAPSE_CODEX", ".ci/codex", "codex", "Codex CLI")
}

/// What Codex's app server reports for the hooks of a session in `cwd` (`hooks/list`).
fn codex_hooks(machine: &Machine, cwd: &Path) -> Vec<Value> {
    let mut child = machine
        .command(&codex(), &["app-server"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut answer = |id: i64, messages: &[Value]| -> Value {
        for message in messages {
            writeln!(stdin, "{message}").unwrap();
        }
        loop {
            let line = lines
                .next()
                .unwrap_or_else(|| panic!("Codex CLI ({CODEX}) app-server ended"))
                .unwrap();
            let reply: Value = serde_json::from_str(&line).unwrap();
            if reply["id"] == id {
                return reply;
            }
        }
    };
    answer(
        1,
        &[json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                 "params": {"clientInfo": {"name": "synapse-test", "version": "0"}}})],
    );
    let reply = answer(
        2,
        &[
            json!({"jsonrpc": "2.0", "method": "initialized"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [cwd]}}),
        ],
    );
    let _ = child.kill();
    let _ = child.wait();
    reply["result"]["data"][0]["hooks"]
        .as_array()
        .unwrap_or_else(|| panic!("Codex CLI ({CODEX}): no hooks in {reply}"))
        .clone()
}

/// Synapse's five hooks as Codex lists them, each with its trust status.
fn synapse_hooks(machine: &Machine, cwd: &Path) -> Vec<(String, String)> {
    codex_hooks(machine, cwd)
        .iter()
        .filter(|h| h["command"].as_str().unwrap_or("").contains("synapse-hook"))
        .map(|h| {
            (
                h["command"].as_str().unwrap().to_owned(),
                h["trustStatus"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

fn codex_lists_the_server(machine: &Machine) {
    let list = machine.stdout(&codex(), &["mcp", "list", "--json"]);
    let servers: Value = serde_json::from_str(&list).unwrap();
    let synapse = servers
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "synapse")
        .unwrap_or_else(|| panic!("Codex CLI ({CODEX}) lists no synapse server: {list}"));
    assert_eq!(
        synapse["transport"]["command"],
        machine
            .checkout()
            .join("bin/synapse-mcp")
            .display()
            .to_string()
    );
}

#[test]
#[ignore = "runs the real Codex CLI; .ci/test runs it"]
fn codex_setup_in_a_fresh_home_twice_then_undo() {
    let machine = Machine::new(&codex());
    let check = |machine: &Machine| {
        codex_lists_the_server(machine);
        let hooks = synapse_hooks(machine, &machine.home());
        assert_eq!(hooks.len(), 5, "Codex CLI ({CODEX}) lists {hooks:?}");
        assert!(
            hooks.iter().all(|(_, trust)| trust == "untrusted"),
            "{hooks:?}"
        );
    };
    twice_then_undo(&machine, "codex", &CODEX_FILES, check);
}

#[test]
#[ignore = "runs the real Codex CLI; .ci/test runs it"]
fn codex_setup_keeps_the_users_own_hook_and_mcp_server() {
    let machine = Machine::new(&codex());
    machine.write(".codex/config.toml", USERS_CODEX_CONFIG);
    let check = |machine: &Machine| {
        codex_lists_the_server(machine);
        let list = machine.stdout(&codex(), &["mcp", "list", "--json"]);
        assert!(list.contains("\"docs\""), "{list}");
        let hooks = codex_hooks(machine, &machine.home());
        assert!(
            hooks.iter().any(|h| h["command"] == "echo mine"),
            "Codex CLI ({CODEX}) lost the user's hook: {hooks:?}"
        );
        let config = fs::read_to_string(machine.home().join(".codex/config.toml")).unwrap();
        assert!(
            config.starts_with("# my Codex settings\nmodel = \"gpt-5\"   # the one we pay for\n"),
            "{config}"
        );
    };
    twice_then_undo(&machine, "codex", &CODEX_FILES, check);
}

/// `--trust` records the hooks as Codex does: its `hooks/list` calls all five trusted, and in a
/// `codex exec` session the trusted SessionStart hook runs (the launcher's line reaches the
/// model's request: with no binaries on this machine it says it starts their download); without
/// `--trust` the same hooks are skipped. The undo then leaves the config as before.
#[test]
#[ignore = "runs the real Codex CLI; .ci/test runs it"]
fn codex_runs_the_hooks_setup_trusted_and_skips_untrusted_ones() {
    let machine = Machine::new(&codex());
    let api = http::Server::start("stand-in Responses API", |request, out| {
        if request.method != "POST" {
            return out.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
        }
        write_response(out)
    });
    let repo = machine.dir.path().join("repo");
    fs::create_dir_all(&repo).unwrap();
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repo)
        .status();
    assert!(git.unwrap().success());
    machine.write(
        ".codex/config.toml",
        &USERS_CODEX_CONFIG
            .replace("BASE_URL", &api.base_url())
            .replace("REPO", &repo.display().to_string()),
    );
    let before = machine.snapshot(&CODEX_FILES);
    // Nothing to download from: the launcher's install fails at once, offline.
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let release = format!("http://127.0.0.1:{}", closed.local_addr().unwrap().port());
    drop(closed);
    let session = |machine: &Machine| -> String {
        let seen = api.requests().len();
        let out: Output = machine
            .command(&codex(), &["exec", "--skip-git-repo-check", "say hi"])
            // The MCP server's launcher would start the same download: off for this run.
            .args(["-c", "mcp_servers.synapse.enabled=false"])
            .current_dir(&repo)
            .env("STANDIN_KEY", "test-key")
            .env("SYNAPSE_RELEASE_URL", &release)
            .env("SYNAPSE_DATA", machine.dir.path().join("data"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "Codex CLI ({CODEX}) failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let requests = api.requests();
        assert!(
            requests.len() > seen,
            "Codex CLI ({CODEX}) made no model call"
        );
        requests[seen..]
            .iter()
            .map(|r| r.body.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    };

    machine.synapse(&["setup", "codex"]);
    let hooks = synapse_hooks(&machine, &repo);
    assert!(hooks.iter().all(|(_, t)| t == "untrusted"), "{hooks:?}");
    let untrusted = session(&machine);
    assert!(
        !untrusted.contains("Synapse: downloading its binaries"),
        "Codex CLI ({CODEX}) ran an untrusted hook"
    );

    let trusted = machine.synapse(&["setup", "codex", "--trust"]);
    assert!(trusted.contains("trusted Synapse's 5 hooks"), "{trusted}");
    let hooks = synapse_hooks(&machine, &repo);
    assert_eq!(hooks.len(), 5, "{hooks:?}");
    assert!(
        hooks.iter().all(|(_, t)| t == "trusted"),
        "Codex CLI ({CODEX}) does not take Synapse's trust record: {hooks:?}"
    );
    let ran = session(&machine);
    assert!(
        ran.contains("Synapse: downloading its binaries"),
        "Codex CLI ({CODEX}) skipped the trusted SessionStart hook: {ran}"
    );

    machine.synapse(&["setup", "--undo", "codex"]);
    assert_eq!(before, machine.snapshot(&CODEX_FILES));
}

/// A streamed Responses API answer "ok".
fn write_response(out: &mut impl std::io::Write) -> std::io::Result<()> {
    let item = json!({"type": "message", "id": "msg_1", "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "ok", "annotations": []}]});
    let usage = json!({"input_tokens": 1, "output_tokens": 1, "total_tokens": 2,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens_details": {"reasoning_tokens": 0}});
    let events = [
        json!({"type": "response.created",
               "response": {"id": "resp_1", "object": "response", "status": "in_progress",
                            "output": []}}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        json!({"type": "response.completed",
               "response": {"id": "resp_1", "object": "response", "status": "completed",
                            "output": [item], "usage": usage}}),
    ];
    http::write_events(out, &events)
}

/// Setup's crates (`toml_edit`, `sha2`) and its code are linked into `synapse` only: a hook
/// binary pays nothing for them.
#[test]
fn the_hook_binaries_link_none_of_setup() {
    let setup = ["toml_edit::", "sha2::", "synapse::setup::"];
    for hook in common::HOOK_BINARIES {
        let found = common::functions_naming(&common::binary(hook), &setup);
        assert!(
            found.is_empty(),
            "{hook} links setup's functions: {found:#?}"
        );
    }
    let found = common::functions_naming(&common::binary("synapse"), &["synapse::setup::"]);
    assert!(!found.is_empty(), "the check looks for the wrong names");
}

/// On a terminal, a Codex setup without `--trust` asks, and `y` records the trust; any other
/// answer leaves the hooks untrusted and the one line saying how. (`script` gives the command a
/// terminal; no client is needed: setup writes Codex's file itself.)
#[test]
fn on_a_terminal_codex_setup_asks_before_trusting() {
    for (answer, trusted) in [("y\n", true), ("\n", false)] {
        let machine = Machine::new(Path::new("/usr/bin/script"));
        let line = format!(
            "'{}' setup codex",
            env!("CARGO_BIN_EXE_synapse").replace('\'', r"'\''")
        );
        let mut terminal = common::on_a_terminal(&line);
        terminal
            .env_clear()
            .env("HOME", machine.home())
            .env("PATH", SYSTEM_PATH)
            .env("SYNAPSE_DATA", machine.dir.path().join("data"))
            .current_dir(machine.checkout());
        let out = common::typed(&mut terminal, answer);
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{said}");
        assert!(
            said.contains("Trust Synapse's hooks in Codex now"),
            "{said}"
        );
        let config = fs::read_to_string(machine.home().join(".codex/config.toml")).unwrap();
        assert_eq!(
            config.matches("trusted_hash = ").count(),
            if trusted { 5 } else { 0 },
            "answer {answer:?}: {said}\n{config}"
        );
        assert_eq!(
            said.contains("trusted Synapse's 5 hooks"),
            trusted,
            "{said}"
        );
    }
}
