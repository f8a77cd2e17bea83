//! Claude Code's own memory files as Synapse's sources, through the real hook binaries over a
//! real store: the fixture of issue 32 (tests/common/claude_memory.rs), folded as the hooks find
//! it, injected where the client would not show it, never where it does, and followed as it is
//! edited and deleted.

mod common;

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use common::claude_memory::{self as fixture, ClaudeMemory};

/// The fixture, a data folder, and the hooks run with the fixture's home.
struct Project {
    _dir: tempfile::TempDir,
    data: PathBuf,
    memory: ClaudeMemory,
}

impl Project {
    fn new() -> Project {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        let memory = ClaudeMemory::build(&home, &dir.path().join("repo"));
        Project {
            data: dir.path().join("data"),
            _dir: dir,
            memory,
        }
    }

    fn hook(&self, binary: &str, payload: Value, env: &[(&str, &str)]) -> String {
        let home = self.memory.home.to_string_lossy().into_owned();
        let mut all = vec![("HOME", home.as_str())];
        all.extend_from_slice(env);
        let out = common::run_hook(binary, &self.data, payload.to_string().as_bytes(), &all);
        assert!(out.status.success(), "{out:?}");
        let log = std::fs::read_to_string(self.data.join("synapse.log")).unwrap_or_default();
        assert!(log.is_empty(), "the hook logged a failure: {log}");
        common::context_of(&String::from_utf8(out.stdout).unwrap())
    }

    fn start(&self, session: &str) -> String {
        self.start_with(session, &[])
    }

    fn start_with(&self, session: &str, env: &[(&str, &str)]) -> String {
        let payload = json!({"session_id": session, "cwd": self.memory.repo, "source": "startup",
            "hook_event_name": "SessionStart", "transcript_path": "/dev/null"});
        self.hook("synapse-session-start", payload, env)
    }

    fn prompt(&self, session: &str, prompt: &str) -> String {
        let payload = json!({"session_id": session, "cwd": self.memory.repo, "prompt": prompt,
            "hook_event_name": "UserPromptSubmit", "transcript_path": "/dev/null"});
        self.hook("synapse-prompt-submit", payload, &[])
    }

    fn synapse(&self, args: &[&str]) -> Value {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_synapse"))
            .args(args)
            .arg("--json")
            .env("SYNAPSE_DATA", &self.data)
            .env("HOME", &self.memory.home)
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CLAUDE_CODE_DISABLE_AUTO_MEMORY")
            .current_dir(&self.memory.repo)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        serde_json::from_slice(&out.stdout).unwrap()
    }

    fn topic_path(&self, file: &str) -> PathBuf {
        self.memory.memory_dir.join(file)
    }
}

/// Every line of `CLAUDE.md` and `MEMORY.md` with words enough to tell it apart, as the
/// client's own load puts them before the model.
fn loaded_lines(memory: &ClaudeMemory) -> Vec<String> {
    fixture::CLAUDE_MD
        .lines()
        .chain(memory.index.lines())
        .map(|l| l.trim_start_matches(['-', '#', ' ']).trim().to_owned())
        .filter(|l| l.len() > 20)
        .collect()
}

fn assert_nothing_loaded_in(block: &str, memory: &ClaudeMemory) {
    for line in loaded_lines(memory) {
        assert!(
            !block.contains(&line),
            "the client loads {line:?} itself:\n{block}"
        );
    }
}

#[test]
fn session_start_on_an_api_branch_injects_the_rule_and_the_api_topics_but_no_loaded_line() {
    let project = Project::new();
    project.memory.on_api_branch();
    let block = project.start("s1");
    assert!(block.contains(fixture::RULE_PHRASE), "{block}");
    assert!(
        block.contains(&format!("{}:", fixture::RULE_FILE)),
        "the rule's source is shown as file:line:\n{block}"
    );
    let pagination = project.memory.topic("pagination.md");
    assert!(
        block.contains(pagination.phrase),
        "the topic about the branch's subject:\n{block}"
    );
    assert!(block.contains("memory/pagination.md"), "{block}");
    assert_nothing_loaded_in(&block, &project.memory);
    assert!(
        !block.contains(fixture::AGENTS_PHRASE),
        "AGENTS.md beside a CLAUDE.md is not about the branch:\n{block}"
    );
    assert!(
        !block.contains("remember:"),
        "with the client's memory on, no second place to write:\n{block}"
    );
}

