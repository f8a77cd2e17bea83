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
use common::{arg, corpus, measure, ms, COMMON, SELECTIVE};
use serde_json::json;
use synapse::config::Budget;
use synapse::recall::{self, Options};
use synapse::secrets::Secrets;
use synapse::store::{Scope, Store};

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
        let (store, scope, options) = (&store, &scope, &options);
        move || -> Result<usize> {
            let found = recall::recall(store, scope, query, options)?;
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
