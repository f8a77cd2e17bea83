//! `synapse export [FILE]`: every memory visible from here, in every state, as JSON Lines.

use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;

use anyhow::{Context, Result};
use serde_json::json;

use crate::store::{Scope, Store};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Write here instead of standard output.
    file: Option<PathBuf>,
    /// Export this project (a folder or a key) instead of the current folder's.
    #[arg(long)]
    project: Option<String>,
}

pub fn run(args: Args, json: bool) -> Result<()> {
    let scope = Scope::resolve(args.project.as_deref())?;
    let store = Store::open_default()?;
    let Some(path) = args.file else {
        store.export(&scope, &mut std::io::stdout().lock())?;
        return Ok(());
    };
    let file =
        File::create(&path).with_context(|| format!("could not create {}", path.display()))?;
    let count = store.export(&scope, &mut BufWriter::new(file))?;
    if json {
        return super::print_json(&json!({ "exported": count, "file": path }));
    }
    println!("exported {count} memories to {}", path.display());
    Ok(())
}
