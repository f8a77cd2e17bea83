//! A measurement: would a static-embedding lane help recall? (docs/relevance.md)
//!
//! `cargo run --release --example static_lane -- SET_DIR VECTORS [--half dev|test|all] [--k 60]
//! [--depth 40] [--weight 1]`
//!
//! SET_DIR holds a labeled set (`memories.jsonl`, `cases.toml`); VECTORS is the file
//! `bench/static-embed.py` wrote for it: one `{"text", "v"}` line per memory body and query,
//! normalized. The set is imported into a temporary store, as `bench/relevance.sh` does, and
//! each case of the half is answered four ways, scored as `synapse eval` scores (`expect` a
//! substring of the body), each compared with today by `eval::compare`'s paired bootstrap:
//!
//! - `today`: Synapse's recall, as `synapse eval` runs it (balanced budget);
//! - `static`: the memories the case's scope sees, by cosine to the query, the budget's count;
//! - `rrf`: reciprocal-rank fusion (`1/(K + rank)`, the static lane's term times WEIGHT) of
//!   today's list and the static top DEPTH, cut to today's length;
//! - `rerank`: today's results only, reordered by the same fused score (the static rank taken
//!   over the whole scope).
//!
//! It then prints the best cosine in scope as an abstention signal (answerable against
//! unanswerable cases, and what a threshold would cost), and times a brute-force scan of
//! 10,000 int8 vectors. It never touches the user's store.

use std::collections::HashMap;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use synapse::config::Budget;
use synapse::eval::{self, Half, Report, Scored};
use synapse::recall::{self, Options};
use synapse::secrets::Secrets;
use synapse::store::{Scope, Store};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [set, vectors, ..] = args.as_slice() else {
        bail!("usage: static_lane SET_DIR VECTORS [--half dev|test|all] [--k K] [--depth N] [--weight W]");
    };
    let flag = |name: &str| {
        let at = args.iter().position(|a| a == name)?;
        args.get(at + 1).cloned()
    };
    let half = match flag("--half").as_deref() {
        None | Some("all") => None,
        Some("dev") => Some(Half::Dev),
        Some("test") => Some(Half::Test),
        Some(other) => bail!("--half is dev, test or all, not {other:?}"),
    };
    let k: f64 = flag("--k").map_or(Ok(60.0), |s| s.parse())?;
    let depth: usize = flag("--depth").map_or(Ok(40), |s| s.parse())?;
    let weight: f64 = flag("--weight").map_or(Ok(1.0), |s| s.parse())?;

    let vectors = read_vectors(vectors)?;
    let dir = tempfile::tempdir().context("could not make a temporary folder")?;
    let mut store = Store::open(dir.path())?;
    let memories = std::fs::read_to_string(format!("{set}/memories.jsonl"))?;
    store.import(&memories, &Scope::global(), Secrets::Mask)?;
    let mut cases = eval::load(format!("{set}/cases.toml").as_ref())?;
    if let Some(half) = half {
        cases = eval::half(cases, half);
    }
    let options = Options {
        budget: Budget::Balanced,
        drift: false,
        ..Options::default()
    };
    let count = options.max_results();

    let mut in_scope: HashMap<Option<String>, Vec<(i64, String)>> = HashMap::new();
    let mut methods: [(&str, Vec<Scored>); 4] = [
        ("today", Vec::new()),
        ("static", Vec::new()),
        ("rrf", Vec::new()),
        ("rerank", Vec::new()),
    ];
    // (best cosine in scope, answerable, today found it, today returned something)
    let mut signal: Vec<(f32, bool, bool, bool)> = Vec::new();
    let mut unknown = 0usize;
    for case in &cases {
        let scope = store.scope_named(case.project.as_deref())?;
        let seen = match in_scope.get(&case.project) {
            Some(seen) => seen,
            None => {
                let listed = store.list(&scope, false)?;
                let seen = listed.into_iter().map(|m| (m.id, m.body)).collect();
                in_scope.entry(case.project.clone()).or_insert(seen)
            }
        };
        let body: HashMap<i64, &str> = seen.iter().map(|(id, b)| (*id, b.as_str())).collect();
        let query = vectors
            .get(&case.query)
            .with_context(|| format!("no vector for the query {:?}", case.query))?;
        let mut by_cosine: Vec<(i64, f32)> = seen
            .iter()
            .map(|(id, b)| match vectors.get(b) {
                Some(v) => (*id, dot(query, v)),
                None => {
                    unknown += 1;
                    (*id, f32::MIN)
                }
            })
            .collect();
        by_cosine.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let static_rank: HashMap<i64, usize> = by_cosine
            .iter()
            .enumerate()
            .map(|(i, (id, _))| (*id, i + 1))
            .collect();

        let today: Vec<i64> = recall::recall(&store, &scope, &case.query, &options)?
            .results
            .into_iter()
            .map(|h| h.id)
            .collect();
        let lane: Vec<i64> = by_cosine.iter().map(|(id, _)| *id).collect();
        let fused = |id: i64, today_rank: Option<usize>, lane_rank: Option<usize>| {
            let part = |r: Option<usize>| r.map_or(0.0, |r| 1.0 / (k + r as f64));
            (id, part(today_rank) + weight * part(lane_rank))
        };
        let today_rank = |id: i64| today.iter().position(|&t| t == id).map(|i| i + 1);
        let mut pool: Vec<i64> = today.clone();
        pool.extend(lane.iter().take(depth).filter(|id| !today.contains(id)));
        let rrf = order(pool.iter().map(|&id| {
            let r = static_rank[&id];
            fused(id, today_rank(id), (r <= depth).then_some(r))
        }));
        let rerank = order(
            today
                .iter()
                .map(|&id| fused(id, today_rank(id), Some(static_rank[&id]))),
        );
        let lists: [Vec<i64>; 4] = [
            today.clone(),
            lane.iter().take(count).copied().collect(),
            rrf.into_iter().take(today.len()).collect(),
            rerank,
        ];
        let expect = case.expect.texts();
        for ((_, scored), list) in methods.iter_mut().zip(&lists) {
            let rank = list
                .iter()
                .position(|id| expect.iter().any(|e| body[id].contains(e)))
                .map(|i| i + 1);
            scored.push(Scored {
                answerable: !expect.is_empty(),
                rank,
                returned: list.len(),
                survived: rank.is_some(),
            });
        }
        let best = by_cosine.first().map_or(f32::MIN, |(_, c)| *c);
        let today_found = methods[0].1.last().is_some_and(|s| s.rank.is_some());
        signal.push((best, !expect.is_empty(), today_found, !today.is_empty()));
    }
    if unknown > 0 {
        bail!("{unknown} memory bodies had no vector: embed the set again");
    }

    println!(
        "{} cases, k {k}, depth {depth}, weight {weight}",
        cases.len()
    );
    println!("| method | top1 | found | MRR | noise |\n|---|---|---|---|---|");
    for (name, scored) in &methods {
        let r = Report::of(scored);
        let line = format!(
            "{:.3} | {:.3} | {:.3} | {:.2}",
            r.top1, r.found, r.mrr, r.noise
        );
        println!("| {name} | {line} |");
    }
    println!("\n| method vs today | top1 | found | MRR | noise |\n|---|---|---|---|---|");
    for (name, scored) in &methods[1..] {
        let cells: Vec<String> = eval::compare(scored, &methods[0].1)
            .iter()
            .map(|p| format!("{:+.3} [{:+.3}, {:+.3}]", p.difference, p.low, p.high))
            .collect();
        println!("| {name} | {} |", cells.join(" | "));
    }
    abstention(&signal);
    scan_cost(256);
    Ok(())
}

