//! Recall as a user meets it (DESIGN §4): which memories come back for a question, in what order,
//! and in what form, within each budget and each scope.

use rstest::rstest;
use synapse::config::Budget;
use synapse::recall::{self, Options, Recalled};
use synapse::secrets::Secrets;
use synapse::store::write::NewMemory;
use synapse::store::{Scope, Store};
use tempfile::TempDir;

const PROJECT_A: &str = "project-a";
const PROJECT_B: &str = "project-b";

/// An empty store in its own temporary data folder.
fn empty_store() -> (TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    (dir, store)
}

fn scope_of(project: Option<&str>) -> Scope {
    project.map_or_else(Scope::global, Scope::project)
}

fn new_memory(body: &str, project: Option<&str>, created_at: Option<i64>) -> NewMemory {
    NewMemory {
        body: body.to_owned(),
        source: "session".to_owned(),
        project: project.map(str::to_owned),
        created_at,
        ..NewMemory::default()
    }
}

/// Store a new memory (it must not be a duplicate) and return its id.
fn remember_at(store: &mut Store, body: &str, project: Option<&str>, at: Option<i64>) -> i64 {
    let outcome = store
        .remember(&new_memory(body, project, at), &[], &scope_of(project))
        .unwrap();
    assert!(
        !outcome.duplicate,
        "{body:?} unexpectedly repeats memory {}",
        outcome.id
    );
    outcome.id
}

fn remember(store: &mut Store, body: &str, project: Option<&str>) -> i64 {
    remember_at(store, body, project, None)
}

fn recall_with(store: &Store, scope: &Scope, query: &str, options: Options) -> Recalled {
    recall::recall(store, scope, query, &options)
        .unwrap_or_else(|e| panic!("recall of {query:?} failed: {e:#}"))
}

fn ask(store: &Store, scope: &Scope, query: &str) -> Recalled {
    recall_with(store, scope, query, Options::default())
}

fn budget(budget: Budget) -> Options {
    Options {
        budget,
        ..Options::default()
    }
}

fn ids(recalled: &Recalled) -> Vec<i64> {
    recalled.results.iter().map(|hit| hit.id).collect()
}

fn kept(recalled: &Recalled) -> Vec<&str> {
    recalled
        .terms
        .kept
        .iter()
        .map(|t| t.word.as_str())
        .collect()
}

fn sent_chars(recalled: &Recalled) -> usize {
    recalled
        .results
        .iter()
        .map(|hit| hit.text.chars().count())
        .sum()
}

/// A distinct multi-line body of roughly `chars` characters, every line about the ledger.
fn long_ledger_note(n: usize, chars: usize) -> String {
    let mut body = format!("Ledger note {n}: reconciliation steps\n");
    let mut line = 0;
    while body.chars().count() < chars {
        body.push_str(&format!(
            "Step {n}.{line}: compare the ledger totals with the bank statement and record \
             every mismatch in the reconciliation sheet.\n"
        ));
        line += 1;
    }
    body
}

// ---------------------------------------------------------------- terms

#[test]
fn a_memory_holding_only_some_query_words_is_found() {
    let (_dir, mut store) = empty_store();
    let id = remember(
        &mut store,
        "The deploy pipeline runs on tagged commits",
        None,
    );
    let recalled = ask(&store, &Scope::global(), "deploy quokka zeppelin");
    assert_eq!(ids(&recalled), [id]);
}

/// In a project of two hundred memories an ordinary English word held by one memory is no rarer
/// than the project's own word held by five: English at large puts "really" in about six of two
/// hundred memories, and recall counts them (`recall::lanes::smoothed_df`). Counted within the
/// scope alone, "really" (one memory) outweighed "reranker" (five), and the note about Priya came
/// first.
#[test]
fn an_ordinary_word_held_once_weighs_less_than_the_project_s_own_word() {
    let (_dir, mut store) = empty_store();
    for i in 0..194 {
        remember(
            &mut store,
            &format!("Batch job {i} writes its nightly report to bucket b{i}"),
            None,
        );
    }
    let ordinary = remember(
        &mut store,
        "Priya really wants a heads-up before a release goes out",
        None,
    );
    for body in [
        "The reranker scores two hundred candidates per request",
        "The reranker is retrained every Monday from fresh logs",
        "A reranker checkpoint is kept for each of the last runs",
        "The reranker runs on the CPU pods in production",
        "Offline metrics for the reranker live in the eval notebook",
    ] {
        remember(&mut store, body, None);
    }
    let recalled = ask(&store, &Scope::global(), "does the reranker really matter");
    let first = &recalled.results[0];
    assert!(first.body.contains("reranker"), "{:?}", recalled.results);
    assert_ne!(first.id, ordinary);
}

