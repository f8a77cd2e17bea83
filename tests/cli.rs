//! The `synapse` command line end to end: the real binary over a temporary data folder.

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use rstest::rstest;
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

    /// Run synapse from `cwd` with `stdin` as standard input.
    fn run_in(&self, cwd: &Path, args: &[&str], stdin: &[u8]) -> Output {
        common::run_synapse(&self.data, cwd, args, stdin)
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_in(self.root(), args, b"")
    }

    /// Run with `--json`, expect success, and parse standard output.
    fn json_in(&self, cwd: &Path, args: &[&str], stdin: &[u8]) -> Value {
        let mut args = args.to_vec();
        args.push("--json");
        common::place::json_of(&args, &self.run_in(cwd, &args, stdin))
    }

    fn json(&self, args: &[&str]) -> Value {
        self.json_in(self.root(), args, b"")
    }

    /// Run, expect exit 1 and a `synapse: ` message; return the message.
    fn fail(&self, args: &[&str]) -> String {
        self.fail_with_stdin(args, b"")
    }

    fn fail_with_stdin(&self, args: &[&str], stdin: &[u8]) -> String {
        let out = self.run_in(self.root(), args, stdin);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "synapse {args:?}: {stderr}");
        assert!(stderr.starts_with("synapse: "), "message: {stderr}");
        stderr
    }

    /// Remember `text` in `project` and return its id.
    fn remember(&self, text: &str, project: &str) -> i64 {
        let out = self.json(&["remember", text, "--project", project]);
        assert!(out["duplicate_of"].is_null(), "{out}");
        out["id"].as_i64().unwrap()
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.root().join(name);
        std::fs::write(&path, text).unwrap();
        path
    }
}

fn ids(list: &Value, key: &str) -> Vec<i64> {
    list[key]
        .as_array()
        .unwrap_or_else(|| panic!("no {key} array in {list}"))
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect()
}

fn listed(env: &Env, project: &str, all: bool) -> Vec<i64> {
    let mut args = vec!["list", "--project", project];
    if all {
        args.push("--all");
    }
    let Some(listed) = in_known_project(env, &args) else {
        return Vec::new();
    };
    let mut found = ids(&listed, "memories");
    found.sort();
    found
}

fn recalled(env: &Env, query: &str, project: &str) -> Vec<i64> {
    in_known_project(env, &["recall", query, "--project", project])
        .map_or_else(Vec::new, |found| ids(&found, "results"))
}

/// The JSON answer of `args`, or `None` when their `--project` key names a project with no
/// memories at all (which the command refuses, naming the known ones).
fn in_known_project(env: &Env, args: &[&str]) -> Option<Value> {
    let mut with_json = args.to_vec();
    with_json.push("--json");
    let out = env.run(&with_json);
    let said = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && said.contains("names no folder and no project with memories") {
        return None;
    }
    Some(env.json(args))
}

