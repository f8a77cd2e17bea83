//! The prompt replay: the LoCoMo dev questions asked as prompts, through the UserPromptSubmit rule.
//!
//! `cargo run --release --example prompt_replay -- [MEMORIES.jsonl] [CASES.toml]` (defaults
//! `/work/shared/bench/locomo-dev/memories.jsonl` and `.../cases.toml`). It imports the memories
//! into a temporary store (each line carries its conversation as `project`), then asks every
//! case's question as the prompt of a fresh session in that project and sees what the hook would
//! inject: recall with the lean budget, the hits that hold at least `unasked::prompt_floor` of
//! the prompt's terms (`unasked::for_prompt`, which also picks the one to inject whole), drift left
//! out (`unasked::offer`), the block from `inject::prompt_block`. A case counts as answered when a
//! memory injected whole or as a pointer has a body containing one of its expected texts (as
//! `eval` judges). Each session is fresh, so nothing is held back for
//! having been given before; there is no git signal (the projects are plain keys).
//!
//! The hook's own steps are called here for a prompt in a given scope (`recall::unasked`, the
//! block); as a check that nothing else of the hook matters, each case is also run through
//! `hook::run` itself on a second store whose projects are temporary folders (the hook finds its
//! project from `cwd`), and the printed blocks are compared (`hook_check`); `--no-hook-check`
//! skips it; `--verbose` adds up to 10 cases whose answer drift left out. `--half dev|test`
//! replays one half of the cases (`eval --half`). `--branch` asks every prompt on a feature
//! branch with a changed file (`feature_branches`), as a developer mid-task does; the hook check
//! is then skipped (the hook reads its signal from git). Reports gold injected for answerable
//! prompts (and injected whole), unanswerable prompts left alone, memories injected whole and as
//! pointers per prompt, and characters added, over all prompts and over the unanswerable ones. Prints one JSON object; it
//! never touches the user's store or the bench files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};
use synapse::config::Ignore;
use synapse::eval::{self, Case};
use synapse::plugin::claude::ClaudeCode;
use synapse::plugin::hook::{self, Event};
use synapse::plugin::inject;
use synapse::plugin::session::Adapter;
use synapse::recall::unasked::{self, PROMPT_MEMORIES};
use synapse::recall::Hit;
use synapse::secrets::Secrets;
use synapse::signal::Signal;
use synapse::sources::Known;
use synapse::store::{Scope, Store};

const MEMORIES: &str = "/work/shared/bench/locomo-dev/memories.jsonl";
const CASES: &str = "/work/shared/bench/locomo-dev/cases.toml";

/// What the rule injected for one prompt.
struct Injected {
    text: Option<String>,
    ids: Vec<i64>,
    /// The ids injected whole; the rest of `ids` are pointers.
    whole: Vec<i64>,
    /// Recall's results before the floor, for telling recall misses from floor cuts.
    recalled: Vec<Hit>,
    /// The hits over the floor, before drift.
    over_floor: Vec<i64>,
    left_out: Vec<i64>,
    /// The kind of drift each left-out memory was left out for ("stale", "conflict", ...).
    left_kinds: Vec<(i64, String)>,
    /// The left-out line, as the block prints it.
    left_line: Option<String>,
}

