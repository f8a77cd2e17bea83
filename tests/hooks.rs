//! The hook binaries, run as Claude Code runs them: a JSON payload on stdin, in a git
//! repository with a branch and changed files, against a real store on disk.

use crate::common;

use std::path::PathBuf;
use std::process::Output;

use rstest::rstest;
use serde_json::{json, Value};
use synapse::plugin::hook;

struct Repo {
    _dir: tempfile::TempDir,
    path: PathBuf,
    data: PathBuf,
}

impl Repo {
    /// A repository on `feature/webhook-retries` with `src/webhooks/retry.rs` changed.
    fn new() -> Repo {
        // Under target/tmp, not /tmp: drift never calls paths under a temporary folder missing.
        let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let path = dir.path().join("repo");
        std::fs::create_dir_all(path.join("src/webhooks")).unwrap();
        common::git_repo(&path, "main");
        let git = |args: &[&str]| common::git(&path, args);
        std::fs::write(path.join("README.md"), "x").unwrap();
        std::fs::write(path.join("src/webhooks/retry.rs"), "fn retry() {}").unwrap();
        git(&["add", "."]);
        git(&["commit", "-q", "-m", "init"]);
        git(&["checkout", "-q", "-b", "feature/webhook-retries"]);
        std::fs::write(path.join("src/webhooks/retry.rs"), "fn retry() { todo!() }").unwrap();
        Repo {
            data: dir.path().join("data"),
            path: path.canonicalize().unwrap(),
            _dir: dir,
        }
    }

    /// A repository on `branch` with `files` committed (on `main`) and nothing changed.
    fn committed(files: &[&str], branch: &str) -> Repo {
        let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let path = dir.path().join("repo");
        common::git_repo(&path, "main");
        for file in files {
            let file = path.join(file);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, "first\n").unwrap();
        }
        common::git(&path, &["add", "."]);
        common::git(&path, &["commit", "-q", "-m", "files"]);
        common::git(&path, &["checkout", "-q", "-b", branch]);
        Repo {
            data: dir.path().join("data"),
            path: path.canonicalize().unwrap(),
            _dir: dir,
        }
    }

    fn remember(&self, text: &str) -> i64 {
        let out = common::run_synapse(
            &self.data,
            &self.path,
            &["remember", "--json", "--", text],
            b"",
        );
        assert!(out.status.success(), "{out:?}");
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["id"]
            .as_i64()
            .unwrap()
    }

    fn bodies(&self) -> Vec<String> {
        let out = common::run_synapse(&self.data, &self.path, &["list", "--json"], b"");
        let list: Value = serde_json::from_slice(&out.stdout).unwrap();
        list["memories"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["body"].as_str().unwrap().to_owned())
            .collect()
    }

    fn hook(&self, binary: &str, payload: &Value, env: &[(&str, &str)]) -> Output {
        common::run_hook(binary, &self.data, payload.to_string().as_bytes(), env)
    }

    /// The model's context at a session's start.
    fn start(&self, session: &str, source: &str) -> String {
        self.start_printed(session, source).context
    }

    fn start_printed(&self, session: &str, source: &str) -> Printed {
        let payload = json!({"session_id": session, "cwd": self.path, "source": source,
            "hook_event_name": "SessionStart", "transcript_path": "/dev/null"});
        printed(self.hook("synapse-session-start", &payload, &[]))
    }

    /// The model's context at a prompt.
    fn prompt(&self, session: &str, prompt: &str) -> String {
        let payload = json!({"session_id": session, "cwd": self.path, "prompt": prompt,
            "hook_event_name": "UserPromptSubmit", "transcript_path": "/dev/null"});
        printed(self.hook("synapse-prompt-submit", &payload, &[])).context
    }

    /// The person's line after a reply; the model is never given anything there.
    fn stop(&self, session: &str, message: &str) -> Option<String> {
        let payload = json!({"session_id": session, "cwd": self.path, "stop_hook_active": false,
            "last_assistant_message": message, "hook_event_name": "Stop"});
        let printed = printed(self.hook("synapse-stop", &payload, &[]));
        assert_eq!(printed.context, "", "Stop gives the model nothing");
        printed.line
    }

    fn log_lines(&self) -> usize {
        std::fs::read_to_string(self.data.join("synapse.log")).map_or(0, |l| l.lines().count())
    }
}

fn stdout(out: Output) -> String {
    assert!(out.status.success(), "a hook must exit 0: {out:?}");
    assert!(
        out.stderr.is_empty(),
        "a hook must not write stderr: {out:?}"
    );
    String::from_utf8(out.stdout).unwrap()
}

/// What a hook printed, as Claude Code reads it: the model's context and the person's line.
#[derive(Debug)]
struct Printed {
    context: String,
    line: Option<String>,
}

/// Plain output is the model's context alone; JSON has the person's line in `systemMessage` and
/// the context, less its last newline, in `additionalContext` (given back here).
fn printed(out: Output) -> Printed {
    let text = stdout(out);
    if !text.starts_with('{') {
        return Printed {
            context: text,
            line: None,
        };
    }
    let value: Value = serde_json::from_str(&text).expect("a hook's JSON parses");
    assert!(text.ends_with("}\n") && text.lines().count() == 1, "{text}");
    let context = &value["hookSpecificOutput"]["additionalContext"];
    Printed {
        context: context.as_str().map_or(String::new(), |c| format!("{c}\n")),
        line: value["systemMessage"].as_str().map(str::to_owned),
    }
}

/// The line of `block` that opens memory `id`'s entry: `[id] age · source · mark`.
fn header(block: &str, id: i64) -> &str {
    block
        .lines()
        .find(|l| l.starts_with(&format!("[{id}] ")))
        .unwrap_or_else(|| panic!("{id} is not injected: {block}"))
}

#[test]
fn session_start_injects_what_the_branch_and_files_are_about_and_leaves_the_stale_out() {
    let repo = Repo::new();
    let older = repo.remember("Webhook retries: 3 attempts, see src/webhooks/retry.rs");
    let newer =
        repo.remember("Webhook retries: 5 attempts with backoff, see src/webhooks/retry.rs");
    let stale = repo.remember("The webhook retries parser lives in src/legacy/webhook_parser.rs");
    repo.remember("Use pnpm, not npm, for the dashboard");

    let block = repo.start("s1", "startup");
    assert!(block.starts_with("<synapse-memories>"), "{block}");
    assert!(block.contains("advisory"), "{block}");
    assert!(block.contains(&format!("[{newer}] today")), "{block}");
    assert!(block.contains("5 attempts with backoff"), "{block}");
    // A rule guessed the conflict: both are shown, the newer first, the older marked.
    assert!(block.contains("3 attempts,"), "{block}");
    assert!(
        header(&block, older).contains(&format!("older; #{newer}, written the same day")),
        "{block}"
    );
    assert!(
        block.find(&format!("[{newer}]")) < block.find(&format!("[{older}]")),
        "{block}"
    );
    assert!(
        !block.contains("pnpm"),
        "unrelated memories stay out: {block}"
    );
    let left = block.lines().find(|l| l.starts_with("Left out:")).unwrap();
    assert!(left.contains(&format!("{stale} is stale")), "{left}");
    assert!(!left.contains(&format!("{older} ")), "{left}");
    assert!(
        block.contains("the mcp__plugin_synapse_synapse__readmemory tool with its id")
            && block.contains("Claude Code's memory files")
            && !block.contains("/synapse:"),
        "{block}"
    );
    assert!(block.ends_with("</synapse-memories>\n"));
}

