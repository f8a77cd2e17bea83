//! `synapse import FILE`: load memories from JSON Lines; one bad line and nothing is stored.

use std::io::Read;
use std::path::PathBuf;

use anyhow::{Context, Result};

use super::{secrets, Place};

#[derive(Debug, clap::Args)]
#[command(mut_arg("project", |a| a.help(
    "Project for lines without a `project` field (a folder or a key; default: this folder's)"
)))]
pub struct Args {
    /// A JSON Lines file, or `-` for standard input.
    file: PathBuf,
    #[command(flatten)]
    place: Place,
    /// Store bodies as given, even the parts that look like secrets (otherwise masked).
    #[arg(long)]
    allow_secrets: bool,
}

/// Imports longer than this many lines say first how long they will hold the store's lock.
const NOTICE_LINES: usize = 20_000;
/// About how many lines an import stores a second, for that notice.
const LINES_PER_SECOND: usize = 10_000;

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
    let (mut store, scope) = args.place.open_to_add()?;
    let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
    if lines > NOTICE_LINES {
        eprintln!(
            "synapse: importing {lines} memories in one transaction holds the store's write lock \
             for about {} s; other writes wait and hooks keep their lessons in the spool until then",
            lines.div_ceil(LINES_PER_SECOND)
        );
    }
    let report = store.import(&text, &scope, secrets(args.allow_secrets))?;
    if json {
        return super::print_json(&report);
    }
    outln!(
        "imported {} memories ({} duplicates skipped)",
        report.stored,
        report.duplicates
    );
    if report.masked > 0 {
        outln!(
            "masked {} secrets as [secret]; `--allow-secrets` stores text as given",
            report.masked
        );
    }
    Ok(())
}