/// Ids by fused score, best first (ties by id, so a run repeats).
fn order(scored: impl Iterator<Item = (i64, f64)>) -> Vec<i64> {
    let mut all: Vec<(i64, f64)> = scored.collect();
    all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    all.into_iter().map(|(id, _)| id).collect()
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn read_vectors(path: &str) -> Result<HashMap<String, Vec<f32>>> {
    #[derive(serde::Deserialize)]
    struct Line {
        text: String,
        v: Vec<f32>,
    }
    let text = std::fs::read_to_string(path).with_context(|| format!("could not read {path}"))?;
    text.lines()
        .map(|l| {
            let line: Line = serde_json::from_str(l)?;
            Ok((line.text, line.v))
        })
        .collect()
}

/// The best cosine in scope as a signal for saying nothing: its spread on answerable and
/// unanswerable cases, and, per threshold, the unanswerable cases it would leave alone (or today
/// already does, returning nothing) against the answerable ones today answers that it would drop.
fn abstention(signal: &[(f32, bool, bool, bool)]) {
    let spread = |answerable: bool| {
        let mut xs: Vec<f32> = signal
            .iter()
            .filter(|s| s.1 == answerable)
            .map(|s| s.0)
            .collect();
        xs.sort_by(f32::total_cmp);
        if xs.is_empty() {
            return "none".to_owned();
        }
        let q = |p: f64| xs[((xs.len() - 1) as f64 * p).round() as usize];
        let mean = xs.iter().sum::<f32>() / xs.len() as f32;
        format!(
            "n {}, mean {mean:.3}, quartiles {:.3} {:.3} {:.3}",
            xs.len(),
            q(0.25),
            q(0.5),
            q(0.75)
        )
    };
    println!(
        "\nbest cosine: answerable {}; unanswerable {}",
        spread(true),
        spread(false)
    );
    let unanswerable = signal.iter().filter(|s| !s.1).count().max(1) as f64;
    let answered = signal.iter().filter(|s| s.1 && s.2).count().max(1) as f64;
    println!(
        "| threshold | unanswerable left alone | answers today gives, dropped |\n|---|---|---|"
    );
    for t in [0.0f32, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7] {
        let alone = signal.iter().filter(|s| !s.1 && (s.0 < t || !s.3)).count();
        let dropped = signal.iter().filter(|s| s.1 && s.2 && s.0 < t).count();
        println!(
            "| {t:.2} | {:.3} | {:.3} |",
            alone as f64 / unanswerable,
            dropped as f64 / answered
        );
    }
}

/// Time a brute-force cosine scan of 10,000 int8 vectors of `dims` (what a query would cost
/// once its vector is made: a table lookup and mean of its tokens' rows, a few microseconds).
fn scan_cost(dims: usize) {
    let n = 10_000;
    let mut rng = fastrand::Rng::with_seed(38);
    let table: Vec<i8> = (0..n * dims).map(|_| rng.i8(-127..=127)).collect();
    let query: Vec<i8> = (0..dims).map(|_| rng.i8(-127..=127)).collect();
    let runs = 200;
    let started = Instant::now();
    let mut best = (0usize, i32::MIN);
    for _ in 0..runs {
        for (i, row) in table.chunks_exact(dims).enumerate() {
            let s: i32 = row
                .iter()
                .zip(&query)
                .map(|(a, b)| i32::from(*a) * i32::from(*b))
                .sum();
            if s > best.1 {
                best = (i, s);
            }
        }
        std::hint::black_box(best);
    }
    let us = started.elapsed().as_secs_f64() * 1e6 / runs as f64;
    println!("\nscan of {n} int8 vectors of {dims}: {us:.0} µs a query");
}