/// Only what is certain leaves a memory out: of memories all about the branch, a look-alike
/// pair and a guessed conflict are injected whole (the conflict's older side marked), a stale
/// one and a folded repeat are left out, and the left-out line names those two alone.
#[test]
fn only_certain_findings_leave_a_memory_out() {
    let repo = Repo::new();
    let connect = repo.remember("Webhook retries: the connect timeout is 5s");
    let read = repo.remember("Webhook retries: the read timeout is 30s");
    let older = repo.remember("Webhook retries back off 2 seconds between attempts");
    let newer = repo.remember("Webhook retries now back off 10 seconds between attempts");
    let stale = repo.remember("The webhook retries parser lives in src/legacy/webhook_parser.rs");
    let repeated = repo.remember("Webhook retries use the shared HTTP client.");
    let repeat = repo.remember("webhook retries use the shared http client");

    let block = repo.start("s1", "startup");
    for id in [connect, read, older, newer, repeat] {
        assert!(block.contains(&format!("[{id}] ")), "{id}: {block}");
    }
    // The look-alike may be taken for a conflict (one side then marked older), never left out.
    assert!(block.contains("the connect timeout is 5s"), "{block}");
    assert!(block.contains("the read timeout is 30s"), "{block}");
    assert!(!header(&block, newer).contains("older;"), "{block}");
    assert!(
        header(&block, older).contains(&format!("older; #{newer}")),
        "{block}"
    );
    for id in [stale, repeated] {
        assert!(!block.contains(&format!("[{id}] ")), "{id}: {block}");
    }
    let left = block.lines().find(|l| l.starts_with("Left out:")).unwrap();
    assert!(left.contains(&format!("{stale} is stale")), "{left}");
    assert!(
        left.contains(&format!("{repeated} repeats {repeat}")),
        "{left}"
    );
    assert_eq!(left.matches("; ").count(), 1, "{left}");
}

/// `[drift] ignore` in config.toml reaches the hooks: a memory naming a gone path it matches is
/// offered, not left out as stale; one naming another gone path still is.
#[test]
fn the_drift_ignore_list_reaches_the_hooks() {
    let repo = Repo::new();
    std::fs::create_dir_all(&repo.data).unwrap();
    let config = "[drift]\nignore = [\"src/legacy/\"]\n";
    std::fs::write(repo.data.join("config.toml"), config).unwrap();
    let ignored = repo.remember("The webhook retries parser lives in src/legacy/webhook_parser.rs");
    let stale = repo.remember("The webhook retries queue lives in src/gone/webhook_queue.rs");
    let block = repo.start("s1", "startup");
    assert!(block.contains(&format!("[{ignored}] ")), "{block}");
    assert!(!block.contains(&format!("[{stale}] ")), "{block}");
    let left = block.lines().find(|l| l.starts_with("Left out:")).unwrap();
    assert!(left.contains(&format!("{stale} is stale")), "{left}");
}

/// The prompt hook, too: a guessed conflict whose two sides both bear on the prompt is shown
/// whole, the newer first and the older marked, within the prompt's three places.
#[test]
fn a_prompt_gets_both_sides_of_a_guessed_conflict() {
    let repo = Repo::new();
    let older = repo.remember("The nightly export job runs at 02:00 UTC");
    let newer = repo.remember("The nightly export job runs at 04:30 UTC now");
    let block = repo.prompt("p1", "When does the nightly export job run?");
    assert!(
        block.find(&format!("[{newer}]")) < block.find(&format!("[{older}]")),
        "{block}"
    );
    assert!(
        header(&block, older).contains(&format!("older; #{newer}")),
        "{block}"
    );
    assert!(!block.contains("Left out:"), "{block}");
}

/// A value updated again and again: SessionStart injects the newest whole, names the earlier
/// versions by id on its line (their text stays out, and they are not called left out), and
/// still injects the other memories about the branch (the earlier versions take no places).
#[rstest]
#[case::three_versions(3)]
#[case::ten_versions(10)]
fn a_chain_of_updates_injects_the_newest_and_the_rest_of_the_subject(#[case] versions: usize) {
    let repo = Repo::new();
    let others: Vec<i64> = [
        "Webhook retries are signed again with HMAC; verify before parsing the body.",
        "Webhook retries that all fail land in the dead-letter table.",
        "Webhook handlers must stay idempotent: retries resend the same event id.",
    ]
    .iter()
    .map(|t| repo.remember(t))
    .collect();
    let chain: Vec<i64> = (1..=versions)
        .map(|n| {
            repo.remember(&format!(
                "Webhook retries: {} attempts before giving up.",
                n + 1
            ))
        })
        .collect();
    let (&newest, earlier) = chain.split_last().unwrap();

    let block = repo.start("s1", "startup");
    assert!(
        block.contains(&format!("{} attempts", versions + 1)),
        "{block}"
    );
    let line = header(&block, newest);
    assert!(line.contains("earlier versions: #"), "{block}");
    for older in earlier {
        assert!(
            !block.contains(&format!("[{older}]")),
            "{older} injected: {block}"
        );
        assert!(line.contains(&format!("#{older}")), "{older}: {line}");
    }
    assert!(!block.contains("Left out:"), "{block}");
    for id in &others {
        assert!(block.contains(&format!("[{id}]")), "{id} missing: {block}");
    }
}

#[rstest]
#[case::lean("lean", 4)]
#[case::balanced("balanced", 8)]
#[case::full("full", 25)]
fn the_block_stays_under_nine_thousand_characters_on_every_budget(
    #[case] budget: &str,
    #[case] most: usize,
) {
    let repo = Repo::new();
    for i in 0..30 {
        repo.remember(&format!(
            "Webhook retries note {i}: {}",
            "retry detail ".repeat(150)
        ));
    }
    let payload = json!({"session_id": budget, "cwd": repo.path, "source": "startup"});
    let block = printed(repo.hook(
        "synapse-session-start",
        &payload,
        &[("SYNAPSE_BUDGET", budget)],
    ))
    .context;
    let shown = block.matches("] today").count();
    assert!(block.chars().count() < 9_000, "{budget}: {}", block.len());
    assert!(shown >= 1, "{budget}: {block}");
    assert!(shown <= most, "{budget}: {shown}");
}

