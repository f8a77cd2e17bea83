//! The fixture most tests start from: a git repository on a branch and a data folder, in a
//! temporary folder under the build's own (a checkout under /tmp would be exempt from stale
//! checks), and the real binaries run over them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;
use tempfile::TempDir;

/// A repository (`repo/`, the commands' working folder) and a data folder (`data/`) side by
/// side in `root`, which a test may fill with anything else it needs.
pub struct Place {
    _dir: TempDir,
    pub root: PathBuf,
    pub repo: PathBuf,
    pub data: PathBuf,
}

impl Place {
    /// A fresh place whose repository is on `branch` with one empty commit.
    pub fn new(branch: &str) -> Place {
        let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let root = dir.path().canonicalize().unwrap();
        let repo = root.join("repo");
        super::git_repo(&repo, branch);
        Place {
            data: root.join("data"),
            repo,
            root,
            _dir: dir,
        }
    }

    /// A place on `main` whose repository holds one source file, `src/live.rs`, that a memory
    /// may name without going stale.
    pub fn with_live_file() -> Place {
        let place = Place::new("main");
        place.write("src/live.rs", "fn main() {}");
        place
    }

    /// A place on `feature/webhook-retries` whose repository changes `src/webhooks/retry.rs`
    /// (not committed), with its home folder made: the task a client's hooks read.
    pub fn on_webhook_retries() -> Place {
        let place = Place::new(super::client::BRANCH);
        place.write("src/webhooks/retry.rs", "pub const MAX: u32 = 5;\n");
        std::fs::create_dir_all(place.home()).unwrap();
        place
    }

    /// The repository's project key, as `--project` takes it.
    pub fn key(&self) -> &str {
        self.repo.to_str().unwrap()
    }

    /// The home folder the binaries run with (see `common::test_home`).
    pub fn home(&self) -> PathBuf {
        super::test_home(&self.data)
    }

    /// Write `text` to `relative` in the repository, making its folders; the file's path.
    pub fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.repo.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// Run `synapse args` in the repository, feeding it `stdin`.
    pub fn synapse(&self, args: &[&str], stdin: &[u8]) -> Output {
        self.synapse_in(&self.repo, args, stdin)
    }

    /// Run `synapse args` from `cwd`, feeding it `stdin`.
    pub fn synapse_in(&self, cwd: &Path, args: &[&str], stdin: &[u8]) -> Output {
        super::run_synapse(&self.data, cwd, args, stdin)
    }

    /// Run `synapse args` in the repository, expect success, and return standard output.
    pub fn text(&self, args: &[&str], stdin: &[u8]) -> String {
        let out = self.synapse(args, stdin);
        assert!(
            out.status.success(),
            "synapse {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Run `synapse args --json` in the repository, expect success, and parse what it printed.
    pub fn json(&self, args: &[&str], stdin: &[u8]) -> Value {
        self.json_in(&self.repo, args, stdin)
    }

    /// `json` from `cwd`.
    pub fn json_in(&self, cwd: &Path, args: &[&str], stdin: &[u8]) -> Value {
        let mut args = args.to_vec();
        args.push("--json");
        json_of(&args, &self.synapse_in(cwd, &args, stdin))
    }

    /// Run `synapse args` in the repository, expect exit 1 and a `synapse: ` message; the
    /// message.
    pub fn fail(&self, args: &[&str], stdin: &[u8]) -> String {
        let out = self.synapse(args, stdin);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "synapse {args:?}: {stderr}");
        assert!(stderr.starts_with("synapse: "), "message: {stderr}");
        stderr
    }

    /// Remember `text` in the repository's project; its id.
    pub fn remember_here(&self, text: &str) -> i64 {
        super::client::remember(&self.data, &self.repo, text)
    }

    /// The bodies of the project's live memories (with the global ones).
    pub fn bodies(&self) -> Vec<String> {
        super::project_bodies(&self.data, &self.repo)
    }

    /// The lines of `synapse.log`, where a hook says why it failed.
    pub fn log(&self) -> Vec<String> {
        std::fs::read_to_string(self.data.join("synapse.log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// Run hook `name` through its launcher, `bin/synapse-hook`, as a client's command line
    /// runs it (`args` after the name), from the repository, with the system's PATH and the
    /// binaries the tests run; feed it `stdin`.
    pub fn launch(&self, name: &str, args: &[&str], stdin: &[u8]) -> Output {
        let launcher = Path::new(env!("CARGO_MANIFEST_DIR")).join("bin/synapse-hook");
        let mut child = Command::new(launcher)
            .arg(name)
            .args(args)
            .current_dir(&self.repo)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", self.home())
            .env("SYNAPSE_DATA", &self.data)
            .env("SYNAPSE_BIN_DIR", super::bin_dir())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // A hook refusing its arguments exits before reading its payload: a broken pipe then
        // is the hook's answer, not the test's failure.
        if let Err(e) = std::io::Write::write_all(&mut child.stdin.take().unwrap(), stdin) {
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
        }
        child.wait_with_output().unwrap()
    }

    /// Run the hook binary `name` over the data folder with `payload` as its input.
    pub fn hook_output(&self, name: &str, payload: &Value) -> Output {
        super::run_hook(name, &self.data, payload.to_string().as_bytes(), &[])
    }

    /// `hook_output`, expecting the hook to succeed quietly and log nothing; what it printed.
    pub fn hook(&self, name: &str, payload: &Value) -> String {
        let out = self.hook_output(name, payload);
        assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
        let log = self.data.join("synapse.log");
        assert!(
            !log.exists(),
            "{name} failed: {}",
            std::fs::read_to_string(&log).unwrap()
        );
        String::from_utf8(out.stdout).unwrap()
    }
}

/// What `synapse args` printed as JSON, failing unless it succeeded.
pub fn json_of(args: &[&str], out: &Output) -> Value {
    assert!(
        out.status.success(),
        "synapse {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "synapse {args:?} printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}
