//! Tidying from the command line: `supersede` with several ids, `list` with its
//! source, age, filters and pages, and drift findings settled one by one or in bulk. The real
//! binary over a temporary data folder.

use crate::common;
use common::place::Place;

use std::process::Output;

use serde_json::json;

/// What these tests ask of a place beyond running commands.
trait Tidying {
    /// Remember `text` in `project` (more options in `extra`) and return its id.
    fn remember(&self, text: &str, project: &str, extra: &[&str]) -> i64;
    /// The ids `list --json` gives with `args`, here (the project's and the global memories).
    fn listed_here(&self, args: &[&str]) -> Vec<i64>;
    /// A memory's history: each action and the other memory it names.
    fn history(&self, id: i64) -> Vec<(String, Option<i64>)>;
}

impl Tidying for Place {
    fn remember(&self, text: &str, project: &str, extra: &[&str]) -> i64 {
        let mut args = vec!["remember", text, "--project", project];
        args.extend(extra);
        let out = self.json(&args, b"");
        assert!(out["duplicate_of"].is_null(), "{out}");
        out["id"].as_i64().unwrap()
    }

    fn listed_here(&self, args: &[&str]) -> Vec<i64> {
        let mut all = vec!["list"];
        all.extend(args);
        self.json(&all, b"")["memories"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_i64().unwrap())
            .collect()
    }