/// A change to a file `[signal] ignore` matches (by default lockfiles and build output) leaves
/// SessionStart injecting exactly what it injects with nothing changed, while the same change
/// with nothing ignored, or a change to a source file, brings the memory that names the file.
#[rstest]
#[case::a_lockfile(None, &["Cargo.lock"], false)]
#[case::lockfiles_at_any_depth(None, &["Cargo.lock", "web/package-lock.json"], false)]
#[case::build_output(None, &["web/dist/app.js"], false)]
#[case::a_source_file(None, &["src/billing/invoice.rs"], true)]
#[case::a_source_file_beside_a_lockfile(None, &["Cargo.lock", "src/billing/invoice.rs"], true)]
#[case::a_user_pattern(Some("[signal]\nignore = [\"src/billing/\"]\n"), &["src/billing/invoice.rs"], false)]
#[case::a_user_list_replaces_the_defaults(Some("[signal]\nignore = [\"*.md\"]\n"), &["Cargo.lock"], true)]
#[case::drift_ignore_is_not_signal_ignore(Some("[drift]\nignore = [\"src/\"]\n"), &["src/billing/invoice.rs"], true)]
fn ignored_changes_do_not_steer_session_start(
    #[case] config: Option<&str>,
    #[case] changed: &[&str],
    #[case] steers: bool,
) {
    let files = [
        "Cargo.lock",
        "web/package-lock.json",
        "web/dist/app.js",
        "src/billing/invoice.rs",
        "src/webhooks/retry.rs",
    ];
    let repo = Repo::committed(&files, "feature/webhook-retries");
    let set_config = |text: &str| {
        std::fs::create_dir_all(&repo.data).unwrap();
        std::fs::write(repo.data.join("config.toml"), text).unwrap();
    };
    if let Some(config) = config {
        set_config(config);
    }
    let branch =
        repo.remember("Webhook retries: 5 attempts with backoff, see src/webhooks/retry.rs");
    // The branch's words are in other memories too, so a changed file's one rare word is the
    // rarest term of the signal and may bring the memory naming it alone.
    repo.remember("The webhook signing secret rotates monthly");
    repo.remember("HTTP retries add jitter to the backoff");
    let named = [
        repo.remember("Cargo.lock changes go in a feature branch of their own"),
        repo.remember("The web package-lock.json pins npm 10"),
        repo.remember("web/dist/app.js is built by esbuild from web/src"),
        repo.remember("Invoice totals are rounded half-even in src/billing/invoice.rs"),
    ];
    let brings_a_named_one = |out: &str| named.iter().any(|id| out.contains(&format!("[{id}]")));
    let unchanged = repo.start("before", "startup");
    assert!(unchanged.contains(&format!("[{branch}]")), "{unchanged}");
    assert!(!brings_a_named_one(&unchanged), "{unchanged}");

    for file in changed {
        std::fs::write(repo.path.join(file), "second\n").unwrap();
    }
    let changed_start = repo.start("after", "startup");
    if steers {
        assert!(
            brings_a_named_one(&changed_start),
            "{changed:?}: {changed_start}"
        );
    } else {
        assert_eq!(
            changed_start, unchanged,
            "{changed:?} must not steer what is injected"
        );
        // With nothing ignored, the same change brings the memory naming the file.
        set_config("[signal]\nignore = []\n");
        let nothing_ignored = repo.start("nothing ignored", "startup");
        assert!(
            brings_a_named_one(&nothing_ignored),
            "{changed:?} would steer: {nothing_ignored}"
        );
    }
    assert_eq!(repo.log_lines(), 0);
}

#[test]
fn without_a_signal_session_start_says_one_status_line() {
    let repo = Repo::new();
    repo.remember("Use pnpm, not npm, for the dashboard");
    let clean = repo.path.join("clean");
    std::fs::create_dir(&clean).unwrap();
    git2::Repository::init(&clean).unwrap();
    let payload = json!({"session_id": "s", "cwd": clean, "source": "startup"});
    let out = printed(repo.hook("synapse-session-start", &payload, &[])).context;
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.contains("no memories for this project yet"), "{out}");
}

#[test]
fn prompts_never_bring_the_same_memory_twice_until_the_context_is_compacted() {
    let repo = Repo::new();
    let id = repo.remember("Idempotency keys are stored in Redis for 24 hours");
    let first = repo.prompt("s", "how long are idempotency keys kept in redis?");
    assert!(first.contains(&format!("[{id}]")), "{first}");
    assert_eq!(
        repo.prompt("s", "how long are idempotency keys kept in redis?"),
        ""
    );
    assert_eq!(
        repo.prompt("s", "thanks, that was it"),
        "",
        "most prompts inject nothing"
    );

    let resumed = repo.start("s", "resume");
    assert!(
        !resumed.contains(&format!("[{id}]")),
        "resume repeats nothing: {resumed}"
    );
    repo.start("s", "compact");
    let again = repo.prompt("s", "how long are idempotency keys kept in redis?");
    assert!(
        again.contains(&format!("[{id}]")),
        "compact clears what was given: {again}"
    );
    let other = repo.prompt("another session", "idempotency keys redis");
    assert!(other.contains(&format!("[{id}]")), "{other}");
}

/// On a feature branch, the branch and changed files may order what a prompt finds, never admit
/// it: a memory about the branch that the prompt does not ask about stays out.
#[test]
fn only_the_prompt_s_own_words_let_a_memory_in() {
    let repo = Repo::new();
    let on_branch =
        repo.remember("Webhook retries back off exponentially, see src/webhooks/retry.rs");
    let one_word = repo.remember("Webhook retries show up on the dashboard under Deliveries");
    let asked = repo.remember("The dashboard build is configured in vite.config.ts");

    let block = repo.prompt("s", "where is the dashboard build configured?");
    assert!(block.contains(&format!("[{asked}]")), "{block}");
    assert!(
        !block.contains(&format!("[{on_branch}]")),
        "branch words alone admit nothing: {block}"
    );
    assert!(
        !block.contains(&format!("[{one_word}]")),
        "one prompt word of three is not enough, whatever the branch adds: {block}"
    );
    assert_eq!(
        repo.prompt("s2", "ok, go on"),
        "",
        "a prompt that asks nothing gets nothing on a feature branch"
    );
}

/// The signal orders only among memories holding as many of the prompt's words: three memories
/// about the branch that share two words with the prompt do not push out the one that holds all
/// four (before, the branch's came first and took the three places).
#[test]
fn a_memory_holding_more_of_the_prompt_comes_before_the_branch_s() {
    let repo = Repo::new();
    let on_task = [
        repo.remember("Webhook retries for catalog updates are in src/webhooks/retry.rs"),
        repo.remember("Webhook retries send catalog events to the search service again"),
        repo.remember("Webhook retries pause while the search index is busy"),
    ];
    let asked =
        repo.remember("Rebuild the catalog search index with `make reindex`; it takes ten minutes");

    let block = repo.prompt("s", "how do we rebuild the catalog search index?");
    let place = |id: &i64| block.find(&format!("[{id}]"));
    let first = place(&asked).unwrap_or_else(|| panic!("the asked memory is injected: {block}"));
    for id in &on_task {
        assert!(
            place(id).is_none_or(|at| at > first),
            "memory {id} holds two of the prompt's words, the asked one four: {block}"
        );
    }
}

/// Memories that only clear the prompt's floor are named by a pointer (id, age, first line cut
/// short) under one line of frame: no header, no footer, none of their other lines.
#[test]
fn hits_over_the_floor_without_strong_evidence_are_pointers_under_a_one_line_frame() {
    let repo = Repo::new();
    let long = format!(
        "Deploys go out from the main branch every Friday afternoon, after {}\nSecond line stays out",
        "the release notes are reviewed and the changelog is merged by whoever is on call that week"
    );
    let friday = repo.remember(&long);
    let review = repo.remember("The main branch is protected: deploys and merges need one review");
    repo.remember("The canary runs in eu-west only");

    let block = repo.prompt("s", "does the canary deploy from the main branch?");
    assert_eq!(
        block.lines().count(),
        5,
        "tags, frame, two pointers: {block}"
    );
    assert!(block.contains("(readmemory tool):"), "{block}");
    assert!(!block.contains("/synapse:"), "{block}");
    assert!(!block.contains("Read a whole memory"), "no footer: {block}");
    assert!(!block.contains("earlier sessions"), "no header: {block}");
    let first = block
        .lines()
        .find(|l| l.starts_with(&format!("[{friday}] today: Deploys go out")))
        .unwrap_or_else(|| panic!("a pointer to {friday}: {block}"));
    assert!(
        first.ends_with('…') && first.chars().count() < 130,
        "{first}"
    );
    assert!(!block.contains("Second line"), "{block}");
    assert!(
        block.contains(&format!("[{review}] today: The main branch is protected")),
        "{block}"
    );
    assert!(
        !block.contains("eu-west"),
        "one word of four is below the floor: {block}"
    );
}