fn main() -> Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let on_branch = args.iter().any(|a| a == "--branch");
    // The hook finds its signal in git; the replay's projects are plain folders.
    let hook_check = !on_branch && !args.iter().any(|a| a == "--no-hook-check");
    let verbose = args.iter().any(|a| a == "--verbose");
    let half = match args.iter().position(|a| a == "--half") {
        Some(i) => Some(match args.get(i + 1).map(String::as_str) {
            Some("dev") => eval::Half::Dev,
            Some("test") => eval::Half::Test,
            other => bail!("--half takes dev or test, not {other:?}"),
        }),
        None => None,
    };
    if let Some(i) = args.iter().position(|a| a == "--half") {
        args.drain(i..=i + 1);
    }
    args.retain(|a| a != "--no-hook-check" && a != "--verbose" && a != "--branch");
    let memories_path = PathBuf::from(args.first().map_or(MEMORIES, String::as_str));
    let cases_path = PathBuf::from(args.get(1).map_or(CASES, String::as_str));

    let text = std::fs::read_to_string(&memories_path)
        .with_context(|| format!("could not read {}", memories_path.display()))?;
    let all = eval::load(&cases_path)?;
    let categories = categories(&cases_path, all.len())?;
    let tagged: Vec<(Case, String)> = all.into_iter().zip(categories).collect();
    // The same split as `eval --half`, with each case's category alongside.
    let tagged = match half {
        Some(half) => eval::half(tagged, half),
        None => tagged,
    };
    let (cases, categories): (Vec<Case>, Vec<String>) = tagged.into_iter().unzip();
    let signals = if on_branch {
        feature_branches(&text)?
    } else {
        BTreeMap::new()
    };
    if cases.is_empty() {
        bail!("{} has no cases", cases_path.display());
    }

    let dir = tempfile::tempdir().context("could not make a temporary folder")?;
    let mut store = Store::open(&dir.path().join("data"))?;
    let report = store.import(&text, &Scope::global(), Secrets::Mask)?;

    let (mut answerable, mut gold, mut gold_recalled, mut gold_over_floor) = (0, 0, 0, 0);
    let limit = PROMPT_MEMORIES;
    let mut by_count = vec![0usize; limit + 1];
    let (mut chars, mut with_left_out, mut left_alone) = (0usize, 0usize, 0usize);
    // Characters added to unanswerable prompts; memories injected whole and as pointers; answers
    // found whole.
    let (mut unanswered_chars, mut wholes, mut pointers, mut gold_whole) = (0, 0, 0, 0);
    let mut left_by_kind: BTreeMap<String, usize> = BTreeMap::new();
    let mut gold_left_by_kind: BTreeMap<String, usize> = BTreeMap::new();
    let mut gold_left_examples: Vec<Value> = Vec::new();
    let mut per_category: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut results: Vec<Injected> = Vec::with_capacity(cases.len());
    let started = Instant::now();
    for (i, case) in cases.iter().enumerate() {
        let scope = case
            .project
            .as_deref()
            .map_or_else(Scope::global, Scope::project);
        let signal = case
            .project
            .as_deref()
            .and_then(|p| signals.get(p))
            .cloned()
            .unwrap_or_default();
        let got = prompt_rule(&store, &scope, &case.query, signal)?;
        let expect = case.expect.texts();
        let holds = |h: &Hit| expect.iter().any(|e| h.body.contains(e));
        by_count[got.ids.len().min(limit)] += 1;
        let added = got.text.as_ref().map_or(0, |t| t.chars().count());
        chars += added;
        wholes += got.whole.len();
        pointers += got.ids.len() - got.whole.len();
        with_left_out += usize::from(!got.left_out.is_empty());
        for (_, kind) in &got.left_kinds {
            *left_by_kind.entry(kind.clone()).or_default() += 1;
        }
        if expect.is_empty() {
            left_alone += usize::from(got.ids.is_empty());
            unanswered_chars += added;
        } else {
            answerable += 1;
            let injected = got
                .recalled
                .iter()
                .any(|h| got.ids.contains(&h.id) && holds(h));
            gold += usize::from(injected);
            gold_whole += usize::from(
                got.recalled
                    .iter()
                    .any(|h| got.whole.contains(&h.id) && holds(h)),
            );
            gold_recalled += usize::from(got.recalled.iter().any(holds));
            gold_over_floor += usize::from(
                got.recalled
                    .iter()
                    .any(|h| got.over_floor.contains(&h.id) && holds(h)),
            );
            let gold_left = got.left_kinds.iter().find(|(id, _)| {
                got.recalled.iter().any(|h| h.id == *id && holds(h))
                    && !got
                        .recalled
                        .iter()
                        .any(|h| got.ids.contains(&h.id) && holds(h))
            });
            if let Some((id, kind)) = gold_left {
                *gold_left_by_kind.entry(kind.clone()).or_default() += 1;
                if verbose && gold_left_examples.len() < 10 {
                    gold_left_examples.push(json!({
                        "query": case.query,
                        "gold": got.recalled.iter().find(|h| h.id == *id).map(|h| &h.body),
                        "left_out": got.left_line,
                    }));
                }
            }
            let entry = per_category.entry(categories[i].clone()).or_default();
            entry.0 += 1;
            entry.1 += usize::from(injected);
        }
        results.push(got);
    }
    let rule_ms = started.elapsed().as_secs_f64() * 1e3 / cases.len() as f64;
    drop(store);

    let n = cases.len() as f64;
    let share = |k: usize, of: usize| {
        if of == 0 {
            0.0
        } else {
            round(k as f64 / of as f64)
        }
    };
    let injecting = cases.len() - by_count[0];
    let mut out = json!({
        "profile": if cfg!(debug_assertions) { "debug" } else { "release" },
        "memories": report.stored,
        "cases": cases.len(),
        "answerable": answerable,
        "gold_injected": share(gold, answerable),
        "unanswerable": cases.len() - answerable,
        "gold_injected_whole": share(gold_whole, answerable),
        "unanswerable_left_alone": share(left_alone, cases.len() - answerable),
        "mean_chars_unanswerable": if answerable == cases.len() { 0.0 } else { round(unanswered_chars as f64 / (cases.len() - answerable) as f64) },
        "whole_per_prompt": round(wholes as f64 / n),
        "pointers_per_prompt": round(pointers as f64 / n),
        "on_feature_branch": on_branch,
        "signals": signals.iter().map(|(p, s)| (p.clone(), json!({"branch": s.branch, "files": s.files}))).collect::<serde_json::Map<_, _>>(),
        "injected_memories": by_count
            .iter()
            .enumerate()
            .map(|(memories, &prompts)| (memories.to_string(), json!(share(prompts, cases.len()))))
            .collect::<serde_json::Map<_, _>>(),
        "mean_chars": round(chars as f64 / n),
        "mean_chars_when_injecting": if injecting == 0 { 0.0 } else { round(chars as f64 / injecting as f64) },
        "gold_in_recall_top3": share(gold_recalled, answerable),
        "gold_over_floor": share(gold_over_floor, answerable),
        "gold_left_out_by_drift": share(gold_left_by_kind.values().sum(), answerable),
        "gold_left_out_by_kind": gold_left_by_kind,
        "with_left_out_line": share(with_left_out, cases.len()),
        "left_out_memories_by_kind": left_by_kind,
        "gold_injected_by_category": per_category
            .iter()
            .map(|(c, &(of, k))| (c.clone(), json!({"cases": of, "gold_injected": share(k, of)})))
            .collect::<serde_json::Map<_, _>>(),
        "rule_ms_per_prompt": round(rule_ms),
    });
    if verbose {
        out["gold_left_out_examples"] = Value::Array(gold_left_examples);
    }
    if hook_check {
        out["hook_check"] = check_against_hook(&text, &cases, &results, dir.path())?;
    }
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}

