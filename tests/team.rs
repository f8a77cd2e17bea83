//! Team memory through git, with real repositories: two clones of one bare remote, each with its
//! own store, sharing through `.synapse/memories.jsonl` and the real hook binaries.

use crate::common;

use std::path::{Path, PathBuf};

use common::{git, install_plugin, run_hook, run_synapse, test_home};
use serde_json::{json, Value};

/// One engineer: a clone of the remote and a store of their own.
struct Clone {
    dir: PathBuf,
    data: PathBuf,
}

impl Clone {
    fn of(root: &Path, remote: &Path, name: &str, email: &str) -> Clone {
        let dir = root.join(name);
        git(
            root,
            &["clone", "-q", "-b", "main", remote.to_str().unwrap(), name],
        );
        git(&dir, &["config", "user.name", name]);
        git(&dir, &["config", "user.email", email]);
        git(&dir, &["config", "commit.gpgsign", "false"]);
        Clone {
            data: root.join(format!("{name}-data")),
            dir,
        }
    }

    /// Run `synapse`, which must succeed; its standard output.
    fn ok(&self, args: &[&str]) -> String {
        let out = run_synapse(&self.data, &self.dir, args, b"");
        assert!(out.status.success(), "synapse {args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    }

    /// Run `synapse`, which must fail; its standard error.
    fn fail(&self, args: &[&str]) -> String {
        let out = run_synapse(&self.data, &self.dir, args, b"");
        assert!(!out.status.success(), "synapse {args:?} succeeded: {out:?}");
        String::from_utf8(out.stderr).unwrap()
    }

    fn json(&self, args: &[&str]) -> Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        serde_json::from_str(&self.ok(&all)).unwrap()
    }

    fn remember(&self, text: &str) -> i64 {
        self.json(&["remember", text])["id"].as_i64().unwrap()
    }

    /// Run the hook binary `name` on `payload` (with this clone as `cwd`); it must exit 0 and
    /// print nothing on stderr. Its standard output.
    fn hook(&self, name: &str, event: &str, session: &str, mut payload: Value) -> String {
        payload["session_id"] = json!(session);
        payload["cwd"] = json!(self.dir);
        payload["hook_event_name"] = json!(event);
        let out = run_hook(name, &self.data, payload.to_string().as_bytes(), &[]);
        assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
        common::context_of(&String::from_utf8(out.stdout).unwrap())
    }

    /// The SessionStart hook's output for a new session here.
    fn session_start(&self, session: &str) -> String {
        let payload = json!({ "source": "startup" });
        self.hook("synapse-session-start", "SessionStart", session, payload)
    }

    /// Live memories as (id, body, source), oldest first.
    fn live(&self) -> Vec<(i64, String, String)> {
        let mut out: Vec<(i64, String, String)> = self.json(&["list"])["memories"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["id"].as_i64().unwrap(),
                    m["body"].as_str().unwrap().to_owned(),
                    m["source"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        out.sort();
        out
    }

    fn bodies(&self) -> Vec<String> {
        let mut b: Vec<String> = self.live().into_iter().map(|(_, b, _)| b).collect();
        b.sort();
        b
    }

    fn commit_and_push(&self, message: &str) {
        git(&self.dir, &["add", ".synapse"]);
        git(&self.dir, &["commit", "-q", "-m", message]);
        git(&self.dir, &["push", "-q", "origin", "HEAD"]);
    }

    /// Pull `branch` from the remote into the current branch (merging).
    fn pull(&self, branch: &str) {
        git(&self.dir, &["pull", "-q", "--no-rebase", "origin", branch]);
    }

    /// Remember `text` as replacing memory `old`; the new id.
    fn supersede_with(&self, old: i64, text: &str) -> i64 {
        let said = self.json(&["remember", "--supersedes", &old.to_string(), text]);
        said["id"].as_i64().unwrap()
    }

    fn shared_file(&self) -> String {
        std::fs::read_to_string(self.dir.join(".synapse/memories.jsonl")).unwrap_or_default()
    }
}

/// A bare remote with one commit on `main`, and two clones of it: Ada's and Bob's.
fn team(root: &Path) -> (Clone, Clone) {
    let remote = root.join("remote.git");
    git(root, &["init", "-q", "--bare", "-b", "main", "remote.git"]);
    let seed = root.join("seed");
    common::git_repo(&seed, "main");
    git(
        &seed,
        &["remote", "add", "origin", remote.to_str().unwrap()],
    );
    git(&seed, &["push", "-q", "origin", "main"]);
    let ada = Clone::of(root, &remote, "ada", "ada@example.com");
    let bob = Clone::of(root, &remote, "bob", "bob@example.com");
    (ada, bob)
}

#[test]
fn two_clones_share_supersede_and_merge_through_the_remote() {
    let root = tempfile::tempdir().unwrap();
    let (ada, bob) = team(root.path());
    // The hooks recall from the task signal: each works on a branch named for the API port.
    git(&ada.dir, &["checkout", "-q", "-b", "api-port"]);
    git(&bob.dir, &["checkout", "-q", "-b", "api-port"]);

    // Ada remembers and shares; nothing reaches the repository before `share`.
    let first = ada.remember("the API listens on port 3000 behind the nginx proxy");
    assert_eq!(ada.shared_file(), "");
    let shared = ada.json(&["share", &first.to_string()]);
    assert_eq!(shared["shared"][0]["shared"], json!("now"));
    let line: Value = serde_json::from_str(ada.shared_file().trim()).unwrap();
    assert_eq!(line["event"], json!("share"));
    assert_eq!(line["author"], json!("ada <ada@example.com>"));
    assert_eq!(
        std::fs::read_to_string(ada.dir.join(".synapse/.gitattributes")).unwrap(),
        "memories.jsonl merge=union\n"
    );
    ada.commit_and_push("share the API port");

    // Bob pulls; his next SessionStart folds the file and injects Ada's memory as hers.
    bob.pull("api-port");
    let block = bob.session_start("bob-1");
    assert!(
        block.contains("the API listens on port 3000"),
        "Bob's session does not show Ada's memory:\n{block}"
    );
    assert!(block.contains("shared by ada"), "{block}");
    let (theirs, _, source) = bob.live().into_iter().next().unwrap();
    assert_eq!(source, "shared by ada");

    // Bob replaces it with a newer one and shares that; Ada pulls.
    let newer = bob.supersede_with(
        theirs,
        "the API listens on port 3001 now; the proxy took port 3000",
    );
    bob.ok(&["share", &newer.to_string()]);
    let line: Value = serde_json::from_str(bob.shared_file().lines().last().unwrap()).unwrap();
    assert_eq!(line["supersedes"], json!([shared["shared"][0]["uid"]]));
    bob.commit_and_push("the API port moved");
    ada.pull("api-port");
    let block = ada.session_start("ada-1");
    assert!(
        block.contains("port 3001 now") && block.contains("shared by bob"),
        "Ada's session does not show Bob's newer memory:\n{block}"
    );
    assert!(
        !block.contains("behind the nginx proxy"),
        "Ada's older memory is still injected:\n{block}"
    );
    assert!(
        block.contains(&format!("{first} is replaced by newer")),
        "the block does not say why Ada's memory was left out:\n{block}"
    );
    assert_eq!(
        ada.bodies(),
        ["the API listens on port 3001 now; the proxy took port 3000"]
    );

    // Both share different memories on diverging branches; the merge has no conflict and
    // both stores end up with both.
    git(&ada.dir, &["checkout", "-q", "-b", "ada-topic"]);
    let a = ada.remember("integration tests need the docker compose stack running first");
    ada.ok(&["share", &a.to_string()]);
    ada.commit_and_push("ada's lesson");
    let b = bob.remember("release notes are generated from the changelog folder");
    bob.ok(&["share", &b.to_string()]);
    bob.commit_and_push("bob's lesson");
    git(&ada.dir, &["fetch", "-q", "origin"]);
    git(&ada.dir, &["merge", "-q", "--no-edit", "origin/api-port"]);
    let merged = ada.shared_file();
    assert!(
        !merged.contains("<<<<<<<"),
        "a conflict in the shared file:\n{merged}"
    );
    assert_eq!(merged.lines().count(), 4, "{merged}");
    git(&ada.dir, &["push", "-q", "origin", "HEAD"]);
    bob.pull("ada-topic");
    for clone in [&ada, &bob] {
        clone.ok(&["sync"]);
        assert_eq!(
            clone.bodies(),
            [
                "integration tests need the docker compose stack running first",
                "release notes are generated from the changelog folder",
                "the API listens on port 3001 now; the proxy took port 3000",
            ]
        );
    }
}

#[test]
fn folding_again_or_after_a_reordering_rebase_changes_nothing() {
    let root = tempfile::tempdir().unwrap();
    let (ada, bob) = team(root.path());
    let ids: Vec<String> = [
        "the staging database is restored from the nightly snapshot",
        "flaky test: retry the websocket suite once before failing the build",
        "never bump the protobuf version without regenerating the clients",
    ]
    .iter()
    .map(|t| ada.remember(t).to_string())
    .collect();
    ada.ok(&["share", "--all"]);
    let replacing = ada.supersede_with(
        ids[0].parse().unwrap(),
        "the staging database is restored from the hourly snapshot now",
    );
    ada.ok(&["share", &replacing.to_string()]);
    ada.ok(&["unshare", &ids[1]]);
    ada.commit_and_push("lessons");
    bob.pull("main");
    bob.ok(&["sync"]);
    let once = bob.json(&["list", "--all"]);
    bob.ok(&["sync"]);
    assert_eq!(
        bob.json(&["list", "--all"]),
        once,
        "a second fold changed the store"
    );
    assert_eq!(
        bob.bodies(),
        [
            "never bump the protobuf version without regenerating the clients",
            "the staging database is restored from the hourly snapshot now",
        ]
    );

    // Another store folds the same lines in reverse order (as a rebase may leave them).
    let file = bob.dir.join(".synapse/memories.jsonl");
    let text = std::fs::read_to_string(&file).unwrap();
    let reversed: Vec<&str> = text.lines().rev().collect();
    std::fs::write(&file, reversed.join("\n") + "\n").unwrap();
    let other = Clone {
        dir: bob.dir.clone(),
        data: root.path().join("fresh-data"),
    };
    other.ok(&["sync"]);
    assert_eq!(other.bodies(), bob.bodies());
    let states = |c: &Clone| -> Vec<(String, bool, bool)> {
        let mut v: Vec<(String, bool, bool)> = c.json(&["list", "--all"])["memories"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["body"].as_str().unwrap().to_owned(),
                    m["superseded_by"].is_null(),
                    m["forgotten_at"].is_null(),
                )
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(states(&other), states(&bob));
    // Ada's own memory stays with her after she unshared it: local only.
    assert!(ada
        .bodies()
        .iter()
        .any(|b| b.starts_with("flaky test: retry")));
    let status = ada.json(&["status"]);
    assert_eq!(status["local"], json!([ids[1].parse::<i64>().unwrap()]));
}

#[test]
fn a_memory_holding_a_secret_is_never_shared() {
    let root = tempfile::tempdir().unwrap();
    let (ada, _) = team(root.path());
    let token = "ghp_Zq8Yh3kLmN0pQrStUvWxYz0123456789AbCd";
    let id = ada.json(&[
        "remember",
        "--allow-secrets",
        &format!("the deploy bot token is {token}"),
    ])["id"]
        .as_i64()
        .unwrap();
    let error = ada.fail(&["share", &id.to_string()]);
    assert!(error.contains("looks like a secret"), "{error}");
    assert!(!ada.shared_file().contains("ghp_"), "{}", ada.shared_file());
    assert!(!ada.shared_file().contains("deploy bot"));
}

#[test]
fn global_and_other_projects_memories_are_never_shared() {
    let root = tempfile::tempdir().unwrap();
    let (ada, _) = team(root.path());
    let global = ada.json(&["remember", "--global", "I prefer tabs in Makefiles"])["id"]
        .as_i64()
        .unwrap();
    let error = ada.fail(&["share", &global.to_string()]);
    assert!(error.contains("global"), "{error}");
    let other = ada.json(&[
        "remember",
        "--project",
        "elsewhere",
        "another project's note",
    ])["id"]
        .as_i64()
        .unwrap();
    let error = ada.fail(&["share", &other.to_string()]);
    assert!(error.contains(&format!("{other}")), "{error}");
    assert_eq!(ada.shared_file(), "");
}

#[test]
fn malformed_and_hostile_lines_are_skipped_reported_and_the_rest_folded() {
    let root = tempfile::tempdir().unwrap();
    let (ada, bob) = team(root.path());
    let id = ada.remember("the CDN caches API responses for sixty seconds");
    ada.ok(&["share", &id.to_string()]);
    let good = ada.shared_file();
    let huge = "x".repeat(300 << 10);
    let lines = [
        "{not json".to_owned(),
        json!({"event": "share", "id": 5, "at": "2026-01-01T00:00:00Z", "author": "m",
               "body": "a forged local id"})
        .to_string(),
        json!({"event": "share", "id": "9b2f4c1e-0d3a-4b5c-8e7f-112233445566",
               "at": "2026-01-01T00:00:00Z", "author": "m", "body": huge})
        .to_string(),
        json!({"event": "forget", "id": "0f0e0d0c-0b0a-4908-8706-050403020100",
               "at": "2026-01-01T00:00:00Z", "author": "m"})
        .to_string(),
        json!({"event": "rewrite", "id": "0f0e0d0c-0b0a-4908-8706-050403020101",
               "at": "2026-01-01T00:00:00Z", "author": "m"})
        .to_string(),
        json!({"event": "share", "id": "7c6b5a49-3827-4165-9544-332211009988",
               "at": "2026-01-02T00:00:00Z", "author": "Mallory <m@example.com>",
               "body": "the bastion password is Tr0ub4dor&3xample!"})
        .to_string(),
    ];
    let text = format!("{}\n{good}", lines.join("\n"));
    std::fs::create_dir_all(bob.dir.join(".synapse")).unwrap();
    std::fs::write(bob.dir.join(".synapse/memories.jsonl"), text).unwrap();
    let synced = bob.json(&["sync"]);
    let skipped: Vec<u64> = synced["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["line"].as_u64().unwrap())
        .collect();
    assert_eq!(skipped, [1, 2, 3, 5], "{synced}");
    assert_eq!(
        synced["unknown"],
        json!(["0f0e0d0c-0b0a-4908-8706-050403020100"])
    );
    let bodies = bob.bodies();
    assert_eq!(bodies.len(), 2, "{bodies:?}");
    assert!(bodies.contains(&"the CDN caches API responses for sixty seconds".to_owned()));
    // A teammate's line is masked like every other write.
    assert!(
        bodies.iter().all(|b| !b.contains("Tr0ub4dor")),
        "{bodies:?}"
    );
    install_plugin(&test_home(&bob.data), true);
    let doctor = bob.json(&["doctor"]);
    assert_eq!(
        doctor["team"]["skipped_lines"].as_array().unwrap().len(),
        4,
        "{doctor}"
    );
}

#[test]
fn a_teammates_unshare_forgets_the_copy_and_a_reshare_restores_it() {
    let root = tempfile::tempdir().unwrap();
    let (ada, bob) = team(root.path());
    let id = ada.remember("run the migrations with --lock-timeout 5s on production");
    ada.ok(&["share", &id.to_string()]);
    ada.commit_and_push("share");
    bob.pull("main");
    bob.ok(&["sync"]);
    assert_eq!(bob.bodies().len(), 1);
    ada.ok(&["unshare", &id.to_string()]);
    ada.commit_and_push("unshare");
    bob.pull("main");
    bob.ok(&["sync"]);
    assert!(bob.bodies().is_empty(), "{:?}", bob.bodies());
    assert_eq!(ada.bodies().len(), 1, "unsharing kept Ada's own memory");
    ada.ok(&["share", &id.to_string()]);
    ada.commit_and_push("share again");
    bob.pull("main");
    bob.ok(&["sync"]);
    assert_eq!(bob.bodies().len(), 1);
}

#[test]
fn with_share_on_a_lesson_from_the_stop_hook_is_shared() {
    let root = tempfile::tempdir().unwrap();
    let (ada, _) = team(root.path());
    std::fs::create_dir_all(ada.dir.join(".synapse")).unwrap();
    std::fs::write(ada.dir.join(".synapse/config.toml"), "share = true\n").unwrap();
    let reply = "Done.\nremember: the search index is rebuilt by `make reindex`";
    let payload = json!({ "last_assistant_message": reply });
    let printed = ada.hook("synapse-stop", "Stop", "ada-stop", payload);
    assert!(printed.is_empty(), "{printed}");
    let file = ada.shared_file();
    assert!(
        file.contains("make reindex"),
        "the lesson was not shared: {file:?}"
    );
    // Without the setting, a lesson stays local.
    std::fs::write(ada.dir.join(".synapse/config.toml"), "share = false\n").unwrap();
    let id = ada.remember("a local note about the search index");
    assert!(!ada.shared_file().contains("local note"));
    let status = ada.json(&["status"]);
    assert_eq!(status["local"], json!([id]));
}

#[test]
fn sharing_all_of_an_empty_project_says_there_is_nothing() {
    let root = tempfile::tempdir().unwrap();
    let (ada, _) = team(root.path());
    let said = ada.ok(&["share", "--all"]);
    assert!(said.starts_with("nothing to share"), "{said}");
    assert_eq!(ada.json(&["share", "--all"])["shared"], json!([]));
    assert_eq!(ada.shared_file(), "");
}

#[test]
fn outside_a_repository_sharing_says_why() {
    let root = tempfile::tempdir().unwrap();
    let plain = Clone {
        dir: root.path().join("plain"),
        data: root.path().join("data"),
    };
    std::fs::create_dir_all(&plain.dir).unwrap();
    let id = plain.remember("a note outside git");
    let error = plain.fail(&["share", &id.to_string()]);
    assert!(error.contains("not inside a git repository"), "{error}");
}

#[test]
fn a_teammates_newer_contradiction_is_shown_beside_mine_naming_its_author() {
    let root = tempfile::tempdir().unwrap();
    let (ada, bob) = team(root.path());
    git(&ada.dir, &["checkout", "-q", "-b", "worker-pool"]);
    let mine = ada.remember("the worker pool runs 4 threads per node");
    let theirs = bob.remember("the worker pool runs 12 threads per node now");
    bob.ok(&["share", &theirs.to_string()]);
    bob.commit_and_push("pool size");
    ada.pull("main");
    let block = ada.session_start("ada-pool");
    assert!(block.contains("12 threads"), "{block}");
    // A rule guessed the conflict: both are shown, hers marked as the older, Bob's named as his.
    let header = |id: i64| {
        block
            .lines()
            .find(|l| l.starts_with(&format!("[{id}] ")))
            .unwrap_or_else(|| panic!("{id} is not injected:\n{block}"))
    };
    let newer = block
        .lines()
        .find(|l| l.contains("shared by bob"))
        .unwrap_or_else(|| panic!("the block does not name the teammate:\n{block}"));
    let theirs_here = newer.trim_start_matches('[').split(']').next().unwrap();
    assert!(
        header(mine).contains(&format!("older; #{theirs_here}")),
        "the block does not mark Ada's memory as the older:\n{block}"
    );
    assert!(block.contains("4 threads"), "{block}");
}

#[test]
fn the_share_slash_command_shares_from_the_prompt_hook() {
    let root = tempfile::tempdir().unwrap();
    let (ada, _) = team(root.path());
    let id = ada.remember("the e2e suite needs CHROME_BIN pointing at chromium");
    let prompt = |text: &str| {
        let payload = json!({ "prompt": text });
        ada.hook(
            "synapse-prompt-submit",
            "UserPromptSubmit",
            "ada-slash",
            payload,
        )
    };
    let said = prompt(&format!("/synapse:share {id}"));
    assert!(said.contains(&format!("shared {id}")), "{said}");
    assert!(
        ada.shared_file().contains("CHROME_BIN"),
        "{}",
        ada.shared_file()
    );
    let said = prompt(&format!("/synapse:share {id}"));
    assert!(said.contains("already shared"), "{said}");
    let said = prompt("/synapse:share twelve; rm -rf ~");
    assert!(said.contains("nothing shared"), "{said}");
    assert_eq!(ada.shared_file().lines().count(), 1);
}

#[test]
fn a_fold_leaves_a_private_mark_and_a_local_forget_of_a_copy_holds() {
    use std::os::unix::fs::PermissionsExt;
    let root = tempfile::tempdir().unwrap();
    let (ada, bob) = team(root.path());
    let id = ada.remember("the nightly job rotates the API keys at 02:00 UTC");
    ada.ok(&["share", &id.to_string()]);
    ada.commit_and_push("share");
    bob.pull("main");
    bob.session_start("bob-mark");
    let marks: Vec<PathBuf> = std::fs::read_dir(&bob.data)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("shared-")
        })
        .collect();
    assert_eq!(marks.len(), 1, "{marks:?}");
    let mode = std::fs::metadata(&marks[0]).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    assert_eq!(bob.bodies().len(), 1);
    // Bob forgets the copy here, and it stays forgotten in his later sessions.
    let copy = bob.live()[0].0;
    bob.ok(&["forget", &copy.to_string()]);
    bob.session_start("bob-mark-2");
    assert!(bob.bodies().is_empty());
    install_plugin(&test_home(&bob.data), true);
    let doctor = bob.json(&["doctor"]);
    assert!(
        !doctor["warnings"].to_string().contains("data folder"),
        "{doctor}"
    );
}

#[test]
fn with_share_on_a_memory_that_cannot_be_shared_is_stored_and_says_why() {
    let root = tempfile::tempdir().unwrap();
    let (ada, _) = team(root.path());
    std::fs::create_dir_all(ada.dir.join(".synapse")).unwrap();
    std::fs::write(ada.dir.join(".synapse/config.toml"), "share = true\n").unwrap();
    let long = format!(
        "the full build log: {}",
        "warning: unused import\n".repeat(4000)
    );
    let said = ada.json(&["remember", &long]);
    assert!(said["shared"].is_null(), "{said}");
    assert!(
        said["not_shared"].as_str().unwrap().contains("KiB"),
        "{said}"
    );
    assert_eq!(ada.bodies().len(), 1, "the memory was not stored");
    assert_eq!(ada.shared_file(), "");
}
