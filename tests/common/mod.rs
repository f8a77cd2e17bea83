//! What the test files that drive the real binaries share: running `synapse`, a hook, and git,
//! here; the fixture most tests start from (`place`); Claude Code's own memory beside a
//! repository (`claude_memory`); the real clients' runs (`client`) against stand-in model APIs
//! (`http`); the release archive (`release`); a terminal in tmux (`tmux`).
//! (`store_machine.rs`, a test binary of its own, compiles this module too and uses little of
//! it.)
#![allow(dead_code)]

pub mod claude_memory;
pub mod client;
pub mod http;
pub mod place;
pub mod release;
pub mod tmux;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The MCP server's tools, in the order `tools/list` gives them.
pub const MCP_TOOLS: [&str; 7] = [
    "recall",
    "readmemory",
    "remember",
    "supersede",
    "forget",
    "restore",
    "drift",
];

/// Run the built `synapse` with `data` as its data folder, from `cwd`, feeding `stdin`.
pub fn run_synapse(data: &Path, cwd: &Path, args: &[&str], stdin: &[u8]) -> Output {
    run_synapse_with(data, cwd, args, stdin, &[])
}

/// `run_synapse` with the variables `env` set as well (over the ones it sets itself).
pub fn run_synapse_with(
    data: &Path,
    cwd: &Path,
    args: &[&str],
    stdin: &[u8],
    env: &[(&str, &str)],
) -> Output {
    let mut child = Command::new(binary("synapse"))
        .args(args)
        // The launcher's places to look, as doctor checks them: only what a test sets.
        .env_remove("SYNAPSE_BIN_DIR")
        .env_remove("CLAUDE_PLUGIN_DATA")
        .env("SYNAPSE_DATA", data)
        .env("HOME", test_home(data))
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CLAUDE_CODE_DISABLE_AUTO_MEMORY")
        // Last, so a test's own HOME or data folder wins.
        .envs(env.iter().copied())
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run synapse");
    let mut pipe = child.stdin.take().unwrap();
    pipe.write_all(stdin).unwrap();
    drop(pipe);
    child.wait_with_output().unwrap()
}

/// The home folder the binaries run with over the data folder `data`: an empty one of its own,
/// so the machine's `~/.claude` (its memory files and `CLAUDE.md`) never reaches a test. A test
/// that wants Claude Code's files writes them there (or passes its own `HOME` in `env`).
pub fn test_home(data: &Path) -> PathBuf {
    data.with_file_name(format!(
        "{}-home",
        data.file_name()
            .map_or("data".into(), |n| n.to_string_lossy())
    ))
}

/// The folder of the binaries the tests run: `SYNAPSE_TEST_BINARIES` when set (`.ci/run` points
/// it at the release build, the binaries it ships), else the ones cargo built with the tests.
pub fn bin_dir() -> PathBuf {
    match std::env::var_os("SYNAPSE_TEST_BINARIES").filter(|d| !d.is_empty()) {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            assert!(
                dir.join("synapse").is_file(),
                "SYNAPSE_TEST_BINARIES is {}, which holds no synapse binary",
                dir.display()
            );
            dir
        }
        None => cargo_built_dir(),
    }
}

/// The folder of the binaries cargo built with the tests (a debug build, unless `--release`).
pub fn cargo_built_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_synapse"))
        .parent()
        .unwrap()
        .to_owned()
}

/// One of the binaries the tests run (the hooks sit beside `synapse`).
pub fn binary(name: &str) -> PathBuf {
    bin_dir().join(name)
}