fn path_str(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn remember_then_recall_finds_it() {
    let env = Env::new();
    let body = "The release branch is cut every Tuesday from main";
    let stored = env.json(&[
        "remember",
        body,
        "--project",
        "shop",
        "--source",
        "retro notes",
    ]);
    let id = stored["id"].as_i64().unwrap();
    assert!(stored["duplicate_of"].is_null());
    assert!(stored["drift"].is_array());

    let out = env.json(&[
        "recall",
        "when",
        "is",
        "the",
        "release",
        "branch",
        "cut",
        "--project",
        "shop",
    ]);
    assert!(out["drift"].is_array(), "{out}");
    let results = out["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{out}");
    let hit = &results[0];
    assert_eq!(hit["id"].as_i64(), Some(id));
    assert_eq!(hit["project"], json!("shop"));
    assert_eq!(hit["source"], json!("retro notes"));
    assert_eq!(hit["text"], json!(body));
    assert_eq!(hit["abridged"], json!(false));
    assert_eq!(hit["bytes"].as_u64(), Some(body.len() as u64));
    let created = hit["created_at"].as_str().unwrap();
    assert!(
        created.len() == 20 && created.ends_with('Z') && &created[10..11] == "T",
        "created_at {created}"
    );
}

#[test]
fn recall_of_an_unrelated_question_returns_nothing() {
    let env = Env::new();
    env.remember("The release branch is cut every Tuesday", "shop");
    assert!(recalled(&env, "zebra migration", "shop").is_empty());
}

/// A word of one or two characters in a script written without spaces is too short for the
/// trigram index and sits inside a longer run in the word index; recall still finds it.
#[rstest]
#[case::han_two("漢字", "漢字の勉強を毎日する")]
#[case::han_one("猫", "うちの猫は魚が好き")]
#[case::hangul_two("김치", "김치를 좋아하는 사람")]
fn a_short_word_of_an_unspaced_script_is_found(#[case] word: &str, #[case] body: &str) {
    let env = Env::new();
    let want = env.remember(body, "shop");
    env.remember("東京で会議があります", "shop");
    env.remember("The release branch is cut every Tuesday", "shop");
    assert_eq!(recalled(&env, word, "shop"), [want]);
    assert!(
        recalled(&env, "京都", "shop").is_empty(),
        "a word no memory holds finds nothing"
    );
}

#[rstest]
#[case::empty("")]
#[case::punctuation("*")]
#[case::emoji("🦀")]
#[case::function_words("the of and")]
fn a_question_with_nothing_to_search_says_so(#[case] query: &str) {
    let env = Env::new();
    env.remember("The release branch is cut every Tuesday", "shop");
    let found = env.json(&["recall", query, "--project", "shop"]);
    assert_eq!(found["searched"], false, "{found}");
    let out = env.run(&["recall", query, "--project", "shop"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(
        text.starts_with("no question given") || text.starts_with("nothing to search for"),
        "{text}"
    );
    assert!(text.contains("the newest memories instead"), "{text}");
    let searched = env.json(&["recall", "release branch", "--project", "shop"]);
    assert_eq!(searched["searched"], true);
}

#[test]
fn a_limit_of_zero_is_refused_with_what_to_give() {
    let env = Env::new();
    env.remember("The release branch is cut every Tuesday", "shop");
    let message = env.fail(&["recall", "release", "--limit", "0", "--project", "shop"]);
    assert!(message.contains("--limit 0"), "{message}");
}

#[test]
fn remember_reads_the_text_from_stdin() {
    let env = Env::new();
    let body = "line one\n\tline two with a tab  \nlast line é€\n";
    let dash = env.json_in(
        env.root(),
        &["remember", "-", "--project", "p"],
        body.as_bytes(),
    );
    let id = dash["id"].as_i64().unwrap().to_string();
    let page = env.json(&["read", &id, "--project", "p"]);
    assert_eq!(page["memory"]["body"], json!(body), "stored exactly");

    let other = "read from stdin with no argument at all";
    let bare = env.json_in(
        env.root(),
        &["remember", "--project", "p"],
        other.as_bytes(),
    );
    let id = bare["id"].as_i64().unwrap().to_string();
    let page = env.json(&["read", &id, "--project", "p"]);
    assert_eq!(page["memory"]["body"], json!(other));
}

#[test]
fn an_exact_duplicate_returns_the_existing_id_and_stores_nothing() {
    let env = Env::new();
    let body = "Run migrations with `make migrate`, never by hand";
    let first = env.remember(body, "p");
    let again = env.json(&["remember", body, "--project", "p"]);
    assert_eq!(again["id"].as_i64(), Some(first));
    assert_eq!(again["duplicate_of"].as_i64(), Some(first));
    assert_eq!(listed(&env, "p", true), [first]);
}

#[test]
fn the_same_text_in_another_project_is_not_a_duplicate() {
    let env = Env::new();
    let body = "Tests need a running Postgres";
    let a = env.remember(body, "a");
    let b = env.remember(body, "b");
    assert_ne!(a, b);
}

#[test]
fn supersedes_hides_the_old_memory_until_restored() {
    let env = Env::new();
    let old = env.remember("The build tool is make", "p");
    let out = env.json(&[
        "remember",
        "The build tool is now just",
        "--project",
        "p",
        "--supersedes",
        &old.to_string(),
    ]);
    let new = out["id"].as_i64().unwrap();

    assert_eq!(recalled(&env, "build tool", "p"), [new]);
    assert_eq!(listed(&env, "p", false), [new]);
    assert_eq!(listed(&env, "p", true), [old, new]);
    let all = env.json(&["list", "--project", "p", "--all"]);
    let old_row = all["memories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"].as_i64() == Some(old))
        .unwrap();
    assert_eq!(old_row["superseded_by"].as_i64(), Some(new));

    env.json(&["restore", &old.to_string(), "--project", "p"]);
    assert_eq!(listed(&env, "p", false), [old, new]);
    let mut found = recalled(&env, "build tool", "p");
    found.sort();
    assert_eq!(found, [old, new]);
}

/// A write names the live memories close to it, so the writer can replace the older
/// in the same step.
#[test]
fn remembering_a_new_value_names_the_older_memory_as_similar() {
    let env = Env::new();
    for project in ["p", "q"] {
        env.remember("Webhook retry limit is 5 attempts", project);
        env.remember("The staging database is Postgres 16", project);
    }
    let old = listed(&env, "p", false)[0];
    let out = env.json(&["remember", "Webhook retries: 8 attempts", "--project", "p"]);
    let new = out["id"].as_i64().unwrap();
    let similar = out["similar"].as_array().unwrap();
    assert_eq!(similar.len(), 1, "{out}");
    assert_eq!(similar[0]["id"].as_i64(), Some(old));
    assert_eq!(similar[0]["gist"], "Webhook retry limit is 5 attempts");
    assert_eq!(similar[0]["age"], "today");
    assert_eq!(
        listed(&env, "p", false),
        [old, old + 1, new],
        "nothing replaced"
    );

    let out = env.run(&["remember", "Webhook retries: 8 attempts", "--project", "q"]);
    let said = String::from_utf8(out.stdout).unwrap();
    let q_old = listed(&env, "q", false)[0];
    let line = format!("similar: #{q_old} Webhook retry limit is 5 attempts (today); ");
    assert!(said.contains(&line), "{said}");
    assert!(
        said.contains(&format!("`synapse supersede {q_old} ")),
        "{said}"
    );
    assert_eq!(said.matches("similar:").count(), 1, "{said}");
}

#[test]
fn supersedes_replaces_exactly_once_and_only_what_the_project_sees() {
    let env = Env::new();
    let old = env.remember("Webhook retry limit is 5 attempts", "p");
    let theirs = env.remember("Webhook retry limit is 9 attempts", "q");
    let sold = old.to_string();
    let out = env.json(&[
        "remember",
        "Webhook retries: 8 attempts",
        "--project",
        "p",
        "--supersedes",
        &sold,
        "--supersedes",
        &sold,
    ]);
    let new = out["id"].as_i64().unwrap();
    assert_eq!(out["superseded"], serde_json::json!([old]));
    assert!(out["similar"].as_array().unwrap().is_empty(), "{out}");
    let history = env.json(&["history", &sold, "--project", "p"]);
    let supersedes: Vec<&Value> = history["history"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "supersede")
        .collect();
    assert_eq!(supersedes.len(), 1, "{history}");
    assert_eq!(supersedes[0]["other_id"].as_i64(), Some(new));
    assert_eq!(listed(&env, "p", false), [new]);

    let twice = env.fail(&[
        "remember",
        "Webhook retries: 10",
        "--project",
        "p",
        "--supersedes",
        &sold,
    ]);
    assert!(twice.contains("already superseded"), "{twice}");
    let other = env.fail(&[
        "remember",
        "Webhook retries: 10",
        "--project",
        "p",
        "--supersedes",
        &theirs.to_string(),
    ]);
    assert!(other.contains(&theirs.to_string()), "{other}");
    assert_eq!(listed(&env, "p", true), [old, new], "nothing stored");
    assert_eq!(listed(&env, "q", false), [theirs]);
}

#[test]
fn supersede_verb_marks_the_old_one_replaced() {
    let env = Env::new();
    let old = env.remember("The cache lives in Redis", "p");
    let new = env.remember("The cache lives in Memcached", "p");
    env.json(&[
        "supersede",
        &old.to_string(),
        &new.to_string(),
        "--project",
        "p",
    ]);
    assert_eq!(listed(&env, "p", false), [new]);
    assert_eq!(recalled(&env, "cache", "p"), [new]);
}

#[test]
fn forget_hides_and_restore_brings_back() {
    let env = Env::new();
    let id = env.remember("The staging password rotates monthly", "p");
    let sid = id.to_string();
    env.json(&["forget", &sid, "--project", "p"]);
    assert!(recalled(&env, "staging password", "p").is_empty());
    assert!(listed(&env, "p", false).is_empty());
    assert_eq!(listed(&env, "p", true), [id]);
    assert!(env.json(&["read", &sid, "--project", "p"])["memory"].is_null());

    let restored = env.json(&["restore", &sid, "--project", "p"]);
    assert_eq!(restored["undid"], json!("forget"));
    assert_eq!(recalled(&env, "staging password", "p"), [id]);
    assert_eq!(listed(&env, "p", false), [id]);
    assert!(!env.json(&["read", &sid, "--project", "p"])["memory"].is_null());
}

#[test]
fn history_lists_every_action() {
    let env = Env::new();
    let id = env.remember("Deploys happen on Thursdays", "p");
    let sid = id.to_string();
    env.json(&["forget", &sid, "--project", "p"]);
    env.json(&["restore", &sid, "--project", "p"]);
    let newer = env.remember("Deploys happen on Fridays", "p");
    env.json(&["supersede", &sid, &newer.to_string(), "--project", "p"]);
    env.json(&["restore", &sid, "--project", "p"]);

    let out = env.json(&["history", &sid, "--project", "p"]);
    assert_eq!(out["memory"]["id"].as_i64(), Some(id));
    let history = out["history"].as_array().unwrap();
    let actions: Vec<&str> = history
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(
        actions,
        [
            "remember",
            "forget",
            "restore-forget",
            "supersede",
            "restore-supersede"
        ]
    );
    assert_eq!(history[3]["other_id"].as_i64(), Some(newer));
    assert_eq!(history[4]["other_id"].as_i64(), Some(newer));
    assert!(history[0]["other_id"].is_null());
}

/// `KNOWN` in the arguments stands for the id of a real memory.
#[rstest]
#[case::forget(&["forget", "4242", "--project", "p"])]
#[case::restore(&["restore", "4242", "--project", "p"])]
#[case::history(&["history", "4242", "--project", "p"])]
#[case::supersede_an_unknown_id(&["supersede", "4242", "KNOWN", "--project", "p"])]
#[case::supersede_by_an_unknown_id(&["supersede", "KNOWN", "4242", "--project", "p"])]
#[case::remember_superseding_an_unknown_id(
    &["remember", "new text", "--project", "p", "--supersedes", "4242"]
)]
fn unknown_ids_are_errors_that_name_the_id(#[case] args: &[&str]) {
    let env = Env::new();
    let known = env.remember("A real memory", "p").to_string();
    let args: Vec<&str> = args
        .iter()
        .map(|&a| if a == "KNOWN" { known.as_str() } else { a })
        .collect();
    let message = env.fail(&args);
    assert!(message.contains("4242"), "{args:?}: {message}");
    assert_eq!(listed(&env, "p", true).len(), 1, "nothing was stored");
}

#[test]
fn an_empty_memory_text_is_refused() {
    let env = Env::new();
    env.fail(&["remember", "   ", "--project", "p"]);
    env.fail_with_stdin(&["remember", "--project", "p"], b"");
    env.fail_with_stdin(&["remember", "-", "--project", "p"], b" \n\t\n");
    assert!(listed(&env, "p", true).is_empty());
}

#[rstest]
#[case::unterminated_json(r#"{"body": "unterminated"#, 2, "")]
#[case::no_body(r#"{"project": "k", "source": "no body"}"#, 3, "body")]
#[case::an_unreadable_date(
    r#"{"body": "when?", "created_at": "last tuesday"}"#,
    1,
    "last tuesday"
)]
#[case::an_unknown_field(r#"{"body": "coloured", "colour": "blue"}"#, 4, "colour")]
fn import_with_a_malformed_line_names_it_and_stores_nothing(
    #[case] bad: &str,
    #[case] line: usize,
    #[case] hint: &str,
) {
    let good = r#"{"body": "A perfectly good memory", "project": "k"}"#;
    let env = Env::new();
    let mut lines = vec![good.to_owned(); 4];
    for (i, l) in lines.iter_mut().enumerate() {
        *l = l.replace("good memory", &format!("good memory {i}"));
    }
    lines[line - 1] = bad.to_owned();
    let file = env.write("memories.jsonl", &(lines.join("\n") + "\n"));
    let message = env.fail(&["import", path_str(&file), "--project", "k"]);
    assert!(
        message.contains(&format!("line {line}")),
        "{bad}: {message}"
    );
    assert!(message.contains(hint), "{bad}: {message}");
    assert!(
        listed(&env, "k", true).is_empty(),
        "{bad}: stored something"
    );
}

