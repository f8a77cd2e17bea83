//! `synapse history ID`: every recorded change to a memory.

use anyhow::Result;
use serde_json::json;

use super::Target;

pub fn run(args: Target, json: bool) -> Result<()> {
    let (store, scope) = args.place.open_to_read()?;
    let memory = store.require(args.id, &scope)?;
    let entries = store.history(args.id, &scope)?;
    if json {
        return super::print_json(&json!({ "memory": memory, "history": entries }));
    }
    outln!("{}: {}", memory.id, super::headline(&memory.body, 100));
    for e in &entries {
        let other = match (e.action.as_str(), e.other_id) {
            ("import", Some(batch)) => format!(" (batch {batch})"),
            (_, Some(other)) => format!(" ({other})"),
            (_, None) => String::new(),
        };
        outln!("  {}  {}{other}", e.at, e.action);
    }
    Ok(())
}
