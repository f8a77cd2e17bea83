//! Wiring Synapse into a client, and taking it back (`synapse setup CLIENT`, `--undo`): Claude
//! Code gets the plugin through its own `claude plugin` commands, Gemini CLI the extension in
//! `gemini/` through `gemini extensions link`, Codex CLI its hooks, their trust and the MCP server
//! in its `config.toml`, edited in place.
//!
//! A setup is idempotent, says what it changed, and never replaces an entry of the user's: one of
//! the same name is kept and named. What it changed is kept in a journal in the data folder
//! (`journal`): undo takes Synapse's entries out and then puts back, byte for byte, every config
//! file nobody changed since, so a file is exactly as before; a file someone changed since keeps
//! those changes.

mod claude;
mod codex;
mod gemini;
mod journal;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};
use serde::Serialize;

pub use journal::Restored;

/// A client Synapse can be wired into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Client {
    /// Claude Code: the plugin (hooks, slash commands, MCP server).
    Claude,
    /// Codex CLI: hooks and the MCP server in `~/.codex/config.toml`.
    Codex,
    /// Gemini CLI: the extension in the checkout's `gemini/`.
    Gemini,
}

impl Client {
    pub fn name(self) -> &'static str {
        match self {
            Client::Claude => "claude",
            Client::Codex => "codex",
            Client::Gemini => "gemini",
        }
    }
}

/// What the person asked of a setup.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Codex: record the hooks as trusted, as Codex's `/hooks` screen does.
    pub trust: bool,
}

/// What a setup or an undo did, for the person (one line each) and `--json`.
#[derive(Debug, Default, Serialize)]
pub struct Outcome {
    /// What changed.
    pub changed: Vec<String>,
    /// What was there already and left as it is: Synapse's own entries, or the user's.
    pub kept: Vec<String>,
    /// What the person still has to do, if anything.
    pub todo: Vec<String>,
    /// The config files whose bytes differ from before the setup (after an undo: those that
    /// could not be put back, since someone changed them since).
    pub files: Vec<PathBuf>,
}

/// Wire `client`, from the current folder `cwd`, keeping the journal in the data folder `data`.
pub fn setup(client: Client, options: Options, cwd: &Path, data: &Path) -> Result<Outcome> {
    match client {
        Client::Claude => claude::setup(cwd, data),
        Client::Codex => codex::setup(&plugin_folder(cwd)?, options, data),
        Client::Gemini => gemini::setup(&plugin_folder(cwd)?, data),
    }
}

/// Take back what setups of `client` did (the journal in `data`).
pub fn undo(client: Client, data: &Path) -> Result<Outcome> {
    let Some(journal) = journal::Journal::load(data, client.name())? else {
        let mut outcome = Outcome::default();
        outcome.kept.push(format!(
            "no setup of {} is recorded in {}: nothing to take back",
            client.name(),
            data.display()
        ));
        return Ok(outcome);
    };
    // Which files nobody touched since setup, read before the undo's own steps change them.
    let unchanged = journal.unchanged_since()?;
    let mut outcome = match client {
        Client::Claude => claude::undo(&journal)?,
        Client::Codex => codex::undo(&journal)?,
        Client::Gemini => gemini::undo(&journal)?,
    };
    for (path, restored) in journal.restore(&unchanged)? {
        match restored {
            Restored::AsBefore => outcome
                .changed
                .push(format!("{}: as it was before setup", path.display())),
            Restored::ChangedSince => {
                outcome.kept.push(format!(
                    "{}: changed since setup, so only Synapse's entries were taken out",
                    path.display()
                ));
                outcome.files.push(path);
            }
            Restored::Untouched => {}
        }
    }
    journal.remove()?;
    Ok(outcome)
}

/// The folder of Synapse's launchers (`bin/synapse-hook`, `bin/synapse-mcp`) that a client's
/// config names: the Synapse checkout holding `cwd`, else the one holding this `synapse` (a
/// build in its `target/`), else the Claude Code plugin's marketplace folder (a clone that
/// stays in place across plugin updates).
pub fn plugin_folder(cwd: &Path) -> Result<PathBuf> {
    if let Some(found) = checkout(cwd) {
        return Ok(found);
    }
    if let Some(found) = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.canonicalize().ok())
        .and_then(|exe| checkout(&exe))
    {
        return Ok(found);
    }
    if let Some(found) = claude::marketplace_folder() {
        return Ok(found);
    }
    bail!(
        "found no Synapse launchers (bin/synapse-hook) in {} or above it, beside this synapse, or \
         in Claude Code's Synapse marketplace: run this in a Synapse checkout (git clone \
         https://github.com/synapse-memory/synapse)",
        cwd.display()
    )
}

/// The Synapse checkout at or above `path`: a folder with the plugin's manifest and launchers.
fn checkout(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .find(|dir| is_synapse_folder(dir))
        .map(Path::to_path_buf)
}

/// Whether `dir` holds Synapse's plugin manifest and launchers.
fn is_synapse_folder(dir: &Path) -> bool {
    dir.join("bin/synapse-hook").is_file()
        && std::fs::read(dir.join(".claude-plugin/plugin.json"))
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .is_some_and(|m| m["name"] == "synapse")
}

/// The user's home folder.
fn home() -> Result<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .context("HOME is not set: a client's config lives under it")
}

/// `program` on PATH, or an error naming the client that is missing.
fn on_path(program: &str, client: &str) -> Result<PathBuf> {
    std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join(program))
                .find(|p| p.is_file())
        })
        .with_context(|| format!("{client} ({program}) is not on PATH: install it first"))
}

/// Run a client's own command (its arguments never through a shell), with no standard input;
/// an error carries what it printed.
fn run(program: &Path, args: &[&str], cwd: &Path) -> Result<String> {
    let out = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("could not run {}", program.display()))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if !out.status.success() {
        bail!(
            "`{} {}` failed ({}): {}",
            program.display(),
            args.join(" "),
            out.status,
            text.trim()
        );
    }
    Ok(text)
}
