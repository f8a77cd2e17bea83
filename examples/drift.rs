//! The drift fixture: how long an audit of a generated project store takes.
//!
//! `cargo run --release --example drift -- MEMORIES` (default 10,000; at most 200,000) builds a
//! temporary checkout and store of deterministic project memories written like a team's notes
//! (settings with numbers, ports and versions, decisions and their reversals, paths, repeats),
//! times `drift::audit` three times and prints JSON with the median and the findings by kind.
//! `-- MEMORIES --jsonl KEY` prints the memories as import lines for project KEY instead, to time
//! the `synapse drift` command on them.

mod common;

use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde_json::json;
use synapse::drift::{self, Kind};
use synapse::secrets::Secrets;
use synapse::store::{Scope, Store};

const SERVICES: &[&str] = &[
    "payments",
    "orders",
    "billing",
    "search",
    "auth",
    "inventory",
    "shipping",
    "notifications",
    "ledger",
    "checkout",
    "catalog",
    "reviews",
    "pricing",
    "refunds",
    "invoices",
    "accounts",
    "sessions",
    "uploads",
    "reports",
    "webhooks",
];
const SETTINGS: &[(&str, &str)] = &[
    ("request timeout", "s"),
    ("connect timeout", "ms"),
    ("retry count", " times"),
    ("connection pool size", ""),
    ("batch size", " rows"),
    ("cache TTL", " minutes"),
    ("worker count", ""),
    ("queue depth limit", ""),
    ("rate limit", " requests per minute"),
    ("max payload", " MB"),
];
const TOOLS: &[&str] = &[
    "Redis",
    "Kafka",
    "RabbitMQ",
    "Postgres",
    "MySQL",
    "Elasticsearch",
    "Memcached",
    "SQS",
    "DynamoDB",
    "ClickHouse",
];
const PURPOSES: &[&str] = &[
    "session storage",
    "job queues",
    "audit events",
    "rate limiting",
    "feature flags",
    "full-text search",
    "metrics rollups",
    "idempotency keys",
];

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let count: usize = match args.first() {
        Some(n) => n.parse().context("MEMORIES must be a whole number")?,
        None => 10_000,
    };
    if count == 0 || count > 200_000 {
        bail!("MEMORIES must be between 1 and 200000");
    }
    if args.get(1).map(String::as_str) == Some("--jsonl") {
        let key = args.get(2).context("--jsonl needs a project key")?;
        print!("{}", corpus(count, key));
        return Ok(());
    }

    let dir = tempfile::tempdir().context("could not make a temporary folder")?;
    let checkout = dir.path().join("checkout");
    std::fs::create_dir_all(checkout.join("src/payments"))?;
    std::fs::write(checkout.join("src/payments/handler.rs"), "")?;
    let key = checkout.canonicalize()?.display().to_string();
    let mut store = Store::open(&dir.path().join("data"))?;
    let scope = Scope::project(key.clone());
    let report = store.import(&corpus(count, &key), &scope, Secrets::Mask)?;

    let mut times = Vec::new();
    let mut findings = Vec::new();
    for _ in 0..3 {
        let started = Instant::now();
        findings = drift::audit(&store, &scope, &store.settings()?.drift.ignore)?;
        times.push(started.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    let of = |kind: Kind| findings.iter().filter(|f| f.kind == kind).count();
    let out = json!({
        "profile": if cfg!(debug_assertions) { "debug" } else { "release" },
        "memories": report.stored + report.duplicates,
        "audit_ms_median": times[1],
        "audit_ms": times,
        "stale": of(Kind::Stale),
        "conflict": of(Kind::Conflict),
        "duplicate": of(Kind::Duplicate),
    });
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}

/// `count` import lines with distinct bodies for project `key`, one minute apart.
fn corpus(count: usize, key: &str) -> String {
    let mut bodies = std::collections::HashSet::new();
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n as u64) as usize
    };
    let mut out = String::new();
    let mut i = 0;
    while bodies.len() < count {
        i += 1;
        let service = SERVICES[next(SERVICES.len())];
        let shard = next(40);
        let body = match next(6) {
            0 | 1 => {
                let (setting, unit) = SETTINGS[next(SETTINGS.len())];
                let value = [2, 3, 5, 10, 20, 30, 50, 100, 250, 1000][next(10)];
                format!("The {service}-{shard} service {setting} is {value}{unit}.")
            }
            2 => {
                let tool = TOOLS[next(TOOLS.len())];
                let purpose = PURPOSES[next(PURPOSES.len())];
                if next(3) == 0 {
                    format!("We no longer use {tool} for {purpose} in {service}-{shard}.")
                } else {
                    format!("We use {tool} for {purpose} in {service}-{shard}.")
                }
            }
            3 => format!(
                "The {service}-{shard} handler lives in src/{service}/handler{}.rs; see the tests.",
                next(5)
            ),
            4 => format!(
                "{service}-{shard} listens on port {} locally; Node {} for its tooling.",
                8000 + next(100),
                [18, 20, 22][next(3)]
            ),
            _ => format!(
                "Note {i}: when {service}-{shard} deploys fail, check the migration lock first."
            ),
        };
        if !bodies.insert(body.clone()) {
            continue;
        }
        let minute = bodies.len() as i64;
        let line = json!({
            "body": body,
            "project": key,
            "source": "generated",
            "created_at": common::minute_stamp(minute),
        });
        out.push_str(&line.to_string());
        out.push('\n');
    }
    out
}
