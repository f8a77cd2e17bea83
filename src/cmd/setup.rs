//! `synapse setup CLIENT` wires Synapse into Claude Code, Codex CLI or Gemini CLI (hooks and
//! the MCP server); `--undo` takes it back. The work is in `setup`; this prints it, and asks on
//! a terminal whether to trust Codex's hooks when `--trust` was not given.

use std::io::{BufRead as _, IsTerminal as _, Write as _};

use anyhow::{Context, Result};
use serde_json::json;

use crate::setup::{Client, Options, Outcome};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The client: claude (the plugin), codex (hooks and MCP server in ~/.codex/config.toml) or
    /// gemini (the extension in gemini/).
    #[arg(value_enum)]
    client: Client,
    /// Take back what setup did: the client's config files as they were before, where nobody
    /// changed them since (else only Synapse's entries are taken out).
    #[arg(long)]
    undo: bool,
    /// Codex: record Synapse's hooks as trusted, as Codex's /hooks screen does (Codex skips a
    /// hook until it is trusted). Without it a terminal is asked.
    #[arg(long, conflicts_with = "undo")]
    trust: bool,
}

pub fn run(args: Args, json: bool) -> Result<()> {
    if args.trust && args.client != Client::Codex {
        anyhow::bail!(
            "--trust is for Codex, which runs a hook only once it is trusted; {} needs no such step",
            args.client.name()
        );
    }
    let data = crate::config::data_dir()?;
    let cwd = super::here()?;
    let outcome = if args.undo {
        crate::setup::undo(args.client, &data)?
    } else {
        let options = Options { trust: args.trust };
        let mut outcome = crate::setup::setup(args.client, options, &cwd, &data)?;
        let terminal = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
        if args.client == Client::Codex && !outcome.todo.is_empty() && !json && terminal {
            print(&outcome)?;
            if !ask("Trust Synapse's hooks in Codex now, as its /hooks screen would? [y/N] ")? {
                return Ok(());
            }
            let trusted = Options { trust: true };
            outcome = crate::setup::setup(args.client, trusted, &cwd, &data)?;
            outcome.kept.clear();
        }
        outcome
    };
    if json {
        return super::print_json(&json!({
            "client": args.client,
            "undo": args.undo,
            "changed": outcome.changed,
            "kept": outcome.kept,
            "todo": outcome.todo,
            "files": outcome.files,
        }));
    }
    print(&outcome)?;
    if outcome.changed.is_empty() && !args.undo {
        outln!("{} is wired already: nothing changed", args.client.name());
    }
    Ok(())
}

fn print(outcome: &Outcome) -> Result<()> {
    for line in &outcome.changed {
        outln!("changed: {line}");
    }
    for line in &outcome.kept {
        outln!("kept:    {line}");
    }
    for line in &outcome.todo {
        outln!("to do:   {line}");
    }
    Ok(())
}

/// Ask a yes-or-no question on the terminal; anything but yes is no.
fn ask(question: &str) -> Result<bool> {
    out!("{question}");
    std::io::stdout().flush()?;
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .context("could not read the answer")?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes" | "Yes"))
}