/// The UserPromptSubmit rule for a fresh session with the task signal `signal`: the hits
/// `unasked::for_prompt` gives (lean budget, the prompt's floor, ordered), what
/// `unasked::offer` keeps of them for a session given nothing yet, framed.
fn prompt_rule(store: &Store, scope: &Scope, prompt: &str, signal: Signal) -> Result<Injected> {
    let unasked::Prompted { found, hits, whole } =
        unasked::for_prompt(store, scope, prompt, &signal, &Default::default())?;
    let over_floor: Vec<i64> = hits.iter().map(|h| h.id).collect();
    let ignore = &store.settings()?.drift.ignore;
    let offer = unasked::offer(
        store,
        scope,
        &Default::default(),
        hits,
        PROMPT_MEMORIES,
        ignore,
    )?;
    let whole = offer.whole_with_pairs(whole);
    let unasked::Offer {
        hits: kept,
        left,
        findings,
        ..
    } = offer;
    let left_kinds = left
        .ids
        .iter()
        .filter_map(|id| findings.iter().find(|f| f.id == *id))
        .map(|f| {
            (
                f.id,
                serde_json::to_value(f.kind)
                    .map_or_else(|_| "?".into(), |v| v.as_str().unwrap_or("?").to_owned()),
            )
        })
        .collect();
    let now = synapse::store::now();
    // The replay measures what a store of Synapse's own memories injects in Claude Code, with
    // no memory files of the client's.
    let voice = ClaudeCode.voice(&Known::default());
    let files = inject::Files::new();
    let block = inject::prompt_block(&kept, &whole, left.line().as_deref(), (now, &voice, &files));
    let (text, ids) = match block {
        Some((text, ids)) => (Some(text), ids),
        None => (None, Vec::new()),
    };
    let whole = ids
        .iter()
        .copied()
        .filter(|id| whole.contains(id))
        .collect();
    Ok(Injected {
        text,
        ids,
        whole,
        recalled: found.results,
        over_floor,
        left_line: left.line(),
        left_out: left.ids,
        left_kinds,
    })
}

