//! The plugin's POSIX launchers in bin/, run as the clients run them, without a client: one
//! install of the binaries that every launcher finds (a Claude Code hook, a slash command's shell
//! line, the person's shell), a failed install tried again once a session, and the release
//! archive packed from where cargo built. A copy of the plugin's files stands for an installed
//! plugin (no `target/`), on a PATH without Rust; release files are served on 127.0.0.1.

use crate::common;

use std::collections::HashMap;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use common::{http, release};

/// The system's folders, checked to hold no Rust toolchain.
const SYSTEM_PATH: &str = "/usr/bin:/bin";
/// How long a background install may take.
const INSTALL_TIMEOUT: Duration = Duration::from_secs(60);

/// A person's machine: a HOME, a copy of the plugin's files, and a release server.
struct Machine {
    dir: tempfile::TempDir,
    server: http::Server,
    files: Arc<Mutex<HashMap<String, Vec<u8>>>>,
}

impl Machine {
    /// A machine whose release server serves `files` (404 for anything else) or, without
    /// them, answers every request with 500.
    fn new(serve_files: bool) -> Machine {
        common::assert_no_rust(SYSTEM_PATH);
        let dir = tempfile::tempdir().unwrap();
        common::copy_checkout(&common::PLUGIN_FOLDERS, &dir.path().join("plugin"));
        fs::create_dir_all(dir.path().join("home")).unwrap();
        let files: Arc<Mutex<HashMap<String, Vec<u8>>>> = Arc::default();
        let served = Arc::clone(&files);
        let server = http::Server::start("release server", move |request, out| {
            let file = served.lock().unwrap().get(&request.path).cloned();
            match file {
                Some(bytes) if serve_files => {
                    write!(
                        out,
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        bytes.len()
                    )?;
                    out.write_all(&bytes)
                }
                _ if serve_files => out.write_all(
                    b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                ),
                _ => out.write_all(
                    b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\
                      Connection: close\r\n\r\n",
                ),
            }
        });
        Machine { dir, server, files }
    }

    fn publish(&self) {
        let (bytes, sum) = release::archive();
        let mut files = self.files.lock().unwrap();
        files.insert(format!("/release/{}", release::name()), bytes.clone());
        files.insert(
            format!("/release/{}.sha256", release::name()),
            sum.clone().into_bytes(),
        );
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn plugin(&self) -> PathBuf {
        self.dir.path().join("plugin")
    }

    /// The launchers' data folder (`synapse_data` in bin/synapse-find).
    fn data(&self) -> PathBuf {
        self.home().join(".local/share/synapse-plugin")
    }

    /// A launcher with a clean environment: HOME, `path`, the release URL, and `env`.
    fn launcher(&self, name: &str, path: &str, env: &[(&str, &Path)]) -> Command {
        let mut command = Command::new(self.plugin().join("bin").join(name));
        command
            .env_clear()
            .env("HOME", self.home())
            .env("PATH", path)
            .env(
                "SYNAPSE_RELEASE_URL",
                format!("{}/release", self.server.base_url()),
            )
            .current_dir(self.dir.path());
        for (key, value) in env {
            command.env(key, value);
        }
        command
    }

    /// Run a hook as Claude Code runs the plugin's: its folder and data folder set.
    fn hook(&self, event: &str, path: &str) -> Output {
        let claude_data = self.home().join(".claude/plugins/data/synapse-synapse");
        let mut child = self
            .launcher(
                "synapse-hook",
                path,
                &[
                    ("CLAUDE_PLUGIN_ROOT", &self.plugin()),
                    ("CLAUDE_PLUGIN_DATA", &claude_data),
                ],
            )
            .arg(event)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(b"{}").unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{event}: {out:?}");
        out
    }

    /// Wait until no install runs (the hook starts it in the background, a moment later).
    fn settle(&self) {
        thread::sleep(Duration::from_millis(500));
        let start = Instant::now();
        while {
            let mut locks = Vec::new();
            find_dirs(&self.home(), "build.lock", &mut locks);
            !locks.is_empty()
        } {
            assert!(
                start.elapsed() < INSTALL_TIMEOUT,
                "the install did not end in {INSTALL_TIMEOUT:?}"
            );
            thread::sleep(Duration::from_millis(50));
        }
    }

    fn downloads(&self) -> usize {
        self.server
            .requests()
            .iter()
            .filter(|r| r.path.ends_with(".sha256"))
            .count()
    }
}

/// Every folder named `name` under `dir`.
fn find_dirs(dir: &Path, name: &str, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            if entry.file_name() == name {
                out.push(entry.path());
            } else {
                find_dirs(&entry.path(), name, out);
            }
        }
    }
}

