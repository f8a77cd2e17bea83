//! A program in a real terminal for the tests: tmux runs it in a detached session, keys go in
//! with `send-keys`, and the screen is read with `capture-pane` until it shows what a step
//! expects.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// How long a step may take to show on screen.
pub const PATIENCE: Duration = Duration::from_secs(15);

/// A tmux server of its own (`-L`), so tests never meet another's sessions, killed when dropped.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// Fail, saying why, when tmux cannot be run: the test is never passed by skipping it.
    pub fn require(what: &str) {
        match Command::new("tmux").arg("-V").output() {
            Ok(out) if out.status.success() => {}
            other => panic!(
                "tmux is needed to {what}, and it could not be run ({other:?}); install it \
                 (Debian: apt-get install tmux; .ci/test does)"
            ),
        }
    }

    /// Start `command` in a detached 120 x 40 session in `cwd`, on a server named after `name`
    /// and this process.
    pub fn start(name: &str, cwd: &Path, command: &str) -> Tmux {
        let tmux = Tmux {
            socket: format!("synapse-{name}-test-{}", std::process::id()),
        };
        // No user configuration; keys arrive as sent (no wait after Esc for a sequence).
        tmux.run(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-x",
            "120",
            "-y",
            "40",
            "-c",
            cwd.to_str().unwrap(),
            command,
        ]);
        tmux.run(&["set-option", "-s", "escape-time", "0"]);
        // The pane stays when the program ends, to be read.
        tmux.run(&["set-option", "-g", "remain-on-exit", "on"]);
        tmux
    }

    pub fn run(&self, args: &[&str]) -> Output {
        let out = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("run tmux");
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// Type `text` as it is (`-l`: no key names).
    pub fn type_text(&self, text: &str) {
        self.run(&["send-keys", "-l", text]);
    }

    /// Press one named key (`Enter`, `Escape`, `End`).
    pub fn press(&self, key: &str) {
        self.run(&["send-keys", key]);
    }

    pub fn capture(&self, args: &[&str]) -> String {
        String::from_utf8(self.run(args).stdout).unwrap()
    }

    /// Wait until the screen shows every one of `wanted`; fail with the screen when it does not.
    pub fn wait_for(&self, step: &str, wanted: &[&str]) -> String {
        self.wait_until(step, wanted, &["capture-pane", "-p"])
    }

    /// `wait_for` over the main screen's scrollback too: where the shell's lines go once the
    /// program has given the terminal back (tmux then writes its "Pane is dead" line below).
    pub fn wait_for_in_scrollback(&self, step: &str, wanted: &[&str]) -> String {
        self.wait_until(step, wanted, &["capture-pane", "-p", "-S", "-"])
    }

    pub fn wait_until(&self, step: &str, wanted: &[&str], capture: &[&str]) -> String {
        let started = Instant::now();
        loop {
            let screen = self.capture(capture);
            if wanted.iter().all(|w| screen.contains(w)) {
                return screen;
            }
            if started.elapsed() > PATIENCE {
                panic!("{step}: the screen never showed {wanted:?}; it shows:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        // The server may be gone already; a failure to kill it leaves nothing to clean.
        if let Err(e) = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output()
        {
            eprintln!("could not stop the tmux server {}: {e}", self.socket);
        }
    }
}
