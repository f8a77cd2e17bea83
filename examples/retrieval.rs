//! The performance fixture: recall and reading latency on a generated store.
//!
//! `cargo run --release --example retrieval -- MEMORIES ITERATIONS` (defaults 10,000 and 30;
//! at most 1,000,000 and 1,000). It builds its own temporary database of deterministic, global,
//! roughly 240-byte memories by importing them, then times four operations, each after one
//! untimed warm-up: `selective` (a term in every thousandth memory), `common` (a term in every
//! memory), `recent` (an empty query: the newest visible memories) and `read` (the first page of
//! one memory). Timings cover the library call and JSON serialization, not process start. It
//! prints one JSON object; it never touches the user's store.

mod common;

use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde_json::json;
use synapse::config::Budget;
use synapse::recall::{self, Options};
use synapse::secrets::Secrets;
use synapse::store::{Scope, Store};

const SELECTIVE: &str = "zephyrine";
const COMMON: &str = "fixture";

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let count = arg(&args, 0, 10_000, 1_000_000, "MEMORIES")?;
    let iterations = arg(&args, 1, 30, 1_000, "ITERATIONS")?;

    let dir = tempfile::tempdir().context("could not make a temporary folder")?;
    let corpus = corpus(count);
    let started = Instant::now();
    let mut store = Store::open(dir.path())?;
    let report = store.import(&corpus, &Scope::global(), Secrets::Mask)?;
    let seed_ms = ms(started);
    if report.stored != count {
        bail!("seeded {} of {count} memories", report.stored);
    }
    drop(store);

    let started = Instant::now();
    let store = Store::open(dir.path())?;
    let visible = store.count_live(&Scope::global())?;
    let open_ms = ms(started);
    if visible != count as i64 {
        bail!("the reopened store sees {visible} of {count} memories");
    }
    let db_bytes = std::fs::metadata(store.path())?.len()
        + std::fs::metadata(store.path().with_extension("db-wal")).map_or(0, |m| m.len());

    let scope = Scope::project("fixture-project");
    let options = Options {
        budget: Budget::Balanced,
        ..Options::default()
    };
    let recall_op = |query: &'static str| {
        let (store, scope) = (&store, &scope);
        move || -> Result<usize> {
            let found = recall::recall(store, scope, query, &options)?;
            if found.results.is_empty() {
                bail!("recall of {query:?} found nothing");
            }
            Ok(serde_json::to_vec(&found)?.len())
        }
    };
    let read_id = (count / 2).max(1) as i64;
    let read_op = || -> Result<usize> {
        let page = synapse::read::read(&store, &scope, read_id, 0, Budget::Balanced.page_bytes())?
            .context("the read memory is missing")?;
        Ok(serde_json::to_vec(&json!({ "memory": page }))?.len())
    };

    let measurements = vec![
        measure("selective", iterations, recall_op(SELECTIVE))?,
        measure("common", iterations, recall_op(COMMON))?,
        measure("recent", iterations, recall_op(""))?,
        measure("read", iterations, read_op)?,
    ];
    let out = json!({
        "profile": if cfg!(debug_assertions) { "debug" } else { "release" },
        "memories": count,
        "iterations": iterations,
        "seed_ms": seed_ms,
        "open_ms": open_ms,
        "db_bytes": db_bytes,
        "measurements": measurements,
    });
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}

fn arg(args: &[String], at: usize, default: usize, max: usize, name: &str) -> Result<usize> {
    let Some(text) = args.get(at) else {
        return Ok(default);
    };
    let value: usize = text
        .parse()
        .with_context(|| format!("{name} must be a whole number, not {text:?}"))?;
    if value == 0 || value > max {
        bail!("{name} must be between 1 and {max}");
    }
    Ok(value)
}

/// Time `iterations` runs of `op` after one warm-up.
fn measure(
    name: &str,
    iterations: usize,
    mut op: impl FnMut() -> Result<usize>,
) -> Result<serde_json::Value> {
    let response_bytes = op()?;
    let mut times = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        let started = Instant::now();
        op()?;
        times.push(ms(started));
    }
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() as f64 * q).ceil() as usize).clamp(1, times.len()) - 1];
    Ok(json!({
        "name": name,
        "p50_ms": at(0.5),
        "p95_ms": at(0.95),
        "max_ms": times[times.len() - 1],
        "response_bytes": response_bytes,
    }))
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

/// `count` memories as import lines: about 240 bytes of made-up words each, all holding
/// `COMMON`, every thousandth holding `SELECTIVE`, dated one minute apart.
fn corpus(count: usize) -> String {
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    const SYLLABLES: &[&str] = &[
        "ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "zo", "pe", "da", "gu", "ha", "ji", "be",
        "fo", "ter", "mon", "quin", "dal", "ros", "vek", "pli", "nar",
    ];
    let word = |next: &mut dyn FnMut() -> u64| {
        let n = 2 + next() % 2;
        (0..n)
            .map(|_| SYLLABLES[(next() % SYLLABLES.len() as u64) as usize])
            .collect::<String>()
    };
    let mut out = String::with_capacity(count * 330);
    for i in 0..count {
        let mut body = format!("{COMMON} note {i}:");
        if i % 1000 == 999 {
            body.push(' ');
            body.push_str(SELECTIVE);
        }
        while body.len() < 235 {
            body.push(' ');
            body.push_str(&word(&mut next));
        }
        body.push('.');
        let minute = i as i64;
        let line = json!({
            "body": body,
            "project": null,
            "source": format!("fixture {}", i / 100),
            "created_at": common::minute_stamp(minute),
        });
        out.push_str(&line.to_string());
        out.push('\n');
    }
    out
}