/// Recall's best hit holding the prompt's rarest term and three of its terms comes whole, in the
/// full frame, and what else clears the floor follows as pointers.
#[test]
fn a_hit_with_strong_evidence_is_injected_whole_before_the_pointers() {
    let repo = Repo::new();
    let whole = repo
        .remember("Idempotency keys are stored in Redis for 24 hours\nA sweep drops older ones");
    let pointed = repo.remember("Redis keys for sessions expire after 7 days");

    let block = repo.prompt("s", "how long are idempotency keys kept in redis?");
    assert!(block.contains("earlier sessions"), "the header: {block}");
    assert!(
        block.contains("\"remember (replaces #ID): ...\""),
        "the footer: {block}"
    );
    assert!(block.contains(&format!("[{whole}] today")), "{block}");
    assert!(
        block.contains("\n    A sweep drops older ones\n"),
        "{block}"
    );
    assert!(
        block.contains(&format!(
            "\n[{pointed}] today: Redis keys for sessions expire"
        )),
        "{block}"
    );
    assert!(!block.contains("    Redis keys for sessions"), "{block}");
}

#[test]
fn a_prompt_sharing_one_word_of_several_gets_nothing() {
    let repo = Repo::new();
    repo.remember("The canary runs in eu-west only");
    assert_eq!(
        repo.prompt("s", "what colour should the canary dashboard theme use?"),
        ""
    );
}

#[test]
fn stop_records_marked_lessons_once_and_masks_secrets() {
    let repo = Repo::new();
    let reply =
        "Fixed it.\nremember: The deploy token is DEPLOY_TOKEN=s3cr3tvalue; rotate monthly\n\
                 <remember>Run `make migrate` before the API tests</remember>";
    assert_eq!(
        repo.stop("sess-1", reply).as_deref(),
        Some("Synapse saved #1, #2 (1 secret masked)")
    );
    assert_eq!(
        repo.stop("sess-1", reply).as_deref(),
        Some("Synapse #1, #2 were already kept (1 secret masked)")
    );
    let bodies = repo.bodies();
    assert_eq!(bodies.len(), 2, "{bodies:?}");
    assert!(bodies
        .iter()
        .any(|b| b == "Run `make migrate` before the API tests"));
    let token = bodies.iter().find(|b| b.contains("deploy token")).unwrap();
    assert!(
        !token.contains("s3cr3tvalue") && token.contains("[secret]"),
        "{token}"
    );
    let out = common::run_synapse(&repo.data, &repo.path, &["list", "--json"], b"");
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let source = list["memories"][0]["source"].as_str().unwrap();
    assert!(source.starts_with("session sess-1 "), "{source}");
    assert_eq!(repo.stop("sess-1", "No lessons here."), None);
    assert_eq!(repo.bodies().len(), 2);
}

/// The supersede actions recorded for memory `id` of `repo`'s project (or another `project`),
/// each with the memory that replaced it.
fn supersedes_of(repo: &Repo, id: i64, project: Option<&str>) -> Vec<Value> {
    let id = id.to_string();
    let mut args = vec!["history", "--json", &id];
    args.extend(project.map(|p| ["--project", p]).into_iter().flatten());
    let out = common::run_synapse(&repo.data, &repo.path, &args, b"");
    assert!(out.status.success(), "{out:?}");
    common::supersedes(&serde_json::from_slice(&out.stdout).unwrap())
}

fn log_text(repo: &Repo) -> String {
    std::fs::read_to_string(repo.data.join("synapse.log")).unwrap_or_default()
}

/// `remember (replaces #N): ...` in a reply replaces N once, recorded as a supersede, and the
/// next block tells the session what it replaced, once.
#[test]
fn a_reply_replaces_a_memory_the_session_was_given_once_and_the_next_block_says_so() {
    let repo = Repo::new();
    let old = repo.remember("Webhook retry limit is 5 attempts");
    let block = repo.prompt("s1", "what is the webhook retry limit?");
    assert!(block.contains(&format!("[{old}]")), "{block}");

    let reply = format!("Raised it.\nremember (replaces #{old}): Webhook retries: 8 attempts");
    let line = repo.stop("s1", &reply).unwrap();
    assert!(line.starts_with("Synapse saved #"), "{line}");
    let again = repo.stop("s1", &reply).unwrap();
    assert!(
        again.ends_with("was already kept"),
        "the same reply seen again: {again}"
    );
    assert_eq!(repo.bodies(), ["Webhook retries: 8 attempts"]);
    let new = repo.remember("Webhook retries: 8 attempts");
    assert_eq!(supersedes_of(&repo, old, None), [json!(new)]);
    assert_eq!(repo.log_lines(), 0, "{}", log_text(&repo));

    let next = repo.prompt("s1", "webhook retry attempts?");
    let said = format!("{old}, given earlier, is replaced by {new} (written this session)");
    assert!(next.contains(&said), "{next}");
    assert!(!repo
        .prompt("s1", "webhook retry attempts again?")
        .contains(&said));
}

/// A reply naming a memory the session cannot see (another project's) replaces nothing; the
/// refusal is logged and the lesson kept.
#[test]
fn a_reply_replacing_another_project_s_memory_is_refused_logged_and_the_lesson_kept() {
    let repo = Repo::new();
    let args = [
        "remember",
        "--json",
        "--project",
        "elsewhere",
        "--",
        "Webhook retries: 9",
    ];
    let out = common::run_synapse(&repo.data, &repo.path, &args, b"");
    let theirs = serde_json::from_slice::<Value>(&out.stdout).unwrap()["id"]
        .as_i64()
        .unwrap();

    let reply = format!("remember (replaces #{theirs}): Webhook retries: 8 attempts");
    let line = repo.stop("s1", &reply).unwrap();
    assert!(line.starts_with("Synapse saved #"), "{line}");
    assert_eq!(repo.bodies(), ["Webhook retries: 8 attempts"]);
    assert!(supersedes_of(&repo, theirs, Some("elsewhere")).is_empty());
    assert_eq!(repo.log_lines(), 1);
    let log = log_text(&repo);
    assert!(log.contains(&format!("replaces {theirs} refused")), "{log}");
    assert!(!log.contains("Webhook"), "the log quotes no lesson: {log}");
}

/// The auto-memory folder Claude Code keeps for `repo`.
fn memory_folder(repo: &Repo) -> PathBuf {
    common::claude_memory::memory_folder(&common::test_home(&repo.data), &repo.path)
}

/// Write the topic file `name` with `body`, last modified `days` ago.
fn topic_file(folder: &std::path::Path, name: &str, body: &str, days: u64) {
    let when = common::claude_memory::days_ago(days);
    common::claude_memory::write_topic(
        &folder.join(name),
        name,
        "webhook delivery retries",
        body,
        when,
    );
}

