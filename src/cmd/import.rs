//! `synapse import FILE`: load memories from JSON Lines; one bad line and nothing is stored.

use std::io::Read;
use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::store::{Scope, Store};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A JSON Lines file, or `-` for standard input.
    file: PathBuf,
    /// Project for lines without a `project` field (a folder or a key; default: this folder's).
    #[arg(long)]
    project: Option<String>,
}

pub fn run(args: Args, json: bool) -> Result<()> {
    let text = if args.file.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("could not read standard input")?;
        text
    } else {
        std::fs::read_to_string(&args.file)
            .with_context(|| format!("could not read {}", args.file.display()))?
    };
    let scope = Scope::resolve(args.project.as_deref())?;
    let mut store = Store::open_default()?;
    let report = store.import(&text, &scope)?;
    if json {
        return super::print_json(&report);
    }
    println!(
        "imported {} memories ({} duplicates skipped)",
        report.stored, report.duplicates
    );
    Ok(())
}