#[test]
fn a_prompt_about_a_topic_injects_that_file_and_follows_its_edits_and_deletion() {
    let project = Project::new();
    assert!(!project.start("s1").contains("no memories"));
    let caching = project.memory.topic("caching.md");
    let asked = "how are order summaries cached in redis, and how do we invalidate them?";
    let block = project.prompt("s1", asked);
    assert!(block.contains(caching.phrase), "{block}");
    assert!(block.contains("memory/caching.md"), "{block}");
    assert_nothing_loaded_in(&block, &project.memory);

    // Edited: the next hook folds the new text, and a new session is given it, not the old.
    let path = project.topic_path("caching.md");
    let edited = std::fs::read_to_string(&path)
        .unwrap()
        .replace("ordsum-v3", "ordsum-v4 (bumped for the tax fields)");
    std::fs::write(&path, edited).unwrap();
    let block = project.prompt("s2", asked);
    assert!(block.contains("ordsum-v4 (bumped"), "{block}");
    assert!(!block.contains("ordsum-v3"), "{block}");

    // Deleted: nothing of it, in any session.
    std::fs::remove_file(&path).unwrap();
    let block = project.prompt("s3", asked);
    assert!(!block.contains("ordsum"), "{block}");
    let listed = project.synapse(&["list"]);
    let bodies = listed["memories"].as_array().unwrap();
    assert!(
        bodies
            .iter()
            .all(|m| !m["body"].as_str().unwrap().contains("ordsum")),
        "{listed}"
    );
}

#[test]
fn a_topic_repeating_a_claude_md_line_is_left_out_and_said() {
    let project = Project::new();
    project.start("s1");
    let block = project.prompt(
        "s1",
        "how do we write and roll out a database migration that rewrites a big table?",
    );
    let line = project.memory.repeated_line();
    let left = block
        .lines()
        .find(|l| l.starts_with("Left out:"))
        .unwrap_or_else(|| panic!("{block}"));
    assert!(
        left.contains(&format!("repeats CLAUDE.md:{line}")),
        "{left}"
    );
    assert!(
        !block.contains(project.memory.topic(fixture::REPEATING_TOPIC).phrase),
        "{block}"
    );
}