/// The id of the memory whose text holds `text`, among those `repo`'s project sees.
fn id_of(repo: &Repo, text: &str) -> i64 {
    let out = common::run_synapse(&repo.data, &repo.path, &["list", "--json"], b"");
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    list["memories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["body"].as_str().unwrap().contains(text))
        .unwrap_or_else(|| panic!("no memory holds {text:?}: {list}"))["id"]
        .as_i64()
        .unwrap()
}

/// Two topic files folded in the opposite order to their dates: the newer file (8 attempts,
/// written 2 days ago) is folded first and holds the smaller id. Newer means written later, so
/// the blocks, recall and the audit all name the 8 the newer memory. By ids, a check of the 5
/// found no newer memory (only larger ids were looked at): recall returning the 5 said no drift,
/// while the audit reported the conflict.
#[test]
fn files_folded_against_their_dates_are_newer_by_date_everywhere() {
    let repo = Repo::new();
    let folder = memory_folder(&repo);
    topic_file(
        &folder,
        "retry-count.md",
        "Webhook retries: 8 attempts before a delivery is dropped.",
        2,
    );
    repo.start("fold", "startup");
    topic_file(
        &folder,
        "retry-count-old.md",
        "Webhook retries: at most 5 attempts before a delivery is dropped.",
        10,
    );
    repo.start("fold", "startup");
    let (eight, five) = (id_of(&repo, "8 attempts"), id_of(&repo, "5 attempts"));
    assert!(eight < five, "the newer file was folded first");

    // The newer first; the older, if shown, after it and marked older where a block shows
    // marks.
    let block = repo.prompt("s1", "how many times do webhooks retry?");
    let at = |block: &str, id: i64| block.find(&format!("[{id}]"));
    let (newer_at, older_at) = (at(&block, eight).expect(&block), at(&block, five));
    assert!(older_at.is_none_or(|o| o > newer_at), "{block}");
    assert!(!header(&block, eight).contains("older"), "{block}");
    let block = repo.start("s2", "startup");
    assert!(!header(&block, eight).contains("older"), "{block}");
    if at(&block, five).is_some() {
        let line = header(&block, five);
        assert!(line.contains(&format!("older; #{eight}")), "{block}");
    }
    let said_newer = |findings: &Value| {
        findings
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["kind"] == "conflict")
            .map(|f| (f["id"].as_i64().unwrap(), f["newer"].as_i64().unwrap()))
            .collect::<Vec<_>>()
    };
    // Recall returning only the older finds the newer one and quotes it.
    let args = [
        "recall",
        "--json",
        "--limit",
        "1",
        "webhook retries at most",
    ];
    let out = common::run_synapse(&repo.data, &repo.path, &args, b"");
    let recalled: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(recalled["results"][0]["id"], five, "{recalled}");
    assert_eq!(
        said_newer(&recalled["drift"]),
        [(five, eight)],
        "{recalled}"
    );
    let quoted = recalled["drift"][0]["newer_text"]
        .as_str()
        .unwrap_or_default();
    assert!(quoted.contains("8 attempts"), "{recalled}");
    let out = common::run_synapse(&repo.data, &repo.path, &["drift", "--json"], b"");
    let audit: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(said_newer(&audit["conflict"]), [(five, eight)], "{audit}");
}

/// A session was shown a topic file's memory; the file was removed (its memory deleted) and a
/// note remembered after it took the freed id, so the reply's `replaces #N`, meant for the
/// topic file, superseded the unrelated note. Ids are never given again now, and a reply
/// replaces only what its session was shown.
#[test]
fn a_reply_replacing_a_deleted_memory_never_hides_a_memory_written_since() {
    let repo = Repo::new();
    let folder = memory_folder(&repo);
    let topic = folder.join("webhook-retries.md");
    topic_file(
        &folder,
        "webhook-retries.md",
        "Webhook deliveries are retried at most 5 attempts.",
        0,
    );
    let block = repo.prompt("s1", "how many times are webhook deliveries retried?");
    let shown: i64 = block
        .split('[')
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("no memory shown: {block}"));

    std::fs::remove_file(&topic).unwrap();
    let out = common::run_synapse(&repo.data, &repo.path, &["sync"], b"");
    assert!(out.status.success(), "{out:?}");
    let note = repo.remember("Deploys go out on Fridays after the freeze");
    assert_ne!(note, shown, "the note took the deleted memory's id");

    let reply = format!("remember (replaces #{shown}): Webhook deliveries are retried 8 times");
    repo.stop("s1", &reply).unwrap();
    assert!(supersedes_of(&repo, note, None).is_empty());
    assert!(repo
        .bodies()
        .contains(&"Deploys go out on Fridays after the freeze".to_owned()));
    let log = log_text(&repo);
    assert!(log.contains(&format!("replaces {shown} refused")), "{log}");
}

/// A reply names an id its session was never shown: the lesson is stored as new, and the log
/// says why.
#[test]
fn a_reply_replacing_a_memory_its_session_was_never_shown_is_refused() {
    let repo = Repo::new();
    let old = repo.remember("Webhook retry limit is 5 attempts");
    repo.prompt("s1", "what is the webhook retry limit?");
    let reply = format!("remember (replaces #{old}): Webhook retries: 8 attempts");
    repo.stop("s2", &reply).unwrap();
    assert!(supersedes_of(&repo, old, None).is_empty());
    assert_eq!(repo.bodies().len(), 2);
    let log = log_text(&repo);
    assert!(
        log.contains(&format!(
            "replaces {old} refused: this session was never shown"
        )),
        "{log}"
    );
}

/// The next block names a memory the session was given that it replaced since (here through the
/// CLI with the session's label, as the Stop hook writes it), once; a replacement someone else
/// wrote, or of a memory the session was not given, is not this line's to tell.
#[test]
fn a_memory_the_session_replaced_is_named_once_in_its_next_block() {
    let repo = Repo::new();
    let old = repo.remember("Webhook retry limit is 5 attempts");
    let other = repo.remember("Webhook signing uses HMAC-SHA256 secrets");
    for session in ["s1", "s2"] {
        let block = repo.prompt(session, "webhook retry limit, signing secrets?");
        assert!(block.contains(&format!("[{old}]")), "{block}");
    }
    let replace = |text: &str, source: &str, id: i64| -> i64 {
        let id = id.to_string();
        let args = [
            "remember",
            "--json",
            "--source",
            source,
            "--supersedes",
            &id,
            "--",
            text,
        ];
        let out = common::run_synapse(&repo.data, &repo.path, &args, b"");
        assert!(out.status.success(), "{out:?}");
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["id"]
            .as_i64()
            .unwrap()
    };
    let new = replace("Webhook retries: 8 attempts", "session s1 2026-01-01", old);
    replace("Webhook signing uses Ed25519", "cli", other);

    let said = format!("{old}, given earlier, is replaced by {new} (written this session)");
    let next = repo.prompt("s1", "anything about deploys?");
    assert!(next.contains(&said), "{next}");
    assert!(!next.contains(&format!("{other}, given earlier")), "{next}");
    assert!(!repo
        .prompt("s1", "and about builds?")
        .contains("given earlier"));
    assert!(!repo
        .prompt("s2", "and about deploys?")
        .contains("given earlier"));
}

/// A user typing "remember: ..." in a prompt stored nothing (found trying Synapse as a new user):
/// such a line is kept as a project memory once, whatever the hooks' switches, and the model is
/// told, so it saves nothing a second time.
#[test]
fn a_remember_line_the_user_types_is_kept_once_and_said() {
    let repo = Repo::new();
    let prompt = "Ship the retry fix.\nremember: we never deploy on Fridays\n\
                  ```yaml\nremember: true\n```";
    let said = repo.prompt("s1", prompt);
    assert!(said.contains("line 1: remembered as memory"), "{said}");
    assert_eq!(repo.bodies(), ["we never deploy on Fridays"]);
    let out = common::run_synapse(&repo.data, &repo.path, &["list", "--json"], b"");
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let source = list["memories"][0]["source"].as_str().unwrap();
    assert!(source.starts_with("prompt s1 "), "{source}");

    // The prompt holds the text: this session is not handed it back.
    assert!(!repo
        .prompt("s1", "do we deploy on Fridays?")
        .contains("<synapse-memories>"));
    assert!(repo
        .prompt("s2", "do we deploy on Fridays?")
        .contains("we never deploy on Fridays"));

    let payload = json!({"session_id": "s3", "cwd": repo.path, "prompt": prompt,
        "hook_event_name": "UserPromptSubmit"});
    let off = printed(repo.hook(
        "synapse-prompt-submit",
        &payload,
        &[("SYNAPSE_PROMPT_SUBMIT", "off")],
    ))
    .context;
    assert!(
        off.contains("line 1: already remembered as memory"),
        "{off}"
    );
    assert_eq!(repo.bodies().len(), 1);
    assert_eq!(repo.log_lines(), 0);
}