/// Run every case through `hook::run` on a store whose projects are folders, and count the
/// prompts whose printed block is the rule's, byte for byte.
fn check_against_hook(text: &str, cases: &[Case], rule: &[Injected], tmp: &Path) -> Result<Value> {
    let projects = tmp.join("projects");
    std::fs::create_dir_all(&projects)?;
    let projects = projects.canonicalize()?;
    // As the hook sees it: the default `[signal] ignore` (the replay's data folder has no settings).
    if !Signal::of_folder(&projects, &Ignore::default()).is_empty() {
        return Ok(json!({"skipped": "the temporary folder is inside a git repository"}));
    }
    let folder = |key: &str| -> Result<String> {
        let dir = projects.join(key.replace(['/', '\\'], "_"));
        std::fs::create_dir_all(&dir)?;
        Ok(dir.display().to_string())
    };
    let mut mapped = String::with_capacity(text.len() * 2);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let mut value: Value = serde_json::from_str(line).context("a memories line is not JSON")?;
        if let Some(key) = value.get("project").and_then(Value::as_str) {
            value["project"] = Value::String(folder(key)?);
        }
        mapped.push_str(&value.to_string());
        mapped.push('\n');
    }
    let data = tmp.join("hook-data");
    Store::open(&data)?.import(&mapped, &Scope::global(), Secrets::Mask)?;
    // SAFETY of the environment change: this example is single-threaded.
    std::env::set_var("SYNAPSE_DATA", &data);
    for var in [
        "SYNAPSE_BUDGET",
        "SYNAPSE_SESSION_START",
        "SYNAPSE_PROMPT_SUBMIT",
        "SYNAPSE_STOP",
    ] {
        std::env::remove_var(var);
    }

    let (mut same, mut differ) = (0usize, Vec::new());
    let started = Instant::now();
    for (i, case) in cases.iter().enumerate() {
        let cwd = match case.project.as_deref() {
            Some(key) => folder(key)?,
            None => projects.display().to_string(),
        };
        let payload = json!({
            "session_id": format!("replay-{i}"),
            "transcript_path": tmp.join("transcript.jsonl"),
            "cwd": cwd,
            "hook_event_name": "UserPromptSubmit",
            "prompt": case.query,
        });
        let printed = hook::run(Event::UserPromptSubmit, &payload.to_string())?.context;
        if printed == rule[i].text {
            same += 1;
        } else if differ.len() < 5 {
            differ.push(json!({"query": case.query, "hook": printed, "rule": rule[i].text}));
        }
    }
    let ms = started.elapsed().as_secs_f64() * 1e3 / cases.len() as f64;
    Ok(json!({
        "compared": cases.len(),
        "identical": same,
        "hook_ms_per_prompt": round(ms),
        "first_differences": differ,
    }))
}

/// Each case's `category` (LoCoMo: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop), in
/// file order; "-" where a case has none.
fn categories(path: &Path, count: usize) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(path)?;
    let value: toml::Value = toml::from_str(&text)?;
    let list: Vec<String> = value
        .get("case")
        .and_then(toml::Value::as_array)
        .map(|cases| {
            cases
                .iter()
                .map(|c| c.get("category").map_or("-".to_owned(), |v| v.to_string()))
                .collect()
        })
        .unwrap_or_default();
    if list.len() != count {
        bail!("{} cases but {} categories", count, list.len());
    }
    Ok(list)
}

fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// For `--branch`: a feature branch and a changed file for each project, made from what its
/// memories say most, so the signal shares words with many of them (the hard case for a prompt
/// floor): the branch `feature/` and the project's two most frequent content words of four or
/// more letters, and the file path its memories name most (a word with `/` and `.`), or
/// `src/` and its third word with `.rs`.
fn feature_branches(text: &str) -> Result<BTreeMap<String, Signal>> {
    let mut words: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    let mut paths: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let value: Value = serde_json::from_str(line).context("a memories line is not JSON")?;
        let (Some(project), Some(body)) = (
            value.get("project").and_then(Value::as_str),
            value.get("body").and_then(Value::as_str),
        ) else {
            continue;
        };
        for token in body.split_whitespace() {
            let token = token.trim_matches(|c: char| "`'\"(),;:".contains(c));
            if token.contains('/') && token.contains('.') && !token.contains("://") {
                *paths
                    .entry(project.into())
                    .or_default()
                    .entry(token.into())
                    .or_default() += 1;
            }
        }
        let folded = synapse::text::fold(body);
        for word in synapse::text::words(&folded) {
            if word.len() >= 4
                && word.chars().all(|c| c.is_ascii_lowercase())
                && !synapse::text::is_function_word(word)
            {
                *words
                    .entry(project.into())
                    .or_default()
                    .entry(word.into())
                    .or_default() += 1;
            }
        }
    }
    let top = |counts: &BTreeMap<String, usize>| -> Vec<String> {
        let mut ranked: Vec<(&String, &usize)> = counts.iter().collect();
        ranked.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        ranked.into_iter().map(|(w, _)| w.clone()).collect()
    };
    Ok(words
        .iter()
        .map(|(project, counts)| {
            let ranked = top(counts);
            let word = |i: usize| ranked.get(i).cloned().unwrap_or_else(|| "work".into());
            let file = paths
                .get(project)
                .and_then(|p| top(p).into_iter().next())
                .unwrap_or_else(|| format!("src/{}.rs", word(2)));
            let signal = Signal {
                branch: Some(format!("feature/{}-{}", word(0), word(1))),
                files: vec![file],
                ..Signal::default()
            };
            (project.clone(), signal)
        })
        .collect())
}
