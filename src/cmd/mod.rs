//! The command-line verbs, one file each: parse into the library, print for a person or as JSON.
//!
//! Output goes through `out!` and `outln!`, which hand a failed write back as an error: when the
//! reader of a pipe goes away (`synapse list | head -1`), the command stops there and exits
//! quietly (see `is_closed_pipe`), where `println!` would panic.
//!
//! Everything printed for a person passes through `text::visible` there, so no memory's control
//! characters or direction overrides reach the terminal raw, whatever the verb prints; JSON goes
//! out through `print_json`, whose strings keep their exact text with each such character
//! written as a JSON escape (`\u001b`). Exact bytes only where asked for: `read --raw`, `export`.

/// `print!` that shows its text safely (`text::visible`) and returns a failed write as an error
/// (the caller's `?`).
macro_rules! out {
    ($($arg:tt)*) => {{
        $crate::cmd::show(&format!($($arg)*))?
    }};
}

/// `println!` that shows its text safely (`text::visible`) and returns a failed write as an error
/// (the caller's `?`).
macro_rules! outln {
    () => {{
        $crate::cmd::show("\n")?
    }};
    ($($arg:tt)*) => {{
        $crate::cmd::show(&(format!($($arg)*) + "\n"))?
    }};
}

pub mod doctor;
mod drift;
mod eval;
mod export;
mod forget;
mod history;
mod import;
mod list;
mod read;
mod recall;
mod remember;
mod restore;
mod setup;
mod share;
mod status;
mod statusline;
mod supersede;
mod sync;
#[cfg(feature = "ui")]
mod ui;
mod unshare;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use serde::Serialize;

use crate::store::{Scope, Store};

/// Synapse: a small, current and honest memory for Claude Code.
#[derive(Debug, Parser)]
#[command(
    name = "synapse",
    version,
    about,
    long_about = None,
    after_help = crate::config::environment::help()
)]
pub struct Cli {
    /// Print JSON instead of text meant for a person.
    #[arg(long, global = true)]
    pub json: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Store a memory (text as arguments, or `-`/nothing for standard input).
    Remember(remember::Args),
    /// Search memories visible from here, ranked and packed into a budget.
    Recall(recall::Args),
    /// Read a memory's exact text, a page at a time.
    Read(read::Args),
    /// List memories visible from here, newest first.
    List(list::Args),
    /// Mark each OLD as replaced by NEW (the last id).
    Supersede(supersede::Args),
    /// Hide memories from recall and reading (undo with `restore`).
    #[command(mut_arg("ids", |a| a.help("The memories to hide")))]
    Forget(Targets),
    /// Undo the latest forget or supersede of each memory named.
    #[command(mut_arg("ids", |a| a.help("The memories to bring back")))]
    Restore(Targets),
    /// Show every recorded change to a memory.
    #[command(mut_arg("id", |a| a.help("The memory")))]
    History(Target),
    /// Import memories from JSON Lines, or Claude Code's own files with `--from`; `--undo BATCH`
    /// takes an import back.
    Import(import::Args),
    /// Export memories visible from here as JSON Lines.
    Export(export::Args),
    /// Score recall on labeled cases (TOML).
    Eval(eval::Args),
    /// Audit the memories a folder sees, or one of Claude Code's files gives: stale paths, conflicts, duplicates;
    /// dismiss a finding, or settle every certain one of a kind.
    Drift(drift::Args),
    /// Show where everything is (data, settings, log, hook binaries) and check it works.
    Doctor(doctor::Args),
    /// Wire Synapse into a client (claude, codex, gemini): hooks and the MCP server; `--undo`
    /// takes it back.
    Setup(setup::Args),
    /// Share memories of this project with its team, through `.synapse/memories.jsonl`.
    Share(share::Args),
    /// Withdraw a shared memory from the team.
    Unshare(unshare::Args),
    /// Fold the team's shared file into the store now (SessionStart does it when it changed).
    Sync(sync::Args),
    /// List what this project shares with its team and what stays local.
    Status(status::Args),
    /// One short line for Claude Code's status line, from its JSON on standard input.
    Statusline(statusline::Args),
    /// A terminal view of the memories seen from here: browse, search, read, forget, restore,
    /// settle drift (`?` lists the keys).
    #[cfg(feature = "ui")]
    Ui(ui::Args),
}