#[test]
fn every_query_word_can_find_a_memory_on_its_own() {
    let (_dir, mut store) = empty_store();
    let deploy = remember(
        &mut store,
        "The deploy pipeline runs on tagged commits",
        None,
    );
    let rollback = remember(&mut store, "A rollback restores the previous image", None);
    let unrelated = remember(&mut store, "Lint rules live in the workspace config", None);
    let options = Options {
        floor: false,
        ..Options::default()
    };
    let found = ids(&recall_with(
        &store,
        &Scope::global(),
        "deploy rollback",
        options,
    ));
    assert!(
        found.contains(&deploy) && found.contains(&rollback),
        "{found:?}"
    );
    assert!(!found.contains(&unrelated));
}

#[test]
fn function_words_are_dropped_but_negations_and_numbers_are_kept() {
    let (_dir, mut store) = empty_store();
    remember(
        &mut store,
        "Never retry the webhook more than 5 times",
        None,
    );
    let recalled = ask(
        &store,
        &Scope::global(),
        "Why did we never retry the webhook 5 times?",
    );
    assert_eq!(kept(&recalled), ["never", "retry", "webhook", "5", "times"]);
    for word in ["why", "did", "we", "the"] {
        assert!(
            recalled.terms.dropped.iter().any(|d| d == word),
            "{word:?} should be dropped: {:?}",
            recalled.terms.dropped
        );
    }

    let recalled = ask(&store, &Scope::global(), "is it not 50 or no, without 0?");
    assert_eq!(kept(&recalled), ["not", "50", "no", "without", "0"]);
    assert_eq!(recalled.terms.dropped, ["is", "it", "or"]);
}

/// A store of the checkout memory (its id returned) and one made of FTS5's logic words.
fn checkout_store() -> (TempDir, Store, i64) {
    let (dir, mut store) = empty_store();
    let target = remember(
        &mut store,
        "The flaky checkout test needs a fresh redis container",
        None,
    );
    remember(
        &mut store,
        "Gates: NOT, AND, OR and NEAR are logic words",
        None,
    );
    (dir, store, target)
}

#[rstest]
#[case::an_opening_quote("\"checkout redis")]
#[case::a_closing_quote("checkout redis\"")]
#[case::quoted_words("\"checkout\" \"redis\"")]
#[case::prefix_stars("checkout* redis*")]
#[case::a_group_with_or("(checkout OR redis)")]
#[case::parentheses_inside_out("checkout) (redis")]
#[case::a_body_column_filter("body:checkout redis")]
#[case::a_source_column_filter("source:redis checkout")]
#[case::minuses("-checkout -redis")]
#[case::near_between_words("checkout NEAR redis")]
#[case::a_near_group("NEAR(checkout redis, 2)")]
#[case::and("checkout AND redis")]
#[case::not("checkout NOT redis")]
#[case::carets("^checkout ^redis")]
#[case::braces("{checkout redis}")]
#[case::a_plus("checkout + redis")]
#[case::apostrophes("checkout' redis'")]
fn fts5_syntax_in_the_query_is_plain_text(#[case] query: &str) {
    let (_dir, store, target) = checkout_store();
    let recalled = ask(&store, &Scope::global(), query);
    assert_eq!(
        recalled.results.first().map(|hit| hit.id),
        Some(target),
        "query {query:?} should find the checkout memory first"
    );
}

#[rstest]
#[case::a_quote("\"")]
#[case::a_star("*")]
#[case::an_opening_parenthesis("(")]
#[case::a_closing_parenthesis(")")]
#[case::a_colon(":")]
#[case::a_minus("-")]
#[case::a_caret("^")]
#[case::three_quotes("\"\"\"")]
#[case::near("NEAR")]
#[case::and_or_not("AND OR NOT")]
fn fts5_syntax_alone_is_no_error(#[case] query: &str) {
    let (_dir, store, _) = checkout_store();
    recall::recall(&store, &Scope::global(), query, &Options::default())
        .unwrap_or_else(|e| panic!("query {query:?} failed: {e:#}"));
}

