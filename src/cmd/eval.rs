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
    #[arg(long, conflicts_with = "compare")]
    plain_bm25: bool,
    /// Score Synapse and plain bm25 on the same cases and print them side by side, with the
    /// paired difference and its bootstrap 95% interval.
    #[arg(long)]
    compare: bool,
    /// Score one half of the cases (split by a fixed seed): tune on `dev`, report `test`.
    #[arg(long, value_enum)]
    half: Option<crate::eval::Half>,
    /// Search the trigram index only for words the word index lacks, as the hooks do.
    #[arg(long)]
    no_substrings: bool,
    /// Count a term matching more memories than this as common (the hooks use 250).
    #[arg(long, default_value_t = crate::recall::lanes::COMMON_DF)]
    common: i64,
}

pub fn run(args: Args, json: bool) -> Result<()> {
    let mut cases = crate::eval::load(&args.cases)?;
    if let Some(half) = args.half {
        cases = crate::eval::half(cases, half);
    }
    let store = super::open_to_read()?;
    let options = Options {
        budget: args.budget,
        limit: args.limit,
        spare: 0,
        explain: false,
        floor: !args.no_floor,
        unasked: false,
        // Eval scores the ranking; drift findings do not change it.
        drift: false,
        ignore: crate::config::Ignore::default(),
        substrings: !args.no_substrings,
        common: args.common,
    };
    if args.compare {
        return compare(&store, &cases, &options, json);
    }
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

/// `--compare`: both methods on the same cases, and how sure the difference is.
fn compare(
    store: &Store,
    cases: &[crate::eval::Case],
    options: &Options,
    json: bool,
) -> Result<()> {
    use crate::eval::{score, Method, Report};
    let (synapse, _) = score(store, cases, options, Method::Recall, false)?;
    let (plain, _) = score(store, cases, options, Method::PlainBm25, false)?;
    let paired = crate::eval::compare(&synapse, &plain);
    if json {
        return super::print_json(&serde_json::json!({
            "synapse": Report::of(&synapse),
            "plain_bm25": Report::of(&plain),
            "paired": paired,
        }));
    }
    let report = Report::of(&synapse);
    outln!(
        "{} cases ({} answerable, {} unanswerable)",
        report.cases,
        report.answerable,
        report.unanswerable
    );
    outln!("measure   synapse  plain bm25  difference  95% interval");
    for p in &paired {
        outln!(
            "{:<8} {:>8.3} {:>11.3} {:>+11.3}  [{:+.3}, {:+.3}]",
            p.measure,
            p.first,
            p.second,
            p.difference,
            p.low,
            p.high
        );
    }
    Ok(())
}