/// One exported line with `superseded_by` turned into the body it points at, so two exports
/// compare regardless of ids.
fn comparable(lines: &[Value]) -> Vec<Value> {
    let body_of = |id: &Value| {
        lines
            .iter()
            .find(|l| l["id"] == *id)
            .map(|l| l["body"].clone())
            .unwrap_or(Value::Null)
    };
    lines
        .iter()
        .map(|l| {
            json!({
                "body": l["body"],
                "project": l["project"],
                "source": l["source"],
                "created_at": l["created_at"],
                "updated_at": l["updated_at"],
                "forgotten_at": l["forgotten_at"],
                "superseded_by": body_of(&l["superseded_by"]),
            })
        })
        .collect()
}

fn read_jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn export_then_import_round_trips_into_a_fresh_store() {
    let first = Env::new();
    let input = [
        r#"{"body": "Never force-push to main", "project": null, "source": "handbook", "created_at": "2024-01-02T03:04:05Z"}"#,
        r#"{"body": "The API listens on port 8080", "project": "rt", "source": "s1", "created_at": "2024-02-01T00:00:00Z"}"#,
        r#"{"body": "The API listens on port 9090", "source": "s2", "created_at": "2024-03-01T00:00:00Z"}"#,
        r#"{"body": "Old notes\twith a tab \nsecond line \u0000 é€😀漢", "project": "rt", "created_at": "2024-04-01T12:30:00+02:00"}"#,
        r#"{"body": "A memory with no time given"}"#,
    ];
    let file = first.write("in.jsonl", &(input.join("\n") + "\n"));
    let report = first.json(&["import", path_str(&file), "--project", "rt"]);
    assert_eq!(report["stored"].as_u64(), Some(5), "{report}");
    let before = ids(&first.json(&["list", "--project", "rt"]), "memories");
    assert_eq!(before.len(), 5);

    let by_body = |env: &Env, text: &str| -> i64 {
        env.json(&["list", "--project", "rt", "--all"])["memories"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["body"].as_str().unwrap().starts_with(text))
            .unwrap()["id"]
            .as_i64()
            .unwrap()
    };
    let old = by_body(&first, "The API listens on port 8080");
    let new = by_body(&first, "The API listens on port 9090");
    let notes = by_body(&first, "Old notes");
    let (old_arg, new_arg) = (old.to_string(), new.to_string());
    first.json(&["supersede", &old_arg, &new_arg, "--project", "rt"]);
    first.json(&["forget", &notes.to_string(), "--project", "rt"]);

    let exported = first.root().join("out.jsonl");
    let done = first.json(&["export", path_str(&exported), "--project", "rt"]);
    assert_eq!(done["exported"].as_u64(), Some(5));
    let a = read_jsonl(&exported);

    // What the first export says about the input.
    let global = a.iter().find(|l| l["source"] == json!("handbook")).unwrap();
    assert!(global["project"].is_null());
    assert_eq!(global["created_at"], json!("2024-01-02T03:04:05Z"));
    let with_nul = a.iter().find(|l| l["id"].as_i64() == Some(notes)).unwrap();
    assert_eq!(
        with_nul["body"],
        json!("Old notes\twith a tab \nsecond line \u{0} é€😀漢")
    );
    assert_eq!(with_nul["created_at"], json!("2024-04-01T10:30:00Z"));
    assert!(!with_nul["forgotten_at"].is_null());
    let replaced = a.iter().find(|l| l["id"].as_i64() == Some(old)).unwrap();
    assert_eq!(replaced["superseded_by"].as_i64(), Some(new));

    // Back into the same store: everything is already there, and nothing changes.
    let imported = first.json(&["import", path_str(&exported), "--project", "rt"]);
    assert_eq!(imported["stored"].as_u64(), Some(0), "{imported}");
    let same = first.root().join("same.jsonl");
    first.json(&["export", path_str(&same), "--project", "rt"]);
    assert_eq!(
        read_jsonl(&same),
        a,
        "export, import, export is a fixed point"
    );

    // Into a fresh data folder, under another default project: every line names its own.
    let second = Env::new();
    let imported = second.json(&["import", path_str(&exported), "--project", "elsewhere"]);
    assert_eq!(imported["stored"].as_u64(), Some(5), "{imported}");
    let again = second.root().join("again.jsonl");
    second.json(&["export", path_str(&again), "--project", "rt"]);
    let b = read_jsonl(&again);
    assert_eq!(comparable(&a), comparable(&b));

    // The states hold: only the three live ones are listed and recalled.
    assert_eq!(listed(&second, "rt", false).len(), 3);
    assert_eq!(listed(&second, "rt", true).len(), 5);
    let hits = second.json(&["recall", "API", "port", "--project", "rt"]);
    let texts: Vec<&str> = hits["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["The API listens on port 9090"]);
    // A project with no memories of its own (a folder) sees the global one alone.
    let elsewhere = second.root().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    assert!(
        listed(&second, path_str(&elsewhere), true).len() == 1,
        "only the global one"
    );
}

/// The live memories of `project` as `(source, body)`, oldest first.
fn sources_and_bodies(env: &Env, project: &str) -> Vec<(String, String)> {
    let list = env.json(&["list", "--project", project]);
    let mut found: Vec<(i64, String, String)> = list["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let text = |key: &str| m[key].as_str().unwrap().to_owned();
            (m["id"].as_i64().unwrap(), text("source"), text("body"))
        })
        .collect();
    found.sort();
    found.into_iter().map(|(_, s, b)| (s, b)).collect()
}

/// `synapse import` of the auto-memory folder `folder` into project `p`.
fn import_into_p(folder: &Path) -> [&str; 6] {
    let folder = path_str(folder);
    [
        "import",
        "--from",
        "claude-memory",
        folder,
        "--project",
        "p",
    ]
}

/// An auto-memory folder as Claude Code writes it: two topic files, and an index that links both
/// and holds one fact of its own.
fn memory_folder(env: &Env) -> PathBuf {
    let folder = env.root().join("memory");
    std::fs::create_dir(&folder).unwrap();
    let write = |name: &str, text: &str| std::fs::write(folder.join(name), text).unwrap();
    write(
        "deploy.md",
        "---\nname: Deploy window\ndescription: never deploy on Fridays\nmetadata:\n  type: feedback\n---\n\nThe Friday release broke twice.\n",
    );
    write(
        "testing.md",
        "---\nname: Tests\ndescription: 'integration tests need a real database'\nmetadata:\n  type: project\n---\nMocks hid a broken migration last quarter.\n",
    );
    write(
        "MEMORY.md",
        "# Memory\n- [Deploy window](deploy.md) — never on Fridays\n- [Tests](testing.md) — real database\n- The staging database resets every night\n",
    );
    write("notes.txt", "not a memory file");
    folder
}

#[test]
fn import_from_claude_memory_gives_one_memory_per_topic_file() {
    let env = Env::new();
    let folder = memory_folder(&env);
    let may_2024 = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_715_000_000);
    std::fs::File::options()
        .write(true)
        .open(folder.join("deploy.md"))
        .unwrap()
        .set_modified(may_2024)
        .unwrap();
    let report = env.json(&import_into_p(&folder));
    assert_eq!(report["stored"].as_u64(), Some(3), "{report}");
    assert_eq!(report["batch"].as_i64(), Some(1), "{report}");
    assert_eq!(
        sources_and_bodies(&env, "p"),
        [
            (
                "memory/deploy.md · Deploy window".to_owned(),
                "never deploy on Fridays\n\nThe Friday release broke twice.".to_owned()
            ),
            (
                "memory/testing.md · Tests".to_owned(),
                "integration tests need a real database\n\nMocks hid a broken migration last quarter."
                    .to_owned()
            ),
            // The index's links say again what the topics' descriptions say; its own fact stays.
            (
                "memory/MEMORY.md:4".to_owned(),
                "The staging database resets every night".to_owned()
            ),
        ]
    );
    let list = env.json(&["list", "--project", "p"]);
    let deploy = list["memories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["source"] == "memory/deploy.md · Deploy window")
        .unwrap();
    assert_eq!(deploy["created_at"], "2024-05-06T12:53:20Z", "{deploy}");
}