// ---------------------------------------------------------------- what comes back

#[rstest]
#[case::a_question("do we use redis for sessions?")]
#[case::keywords("redis sessions")]
fn opposing_statements_both_come_back(#[case] query: &str) {
    let (_dir, mut store) = empty_store();
    let yes = remember(&mut store, "We use Redis for sessions", None);
    let no = remember(&mut store, "We no longer use Redis for sessions", None);
    let found = ids(&ask(&store, &Scope::global(), query));
    assert!(
        found.contains(&yes) && found.contains(&no),
        "{query:?}: {found:?}"
    );
}

#[test]
fn changed_numbers_both_come_back_unmerged() {
    let (_dir, mut store) = empty_store();
    let three = remember(&mut store, "Retry the merchant webhook 3 times", None);
    let five = remember(&mut store, "Retry the merchant webhook 5 times", None);
    assert_ne!(three, five, "different numbers are different memories");
    let recalled = ask(
        &store,
        &Scope::global(),
        "how many times do we retry the merchant webhook",
    );
    assert_eq!(recalled.results.len(), 2);
    for (id, text) in [
        (three, "Retry the merchant webhook 3 times"),
        (five, "Retry the merchant webhook 5 times"),
    ] {
        let hit = recalled.results.iter().find(|h| h.id == id).unwrap();
        assert_eq!(hit.text, text);
        assert!(!hit.abridged);
    }
}

const E0502: &str =
    "rustc error E0502: a mutable borrow while an immutable one is alive; clone the key first";
const V2: &str = "The v2 API drops the legacy fields";
const K8S: &str = "Manifests for k8s live in deploy/k8s";
const PY3: &str = "Scripts need py3 from the system image";

#[rstest]
#[case::e0502("E0502", E0502)]
#[case::e0502_in_a_question("what does E0502 mean", E0502)]
#[case::v2("v2", V2)]
#[case::v2_api("v2 API", V2)]
#[case::k8s("k8s", K8S)]
#[case::k8s_in_a_question("where are the k8s manifests", K8S)]
#[case::py3("py3", PY3)]
fn short_identifiers_are_found(#[case] query: &str, #[case] body: &str) {
    let (_dir, mut store) = empty_store();
    let mut id = None;
    for note in [
        E0502,
        V2,
        K8S,
        PY3,
        "Errors are wrapped with anyhow context",
        "The API gateway terminates TLS",
        "Deploy manifests are reviewed by ops",
    ] {
        let stored = remember(&mut store, note, None);
        if note == body {
            id = Some(stored);
        }
    }
    let id = id.expect("the case names one of the stored memories");
    let recalled = ask(&store, &Scope::global(), query);
    assert_eq!(
        recalled.results.first().map(|hit| hit.id),
        Some(id),
        "{query:?} should find its memory first: {:?}",
        ids(&recalled)
    );
}

#[test]
fn an_exact_duplicate_is_stored_once() {
    let (_dir, mut store) = empty_store();
    let scope = Scope::project(PROJECT_A);
    let body = "Run migrations with sqlx before the tests";
    let first = store
        .remember(&new_memory(body, Some(PROJECT_A), None), &[], &scope)
        .unwrap();
    let second = store
        .remember(&new_memory(body, Some(PROJECT_A), None), &[], &scope)
        .unwrap();
    assert!(!first.duplicate);
    assert!(second.duplicate && second.id == first.id);
    assert_eq!(ids(&ask(&store, &scope, "sqlx migrations")), [first.id()]);
}

#[test]
fn the_same_body_global_and_in_a_project_is_sent_once() {
    let (_dir, mut store) = empty_store();
    let body = "Sign commits with the ssh key from the agent";
    let global = remember(&mut store, body, None);
    let local = remember(&mut store, body, Some(PROJECT_A));
    assert_ne!(global, local, "different scopes keep their own copy");

    let options = Options {
        explain: true,
        ..Options::default()
    };
    let recalled = recall_with(&store, &Scope::project(PROJECT_A), "sign commits", options);
    assert_eq!(recalled.results.len(), 1);
    assert_eq!(recalled.results[0].text, body);
    let sent = recalled.results[0].id;
    let other = if sent == global { local } else { global };
    let explain = recalled.explain.unwrap();
    let cut = explain.iter().find(|e| e.id == other).unwrap();
    assert_eq!(cut.outcome, format!("cut: same text as {sent}"));
}

