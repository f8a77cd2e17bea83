//! What a hook folds into the store before it offers: the team's shared file (SessionStart) and
//! the clients' own memory and instruction files (SessionStart and UserPromptSubmit). A fold that
//! fails costs the session nothing: it is logged and tried again by a later hook.

use std::path::Path;

use anyhow::Result;

use super::{log_failure, Event, Turn};
use crate::signal::Signal;
use crate::sources::{self, Known};
use crate::store::{Scope, Store};

/// The most changed files beside which a hook looks for a nested `CLAUDE.md`.
const NEAR_FILES: usize = 32;

/// Fold the checkout's shared file (`team`) into the store when it changed since the last fold
/// (see `team::fold_if_changed` for what an unchanged file costs). Returns, for the block's line
/// on what was left out, the memories a teammate's newer one replaced. A fold that fails (the
/// store busy, an unreadable file) costs the session nothing: it is logged and tried again at
/// the next start.
pub(super) fn team(store: &mut Store, scope: &Scope, checkout: Option<&Path>) -> Vec<String> {
    let Some(top) = checkout else {
        return Vec::new();
    };
    replaced_by_team(store, scope, top).unwrap_or_else(|e| {
        log_failure(
            Event::SessionStart,
            &e.context("could not fold the team's shared file"),
        );
        Vec::new()
    })
}

/// `team`'s work.
fn replaced_by_team(store: &mut Store, scope: &Scope, top: &Path) -> Result<Vec<String>> {
    let Some(synced) =
        crate::team::fold_if_changed(store, scope, top, crate::team::HOOK_FOLD_BYTES)?
    else {
        return Ok(Vec::new());
    };
    let mut reasons = Vec::new();
    for &(old, new) in &synced.folded.replaced {
        let by = store.require(new, scope)?.source;
        reasons.push(format!("{old} is replaced by newer {new} ({by})"));
    }
    Ok(reasons)
}

/// Fold what changed among the clients' own memory and instruction files (`sources::refresh`,
/// bounded by `sources::HOOK`), and return the files known, as the turn's client sees them. A
/// fold that fails costs the session nothing: it is logged, the files known before are used, and
/// the next hook tries again.
pub(super) fn sources(store: &mut Store, turn: &Turn, signal: &Signal) -> Known {
    let event = turn.event;
    let place = sources::Place::new(&turn.scope, &turn.payload.cwd, turn.checkout());
    // The folders of the first changed files are looked in: a bounded number of `stat`s.
    let near = &signal.files[..signal.files.len().min(NEAR_FILES)];
    let refreshed = match sources::refresh(store, &place, near, sources::HOOK, &turn.sources) {
        Ok(known) => known,
        Err(e) => {
            log_failure(
                event,
                &e.context("could not fold Claude Code's memory files"),
            );
            Known::unchanged(store, &place).unwrap_or_else(|e| {
                log_failure(event, &e.context("could not read the memory files folded"));
                Known::default()
            })
        }
    };
    // What the client reported loading into this session (Claude Code's InstructionsLoaded).
    // It replaces the guess for the files it covers once it holds the batch loaded at the
    // session's start and that start is past (the reports may still be on their way at
    // SessionStart, and 2.1.332 sometimes sends none for that batch): before, it only adds.
    let reported = store
        .loaded_files(&turn.payload.session_id)
        .unwrap_or_else(|e| {
            log_failure(
                event,
                &e.context("could not read the files the client loaded"),
            );
            Default::default()
        });
    let whole = reported.at_start && event != Event::SessionStart;
    turn.client.known(refreshed.reported(reported.paths, whole))
}