    fn history(&self, id: i64) -> Vec<(String, Option<i64>)> {
        self.json(&["history", &id.to_string()], b"")["history"]
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
    let env = Place::with_live_file();
    let key = env.key();
    let a = env.remember("The cache lives in Redis", key, &[]);
    let b = env.remember("The cache is Redis 6", key, &[]);
    let new = env.remember("The cache lives in Memcached", key, &[]);
    let said = env.text(&["supersede", &s(a), &s(b), &s(new)], b"");
    assert_eq!(
        said,
        format!(
            "{a} is now superseded by {new} (undo: synapse restore {a})\n\
             {b} is now superseded by {new} (undo: synapse restore {b})\n\
             undo all: synapse restore {a} {b}\n"
        )
    );
    assert_eq!(env.listed_here(&[]), [new]);
    for old in [a, b] {
        assert_eq!(
            env.history(old).last().unwrap(),
            &("supersede".to_owned(), Some(new))
        );
    }
    env.text(&["restore", &s(a), &s(b)], b"");
    let out = env.json(&["supersede", &s(a), &s(b), &s(new)], b"");
    assert_eq!(
        out,
        json!({"results": [{"superseded": a, "by": new}, {"superseded": b, "by": new}]})
    );
    let one = env.json(&["restore", &s(a)], b"");
    assert_eq!(one["undid"], "supersede");
    assert_eq!(
        env.json(&["supersede", &s(a), &s(new)], b""),
        json!({"superseded": a, "by": new})
    );
}

#[test]
fn supersede_with_one_bad_id_changes_nothing_and_names_it() {
    let env = Place::with_live_file();
    let key = env.key();
    let a = env.remember("Deploys go out on Thursdays", key, &[]);
    let gone = env.remember("Deploys need two approvals", key, &[]);
    let new = env.remember("Deploys go out on Fridays", key, &[]);
    env.text(&["forget", &s(gone)], b"");
    let said = env.fail(&["supersede", &s(a), "4242", &s(new)], b"");
    assert!(
        said.contains("none of the 2 memories was superseded") && said.contains("no memory 4242"),
        "{said}"
    );
    let said = env.fail(&["supersede", &s(a), &s(gone), &s(new)], b"");
    assert!(
        said.contains(&format!("memory {gone} is already superseded or forgotten")),
        "{said}"
    );
    let said = env.fail(&["supersede", &s(a), &s(new), &s(new)], b"");
    assert!(said.contains("cannot supersede itself"), "{said}");
    // The first id was fine, and is still live: nothing was changed.
    let mut live = env.listed_here(&[]);
    live.sort();
    assert_eq!(live, [a, new]);
    assert_eq!(env.history(a), [("remember".to_owned(), None)]);
}

/// The ids and source kinds `list --json` gives with `args`, here.
fn kinds(env: &Place, args: &[&str]) -> Vec<(i64, String)> {
    let mut all = vec!["list"];
    all.extend(args);
    env.json(&all, b"")["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["id"].as_i64().unwrap(),
                m["source_kind"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn list_shows_age_and_source_and_filters_by_source() {
    let env = Place::with_live_file();
    let key = env.key();
    let typed = env.remember("Run the tests with cargo nextest", key, &[]);
    let lesson = env.remember(
        "The queue drains every minute",
        key,
        &["--source", "session 1a2b3c4d 2026-11-01"],
    );
    let mcp = env.remember("Ports are set in .env", key, &["--source", "mcp"]);
    let lines = format!(
        "{}\n",
        json!({"body": "Releases are cut on Mondays", "project": key, "created_at": "2026-01-05T10:00:00Z"})
    );
    std::fs::write(env.repo.join("old.jsonl"), lines).unwrap();
    env.text(&["import", "old.jsonl"], b"");
    std::fs::write(
        env.repo.join("CLAUDE.md"),
        "# Notes\n\nAlways run clippy before a commit.\n",
    )
    .unwrap();

    let listed = kinds(&env, &[]);
    let kind_of = |wanted: &str| -> Vec<i64> {
        listed
            .iter()
            .filter(|(_, k)| k == wanted)
            .map(|(id, _)| *id)
            .collect()
    };
    assert_eq!(kind_of("typed"), [typed]);
    assert_eq!(kind_of("lesson"), [lesson]);
    assert_eq!(kind_of("mcp"), [mcp]);
    assert_eq!(kind_of("import").len(), 1, "{listed:?}");
    assert_eq!(kind_of("file").len(), 1, "{listed:?}");
    assert_eq!(
        kinds(&env, &["--source", "lesson"]),
        [(lesson, "lesson".into())]
    );
    assert_eq!(
        kinds(&env, &["--source", "file"]),
        [(kind_of("file")[0], "file".into())]
    );
    assert!(kinds(&env, &["--source", "team"]).is_empty());

    // A person's line: id, age, source, the opening line.
    let text = env.text(&["list"], b"");
    let row = text
        .lines()
        .find(|l| l.contains("The queue drains"))
        .unwrap();
    let words: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        &words[..3],
        [lesson.to_string().as_str(), "now", "lesson"],
        "{row}"
    );
    let imported = text.lines().find(|l| l.contains("Releases")).unwrap();
    assert!(
        imported.split_whitespace().nth(1).unwrap().ends_with("mo"),
        "{imported}"
    );

    let said = env.fail(&["list", "--source", "cli"], b"");
    assert!(
        said.contains("\"cli\" is not a kind of source")
            && said.contains("typed, lesson, mcp, file, import, team"),
        "{said}"
    );
}

#[test]
fn list_since_keeps_what_was_made_since_a_duration_or_a_date() {
    let env = Place::with_live_file();
    let key = env.key();
    let lines: String = [
        ("Old note from last year", "2025-06-01T00:00:00Z"),
        ("Note from the first of November", "2026-11-01T08:00:00Z"),
    ]
    .iter()
    .map(|(body, at)| {
        format!(
            "{}\n",
            json!({"body": body, "project": key, "created_at": at})
        )
    })
    .collect();
    std::fs::write(env.repo.join("notes.jsonl"), lines).unwrap();
    env.text(&["import", "notes.jsonl"], b"");
    let fresh = env.remember("A note made now", key, &[]);
    let all = env.listed_here(&[]);
    assert_eq!(all.len(), 3);
    assert_eq!(env.listed_here(&["--since", "1h"]), [fresh]);
    assert_eq!(env.listed_here(&["--since", "2026-11-01"]), all[..2]);
    assert_eq!(env.listed_here(&["--since", "2026-11-02"]), [fresh]);
    assert_eq!(env.listed_here(&["--since", "3y"]), all);
    for bad in ["yesterday", "7", "2026-02-30", "5x"] {
        let said = env.fail(&["list", "--since", bad], b"");
        assert!(said.contains("neither a duration"), "{bad}: {said}");
    }
}

#[test]
fn list_stale_keeps_only_memories_naming_a_gone_path() {
    let env = Place::with_live_file();
    let key = env.key();
    let stale = env.remember("The parser lives in src/gone.rs now", key, &[]);
    env.remember("The entry point is src/live.rs", key, &[]);
    env.remember("Use ripgrep, not grep", key, &[]);
    assert_eq!(env.listed_here(&["--stale"]), [stale]);
    assert!(env.text(&["list", "--stale"], b"").contains("src/gone.rs"));
    std::fs::write(env.repo.join("src/gone.rs"), "").unwrap();
    assert!(env.listed_here(&["--stale"]).is_empty());
    assert!(env
        .text(&["list", "--stale"], b"")
        .starts_with("no memories here match"));
}

#[test]
fn list_pages_through_everything_and_says_what_is_next() {
    let env = Place::with_live_file();
    let key = env.key();
    let mut ids: Vec<i64> = (1..=7)
        .map(|n| env.remember(&format!("Numbered note {n}"), key, &[]))
        .collect();
    // Newest first, as listed.
    ids.reverse();
    let first = env.text(&["list", "--limit", "3"], b"");
    let shown: Vec<i64> = first
        .lines()
        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
        .collect();
    assert_eq!(shown, ids[..3]);
    assert_eq!(
        first.lines().last().unwrap(),
        "showing 1–3 of 7; next: synapse list --limit 3 --page 2"
    );
    assert_eq!(env.listed_here(&["--limit", "3", "--page", "2"]), ids[3..6]);
    let last = env.text(&["list", "--limit", "3", "--page", "3"], b"");
    assert_eq!(last.lines().last().unwrap(), "showing 7–7 of 7");
    let past = env.text(&["list", "--limit", "3", "--page", "4"], b"");
    assert_eq!(
        past.trim(),
        "page 4 is past the end: 7 memories make 3 page(s) of 3"
    );

    let page = env.json(&["list", "--limit", "3", "--page", "2"], b"");
    assert_eq!(
        (
            &page["total"],
            &page["offset"],
            &page["limit"],
            &page["next"]
        ),
        (
            &json!(7),
            &json!(3),
            &json!(3),
            &json!("synapse list --limit 3 --page 3 --json")
        )
    );
    // A script that asks for no page gets every memory.
    let whole = env.json(&["list"], b"");
    assert_eq!(whole["memories"].as_array().unwrap().len(), 7);
    assert!(whole["next"].is_null() && whole["limit"].is_null());
    // The default page of a person's listing is 50.
    for n in 8..=52 {
        env.remember(&format!("Numbered note {n}"), key, &[]);
    }
    let text = env.text(&["list"], b"");
    assert_eq!(text.lines().count(), 51);
    assert_eq!(
        text.lines().last().unwrap(),
        "showing 1–50 of 52; next: synapse list --page 2"
    );
    for bad in [["--limit", "0"], ["--page", "0"]] {
        let said = env.fail(&["list", bad[0], bad[1]], b"");
        assert!(said.contains(bad[0]), "{said}");
    }
}

#[test]
fn list_creates_no_store() {
    let env = Place::with_live_file();
    for args in [
        &["list"][..],
        &[
            "list", "--stale", "--source", "file", "--since", "7d", "--page", "2",
        ],
    ] {
        let out = env.synapse(args, b"");
        assert!(out.status.success(), "{args:?}: {out:?}");
        assert!(!env.data.exists(), "{args:?} created the data folder");
    }
}

/// The findings `drift --json` reports here, as (kind, id, newer).
fn findings(env: &Place) -> Vec<(String, i64, Option<i64>)> {
    let audit = env.json(&["drift"], b"");
    let mut found = Vec::new();
    for kind in ["stale", "conflict", "duplicate"] {
        for f in audit[kind].as_array().unwrap() {
            found.push((
                kind.to_owned(),
                f["id"].as_i64().unwrap(),
                f["newer"].as_i64(),
            ));
        }
    }
    found
}

/// The state `list --all --json` gives each memory here: (id, superseded_by, forgotten).
fn states(env: &Place) -> Vec<(i64, Option<i64>, bool)> {
    let mut all: Vec<(i64, Option<i64>, bool)> = env.json(&["list", "--all"], b"")["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["id"].as_i64().unwrap(),
                m["superseded_by"].as_i64(),
                !m["forgotten_at"].is_null(),
            )
        })
        .collect();
    all.sort();
    all
}

/// A project with one stale memory, one conflicting pair (a guess) and one duplicate pair
/// (certain): (stale, conflict older, conflict newer, duplicate older, duplicate newer).
fn drifting(env: &Place) -> (i64, i64, i64, i64, i64) {
    let key = env.key();
    let stale = env.remember("The parser lives in src/gone.rs now", key, &[]);
    let old = env.remember("The staging API listens on port 8080", key, &[]);
    let new = env.remember("The staging API listens on port 8081", key, &[]);
    let dup_old = env.remember("Use ripgrep, not grep.", key, &[]);
    let dup_new = env.remember("use ripgrep not grep", key, &[]);
    let s = |x: &str| x.to_owned();
    assert_eq!(
        findings(env),
        [
            (s("stale"), stale, None),
            (s("conflict"), old, Some(new)),
            (s("duplicate"), dup_old, Some(dup_new))
        ]
    );
    (stale, old, new, dup_old, dup_new)
}

#[test]
fn a_dismissed_finding_is_not_reported_until_it_is_taken_back() {
    let env = Place::with_live_file();
    let (stale, old, new, dup_old, dup_new) = drifting(&env);
    let before = states(&env);
    let said = env.text(&["drift", "--dismiss", &format!("{old}:{new}")], b"");
    assert!(
        said.starts_with(&format!(
            "dismissed the conflict finding on {old} vs newer {new}"
        )) && said
            .trim_end()
            .ends_with(&format!("(undo: synapse drift --undismiss {old}:{new})")),
        "{said}"
    );
    let s = |x: &str| x.to_owned();
    assert_eq!(
        findings(&env),
        [
            (s("stale"), stale, None),
            (s("duplicate"), dup_old, Some(dup_new))
        ]
    );
    // Only the dismissal changed: every memory is as it was, its history says so.
    assert_eq!(states(&env), before);
    assert_eq!(env.history(old).last().unwrap(), &(s("dismiss"), Some(new)));
    let listed = env.json(&["drift", "--dismissed"], b"");
    assert_eq!(listed["dismissed"][0]["id"], json!(old));
    assert_eq!(listed["dismissed"][0]["kind"], json!("conflict"));
    assert!(env
        .text(&["drift"], b"")
        .contains("1 finding(s) dismissed here are not shown"));

    let said = env.text(&["drift", "--undismiss", &format!("{old}:{new}")], b"");
    assert!(
        said.starts_with("drift reports the conflict finding"),
        "{said}"
    );
    assert_eq!(findings(&env).len(), 3);
    assert_eq!(
        env.history(old).last().unwrap(),
        &(s("undismiss"), Some(new))
    );
    let again = env.fail(&["drift", "--undismiss", &format!("{old}:{new}")], b"");
    assert!(again.contains("no dismissed finding"), "{again}");
}

#[rstest::rstest]
#[case::no_such_finding(&["drift", "--dismiss", "4242"], "drift finds nothing on 4242")]
#[case::not_a_number(&["drift", "--dismiss", "12:x"], "is not ID or OLDER:NEWER")]
#[case::yes_alone(&["drift", "--yes"], "--settle")]
#[case::two_actions(&["drift", "--dismissed", "--settle", "stale"], "cannot be used with")]
fn bad_drift_settling_is_refused_and_changes_nothing(#[case] args: &[&str], #[case] said: &str) {
    let env = Place::with_live_file();
    drifting(&env);
    let before = states(&env);
    let out = env.synapse(args, b"");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?}");
    assert!(stderr.contains(said), "{args:?}: {stderr}");
    assert_eq!(states(&env), before);
    assert_eq!(findings(&env).len(), 3);
}

