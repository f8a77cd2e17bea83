//! `synapse read`: one page of a memory's exact text.

use anyhow::{bail, Result};
use serde_json::json;

use super::Place;
use crate::config::Budget;

#[derive(Debug, clap::Args)]
#[command(mut_arg("project", |a| a.help(
    "Read in this project (a folder or a key) instead of the current folder's"
)))]
pub struct Args {
    /// The memory's id.
    id: i64,
    /// Byte offset to start from: 0, or the `next` of the previous page (as `--offset`).
    #[arg(value_name = "OFFSET", conflicts_with = "offset")]
    at: Option<usize>,
    /// Byte offset to start from: 0, or the `next` of the previous page.
    #[arg(long, default_value_t = 0)]
    offset: usize,
    #[command(flatten)]
    place: Place,
    /// Sets the page size (lean 2,800 bytes; balanced and full 6,000).
    #[arg(long, value_enum, default_value_t)]
    budget: Budget,
}

pub fn run(args: Args, json: bool) -> Result<()> {
    let (store, scope) = args.place.open_to_read()?;
    let page = crate::read::read(
        &store,
        &scope,
        args.id,
        args.at.unwrap_or(args.offset),
        args.budget.page_bytes(),
    )?;
    if json {
        return super::print_json(&json!({ "memory": page }));
    }
    let Some(page) = page else {
        bail!(
            "no readable memory {} in this scope (it may be missing, superseded or forgotten)",
            args.id
        );
    };
    out!("{}", page.body);
    if !page.body.ends_with('\n') {
        outln!();
    }
    let end = page.offset + page.body.len();
    match page.next {
        Some(next) => outln!(
            "--- memory {}: bytes {}..{end} of {}; more: synapse read {} --offset {next}",
            page.id,
            page.offset,
            page.total,
            page.id
        ),
        None => outln!(
            "--- memory {}: bytes {}..{end} of {} (end) · source: {}",
            page.id,
            page.offset,
            page.total,
            page.source
        ),
    }
    Ok(())
}
