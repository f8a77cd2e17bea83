//! `synapse ui` end to end, in a real terminal: tmux runs it in a detached session, keys are sent
//! with `send-keys`, and the screen is read with `capture-pane` until it shows what each step
//! expects. The store is seeded and checked afterwards through the command line.
//!
//! It needs tmux, so a plain `cargo test` lists it as ignored; the README's test command
//! (`.ci/test`) installs tmux and runs it. Without tmux it fails and says so.

use crate::common;

use common::tmux::Tmux;

use std::path::{Path, PathBuf};

use serde_json::Value;

fn synapse(data: &Path, cwd: &Path, args: &[&str]) -> String {
    let out = common::run_synapse(data, cwd, args, b"");
    assert!(
        out.status.success(),
        "synapse {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The recorded actions of memory `id`, oldest first.
fn history(data: &Path, cwd: &Path, id: &str) -> Vec<String> {
    let out: Value = serde_json::from_str(&synapse(data, cwd, &["--json", "history", id])).unwrap();
    out["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["action"].as_str().unwrap().to_owned())
        .collect()
}

/// A single-quoted word for the shell tmux runs the command with.
fn quoted(path: &Path) -> String {
    format!("'{}'", path.to_str().unwrap().replace('\'', r"'\''"))
}

struct Seeded {
    _dir: tempfile::TempDir,
    data: PathBuf,
    project: PathBuf,
}

/// A git project and a store holding five memories of it, seeded through the command line:
/// 1 webhooks, 2 Rust, 3 and 4 the same text (a certain duplicate finding), 5 deploys.
fn seeded() -> Seeded {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let project = dir.path().join("project");
    common::git_repo(&project, "main");
    for body in [
        "Webhook retries: 5 attempts with exponential backoff",
        "We pin Rust 1.82.0 in rust-toolchain.toml",
        "Use tabs for indentation in Makefiles.",
        "use tabs for indentation in makefiles",
        "Deploys go out on Tuesdays only",
    ] {
        synapse(&data, &project, &["remember", body]);
    }
    Seeded {
        _dir: dir,
        data,
        project,
    }
}

#[test]
#[ignore = "drives a terminal through tmux; .ci/test installs tmux and runs it"]
fn open_search_read_forget_restore_settle_and_quit() {
    Tmux::require("drive `synapse ui` in a terminal");
    let s = seeded();
    // The shell says how it ended, on the screen it is given back.
    let command = format!(
        "env SYNAPSE_DATA={} HOME={} {} ui; echo \"synapse ui exited with $?\"",
        quoted(&s.data),
        quoted(&common::test_home(&s.data)),
        quoted(&common::binary("synapse"))
    );
    let tmux = Tmux::start("ui", &s.project, &command);

    // Open: the newest first, the project and the count on the status line.
    let screen = tmux.wait_for(
        "open",
        &[
            "synapse ui",
            "> 5",
            "Deploys go out on Tuesdays only",
            "5 live",
        ],
    );
    assert!(screen.contains("Webhook retries: 5 attempts"), "{screen}");

    // Search: recall's answer only.
    tmux.press("/");
    tmux.type_text("rust");
    let screen = tmux.wait_for("search", &["/ rust", "1 answer(s)", "> 2"]);
    assert!(!screen.contains("Deploys go out"), "{screen}");

    // Read: the whole memory, with its bytes.
    tmux.press("Enter");
    tmux.press("Enter");
    tmux.wait_for(
        "read",
        &[
            "memory 2 · cli · bytes 0..41 of 41 · end",
            "We pin Rust 1.82.0",
        ],
    );
    tmux.press("Escape");
    tmux.wait_for("back to the answers", &["> 2", "/ rust"]);
    tmux.press("Escape");
    tmux.wait_for("search cleared", &["/ to search", "> 5"]);

    // Forget 5, restore it, then forget 1 for good.
    tmux.type_text("f");
    tmux.wait_for("forget", &["forgot 5 (undo: r", "4 live", "forgotten"]);
    tmux.type_text("r");
    tmux.wait_for("restore", &["restored 5 (undid its forget", "5 live"]);
    tmux.press("End");
    tmux.wait_for("end of the list", &["> 1"]);
    tmux.type_text("f");
    tmux.wait_for("forget the last", &["forgot 1", "4 live"]);

    // Drift: the duplicate pair, certain; s supersedes the older by the newer.
    tmux.type_text("d");
    tmux.wait_for("drift", &["duplicate", "certain", "3 → 4"]);
    tmux.type_text("s");
    tmux.wait_for("settle", &["superseded 3 by newer 4", "no drift"]);
    tmux.press("Escape");
    tmux.wait_for(
        "back to the list",
        &["memories / search", "first line", "3 live"],
    );

    // Help, then quit: the program ends well and the terminal is given back.
    tmux.type_text("?");
    tmux.wait_for("help", &["keys (any key closes)", "quit (Ctrl-C too)"]);
    tmux.type_text("q");
    let screen = tmux.wait_for_in_scrollback("quit", &["synapse ui exited with 0"]);
    assert!(!screen.contains("/ to search"), "{screen}");

    // The store shows exactly those changes.
    let listed: Value =
        serde_json::from_str(&synapse(&s.data, &s.project, &["--json", "list", "--all"])).unwrap();
    let states: Vec<(i64, bool, Option<i64>)> = listed["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["id"].as_i64().unwrap(),
                !m["forgotten_at"].is_null(),
                m["superseded_by"].as_i64(),
            )
        })
        .collect();
    assert_eq!(
        states,
        [
            (5, false, None),
            (4, false, None),
            (3, false, Some(4)),
            (2, false, None),
            (1, true, None)
        ]
    );
    assert_eq!(history(&s.data, &s.project, "1"), ["remember", "forget"]);
    assert_eq!(history(&s.data, &s.project, "2"), ["remember"]);
    assert_eq!(history(&s.data, &s.project, "3"), ["remember", "supersede"]);
    assert_eq!(history(&s.data, &s.project, "4"), ["remember"]);
    assert_eq!(
        history(&s.data, &s.project, "5"),
        ["remember", "forget", "restore-forget"]
    );
}

#[test]
fn without_a_terminal_it_refuses_and_says_what_to_use() {
    let s = seeded();
    let out = common::run_synapse(&s.data, &s.project, &["ui"], b"");
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("needs a terminal") && said.contains("synapse list"),
        "{said}"
    );
}