/// The options every verb that works in a project takes, which may come before the verb too:
/// `synapse --project X list` is `synapse list --project X` (`--json` is global already).
const BEFORE_THE_VERB: &[&str] = &["--project"];

impl Cli {
    /// The command line of this process, parsed (`clap::Parser::parse`, which exits on an error or
    /// `--help`), with the options of `BEFORE_THE_VERB` given before the verb moved after it
    /// (`after_the_verb`).
    pub fn from_args() -> Cli {
        Cli::parse_from(after_the_verb(std::env::args_os().collect()))
    }
}

/// `args` (the program's name first) with each option of `BEFORE_THE_VERB` that comes before the
/// verb, and its value, moved to just after the verb, where the verb's own arguments read it (and
/// a verb that takes no such option says so). Anything else is left for clap to judge.
pub fn after_the_verb(args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let mut before = Vec::new();
    let mut moved = Vec::new();
    let mut rest = args.into_iter();
    before.extend(rest.next());
    while let Some(arg) = rest.next() {
        let text = arg.to_string_lossy();
        let option = text.split('=').next().unwrap_or_default();
        if BEFORE_THE_VERB.contains(&option) {
            let joined = text.contains('=');
            moved.push(arg);
            if !joined {
                moved.extend(rest.next());
            }
        } else if text.starts_with('-') {
            before.push(arg);
        } else {
            // The verb: what was moved goes right after it.
            before.push(arg);
            before.append(&mut moved);
            before.extend(rest);
            return before;
        }
    }
    before.append(&mut moved);
    before
}

/// Run one parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    let json = cli.json;
    match cli.command {
        Command::Remember(args) => remember::run(args, json),
        Command::Drift(args) => drift::run(args, json),
        Command::Doctor(args) => doctor::run(args, json),
        Command::Recall(args) => recall::run(args, json),
        Command::Read(args) => read::run(args, json),
        Command::List(args) => list::run(args, json),
        Command::Supersede(args) => supersede::run(args, json),
        Command::Forget(args) => forget::run(args, json),
        Command::Restore(args) => restore::run(args, json),
        Command::History(args) => history::run(args, json),
        Command::Import(args) => import::run(args, json),
        Command::Export(args) => export::run(args, json),
        Command::Eval(args) => eval::run(args, json),
        Command::Setup(args) => setup::run(args, json),
        Command::Share(args) => share::run(args, json),
        Command::Unshare(args) => unshare::run(args, json),
        Command::Sync(args) => sync::run(args, json),
        Command::Status(args) => status::run(args, json),
        Command::Statusline(args) => statusline::run(args, json),
        #[cfg(feature = "ui")]
        Command::Ui(args) => ui::run(args, json),
    }
}

/// `--project`, the project a verb works in instead of the current folder's. Flattened into a
/// verb's arguments; a verb that words its help otherwise says so with `mut_arg("project", …)`.
#[derive(Debug, clap::Args)]
struct Place {
    /// Work in this project (a folder or a key) instead of the current folder's.
    #[arg(long)]
    project: Option<String>,
}

impl Place {
    /// The store and the project named, for a verb working on what a project holds: a
    /// `--project` naming neither a folder nor a project with memories is refused
    /// (`Store::scope_named`).
    ///
    /// A project that is a folder has Claude Code's memory files of that folder folded in
    /// first, as a hook would (`fold_sources`), so what the verb reads is current.
    fn open(&self) -> Result<(Store, Scope)> {
        self.open_with(Store::open_default()?)
    }

    /// `open`, for a verb that only reads: a data folder without a store is left as it is
    /// (nothing created), and the verb finds no stored memories, only what Claude Code's files
    /// give, folded in memory (`open_to_read`).
    fn open_to_read(&self) -> Result<(Store, Scope)> {
        self.open_with(open_to_read()?)
    }

    fn open_with(&self, mut store: Store) -> Result<(Store, Scope)> {
        let scope = store.scope_named(self.project.as_deref())?;
        fold_sources(&mut store, &scope, crate::sources::HOOK);
        Ok((store, scope))
    }

