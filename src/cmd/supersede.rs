//! `synapse supersede OLD... NEW`: mark memories as replaced by a newer one.

use anyhow::{Context, Result};
use serde_json::json;

use super::Place;

#[derive(Debug, clap::Args)]
#[command(override_usage = "synapse supersede [OPTIONS] OLD... NEW")]
pub struct Args {
    /// The memories that are out of date, then the one that replaces them (the last id).
    #[arg(required = true, num_args = 2.., value_name = "ID")]
    ids: Vec<i64>,
    #[command(flatten)]
    place: Place,
}

/// Every old id is checked before any is marked, in one write: one that cannot be superseded
/// (unknown here, already hidden, global under a project memory) leaves all of them as they were.
pub fn run(args: Args, json: bool) -> Result<()> {
    let Some((&new, olds)) = args.ids.split_last() else {
        anyhow::bail!("name the memories that are out of date, then the one that replaces them");
    };
    let mut olds = olds.to_vec();
    let mut seen = std::collections::HashSet::new();
    olds.retain(|id| seen.insert(*id));
    let (mut store, scope) = args.place.open()?;
    store
        .supersede_all(&olds, new, &scope)
        .with_context(|| match olds.as_slice() {
            [_] => "nothing was changed".to_owned(),
            _ => format!("none of the {} memories was superseded", olds.len()),
        })?;
    if json {
        let done: Vec<serde_json::Value> = olds
            .iter()
            .map(|old| json!({ "superseded": old, "by": new }))
            .collect();
        return match done.as_slice() {
            [one] => super::print_json(one),
            _ => super::print_json(&json!({ "results": done })),
        };
    }
    for old in &olds {
        outln!("{old} is now superseded by {new} (undo: synapse restore {old})");
    }
    if olds.len() > 1 {
        let all: Vec<String> = olds.iter().map(i64::to_string).collect();
        outln!("undo all: synapse restore {}", all.join(" "));
    }
    Ok(())
}