/// The model's context in what a Claude Code hook printed: plain output as it is, or, when the
/// hook printed JSON beside the person's line, its `additionalContext` with the last newline
/// the JSON leaves off (see `plugin::hook`).
pub fn context_of(printed: &str) -> String {
    if !printed.starts_with('{') {
        return printed.to_owned();
    }
    let value: serde_json::Value = serde_json::from_str(printed).expect("a hook's JSON parses");
    value["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .map_or(String::new(), |c| format!("{c}\n"))
}

/// The context a hook's stdout hands a client that takes JSON (Gemini CLI, Codex CLI) for
/// `event`; fails unless stdout is that JSON alone, for that event.
pub fn hook_context(stdout: &str, event: &str) -> String {
    let value: serde_json::Value = serde_json::from_str(stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON alone ({e}): {stdout:?}"));
    assert_eq!(
        value["hookSpecificOutput"]["hookEventName"], event,
        "{value}"
    );
    value["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_else(|| panic!("no additionalContext: {value}"))
        .to_owned()
}

/// Run the hook binary `name` over the data folder `data`, feeding it `stdin`, with the user's
/// own hook settings cleared and `env` set.
pub fn run_hook(name: &str, data: &Path, stdin: &[u8], env: &[(&str, &str)]) -> Output {
    // Only a debug build reads the switch that makes a hook panic: cargo's own, whatever the
    // other tests run.
    let program = if env.iter().any(|(k, _)| *k == "SYNAPSE_TEST_PANIC") {
        cargo_built_dir().join(name)
    } else {
        binary(name)
    };
    let mut command = Command::new(program);
    command
        .env("SYNAPSE_DATA", data)
        .env("HOME", test_home(data))
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CLAUDE_CODE_DISABLE_AUTO_MEMORY")
        .env_remove("SYNAPSE_BUDGET")
        .env_remove("SYNAPSE_SESSION_START")
        .env_remove("SYNAPSE_PROMPT_SUBMIT")
        .env_remove("SYNAPSE_STOP")
        .env_remove("SYNAPSE_COMPACT")
        .env_remove("SYNAPSE_NOTICE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command.spawn().unwrap();
    let mut pipe = child.stdin.take().unwrap();
    // A hook may stop reading early (a payload over its limit); that is not the test's failure.
    if let Err(e) = pipe.write_all(stdin) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe);
    }
    drop(pipe);
    child.wait_with_output().unwrap()
}

/// Run git in `dir`; it must succeed.
pub fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// The hook binaries beside `synapse`, one per kind of hook.
pub const HOOK_BINARIES: [&str; 5] = [
    "synapse-session-start",
    "synapse-prompt-submit",
    "synapse-stop",
    "synapse-compact",
    "synapse-instructions-loaded",
];

/// The functions in `binary`'s symbol table (demangled) that name any of `paths` (`"tokio::"`),
/// each as `nm` prints it. Drop glue (`core::ptr::drop_in_place<T>`) is left out: the compiler
/// makes it for a type wherever the type is dropped, and without LTO across crates (CI's release
/// build) a few stay linked beside the library code that shares their unit; it frees memory and
/// runs none of the crate's code.
pub fn functions_naming(binary: &Path, paths: &[&str]) -> Vec<String> {
    let out = Command::new("nm")
        .args(["--demangle", "--defined-only"])
        .arg(binary)
        .output()
        .unwrap_or_else(|e| panic!("nm (binutils) is needed to read symbol tables: {e}"));
    assert!(out.status.success(), "nm {}: {out:?}", binary.display());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|line| {
            let mut fields = line.splitn(3, ' ').skip(1);
            let (kind, name) = (fields.next().unwrap_or(""), fields.next().unwrap_or(""));
            matches!(kind, "T" | "t" | "W" | "w")
                && !name.starts_with("core::ptr::drop_in_place<")
                && paths.iter().any(|path| name.contains(path))
        })
        .map(str::to_owned)
        .collect()
}

/// Make `dir` a git repository on branch `branch` with a first commit of what it holds.
pub fn git_repo(dir: &Path, branch: &str) {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q", "-b", branch]);
    git(dir, &["config", "user.email", "t@example.com"]);
    git(dir, &["config", "user.name", "t"]);
    git(dir, &["config", "commit.gpgsign", "false"]);
    git(dir, &["commit", "-q", "--allow-empty", "-m", "init"]);
}

/// Record this checkout as Claude Code's installed plugin `synapse@synapse` in the home folder
/// `home`, the way `claude plugin install` does (the records `synapse doctor` reads:
/// src/cmd/doctor/wiring.rs): a copy of its launchers in the client's plugin cache, and the built
/// binaries in the plugin's data folder, where `bin/synapse-build` puts them. `enabled` is what
/// `enabledPlugins` says.
pub fn install_plugin(home: &Path, enabled: bool) {
    let config = home.join(".claude");
    let plugins = config.join("plugins");
    let root = plugins.join(concat!("cache/synapse/synapse/", env!("CARGO_PKG_VERSION")));
    std::fs::create_dir_all(root.join("bin")).unwrap();
    for launcher in [
        "synapse-hook",
        "synapse-mcp",
        "synapse-find",
        "synapse-build",
    ] {
        let from = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("bin")
            .join(launcher);
        std::fs::copy(from, root.join("bin").join(launcher)).unwrap();
    }
    // Where the launchers install the binaries (`synapse_data` in bin/synapse-find).
    let bin = home.join(".local/share/synapse-plugin/bin");
    std::fs::create_dir_all(&bin).unwrap();
    for name in HOOK_BINARIES.iter().chain(&["synapse-mcp"]) {
        let link = bin.join(name);
        if !link.exists() {
            std::os::unix::fs::symlink(binary(name), link).unwrap();
        }
    }
    let record = serde_json::json!({
        "version": 2,
        "plugins": {"synapse@synapse": [{
            "scope": "user",
            "installPath": root,
            "version": env!("CARGO_PKG_VERSION"),
        }]},
    });
    std::fs::write(plugins.join("installed_plugins.json"), record.to_string()).unwrap();
    let settings = config.join("settings.json");
    let mut value: serde_json::Value = std::fs::read(&settings)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_else(|| serde_json::json!({}));
    value["enabledPlugins"]["synapse@synapse"] = serde_json::json!(enabled);
    std::fs::write(&settings, value.to_string()).unwrap();
}

/// Fail unless no folder of `path` (a PATH) holds `cargo` or `rustc`: the tests of a machine
/// without Rust need one.
pub fn assert_no_rust(path: &str) {
    for dir in path.split(':') {
        for tool in ["cargo", "rustc"] {
            assert!(
                !Path::new(dir).join(tool).exists(),
                "{dir}/{tool} exists: this test needs a PATH without Rust"
            );
        }
    }
}

/// What a plugin install carries of this checkout (the client copies the folder; a copy of these
/// stands for it without `target/`).
pub const PLUGIN_FOLDERS: [&str; 4] = [".claude-plugin", "hooks", "commands", "bin"];

/// A copy of this checkout's `folders` under `to` (e.g. `PLUGIN_FOLDERS`).
pub fn copy_checkout(folders: &[&str], to: &Path) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for folder in folders {
        copy_folder(&root.join(folder), &to.join(folder));
    }
}

