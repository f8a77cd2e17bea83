//! InstructionsLoaded: the client reports each instruction file it loads into a session (Claude
//! Code: its `CLAUDE.md` files at the start, their imports, a nested one when the model reads a
//! file below it, a rule whose `paths:` match such a file). Each is noted for the session, and
//! later hooks take the report over the guess from the files' places (`fold::sources`). The
//! client is given nothing.

use std::path::Path;

use anyhow::{Context, Result};

use super::{Answer, Payload};
use crate::store::Store;

/// Note the file `payload` reports loaded; answer nothing.
pub(super) fn record(dir: &Path, payload: &Payload) -> Result<(Answer, Option<Store>)> {
    let (file, reason) = payload
        .loaded_file
        .as_ref()
        .context("the InstructionsLoaded payload names no file_path")?;
    let mut store = Store::open_for_hook(dir)?;
    store.mark_loaded(&payload.session_id, file, reason)?;
    Ok((Answer::default(), Some(store)))
}