/// A Claude Code hook installs the binaries once, in the one folder every launcher looks in:
/// a slash command's shell line (which Claude Code starts without CLAUDE_PLUGIN_DATA or
/// CLAUDE_PLUGIN_ROOT) runs them instead of installing a second copy, and the person's shell
/// has `synapse` through the link in ~/.local/bin, which is on PATH.
#[test]
fn one_install_serves_the_hooks_the_slash_commands_and_the_persons_shell() {
    let machine = Machine::new(true);
    machine.publish();
    let local_bin = machine.home().join(".local/bin");
    let persons_path = format!("{}:{SYSTEM_PATH}", local_bin.display());

    let first = machine.hook("session-start", &persons_path);
    let said = String::from_utf8_lossy(&first.stdout);
    assert!(
        said.contains("downloading its binaries")
            && said.contains("The synapse command will be in ~/.local/bin."),
        "{said}"
    );
    machine.settle();
    let log = fs::read_to_string(machine.data().join("build.log")).unwrap_or_default();

    // A slash command's line: the plugin's bin/ last on PATH, no plugin variables.
    let slash_path = format!("{SYSTEM_PATH}:{}", machine.plugin().join("bin").display());
    let out = machine
        .launcher("synapse", &slash_path, &[])
        .arg("--version")
        .output()
        .unwrap();
    assert!(
        out.status.success()
            && String::from_utf8_lossy(&out.stdout)
                .starts_with(concat!("synapse ", env!("CARGO_PKG_VERSION"))),
        "{out:?}\n{log}"
    );

    // The person's shell.
    let out = Command::new("/bin/sh")
        .args(["-c", "synapse --version"])
        .env_clear()
        .env("HOME", machine.home())
        .env("PATH", &persons_path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}\n{log}");
    let link = fs::read_link(local_bin.join("synapse")).unwrap();
    assert_eq!(link, machine.data().join("bin/synapse"));

    // One copy of the binaries on the machine.
    machine.settle();
    let copies = common::files_named(machine.dir.path(), "synapse-session-start");
    assert_eq!(copies.len(), 1, "{copies:?}");
}

/// When ~/.local/bin is not on PATH the install links nothing there, and the first session's
/// line says how to get `synapse`.
#[test]
fn without_local_bin_on_path_the_first_line_says_how_to_get_synapse() {
    let machine = Machine::new(true);
    machine.publish();
    let first = machine.hook("session-start", SYSTEM_PATH);
    let said = String::from_utf8_lossy(&first.stdout);
    assert!(
        said.contains(
            "ln -s ~/.local/share/synapse-plugin/bin/synapse ~/.local/bin/ (with ~/.local/bin on PATH)"
        ),
        "{said}"
    );
    machine.settle();
    assert!(machine.data().join("bin/synapse").is_file());
    let link = machine.home().join(".local/bin/synapse");
    assert!(fs::symlink_metadata(&link).is_err(), "{link:?} was made");
}

/// An install that failed (the release server answering 500) is tried again at the next
/// session's start, not at every hook of the session, nor when the MCP server starts.
#[test]
fn a_failed_install_is_tried_again_at_a_sessions_start_not_at_every_hook() {
    let machine = Machine::new(false);
    machine.hook("session-start", SYSTEM_PATH);
    machine.settle();
    assert_eq!(machine.downloads(), 1, "the first session's start tries");
    let recorded = common::files_named(&machine.home(), "install.msg");
    assert_eq!(recorded.len(), 1, "{recorded:?}");
    let failure = fs::read_to_string(&recorded[0]).unwrap();
    assert!(failure.contains("could not download"), "{failure}");

    for event in ["prompt-submit", "stop", "compact"] {
        machine.hook(event, SYSTEM_PATH);
        machine.settle();
        assert_eq!(machine.downloads(), 1, "{event} tried the download again");
    }
    let out = machine
        .launcher("synapse-mcp", SYSTEM_PATH, &[])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("could not download"),
        "{out:?}"
    );
    machine.settle();
    assert_eq!(machine.downloads(), 1, "the MCP server's start tried again");

    machine.hook("session-start", SYSTEM_PATH);
    machine.settle();
    assert_eq!(
        machine.downloads(),
        2,
        "the next session's start tries again"
    );
}

/// `bin/synapse-archive` packs the binaries from where cargo put them: under CARGO_TARGET_DIR
/// when that is set. A stand-in `cargo` (and `rustc -vV`) on PATH builds nothing but files where
/// the real one would, so no release build runs here.
#[test]
fn the_archive_is_packed_from_cargo_target_dir() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    common::copy_checkout(&["bin"], &src);
    fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"),
        src.join("README.md"),
    )
    .unwrap();
    let tools = dir.path().join("tools");
    fs::create_dir_all(&tools).unwrap();
    let target = release::target();
    let script = |name: &str, body: &str| {
        let path = tools.join(name);
        fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
        let status = Command::new("chmod").arg("+x").arg(&path).status().unwrap();
        assert!(status.success());
    };
    script("rustc", &format!("echo 'host: {target}'\n"));
    script(
        "cargo",
        r#"[ "$1" = build ] || exit 2
while [ $# -gt 0 ]; do [ "$1" = --target ] && target=$2; shift; done
out="${CARGO_TARGET_DIR:-target}/$target/release"
mkdir -p "$out"
for bin in synapse synapse-mcp synapse-session-start synapse-prompt-submit synapse-stop synapse-compact synapse-instructions-loaded; do
    printf '#!/bin/sh\necho %s\n' "$bin" >"$out/$bin"
    chmod +x "$out/$bin"
done
"#,
    );
    let built = dir.path().join("elsewhere");
    let out_dir = dir.path().join("out");
    let out = Command::new(src.join("bin/synapse-archive"))
        .arg(&out_dir)
        .env_clear()
        .env("HOME", dir.path())
        .env("PATH", format!("{}:{SYSTEM_PATH}", tools.display()))
        .env("CARGO_TARGET_DIR", &built)
        .current_dir(&src)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let archive = out_dir.join(release::name());
    let listed = Command::new("tar")
        .arg("-tJf")
        .arg(&archive)
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    for bin in release::BINARIES {
        assert!(
            listed.contains(&format!("synapse-{target}/{bin}\n")),
            "{bin} not in the archive: {listed}"
        );
    }
    let sum = fs::read_to_string(out_dir.join(format!("{}.sha256", release::name()))).unwrap();
    assert!(sum.ends_with(&format!(" *{}\n", release::name())), "{sum}");
}
