//! `synapse supersede OLD NEW`: mark a memory as replaced by a newer one.

use anyhow::Result;
use serde_json::json;

use super::Place;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The memory that is out of date.
    old: i64,
    /// The memory that replaces it.
    new: i64,
    #[command(flatten)]
    place: Place,
}

pub fn run(args: Args, json: bool) -> Result<()> {
    let (mut store, scope) = args.place.open()?;
    store.supersede(args.old, args.new, &scope)?;
    if json {
        return super::print_json(&json!({ "superseded": args.old, "by": args.new }));
    }
    outln!(
        "{} is now superseded by {} (undo: synapse restore {})",
        args.old,
        args.new,
        args.old
    );
    Ok(())
}