#[test]
fn with_the_client_s_memory_off_the_blocks_ask_for_remember_lines_again() {
    let project = Project::new();
    project.memory.on_api_branch();
    let block = project.start_with("s1", &[("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")]);
    assert!(block.contains("\"remember: ...\""), "{block}");
    let settings = project.memory.repo.join(".claude/settings.local.json");
    std::fs::write(&settings, r#"{"autoMemoryEnabled": false}"#).unwrap();
    let block = project.start("s2");
    assert!(block.contains("\"remember: ...\""), "{block}");
}

#[test]
fn sessions_starting_together_fold_each_file_once() {
    let project = Project::new();
    project.memory.on_api_branch();
    let children: Vec<_> = (0..6)
        .map(|n| {
            let payload = json!({"session_id": format!("s{n}"), "cwd": project.memory.repo,
                "source": "startup", "hook_event_name": "SessionStart"});
            let mut command = std::process::Command::new(common::binary("synapse-session-start"));
            command
                .env("SYNAPSE_DATA", &project.data)
                .env("HOME", &project.memory.home)
                .env_remove("CLAUDE_CONFIG_DIR")
                .env_remove("CLAUDE_CODE_DISABLE_AUTO_MEMORY")
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped());
            let mut child = command.spawn().unwrap();
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(payload.to_string().as_bytes())
                .unwrap();
            child
        })
        .collect();
    for child in children {
        assert!(child.wait_with_output().unwrap().status.success());
    }
    let listed = project.synapse(&["list"]);
    let bodies: Vec<&str> = listed["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["body"].as_str().unwrap())
        .collect();
    for topic in fixture::TOPICS {
        let copies = bodies.iter().filter(|b| b.contains(topic.phrase)).count();
        assert_eq!(copies, 1, "{}: {bodies:#?}", topic.file);
    }
    let rule = bodies
        .iter()
        .filter(|b| b.contains(fixture::RULE_PHRASE))
        .count();
    assert_eq!(rule, 1, "{bodies:#?}");
    let log = std::fs::read_to_string(project.data.join("synapse.log")).unwrap_or_default();
    assert!(
        log.lines().all(|l| l.contains("could not fold")),
        "only a fold that lost the race may be logged: {log}"
    );
}

#[test]
fn every_source_file_is_folded_with_its_lines() {
    let project = Project::new();
    let index = project.memory.memory_dir.join("MEMORY.md");
    let fact = "- The staging database is reset every Sunday at 04:00 UTC.";
    std::fs::write(&index, format!("{}{fact}\n", project.memory.index)).unwrap();
    let fact_line = project.memory.index.lines().count() + 1;
    project.start("s1");
    let listed = project.synapse(&["list"]);
    let sources: Vec<&str> = listed["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["source"].as_str().unwrap())
        .collect();
    for topic in fixture::TOPICS {
        let label = format!("memory/{} · {}", topic.file, topic.name);
        assert!(sources.contains(&label.as_str()), "{label}: {sources:?}");
    }
    let items = project.memory.claude_md_items().len();
    let from_claude = sources
        .iter()
        .filter(|s| s.starts_with("CLAUDE.md:"))
        .count();
    assert!(from_claude >= items, "{from_claude} < {items}: {sources:?}");
    assert!(sources.iter().any(|s| s.starts_with("AGENTS.md:")));
    // MEMORY.md's own facts are memories; its pointers to topic files are not (the topic
    // files are).
    let from_index: Vec<&&str> = sources
        .iter()
        .filter(|s| s.starts_with("memory/MEMORY.md:"))
        .collect();
    assert_eq!(
        from_index,
        [&format!("memory/MEMORY.md:{fact_line}").as_str()],
        "{sources:?}"
    );
    let line = project.memory.repeated_line();
    assert!(
        sources.contains(&format!("CLAUDE.md:{line}").as_str()),
        "{sources:?}"
    );
}

/// Files Synapse only reads stay as they were, byte for byte.
#[test]
fn the_sources_are_never_written() {
    let project = Project::new();
    let before = snapshot(&project.memory.memory_dir);
    let claude_md = std::fs::read(project.memory.repo.join("CLAUDE.md")).unwrap();
    project.memory.on_api_branch();
    project.start("s1");
    project.prompt("s1", "how are order summaries cached?");
    assert_eq!(snapshot(&project.memory.memory_dir), before);
    assert_eq!(
        std::fs::read(project.memory.repo.join("CLAUDE.md")).unwrap(),
        claude_md
    );
}

fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>, std::time::SystemTime)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let meta = std::fs::metadata(&path).unwrap();
            (
                path.clone(),
                std::fs::read(&path).unwrap(),
                meta.modified().unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

#[test]
fn turned_off_synapse_holds_nothing_of_the_files() {
    let project = Project::new();
    project.start("s1");
    let count = |p: &Project| p.synapse(&["list"])["memories"].as_array().unwrap().len();
    assert!(count(&project) > 20);
    std::fs::create_dir_all(&project.data).unwrap();
    std::fs::write(
        project.data.join("config.toml"),
        "[sources]\nread = false\n",
    )
    .unwrap();
    let block = project.prompt("s1", "how are order summaries cached in redis?");
    assert!(!block.contains("ordsum"), "{block}");
    assert_eq!(count(&project), 0);
}

/// A copy of a file's piece follows its file: sharing it is refused with what to do instead, and
/// nothing is written to the team's file.
#[test]
fn a_piece_of_a_file_is_not_shared_as_a_copy() {
    let project = Project::new();
    project.start("s1");
    let listed = project.synapse(&["list"]);
    let topic = listed["memories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| {
            m["source"]
                .as_str()
                .unwrap()
                .starts_with("memory/caching.md")
        })
        .unwrap()["id"]
        .as_i64()
        .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_synapse"))
        .args(["share", &topic.to_string()])
        .env("SYNAPSE_DATA", &project.data)
        .env("HOME", &project.memory.home)
        .current_dir(&project.memory.repo)
        .output()
        .unwrap();
    assert!(!out.status.success(), "{out:?}");
    let error = String::from_utf8(out.stderr).unwrap();
    assert!(error.contains("import --from claude-memory"), "{error}");
    assert!(!project.memory.repo.join(".synapse/memories.jsonl").exists());
}

/// Drift over the fixture: exactly the gone paths, each with its file and line; the two retry
/// topics' contradiction with the newer file standing; the topic repeating a `CLAUDE.md` line.
#[test]
fn drift_finds_what_the_fixture_holds_with_files_and_lines() {
    let project = Project::new();
    let audit = project.synapse(&["drift"]);
    let place = |f: &Value, key: &str| {
        (
            f[key]["file"].as_str().unwrap_or("").to_owned(),
            f[key]["line"].as_u64().unwrap_or(0) as usize,
        )
    };
    let stale = audit["stale"].as_array().unwrap();
    let mut found: Vec<(String, usize)> = stale.iter().map(|f| place(f, "source")).collect();
    found.sort();
    let memory = &project.memory;
    let topic_file = |name: &str| {
        let path = memory.memory_dir.join(name);
        format!("~/{}", path.strip_prefix(&memory.home).unwrap().display())
    };
    let (hotfix_file, hotfix_path) = fixture::TOPIC_MISSING_PATH;
    let hotfix_text = std::fs::read_to_string(memory.memory_dir.join(hotfix_file)).unwrap();
    let hotfix_line = hotfix_text
        .lines()
        .position(|l| l.contains(hotfix_path))
        .unwrap()
        + 1;
    let mut expected: Vec<(String, usize)> = memory
        .missing_paths()
        .into_iter()
        .map(|(_, line)| ("CLAUDE.md".to_owned(), line))
        .collect();
    expected.push((topic_file(hotfix_file), hotfix_line));
    expected.sort();
    assert_eq!(found, expected, "{audit:#}");

    let conflicts = audit["conflict"].as_array().unwrap();
    let retries = conflicts
        .iter()
        .find(|f| place(f, "source").0 == topic_file(fixture::OLDER_RETRIES))
        .unwrap_or_else(|| panic!("{audit:#}"));
    assert_eq!(
        place(retries, "newer_source").0,
        topic_file(fixture::NEWER_RETRIES),
        "{retries:#}"
    );

    let duplicates = audit["duplicate"].as_array().unwrap();
    let repeat = duplicates
        .iter()
        .find(|f| place(f, "source").0 == topic_file(fixture::REPEATING_TOPIC))
        .unwrap_or_else(|| panic!("{audit:#}"));
    assert_eq!(
        place(repeat, "newer_source"),
        ("CLAUDE.md".to_owned(), memory.repeated_line()),
        "{repeat:#}"
    );
}

/// MEMORY.md reaches the model only through the client, and only while its auto memory is on:
/// with it off, a fact written there is the model's only through Synapse.
#[test]
fn memory_md_is_injected_only_when_the_client_does_not_load_it() {
    let project = Project::new();
    let index = project.memory.memory_dir.join("MEMORY.md");
    let fact = "- The staging database is reset every Sunday at 04:00 UTC by the janitor job.";
    std::fs::write(&index, format!("{}{fact}\n", project.memory.index)).unwrap();
    let asked = "when is the staging database reset by the janitor job?";
    let payload = |session: &str| {
        json!({"session_id": session, "cwd": project.memory.repo, "prompt": asked,
            "hook_event_name": "UserPromptSubmit"})
    };
    let on = project.hook("synapse-prompt-submit", payload("s1"), &[]);
    assert!(!on.contains("janitor job"), "{on}");
    let off = project.hook(
        "synapse-prompt-submit",
        payload("s2"),
        &[("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")],
    );
    assert!(off.contains("janitor job"), "{off}");
    assert!(off.contains("memory/MEMORY.md:"), "{off}");
}

/// `CLAUDE.md` is loaded into every session and tells the model to read four files that are
/// gone: the session's block names three of those lines (`CLAUDE.md:12 names
/// scripts/legacy_seed.py, which is gone`) and how many more, and the person's line counts them.
/// A resumed session was told at its start: nothing again.
#[test]
fn session_start_names_the_loaded_lines_that_point_to_gone_paths() {
    let project = Project::new();
    let payload = |source: &str| {
        json!({"session_id": "s1", "cwd": project.memory.repo, "source": source,
            "hook_event_name": "SessionStart", "transcript_path": "/dev/null"})
    };
    let home = project.memory.home.to_string_lossy().into_owned();
    let env = [("HOME", home.as_str())];
    let out = common::run_hook(
        "synapse-session-start",
        &project.data,
        payload("startup").to_string().as_bytes(),
        &env,
    );
    let printed: Value = serde_json::from_slice(&out.stdout).expect("JSON with a person's line");
    let block = printed["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    let missing = project.memory.missing_paths();
    for (path, line) in &missing[..3] {
        let said = format!("CLAUDE.md:{line} names {path}, which is gone");
        assert!(block.contains(&said), "{said} is not said:\n{block}");
    }
    let (fourth, _) = missing[3];
    assert!(!block.contains(fourth), "{block}");
    assert!(
        block.contains("1 more line of the files loaded into this session names gone paths"),
        "{block}"
    );
    let line = printed["systemMessage"].as_str().unwrap();
    assert!(
        line.ends_with(" · 4 loaded lines name gone paths"),
        "{line}"
    );

    let resumed = common::run_hook(
        "synapse-session-start",
        &project.data,
        payload("resume").to_string().as_bytes(),
        &env,
    );
    let resumed = String::from_utf8(resumed.stdout).unwrap();
    assert!(!resumed.contains("which is gone"), "{resumed}");

    // With a task to recall for, the lines close the block of notes.
    project.memory.on_api_branch();
    let block = project.start("s2");
    let (path, line) = missing[0];
    let said = format!("CLAUDE.md:{line} names {path}, which is gone\n");
    assert!(block.contains(&said), "{block}");
    assert!(
        block.ends_with("(`synapse drift` lists them).\n</synapse-memories>\n"),
        "{block}"
    );
}