#[test]
fn a_memory_with_two_findings_needs_its_pair_named() {
    let env = Place::with_live_file();
    let key = env.key();
    let first = env.remember("Use ripgrep, not grep, in src/gone.rs", key, &[]);
    let second = env.remember("use ripgrep not grep in src/gone.rs", key, &[]);
    let said = env.fail(&["drift", "--dismiss", &first.to_string()], b"");
    assert!(
        said.contains(&format!("memory {first} has 2 findings here"))
            && said.contains(&format!("{first}:{second} (duplicate")),
        "{said}"
    );
    env.text(&["drift", "--dismiss", &format!("{first}:{second}")], b"");
    let left: Vec<(String, i64, Option<i64>)> = findings(&env)
        .into_iter()
        .filter(|f| f.1 == first)
        .collect();
    assert_eq!(left, [("stale".to_owned(), first, None)]);
}

#[test]
fn settling_every_certain_one_asks_first_and_does_nothing_without_a_terminal() {
    let env = Place::with_live_file();
    let (stale, ..) = drifting(&env);
    let before = states(&env);
    let out = env.synapse(&["drift", "--settle", "stale"], b"y\n");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr.contains(&format!("forget {stale} (src/gone.rs is gone"))
            && stderr.contains("not a terminal to confirm on, so nothing was changed")
            && stderr.contains("--yes"),
        "{stderr}"
    );
    assert_eq!(states(&env), before);
}

