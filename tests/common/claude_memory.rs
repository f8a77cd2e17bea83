//! Claude Code's own memory beside a repository, laid out as the client lays it out
//! (docs/claude-code.md): the auto-memory folder under HOME with its `MEMORY.md` index and topic
//! files, and the repository's `CLAUDE.md`, a path-scoped rule and `AGENTS.md`. The facts are
//! about a made-up order service, Kestrel, and hold the cases Synapse must handle: two topic
//! files that contradict each other, one that names a path that is gone, one that repeats a
//! `CLAUDE.md` line, and a `CLAUDE.md` naming paths that exist and paths that do not. Every text
//! a test searches a request for occurs once in the fixture, so a count in a request says who put
//! it there.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::git;

/// One topic file of the auto memory.
#[derive(Clone, Copy, Debug)]
pub struct Topic {
    pub file: &'static str,
    /// Frontmatter `name`, and the title of its line in `MEMORY.md`.
    pub name: &'static str,
    pub description: &'static str,
    /// What its `MEMORY.md` line says after the link.
    pub hook: &'static str,
    pub body: &'static str,
    /// Words of the body found nowhere else (not in `MEMORY.md`, nor in any other file): in a
    /// request, only a reading of this file can have put them there.
    pub phrase: &'static str,
    /// How long ago the file was last written.
    pub age_days: u64,
}

const DAY: u64 = 24 * 60 * 60;

/// The `CLAUDE.md` list line a topic file repeats as its body's first line.
pub const REPEATED_LINE: &str =
    "- Never edit a migration that has reached production; add a new one instead.";
/// A `CLAUDE.md` line only that file holds: the client loads it once, so a second copy in a
/// request is Synapse's.
pub const CLAUDE_MD_PHRASE: &str = "Answer support escalations in the kestrel-triage channel";
/// The path-scoped rule's distinctive words; the client shows the rule only once a file under
/// `src/api/` is read.
pub const RULE_PHRASE: &str = "problem-details format with a stable kestrel error code";
/// `AGENTS.md`'s distinctive words; the client leaves the file out beside a `CLAUDE.md`.
pub const AGENTS_PHRASE: &str = "Ask before adding a new crate dependency to kestrel";
/// Where the path-scoped rule lives, from the repository's top.
pub const RULE_FILE: &str = ".claude/rules/api.md";
/// The paths `CLAUDE.md` names that exist (the fixture creates them), in the order it names them.
pub const PRESENT_PATHS: [&str; 3] = [
    "config/settings.toml",
    "docs/architecture.md",
    "scripts/deploy.sh",
];
/// The paths `CLAUDE.md` names that do not exist, in the order it names them.
pub const MISSING_PATHS: [&str; 4] = [
    "scripts/legacy_seed.py",
    "docs/ONBOARDING.md",
    "config/staging.yaml",
    "tools/lint-openapi.sh",
];
/// The missing path a topic file names, and that file.
pub const TOPIC_MISSING_PATH: (&str, &str) = ("hotfixes.md", "scripts/old_deploy.sh");
/// The two topic files that contradict each other: the older says at most 5 retries, the newer 8.
pub const OLDER_RETRIES: &str = "http-retries-2025.md";
pub const NEWER_RETRIES: &str = "http-retries.md";
/// The topic file whose body opens with `REPEATED_LINE`.
pub const REPEATING_TOPIC: &str = "migrations.md";
/// The branch `on_api_branch` checks out.
pub const API_BRANCH: &str = "feature/order-pagination";