// ---------------------------------------------------------------- unicode

const RESUME: &str = "Keep the résumé template in docs/hiring";
const CAFE: &str = "The cafe downstairs has the fastest wifi";

#[rstest]
#[case::resume_template("resume template", RESUME)]
#[case::resume("resume", RESUME)]
#[case::capitals("RÉSUMÉ", RESUME)]
#[case::cafe("café", CAFE)]
#[case::cafe_wifi("Café wifi", CAFE)]
fn accents_fold_both_ways(#[case] query: &str, #[case] body: &str) {
    let (_dir, mut store) = empty_store();
    let resume = remember(&mut store, RESUME, None);
    let cafe = remember(&mut store, CAFE, None);
    let id = if body == RESUME { resume } else { cafe };
    let recalled = ask(&store, &Scope::global(), query);
    assert_eq!(ids(&recalled), [id], "{query:?}");
}

#[rstest]
#[case::a_word_and_a_particle("连接池的")]
#[case::a_word("连接池")]
#[case::a_phrase("数据库连接池的大小")]
fn cjk_text_is_found_through_the_trigram_lane(#[case] query: &str) {
    let (_dir, mut store) = empty_store();
    let pool = remember(&mut store, "数据库连接池的大小是二十", None);
    remember(&mut store, "日志级别在生产环境是信息", None);
    let options = Options {
        explain: true,
        ..Options::default()
    };
    let recalled = recall_with(&store, &Scope::global(), query, options);
    assert_eq!(ids(&recalled), [pool], "{query:?}");
    let explain = recalled.explain.unwrap();
    assert!(
        explain[0].trigrams.is_some(),
        "{query:?} is found by trigrams"
    );
}

// ---------------------------------------------------------------- scope and state

/// A deploy memory in each project and one global: the store, then the ids of project A's,
/// project B's and the global one.
fn two_projects_and_global() -> (TempDir, Store, [i64; 3]) {
    let (dir, mut store) = empty_store();
    let a = remember(
        &mut store,
        "Deploy project A with the blue pipeline",
        Some(PROJECT_A),
    );
    let b = remember(
        &mut store,
        "Deploy project B with the green pipeline",
        Some(PROJECT_B),
    );
    let global = remember(&mut store, "Deploy only after the pipeline is green", None);
    (dir, store, [a, b, global])
}

fn explained() -> Options {
    Options {
        explain: true,
        budget: Budget::Full,
        floor: false,
        ..Options::default()
    }
}

#[rstest]
#[case::a(PROJECT_A)]
#[case::b(PROJECT_B)]
fn projects_never_see_each_other(
    #[case] project: &str,
    #[values("deploy pipeline", "green pipeline", "blue", "")] query: &str,
) {
    let (_dir, store, [a, b, _]) = two_projects_and_global();
    let other = if project == PROJECT_A { b } else { a };
    let scope = Scope::project(project);
    let recalled = recall_with(&store, &scope, query, explained());
    let found = ids(&recalled);
    assert!(!found.contains(&other), "{scope:?} {query:?}: {found:?}");
    let candidates: Vec<i64> = recalled.explain.unwrap().iter().map(|e| e.id).collect();
    assert!(
        !candidates.contains(&other),
        "{scope:?} {query:?} considered another project's memory: {candidates:?}"
    );
}

#[rstest]
#[case::a(PROJECT_A)]
#[case::b(PROJECT_B)]
fn projects_both_see_global(#[case] project: &str) {
    let (_dir, store, [a, b, global]) = two_projects_and_global();
    let own = if project == PROJECT_A { a } else { b };
    let found = ids(&ask(&store, &Scope::project(project), "deploy pipeline"));
    assert!(found.contains(&own) && found.contains(&global), "{found:?}");
}

#[test]
fn the_global_scope_sees_no_project() {
    let (_dir, store, [_, _, global]) = two_projects_and_global();
    let found = ids(&recall_with(
        &store,
        &Scope::global(),
        "deploy pipeline",
        explained(),
    ));
    assert_eq!(found, [global], "the global scope sees no project");
}

