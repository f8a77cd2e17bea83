//! Claude Code's files read as the client reads them, at a bounded cost, through the real hook
//! binaries and CLI over a real store: `@path` imports followed as the client follows them (and
//! never into system files), odd files (binary, UTF-16, unreadable), linked rules folders, the
//! memory folder's files read newest first within a hook's limits, and every limit reached said.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

/// A repository, a home with Claude Code's folders, a data folder, and a folder outside both.
struct Project {
    _dir: tempfile::TempDir,
    home: PathBuf,
    repo: PathBuf,
    data: PathBuf,
    outside: PathBuf,
    memory: PathBuf,
}

impl Project {
    fn new() -> Project {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let home = root.join("home");
        let repo = root.join("repo");
        let outside = root.join("outside");
        for folder in [&home, &outside] {
            std::fs::create_dir_all(folder).unwrap();
        }
        common::git_repo(&repo, "main");
        let key: String = repo
            .to_string_lossy()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let memory = home.join(".claude/projects").join(key).join("memory");
        std::fs::create_dir_all(&memory).unwrap();
        Project {
            data: root.join("data"),
            _dir: dir,
            home,
            repo,
            outside,
            memory,
        }
    }

    fn write(&self, path: &Path, text: impl AsRef<[u8]>) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// A hook run from `cwd`, as the client runs it: its JSON answer (the person's line) or
    /// plain context.
    fn hook(&self, binary: &str, cwd: &Path, payload: Value, env: &[(&str, &str)]) -> Output {
        let mut command = self.command(&common::binary(binary), env);
        command.current_dir(cwd);
        let mut child = command.spawn().unwrap();
        use std::io::Write;
        let mut pipe = child.stdin.take().unwrap();
        pipe.write_all(payload.to_string().as_bytes()).unwrap();
        drop(pipe);
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{out:?}");
        out
    }