/// Run `synapse args` on a terminal (`script` gives it one), typing `typed`.
fn on_a_terminal(env: &Place, args: &[&str], typed: &str) -> Output {
    let command = std::iter::once(env!("CARGO_BIN_EXE_synapse"))
        .chain(args.iter().copied())
        .map(|w| format!("'{w}'"))
        .collect::<Vec<_>>()
        .join(" ");
    let mut terminal = common::on_a_terminal(&command);
    terminal
        .env("SYNAPSE_DATA", &env.data)
        .env("HOME", common::test_home(&env.data))
        .env_remove("CLAUDE_CONFIG_DIR")
        .current_dir(&env.repo);
    common::typed(&mut terminal, typed)
}

#[test]
fn settling_on_a_terminal_changes_nothing_unless_the_answer_is_yes() {
    let env = Place::with_live_file();
    let (stale, ..) = drifting(&env);
    let before = states(&env);
    let no = on_a_terminal(&env, &["drift", "--settle", "stale"], "n\n");
    let shown = String::from_utf8_lossy(&no.stdout);
    assert!(
        shown.contains("this will settle 1 certain finding(s)")
            && shown.contains("settle them? [y/N]")
            && shown.contains("nothing was changed"),
        "{shown}"
    );
    assert_eq!(states(&env), before);

    let yes = on_a_terminal(&env, &["drift", "--settle", "stale"], "y\n");
    let shown = String::from_utf8_lossy(&yes.stdout);
    assert!(
        shown.contains(&format!("forgot {stale} (undo: synapse restore {stale})")),
        "{shown}"
    );
    assert!(states(&env).contains(&(stale, None, true)));
}