#[test]
fn a_superseded_memory_is_hidden_until_restored() {
    let (_dir, mut store) = empty_store();
    let scope = Scope::project(PROJECT_A);
    let old = remember(&mut store, "Staging deploys run at 9am", Some(PROJECT_A));
    let new = remember(&mut store, "Staging deploys run at 11am", Some(PROJECT_A));
    store.supersede(old, new, &scope).unwrap();
    assert_eq!(ids(&ask(&store, &scope, "staging deploys")), [new]);

    store.restore(old, &scope).unwrap();
    let mut found = ids(&ask(&store, &scope, "staging deploys"));
    found.sort();
    assert_eq!(found, [old, new]);
}

#[test]
fn remembering_with_supersedes_hides_the_old_memory() {
    let (_dir, mut store) = empty_store();
    let scope = Scope::project(PROJECT_A);
    let old = remember(
        &mut store,
        "The JDK for Android builds is 11",
        Some(PROJECT_A),
    );
    let new = store
        .remember(
            &new_memory("The JDK for Android builds is 17", Some(PROJECT_A), None),
            &[old],
            &scope,
        )
        .unwrap()
        .id();
    assert_eq!(ids(&ask(&store, &scope, "android jdk")), [new]);
    store.restore(old, &scope).unwrap();
    assert!(ids(&ask(&store, &scope, "android jdk")).contains(&old));
}

#[test]
fn a_forgotten_memory_is_hidden_until_restored() {
    let (_dir, mut store) = empty_store();
    let scope = Scope::project(PROJECT_A);
    let id = remember(
        &mut store,
        "The ngrok tunnel uses port 4040",
        Some(PROJECT_A),
    );
    store.forget(id, &scope).unwrap();
    assert!(ask(&store, &scope, "ngrok tunnel").results.is_empty());
    assert!(
        ask(&store, &scope, "").results.is_empty(),
        "not even as recent"
    );

    store.restore(id, &scope).unwrap();
    assert_eq!(ids(&ask(&store, &scope, "ngrok tunnel")), [id]);
}

// ---------------------------------------------------------------- budgets

#[rstest]
#[case::lean(Budget::Lean, 4, Some(2_800))]
#[case::balanced(Budget::Balanced, 8, Some(6_000))]
#[case::full(Budget::Full, 25, None)]
fn every_budget_caps_the_count_and_the_characters(
    #[case] level: Budget,
    #[case] count: usize,
    #[case] chars: Option<usize>,
) {
    let (_dir, mut store) = empty_store();
    for n in 0..40 {
        remember(&mut store, &long_ledger_note(n, 1_100), None);
    }
    let recalled = recall_with(
        &store,
        &Scope::global(),
        "ledger reconciliation",
        budget(level),
    );
    let sent = sent_chars(&recalled);
    assert!(!recalled.results.is_empty(), "{level:?}");
    assert!(recalled.results.len() <= count, "{level:?}");
    match chars {
        Some(cap) => {
            assert!(sent <= cap, "{level:?} sent {sent} characters");
            assert!(
                recalled.results.iter().any(|hit| hit.abridged),
                "{level:?}: what does not fit whole is abridged"
            );
        }
        None => {
            assert_eq!(recalled.results.len(), count, "full fills its count");
            assert!(recalled.results.iter().all(|hit| !hit.abridged));
        }
    }
}

#[rstest]
fn every_budget_caps_the_count_of_short_memories(
    #[values(Budget::Lean, Budget::Balanced, Budget::Full)] level: Budget,
) {
    let (_dir, mut store) = empty_store();
    for n in 0..40 {
        remember(
            &mut store,
            &format!("Flag rollout {n} uses the canary"),
            None,
        );
    }
    let recalled = recall_with(&store, &Scope::global(), "canary rollout", budget(level));
    assert_eq!(recalled.results.len(), level.max_results(), "{level:?}");
}

#[test]
fn a_limit_caps_the_count_below_the_budget() {
    let (_dir, mut store) = empty_store();
    for n in 0..12 {
        remember(
            &mut store,
            &format!("Canary {n} watches the error rate"),
            None,
        );
    }
    let options = Options {
        limit: Some(3),
        explain: true,
        ..Options::default()
    };
    let recalled = recall_with(&store, &Scope::global(), "canary error rate", options);
    assert_eq!(recalled.results.len(), 3);
    let explain = recalled.explain.unwrap();
    assert!(explain.iter().any(|e| e.outcome == "cut: result limit"));

    let above = Options {
        limit: Some(100),
        budget: Budget::Lean,
        ..Options::default()
    };
    let recalled = recall_with(&store, &Scope::global(), "canary error rate", above);
    assert_eq!(recalled.results.len(), 4, "a limit never raises the budget");
}

