//! What the example programs share: the generated fixture store of `retrieval` and `mcp`, and
//! their timing helpers. (Each example compiles this module on its own and uses some of it.)
#![allow(dead_code)]

use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde_json::json;

/// A term in every thousandth fixture memory.
pub const SELECTIVE: &str = "zephyrine";
/// A term in every fixture memory.
pub const COMMON: &str = "fixture";

/// A made-up creation time for the `minute`-th generated memory: one minute apart, in 2026.
pub fn minute_stamp(minute: i64) -> String {
    format!(
        "2026-{:02}-{:02}T{:02}:{:02}:00Z",
        1 + (minute / 43_200) % 12,
        1 + (minute / 1_440) % 28,
        (minute / 60) % 24,
        minute % 60
    )
}

pub fn arg(args: &[String], at: usize, default: usize, max: usize, name: &str) -> Result<usize> {
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
pub fn measure(
    name: &str,
    iterations: usize,
    mut op: impl FnMut() -> Result<usize>,
) -> Result<serde_json::Value> {
    measure_timed(name, iterations, || {
        let started = Instant::now();
        let bytes = op()?;
        Ok((ms(started), bytes))
    })
}

/// `measure` for an operation that times itself (the part worth timing) and returns the
/// milliseconds with the response's size.
pub fn measure_timed(
    name: &str,
    iterations: usize,
    mut op: impl FnMut() -> Result<(f64, usize)>,
) -> Result<serde_json::Value> {
    let (_, response_bytes) = op()?;
    let mut times = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        times.push(op()?.0);
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

pub fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

/// `count` memories as import lines: about 240 bytes of made-up words each, all holding
/// `COMMON`, every thousandth holding `SELECTIVE`, dated one minute apart.
pub fn corpus(count: usize) -> String {
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
            "created_at": minute_stamp(minute),
        });
        out.push_str(&line.to_string());
        out.push('\n');
    }
    out
}
