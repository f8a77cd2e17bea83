//! What the end-to-end tests of the real clients (Claude Code, Gemini CLI, Codex CLI) share:
//! finding a client, the task its sessions are about (a repository on a branch and the memories
//! about it), the workspace its runs happen in, and one run against a stand-in API
//! (`http::StandIn`), timed out and recorded for the assertions and for the failure's story.

use std::fmt;
use std::fs::{self, File};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use tempfile::TempDir;

use super::http::{Replies, Request, StandIn};

/// A memory about the branch's work, which SessionStart hands over.
pub const WEBHOOK: &str =
    "Webhook retries: 5 attempts with exponential backoff, see src/webhooks/retry.rs";
/// A memory about the prompts the tests ask, which the prompt hook hands over.
pub const IDEMPOTENCY: &str =
    "Idempotency keys are stored in the idempotency_keys table in Postgres, hashed with SHA-256";
/// A memory about neither.
pub const UNRELATED: &str = "The marketing site is deployed from the www repository by Netlify";
/// The branch the task's repository is on.
pub const BRANCH: &str = "feature/webhook-retries";

/// A client's executable: `variable`'s, else `program` as `.ci/test` installs it under `prefix`
/// (`package` names what it installs there, for the message). Its absence fails the test,
/// saying so: it is never skipped.
pub fn executable(variable: &str, prefix: &str, program: &str, package: &str) -> PathBuf {
    let path = match std::env::var_os(variable) {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(prefix)
            .join("node_modules/.bin")
            .join(program),
    };
    assert!(
        path.is_file(),
        "{program} not found at {}: this test runs the real client and cannot run without it; \
         run the README's test command (.ci/test), which installs {package} into {prefix}, or \
         set {variable}",
        path.display()
    );
    path
}

/// Fail unless every binary the launchers run (the hooks and the MCP server) is in the folder
/// they are pointed at (`SYNAPSE_BIN_DIR`): a missing one would make them start a background
/// build instead.
pub fn assert_built() {
    let bin_dir = super::bin_dir();
    for name in super::HOOK_BINARIES.iter().chain(&["synapse-mcp"]) {
        assert!(
            bin_dir.join(name).is_file(),
            "{name} is not in {}: cargo did not build it",
            bin_dir.display()
        );
    }
}

/// A command running `program` from `cwd` with none of the caller's environment but `PATH` and
/// `TMPDIR`, and nothing on its standard input: the test sets what the run is to see.
pub fn bare_command(program: &Path, cwd: &Path) -> Command {
    let mut command = Command::new(program);
    command.current_dir(cwd).env_clear().stdin(Stdio::null());
    for name in ["PATH", "TMPDIR"] {
        if let Some(value) = std::env::var_os(name) {
            command.env(name, value);
        }
    }
    command
}

