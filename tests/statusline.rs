//! `synapse statusline` end to end: the real binary fed Claude Code's status-line input.

use crate::common;

use std::path::Path;
use std::process::Output;

use serde_json::json;

/// Status-line input in the shape the client sends (trimmed to a few of its fields), for a
/// session working in `folder`.
fn payload(folder: &Path) -> Vec<u8> {
    let folder = folder.to_str().unwrap();
    serde_json::to_vec(&json!({
        "session_id": "s-status",
        "transcript_path": "/nowhere/s-status.jsonl",
        "cwd": folder,
        "model": {"id": "claude-opus-4-1", "display_name": "Opus"},
        "workspace": {"current_dir": folder, "project_dir": folder, "added_dirs": []},
        "version": "2.1.332",
        "output_style": {"name": "default"},
        "cost": {"total_cost_usd": 0.0, "total_duration_ms": 10},
    }))
    .unwrap()
}

fn statusline(data: &Path, cwd: &Path, stdin: &[u8]) -> Output {
    common::run_synapse(data, cwd, &["statusline"], stdin)
}

fn remember(data: &Path, cwd: &Path, args: &[&str]) {
    let mut all = vec!["remember"];
    all.extend_from_slice(args);
    let out = common::run_synapse(data, cwd, &all, b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Nothing on either output and exit 0: what a status line shows when it has nothing to say.
fn assert_silent(out: &Output) {
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_sample_payload_gives_the_count_of_the_projects_and_the_global_memories() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let project = dir.path().join("project");
    let other = dir.path().join("other");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    remember(&data, &project, &["retries back off from 2 s"]);
    remember(
        &data,
        &project,
        &["the webhook handler dedupes on the event id"],
    );
    remember(&data, &project, &["prefer small commits", "--global"]);
    remember(&data, &other, &["another project's note"]);
    // Run from elsewhere: the folder comes from the payload, not the process.
    let out = statusline(&data, &other, &payload(&project));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Synapse · 3 memories (1 global)\n"
    );
    assert!(!data.join("synapse.log").exists());
}

#[test]
fn without_a_store_it_prints_nothing_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let out = statusline(&data, dir.path(), &payload(dir.path()));
    assert_silent(&out);
    assert!(!data.exists(), "the data folder was created");
}

#[test]
fn a_broken_store_prints_nothing_and_is_logged() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let garbage: Vec<u8> = (0..8192u32).map(|i| (i * 7 + 13) as u8).collect();
    std::fs::write(data.join("synapse.db"), &garbage).unwrap();
    let out = statusline(&data, dir.path(), &payload(dir.path()));
    assert_silent(&out);
    assert_eq!(std::fs::read(data.join("synapse.db")).unwrap(), garbage);
    let log = std::fs::read_to_string(data.join("synapse.log")).unwrap();
    assert_eq!(log.lines().count(), 1, "{log}");
    assert!(log.contains("statusline failed"), "{log}");
}

#[test]
fn input_that_is_not_the_clients_json_prints_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    remember(&data, dir.path(), &["a note"]);
    for input in [&b"not json"[..], b"", b"{}", b"[1, 2]"] {
        assert_silent(&statusline(&data, dir.path(), input));
    }
    let log = std::fs::read_to_string(data.join("synapse.log")).unwrap();
    assert_eq!(log.lines().count(), 4, "{log}");
}

#[test]
fn a_memory_handed_to_the_session_and_replaced_since_is_counted() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    remember(&data, &project, &["webhook retries: 3 attempts, 1 s apart"]);
    // A prompt on the subject hands the memory to the session.
    let prompt = json!({"session_id": "s-status", "cwd": project,
        "prompt": "how many webhook retries attempts do we make?",
        "hook_event_name": "UserPromptSubmit", "transcript_path": "/dev/null"});
    let out = common::run_hook(
        "synapse-prompt-submit",
        &data,
        &serde_json::to_vec(&prompt).unwrap(),
        &[],
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("[1]"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    remember(
        &data,
        &project,
        &[
            "webhook retries: 5 attempts with backoff",
            "--supersedes",
            "1",
        ],
    );
    let out = statusline(&data, &project, &payload(&project));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Synapse · 1 memory · 1 replaced since given\n"
    );
    // Another session was handed nothing.
    let other = String::from_utf8(payload(&project))
        .unwrap()
        .replace("s-status", "s-other");
    let out = statusline(&data, &project, other.as_bytes());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Synapse · 1 memory\n");
}