#[rstest]
#[case::markdown("markdown", "CLAUDE.md")]
#[case::agents_md("agents-md", "AGENTS.md")]
fn import_from_an_instruction_file_splits_at_items_with_file_line_sources(
    #[case] kind: &str,
    #[case] name: &str,
) {
    let env = Env::new();
    let file = env.write(
        name,
        "# Build\nRun `make check` before pushing.\n\n- tests need docker\n  - and 4 GB of memory\n\n```sh\n- not an item\n```\n1. release from main only\n",
    );
    env.json(&["import", "--from", kind, path_str(&file), "--project", "p"]);
    let at = |line: usize| format!("{name}:{line}");
    assert_eq!(
        sources_and_bodies(&env, "p"),
        [
            (
                at(1),
                "# Build\nRun `make check` before pushing.".to_owned()
            ),
            (at(4), "tests need docker\n- and 4 GB of memory".to_owned()),
            (at(7), "```sh\n- not an item\n```".to_owned()),
            (at(10), "release from main only".to_owned()),
        ]
    );
}

/// A Markdown file or a folder given to `synapse import` without `--from` is refused with the
/// command that reads it (not listed line by line as bad JSON), and nothing is stored.
#[rstest]
#[case::markdown("CLAUDE.md", "--from markdown")]
#[case::agents_md("AGENTS.md", "--from agents-md")]
fn a_markdown_file_without_from_says_which_from_reads_it(#[case] name: &str, #[case] said: &str) {
    let env = Env::new();
    let file = env.write(name, "# Notes\n\n- deploys need a ticket\n");
    let out = env.run(&["import", path_str(&file), "--project", "p"]);
    assert!(!out.status.success(), "{out:?}");
    let error = String::from_utf8(out.stderr).unwrap();
    assert!(error.contains(said), "{error}");
    assert!(!error.contains("line 1"), "{error}");
    let folder = file.with_file_name("memory");
    std::fs::create_dir_all(&folder).unwrap();
    let out = env.run(&["import", path_str(&folder)]);
    assert!(!out.status.success(), "{out:?}");
    let error = String::from_utf8(out.stderr).unwrap();
    assert!(error.contains("--from claude-memory"), "{error}");
}

#[test]
fn a_secret_in_an_imported_file_is_masked() {
    let env = Env::new();
    let key = "sk_live_51HzQeLKjNpDqR3XyT9aBcDeFgHiJkLmNoPqRsTuV";
    let file = env.write("notes.md", &format!("- the payments key is {key}\n"));
    let report = env.json(&[
        "import",
        "--from",
        "markdown",
        path_str(&file),
        "--project",
        "p",
    ]);
    assert_eq!(report["masked"].as_u64(), Some(1), "{report}");
    let stored = sources_and_bodies(&env, "p");
    assert_eq!(stored.len(), 1);
    assert!(!stored[0].1.contains(key), "{stored:?}");
    assert!(stored[0].1.contains("[secret]"), "{stored:?}");
}

#[test]
fn importing_the_same_files_twice_skips_the_duplicates() {
    let env = Env::new();
    let folder = memory_folder(&env);
    let args = import_into_p(&folder);
    env.json(&args);
    let again = env.json(&args);
    assert_eq!(again["stored"].as_u64(), Some(0), "{again}");
    assert_eq!(again["duplicates"].as_u64(), Some(3), "{again}");
    // Nothing stored makes no batch to undo.
    assert!(again["batch"].is_null(), "{again}");
    assert_eq!(sources_and_bodies(&env, "p").len(), 3);
}

#[test]
fn undo_forgets_exactly_that_batch_and_refuses_to_run_twice() {
    let env = Env::new();
    let kept = env.remember("the cache holds 200 entries", "p");
    let folder = memory_folder(&env);
    let first = env.json(&import_into_p(&folder));
    let notes = env.write("notes.md", "- builds run on the ARM runners\n");
    let second = env.json(&[
        "import",
        "--from",
        "markdown",
        path_str(&notes),
        "--project",
        "p",
    ]);
    assert_eq!(
        (first["batch"].as_i64(), second["batch"].as_i64()),
        (Some(1), Some(2))
    );

    let undone = env.json(&["import", "--undo", "1", "--project", "p"]);
    let first_ids: Vec<i64> =
        (first["first_id"].as_i64().unwrap()..=first["last_id"].as_i64().unwrap()).collect();
    let forgotten: Vec<i64> = undone["forgotten"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_i64().unwrap())
        .collect();
    assert_eq!(forgotten, first_ids, "{undone}");
    let second_id = second["first_id"].as_i64().unwrap();
    assert_eq!(listed(&env, "p", false), [kept, second_id]);
    // Forgotten, not deleted: each comes back with restore.
    assert_eq!(listed(&env, "p", true).len(), 5);
    env.json(&["restore", &first_ids[0].to_string(), "--project", "p"]);

    let human = env.run(&["import", "--undo", "2", "--project", "p"]);
    assert!(human.status.success(), "{human:?}");
    assert_eq!(
        String::from_utf8_lossy(&human.stdout),
        "forgot 1 memories of import batch 2; `synapse restore ID` brings one back\n"
    );
    let twice = env.fail(&["import", "--undo", "2", "--project", "p"]);
    assert!(twice.contains("no live memory left"), "{twice}");
    let unknown = env.fail(&["import", "--undo", "7", "--project", "p"]);
    assert!(unknown.contains("no import batch 7"), "{unknown}");
    // Another project's batch reads like a missing one.
    env.remember("the other project's note", "q");
    let elsewhere = env.fail(&["import", "--undo", "1", "--project", "q"]);
    assert!(elsewhere.contains("no import batch 1"), "{elsewhere}");
}

#[test]
fn a_json_lines_import_is_a_batch_too() {
    let env = Env::new();
    let lines = "{\"body\": \"deploys go through the release train\"}\n{\"body\": \"the API listens on 3000\"}\n";
    let file = env.write("in.jsonl", lines);
    let out = env.run(&["import", path_str(&file), "--project", "p"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "imported 2 memories as batch 1 (0 duplicates skipped); \
         `synapse import --undo 1 --project p` takes them back\n"
    );
    let id = listed(&env, "p", false)[0];
    let history = env.json(&["history", &id.to_string(), "--project", "p"]);
    assert_eq!(history["history"][0]["action"], "import", "{history}");
    assert_eq!(history["history"][0]["other_id"], 1, "{history}");
    env.json(&["import", "--undo", "1", "--project", "p"]);
    assert!(listed(&env, "p", false).is_empty());
}

#[test]
fn project_given_as_a_key_is_used_verbatim() {
    let env = Env::new();
    let id = env.remember("Team notes live in the wiki", "team-notes");
    let list = env.json(&["list", "--project", "team-notes"]);
    assert_eq!(list["memories"][0]["id"].as_i64(), Some(id));
    assert_eq!(list["memories"][0]["project"], json!("team-notes"));
    let typo = env.fail(&["list", "--project", "team-notes-2"]);
    assert!(
        typo.contains("\"team-notes-2\" names no folder and no project")
            && typo.contains("known projects: team-notes"),
        "{typo}"
    );
    let recall = env.fail(&["recall", "wiki", "--project", "team-notes-2"]);
    assert!(recall.contains("known projects: team-notes"), "{recall}");
}

#[test]
fn a_git_repository_and_its_subfolder_share_one_scope() {
    let env = Env::new();
    let repo = env.root().join("repo");
    let deep = repo.join("src").join("deep");
    std::fs::create_dir_all(&deep).unwrap();
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repo)
        .output()
        .expect("git is installed");
    assert!(git.status.success());
    let key = repo.canonicalize().unwrap();
    let key = path_str(&key);

    let id = env.remember("The parser lives in src/deep", path_str(&deep));
    let from_root = env.json(&["list", "--project", path_str(&repo)]);
    assert_eq!(from_root["memories"][0]["id"].as_i64(), Some(id));
    assert_eq!(from_root["memories"][0]["project"], json!(key));
    assert_eq!(
        listed(&env, key, false),
        [id],
        "the key is the repository root"
    );

    // With no --project, the current folder decides.
    let here = env.json_in(&repo.join("src"), &["list"], b"");
    assert_eq!(ids(&here, "memories"), [id]);
    let out = env.json_in(&deep, &["remember", "Written from a subfolder"], b"");
    let second = out["id"].as_i64().unwrap();
    assert_eq!(listed(&env, path_str(&repo), false), [id, second]);

    // A folder outside the repository is another project.
    let outside = env.root().join("outside");
    std::fs::create_dir(&outside).unwrap();
    assert!(listed(&env, path_str(&outside), true).is_empty());
}

