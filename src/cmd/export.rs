//! `synapse export [FILE]`: every memory visible from here, in every state, as JSON Lines.

use std::io::BufWriter;
use std::path::PathBuf;

use anyhow::{Context, Result};
use serde_json::json;

use super::Place;

#[derive(Debug, clap::Args)]
#[command(mut_arg("project", |a| a.help(
    "Export this project (a folder or a key) instead of the current folder's"
)))]
pub struct Args {
    /// Write here instead of standard output (created 0600, replaced whole when complete).
    file: Option<PathBuf>,
    #[command(flatten)]
    place: Place,
}

pub fn run(args: Args, json: bool) -> Result<()> {
    let (store, scope) = args.place.open_to_read()?;
    let Some(path) = args.file else {
        store.export(&scope, &mut std::io::stdout().lock())?;
        return Ok(());
    };
    let mut file = BufWriter::new(crate::files::AtomicFile::create(&path)?);
    let count = store.export(&scope, &mut file)?;
    file.into_inner()
        .map_err(|e| e.into_error())
        .with_context(|| format!("could not write {}", path.display()))?
        .commit()?;
    if json {
        return super::print_json(&json!({ "exported": count, "file": path }));
    }
    outln!("exported {count} memories to {}", path.display());
    Ok(())
}
