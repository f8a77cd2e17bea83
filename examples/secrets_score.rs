//! The labeled sets' figures, for the record: `cargo run --release --example secrets_score`
//! prints, per set, secrets masked / secrets and look-alikes changed / look-alikes, and the
//! time of `mask` on a 4 KB lesson with no secret (the first call, then the median). Totals only, never a case, so that the
//! held-out halves can be measured without being read.

use std::time::Instant;

use synapse::secrets::mask;

#[path = "../tests/fixtures/secrets/corpus.rs"]
mod secrets_corpus;

use secrets_corpus::{corpus, leaks};

fn main() {
    let root = env!("CARGO_MANIFEST_DIR");
    let sets: Vec<String> = std::env::args().skip(1).collect();
    // Timed first, so that the first call is the process's first. A 4 KB lesson with no secret:
    // the README's prose, cut at a line end.
    let readme = std::fs::read_to_string(format!("{root}/README.md")).expect("README.md");
    let mut lesson = String::new();
    for line in readme.lines() {
        if lesson.len() + line.len() > 4096 {
            break;
        }
        lesson.push_str(line);
        lesson.push('\n');
    }
    // The first call pays for loading the catalogue and compiling the rules the lesson's words
    // start, as each hook process does once.
    let start = Instant::now();
    std::hint::black_box(mask(&lesson));
    let first = start.elapsed().as_secs_f64() * 1e6;
    let mut times: Vec<f64> = (0..201)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(mask(std::hint::black_box(&lesson)));
            start.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    for name in &sets {
        let corpus = corpus(name);
        let masked = corpus
            .secret
            .iter()
            .filter(|e| leaks(&e.text, &e.secrets, &mask(&e.text).text).is_empty())
            .count();
        let changed = corpus
            .lookalike
            .iter()
            .filter(|l| mask(&l.text).text != l.text)
            .count();
        let (n, m) = (corpus.secret.len(), corpus.lookalike.len());
        println!(
            "{name:6} masked {masked:3}/{n:3} ({:5.1}%)  changed {changed:2}/{m:3} ({:4.1}%)",
            masked as f64 * 100.0 / n as f64,
            changed as f64 * 100.0 / m as f64
        );
    }
    times.sort_by(f64::total_cmp);
    println!(
        "mask on a {} B lesson with no secret: first call {first:.0} µs, then median {:.0} µs, \
         p90 {:.0} µs; secrets found {}",
        lesson.len(),
        times[100],
        times[180],
        mask(&lesson).found.len()
    );
}
