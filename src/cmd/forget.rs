//! `synapse forget ID`: hide a memory from recall and reading.

use anyhow::Result;
use serde_json::json;

use super::Place;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The memory to hide.
    id: i64,
    #[command(flatten)]
    place: Place,
}

pub fn run(args: Args, json: bool) -> Result<()> {
    let (mut store, scope) = args.place.open()?;
    store.forget(args.id, &scope)?;
    if json {
        return super::print_json(&json!({ "forgotten": args.id }));
    }
    outln!("forgot {} (undo: synapse restore {})", args.id, args.id);
    Ok(())
}
