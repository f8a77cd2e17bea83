//! Gemini CLI: the extension in the checkout's `gemini/`, linked with the client's own `gemini
//! extensions link` (a link, not a copy: its commands reach `bin/` beside it). The client records
//! the link, its enablement, an integrity hash it signs and, with `--consent`, trust for the folder
//! it runs in; so it is run in the extension's own folder, and undo (`gemini extensions
//! uninstall`) is followed by the journal putting each record back as it was (measured with
//! 0.61.0).

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::journal::Journal;
use super::Outcome;

const NAME: &str = "synapse";

/// The config files the client's extension commands write, under `~/.gemini`. (Running the
/// client also notes the folder it ran in among its projects, `projects.json`, as any run does:
/// a register of folders, not a setting, which every later session changes.)
fn records(gemini: &Path) -> Vec<PathBuf> {
    [
        "settings.json",
        "trustedFolders.json",
        "extension_integrity.json",
        "extensions/extension-enablement.json",
        "extensions/synapse/.gemini-extension-install.json",
    ]
    .into_iter()
    .map(|f| gemini.join(f))
    .collect()
}

pub fn setup(folder: &Path, data: &Path) -> Result<Outcome> {
    let program = super::on_path("gemini", "Gemini CLI")?;
    let gemini = super::home()?.join(".gemini");
    let extension = folder.join("gemini");
    let mut journal = Journal::begin(data, "gemini", &records(&gemini))?;
    let mut outcome = Outcome::default();
    // The journal is kept whatever happens, so undo can put the files back.
    let done = link(&program, &gemini, &extension, &mut journal, &mut outcome);
    outcome.files = journal.finish(data)?;
    done?;
    Ok(outcome)
}

/// Link the extension unless one of its name is installed.
fn link(
    program: &Path,
    gemini: &Path,
    extension: &Path,
    journal: &mut Journal,
    outcome: &mut Outcome,
) -> Result<()> {
    let install = gemini.join("extensions").join(NAME);
    if install.exists() {
        let record = std::fs::read(install.join(".gemini-extension-install.json"))
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok());
        let source = record
            .as_ref()
            .and_then(|r| r.get("source")?.as_str().map(PathBuf::from));
        if source.as_deref() == Some(extension) {
            outcome.kept.push(format!(
                "extension {NAME}: linked already ({})",
                extension.display()
            ));
        } else {
            outcome.kept.push(format!(
                "extension {NAME}: one of that name is installed already ({}), kept as it is",
                source.map_or("?".into(), |s| s.display().to_string())
            ));
        }
    } else {
        let at = extension.to_string_lossy();
        super::run(
            program,
            &["extensions", "link", &at, "--consent"],
            extension,
        )?;
        journal.did.insert("extension".into(), NAME.into());
        journal.did.insert("folder".into(), at.clone().into_owned());
        outcome.changed.push(format!(
            "linked the extension {NAME} from {at} (hooks, MCP server)"
        ));
    }
    Ok(())
}

pub fn undo(journal: &Journal) -> Result<Outcome> {
    let mut outcome = Outcome::default();
    if let Some(name) = journal.did.get("extension") {
        let program = super::on_path("gemini", "Gemini CLI")?;
        let cwd = journal
            .did
            .get("folder")
            .map(PathBuf::from)
            .filter(|f| f.is_dir())
            .map_or_else(super::home, Ok)?;
        super::run(&program, &["extensions", "uninstall", name], &cwd)?;
        outcome
            .changed
            .push(format!("uninstalled the extension {name}"));
    }
    Ok(outcome)
}