#[test]
fn scopes_are_isolated_but_global_memories_are_shared() {
    let env = Env::new();
    let private = env.remember("The widget cache is flushed hourly", "alpha");
    let out = env.json(&[
        "remember",
        "The widget dashboard lives at /ops/widgets",
        "--global",
    ]);
    let shared = out["id"].as_i64().unwrap();
    let (p, s) = (private.to_string(), shared.to_string());

    let mut seen_from_alpha = recalled(&env, "widget", "alpha");
    seen_from_alpha.sort();
    assert_eq!(seen_from_alpha, [private, shared]);
    assert_eq!(listed(&env, "alpha", false), [private, shared]);

    // Another project, with no memories of its own: a folder.
    let beta = env.root().join("beta");
    std::fs::create_dir_all(&beta).unwrap();
    let beta = path_str(&beta);
    assert_eq!(recalled(&env, "widget cache flushed", beta), [shared]);
    assert_eq!(listed(&env, beta, true), [shared]);
    assert!(env.json(&["read", &p, "--project", beta])["memory"].is_null());
    assert!(!env.json(&["read", &s, "--project", beta])["memory"].is_null());
    assert!(env.fail(&["forget", &p, "--project", beta]).contains(&p));
    assert!(env.fail(&["history", &p, "--project", beta]).contains(&p));
    let exported = env.run(&["export", "--project", beta]);
    assert!(exported.status.success());
    let text = String::from_utf8(exported.stdout).unwrap();
    assert_eq!(text.lines().count(), 1);
    assert!(!text.contains("flushed hourly"));
}

/// A project memory may not hide a global one: other projects would lose it too.
#[test]
fn a_project_memory_cannot_supersede_a_global_one() {
    let env = Env::new();
    let global = env.json(&["remember", "Node 20 everywhere", "--global"])["id"]
        .as_i64()
        .unwrap();
    let local = env.remember("This project pins Node 22", "p");
    let (g, l) = (global.to_string(), local.to_string());
    let said = env.fail(&["supersede", &g, &l, "--project", "p"]);
    assert!(
        said.contains("is global") && said.contains("--global"),
        "{said}"
    );
    let said = env.fail(&[
        "remember",
        "Node 22 here",
        "--project",
        "p",
        "--supersedes",
        &g,
    ]);
    assert!(said.contains("is global"), "{said}");
    // Nothing changed: the global memory is live for every project.
    assert_eq!(listed(&env, "p", false).len(), 2);
    let other = env.root().join("other");
    std::fs::create_dir_all(&other).unwrap();
    assert_eq!(listed(&env, path_str(&other), false), [global]);
    // A global memory may replace a project's own.
    let newer = env.json(&["remember", "Node 22 everywhere", "--global"])["id"]
        .as_i64()
        .unwrap();
    env.json(&["supersede", &l, &newer.to_string(), "--project", "p"]);
}

#[test]
fn eval_json_reports_the_documented_scores() {
    let env = Env::new();
    env.remember("The staging database listens on port 5433", "evalproj");
    env.remember("Staging database backups run nightly at 02:00", "evalproj");
    let runbook = format!(
        "Nightly runbook for the archive rotation job\n{}The key is kept in the vault under ops/archive-key\n",
        "step: check the disk quota and wait.\n".repeat(100)
    );
    env.json_in(
        env.root(),
        &["remember", "-", "--project", "evalproj"],
        runbook.as_bytes(),
    );
    let cases = env.write(
        "cases.toml",
        r#"
# Answered first.
[[case]]
query = "staging database port"
project = "evalproj"
expect = "5433"

# Answered second: the backups memory holds two of the three words.
[[case]]
query = "staging database port"
project = "evalproj"
expect = ["backups run nightly", "not in any memory"]

# Answered first, but the lean budget sends only the runbook's opening line.
[[case]]
query = "archive rotation runbook"
project = "evalproj"
expect = "ops/archive-key"

# Not found.
[[case]]
query = "staging database"
project = "evalproj"
expect = "ops/archive-key"

# Unanswerable, nothing returned.
[[case]]
query = "zebra giraffe"
project = "evalproj"

# Unanswerable, one memory returned.
[[case]]
query = "backups"
project = "evalproj"
expect = ""
"#,
    );
    let report = env.json(&["eval", path_str(&cases), "--budget", "lean"]);
    assert_eq!(report["cases"].as_u64(), Some(6), "{report}");
    assert_eq!(report["answerable"].as_u64(), Some(4), "{report}");
    let score = |key: &str| {
        report[key]
            .as_f64()
            .unwrap_or_else(|| panic!("no {key} in {report}"))
    };
    let expected = [
        ("top1", 2.0 / 4.0),
        ("found", 3.0 / 4.0),
        ("mrr", (1.0 + 0.5 + 1.0 + 0.0) / 4.0),
        ("survived", 2.0 / 4.0),
        ("noise", (0.0 + 1.0) / 2.0),
    ];
    for (key, want) in expected {
        assert!((score(key) - want).abs() < 1e-9, "{key}: {report}");
    }
}

#[test]
fn a_newer_schema_is_refused_and_the_file_left_unchanged() {
    let env = Env::new();
    // A write creates the store (reading creates nothing).
    env.remember("stored before the schema moved on", "p");
    let db = env.data.join("synapse.db");
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.pragma_update(None, "user_version", 99).unwrap();
    }
    let before = std::fs::read(&db).unwrap();

    let message = env.fail(&["list", "--project", "p"]);
    assert!(
        message.contains("99") && message.contains("newer"),
        "{message}"
    );
    env.fail(&["remember", "should not be stored", "--project", "p"]);

    assert_eq!(std::fs::read(&db).unwrap(), before, "the file was changed");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let version: i64 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version, 99);
    let rows: i64 = conn
        .query_row("SELECT count(*) FROM memories", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 1);
}

