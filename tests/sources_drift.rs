//! Drift over Claude Code's own files: a fixture home and repository, folded by
//! `synapse drift FILE`, audited through the real CLI with `HOME` and `SYNAPSE_DATA` of its own.

use crate::common::place::Place;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, SystemTime};

use serde_json::Value;

/// The project's `CLAUDE.md`: four paths gone (lines 6, 11, 13, 14; two in one paragraph, one
/// after a comment line the fold drops) and three that exist.
const CLAUDE_MD: &str = "# Project notes

## Build
- Run `cargo test` before pushing.
- Never deploy on Fridays, whatever the ticket says.
- The schema lives in `db/schema.sql`.
- Deploy with `scripts/deploy.sh`.

## Layout
The API handlers are in src/api/handlers.rs
and the old router was in src/legacy/router.rs.
<!-- moved in March -->
Setup is in docs/setup.md; the old one was docs/old-setup.md.
- Configs under config/prod.toml.
";

const GONE: [(&str, i64); 4] = [
    ("db/schema.sql", 6),
    ("src/legacy/router.rs", 11),
    ("docs/old-setup.md", 13),
    ("config/prod.toml", 14),
];

/// The index links to topic files, one of them deleted and one in a folder that does not exist:
/// links in the memory folder are never stale.
const MEMORY_MD: &str = "- [Retries](retries.md): the HTTP client's retry limit
- [Deploy days](deploy.md): when we deploy
- [Old notes](./old.md): removed
- [Archive](archive/2024.md): moved away
";

struct Fixture {
    place: Place,
    home: PathBuf,
    repo: PathBuf,
    memory: PathBuf,
}

impl Fixture {
    fn new() -> Fixture {
        let place = Place::new("main");
        for existing in ["scripts/deploy.sh", "src/api/handlers.rs", "docs/setup.md"] {
            place.write(existing, "x");
        }
        place.write("CLAUDE.md", CLAUDE_MD);
        let home = place.home();
        let key = synapse::sources::client::folder_key(&place.repo.to_string_lossy());
        let memory = home.join(".claude/projects").join(key).join("memory");
        write(&memory.join("MEMORY.md"), MEMORY_MD);
        Fixture {
            home,
            repo: place.repo.clone(),
            memory,
            place,
        }
    }

    /// Write a topic file with frontmatter, modified `age` ago.
    fn topic(&self, name: &str, description: &str, body: &str, age: u64) -> PathBuf {
        let path = self.memory.join(name);
        let text = format!(
            "---\nname: {name}\ndescription: {description}\nmetadata:\n  type: project\n---\n\n{body}\n"
        );
        write(&path, &text);
        let when = SystemTime::now() - Duration::from_secs(age);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(when)
            .unwrap();
        path
    }

    fn synapse(&self, args: &[&str]) -> Output {
        self.place.synapse(args, b"")
    }

