//! `synapse recall`: ranked memories for a question, within a budget.

use anyhow::Result;

use super::Place;
use crate::config::Budget;
use crate::recall::{self, Options, Recalled};

#[derive(Debug, clap::Args)]
#[command(mut_arg("project", |a| a.help(
    "Search this project (a folder or a key) instead of the current folder's"
)))]
pub struct Args {
    /// The question; its words are OR terms (no search syntax is interpreted). `-` reads it
    /// from standard input.
    query: Vec<String>,
    #[command(flatten)]
    place: Place,
    /// How much to return.
    #[arg(long, value_enum, default_value_t)]
    budget: Budget,
    /// Return at most this many results (below the budget's count).
    #[arg(long)]
    limit: Option<usize>,
    /// Show every candidate: lanes, scores, coverage, and why it was cut.
    #[arg(long)]
    explain: bool,
}

pub fn run(args: Args, json: bool) -> Result<()> {
    if args.limit == Some(0) {
        anyhow::bail!(
            "--limit 0 asks for no results; give 1 or more, or leave it out for the budget's count"
        );
    }
    let (store, scope) = args.place.open_to_read()?;
    let options = Options {
        budget: args.budget,
        limit: args.limit,
        explain: args.explain,
        ignore: store.settings()?.drift.ignore.clone(),
        ..Options::default()
    };
    let query = if args.query == ["-"] {
        super::read_stdin("the question")?
    } else {
        args.query.join(" ")
    };
    let recalled = recall::recall(&store, &scope, &query, &options)?;
    if json {
        return super::print_json(&recalled);
    }
    print_human(&recalled)
}

fn print_human(r: &Recalled) -> Result<()> {
    if let Some(explain) = &r.explain {
        let kept: Vec<&str> = r.terms.kept.iter().map(|t| t.word.as_str()).collect();
        outln!("terms kept: {}", kept.join(" "));
        outln!("terms dropped: {}", r.terms.dropped.join(" "));
        if !r.terms.skipped.is_empty() {
            outln!("terms skipped: {}", r.terms.skipped.join(" "));
        }
        for e in explain {
            let lane = |p: Option<crate::recall::fuse::LanePlace>| {
                p.map_or("-".to_owned(), |p| format!("#{} ({:.2})", p.rank, p.bm25))
            };
            outln!(
                "  {:>6}  words {:<14} trigrams {:<14} fused {:.4}  coverage {} [{}]  {}",
                e.id,
                lane(e.words),
                lane(e.trigrams),
                e.fused,
                e.coverage,
                e.held.join(" "),
                e.outcome
            );
        }
        outln!();
    }
    if !r.searched {
        outln!(
            "{}; the newest memories instead:",
            nothing_searched(&r.query)
        );
    }
    if r.results.is_empty() {
        outln!("no memories match");
        return Ok(());
    }
    for hit in &r.results {
        let date = hit.created_at.date();
        let abridged = if hit.abridged {
            format!(" · abridged, {} bytes: synapse read {}", hit.bytes, hit.id)
        } else {
            String::new()
        };
        outln!("[{}] {date} · {}{abridged}", hit.id, hit.source);
        for line in hit.text.lines() {
            outln!("    {line}");
        }
    }
    if !r.drift.is_empty() {
        outln!("\ndrift (nothing was changed; `synapse supersede OLD NEW` settles a pair):");
        for finding in &r.drift {
            outln!("  {}", finding.describe());
        }
    }
    Ok(())
}

/// Why a question was not searched.
fn nothing_searched(query: &str) -> String {
    if query.trim().is_empty() {
        "no question given".to_owned()
    } else {
        format!("nothing to search for in {query:?} (no words, or only ones too common to search)")
    }
}
