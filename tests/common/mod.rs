//! What the test files that drive the real binaries share: running `synapse`, a hook, and git,
//! and Claude Code's own memory beside a repository (`claude_memory`).
//! (Each test file compiles this module on its own and uses some of it.)
#![allow(dead_code)]

pub mod claude_memory;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Run the built `synapse` with `data` as its data folder, from `cwd`, feeding `stdin`.
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

pub fn run_synapse(data: &Path, cwd: &Path, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_synapse"))
        .args(args)
        .env("SYNAPSE_DATA", data)
        .env("HOME", test_home(data))
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CLAUDE_CODE_DISABLE_AUTO_MEMORY")
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

/// One of the built binaries (the hooks sit beside `synapse`).
pub fn binary(name: &str) -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_synapse"))
        .parent()
        .unwrap()
        .join(name)
}

/// Run the hook binary `name` over the data folder `data`, feeding it `stdin`, with the user's
/// own hook settings cleared and `env` set.
pub fn run_hook(name: &str, data: &Path, stdin: &[u8], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(binary(name));
    command
        .env("SYNAPSE_DATA", data)
        .env("HOME", test_home(data))
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CLAUDE_CODE_DISABLE_AUTO_MEMORY")
        .env_remove("SYNAPSE_BUDGET")
        .env_remove("SYNAPSE_SESSION_START")
        .env_remove("SYNAPSE_PROMPT_SUBMIT")
        .env_remove("SYNAPSE_STOP")
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

/// Make `dir` a git repository on branch `branch` with a first commit of what it holds.
pub fn git_repo(dir: &Path, branch: &str) {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q", "-b", branch]);
    git(dir, &["config", "user.email", "t@example.com"]);
    git(dir, &["config", "user.name", "t"]);
    git(dir, &["config", "commit.gpgsign", "false"]);
    git(dir, &["commit", "-q", "--allow-empty", "-m", "init"]);
}