#[rstest]
#[case::not_json(b"not json")]
#[case::empty(b"")]
#[case::a_number_for_cwd(b"{\"cwd\": 5}")]
fn a_malformed_payload_exits_zero_silently_and_logs_one_line(
    #[case] input: &[u8],
    #[values("synapse-session-start", "synapse-prompt-submit", "synapse-stop")] hook: &str,
) {
    let repo = Repo::new();
    repo.remember("Webhook retries: 5 attempts");
    let before = repo.log_lines();
    let out = common::run_hook(hook, &repo.data, input, &[]);
    assert_eq!(stdout(out), "", "{hook}");
    assert_eq!(repo.log_lines(), before + 1, "{hook} {input:?}");
}

#[test]
fn every_failure_exits_zero_silently_and_logs_one_line() {
    let repo = Repo::new();
    repo.remember("Webhook retries: 5 attempts");

    let huge = json!({"session_id": "s", "cwd": repo.path, "prompt": "x".repeat(5 << 20)});
    let before = repo.log_lines();
    let out = common::run_hook(
        "synapse-prompt-submit",
        &repo.data,
        huge.to_string().as_bytes(),
        &[],
    );
    assert_eq!(stdout(out), "");
    assert_eq!(repo.log_lines(), before + 1);
    let log = std::fs::read_to_string(repo.data.join("synapse.log")).unwrap();
    let line = log.lines().last().unwrap();
    assert!(
        line.contains("longer than 4 MiB") && !line.contains("EOF"),
        "the log says the payload was too long, not how parsing broke: {line}"
    );

    // A locked store: another process holds the write lock longer than a hook may wait. The
    // lesson waits in the spool, and the next write stores it.
    let conn = rusqlite::Connection::open(repo.data.join("synapse.db")).unwrap();
    conn.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let before = repo.log_lines();
    assert_eq!(
        repo.stop("s", "remember: locked out of the store")
            .as_deref(),
        Some("Synapse will save 1 lesson (the store was busy)")
    );
    assert_eq!(repo.log_lines(), before, "a spooled lesson is no failure");
    let spool = std::fs::read_to_string(repo.data.join("spool.jsonl")).unwrap();
    assert!(spool.contains("locked out of the store"), "{spool}");
    conn.execute_batch("ROLLBACK").unwrap();
    drop(conn);
    repo.remember("Any later write drains the spool first");
    assert!(
        repo.bodies().iter().any(|b| b == "locked out of the store"),
        "{:?}",
        repo.bodies()
    );
    assert_eq!(
        std::fs::metadata(repo.data.join("spool.jsonl"))
            .unwrap()
            .len(),
        0
    );
}

#[rstest]
fn a_corrupt_store_exits_zero_silently_and_logs_one_line(
    #[values("synapse-session-start", "synapse-prompt-submit", "synapse-stop")] hook: &str,
) {
    let repo = Repo::new();
    let corrupt = repo._dir.path().join("corrupt");
    std::fs::create_dir_all(&corrupt).unwrap();
    std::fs::write(corrupt.join("synapse.db"), vec![0x5a; 8192]).unwrap();
    let payload = json!({"session_id": "s", "cwd": repo.path, "prompt": "webhook retries",
        "last_assistant_message": "remember: x"});
    let out = common::run_hook(hook, &corrupt, payload.to_string().as_bytes(), &[]);
    assert_eq!(stdout(out), "", "{hook}");
    let log = std::fs::read_to_string(corrupt.join("synapse.log")).unwrap();
    assert_eq!(log.lines().count(), 1, "{log}");
}

/// A data folder that cannot be made (its parent is a file): nowhere to log, still silent.
#[rstest]
fn a_data_folder_that_cannot_be_made_leaves_a_hook_silent(
    #[values("synapse-session-start", "synapse-prompt-submit", "synapse-stop")] hook: &str,
) {
    let repo = Repo::new();
    let blocked = repo._dir.path().join("a-file");
    std::fs::write(&blocked, "x").unwrap();
    let payload = json!({"session_id": "s", "cwd": repo.path, "prompt": "webhook"});
    let out = common::run_hook(
        hook,
        &blocked.join("data"),
        payload.to_string().as_bytes(),
        &[],
    );
    assert_eq!(stdout(out), "", "{hook}");
}

#[test]
fn the_write_ahead_log_stays_short_across_many_hooks() {
    // Hooks skip SQLite's checkpoint on close; without their own, each one's writes would pile
    // up in the log, which every later process reads back when it opens the store.
    let repo = Repo::new();
    let id = repo.remember("Webhook retries back off exponentially from 200 ms");
    let log = repo.data.join("synapse.db-wal");
    let mut longest = 0;
    for session in 0..100 {
        let said = repo.prompt(&format!("session {session}"), "webhook retries back off");
        assert!(said.contains(&format!("[{id}]")), "{said}");
        longest = longest.max(std::fs::metadata(&log).map_or(0, |m| m.len()));
    }
    assert!(longest > 0, "the hooks wrote through the log");
    // A hook adds a page or two; a hundred of them would make 400 KB.
    assert!(longest < 200 << 10, "the log grew to {longest} bytes");
}

#[test]
fn hooks_can_be_switched_off() {
    let repo = Repo::new();
    repo.remember("Webhook retries: 5 attempts with backoff");
    std::fs::write(
        repo.data.join("config.toml"),
        "[hooks]\nsession_start = false\n",
    )
    .unwrap();
    assert_eq!(repo.start("s", "startup"), "");
    let payload = json!({"session_id": "s", "cwd": repo.path, "source": "startup"});
    let on = printed(repo.hook(
        "synapse-session-start",
        &payload,
        &[("SYNAPSE_SESSION_START", "on")],
    ))
    .context;
    assert!(on.contains("5 attempts"), "the environment wins: {on}");
    let payload =
        json!({"session_id": "s", "cwd": repo.path, "last_assistant_message": "remember: y"});
    stdout(repo.hook("synapse-stop", &payload, &[("SYNAPSE_STOP", "off")]));
    assert_eq!(repo.bodies().len(), 1);
}

/// A secret with a multibyte character in a reply's lesson is masked on character boundaries:
/// the Stop hook does not panic (exit 101, the secret in the panic message, the later lessons
/// lost).
#[test]
fn a_multibyte_secret_in_a_lesson_is_masked_and_the_next_lesson_kept() {
    let repo = Repo::new();
    let reply = "Done.\nremember: the staging password=\"ñu-2024\" rotates monthly\n\
                 remember: staging deploys need an approval";
    let out = repo.hook(
        "synapse-stop",
        &json!({"session_id": "s", "cwd": repo.path, "last_assistant_message": reply}),
        &[],
    );
    let line = printed(out).line.unwrap();
    assert_eq!(line, "Synapse saved #1, #2 (1 secret masked)");
    assert_eq!(repo.log_lines(), 0);
    let bodies = repo.bodies();
    assert!(
        bodies
            .iter()
            .any(|b| b == "staging deploys need an approval"),
        "{bodies:?}"
    );
    let masked = bodies
        .iter()
        .find(|b| b.contains("staging password"))
        .unwrap();
    assert!(!masked.contains("ñu-2024"), "{masked}");
}

