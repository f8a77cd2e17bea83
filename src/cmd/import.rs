//! `synapse import FILE`: load memories from JSON Lines, or with `--from` from Claude Code's own
//! memory and instruction files; one bad line or unreadable file and nothing is stored. Each import
//! is a batch that `synapse import --undo BATCH` takes back.

use std::io::Read;
use std::path::PathBuf;

use anyhow::{Context, Result};
use serde_json::json;

use super::{secrets, Place};
use crate::sources::import::{self, Kind};
use crate::store::import::ImportReport;

#[derive(Debug, clap::Args)]
#[command(mut_arg("project", |a| a.help(
    "Project to import into (a line's own `project` field wins) or to undo in; a folder or a \
     key (default: this folder's)"
)))]
pub struct Args {
    /// A JSON Lines file, or `-` for standard input; with `--from`, the folder or file to read.
    #[arg(required_unless_present = "undo")]
    file: Option<PathBuf>,
    /// Read Claude Code's own files instead of JSON Lines: an auto-memory folder (each topic file
    /// one memory), or one `AGENTS.md` or Markdown file (one memory per list item or paragraph).
    #[arg(long, value_enum, value_name = "KIND")]
    from: Option<Kind>,
    /// Take back the import that printed this batch number: forget its memories still live here
    /// (each one restorable with `synapse restore`).
    #[arg(long, value_name = "BATCH", conflicts_with_all = ["file", "from", "allow_secrets"])]
    undo: Option<i64>,
    #[command(flatten)]
    place: Place,
    /// Store bodies as given, even the parts that look like secrets (otherwise masked).
    #[arg(long)]
    allow_secrets: bool,
}

/// Without `--from`, a folder or a Markdown file is not what the user meant to give as JSON
/// Lines: say which `--from` reads it, rather than list every line as bad JSON.
fn refuse_markdown(file: &std::path::Path) -> Result<()> {
    let markdown = file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown"));
    if file.is_dir() {
        anyhow::bail!(
            "{} is a folder; an auto-memory folder of Claude Code's is imported with \
             `synapse import --from claude-memory {}`",
            file.display(),
            file.display()
        );
    }
    if markdown {
        let agents = file.file_name().is_some_and(|n| n == "AGENTS.md");
        anyhow::bail!(
            "{} is Markdown, not JSON Lines: `synapse import --from {} {}` imports one memory per \
             list item or paragraph",
            file.display(),
            if agents { "agents-md" } else { "markdown" },
            file.display()
        );
    }
    Ok(())
}

/// Imports longer than this many memories say first how long they will hold the store's lock.
const NOTICE_LINES: usize = 20_000;
/// About how many memories an import stores a second, for that notice.
const LINES_PER_SECOND: usize = 10_000;

pub fn run(args: Args, json: bool) -> Result<()> {
    if let Some(batch) = args.undo {
        return undo(batch, &args.place, json);
    }
    let file = args
        .file
        .as_deref()
        .context("give the file to import, or --undo BATCH")?;
    let secrets = secrets(args.allow_secrets);
    let mut read_already = false;
    let report = match args.from {
        None => {
            refuse_markdown(file)?;
            let text = if file.as_os_str() == "-" {
                let mut text = String::new();
                std::io::stdin()
                    .read_to_string(&mut text)
                    .context("could not read standard input")?;
                text
            } else {
                std::fs::read_to_string(file)
                    .with_context(|| format!("could not read {}", file.display()))?
            };
            let (mut store, scope) = args.place.open_to_add()?;
            notice(text.lines().filter(|l| !l.trim().is_empty()).count());
            store.import(&text, &scope, secrets)?
        }
        Some(kind) => {
            let (mut store, scope) = args.place.open_to_add()?;
            let here = super::here()?;
            let checkout = crate::team::checkout(&here);
            let place = crate::sources::Place::new(&scope, &here, checkout.as_deref());
            let mut notes = Vec::new();
            let memories = import::memories(kind, file, &place, secrets, &mut notes)?;
            for note in notes {
                eprintln!("synapse: {note}");
            }
            read_already = kind == Kind::ClaudeMemory
                && store.settings()?.sources.read
                && read_by_the_hooks(file, &scope);
            if read_already {
                // Folded first, so what the hooks hold is found a duplicate, not copied twice.
                super::try_fold_sources(&mut store, &scope, crate::sources::SYNC)?;
            }
            notice(memories.len());
            store.import_memories(&memories)?
        }
    };
    if json {
        let mut value = serde_json::to_value(&report)?;
        value["read_by_hooks"] = json!(read_already);
        return super::print_json(&value);
    }
    print_report(&report, args.place.project.as_deref())?;
    if read_already {
        outln!(
            "{} is this project's auto-memory folder, which Synapse's hooks already read: its \
             files are in the store as they are, and follow their edits; an import copies a \
             folder Synapse does not read",
            file.display()
        );
    }
    Ok(())
}

/// Whether `folder` is the auto-memory folder of `scope`'s project, which the hooks fold as
/// Claude Code's files (`sources`).
fn read_by_the_hooks(folder: &std::path::Path, scope: &crate::store::Scope) -> bool {
    let Some(top) = scope.key().map(std::path::Path::new).filter(|p| p.is_dir()) else {
        return false;
    };
    let memory = crate::sources::Client::for_project(top).memory;
    match (folder.canonicalize(), memory.canonicalize()) {
        (Ok(given), Ok(read)) => given == read,
        _ => false,
    }
}

/// Says first how long a large import will hold the store's write lock.
fn notice(count: usize) {
    if count > NOTICE_LINES {
        eprintln!(
            "synapse: importing {count} memories in one transaction holds the store's write lock \
             for about {} s; other writes wait and hooks keep their lessons in the spool until then",
            count.div_ceil(LINES_PER_SECOND)
        );
    }
}

fn print_report(report: &ImportReport, project: Option<&str>) -> Result<()> {
    let skipped = format!("({} duplicates skipped)", report.duplicates);
    match report.batch {
        Some(batch) => {
            let place = project
                .map(|p| format!(" --project {p}"))
                .unwrap_or_default();
            outln!(
                "imported {} memories as batch {batch} {skipped}; `synapse import --undo \
                 {batch}{place}` takes them back",
                report.stored
            );
        }
        None => outln!("imported {} memories {skipped}", report.stored),
    }
    if report.masked > 0 {
        outln!(
            "masked {} secrets as [secret]; `--allow-secrets` stores text as given",
            report.masked
        );
    }
    Ok(())
}

/// `--undo BATCH`: forget what the batch stored that is still live.
fn undo(batch: i64, place: &Place, json: bool) -> Result<()> {
    let (mut store, scope) = place.open()?;
    let forgotten = store.undo_import(batch, &scope)?;
    if json {
        return super::print_json(&json!({ "batch": batch, "forgotten": forgotten }));
    }
    outln!(
        "forgot {} memories of import batch {batch}; `synapse restore ID` brings one back",
        forgotten.len()
    );
    Ok(())
}
