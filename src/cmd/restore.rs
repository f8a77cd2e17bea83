//! `synapse restore ID`: undo the latest forget or supersede.

use anyhow::Result;
use serde_json::json;

use crate::store::Store;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The memory to bring back.
    id: i64,
    /// Work in this project (a folder or a key) instead of the current folder's.
    #[arg(long)]
    project: Option<String>,
}

pub fn run(args: Args, json: bool) -> Result<()> {
    let mut store = Store::open_default()?;
    let scope = store.scope_named(args.project.as_deref())?;
    let undone = store.restore(args.id, &scope)?;
    if json {
        return super::print_json(&json!({ "restored": args.id, "undid": undone }));
    }
    outln!("restored {} (undid its {undone})", args.id);
    Ok(())
}