/// Whatever panics inside a hook, the session sees nothing: exit 0, no output, nothing on
/// stderr, and one log line that names the place but never the payload.
#[rstest]
fn a_panic_in_a_hook_is_silent_and_logged_without_the_payload(
    #[values("synapse-session-start", "synapse-prompt-submit", "synapse-stop")] hook: &str,
) {
    let repo = Repo::new();
    let payload = json!({"session_id": "s", "cwd": repo.path,
        "last_assistant_message": "remember: hunter2-is-the-password"});
    let out = repo.hook(hook, &payload, &[("SYNAPSE_TEST_PANIC", "1")]);
    assert_eq!(out.status.code(), Some(0), "{hook}: {out:?}");
    assert!(out.stdout.is_empty(), "{hook}: {out:?}");
    assert!(out.stderr.is_empty(), "{hook}: {out:?}");
    let log = std::fs::read_to_string(repo.data.join("synapse.log")).unwrap();
    assert_eq!(log.lines().count(), 1, "{log}");
    assert!(
        log.lines()
            .all(|l| l.contains("panicked at src/plugin/hook.rs")),
        "{log}"
    );
    assert!(!log.contains("hunter2"), "{log}");
}

/// At a session's start the person sees one line of what the model was given and
/// what was left out and why; `notice = "off"` prints the model's context alone, as plain text,
/// byte for byte the context the line's JSON carries.
#[test]
fn the_session_line_says_what_was_given_and_left_out_and_the_context_is_unchanged() {
    let repo = Repo::new();
    repo.remember("Webhook retries: 3 attempts, see src/webhooks/retry.rs");
    repo.remember("Webhook retries: 5 attempts with backoff, see src/webhooks/retry.rs");
    repo.remember("The webhook retries parser lives in src/legacy/webhook_parser.rs");

    let with_line = repo.start_printed("s1", "startup");
    assert_eq!(
        with_line.line.as_deref(),
        Some("Synapse · 2 notes for feature/webhook-retries · left out 1 (1 stale)")
    );
    let payload = json!({"session_id": "s2", "cwd": repo.path, "source": "startup"});
    let plain = stdout(repo.hook(
        "synapse-session-start",
        &payload,
        &[("SYNAPSE_NOTICE", "off")],
    ));
    assert!(plain.starts_with("<synapse-memories>"), "{plain}");
    assert_eq!(plain, with_line.context, "the model's context is the same");

    // Nothing to offer is still said, to the person only.
    let quiet = Repo::committed(&["a.txt"], "fix/typo");
    let printed = quiet.start_printed("s", "startup");
    assert_eq!(printed.context, "");
    assert_eq!(
        printed.line.as_deref(),
        Some("Synapse · no notes for fix/typo")
    );
}

/// A prompt's line is shown only when `notice = "always"`; a `remember:` line the user typed
/// is confirmed to the person unless notices are off.
#[test]
fn a_prompt_has_a_line_when_asked_and_a_typed_lesson_is_confirmed() {
    let repo = Repo::new();
    let id = repo.remember("Webhook retry limit is 5 attempts");
    let ask = |session: &str, prompt: &str, notice: &str| {
        let payload = json!({"session_id": session, "cwd": repo.path, "prompt": prompt,
            "hook_event_name": "UserPromptSubmit"});
        printed(repo.hook(
            "synapse-prompt-submit",
            &payload,
            &[("SYNAPSE_NOTICE", notice)],
        ))
    };
    let start = ask("s1", "what is the webhook retry limit?", "start");
    assert!(start.context.contains(&format!("[{id}]")), "{start:?}");
    assert_eq!(start.line, None);
    let always = ask("s2", "what is the webhook retry limit?", "always");
    assert_eq!(always.context, start.context);
    assert_eq!(
        always.line,
        Some(format!("Synapse · 1 note for this prompt (#{id})"))
    );
    let typed = ask("s3", "remember: staging deploys need an approval", "start");
    assert!(typed.context.contains("remembered as memory"), "{typed:?}");
    assert_eq!(typed.line, Some(format!("Synapse saved #{}", id + 1)));
    let off = ask("s4", "remember: the cache is flushed nightly", "off");
    assert_eq!(off.line, None);
    assert!(off.context.contains("remembered as memory"), "{off:?}");
}

/// Before a compaction the summary is asked for the session's lessons as `remember:` lines
/// (plain output, which the client adds to the summary's instructions); after it, those lines
/// are kept, said to the person, and not offered again to the session that holds the summary.
#[test]
fn a_compaction_asks_for_the_lessons_and_keeps_those_its_summary_marks() {
    let repo = Repo::new();
    let compact = |payload: Value, env: &[(&str, &str)]| {
        stdout(common::run_hook(
            "synapse-compact",
            &repo.data,
            payload.to_string().as_bytes(),
            env,
        ))
    };
    let before = json!({"session_id": "s1", "cwd": repo.path, "hook_event_name": "PreCompact",
        "trigger": "manual", "custom_instructions": null});
    let asked = compact(before.clone(), &[]);
    assert_eq!(asked, format!("{}\n", hook::BEFORE_COMPACTION));
    assert!(asked.contains("remember: "), "{asked}");

    let summary = "<summary>\n1. Primary request: fix the webhook retries.\n\nremember: \
                   webhook retries back off exponentially from 2 s\n- remember: the staging \
                   queue is drained at 02:00 UTC\n</summary>";
    let after = json!({"session_id": "s1", "cwd": repo.path, "hook_event_name": "PostCompact",
        "trigger": "manual", "compact_summary": summary});
    let said = compact(after.clone(), &[]);
    assert_eq!(said, "Synapse saved #1, #2 from the compaction summary\n");
    assert_eq!(repo.bodies().len(), 2);
    assert!(
        !repo
            .prompt("s1", "when is the staging queue drained?")
            .contains("02:00"),
        "the summary holds it already"
    );
    assert!(repo
        .prompt("s2", "when is the staging queue drained?")
        .contains("02:00"));

    let off = [("SYNAPSE_COMPACT", "off")];
    assert_eq!(compact(before, &off), "");
    let again = json!({"session_id": "s3", "cwd": repo.path, "hook_event_name": "PostCompact",
        "compact_summary": "remember: a lesson nobody keeps"});
    assert_eq!(compact(again, &off), "");
    assert_eq!(repo.bodies().len(), 2);
    assert_eq!(repo.log_lines(), 0);
}

#[rstest]
#[case::not_json(b"not json")]
#[case::no_event(b"{\"session_id\": \"s\", \"cwd\": \"/\"}")]
fn a_compaction_hook_given_a_bad_payload_exits_zero_silently_and_logs_one_line(
    #[case] input: &[u8],
) {
    let repo = Repo::new();
    let out = common::run_hook("synapse-compact", &repo.data, input, &[]);
    assert_eq!(stdout(out), "");
    assert_eq!(repo.log_lines(), 1, "{input:?}");
}

