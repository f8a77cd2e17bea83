//! `synapse read`: one page of a memory's text, shown safely (`text::visible`, as all output
//! for a person); `--raw`, the stored bytes exactly, from the offset to the end; `--json`, the
//! page's exact text in JSON (control characters as JSON escapes), as the paging contract says.

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
    /// Write the stored bytes exactly, from the offset to the end, and nothing else (control
    /// characters and escape sequences included: for a file or a program, not a terminal).
    #[arg(long)]
    raw: bool,
}

/// How many bytes `--raw` reads at a time: a memory of any size is written without being held
/// whole.
const RAW_CHUNK: usize = 1 << 20;

pub fn run(args: Args, json: bool) -> Result<()> {
    if args.raw && json {
        bail!("--raw writes the stored bytes alone; --json a page in JSON: give one of them");
    }
    let (store, scope) = args.place.open_to_read()?;
    if args.raw {
        return raw(&store, &scope, args.id, args.at.unwrap_or(args.offset));
    }
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

/// Write memory `id`'s stored bytes from `offset` to the end, exactly, a chunk at a time.
fn raw(
    store: &crate::store::Store,
    scope: &crate::store::Scope,
    id: i64,
    offset: usize,
) -> Result<()> {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    let mut at = Some(offset);
    while let Some(offset) = at {
        let Some(page) = crate::read::read(store, scope, id, offset, RAW_CHUNK)? else {
            bail!("no readable memory {id} in this scope (it may be missing, superseded or forgotten)");
        };
        stdout.write_all(page.body.as_bytes())?;
        at = page.next;
    }
    stdout.flush()?;
    Ok(())
}
