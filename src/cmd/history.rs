//! `synapse history ID`: every recorded change to a memory.

use anyhow::Result;
use serde_json::json;

use super::Target;

pub fn run(args: Target, json: bool) -> Result<()> {
    let (store, scope) = args.place.open()?;
    let memory = store.require(args.id, &scope)?;
    let entries = store.history(args.id, &scope)?;
    if json {
        return super::print_json(&json!({ "memory": memory, "history": entries }));
    }
    outln!("{}: {}", memory.id, super::headline(&memory.body, 100));
    for e in &entries {
        let other = e.other_id.map(|o| format!(" ({o})")).unwrap_or_default();
        outln!("  {}  {}{other}", e.at, e.action);
    }
    Ok(())
}