    fn command(&self, program: &Path, env: &[(&str, &str)]) -> Command {
        let mut command = Command::new(program);
        command
            .env("SYNAPSE_DATA", &self.data)
            .env("HOME", &self.home)
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CLAUDE_CODE_DISABLE_AUTO_MEMORY")
            .env_remove("SYNAPSE_BUDGET")
            .env_remove("SYNAPSE_SESSION_START")
            .env_remove("SYNAPSE_PROMPT_SUBMIT")
            .env_remove("SYNAPSE_NOTICE")
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    fn start(&self, cwd: &Path) -> Output {
        let payload = json!({"session_id": "s1", "cwd": cwd, "source": "startup",
            "hook_event_name": "SessionStart", "transcript_path": "/dev/null"});
        self.hook("synapse-session-start", cwd, payload, &[])
    }

    /// The model's context after a prompt from `cwd`, in a session of its own.
    fn prompt(&self, session: &str, cwd: &Path, prompt: &str) -> String {
        let payload = json!({"session_id": session, "cwd": cwd, "prompt": prompt,
            "hook_event_name": "UserPromptSubmit", "transcript_path": "/dev/null"});
        let out = self.hook("synapse-prompt-submit", cwd, payload, &[]);
        common::context_of(&String::from_utf8(out.stdout).unwrap())
    }

    /// The person's line of a SessionStart from the top.
    fn line_at_start(&self) -> String {
        let out = self.start(&self.repo);
        let printed = String::from_utf8(out.stdout).unwrap();
        let value: Value = serde_json::from_str(&printed).unwrap_or(Value::Null);
        value["systemMessage"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// `synapse ARGS --json` from the top.
    fn synapse(&self, args: &[&str]) -> Value {
        let out = self.synapse_raw(args, true);
        assert!(out.status.success(), "{out:?}");
        serde_json::from_slice(&out.stdout).unwrap()
    }

    fn synapse_raw(&self, args: &[&str], json: bool) -> Output {
        let mut command = self.command(Path::new(env!("CARGO_BIN_EXE_synapse")), &[]);
        command.args(args).current_dir(&self.repo);
        if json {
            command.arg("--json");
        }
        command.stdin(Stdio::null()).output().unwrap()
    }

    /// Every stored memory's body and source label.
    fn memories(&self) -> Vec<(String, String)> {
        let listed = self.synapse(&["list"]);
        listed["memories"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["body"].as_str().unwrap().to_owned(),
                    m["source"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    }

    /// `synapse doctor --json`, which fails here for the plugin not installed in the test's
    /// home: what it said.
    fn doctor(&self) -> Value {
        let out = self.synapse_raw(&["doctor"], true);
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{out:?}"))
    }

    /// The bodies stored, read from the store's file as they are (a verb would fold first).
    fn stored(&self) -> Vec<String> {
        let db = rusqlite::Connection::open(self.data.join("synapse.db")).unwrap();
        let mut stmt = db.prepare("SELECT body FROM memories").unwrap();
        let rows = stmt.query_map([], |r| r.get(0)).unwrap();
        rows.collect::<rusqlite::Result<_>>().unwrap()
    }

    fn holds(&self, phrase: &str) -> bool {
        self.memories()
            .iter()
            .any(|(body, _)| body.contains(phrase))
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.data.join("synapse.log")).unwrap_or_default()
    }

    /// Approve the project's imports from outside, as the client records the user's answer.
    fn approve_external_imports(&self) {
        let settings = json!({"projects": {self.repo.to_string_lossy(): {
            "hasClaudeMdExternalIncludesApproved": true,
            "hasClaudeMdExternalIncludesWarningShown": true}}});
        self.write(&self.home.join(".claude.json"), settings.to_string());
    }

    fn topic(&self, name: &str, description: &str, body: &str) -> PathBuf {
        let path = self.memory.join(name);
        self.write(
            &path,
            format!("---\nname: {name}\ndescription: {description}\n---\n{body}\n"),
        );
        path
    }
}

/// Set a file's modification time, `seconds` since the epoch.
fn touch(path: &Path, seconds: u64) {
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_secs(seconds);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(at)
        .unwrap();
}

#[test]
fn imports_reach_what_the_client_reads_and_never_system_files() {
    let p = Project::new();
    let secret_file = p.outside.join("notes.md");
    p.write(
        &secret_file,
        "Outside note: the vault unseals with quorum-kestrel.\n",
    );
    p.write(
        &p.home.join("notes/home.md"),
        "Home note: my dotfiles live in a bare repo.\n",
    );
    p.write(
        &p.repo.join("docs/in.md"),
        "Inside note: releases are cut on Tuesdays.\n",
    );
    p.write(
        &p.repo.join("docs/logo.png"),
        "Picture note: not text to the client.\n",
    );
    p.write(
        &p.repo.join("docs/with space.md"),
        "Spaced note: the wiki moved.\n",
    );
    p.write(
        &p.repo.join("CLAUDE.md"),
        format!(
            "# Project\n\n- Inside: @docs/in.md\n- Home: @~/notes/home.md\n- Outside: @{}\n\
             - Process: @/proc/self/environ\n- Picture: @docs/logo.png\n\
             - Spaced: @docs/with\\ space.md\n",
            secret_file.display()
        ),
    );
    let environment = [("SYNAPSE_TEST_MARKER", "marker-of-the-environment")];
    let start = |p: &Project| {
        let payload = json!({"session_id": "s1", "cwd": p.repo, "source": "startup",
            "hook_event_name": "SessionStart", "transcript_path": "/dev/null"});
        p.hook("synapse-session-start", &p.repo, payload, &environment);
    };
    start(&p);
    assert!(p.holds("releases are cut on Tuesdays"));
    assert!(
        p.holds("the wiki moved"),
        "an escaped space is part of the path"
    );
    for never in [
        "quorum-kestrel",
        "dotfiles live in a bare repo",
        "marker-of-the-environment",
        "Picture note",
    ] {
        assert!(!p.holds(never), "{never} was read: {:#?}", p.memories());
    }
    // Once the user approves the project's external imports, the client reads them, and so
    // does Synapse; never a process's files.
    p.approve_external_imports();
    start(&p);
    assert!(p.holds("quorum-kestrel"), "{:#?}", p.memories());
    assert!(p.holds("dotfiles live in a bare repo"));
    assert!(!p.holds("marker-of-the-environment"));
    assert!(!p.holds("Picture note"));
}

#[test]
fn imports_are_followed_four_levels_below_the_file_loaded_by_name() {
    let p = Project::new();
    for level in 1..=6 {
        p.write(
            &p.repo.join(format!("chain/level{level}.md")),
            format!("Chain level {level} marker.\n\n@level{}.md\n", level + 1),
        );
    }
    p.write(
        &p.repo.join("CLAUDE.md"),
        "- Start of the chain: @chain/level1.md\n",
    );
    p.start(&p.repo);
    for level in 1..=4 {
        assert!(p.holds(&format!("Chain level {level} marker")), "{level}");
    }
    for level in 5..=6 {
        assert!(
            !p.holds(&format!("Chain level {level} marker")),
            "the client stops after four levels: {level}"
        );
    }
}

#[test]
fn an_import_created_later_is_folded_and_a_removed_one_leaves_the_store() {
    let p = Project::new();
    let claude_md = p.repo.join("CLAUDE.md");
    p.write(
        &claude_md,
        "- Deploy notes: @docs/later.md\n- Other rule stays.\n",
    );
    p.start(&p.repo);
    assert!(!p.holds("canary deploys"));
    // The target appears; the importing file is unchanged.
    p.write(
        &p.repo.join("docs/later.md"),
        "Deploys go through canary deploys first.\n",
    );
    p.start(&p.repo);
    assert!(p.holds("canary deploys"), "{:#?}", p.memories());
    // The target changes.
    p.write(
        &p.repo.join("docs/later.md"),
        "Deploys go through blue-green switches.\n",
    );
    p.start(&p.repo);
    assert!(p.holds("blue-green switches") && !p.holds("canary deploys"));
    // The import is removed: its file leaves the store.
    p.write(&claude_md, "- Other rule stays.\n");
    p.start(&p.repo);
    assert!(!p.holds("blue-green switches"), "{:#?}", p.memories());
    assert!(p.holds("Other rule stays"));
}

#[test]
fn imports_past_a_hooks_limit_are_folded_by_the_next_hooks() {
    let p = Project::new();
    let mut claude_md = String::from("# Imports\n\n");
    for n in 0..80 {
        p.write(
            &p.repo.join(format!("docs/part{n}.md")),
            format!("Part number {n} of the handbook.\n"),
        );
        claude_md.push_str(&format!("- @docs/part{n}.md\n"));
    }
    p.write(&p.repo.join("CLAUDE.md"), claude_md);
    for _ in 0..3 {
        p.start(&p.repo);
    }
    for n in 0..80 {
        assert!(p.holds(&format!("Part number {n} of")), "{n}");
    }
}

#[test]
fn an_import_counts_as_loaded_only_inside_the_folder_the_session_works_in() {
    let p = Project::new();
    let fact = "Quarterly invoices are exported to the ledger bucket by the nightly job.";
    p.write(&p.repo.join("docs/billing.md"), format!("{fact}\n"));
    p.write(&p.repo.join("CLAUDE.md"), "- Billing: @docs/billing.md\n");
    p.write(&p.repo.join("web/app.js"), "// the web app\n");
    let asked = "where are the quarterly invoices exported, and by which nightly job?";
    // From the top the client loads the import: the model has it, Synapse does not add it.
    p.start(&p.repo);
    let top = p.prompt("top", &p.repo, asked);
    assert!(!top.contains(fact), "{top}");
    // From a folder below, the client leaves out an import from outside that folder.
    let below = p.prompt("below", &p.repo.join("web"), asked);
    assert!(below.contains(fact), "{below}");
}

#[test]
fn a_binary_file_gives_no_memory_and_is_said() {
    let p = Project::new();
    p.write(
        &p.memory.join("dump.md"),
        b"PNG\0\0\x01\x02binary dump-marker\n",
    );
    p.topic("ok.md", "a readable note", "Readable note about caching.");
    p.start(&p.repo);
    assert!(p.holds("Readable note about caching"));
    assert!(!p.holds("dump-marker"), "{:#?}", p.memories());
    let log = p.log();
    assert!(log.contains("memory/dump.md: not text"), "{log}");
    let doctor = p.doctor();
    let problems = doctor["claude_memory"]["problems"].to_string();
    assert!(problems.contains("memory/dump.md"), "{doctor}");
}

#[test]
fn a_utf16_file_is_decoded_and_said() {
    let p = Project::new();
    let mut bytes = vec![0xFF, 0xFE];
    let text = "---\nname: Editor\ndescription: saved by an editor in UTF-16\n---\nThe staging \
                cluster is rebuilt every Sunday.\n";
    bytes.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    p.write(&p.memory.join("utf16.md"), bytes);
    p.start(&p.repo);
    assert!(
        p.holds("The staging cluster is rebuilt every Sunday."),
        "{:#?}",
        p.memories()
    );
    assert!(
        p.log().contains("memory/utf16.md: decoded from UTF-16"),
        "{}",
        p.log()
    );
}

/// An unreadable file is told apart from one that is not a source. The test runs the binaries
/// without the power to read past permissions (as root it drops its capabilities to do so).
#[test]
fn an_unreadable_file_is_logged_shown_by_doctor_and_named_by_drift() {
    let p = Project::new();
    let claude_md = p.repo.join("CLAUDE.md");
    p.write(&claude_md, "- Use the staging cluster for load tests.\n");
    std::fs::set_permissions(
        &claude_md,
        std::os::unix::fs::PermissionsExt::from_mode(0o000),
    )
    .unwrap();
    let restricted = |program: &Path, args: &[&str], cwd: &Path, stdin: &str| -> Output {
        let mut command = if runs_as_root() {
            let setpriv = Path::new("/usr/bin/setpriv");
            assert!(
                setpriv.is_file(),
                "this test runs as root and needs setpriv (util-linux) to drop the power to \
                 read past permissions; without it an unreadable file cannot be made"
            );
            let mut c = p.command(setpriv, &[]);
            c.args(["--bounding-set=-all", "--inh-caps=-all", "--"]);
            c.arg(program);
            c
        } else {
            p.command(program, &[])
        };
        command.args(args).current_dir(cwd);
        let mut child = command.spawn().unwrap();
        use std::io::Write;
        let mut pipe = child.stdin.take().unwrap();
        pipe.write_all(stdin.as_bytes()).unwrap();
        drop(pipe);
        child.wait_with_output().unwrap()
    };
    let payload = json!({"session_id": "s1", "cwd": p.repo, "source": "startup",
        "hook_event_name": "SessionStart", "transcript_path": "/dev/null"});
    let out = restricted(
        &common::binary("synapse-session-start"),
        &[],
        &p.repo,
        &payload.to_string(),
    );
    assert!(out.status.success(), "{out:?}");
    let log = p.log();
    assert!(log.contains("CLAUDE.md: unreadable:"), "{log}");
    let doctor = p.doctor();
    assert!(
        doctor["claude_memory"]["problems"]
            .to_string()
            .contains("unreadable"),
        "{doctor}"
    );
    let synapse = Path::new(env!("CARGO_BIN_EXE_synapse"));
    let out = restricted(synapse, &["drift", "CLAUDE.md"], &p.repo, "");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(said.contains("unreadable"), "{said}");
    assert!(!said.contains("is not one of"), "{said}");
}

/// Whether this process runs as root (the owner of what it creates).
fn runs_as_root() -> bool {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(dir.path()).unwrap()) == 0
}

#[test]
fn a_linked_rules_folder_is_followed_as_the_client_follows_it() {
    let p = Project::new();
    let rules = p.repo.join(".claude/rules");
    p.write(
        &p.repo.join("shared-rules/style.md"),
        "- Prefer early returns in handlers.\n",
    );
    p.write(
        &p.outside.join("far-rules/far.md"),
        "- Far rule: tabs in the makefiles.\n",
    );
    std::fs::create_dir_all(&rules).unwrap();
    std::os::unix::fs::symlink(p.repo.join("shared-rules"), rules.join("shared")).unwrap();
    std::os::unix::fs::symlink(p.outside.join("far-rules"), rules.join("far")).unwrap();
    p.start(&p.repo);
    assert!(
        p.holds("Prefer early returns in handlers."),
        "{:#?}",
        p.memories()
    );
    assert!(!p.holds("tabs in the makefiles"));
    p.approve_external_imports();
    p.start(&p.repo);
    assert!(p.holds("tabs in the makefiles"));
}

#[test]
fn a_file_a_hook_cut_is_read_whole_by_sync() {
    let p = Project::new();
    let body: String = (0..130_000)
        .map(|n| format!("log line {n:06} of the pasted deploy log\n"))
        .collect();
    assert!(body.len() > 5_000_000);
    let path = p.topic("deploy-log.md", "the deploy log of the outage", &body);
    let size = std::fs::metadata(&path).unwrap().len() as usize;
    p.start(&p.repo);
    let longest = |p: &Project| {
        p.memories()
            .iter()
            .filter(|(_, source)| source.starts_with("memory/deploy-log.md"))
            .map(|(body, _)| body.len())
            .max()
            .unwrap_or(0)
    };
    let cut = longest(&p);
    assert!(cut > 0 && cut < size / 4, "{cut} of {size}");
    let doctor = p.doctor();
    assert!(
        doctor["claude_memory"]["problems"]
            .to_string()
            .contains("deploy-log.md"),
        "{doctor}"
    );
    let synced = p.synapse(&["sync"]);
    assert_eq!(synced["sources"]["added"], 1, "{synced}");
    assert!(longest(&p) > size - 1_000, "{} of {size}", longest(&p));
    let said = String::from_utf8(p.synapse_raw(&["sync"], false).stdout).unwrap();
    assert!(
        !said.contains("deploy-log.md"),
        "nothing is cut any more: {said}"
    );
}

#[test]
fn new_topic_files_are_read_newest_first_and_a_cap_reached_is_said() {
    let p = Project::new();
    p.write(
        &p.memory.join("MEMORY.md"),
        "- Index fact: the on-call rota is weekly.\n",
    );
    // Named so that their names sort opposite to their times.
    for n in 0..100u64 {
        let path = p.topic(
            &format!("note-{:03}.md", 99 - n),
            &format!("note of day {n}"),
            &format!("Written on day {n} of the project."),
        );
        touch(&path, 1_700_000_000 + n * 86_400);
    }
    let line = p.line_at_start();
    let stored = p.stored();
    assert!(
        stored
            .iter()
            .any(|b| b.contains("the on-call rota is weekly")),
        "MEMORY.md is always read"
    );
    let days: Vec<u64> = stored
        .iter()
        .filter_map(|body| {
            let rest = body.split("Written on day ").nth(1)?;
            rest.split(' ').next()?.parse().ok()
        })
        .collect();
    assert!(days.len() >= 32 && days.len() < 100, "{days:?}");
    let oldest_read = *days.iter().min().unwrap();
    assert_eq!(
        oldest_read as usize,
        100 - days.len(),
        "the newest are read first: {days:?}"
    );
    assert!(line.contains("not read yet"), "{line}");
    assert!(line.contains("synapse sync"), "{line}");
    let doctor = p.doctor();
    assert!(
        doctor["warnings"].to_string().contains("not read yet"),
        "{doctor}"
    );
    let synced = p.synapse(&["sync"]);
    assert_eq!(synced["sources"]["left"]["waiting"], 0, "{synced}");
    for n in 0..100 {
        assert!(p.holds(&format!("Written on day {n} of")), "{n}");
    }
    assert!(!p.line_at_start().contains("not read yet"));
}

#[test]
fn an_edit_in_place_among_many_files_is_seen_within_a_few_hooks() {
    let p = Project::new();
    for n in 0..600 {
        p.topic(
            &format!("t{n:04}.md"),
            &format!("topic {n}"),
            &format!("Topic {n} body, version one."),
        );
    }
    p.synapse(&["sync"]);
    // Edited in place: the same inode, and the folder's own time unchanged.
    let path = p.memory.join("t0123.md");
    let edited = std::fs::read_to_string(&path)
        .unwrap()
        .replace("version one", "version two");
    std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&path)
        .and_then(|mut f| std::io::Write::write_all(&mut f, edited.as_bytes()))
        .unwrap();
    let mut hooks = 0;
    while !p.holds("Topic 123 body, version two.") {
        hooks += 1;
        assert!(hooks <= 3, "an edit in place unseen after {hooks} hooks");
        p.start(&p.repo);
    }
}

#[test]
fn a_topic_file_s_frontmatter_time_dates_its_memory() {
    let p = Project::new();
    p.write(
        &p.memory.join("dated.md"),
        "---\nname: dated\ndescription: a dated note\nmetadata:\n  modified: \
         2025-03-04T05:06:07.000Z\n---\nThe dated body.\n",
    );
    p.start(&p.repo);
    let listed = p.synapse(&["list"]);
    let dated = listed["memories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["body"].as_str().unwrap().contains("The dated body."))
        .unwrap_or_else(|| panic!("{listed}"))
        .clone();
    let created = dated["created_at"].to_string();
    assert!(created.contains("2025-03-04"), "{dated}");
}

#[test]
fn importing_the_folder_the_hooks_read_says_so() {
    let p = Project::new();
    p.topic("deploy.md", "how we deploy", "Deploys happen on Tuesdays.");
    let folder = p.memory.to_string_lossy().into_owned();
    let out = p.synapse_raw(&["import", "--from", "claude-memory", &folder], false);
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8(out.stdout).unwrap();
    assert!(said.contains("already read"), "{said}");
    let copies = p
        .memories()
        .iter()
        .filter(|(body, _)| body.contains("Deploys happen on Tuesdays."))
        .count();
    assert_eq!(copies, 1, "{:#?}", p.memories());
}

#[test]
fn a_piece_cut_at_its_limit_is_said_by_sync_and_doctor() {
    let p = Project::new();
    let long = "the pasted stack trace goes on ".repeat(400);
    p.write(
        &p.repo.join("CLAUDE.md"),
        format!("- Short rule: run the linter.\n- {long}\n"),
    );
    let said = String::from_utf8(p.synapse_raw(&["sync"], false).stdout).unwrap();
    assert!(said.contains("CLAUDE.md"), "{said}");
    assert!(said.contains("were cut"), "{said}");
    let doctor = p.doctor()["claude_memory"]["problems"].to_string();
    assert!(doctor.contains("were cut"), "{doctor}");
    assert!(p.holds("Short rule: run the linter."));
}