/// `/synapse:remember` tells the person what it saved, as a `remember:` line does.
#[test]
fn slash_remember_shows_the_person_what_was_saved() {
    let repo = Repo::new();
    let payload = json!({"session_id": "s", "cwd": repo.path, "hook_event_name": "UserPromptSubmit",
        "prompt": "/synapse:remember the staging database is pg-12"});
    let printed = printed(repo.hook("synapse-prompt-submit", &payload, &[]));
    let id: i64 = printed
        .context
        .split("remembered as memory ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("no id: {}", printed.context));
    assert_eq!(printed.line, Some(format!("Synapse saved #{id}")));
    let again = printed_line(&repo, &payload);
    assert_eq!(again, Some(format!("Synapse #{id} was already kept")));
}

fn printed_line(repo: &Repo, payload: &Value) -> Option<String> {
    printed(repo.hook("synapse-prompt-submit", payload, &[])).line
}

/// A recall typed at the prompt ends as the session's blocks do: with the client's memory files
/// on, it asks for no `remember:` line; with them off, it does.
#[rstest]
#[case::auto_memory_on(&[], "Claude Code's memory files")]
#[case::auto_memory_off(&[("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")], "\"remember: ...\"")]
fn a_recall_closes_as_the_session_s_blocks_do(#[case] env: &[(&str, &str)], #[case] lessons: &str) {
    let repo = Repo::new();
    repo.remember("Webhook retries: 5 attempts with exponential backoff (src/webhooks/retry.rs)");
    let start = json!({"session_id": "s", "cwd": repo.path, "source": "startup",
        "hook_event_name": "SessionStart"});
    let started = printed(repo.hook("synapse-session-start", &start, env)).context;
    let recall = json!({"session_id": "s", "cwd": repo.path, "hook_event_name": "UserPromptSubmit",
        "prompt": "/synapse:recall webhook retries"});
    let recalled = printed(repo.hook("synapse-prompt-submit", &recall, env)).context;
    let footer = |block: &str| {
        block
            .lines()
            .find(|l| l.starts_with("Read a whole memory"))
            .map(str::to_owned)
            .unwrap_or_else(|| panic!("no footer: {block}"))
    };
    assert_eq!(footer(&recalled), footer(&started));
    assert!(footer(&started).contains(lessons), "{started}");
}

/// What Claude Code reports loading (InstructionsLoaded) decides what the model has, over the
/// guess from the files' places: an import it did not load is offered, a nested `CLAUDE.md` it
/// loaded when the model read a file below it is not; a session with no report keeps the guess.
#[test]
fn the_files_claude_code_reports_loading_are_what_the_model_has() {
    let repo = Repo::new();
    let imported = "Seed the payments test database with make seed-payments";
    let nested = "Webhook signatures are checked with HMAC SHA-256 before parsing";
    std::fs::write(repo.path.join("CLAUDE.md"), "# Notes\n\n@docs/extra.md\n").unwrap();
    std::fs::create_dir_all(repo.path.join("docs")).unwrap();
    std::fs::write(repo.path.join("docs/extra.md"), format!("- {imported}\n")).unwrap();
    // Beside the changed file, where the hooks look for a nested `CLAUDE.md`.
    std::fs::write(
        repo.path.join("src/webhooks/CLAUDE.md"),
        format!("- {nested}\n"),
    )
    .unwrap();
    for other in [
        "The docs build with mdbook",
        "Payments use Stripe in test mode",
    ] {
        repo.remember(other);
    }
    let loaded = |session: &str, file: &str, reason: &str| {
        let payload = json!({"session_id": session, "cwd": repo.path,
            "hook_event_name": "InstructionsLoaded", "file_path": repo.path.join(file),
            "memory_type": "Project", "load_reason": reason});
        let out = repo.hook("synapse-instructions-loaded", &payload, &[]);
        assert_eq!(stdout(out), "", "InstructionsLoaded prints nothing");
    };
    // What the session's blocks hand the model, from its start through two prompts.
    let asks = |session: &str| {
        let start = repo.start(session, "startup");
        let seed = repo.prompt(session, "how do we seed the payments test database?");
        let signatures = repo.prompt(session, "how are webhook signatures checked?");
        let given = start + &seed + &signatures;
        (given.contains(imported), given.contains(nested))
    };
    // Reported (as 2.1.332 may, before the session's start): the top CLAUDE.md and the nested
    // one, not the import.
    loaded("reported", "CLAUDE.md", "session_start");
    loaded("reported", "src/webhooks/CLAUDE.md", "nested_traversal");
    assert_eq!(asks("reported"), (true, false));
    // No report: the import counts as loaded with its importer, the nested file as not.
    assert_eq!(asks("guessed"), (false, true));
    // A report without the session's start (2.1.332 may send none for it) only adds: the
    // import still counts as loaded, the nested file reported is.
    loaded("partial", "src/webhooks/CLAUDE.md", "nested_traversal");
    assert_eq!(asks("partial"), (false, false));
    assert_eq!(repo.log_lines(), 0);
}

/// A memory holding every one of a short prompt's words is handed over whole: two words are
/// enough when they are all the prompt has.
#[test]
fn a_memory_holding_every_word_of_a_two_word_prompt_is_given_whole() {
    let repo = Repo::new();
    for other in [
        "The docs build with mdbook",
        "Payments use Stripe in test mode",
        "The marketing site deploys from the www repository",
    ] {
        repo.remember(other);
    }
    repo.remember("The canary runs in eu-west only, for 30 minutes");
    let block = repo.prompt("s", "where does the canary run?");
    assert!(
        block.contains("\n    The canary runs in eu-west only, for 30 minutes\n"),
        "{block}"
    );
}
/// Whether a hook's output holds a character that would act on a terminal or disguise text.
fn raw_hidden(printed: &Output) -> bool {
    String::from_utf8_lossy(&printed.stdout)
        .chars()
        .any(synapse::text::hidden)
}

/// A memory's window-title sequence, colours and direction override reach the model (and the
/// client's terminal) only as escapes: in the session's block, the prompt's block, the page
/// `/synapse:read` gives and the results of `/synapse:recall`.
#[test]
fn a_memory_s_escape_sequences_reach_the_model_only_as_text() {
    let repo = Repo::new();
    let id = repo.remember(
        "Webhook retries log \x1b]0;owned\x07 \x1b[31mgave up\x1b[0m after 3 attempts, see \
         src/webhooks/retry.rs; user\u{202e}gpj.exe \u{9b}2J",
    );
    let start = repo.start_printed("s1", "startup");
    let prompt_payload = json!({"session_id": "s2", "cwd": repo.path,
        "prompt": "why do webhook retries give up after 3 attempts?",
        "hook_event_name": "UserPromptSubmit", "transcript_path": "/dev/null"});
    let read_payload = json!({"session_id": "s3", "cwd": repo.path,
        "prompt": format!("/synapse:read {id}"),
        "hook_event_name": "UserPromptSubmit", "transcript_path": "/dev/null"});
    let recall_payload = json!({"session_id": "s4", "cwd": repo.path,
        "prompt": "/synapse:recall webhook retries gave up",
        "hook_event_name": "UserPromptSubmit", "transcript_path": "/dev/null"});
    let outputs = [
        repo.hook("synapse-prompt-submit", &prompt_payload, &[]),
        repo.hook("synapse-prompt-submit", &read_payload, &[]),
        repo.hook("synapse-prompt-submit", &recall_payload, &[]),
    ];
    let mut contexts = vec![start.context];
    for out in outputs {
        assert!(!raw_hidden(&out), "{:?}", out.stdout);
        contexts.push(printed(out).context);
    }
    for context in &contexts {
        assert!(context.contains(&format!("{id}")), "{context}");
        assert!(!context.chars().any(synapse::text::hidden), "{context:?}");
        assert!(
            context.contains(r"\u{1b}]0;owned\u{7}") && context.contains(r"\u{202e}gpj.exe"),
            "{context}"
        );
    }
    assert!(
        contexts[2].contains("control characters shown as"),
        "{}",
        contexts[2]
    );
}

/// The person's line names the branch: a direction override in its name is shown, not obeyed.
#[test]
fn the_person_s_line_shows_a_branch_s_override_as_text() {
    let repo = Repo::committed(&["src/a.rs"], "fix/\u{202e}gpj.exe");
    std::fs::write(repo.path.join("src/a.rs"), "changed\n").unwrap();
    repo.remember("The a.rs module parses the config, see src/a.rs");
    let payload = json!({"session_id": "s1", "cwd": repo.path, "source": "startup",
        "hook_event_name": "SessionStart", "transcript_path": "/dev/null"});
    let out = repo.hook("synapse-session-start", &payload, &[]);
    assert!(!raw_hidden(&out), "{:?}", out.stdout);
    let line = printed(out).line.expect("a person's line");
    assert!(line.contains(r"fix/\u{202e}gpj.exe"), "{line}");
}