#[test]
fn the_top_result_is_returned_even_when_longer_than_the_whole_budget() {
    let (_dir, mut store) = empty_store();
    // Longer than the lean budget twice over, shorter than the head search reads (8 KiB).
    let filler = "the quarterly numbers were reviewed again by finance. ".repeat(60);
    let body = format!("{filler}The ledger export runs nightly. {filler}");
    assert!(body.len() < 8 << 10);
    assert!(body.chars().count() > 2 * Budget::Lean.max_chars().unwrap());
    let id = remember(&mut store, &body, None);

    let recalled = recall_with(
        &store,
        &Scope::global(),
        "ledger export",
        budget(Budget::Lean),
    );
    assert_eq!(ids(&recalled), [id]);
    let hit = &recalled.results[0];
    assert!(hit.abridged);
    assert!(hit.text.chars().count() <= 2_800);
    assert_eq!(hit.bytes, body.len(), "bytes tell the whole size to read");

    let recalled = recall_with(
        &store,
        &Scope::global(),
        "ledger export",
        budget(Budget::Full),
    );
    assert_eq!(recalled.results[0].text, body, "full has room for it whole");
    assert!(!recalled.results[0].abridged);
}

#[test]
fn a_long_memory_whose_first_line_matches_is_sent_as_that_line() {
    let (_dir, mut store) = empty_store();
    let rest = "Stop the workers, snapshot the database, then replay the journal.\n".repeat(60);
    let body = format!("Ledger rebuild runbook\n{rest}");
    assert!(body.chars().count() > 2_800);
    let id = remember(&mut store, &body, None);

    let recalled = recall_with(
        &store,
        &Scope::global(),
        "ledger rebuild",
        budget(Budget::Lean),
    );
    assert_eq!(ids(&recalled), [id]);
    assert_eq!(recalled.results[0].text, "Ledger rebuild runbook");
    assert!(recalled.results[0].abridged);
}

#[test]
fn a_long_memory_whose_first_line_does_not_match_is_sent_as_a_snippet() {
    let (_dir, mut store) = empty_store();
    let before = "Timeline of the outage as the on-call engineer saw it.\n".repeat(40);
    let after = "Follow-ups were assigned in the weekly review.\n".repeat(40);
    let body = format!(
        "Notes from the March incident\n{before}The ledger rebuild took four hours.\n{after}"
    );
    assert!(body.chars().count() > 2_800);
    let id = remember(&mut store, &body, None);

    let recalled = recall_with(&store, &Scope::global(), "ledger", budget(Budget::Lean));
    assert_eq!(ids(&recalled), [id]);
    let hit = &recalled.results[0];
    assert!(hit.abridged);
    assert!(
        hit.text.contains("ledger"),
        "the snippet shows the match: {:?}",
        hit.text
    );
    assert!(!hit.text.starts_with("Notes from"), "{:?}", hit.text);
    assert!(hit.text.chars().count() <= 2_800);
}

// ---------------------------------------------------------------- no terms

#[rstest]
#[case::empty("")]
#[case::blank("   ")]
#[case::function_words("what is it that we did?")]
#[case::one_function_word("the")]
fn an_empty_or_function_word_query_returns_the_newest_first(#[case] query: &str) {
    let (_dir, mut store) = empty_store();
    let scope = Scope::project(PROJECT_A);
    let oldest = remember_at(&mut store, "Oldest note", Some(PROJECT_A), Some(1_000));
    let newest = remember_at(&mut store, "Newest note", None, Some(3_000));
    let middle = remember_at(&mut store, "Middle note", Some(PROJECT_A), Some(2_000));
    remember_at(&mut store, "Elsewhere", Some(PROJECT_B), Some(4_000));
    let gone = remember_at(&mut store, "Forgotten note", Some(PROJECT_A), Some(5_000));
    store.forget(gone, &scope).unwrap();

    let recalled = ask(&store, &scope, query);
    assert!(recalled.terms.kept.is_empty(), "{query:?}");
    assert_eq!(ids(&recalled), [newest, middle, oldest], "{query:?}");
}

