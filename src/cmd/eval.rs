//! `synapse eval CASES.toml`: score recall on labeled questions.

use std::path::PathBuf;

use anyhow::Result;

use crate::config::Budget;
use crate::recall::Options;
use crate::store::Store;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The cases file (TOML, `[[case]]` tables).
    cases: PathBuf,
    #[arg(long, value_enum, default_value_t)]
    budget: Budget,
    /// Return at most this many results per question.
    #[arg(long)]
    limit: Option<usize>,
    /// List every case not answered first, and every unanswerable one that returned something.
    #[arg(long)]
    verbose: bool,
    /// Turn the coverage floor off, to measure what it does.
    #[arg(long)]
    no_floor: bool,
    /// Score a plain FTS5 bm25 OR-query of every word instead (top N by the budget), as a
    /// reference point.
    #[arg(long)]
    plain_bm25: bool,
    /// Search the trigram index only for words the word index lacks, as the hooks do.
    #[arg(long)]
    no_substrings: bool,
    /// Count a term matching more memories than this as common (the hooks use 250).
    #[arg(long, default_value_t = crate::recall::lanes::COMMON_DF)]
    common: i64,
}

pub fn run(args: Args, json: bool) -> Result<()> {
    let cases = crate::eval::load(&args.cases)?;
    let store = Store::open_default()?;
    let options = Options {
        budget: args.budget,
        limit: args.limit,
        spare: 0,
        explain: false,
        floor: !args.no_floor,
        // Eval scores the ranking; drift findings do not change it.
        drift: false,
        substrings: !args.no_substrings,
        common: args.common,
    };
    let method = if args.plain_bm25 {
        crate::eval::Method::PlainBm25
    } else {
        crate::eval::Method::Recall
    };
    let report = crate::eval::run(&store, &cases, &options, method, args.verbose)?;
    if json {
        return super::print_json(&report);
    }
    for miss in report.misses.iter().flatten() {
        let rank = miss
            .rank
            .map_or("not found".to_owned(), |r| format!("rank {r}"));
        outln!("miss ({rank}): {}", miss.query);
        for e in &miss.expect {
            outln!("    want: {}", crate::text::cut_chars(e, 100));
        }
        for (id, text) in &miss.returned {
            outln!("    got [{id}] {text}");
        }
    }
    outln!(
        "{} cases ({} answerable): top1 {:.3}  found {:.3}  mrr {:.3}  survived {:.3}  noise {:.2}  surplus {:.2}",
        report.cases,
        report.answerable,
        report.top1,
        report.found,
        report.mrr,
        report.survived,
        report.noise,
        report.surplus
    );
    Ok(())
}
