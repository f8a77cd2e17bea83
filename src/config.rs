//! Where Synapse keeps its data, and the budget levels that bound what it hands over.

use std::path::PathBuf;

use anyhow::{Context, Result};

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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
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