pub const TOPICS: [Topic; 12] = [
    Topic {
        file: "deploys.md",
        name: "Production deploys",
        description: "How a release reaches production and how long the canary stage lasts",
        hook: "canary stage and promotion of a release",
        body: "Production deploys go through the kestrel-prod-rollout pipeline. The canary holds \
               at 5 percent of traffic for 20 minutes before promotion, and an error rate above \
               1 percent in that window rolls it back on its own.",
        phrase: "canary holds at 5 percent of traffic for 20 minutes",
        age_days: 120,
    },
    Topic {
        file: "api-rate-limits.md",
        name: "Public API rate limits",
        description: "Request quotas on the public endpoints and what a caller sees past them",
        hook: "quota per token and what happens past it",
        body: "The public API allows 600 requests per minute per API token, with bursts up to \
               900 from the token bucket. Past the limit a caller gets status 429 with a \
               Retry-After header in seconds; partner tokens have their own, higher quota.",
        phrase: "600 requests per minute per API token",
        age_days: 45,
    },
    Topic {
        file: OLDER_RETRIES,
        name: "HTTP client retries",
        description: "How often the shared HTTP client retries a failed upstream call",
        hook: "retry count and backoff of the HTTP client",
        body: "The shared HTTP client retries a failed upstream call at most 5 times, with \
               jittered exponential backoff starting at 200 milliseconds. Only idempotent \
               methods are retried.",
        phrase: "retries a failed upstream call at most 5 times",
        age_days: 400,
    },
    Topic {
        file: NEWER_RETRIES,
        name: "HTTP client retries since the resilience layer",
        description: "The retry budget of the shared HTTP client after the resilience layer",
        hook: "retry budget after the resilience layer",
        body: "Since the move to the resilience layer, the shared HTTP client retries a failed \
               upstream call at most 8 times, with the backoff capped at 30 seconds. Only \
               idempotent methods are retried.",
        phrase: "retries a failed upstream call at most 8 times",
        age_days: 20,
    },
    Topic {
        file: REPEATING_TOPIC,
        name: "Database migrations",
        description: "How schema migrations are written and rolled out",
        hook: "writing and rolling out schema changes",
        body: "- Never edit a migration that has reached production; add a new one instead.\n\n\
               Migrations run with sqitch. A migration that rewrites a table over 10 million rows \
               is split into an expand and a contract step, deployed a day apart.",
        phrase: "split into an expand and a contract step",
        age_days: 200,
    },
    Topic {
        file: "feature-flags.md",
        name: "Feature flags",
        description: "Where flags live and when an old flag must be removed",
        hook: "where flags live and how old ones are cleaned up",
        body: "Flags live in the kestrel project of the flag service. A flag older than 90 days \
               without a cleanup ticket fails the weekly flag-audit job, which blocks the next \
               release until someone removes the flag or files the ticket.",
        phrase: "fails the weekly flag-audit job",
        age_days: 75,
    },
    Topic {
        file: TOPIC_MISSING_PATH.0,
        name: "Hotfix deploys",
        description: "The quick path for an urgent fix to production",
        hook: "the urgent path to production",
        body: "Hotfixes bypass the canary stage: run scripts/old_deploy.sh with the hotfix flag \
               from the release branch, then announce it in the release channel.",
        phrase: "Hotfixes bypass the canary stage",
        age_days: 300,
    },
    Topic {
        file: "caching.md",
        name: "Order summary cache",
        description: "How order summaries are cached and invalidated",
        hook: "caching of order summaries and how to invalidate",
        body: "Order summaries are cached in Redis for 45 seconds under keys prefixed ordsum-v3. \
               To invalidate every entry at once, bump the version in the prefix rather than \
               scanning keys.",
        phrase: "keys prefixed ordsum-v3",
        age_days: 60,
    },
    Topic {
        file: "on-call.md",
        name: "On-call paging",
        description: "Who gets paged for the service and how fast they must answer",
        hook: "paging rotation and acknowledgement times",
        body: "Pages for the service route to the payments-core rotation. A sev2 page must be \
               acknowledged within 15 minutes, a sev1 within 5, or it escalates to the \
               engineering manager on duty.",
        phrase: "route to the payments-core rotation",
        age_days: 90,
    },
    Topic {
        file: "pagination.md",
        name: "List pagination",
        description: "How list endpoints page through results",
        hook: "cursors and page sizes of list endpoints",
        body: "List endpoints paginate with opaque cursors, never offsets. The page size defaults \
               to 50 and is capped at 200; a larger limit is clamped, not refused.",
        phrase: "page size defaults to 50 and is capped at 200",
        age_days: 30,
    },
    Topic {
        file: "background-jobs.md",
        name: "Background jobs",
        description: "The job queue and the nightly reconciliation window",
        hook: "job queue and the nightly window",
        body: "Background jobs run on the faktory queue. The nightly reconciliation job starts \
               at 02:30 UTC and must finish before 05:00 UTC, when the settlement export reads \
               its results.",
        phrase: "nightly reconciliation job starts at 02:30 UTC",
        age_days: 150,
    },
    Topic {
        file: "logging.md",
        name: "Structured logging",
        description: "What every request log line carries and what it must never carry",
        hook: "fields of request logs and what is never logged",
        body: "Every request log line carries the trace id and the tenant slug. Card numbers are \
               never logged, only their last four digits, and request bodies are logged only at \
               debug level.",
        phrase: "carries the trace id and the tenant slug",
        age_days: 10,
    },
];

pub const CLAUDE_MD: &str = "\
# Kestrel order service

