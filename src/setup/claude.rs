//! Claude Code: Synapse stays a plugin, installed through the client's own commands (`claude
//! plugin marketplace add`, `claude plugin install`), so its records (`plugins/*.json`,
//! `settings.json`) are written as the client writes them, whatever its version. The marketplace
//! is the Synapse checkout the command runs in (a `directory` source), else the published one.
//!
//! Undo runs the reverse commands for what setup did (never for a marketplace or install that was
//! there before), then the journal puts each record back byte for byte: the client's uninstall
//! leaves `"enabledPlugins": {}` and the like behind (measured with 2.1.197).

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::Value;

use super::journal::Journal;
use super::Outcome;

/// The plugin's name, and its marketplace's (`.claude-plugin/marketplace.json`).
const NAME: &str = "synapse";
/// The published marketplace, for a setup outside a checkout.
const PUBLISHED: &str = "synapse-memory/synapse";

/// Claude Code's folder: `CLAUDE_CONFIG_DIR`, else `~/.claude`.
fn config_dir() -> Result<PathBuf> {
    match std::env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => Ok(PathBuf::from(dir)),
        None => Ok(super::home()?.join(".claude")),
    }
}

/// The files the client's plugin commands write.
fn records(config: &Path) -> Result<Vec<PathBuf>> {
    let state = match std::env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir).join(".claude.json"),
        None => super::home()?.join(".claude.json"),
    };
    Ok(vec![
        config.join("settings.json"),
        config.join("plugins/installed_plugins.json"),
        config.join("plugins/known_marketplaces.json"),
        state,
    ])
}

fn read_json(path: &Path) -> Value {
    std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(Value::Null)
}

/// The folder of Claude Code's Synapse marketplace, when it holds the launchers: a checkout
/// added as a `directory` marketplace, or the client's clone of the published one.
pub fn marketplace_folder() -> Option<PathBuf> {
    let known = read_json(&config_dir().ok()?.join("plugins/known_marketplaces.json"));
    let folder = PathBuf::from(known.get(NAME)?.get("installLocation")?.as_str()?);
    super::is_synapse_folder(&folder).then_some(folder)
}

pub fn setup(cwd: &Path, data: &Path) -> Result<Outcome> {
    let claude = super::on_path("claude", "Claude Code")?;
    let config = config_dir()?;
    let mut journal = Journal::begin(data, "claude", &records(&config)?)?;
    let mut outcome = Outcome::default();
    // What was done is journaled even when a later step fails, so undo can take it back.
    let done = install(&claude, &config, cwd, &mut journal, &mut outcome);
    outcome.files = journal.finish(data)?;
    done?;
    Ok(outcome)
}

/// Add the marketplace and install the plugin, unless they are there.
fn install(
    claude: &Path,
    config: &Path,
    cwd: &Path,
    journal: &mut Journal,
    outcome: &mut Outcome,
) -> Result<()> {
    let installed = read_json(&config.join("plugins/installed_plugins.json"));
    let ours = installed
        .get("plugins")
        .and_then(Value::as_object)
        .and_then(|p| {
            p.keys()
                .find(|id| id.split('@').next() == Some(NAME))
                .cloned()
        });
    if let Some(id) = ours {
        let on = read_json(&config.join("settings.json"))
            .pointer(&format!(
                "/enabledPlugins/{}",
                id.replace('~', "~0").replace('/', "~1")
            ))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        outcome.kept.push(format!("plugin {id}: installed already"));
        if !on {
            outcome.todo.push(format!(
                "the plugin is turned off in your settings; `claude plugin enable {id}` turns it on"
            ));
        }
    } else {
        let known = read_json(&config.join("plugins/known_marketplaces.json"));
        if let Some(entry) = known.get(NAME) {
            let at = entry
                .get("installLocation")
                .and_then(Value::as_str)
                .unwrap_or("?");
            outcome
                .kept
                .push(format!("marketplace {NAME}: there already ({at})"));
        } else {
            let source = super::checkout(cwd)
                .map(|c| c.to_string_lossy().into_owned())
                .unwrap_or_else(|| PUBLISHED.to_owned());
            super::run(claude, &["plugin", "marketplace", "add", &source], cwd)?;
            journal.did.insert("marketplace".into(), NAME.into());
            outcome
                .changed
                .push(format!("added the marketplace {NAME} ({source})"));
        }
        let id = format!("{NAME}@{NAME}");
        super::run(claude, &["plugin", "install", &id], cwd)?;
        journal.did.insert("plugin".into(), id.clone());
        outcome.changed.push(format!(
            "installed the plugin {id} (hooks, slash commands, MCP server), for every project"
        ));
    }
    Ok(())
}

pub fn undo(journal: &Journal) -> Result<Outcome> {
    let mut outcome = Outcome::default();
    let claude = super::on_path("claude", "Claude Code")?;
    let cwd = super::home()?;
    if let Some(id) = journal.did.get("plugin") {
        super::run(&claude, &["plugin", "uninstall", id], &cwd)?;
        outcome.changed.push(format!("uninstalled the plugin {id}"));
    }
    if let Some(name) = journal.did.get("marketplace") {
        super::run(&claude, &["plugin", "marketplace", "remove", name], &cwd)?;
        outcome
            .changed
            .push(format!("removed the marketplace {name}"));
    }
    Ok(outcome)
}
