//! `synapse forget ID`: hide a memory from recall and reading.

use anyhow::Result;
use serde_json::json;

use super::Target;

pub fn run(args: Target, json: bool) -> Result<()> {
    let (mut store, scope) = args.place.open()?;
    store.forget(args.id, &scope)?;
    if json {
        return super::print_json(&json!({ "forgotten": args.id }));
    }
    outln!("forgot {} (undo: synapse restore {})", args.id, args.id);
    Ok(())
}