#[test]
fn the_data_folder_is_private() {
    let mut env = Env::new();
    env.data = env.root().join("nested").join("data");
    env.remember("the first write creates the folder", "p");
    let folder = std::fs::metadata(&env.data).unwrap().permissions().mode();
    let file = std::fs::metadata(env.data.join("synapse.db"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(folder & 0o777, 0o700, "folder mode {folder:o}");
    assert_eq!(file & 0o777, 0o600, "file mode {file:o}");
}

/// `synapse doctor` checks that Claude Code runs the plugin: before it is installed, while it is
/// disabled and once it is installed (binaries found where the launcher looks, the MCP server
/// answering), saying what to run when something fails.
#[test]
fn doctor_checks_the_plugin_is_installed_enabled_and_answering() {
    let env = Env::new();
    let home = common::test_home(&env.data);
    let message = env.fail(&["doctor"]);
    assert!(
        message.contains("not installed in Claude Code")
            && message.contains("claude plugin install synapse@synapse"),
        "{message}"
    );

    common::install_plugin(&home, false);
    let message = env.fail(&["doctor"]);
    assert!(
        message.contains("disabled") && message.contains("claude plugin enable synapse@synapse"),
        "{message}"
    );

    common::install_plugin(&home, true);
    let report = env.json(&["doctor"]);
    let checks = report["plugin"].as_array().unwrap();
    assert!(checks.iter().all(|c| c["ok"] == true), "{report}");
    let found = |what: &str| checks.iter().filter(|c| c["what"] == what).count();
    assert_eq!(
        (
            found("plugin"),
            found("binary"),
            found("binaries"),
            found("mcp")
        ),
        (1, synapse::cmd::doctor::wiring::BINARIES.len(), 1, 1),
        "{report}"
    );
    let mcp = checks.iter().find(|c| c["what"] == "mcp").unwrap();
    assert!(mcp["detail"].as_str().unwrap().contains("synapse"), "{mcp}");
    let text = String::from_utf8(env.run(&["doctor"]).stdout).unwrap();
    assert!(text.contains("everything works"), "{text}");

    // Where the binaries came from, as the launcher's download recorded it; a plugin of another
    // version than the binaries is a failure, never used silently.
    let plugins = home.join(".claude/plugins");
    std::fs::write(
        home.join(".local/share/synapse-plugin/bin/ORIGIN"),
        "source=download\nurl=http://127.0.0.1:1/synapse-x.tar.xz\nsha256=abc\nversion=0.1.0\n",
    )
    .unwrap();
    let report = env.json(&["doctor"]);
    let binaries = report["plugin"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["what"] == "binaries")
        .cloned()
        .unwrap();
    let detail = binaries["detail"].as_str().unwrap();
    assert!(
        detail.contains(concat!("version ", env!("CARGO_PKG_VERSION")))
            && detail.contains("downloaded from http://127.0.0.1:1/synapse-x.tar.xz"),
        "{binaries}"
    );
    let manifest = plugins.join(concat!(
        "cache/synapse/synapse/",
        env!("CARGO_PKG_VERSION"),
        "/.claude-plugin"
    ));
    std::fs::create_dir_all(&manifest).unwrap();
    std::fs::write(
        manifest.join("plugin.json"),
        r#"{"name": "synapse", "version": "9.9.9"}"#,
    )
    .unwrap();
    let message = env.fail(&["doctor"]);
    assert!(
        message.contains("but the plugin is version 9.9.9"),
        "{message}"
    );
    std::fs::remove_dir_all(&manifest).unwrap();

    // Hooks off in the user's settings: said, with the line that lets the read-only tools run.
    let settings = home.join(".claude/settings.json");
    let mut value: Value = serde_json::from_slice(&std::fs::read(&settings).unwrap()).unwrap();
    value["disableAllHooks"] = json!(true);
    std::fs::write(&settings, value.to_string()).unwrap();
    let message = env.fail(&["doctor"]);
    assert!(
        message.contains("disableAllHooks")
            && message
                .contains(r#""permissions": {"allow": ["mcp__plugin_synapse_synapse__recall""#),
        "{message}"
    );
    value["disableAllHooks"] = json!(false);
    std::fs::write(&settings, value.to_string()).unwrap();

    // The binaries gone from where the launcher looks: each named, with the build to run.
    std::fs::remove_dir_all(home.join(".local/share/synapse-plugin/bin")).unwrap();
    let out = common::run_synapse_with(
        &env.data,
        env.root(),
        &["doctor", "--json"],
        b"",
        &[("PATH", "/usr/bin:/bin")],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let missing: Vec<&Value> = report["plugin"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["ok"] == false)
        .collect();
    assert_eq!(
        missing.len(),
        synapse::cmd::doctor::wiring::BINARIES.len(),
        "{report}"
    );
    assert!(
        missing.iter().all(
            |c| c["what"] == "binary" && c["fix"].as_str().unwrap().contains("downloads them")
        ),
        "{report}"
    );
}

#[test]
fn doctor_shows_where_everything_is_and_fails_on_bad_settings() {
    let env = Env::new();
    env.json(&["remember", "kept for the doctor", "--project", "p"]);
    common::install_plugin(&common::test_home(&env.data), true);
    let report = env.json(&["doctor"]);
    assert_eq!(report["data"], env.data.to_str().unwrap());
    assert_eq!(report["problems"].as_array().unwrap().len(), 0, "{report}");
    for hook in report["hook_binaries"].as_array().unwrap() {
        assert!(
            hook["path"].is_string(),
            "the hook binaries are built beside synapse: {hook}"
        );
    }
    std::fs::write(env.data.join("config.toml"), "budget = \"huge\"\n").unwrap();
    let message = env.fail(&["doctor"]);
    assert!(message.contains("config.toml"), "{message}");
}

/// Doctor says what waits in the spool, which of it no longer applies (a memory given to a
/// session and deleted since), and, when the spool cannot be drained at all, that writes go on
/// without it; every write then still succeeds.
#[test]
fn doctor_says_what_waits_in_the_spool_and_whether_it_can_drain() {
    let env = Env::new();
    common::install_plugin(&common::test_home(&env.data), true);
    let id = env.json(&["remember", "kept for the doctor", "--project", "p"])["id"]
        .as_i64()
        .unwrap();
    let spool = env.data.join("spool.jsonl");
    let line = |key: &str, ids: &[i64]| {
        json!({"key": key, "op": "injected", "session": "s1", "ids": ids}).to_string() + "\n"
    };
    std::fs::write(&spool, line("k1", &[id]) + &line("k2", &[id, 9_999])).unwrap();
    let report = env.json(&["doctor"]);
    let said = report["warnings"].to_string();
    assert!(
        said.contains("2 writes") && said.contains("the next write stores them"),
        "{said}"
    );
    assert!(said.contains("1 of them no longer apply"), "{said}");
    assert_eq!(report["spool"]["stale"], 1, "{report}");

    std::fs::remove_file(&spool).unwrap();
    std::fs::create_dir(&spool).unwrap();
    let report = env.json(&["doctor"]);
    let said = report["warnings"].to_string();
    assert!(
        said.contains("cannot be drained") && said.contains("Writes go on without it"),
        "{said}"
    );
    env.json(&["remember", "written all the same", "--project", "p"]);
}

/// `synapse list | head -1`: the reader goes away after one line, and synapse stops quietly
/// with exit 0 instead of panicking on the closed pipe.
#[rstest]
#[case::list("list")]
#[case::export("export")]
fn a_closed_pipe_ends_the_command_quietly(#[case] verb: &str) {
    let env = Env::new();
    let lines: String = (0..3_000)
        .map(|i| format!("{{\"body\": \"note {i} about nothing in particular\"}}\n"))
        .collect();
    let file = env.root().join("many.jsonl");
    std::fs::write(&file, lines).unwrap();
    env.json(&["import", file.to_str().unwrap(), "--project", "p"]);
    let out = Command::new("bash")
        .args([
            "-c",
            &format!(
                "set -o pipefail; {} {verb} --project p | head -1",
                env!("CARGO_BIN_EXE_synapse")
            ),
        ])
        .env("SYNAPSE_DATA", &env.data)
        .output()
        .unwrap();
    assert!(out.status.success(), "{verb}: {out:?}");
    assert!(out.stderr.is_empty(), "{verb}: {out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
}

/// A write the disk refuses (here a file-size limit, as a full disk would) fails with a message
/// that says what happened, no guess at a wrong cause, and the store keeps what it held.
#[test]
fn a_write_the_disk_refuses_fails_clearly_and_loses_nothing() {
    let env = Env::new();
    env.json(&["remember", "kept before the failure", "--project", "p"]);
    let big = "word ".repeat(200_000);
    let out = Command::new("bash")
        .args([
            "-c",
            &format!(
                "trap '' XFSZ; ulimit -f 300; exec {} remember --project p -",
                env!("CARGO_BIN_EXE_synapse")
            ),
        ])
        .env("SYNAPSE_DATA", &env.data)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(big.as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    assert!(!out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        (err.contains("full") || err.contains("I/O error")) && !err.contains("synapse store?"),
        "{err}"
    );
    let listed = env.json(&["list", "--project", "p"]);
    assert_eq!(listed["memories"].as_array().unwrap().len(), 1, "{listed}");
}

/// Variables read only by the test suite, never to be advertised.
const TEST_ONLY_VARIABLES: &[&str] = &["SYNAPSE_TEST_PANIC"];

/// Every `SYNAPSE_…` and `CLAUDE_…` name in the files below `folder`.
fn variables_named_in(folder: &Path, names: &mut std::collections::BTreeSet<String>) {
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            variables_named_in(&path, names);
            continue;
        }
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        for prefix in ["SYNAPSE_", "CLAUDE_"] {
            for (at, _) in text.match_indices(prefix) {
                let before = text[..at].chars().next_back();
                if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                    continue;
                }
                let name: String = text[at..]
                    .chars()
                    .take_while(|c| c.is_ascii_uppercase() || *c == '_')
                    .collect();
                let name = name.trim_end_matches('_');
                if name.len() > prefix.len() {
                    names.insert(name.to_owned());
                }
            }
        }
    }
}

/// `synapse --help` lists every environment variable the code and the plugin's launchers read,
/// one line each, and none that only the tests set: a new variable cannot go unlisted.
#[test]
fn help_lists_every_environment_variable_read() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut names = std::collections::BTreeSet::new();
    variables_named_in(&root.join("src"), &mut names);
    variables_named_in(&root.join("bin"), &mut names);
    assert!(names.contains("SYNAPSE_DATA"), "found {names:?}");
    let out = Env::new().run(&["--help"]);
    assert!(out.status.success(), "{out:?}");
    let help = String::from_utf8(out.stdout).unwrap();
    let listed = |name: &str| {
        help.lines()
            .any(|l| l.split_whitespace().next() == Some(name))
    };
    for name in &names {
        if TEST_ONLY_VARIABLES.contains(&name.as_str()) {
            assert!(
                !help.contains(name.as_str()),
                "{name} is for tests only:\n{help}"
            );
        } else {
            assert!(listed(name), "{name} is read but not in --help:\n{help}");
        }
    }
}

/// `synapse doctor` shows the variables of Synapse and of the client that are set, with their
/// values (an empty one counts as unset), and not the system's.
#[test]
fn doctor_shows_the_variables_set() {
    let env = Env::new();
    let out = common::run_synapse_with(
        &env.data,
        env.root(),
        &["doctor", "--json"],
        b"",
        &[("SYNAPSE_BUDGET", "lean"), ("SYNAPSE_NOTICE", "")],
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let shown = report["environment"].as_object().unwrap();
    assert_eq!(shown["SYNAPSE_BUDGET"], "lean", "{report}");
    assert_eq!(
        shown["SYNAPSE_DATA"],
        env.data.to_str().unwrap(),
        "{report}"
    );
    for hidden in ["SYNAPSE_NOTICE", "HOME", "PATH"] {
        assert!(!shown.contains_key(hidden), "{hidden}: {report}");
    }
    let out = common::run_synapse_with(
        &env.data,
        env.root(),
        &["doctor"],
        b"",
        &[("SYNAPSE_BUDGET", "lean")],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("environment   SYNAPSE_BUDGET=lean"), "{text}");
}

/// The plugin's version is written in four places that must agree: Cargo.toml (the binaries'),
/// the two manifests, and the launcher's `synapse_version` (bin/synapse-find), which decides
/// whether installed binaries are this version's.
#[test]
fn every_manifest_and_the_launcher_name_the_crate_s_version() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let version = env!("CARGO_PKG_VERSION");
    for manifest in [".claude-plugin/plugin.json", "gemini/gemini-extension.json"] {
        let value: Value =
            serde_json::from_slice(&std::fs::read(root.join(manifest)).unwrap()).unwrap();
        assert_eq!(value["version"], version, "{manifest}");
    }
    let find = std::fs::read_to_string(root.join("bin/synapse-find")).unwrap();
    assert!(
        find.lines()
            .any(|l| l == format!("synapse_version={version}")),
        "bin/synapse-find's synapse_version is not {version}"
    );
}

/// After a plugin update, binaries the launcher installed for another version are not used: it
/// passes over them, says once at the session's start that it installs the matching ones, and
/// starts that install; binaries of this version are used.
#[test]
fn the_launcher_passes_over_binaries_installed_for_another_version() {
    let dir = tempfile::tempdir().unwrap();
    // Where the launchers install the binaries (`synapse_data` in bin/synapse-find).
    let bin = dir.path().join(".local/share/synapse-plugin/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let hook = bin.join("synapse-session-start");
    std::fs::write(&hook, "#!/bin/sh\necho installed hook ran\n").unwrap();
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let launch = || {
        Command::new(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("bin/synapse-hook"))
            .arg("session-start")
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", dir.path())
            // A plugin folder without a checkout's target/release beside the launcher.
            .env("CLAUDE_PLUGIN_ROOT", dir.path())
            // Nothing to download from: the install this starts fails quickly, offline.
            .env("SYNAPSE_RELEASE_URL", "http://127.0.0.1:9")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };

    std::fs::write(
        bin.join("VERSION"),
        format!("{}\n", env!("CARGO_PKG_VERSION")),
    )
    .unwrap();
    let out = launch();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "installed hook ran\n");

    std::fs::write(bin.join("VERSION"), "0.0.1\n").unwrap();
    let out = launch();
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        !said.contains("installed hook ran")
            && said.contains(concat!(
                "the plugin was updated to ",
                env!("CARGO_PKG_VERSION")
            ))
            && said.contains("those of 0.0.1 are not used"),
        "{said}"
    );
    // Said once.
    let again = String::from_utf8_lossy(&launch().stdout).into_owned();
    assert!(!again.contains("the plugin was updated"), "{again}");
}

/// A verb that only reads creates no data folder and no store where there is none; it
/// finds no memories and names the folder it looked in. A write still creates both.
#[rstest]
#[case::list(&["list"])]
#[case::list_json(&["list", "--json"])]
#[case::recall(&["recall", "deploy"])]
#[case::read(&["read", "1"])]
#[case::history(&["history", "1"])]
#[case::export(&["export"])]
#[case::drift(&["drift"])]
#[case::drift_json(&["drift", "--json"])]
#[case::status(&["status"])]
#[case::doctor(&["doctor"])]
#[case::eval(&["eval", "cases.toml"])]
fn reading_creates_no_store_in_a_missing_data_folder(#[case] args: &[&str]) {
    let env = Env::new();
    env.write("cases.toml", "");
    let out = env.run(args);
    assert!(
        !env.data.exists(),
        "synapse {args:?} created {}: {}",
        env.data.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn listing_a_missing_data_folder_says_where_it_looked() {
    let env = Env::new();
    let out = env.run(&["list"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("no memories"), "{said}");
    assert!(said.contains(&env.data.display().to_string()), "{said}");
    assert!(!env.data.exists());
    env.remember("a write still creates the store", "p");
    assert!(env.data.join("synapse.db").is_file());
}

/// An empty list names the project it looked at and the data folder it looked in.
#[test]
fn an_empty_list_names_its_project_and_data_folder() {
    let env = Env::new();
    let elsewhere = env.root().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    env.remember("stored for another project", "other");
    let out = env.run_in(&elsewhere, &["list"], b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    let key = elsewhere.canonicalize().unwrap();
    assert!(
        said.contains(&*key.to_string_lossy()),
        "no project in: {said}"
    );
    assert!(
        said.contains(&*env.data.to_string_lossy()),
        "no data folder in: {said}"
    );
}

/// `forget` and `restore` take several ids, as `share` does: each is reported, and a bad
/// one is named while the others are done and it changes nothing.
#[test]
fn forget_and_restore_take_several_ids_and_name_the_bad_ones() {
    let env = Env::new();
    let a = env.remember("Deploys go out on Tuesdays", "p");
    let b = env.remember("The cache holds for ten minutes", "p");
    let c = env.remember("Reviews need two approvals", "p");
    let (sa, sb, sc) = (a.to_string(), b.to_string(), c.to_string());

    let out = env.run(&["forget", &sa, "4242", &sb, "--project", "p"]);
    let said = String::from_utf8_lossy(&out.stdout);
    let message = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}{message}");
    assert!(said.contains(&format!("forgot {a}")), "{said}");
    assert!(said.contains(&format!("forgot {b}")), "{said}");
    assert!(message.contains("4242"), "{message}");
    assert_eq!(
        listed(&env, "p", false),
        [c],
        "only the good ids were forgotten"
    );

    // One id keeps the JSON of one; several give one result each.
    let out = env.json_in(env.root(), &["forget", &sc, "--project", "p"], b"");
    assert_eq!(out, json!({ "forgotten": c }), "one id keeps its shape");
    let out = env.run(&["restore", &sa, &sb, &sc, "--project", "p", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let restored: Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = restored["results"].as_array().unwrap();
    assert_eq!(results.len(), 3, "{restored}");
    for (result, id) in results.iter().zip([a, b, c]) {
        assert_eq!(result["restored"], json!(id), "{restored}");
        assert_eq!(result["undid"], json!("forget"), "{restored}");
    }
    assert_eq!(listed(&env, "p", false), [a, b, c]);

    // A live memory has nothing to restore: both ids are refused and named, nothing changes.
    let out = env.run(&["restore", &sa, "4243", "--project", "p", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["results"][0]["id"], json!(a), "{answer}");
    assert_eq!(answer["results"][1]["id"], json!(4243), "{answer}");
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(
        message.contains(&sa) && message.contains("4243"),
        "{message}"
    );
    assert_eq!(listed(&env, "p", false), [a, b, c], "nothing changed");
}

/// A memory as a pasted log or an odd file brings it: a window-title sequence, colours, a C1
/// control, a NUL, a lone carriage return and a direction override that disguises a file name.
const SLY: &str = "Deploy notes \x1b]0;owned\x07 \x1b[31mred\x1b[0m \u{9b}2J nul\0end \
                   over\rwritten user\u{202e}gpj.exe";

/// Remember `SLY` (on standard input: an argument cannot hold a NUL) in `project`; its id.
fn remember_sly(env: &Env, cwd: &Path, project: &str) -> i64 {
    let stored = env.json_in(
        cwd,
        &["remember", "-", "--project", project],
        SLY.as_bytes(),
    );
    stored["id"].as_i64().unwrap()
}

/// Whether `bytes` hold a character that would act on a terminal or disguise text.
fn raw_hidden(bytes: &[u8]) -> bool {
    String::from_utf8_lossy(bytes)
        .chars()
        .any(synapse::text::hidden)
}

/// What a person sees of a memory with escape sequences: every verb shows them as escapes, on
/// standard output and in an error on standard error.
#[rstest]
#[case::list(&["list", "--project", "p"])]
#[case::list_all(&["list", "--all", "--project", "p"])]
#[case::read(&["read", "1", "--project", "p"])]
#[case::recall(&["recall", "deploy", "notes", "--project", "p"])]
#[case::recall_explained(&["recall", "deploy", "--explain", "--project", "p"])]
fn a_memory_s_escape_sequences_reach_no_terminal_raw(#[case] args: &[&str]) {
    let env = Env::new();
    remember_sly(&env, env.root(), "p");
    let out = env.run(args);
    assert!(out.status.success(), "{args:?}: {out:?}");
    assert!(
        !raw_hidden(&out.stdout),
        "{args:?} printed {:?}",
        out.stdout
    );
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains(r"\u{1b}]0;owned\u{7}"), "{args:?}: {shown}");
    assert!(shown.contains(r"\u{202e}gpj.exe"), "{args:?}: {shown}");
}

#[test]
fn read_shows_every_control_character_and_raw_gives_the_exact_bytes() {
    let env = Env::new();
    let id = remember_sly(&env, env.root(), "p").to_string();
    let out = env.run(&["read", &id, "--project", "p"]);
    let shown = String::from_utf8(out.stdout).unwrap();
    assert!(
        shown.starts_with(
            r"Deploy notes \u{1b}]0;owned\u{7} \u{1b}[31mred\u{1b}[0m \u{9b}2J nul\u{0}end over\u{d}written user\u{202e}gpj.exe"
        ),
        "{shown}"
    );
    let raw = env.run(&["read", &id, "--raw", "--project", "p"]);
    assert!(raw.status.success(), "{raw:?}");
    assert_eq!(
        raw.stdout,
        SLY.as_bytes(),
        "--raw gives the stored bytes alone"
    );
    let from = env.run(&["read", &id, "--raw", "--offset", "13", "--project", "p"]);
    assert_eq!(from.stdout, SLY.as_bytes()[13..].to_vec());
    let both = env.fail(&["read", &id, "--raw", "--json", "--project", "p"]);
    assert!(both.contains("give one of them"), "{both}");
}

/// `--raw` writes a memory longer than any page whole, from the offset to its end.
#[test]
fn read_raw_writes_a_long_memory_to_its_end() {
    let env = Env::new();
    let body: String = (0..150_000).map(|i| format!("{i} é\u{1b}\n")).collect();
    let out = env.run_in(
        env.root(),
        &["remember", "-", "--project", "p"],
        body.as_bytes(),
    );
    assert!(out.status.success(), "{out:?}");
    let raw = env.run(&["read", "1", "--raw", "--project", "p"]);
    assert!(raw.stdout.len() > 1 << 20, "{} bytes", raw.stdout.len());
    assert!(raw.stdout == body.as_bytes(), "the bytes differ");
}

/// JSON keeps each text exact for a program, and shows no control character or override raw:
/// each is a JSON escape.
#[rstest]
#[case::list(&["list", "--project", "p"], "/memories/0/body")]
#[case::read(&["read", "1", "--project", "p"], "/memory/body")]
#[case::recall(&["recall", "deploy", "--project", "p"], "/results/0/text")]
fn json_keeps_the_exact_text_with_control_characters_escaped(
    #[case] args: &[&str],
    #[case] field: &str,
) {
    let env = Env::new();
    remember_sly(&env, env.root(), "p");
    let mut with_json = args.to_vec();
    with_json.push("--json");
    let out = env.run(&with_json);
    assert!(out.status.success(), "{args:?}: {out:?}");
    assert!(
        !raw_hidden(&out.stdout),
        "{args:?} printed {:?}",
        out.stdout
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(r"\u001b]0;owned\u0007"), "{text}");
    assert!(
        text.contains(r"\u202egpj.exe") && text.contains(r"\u009b2J"),
        "{text}"
    );
    let value: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(value.pointer(field), Some(&json!(SLY)), "{text}");
}

/// `synapse drift` names a finding's memories by their opening lines: shown as text too.
#[test]
fn drift_shows_a_finding_s_memories_as_text() {
    let env = Env::new();
    let app = env.root().join("app");
    common::git_repo(&app, "main");
    let note = format!("{SLY} (see docs/gone.md)");
    let out = env.run_in(&app, &["remember", "-"], note.as_bytes());
    assert!(out.status.success(), "{out:?}");
    let out = env.run_in(&app, &["drift"], b"");
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("docs/gone.md"), "{shown}");
    assert!(!raw_hidden(&out.stdout), "drift printed {:?}", out.stdout);
    assert!(shown.contains(r"\u{1b}]0;owned"), "{shown}");
}

/// An error quoting what a person gave (a file name) shows it as text on standard error.
#[test]
fn an_error_shows_what_it_quotes_as_text() {
    let env = Env::new();
    let said = env.fail(&["import", "missing\x1b]0;owned\x07.jsonl"]);
    assert!(!said.chars().any(synapse::text::hidden), "{said:?}");
    assert!(said.contains(r"missing\u{1b}]0;owned\u{7}.jsonl"), "{said}");
}

#[rstest]
#[case::before_the_verb(&["--project", "p", "list"])]
#[case::joined_before_the_verb(&["--project=p", "list"])]
#[case::after_json(&["--json", "--project", "p", "list"])]
#[case::after_the_verb(&["list", "--project", "p"])]
fn project_may_come_before_or_after_the_verb(#[case] args: &[&str]) {
    let env = Env::new();
    let id = env.remember("Deploys go out on Tuesdays", "p");
    let listed = env.json(args);
    assert_eq!(ids(&listed, "memories"), [id], "{args:?}");
}

#[test]
fn project_before_a_verb_that_takes_none_is_refused_by_that_verb() {
    let env = Env::new();
    let out = env.run(&["--project", "p", "doctor"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("--project"), "{said}");
}

/// The ignore lists are long: doctor prints the one list once when drift and the task signal
/// share it (the defaults do), and each apart when config.toml makes them differ.
#[test]
fn doctor_prints_a_shared_ignore_list_once() {
    let env = Env::new();
    env.json(&["remember", "kept for the doctor", "--project", "p"]);
    let text = String::from_utf8(env.run(&["doctor"]).stdout).unwrap();
    let listing = |text: &str| text.lines().filter(|l| l.contains("Cargo.lock")).count();
    assert_eq!(listing(&text), 1, "{text}");
    assert!(text.contains("for drift and the task signal"), "{text}");
    std::fs::write(
        env.data.join("config.toml"),
        "[signal]\nignore = [\"*.lock\"]\n",
    )
    .unwrap();
    let text = String::from_utf8(env.run(&["doctor"]).stdout).unwrap();
    assert_eq!(listing(&text), 1, "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("signal ignore (set in config.toml) *.lock")),
        "{text}"
    );
}
