//! `synapse history ID`: every recorded change to a memory.

use anyhow::Result;
use serde_json::json;

use crate::store::Store;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The memory.
    id: i64,
    /// Work in this project (a folder or a key) instead of the current folder's.
    #[arg(long)]
    project: Option<String>,
}

pub fn run(args: Args, json: bool) -> Result<()> {
    let store = Store::open_default()?;
    let scope = store.scope_named(args.project.as_deref())?;
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