/// A copy of `from` at `to`, file modes kept (the launchers must stay executable).
pub fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_folder(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// The Claude Code client an end-to-end test runs: the pinned one (`SYNAPSE_CLAUDE` or
/// `.ci/node`) or the newest (`SYNAPSE_CLAUDE_NEWEST` or `.ci/node-newest`), as `.ci/test`
/// installs them. Its absence fails the test, saying so: it is never skipped.
pub fn claude_client(newest: bool) -> PathBuf {
    let (variable, prefix, which) = if newest {
        ("SYNAPSE_CLAUDE_NEWEST", ".ci/node-newest", "newest")
    } else {
        ("SYNAPSE_CLAUDE", ".ci/node", "pinned")
    };
    let package = format!("the {which} Claude Code client");
    client::executable(variable, prefix, "claude", &package)
}

/// `synapse ARGS` over the data folder `data`, run from `cwd`: what it printed, as JSON. Fails,
/// saying why, unless it succeeds and prints JSON.
pub fn synapse_json(data: &Path, cwd: &Path, args: &[&str]) -> serde_json::Value {
    place::json_of(args, &run_synapse(data, cwd, args, b""))
}

/// The bodies of the live memories of the project at `repo` (with the global ones).
pub fn project_bodies(data: &Path, repo: &Path) -> Vec<String> {
    let project = repo.to_str().unwrap();
    let listed = synapse_json(data, repo, &["list", "--json", "--project", project]);
    listed["memories"]
        .as_array()
        .unwrap_or_else(|| panic!("list printed no memories: {listed}"))
        .iter()
        .filter_map(|m| m["body"].as_str().map(str::to_owned))
        .collect()
}

/// The ids of the `results` of a recall's JSON answer (the CLI's or the MCP tool's), in order.
pub fn result_ids(found: &serde_json::Value) -> Vec<i64> {
    found["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results: {found}"))
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect()
}

/// The supersede actions of a memory's `history --json`, each naming the memory that replaced
/// it (`other_id`).
pub fn supersedes(history: &serde_json::Value) -> Vec<serde_json::Value> {
    history["history"]
        .as_array()
        .unwrap_or_else(|| panic!("no history: {history}"))
        .iter()
        .filter(|e| e["action"] == "supersede")
        .map(|e| e["other_id"].clone())
        .collect()
}

/// Every file under `dir`, recursively (a link is listed, not followed); none when it is
/// missing.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            files.extend(files_under(&entry.path()));
        } else {
            files.push(entry.path());
        }
    }
    files
}

/// Every file named `name` under `dir`.
pub fn files_named(dir: &Path, name: &str) -> Vec<PathBuf> {
    let mut files = files_under(dir);
    files.retain(|f| f.file_name().is_some_and(|n| n == name));
    files
}

/// A command running the shell command line `line` on a terminal of its own (util-linux
/// `script`), for what asks its questions only on a terminal (`typed` answers them).
pub fn on_a_terminal(line: &str) -> Command {
    let mut command = Command::new("script");
    command.args(["-qec", line, "/dev/null"]);
    command
}

/// Run `command`, typing `typed` on its standard input; what it printed.
pub fn typed(command: &mut Command, typed: &str) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("could not run {:?}: {e}", command.get_program()));
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(typed.as_bytes()).unwrap();
    drop(stdin);
    child.wait_with_output().unwrap()
}

/// Wait for `child`, started in a process group of its own, at most `timeout`; past it, kill the
/// whole group (a client's hooks and servers with it). Its exit status, and whether it was
/// killed.
pub fn wait_or_kill_group(
    child: &mut std::process::Child,
    timeout: std::time::Duration,
) -> (std::process::ExitStatus, bool) {
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return (status, false);
        }
        if start.elapsed() > timeout {
            let group = format!("-{}", child.id());
            let killed = Command::new("kill")
                .args(["-KILL", "--", &group])
                .status()
                .expect("run kill");
            assert!(killed.success(), "could not kill process group {group}");
            return (child.wait().unwrap(), true);
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
