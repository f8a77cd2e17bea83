//! `synapse supersede OLD NEW`: mark a memory as replaced by a newer one.

use anyhow::Result;
use serde_json::json;

use crate::store::Store;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The memory that is out of date.
    old: i64,
    /// The memory that replaces it.
    new: i64,
    /// Work in this project (a folder or a key) instead of the current folder's.
    #[arg(long)]
    project: Option<String>,
}

pub fn run(args: Args, json: bool) -> Result<()> {
    let mut store = Store::open_default()?;
    let scope = store.scope_named(args.project.as_deref())?;
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
