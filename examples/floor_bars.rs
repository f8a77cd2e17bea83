//! The evidence floor's bars on the labeled sets' `test` halves, as figures: what the floor costs
//! in answers, how much it says when nothing answers, and how often it ranks an answer first,
//! each beside plain bm25 or recall without the floor, and whether the bar is met.
//!
//! `cargo run --release --example floor_bars` prints one line per set and bar. The bars the
//! floor meets are held by tests/bias.rs; this prints all of them, met or not.

use std::path::{Path, PathBuf};

use anyhow::{ensure, Context, Result};
use synapse::config::Budget;
use synapse::eval::{self, Half, Method, Report};
use synapse::recall::Options;
use synapse::secrets::Secrets;
use synapse::store::{Scope, Store};

const SETS: [&str; 2] = ["coding", "platform"];

fn options(floor: bool) -> Options {
    Options {
        budget: Budget::Balanced,
        limit: None,
        explain: false,
        floor,
        drift: false,
        ..Options::default()
    }
}

fn met(yes: bool) -> &'static str {
    if yes {
        "met"
    } else {
        "NOT MET"
    }
}

fn main() -> Result<()> {
    for name in SETS {
        let set: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("eval")
            .join(name);
        let dir = tempfile::tempdir()?;
        let mut store = Store::open(dir.path())?;
        let path = set.join("memories.jsonl");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("could not read {}", path.display()))?;
        store.import(&text, &Scope::global(), Secrets::Mask)?;
        let cases = eval::half(eval::load(&set.join("cases.toml"))?, Half::Test);
        ensure!(!cases.is_empty(), "{name}: no cases in the test half");
        let run = |floor: bool, method: Method| -> Result<Report> {
            eval::run(&store, &cases, &options(floor), method, false)
        };
        let floored = run(true, Method::Recall)?;
        let unfloored = run(false, Method::Recall)?;
        let plain = run(true, Method::PlainBm25)?;
        let answerable = floored.answerable as f64;
        println!(
            "{name}: answers found with the floor {:.0} of {answerable}, without it {:.0} \
             (bar: none lost): {}",
            floored.found * answerable,
            unfloored.found * answerable,
            met(floored.found >= unfloored.found)
        );
        println!(
            "{name}: mean surplus beside an answer {:.3} with the floor, {:.3} without \
             (bar: less): {}",
            floored.surplus,
            unfloored.surplus,
            met(floored.surplus < unfloored.surplus)
        );
        println!(
            "{name}: noise when nothing answers {:.3}, plain bm25 {:.3}, ratio {:.2} \
             (bar: at most 0.40): {}",
            floored.noise,
            plain.noise,
            floored.noise / plain.noise,
            met(floored.noise <= plain.noise * 0.4)
        );
        println!(
            "{name}: top1 {:.3} against plain bm25's {:.3}, found {:.3} against {:.3} \
             (bar: at least as often): {}",
            floored.top1,
            plain.top1,
            floored.found,
            plain.found,
            met(floored.top1 >= plain.top1 && floored.found >= plain.found)
        );
    }
    Ok(())
}
