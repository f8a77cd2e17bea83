//! `synapse remember`: store a memory, or name the one it repeats.

use anyhow::Result;
use serde_json::json;

use super::Place;
use crate::record::{self, Recorded, Recording, Shared};
use crate::store::write::NewMemory;
use crate::store::Scope;

#[derive(Debug, clap::Args)]
#[command(mut_arg("project", |a| a
    .help("Store it in this project (a folder or a key) instead of the current folder's")
    .conflicts_with("global")))]
pub struct Args {
    /// The memory's text; `-` or nothing reads standard input.
    text: Vec<String>,
    #[command(flatten)]
    place: Place,
    /// Store it as a global memory, visible from every project.
    #[arg(long)]
    global: bool,
    /// A label saying where it came from.
    #[arg(long, default_value = "cli")]
    source: String,
    /// Mark this older memory as replaced by the new one (repeatable; each is replaced once).
    #[arg(long = "supersedes", value_name = "ID")]
    supersedes: Vec<i64>,
    /// Store the text as given, even the parts that look like secrets (keys, tokens,
    /// passwords), which are otherwise replaced by `[secret]`.
    #[arg(long)]
    allow_secrets: bool,
}

pub fn run(args: Args, json: bool) -> Result<()> {
    let body = if args.text.is_empty() || args.text == ["-"] {
        super::read_stdin("the memory")?
    } else {
        args.text.join(" ")
    };
    let (mut store, visible) = args.place.open_to_add()?;
    let home = if args.global {
        Scope::global()
    } else {
        visible.clone()
    };
    // A new memory of the current folder's project is shared when its checkout says so.
    let here = args.place.project.is_none() && !args.global;
    let checkout = if here {
        crate::team::checkout(&super::here()?)
    } else {
        None
    };
    let recording = Recording {
        memory: NewMemory {
            body,
            source: args.source,
            project: home.key().map(str::to_owned),
            created_at: None,
            secrets: super::secrets(args.allow_secrets),
        },
        supersedes: &args.supersedes,
        checkout: checkout.as_deref(),
    };
    let (outcome, shared) = match record::remember(&mut store, &visible, recording)? {
        Recorded::Stored { outcome, shared } => (outcome, shared),
        Recorded::Spooled if json => {
            return super::print_json(&json!({"id": null, "duplicate_of": null, "spooled": true}))
        }
        Recorded::Spooled => {
            outln!("{}", record::SPOOLED);
            return Ok(());
        }
    };
    let id = outcome.id;
    let ignore = &store.settings()?.drift.ignore;
    let drift = crate::drift::of_remembered(&store, &visible, &outcome, ignore)?;
    let similar = record::similar(&store, &visible, &outcome)?;
    if json {
        return super::print_json(&json!({
            "id": id,
            "duplicate_of": outcome.duplicate.then_some(id),
            "superseded": outcome.superseded,
            "masked": outcome.masked,
            // The memory is stored either way: a share that fails is reported, not an error.
            "shared": match &shared { Shared::Yes(event) => Some(&event.uid), _ => None },
            "not_shared": match &shared { Shared::Failed(why) => Some(why), _ => None },
            "drift": drift,
            "similar": similar,
        }));
    }
    if outcome.duplicate {
        outln!("already remembered as {id}; nothing stored");
    } else {
        outln!("remembered as {id}");
    }
    if let Some(line) = outcome.masked_line() {
        outln!("{line}; `--allow-secrets` stores text as given");
    }
    for old in &outcome.superseded {
        outln!("{old} is now superseded by {id}");
    }
    if let Some(line) = shared.line() {
        outln!("{line}");
    }
    for finding in &drift {
        outln!("{}", finding.about_new(id));
    }
    for near in &similar {
        outln!("{}", near.command_line(id));
    }
    Ok(())
}