    fn json(&self, args: &[&str]) -> Value {
        let out = self.synapse(args);
        assert!(out.status.success(), "{args:?}: {out:?}");
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// Fold the sources (`drift CLAUDE.md` folds the project's files before it audits), then
    /// audit the whole project.
    fn audit(&self) -> Value {
        self.json(&["drift", "--json", "CLAUDE.md"]);
        self.json(&["drift", "--json"])
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// `(file, line)` of a finding's `key` ("source" or "newer_source").
fn place(finding: &Value, key: &str) -> Option<(String, i64)> {
    let p = finding.get(key)?;
    Some((p["file"].as_str()?.to_owned(), p["line"].as_i64()?))
}

fn topic_shown(f: &Fixture, name: &str) -> String {
    let rest = f.memory.join(name);
    let rest = rest.strip_prefix(&f.home).unwrap();
    format!("~/{}", rest.display())
}

#[test]
fn claude_md_lists_exactly_its_gone_paths_each_with_its_line() {
    let f = Fixture::new();
    let audit = f.audit();
    let mut stale: Vec<(String, String, i64)> = audit["stale"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let (file, line) = place(s, "source").expect("a source memory's finding has one");
            let path = s["why"].as_str().unwrap().split(' ').next().unwrap();
            (path.to_owned(), file, line)
        })
        .collect();
    stale.sort_by_key(|s| s.2);
    let expected: Vec<(String, String, i64)> = GONE
        .iter()
        .map(|&(path, line)| (path.to_owned(), "CLAUDE.md".to_owned(), line))
        .collect();
    assert_eq!(stale, expected, "{audit:#}");
}

#[test]
fn a_topic_file_contradicted_by_a_newer_one_names_both_files() {
    let f = Fixture::new();
    f.topic(
        "retries.md",
        "the HTTP client's retry limit",
        "The HTTP client retries at most 5 times.",
        3 * 86_400,
    );
    f.topic(
        "retries-new.md",
        "the HTTP client's retry limit, raised",
        "The HTTP client retries at most 8 times.",
        86_400,
    );
    let audit = f.audit();
    let conflicts = audit["conflict"].as_array().unwrap();
    assert_eq!(conflicts.len(), 1, "{audit:#}");
    let c = &conflicts[0];
    assert_eq!(
        place(c, "source").map(|p| p.0),
        Some(topic_shown(&f, "retries.md"))
    );
    assert_eq!(
        place(c, "newer_source").map(|p| p.0),
        Some(topic_shown(&f, "retries-new.md")),
        "the newer file stands"
    );
}

#[test]
fn a_topic_file_repeating_a_claude_md_item_is_a_duplicate_of_it() {
    let f = Fixture::new();
    f.topic(
        "deploy.md",
        "when we deploy",
        "Never deploy on Fridays, whatever the ticket says.\nAsk in #releases first.",
        86_400,
    );
    let audit = f.audit();
    let duplicates = audit["duplicate"].as_array().unwrap();
    assert_eq!(duplicates.len(), 1, "{audit:#}");
    let d = &duplicates[0];
    assert_eq!(d["why"], "repeats CLAUDE.md:5");
    assert_eq!(
        place(d, "source"),
        Some((topic_shown(&f, "deploy.md"), 3)),
        "its description's line"
    );
    assert_eq!(place(d, "newer_source"), Some(("CLAUDE.md".into(), 5)));
}

#[test]
fn two_topic_files_saying_the_same_are_duplicates() {
    let f = Fixture::new();
    let body = "Staging resets every night at 02:00 UTC.";
    f.topic("staging.md", "staging resets", body, 2 * 86_400);
    f.topic("staging-2.md", "staging resets", body, 86_400);
    let audit = f.audit();
    let duplicates = audit["duplicate"].as_array().unwrap();
    assert_eq!(duplicates.len(), 1, "{audit:#}");
    let d = &duplicates[0];
    assert_eq!(
        place(d, "source").map(|p| p.0),
        Some(topic_shown(&f, "staging.md"))
    );
    assert_eq!(
        place(d, "newer_source").map(|p| p.0),
        Some(topic_shown(&f, "staging-2.md"))
    );
}

#[test]
fn a_topic_file_names_paths_from_the_memory_folder_and_the_project() {
    let f = Fixture::new();
    f.topic("deploy.md", "deploy days", "Only on weekdays.", 86_400);
    let retries = f.topic(
        "retries.md",
        "where retries are set",
        "Limits: see ./deploy.md and src/api/handlers.rs.\nThe old policy was in src/net/retry.rs.",
        86_400,
    );
    let audit = f.audit();
    let stale: Vec<&Value> = audit["stale"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| place(s, "source").is_some_and(|p| p.0 != "CLAUDE.md"))
        .collect();
    assert_eq!(stale.len(), 1, "only the path gone from both: {audit:#}");
    assert!(stale[0]["why"]
        .as_str()
        .unwrap()
        .starts_with("src/net/retry.rs is gone"));
    // The body's second line, below the frontmatter: line 9 of the file.
    let line = std::fs::read_to_string(&retries)
        .unwrap()
        .lines()
        .position(|l| l.contains("src/net/retry.rs"))
        .unwrap() as i64
        + 1;
    assert_eq!(line, 9);
    assert_eq!(
        place(stale[0], "source"),
        Some((topic_shown(&f, "retries.md"), line))
    );
}

#[test]
fn memory_md_links_are_never_stale() {
    let f = Fixture::new();
    let audit = f.audit();
    let on_index: Vec<&Value> = audit["stale"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| place(s, "source").is_some_and(|p| p.0.ends_with("MEMORY.md")))
        .collect();
    assert!(on_index.is_empty(), "{audit:#}");
}

#[test]
fn drift_of_one_file_folds_it_and_audits_its_memories() {
    let f = Fixture::new();
    f.topic(
        "deploy.md",
        "when we deploy",
        "Never deploy on Fridays, whatever the ticket says.",
        86_400,
    );
    // The first call folds the project's files: nothing was folded before it.
    let of_file = f.json(&["drift", "--json", "CLAUDE.md"]);
    assert_eq!(of_file["file"], "CLAUDE.md");
    assert_eq!(of_file["stale"].as_array().unwrap().len(), GONE.len());
    assert_eq!(
        of_file["duplicate"].as_array().unwrap().len(),
        1,
        "a repeat of one of its pieces is about it: {of_file:#}"
    );
    let text = f.synapse(&["drift", "CLAUDE.md"]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("(CLAUDE.md:13): docs/old-setup.md is gone"),
        "{text}"
    );

    let of_topic = f.json(&[
        "drift",
        "--json",
        f.memory.join("deploy.md").to_str().unwrap(),
    ]);
    assert_eq!(
        of_topic["stale"].as_array().unwrap().len(),
        0,
        "{of_topic:#}"
    );
    assert_eq!(of_topic["duplicate"].as_array().unwrap().len(), 1);
}

#[test]
fn drift_of_a_file_that_is_no_source_says_which_are() {
    let f = Fixture::new();
    write(
        &f.repo.join("README.md"),
        "# app\nsee src/legacy/router.rs\n",
    );
    let out = f.synapse(&["drift", "README.md"]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("README.md is not one of Claude Code's"),
        "{err}"
    );
    let named = err.split("here: ").nth(1).unwrap_or("");
    assert!(named.split(", ").any(|n| n.trim() == "CLAUDE.md"), "{err}");
}

#[test]
fn recall_marks_a_stale_piece_with_its_file_and_line() {
    let f = Fixture::new();
    f.audit();
    let recalled = f.json(&["recall", "--json", "schema", "lives"]);
    let drift = recalled["drift"].as_array().unwrap();
    let schema = drift
        .iter()
        .find(|d| d["why"].as_str().unwrap().starts_with("db/schema.sql"))
        .unwrap_or_else(|| panic!("{recalled:#}"));
    assert_eq!(place(schema, "source"), Some(("CLAUDE.md".into(), 6)));
}

#[test]
fn drift_of_a_memory_file_first_folds_the_current_project() {
    let f = Fixture::new();
    let deploy = f.topic(
        "deploy.md",
        "when we deploy",
        "Never deploy on Fridays, whatever the ticket says.",
        86_400,
    );
    let of_topic = f.json(&["drift", "--json", deploy.to_str().unwrap()]);
    assert_eq!(of_topic["file"], topic_shown(&f, "deploy.md"));
    assert_eq!(of_topic["project"], f.repo.to_str().unwrap());
    assert_eq!(of_topic["duplicate"][0]["why"], "repeats CLAUDE.md:5");
}

#[test]
fn the_users_own_claude_md_is_judged_by_absolute_paths_only() {
    let f = Fixture::new();
    write(
        &f.home.join(".claude/CLAUDE.md"),
        "- Keep a todo list in notes/todo.md.\n- My editor config is ~/.config/gone/init.lua.\n",
    );
    let audit = f.audit();
    let mine: Vec<(String, i64)> = audit["stale"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| place(s, "source"))
        .filter(|p| p.0 == "~/.claude/CLAUDE.md")
        .collect();
    assert_eq!(mine, [("~/.claude/CLAUDE.md".to_owned(), 2)], "{audit:#}");
}