Kestrel serves the order-tracking API behind the shop checkout. These notes are for anyone
changing it.

## Build and test

- Build with `cargo build`; the service binary is called kestrel-api.
- Run `make check` before pushing: it runs the formatter, clippy and the unit tests.
- Integration tests need Postgres 16 on port 5433; `docker compose up db` starts one.
- Seed a local database with `scripts/legacy_seed.py`.
- A local run reads its settings from `config/settings.toml`.

## Layout

- HTTP handlers live in the api module, background jobs in the jobs module.
- Architecture decisions are written up in `docs/architecture.md`.
- New contributors start with `docs/ONBOARDING.md`.
- Staging overrides sit in `config/staging.yaml`.

## Deploys

- Production deploys run through `scripts/deploy.sh` from the release branch only.
- Never deploy on a Friday after 15:00 UTC.
- Release tags follow the year, the month and a patch number.

## Database

- Never edit a migration that has reached production; add a new one instead.
- Someone from the data team reviews every migration.

## API conventions

- Check the OpenAPI document with `tools/lint-openapi.sh` before opening a pull request.
- Public endpoints carry their major version in the URL.
- A breaking change needs a deprecation notice 90 days ahead.

## Support

- Answer support escalations in the kestrel-triage channel, not in direct messages.
- Every incident gets a written review within five working days.

## Style

- Log an error once, where it is handled.
- Keep pull requests small: under 400 changed lines.
";

const RULE: &str = "\
---
paths: [\"src/api/**\"]
---

# API handlers

- Handlers answer errors in the problem-details format with a stable kestrel error code.
- A handler takes its deadline from the request context and never sleeps.
";

const AGENTS_MD: &str = "\
# Notes for coding agents

- Run `make check` before saying a change is done.
- Generated OpenAPI clients are regenerated, never edited by hand.
- Ask before adding a new crate dependency to kestrel.
";

/// The fixture, written: where everything is.
pub struct ClaudeMemory {
    pub home: PathBuf,
    /// The repository's top, canonical (the client resolves symbolic links before it keys).
    pub repo: PathBuf,
    /// `$HOME/.claude/projects/<key>/memory`.
    pub memory_dir: PathBuf,
    /// `MEMORY.md`'s text.
    pub index: String,
}

impl ClaudeMemory {
    /// Write the fixture: a git repository at `repo` (created, on `main`, everything committed)
    /// and the auto memory for it under `home`.
    pub fn build(home: &Path, repo: &Path) -> ClaudeMemory {
        super::git_repo(repo, "main");
        let repo = repo.canonicalize().unwrap();
        let files: [(&str, &str); 10] = [
            ("CLAUDE.md", CLAUDE_MD),
            (RULE_FILE, RULE),
            ("AGENTS.md", AGENTS_MD),
            (PRESENT_PATHS[0], "listen = \"127.0.0.1:8080\"\n"),
            (
                PRESENT_PATHS[1],
                "# Architecture\n\nOne service, one database.\n",
            ),
            (PRESENT_PATHS[2], "#!/bin/sh\nexec make release\n"),
            ("src/main.rs", "mod api;\n\nfn main() {}\n"),
            ("src/api/mod.rs", "pub mod handlers;\n"),
            (
                "src/api/handlers.rs",
                "pub fn list_orders() -> Vec<u64> {\n    Vec::new()\n}\n",
            ),
            ("src/jobs/mod.rs", "pub fn reconcile() {}\n"),
        ];
        for (path, text) in files {
            write(&repo.join(path), text);
        }
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-q", "-m", "Kestrel order service"]);

        let memory_dir = home
            .join(".claude/projects")
            .join(project_key(repo.to_str().unwrap()))
            .join("memory");
        let now = SystemTime::now();
        for topic in &TOPICS {
            let path = memory_dir.join(topic.file);
            let age = Duration::from_secs(topic.age_days * DAY);
            write_topic(&path, topic.name, topic.description, topic.body, now - age);
        }
        let index: String = TOPICS
            .iter()
            .map(|t| format!("- [{}]({}) — {}\n", t.name, t.file, t.hook))
            .collect();
        write(&memory_dir.join("MEMORY.md"), &index);
        ClaudeMemory {
            home: home.to_owned(),
            repo,
            memory_dir,
            index,
        }
    }

    /// The topic file named `file`.
    pub fn topic(&self, file: &str) -> &'static Topic {
        TOPICS
            .iter()
            .find(|t| t.file == file)
            .unwrap_or_else(|| panic!("no topic file {file}"))
    }

    /// The missing paths `CLAUDE.md` names, each with the 1-based line naming it.
    pub fn missing_paths(&self) -> Vec<(&'static str, usize)> {
        MISSING_PATHS
            .iter()
            .map(|p| (*p, line_of(CLAUDE_MD, p)))
            .collect()
    }

    /// The 1-based line of `CLAUDE.md` that the topic file `REPEATING_TOPIC` repeats.
    pub fn repeated_line(&self) -> usize {
        line_of(CLAUDE_MD, REPEATED_LINE)
    }

    /// `CLAUDE.md`'s list items, whole lines.
    pub fn claude_md_items(&self) -> Vec<&'static str> {
        CLAUDE_MD.lines().filter(|l| l.starts_with("- ")).collect()
    }

    /// Check out `API_BRANCH` and change files under `src/api/` in the work tree: an edited
    /// handler and a new, untracked module.
    pub fn on_api_branch(&self) {
        git(&self.repo, &["checkout", "-q", "-b", API_BRANCH]);
        write(
            &self.repo.join("src/api/handlers.rs"),
            "pub fn list_orders(cursor: Option<&str>) -> Vec<u64> {\n    \
             let _ = cursor;\n    Vec::new()\n}\n",
        );
        write(
            &self.repo.join("src/api/pagination.rs"),
            "pub const DEFAULT_PAGE: usize = 50;\n",
        );
    }
}