#[test]
fn an_empty_query_returns_no_more_than_the_budget() {
    let (_dir, mut store) = empty_store();
    let ids_by_age: Vec<i64> = (0..10)
        .map(|n| remember_at(&mut store, &format!("Note {n}"), None, Some(1_000 + n)))
        .collect();
    let recalled = recall_with(&store, &Scope::global(), "", budget(Budget::Lean));
    let newest: Vec<i64> = ids_by_age.iter().rev().take(4).copied().collect();
    assert_eq!(ids(&recalled), newest);
}

// ---------------------------------------------------------------- explain

#[test]
fn explain_lists_every_candidate_with_its_outcome() {
    let (_dir, mut store) = empty_store();
    let answer = remember(&mut store, "The webhook retry limit is five", None);
    let lone = remember(&mut store, "Retry storms overload the queue", None);
    let options = Options {
        explain: true,
        ..Options::default()
    };
    let recalled = recall_with(&store, &Scope::global(), "webhook retry limit", options);
    assert_eq!(ids(&recalled), [answer]);

    let explain = recalled.explain.unwrap();
    assert_eq!(explain.len(), 2, "{explain:?}");
    let first = explain.iter().find(|e| e.id == answer).unwrap();
    assert_eq!(first.outcome, "returned");
    assert_eq!(first.coverage, 3);
    assert_eq!(first.held, ["webhook", "retry", "limit"]);
    assert!(first.words.is_some());
    let cut = explain.iter().find(|e| e.id == lone).unwrap();
    assert_eq!(cut.outcome, "cut: below the coverage floor");
    assert_eq!(cut.coverage, 1);
    assert_eq!(cut.held, ["retry"]);

    let unfloored = Options {
        floor: false,
        ..Options::default()
    };
    let found = ids(&recall_with(
        &store,
        &Scope::global(),
        "webhook retry limit",
        unfloored,
    ));
    assert_eq!(
        found,
        [answer, lone],
        "without the floor the lone word comes back"
    );
}

#[test]
fn short_words_ending_in_y_count_toward_coverage() {
    // The stemmer turns "try" into "tri" and "any" into "ani": the memory still holds the word.
    let (_dir, mut store) = empty_store();
    let first = remember(
        &mut store,
        "Run the dry run, then try the dry run flag on a copy",
        None,
    );
    let second = remember(&mut store, "Try a dry run before any release", None);
    let options = Options {
        explain: true,
        ..Options::default()
    };
    let recalled = recall_with(&store, &Scope::global(), "try any dry run", options);
    let explain = recalled.explain.as_ref().unwrap();
    let coverage = |id: i64| explain.iter().find(|e| e.id == id).unwrap().coverage;
    assert_eq!(coverage(first), 3, "{explain:?}");
    assert_eq!(coverage(second), 4, "{explain:?}");
    let mut found = ids(&recalled);
    found.sort();
    assert_eq!(found, [first, second]);
}

#[test]
fn explain_is_absent_unless_asked() {
    let (_dir, mut store) = empty_store();
    remember(&mut store, "The webhook retry limit is five", None);
    assert!(ask(&store, &Scope::global(), "webhook").explain.is_none());
}

// ---------------------------------------------------------------- bounded work

#[test]
fn common_terms_count_as_coverage_without_pulling_candidates() {
    // "release" is in more memories than a lane ranks; "canary" is rare. Only "canary" pulls
    // candidates, and "release" still counts toward the coverage of those it pulled.
    let (_dir, mut store) = empty_store();
    let lines: String = (0..=recall::lanes::COMMON_DF)
        .map(|i| format!("{{\"body\": \"release note number {i}\"}}\n"))
        .collect();
    store
        .import(&lines, &Scope::global(), Secrets::Mask)
        .unwrap();
    let alone = remember(&mut store, "The canary stage takes ten minutes", None);
    let both = remember(
        &mut store,
        "Every release goes through the canary stage",
        None,
    );
    let options = Options {
        explain: true,
        ..Options::default()
    };
    let recalled = recall_with(&store, &Scope::global(), "release canary", options);
    let mut found = ids(&recalled);
    found.sort();
    assert_eq!(found, [alone, both], "no release note is pulled in");
    let explain = recalled.explain.unwrap();
    assert_eq!(explain.len(), 2, "{explain:?}");
    let held = |id: i64| explain.iter().find(|e| e.id == id).unwrap().held.clone();
    assert_eq!(held(both), ["release", "canary"]);
    assert_eq!(held(alone), ["canary"]);
}

