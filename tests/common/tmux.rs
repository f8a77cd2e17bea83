//! A program in a real terminal for the tests: tmux runs it in a detached session, keys go in
//! with `send-keys`, and the screen is read with `capture-pane` until it shows what a step
//! expects.
//!
//! A step waits for the program to have read its keys before the next keys go in. Keys sent
//! before then reach the program in one read with the earlier ones on a busy machine, and a
//! terminal program reads such a chunk differently: crossterm takes Escape followed by `?` as
//! Alt+`?`, Claude Code takes text followed by Enter as a pasted line break. So a wait must look
//! for what only the screen after the keys shows: `wait_for` fails, saying so, when everything it
//! looks for was on the screen before the keys were sent.

use std::cell::RefCell;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// How long a step may take to show on screen: a bound on a hang, not a speed target, so it is
/// generous (a client starting beside a full test run on two cores takes tens of seconds).
pub const PATIENCE: Duration = Duration::from_secs(60);

/// A tmux server of its own (`-L`), so tests never meet another's sessions, killed when dropped.
pub struct Tmux {
    socket: String,
    /// The screen before the first keys sent since the last wait.
    before_keys: RefCell<Option<String>>,
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
            before_keys: RefCell::new(None),
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

    /// Type `text` as it is (`-l`: no key names). To press Enter after it in a program that takes
    /// a chunk of text as a paste, wait for the text to show first.
    pub fn type_text(&self, text: &str) {
        self.send_keys(&["send-keys", "-l", text]);
    }

    /// Press one named key (`Enter`, `Escape`, `End`).
    pub fn press(&self, key: &str) {
        self.send_keys(&["send-keys", key]);
    }

    fn send_keys(&self, args: &[&str]) {
        if self.before_keys.borrow().is_none() {
            let screen = self.capture(&["capture-pane", "-p"]);
            *self.before_keys.borrow_mut() = Some(screen);
        }
        self.run(args);
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
        if let Some(before) = self.before_keys.take() {
            assert!(
                !wanted.iter().all(|w| before.contains(w)),
                "{step}: the screen showed {wanted:?} before the keys were sent, so it cannot \
                 tell that the program has read them; wait for what only the next screen \
                 shows. The screen before the keys:\n{before}"
            );
        }
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