/// Write a topic file of the auto memory at `path` as the client writes one (frontmatter `name`
/// and `description`, then `body`), last modified at `modified`.
pub fn write_topic(path: &Path, name: &str, description: &str, body: &str, modified: SystemTime) {
    write(
        path,
        &format!(
            "---\nname: {name}\ndescription: {description}\nmetadata:\n  type: project\n---\n\n\
             {body}\n"
        ),
    );
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(modified)
        .unwrap();
}

/// `days` days before now.
pub fn days_ago(days: u64) -> SystemTime {
    SystemTime::now() - Duration::from_secs(days * DAY)
}

/// The auto-memory folder Claude Code keeps under `home` for the project at `repo`, created.
pub fn memory_folder(home: &Path, repo: &Path) -> PathBuf {
    let key = project_key(repo.to_str().unwrap());
    let folder = home.join(".claude/projects").join(key).join("memory");
    fs::create_dir_all(&folder).unwrap();
    folder
}

/// Claude Code's auto memory of the project at `repo` under `home` holding one topic, how the
/// team deploys (`deploy.md`, and its line in `MEMORY.md`): what a prompt about deploying to
/// production should reach.
pub fn write_deploy_topic(home: &Path, repo: &Path) {
    let memory = memory_folder(home, repo);
    fs::write(
        memory.join("MEMORY.md"),
        "- [Deploy](deploy.md): how we deploy to production\n",
    )
    .unwrap();
    fs::write(
        memory.join("deploy.md"),
        "---\nname: deploy\ndescription: how we deploy to production\nmetadata:\n  type: \
         project\n---\n\nWe deploy to production with `make ship` from main after the canary \
         passes for 30 minutes.\n",
    )
    .unwrap();
}

/// The client's key for a project folder: every UTF-16 unit that is not an ASCII letter or digit
/// becomes `-`; past 200 characters, the first 200, `-` and a base-36 hash of the whole path
/// (Java's `String.hashCode`, made positive), so long paths sharing a start stay apart.
pub fn project_key(path: &str) -> String {
    let key: String = path
        .chars()
        .flat_map(|c| {
            let keep = c.is_ascii_alphanumeric();
            std::iter::repeat_n(
                if keep { c } else { '-' },
                if keep { 1 } else { c.len_utf16() },
            )
        })
        .collect();
    if key.len() <= 200 {
        return key;
    }
    let hash = path.encode_utf16().fold(0i32, |h, unit| {
        h.wrapping_mul(31).wrapping_add(i32::from(unit))
    });
    format!("{}-{}", &key[..200], base36(i64::from(hash).unsigned_abs()))
}

fn base36(mut n: u64) -> String {
    let mut digits = Vec::new();
    loop {
        digits.push(char::from_digit((n % 36) as u32, 36).unwrap());
        n /= 36;
        if n == 0 {
            return digits.iter().rev().collect();
        }
    }
}

/// The 1-based line of `text` holding `needle`; it must hold it once.
fn line_of(text: &str, needle: &str) -> usize {
    let lines: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(lines.len(), 1, "{needle:?} on lines {lines:?}");
    lines[0]
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}
