//! `synapse remember`: store a memory, or name the one it repeats.

use std::io::Read;

use anyhow::{Context, Result};
use serde_json::json;

use crate::drift::{Finding, Kind};
use crate::store::write::{NewMemory, Remembered};
use crate::store::{Scope, Store};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The memory's text; `-` or nothing reads standard input.
    text: Vec<String>,
    /// Store it in this project (a folder or a key) instead of the current folder's.
    #[arg(long, conflicts_with = "global")]
    project: Option<String>,
    /// Store it as a global memory, visible from every project.
    #[arg(long)]
    global: bool,
    /// A label saying where it came from.
    #[arg(long, default_value = "cli")]
    source: String,
    /// Mark this older memory as replaced by the new one (repeatable).
    #[arg(long = "supersedes", value_name = "ID")]
    supersedes: Vec<i64>,
}

pub fn run(args: Args, json: bool) -> Result<()> {
    let body = if args.text.is_empty() || args.text == ["-"] {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("could not read the memory from standard input")?;
        text
    } else {
        args.text.join(" ")
    };
    let visible = Scope::resolve(args.project.as_deref())?;
    let home = if args.global {
        Scope::global()
    } else {
        visible.clone()
    };
    let mut store = Store::open_default()?;
    let memory = NewMemory {
        body,
        source: args.source,
        project: home.key().map(str::to_owned),
        created_at: None,
    };
    let outcome = store.remember(&memory, &args.supersedes, &visible)?;
    let (duplicate_of, drift) = match outcome {
        Remembered::Duplicate(id) => (Some(id), Vec::new()),
        Remembered::Stored(id) => {
            let stored = store.require(id, &visible)?;
            (
                None,
                crate::drift::check(&store, &visible, &[stored], crate::drift::Partners::Older)?,
            )
        }
    };
    if json {
        return super::print_json(&json!({
            "id": outcome.id(),
            "duplicate_of": duplicate_of,
            "superseded": args.supersedes,
            "drift": drift,
        }));
    }
    match outcome {
        Remembered::Stored(id) => println!("remembered as {id}"),
        Remembered::Duplicate(id) => println!("already remembered as {id}; nothing stored"),
    }
    for old in args.supersedes {
        println!("{old} is now superseded by {}", outcome.id());
    }
    for finding in &drift {
        println!("{}", report(finding, outcome.id()));
    }
    Ok(())
}

/// A finding about the memory just stored, from its side.
fn report(finding: &Finding, new: i64) -> String {
    match (finding.kind, finding.newer) {
        (Kind::Conflict, Some(n)) if n == new => format!(
            "it contradicts {} ({}); both are kept: `synapse supersede {} {new}` if it replaces it",
            finding.id, finding.why, finding.id
        ),
        (Kind::Duplicate, Some(n)) if n == new => format!(
            "it repeats {} (same text once case and punctuation are ignored); \
             `synapse forget {new}` if one is enough",
            finding.id
        ),
        (Kind::Stale, _) if finding.id == new => {
            format!("it names a path that does not exist: {}", finding.why)
        }
        _ => finding.describe(),
    }
}
