//! Where Synapse keeps its data, the budget levels that bound what it hands over, and the
//! settings (`config.toml` in the data folder, overridden by environment variables).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Deserialize;

/// The data folder: `$SYNAPSE_DATA` if set, else the platform data folder
/// (`~/.local/share/synapse` on Linux).
pub fn data_dir() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("SYNAPSE_DATA").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    let dirs = directories::ProjectDirs::from("", "", "synapse")
        .context("could not find a home folder for the data folder; set SYNAPSE_DATA")?;
    Ok(dirs.data_dir().to_path_buf())
}

/// How much recall may hand over: a count of results, a character budget for their text, and the
/// page size for exact reading.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Budget {
    Lean,
    #[default]
    Balanced,
    Full,
}

impl Budget {
    /// The most results recall returns.
    pub fn max_results(self) -> usize {
        match self {
            Budget::Lean => 4,
            Budget::Balanced => 8,
            Budget::Full => 25,
        }
    }

    /// The most characters of memory text recall returns (`None`: no cap).
    pub fn max_chars(self) -> Option<usize> {
        match self {
            Budget::Lean => Some(2_800),
            Budget::Balanced => Some(6_000),
            Budget::Full => None,
        }
    }

    /// The most bytes of body one read returns.
    pub fn page_bytes(self) -> usize {
        match self {
            Budget::Lean => 2_800,
            Budget::Balanced | Budget::Full => 6_000,
        }
    }
}

impl std::str::FromStr for Budget {
    type Err = anyhow::Error;

    fn from_str(text: &str) -> Result<Budget> {
        match text.trim().to_ascii_lowercase().as_str() {
            "lean" => Ok(Budget::Lean),
            "balanced" => Ok(Budget::Balanced),
            "full" => Ok(Budget::Full),
            other => bail!("budget must be lean, balanced or full, not {other:?}"),
        }
    }
}

/// What the hooks do. `config.toml` in the data folder:
///
/// ```toml
/// budget = "balanced"     # lean | balanced | full: how much SessionStart injects
/// [hooks]
/// session_start = true    # inject memories when a session starts
/// prompt_submit = true    # add memories relevant to each prompt
/// stop = true             # record `remember:` lines from replies
/// ```
///
/// Environment variables win over the file: `SYNAPSE_BUDGET`, `SYNAPSE_SESSION_START`,
/// `SYNAPSE_PROMPT_SUBMIT`, `SYNAPSE_STOP` (`on`/`off`, `1`/`0`, `true`/`false`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    pub budget: Budget,
    pub hooks: Hooks,
}

/// Which hooks are on.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Hooks {
    pub session_start: bool,
    pub prompt_submit: bool,
    pub stop: bool,
}

impl Default for Hooks {
    fn default() -> Self {
        Hooks {
            session_start: true,
            prompt_submit: true,
            stop: true,
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            budget: Budget::Balanced,
            hooks: Hooks::default(),
        }
    }
}

impl Settings {
    /// The settings file in `dir`.
    pub fn path(dir: &Path) -> PathBuf {
        dir.join("config.toml")
    }

    /// Read `config.toml` from `dir` (absent: defaults), then apply the environment.
    pub fn load(dir: &Path) -> Result<Settings> {
        let path = Settings::path(dir);
        let mut settings = match std::fs::read_to_string(&path) {
            Ok(text) => toml::from_str(&text)
                .with_context(|| format!("{} is not valid settings", path.display()))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Settings::default(),
            Err(e) => return Err(e).with_context(|| format!("could not read {}", path.display())),
        };
        if let Some(budget) = env("SYNAPSE_BUDGET") {
            settings.budget = budget.parse().context("SYNAPSE_BUDGET")?;
        }
        for (name, switch) in [
            ("SYNAPSE_SESSION_START", &mut settings.hooks.session_start),
            ("SYNAPSE_PROMPT_SUBMIT", &mut settings.hooks.prompt_submit),
            ("SYNAPSE_STOP", &mut settings.hooks.stop),
        ] {
            if let Some(value) = env(name) {
                *switch = on_off(&value).with_context(|| format!("{name}={value:?}"))?;
            }
        }
        Ok(settings)
    }
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn on_off(value: &str) -> Result<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "on" | "true" | "yes" => Ok(true),
        "0" | "off" | "false" | "no" => Ok(false),
        _ => bail!("expected on or off"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_file_and_defaults() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Settings::load(dir.path()).unwrap(), Settings::default());
        std::fs::write(
            Settings::path(dir.path()),
            "budget = \"lean\"\n[hooks]\nstop = false\n",
        )
        .unwrap();
        let s = Settings::load(dir.path()).unwrap();
        assert_eq!(s.budget, Budget::Lean);
        assert!(!s.hooks.stop && s.hooks.session_start);
        std::fs::write(Settings::path(dir.path()), "budget = 3").unwrap();
        assert!(Settings::load(dir.path()).is_err());
    }
}
