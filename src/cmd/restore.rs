//! `synapse restore ID`: undo the latest forget or supersede.

use anyhow::Result;
use serde_json::json;

use super::Target;

pub fn run(args: Target, json: bool) -> Result<()> {
    let (mut store, scope) = args.place.open()?;
    let undone = store.restore(args.id, &scope)?;
    if json {
        return super::print_json(&json!({ "restored": args.id, "undid": undone }));
    }
    outln!("restored {} (undid its {undone})", args.id);
    Ok(())
}
