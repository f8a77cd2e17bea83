//! Tidying from the command line (issue 36): `supersede` with several ids, `list` with its
//! source, age, filters and pages, and drift findings settled one by one or in bulk. The real
//! binary over a temporary data folder.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{json, Value};
use tempfile::TempDir;

/// A temporary folder holding the data folder (`data/`) and anything else a test needs.
struct Env {
    dir: TempDir,
    data: PathBuf,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        Env { dir, data }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn run_with(&self, args: &[&str], stdin: &[u8]) -> Output {
        common::run_synapse(&self.data, self.root(), args, stdin)
    }

    /// Run, expect success, and return standard output.
    fn ok(&self, args: &[&str]) -> String {
        self.ok_with(args, b"")
    }

    fn ok_with(&self, args: &[&str], stdin: &[u8]) -> String {
        let out = self.run_with(args, stdin);
        assert!(
            out.status.success(),
            "synapse {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Run with `--json`, expect success, and parse standard output.
    fn json(&self, args: &[&str]) -> Value {
        let mut args = args.to_vec();
        args.push("--json");
        let out = self.ok(&args);
        serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("synapse {args:?} printed no JSON ({e}): {out}"))
    }

    /// Run, expect exit 1 and a `synapse: ` message; return the message.
    fn fail(&self, args: &[&str]) -> String {
        self.fail_with(args, b"")
    }

    fn fail_with(&self, args: &[&str], stdin: &[u8]) -> String {
        let out = self.run_with(args, stdin);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "synapse {args:?}: {stderr}");
        assert!(stderr.starts_with("synapse: "), "message: {stderr}");
        stderr
    }

    /// Remember `text` in `project` (more options in `extra`) and return its id.
    fn remember(&self, text: &str, project: &str, extra: &[&str]) -> i64 {
        let mut args = vec!["remember", text, "--project", project];
        args.extend(extra);
        let out = self.json(&args);
        assert!(out["duplicate_of"].is_null(), "{out}");
        out["id"].as_i64().unwrap()
    }

    /// The ids `list --json` gives with `args` in project `p`.
    fn listed(&self, args: &[&str]) -> Vec<i64> {
        let mut all = vec!["list", "--project", "p"];
        all.extend(args);
        self.json(&all)["memories"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_i64().unwrap())
            .collect()
    }

    fn history(&self, id: i64) -> Vec<(String, Option<i64>)> {
        self.json(&["history", &id.to_string(), "--project", "p"])["history"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["action"].as_str().unwrap().to_owned(),
                    e["other_id"].as_i64(),
                )
            })
            .collect()
    }
}

fn s(id: i64) -> String {
    id.to_string()
}

#[test]
fn supersede_replaces_several_old_memories_by_the_last_id() {
    let env = Env::new();
    let a = env.remember("The cache lives in Redis", "p", &[]);
    let b = env.remember("The cache is Redis 6", "p", &[]);
    let new = env.remember("The cache lives in Memcached", "p", &[]);
    let said = env.ok(&["supersede", &s(a), &s(b), &s(new), "--project", "p"]);
    assert_eq!(
        said,
        format!(
            "{a} is now superseded by {new} (undo: synapse restore {a})\n\
             {b} is now superseded by {new} (undo: synapse restore {b})\n\
             undo all: synapse restore {a} {b}\n"
        )
    );
    assert_eq!(env.listed(&[]), [new]);
    for old in [a, b] {
        assert_eq!(
            env.history(old).last().unwrap(),
            &("supersede".to_owned(), Some(new))
        );
    }
    env.ok(&["restore", &s(a), &s(b), "--project", "p"]);
    let out = env.json(&["supersede", &s(a), &s(b), &s(new), "--project", "p"]);
    assert_eq!(
        out,
        json!({"results": [{"superseded": a, "by": new}, {"superseded": b, "by": new}]})
    );
    let one = env.json(&["restore", &s(a), "--project", "p"]);
    assert_eq!(one["undid"], "supersede");
    assert_eq!(
        env.json(&["supersede", &s(a), &s(new), "--project", "p"]),
        json!({"superseded": a, "by": new})
    );
}

#[test]
fn supersede_with_one_bad_id_changes_nothing_and_names_it() {
    let env = Env::new();
    let a = env.remember("Deploys go out on Thursdays", "p", &[]);
    let gone = env.remember("Deploys need two approvals", "p", &[]);
    let new = env.remember("Deploys go out on Fridays", "p", &[]);
    env.ok(&["forget", &s(gone), "--project", "p"]);
    let said = env.fail(&["supersede", &s(a), "4242", &s(new), "--project", "p"]);
    assert!(
        said.contains("none of the 2 memories was superseded") && said.contains("no memory 4242"),
        "{said}"
    );
    let said = env.fail(&["supersede", &s(a), &s(gone), &s(new), "--project", "p"]);
    assert!(
        said.contains(&format!("memory {gone} is already superseded or forgotten")),
        "{said}"
    );
    let said = env.fail(&["supersede", &s(a), &s(new), &s(new), "--project", "p"]);
    assert!(said.contains("cannot supersede itself"), "{said}");
    // The first id was fine, and is still live: nothing was changed.
    let mut live = env.listed(&[]);
    live.sort();
    assert_eq!(live, [a, new]);
    assert_eq!(env.history(a), [("remember".to_owned(), None)]);
}