#[test]
fn settling_with_yes_acts_on_certain_findings_only_and_each_is_undone() {
    let env = Place::with_live_file();
    let (stale, old, new, dup_old, dup_new) = drifting(&env);
    let said = env.text(&["drift", "--settle", "duplicates", "--yes"], b"");
    assert_eq!(
        said,
        format!("superseded {dup_old} by newer {dup_new} (undo: synapse restore {dup_old})\n")
    );
    let said = env.text(&["drift", "--settle", "stale", "--yes"], b"");
    assert_eq!(
        said,
        format!("forgot {stale} (undo: synapse restore {stale})\n")
    );
    // Exactly these two changed; the conflict, a guess, is left for a person.
    let mut expected = vec![
        (stale, None, true),
        (old, None, false),
        (new, None, false),
        (dup_old, Some(dup_new), false),
        (dup_new, None, false),
    ];
    expected.sort();
    assert_eq!(states(&env), expected);
    assert_eq!(findings(&env), [("conflict".to_owned(), old, Some(new))]);
    assert_eq!(
        env.history(dup_old).last().unwrap(),
        &("supersede".to_owned(), Some(dup_new))
    );
    assert_eq!(
        env.history(stale).last().unwrap(),
        &("forget".to_owned(), None)
    );
    let again = env.text(&["drift", "--settle", "stale", "--yes"], b"");
    assert_eq!(again, "nothing to settle: no certain stale finding here\n");

    env.text(&["restore", &stale.to_string(), &dup_old.to_string()], b"");
    assert_eq!(findings(&env).len(), 3, "undone");
}

#[test]
fn settling_a_piece_of_claude_md_says_the_file_still_holds_it() {
    let env = Place::with_live_file();
    let notes = "# Notes\n\nThe old parser is in src/gone.rs.\n\n# Build\n\n";
    std::fs::write(env.repo.join("CLAUDE.md"), format!("{notes}Run clippy.\n")).unwrap();
    let audit = env.json(&["drift"], b"");
    let piece = audit["stale"][0]["id"].as_i64().unwrap();
    let out = env.json(&["drift", "--settle", "stale", "--yes"], b"");
    let did = out["settled"][0]["did"].as_str().unwrap();
    assert!(
        did.starts_with(&format!("forgot {piece} (CLAUDE.md:3)"))
            && did.contains("the text stays in CLAUDE.md:3")
            && did.contains("edit the file there"),
        "{did}"
    );
    // The file is folded again after an edit elsewhere in it: the piece stays forgotten.
    std::fs::write(
        env.repo.join("CLAUDE.md"),
        format!("{notes}Run clippy, then the tests.\n"),
    )
    .unwrap();
    assert!(findings(&env).is_empty());
    assert!(states(&env).contains(&(piece, None, true)));
}