    /// The store and the project named, for a verb adding memories: any key names a project,
    /// new or not (`Scope::resolve`), and a bad `--project` is refused before the store is opened.
    fn open_to_add(&self) -> Result<(Store, Scope)> {
        let scope = Scope::resolve(self.project.as_deref())?;
        let store = Store::open_default()?;
        Ok((store, scope))
    }
}

/// A memory, by id, in the project of `place`: the arguments of the verbs that act on one
/// memory and nothing else (`forget`, `restore`, `history`), each wording the id's help itself.
#[derive(Debug, clap::Args)]
pub struct Target {
    id: i64,
    #[command(flatten)]
    place: Place,
}

/// Memories, by id, in the project of `place`: the arguments of the verbs that act on each of
/// several memories alone (`forget`, `restore`), each wording the ids' help itself.
#[derive(Debug, clap::Args)]
pub struct Targets {
    #[arg(required = true, num_args = 1.., value_name = "ID")]
    ids: Vec<i64>,
    #[command(flatten)]
    place: Place,
}

impl Targets {
    /// Run `act` on each memory named, once per id, each in its own write: an id that fails
    /// (unknown, or nothing to do) changes nothing and costs no other id. `said` words a done
    /// id's line for a person, `shaped` its JSON. Every id is reported; the failed ones are
    /// named together in the error at the end. One id prints the JSON of one (`shaped`);
    /// several, `{"results": [...]}`, each the JSON of one or `{"id", "refused"}`.
    fn each<T>(
        self,
        json: bool,
        mut act: impl FnMut(&mut Store, i64, &Scope) -> Result<T>,
        said: impl Fn(i64, &T) -> String,
        shaped: impl Fn(i64, &T) -> serde_json::Value,
    ) -> Result<()> {
        let (mut store, scope) = self.place.open()?;
        let mut ids = self.ids;
        let mut seen = std::collections::HashSet::new();
        ids.retain(|id| seen.insert(*id));
        let mut results = Vec::new();
        let mut refused = Vec::new();
        for &id in &ids {
            match act(&mut store, id, &scope) {
                Ok(done) => {
                    if !json {
                        outln!("{}", said(id, &done));
                    }
                    results.push(shaped(id, &done));
                }
                Err(e) => {
                    results.push(serde_json::json!({ "id": id, "refused": format!("{e:#}") }));
                    refused.push((id, format!("{e:#}")));
                }
            }
        }
        if json && ids.len() == 1 && refused.is_empty() {
            print_json(&results[0])?;
        } else if json && ids.len() > 1 {
            print_json(&serde_json::json!({ "results": results }))?;
        }
        match refused.as_slice() {
            [] => Ok(()),
            [(_, why)] if ids.len() == 1 => anyhow::bail!("{why}"),
            _ => anyhow::bail!(
                "{} of {} memories were left as they were:\n{}",
                refused.len(),
                ids.len(),
                refused
                    .iter()
                    .map(|(id, why)| format!("{id}: {why}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            ),
        }
    }
}

/// Fold what changed among the Claude Code memory files of `scope`'s folder, within `limits`
/// (`sources::refresh`). A verb that only reads still answers when this fails (the store busy
/// for longer than it waits, say): it warns on standard error and goes on with what was folded
/// before. Nothing is read for a project that is no folder (an imported key) or the global scope.
fn fold_sources(store: &mut Store, scope: &Scope, limits: crate::sources::Limits) {
    if let Err(e) = try_fold_sources(store, scope, limits) {
        let why = format!("{e:#}");
        eprintln!(
            "synapse: could not read Claude Code's memory files: {}",
            crate::text::visible(&why)
        );
    }
}

fn try_fold_sources(
    store: &mut Store,
    scope: &Scope,
    limits: crate::sources::Limits,
) -> Result<Option<crate::sources::Known>> {
    let Some(top) = scope.key().map(std::path::Path::new).filter(|p| p.is_dir()) else {
        return Ok(None);
    };
    let cwd = here().ok().filter(|h| h.starts_with(top));
    let cwd = cwd.as_deref().unwrap_or(top);
    let place = crate::sources::Place::new(scope, cwd, Some(top));
    let near = if limits.files == usize::MAX {
        crate::sources::nested(top)
    } else {
        Vec::new()
    };
    let settings = store.settings()?.sources.clone();
    crate::sources::refresh(store, &place, &near, limits, &settings).map(Some)
}

/// The current folder.
fn here() -> Result<std::path::PathBuf> {
    std::env::current_dir().context("could not read the current folder")
}

/// The store of the data folder for a verb that only reads (`Store::open_to_read`): when there
/// is none yet, nothing is created, and a note on standard error names the folder looked in.
fn open_to_read() -> Result<Store> {
    let store = Store::open_default_to_read()?;
    if !store.on_disk() {
        let dir = store.dir().display().to_string();
        eprintln!(
            "synapse: no memories stored yet: the data folder {} holds no store (reading \
             creates none; the first write does)",
            crate::text::visible(&dir)
        );
    }
    Ok(store)
}

/// The store, the current folder's project and the top of its git checkout, for the team
/// verbs; outside a git repository there is nothing to share through.
fn team_here() -> Result<(Store, Scope, std::path::PathBuf)> {
    team_here_with(Store::open_default)
}

/// `team_here` for a verb that only reads (`open_to_read`).
fn team_here_to_read() -> Result<(Store, Scope, std::path::PathBuf)> {
    team_here_with(open_to_read)
}

fn team_here_with(
    open: impl FnOnce() -> Result<Store>,
) -> Result<(Store, Scope, std::path::PathBuf)> {
    let here = here()?;
    let Some(top) = crate::team::checkout(&here) else {
        anyhow::bail!(
            "{} is not inside a git repository: a team shares memories through its repository",
            here.display()
        );
    };
    let store = open()?;
    let scope = Scope::of_folder(&here)?;
    Ok((store, scope, top))
}

/// Print a value as one line of JSON: its strings exactly, each character `text::visible` would
/// replace written as a JSON escape (`\u001b`, `\u202e`), so the line shows no control character
/// or direction override raw, and a program reading it gets the exact text.
fn print_json(value: &impl Serialize) -> Result<()> {
    use std::io::Write as _;
    let mut line = Vec::new();
    value.serialize(&mut serde_json::Serializer::with_formatter(
        &mut line,
        EscapeHidden,
    ))?;
    line.push(b'\n');
    std::io::stdout().lock().write_all(&line)?;
    Ok(())
}

/// Write `text` to standard output as a person may see it (`text::visible`): `out!` and `outln!`.
pub(crate) fn show(text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    std::io::stdout()
        .lock()
        .write_all(crate::text::visible(text).as_bytes())
}

/// serde_json's compact output with every `text::hidden` character escaped (serde_json escapes
/// only the C0 controls, which are among them).
struct EscapeHidden;

impl serde_json::ser::Formatter for EscapeHidden {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut rest = fragment;
        while let Some((at, c)) = rest.char_indices().find(|&(_, c)| crate::text::hidden(c)) {
            let (before, after) = rest.split_at(at);
            writer.write_all(before.as_bytes())?;
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                write!(writer, "\\u{unit:04x}")?;
            }
            rest = after.get(c.len_utf8()..).unwrap_or_default();
        }
        writer.write_all(rest.as_bytes())
    }
}

/// Standard input as text, refusing more than a memory may hold before reading it all (a
/// runaway pipe must not fill the memory of the machine).
fn read_stdin(what: &str) -> Result<String> {
    use std::io::Read as _;
    let limit = crate::store::write::MAX_BODY_BYTES;
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("could not read {what} from standard input"))?;
    if bytes.len() > limit {
        anyhow::bail!(
            "{what} on standard input is longer than a memory may hold ({} MiB)",
            limit >> 20
        );
    }
    String::from_utf8(bytes).with_context(|| format!("{what} on standard input is not UTF-8"))
}

/// What `--allow-secrets` asks of a write.
fn secrets(allow: bool) -> crate::secrets::Secrets {
    if allow {
        crate::secrets::Secrets::Allow
    } else {
        crate::secrets::Secrets::Mask
    }
}

/// Whether a command failed only because its output's reader went away (a closed pipe): not a
/// failure worth a message or a non-zero exit, as in ripgrep and zoxide.
pub fn is_closed_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The opening line of a text, cut to `n` characters, for one-line listings.
fn headline(text: &str, n: usize) -> String {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let cut = crate::text::cut_chars(line, n);
    if cut.len() < line.len() || text.trim().lines().count() > 1 {
        format!("{cut}…")
    } else {
        cut.to_owned()
    }
}