#[test]
fn a_lower_common_bound_leaves_more_terms_to_coverage() {
    // "deploy" is in four memories, "rollback" in one. With the default bound both pull
    // candidates; with a bound of three (as the hooks lower it), "deploy" is common and only
    // the memory holding "rollback" is ranked, "deploy" still counting toward its coverage.
    let (_dir, mut store) = empty_store();
    for i in 0..3 {
        remember(
            &mut store,
            &format!("deploy step {i} runs the migrations"),
            None,
        );
    }
    let both = remember(
        &mut store,
        "A deploy rollback restores the last image",
        None,
    );
    let global = Scope::global();
    let ranked = |common: i64| {
        let options = Options {
            explain: true,
            common,
            ..Options::default()
        };
        let recalled = recall_with(&store, &global, "deploy rollback", options);
        assert_eq!(ids(&recalled), [both]);
        recalled.explain.unwrap()
    };
    assert_eq!(ranked(recall::lanes::COMMON_DF).len(), 4);
    let bounded = ranked(3);
    assert_eq!(bounded.len(), 1, "{bounded:?}");
    assert_eq!(bounded[0].held, ["deploy", "rollback"]);
}

#[test]
fn without_substrings_words_inside_identifiers_are_not_searched_but_cjk_is() {
    let (_dir, mut store) = empty_store();
    let handler = remember(&mut store, "StripeWebhookHandler verifies signatures", None);
    let pool = remember(&mut store, "数据库连接池的大小是二十", None);
    let lean = Options {
        substrings: false,
        ..Options::default()
    };
    let global = Scope::global();
    assert_eq!(ids(&ask(&store, &global, "webhook")), [handler]);
    assert!(ids(&recall_with(&store, &global, "webhook", lean.clone())).is_empty());
    assert_eq!(ids(&recall_with(&store, &global, "连接池", lean)), [pool]);
}

#[test]
fn each_lanes_first_survives_the_floor() {
    // "webhook" is commoner than "alpha", so a memory holding only "webhook" falls below the
    // hooks' coverage floor, unless a lane ranks it first: the trigram lane finds it inside the
    // identifier. A question asked (no `unasked`) keeps them: their bm25 is near the best.
    let (_dir, mut store) = empty_store();
    for i in 0..30 {
        remember(
            &mut store,
            &format!("unrelated note {i} about lunch orders"),
            None,
        );
    }
    let filler = "with a long explanation of the history behind it that nobody reads twice";
    let alpha = remember(
        &mut store,
        &format!("alpha is the codename, {filler}"),
        None,
    );
    let inside = remember(
        &mut store,
        "StripeWebhookHandler, StripeWebhookHandler",
        None,
    );
    let mut plain = Vec::new();
    for i in 0..3 {
        plain.push(remember(
            &mut store,
            &format!("webhook note {i}, {filler}"),
            None,
        ));
    }
    let asked = recall_with(
        &store,
        &Scope::global(),
        "alpha webhook",
        Options::default(),
    );
    assert!(
        plain
            .iter()
            .chain([&inside])
            .all(|id| ids(&asked).contains(id)),
        "a question asked keeps what is near the best: {:?}",
        ids(&asked)
    );
    let options = Options {
        explain: true,
        unasked: true,
        ..Options::default()
    };
    let recalled = recall_with(&store, &Scope::global(), "alpha webhook", options);
    let explain = recalled.explain.clone().unwrap();
    let place = |id: i64| explain.iter().find(|e| e.id == id).unwrap();
    assert_eq!(explain[0].id, alpha, "{explain:?}");
    assert_eq!(
        place(inside).trigrams.map(|p| p.rank),
        Some(1),
        "{explain:?}"
    );
    assert_eq!(place(inside).held, ["webhook"]);
    let found = ids(&recalled);
    assert!(found.contains(&inside), "{explain:?}");
    assert!(
        plain.iter().all(|id| !found.contains(id)),
        "a lone common word is not enough: {explain:?}"
    );
}