/// Make `repo` the task's repository: on `BRANCH`, with `src/webhooks/retry.rs` committed (with
/// the files `committed`) and changed since, and the files `untracked` beside it.
pub fn task_repo(repo: &Path, committed: &[(&str, &str)], untracked: &[(&str, &str)]) {
    super::git_repo(repo, BRANCH);
    let write = |files: &[(&str, &str)]| {
        for (name, text) in files {
            let path = repo.join(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
    };
    write(&[(
        "src/webhooks/retry.rs",
        "pub const MAX_ATTEMPTS: u32 = 3;\n",
    )]);
    write(committed);
    super::git(repo, &["add", "."]);
    super::git(repo, &["commit", "-q", "-m", "retries"]);
    write(&[(
        "src/webhooks/retry.rs",
        "pub const MAX_ATTEMPTS: u32 = 5;\n",
    )]);
    write(untracked);
}

/// Remember `text` in the project of `repo` over the data folder `data`; its id.
pub fn remember(data: &Path, repo: &Path, text: &str) -> i64 {
    let args = [
        "remember",
        "--project",
        repo.to_str().unwrap(),
        "--json",
        text,
    ];
    let out = super::synapse_json(data, repo, &args);
    out["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("remember printed no id: {out}"))
}

/// Where client `C` runs against a stand-in API answering with scripted replies of type `R`: a
/// temporary folder holding the task's repository (`repo/`, which the test makes), the data
/// folder (`data/`), the home folder the CLI runs with (`common::test_home`), and each run's
/// output. A client's test file adds its runs as methods of its own `Workspace<Reply, Client>`.
pub struct Workspace<R, C> {
    pub dir: TempDir,
    pub repo: PathBuf,
    pub data: PathBuf,
    pub home: PathBuf,
    pub api: StandIn<R>,
    /// The client: its executable and what its runs need of it.
    pub client: C,
    /// How many runs have started.
    pub runs: usize,
}

impl<R: Send + 'static, C> Workspace<R, C> {
    /// A fresh workspace for `client`, whose stand-in answers with `answer`.
    pub fn start(
        answer: fn(&Request, &mut std::net::TcpStream, &Replies<R>) -> std::io::Result<()>,
        client: C,
    ) -> Workspace<R, C> {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let data = root.join("data");
        Workspace {
            repo: root.join("repo"),
            home: super::test_home(&data),
            data,
            dir,
            api: StandIn::start(answer),
            client,
            runs: 0,
        }
    }
}

impl<R, C> Workspace<R, C> {
    /// The repository's project key, as `--project` takes it.
    pub fn repo_arg(&self) -> &str {
        self.repo.to_str().unwrap()
    }

    /// Remember `text` in the repository's project; its id.
    pub fn remember(&self, text: &str) -> i64 {
        remember(&self.data, &self.repo, text)
    }

    /// The task's memories: `WEBHOOK`, `IDEMPOTENCY`, `UNRELATED`, in that order; `WEBHOOK`'s id.
    pub fn seed(&self) -> i64 {
        let webhook = self.remember(WEBHOOK);
        self.remember(IDEMPOTENCY);
        self.remember(UNRELATED);
        webhook
    }

    /// The bodies of the project's live memories.
    pub fn bodies(&self) -> Vec<String> {
        super::project_bodies(&self.data, &self.repo)
    }

    /// Fail unless the project holds the memory `body`, which `what` of `run` was to record.
    pub fn expect_recorded(&self, body: &str, what: &str, run: &impl fmt::Display) {
        let bodies = self.bodies();
        assert!(
            bodies.iter().any(|b| b == body),
            "{what} did not record {body:?}; the project holds {bodies:#?}\n{run}"
        );
    }

    /// Run `command`, the client, against the stand-in: in a process group of its own (the
    /// client starts hooks and servers, which a timed-out run must not leave behind), its output
    /// kept in the workspace's files `run-N.stdout` and `run-N.stderr`. `logs` reads the logs
    /// once it has ended. Fails, saying what the run did, when it takes longer than `timeout`.
    pub fn run<L>(
        &mut self,
        label: String,
        command: &mut Command,
        timeout: Duration,
        logs: impl FnOnce(&Self) -> L,
    ) -> Run<L>
    where
        Run<L>: fmt::Display,
    {
        self.runs += 1;
        let output = |stream| self.dir.path().join(format!("run-{}.{stream}", self.runs));
        let (stdout_path, stderr_path) = (output("stdout"), output("stderr"));
        let before = self.api.requests().len();
        command
            .stdout(File::create(&stdout_path).unwrap())
            .stderr(File::create(&stderr_path).unwrap())
            .process_group(0);
        let start = Instant::now();
        let mut child = command
            .spawn()
            .unwrap_or_else(|e| panic!("could not start {}: {e}", command.get_program().display()));
        let (status, timed_out) = super::wait_or_kill_group(&mut child, timeout);
        let run = Run {
            label,
            status,
            stdout: fs::read_to_string(&stdout_path).unwrap_or_default(),
            stderr: fs::read_to_string(&stderr_path).unwrap_or_default(),
            requests: self.api.requests()[before..].to_vec(),
            logs: logs(self),
            elapsed: start.elapsed(),
        };
        eprintln!(
            "{}: {} in {:?}, {} requests",
            run.label,
            run.status,
            run.elapsed,
            run.requests.len()
        );
        assert!(!timed_out, "{}: killed after {timeout:?}\n{run}", run.label);
        run
    }
}

/// What one run of a client did, with `logs`: what the test reads of the logs the run left
/// (the client's or Synapse's).
pub struct Run<L> {
    /// The client and what it was asked, for every failure's message.
    pub label: String,
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
    /// The requests the stand-in received during this run.
    pub requests: Vec<Request>,
    pub logs: L,
    pub elapsed: Duration,
}

impl<L> Run<L> {
    /// The first lines of the run's story: what ran, how it ended, what it printed, how many
    /// requests it sent. The client's own `Display` goes on with the requests.
    pub fn write_head(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "--- {}", self.label)?;
        writeln!(f, "--- exit: {} after {:?}", self.status, self.elapsed)?;
        writeln!(f, "--- stdout:\n{}", clip(self.stdout.trim_end(), 3000))?;
        writeln!(f, "--- stderr:\n{}", clip(self.stderr.trim_end(), 6000))?;
        writeln!(f, "--- requests: {}", self.requests.len())
    }
}

/// `s` cut after `max` characters, saying how long it was.
pub fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}… ({} bytes)", &s[..i], s.len()),
        None => s.to_owned(),
    }
}
