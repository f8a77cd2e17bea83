//! SessionStart (startup, clear, compact, resume): the memories `recall::unasked` offers for the
//! task signal, framed as a block, the rules whose `paths:` match a changed file first; with no
//! signal, one status line. A `clear` or `compact` start forgets what the session was given (its
//! context is gone); on `resume` only what the session was not given before is offered.

use std::collections::HashSet;

use anyhow::Result;

use super::offer::{offer, write_or_spool, Frame};
use super::{fold, Answer, Turn};
use crate::config::Notice;
use crate::plugin::{inject, notice};
use crate::recall::unasked;
use crate::recall::Hit;
use crate::sources::{self, Known};
use crate::store::spool;
use crate::store::{Scope, Store};

/// The SessionStart hook's answer: the model's context and the person's line.
pub(super) fn run(store: &mut Store, turn: &mut Turn) -> Result<Answer> {
    let team = fold::team(store, &turn.scope, turn.checkout());
    let signal = turn.signal();
    let known = fold::sources(store, turn, &signal);
    let (context, line) = session_start(store, turn, signal, team, known)?;
    let line = line.filter(|_| turn.notice != Notice::Off);
    Ok(Answer { context, line })
}

/// The model's context at a session's start, and the person's line. `team` are the memories a
/// teammate's newer one replaced, for the left-out line.
fn session_start(
    store: &mut Store,
    turn: &Turn,
    signal: crate::signal::Signal,
    team: Vec<String>,
    known: Known,
) -> Result<(Option<String>, Option<String>)> {
    let (scope, payload) = (&turn.scope, turn.payload);
    let source = payload.source.as_deref().unwrap_or("startup");
    if matches!(source, "compact" | "clear") {
        let session = &payload.session_id;
        write_or_spool(
            store,
            |store| store.clear_injected(session),
            || spool::Entry::Clear {
                session: session.clone(),
            },
        )?;
    }
    let loaded = known.loaded_memories(store)?;
    // Lines of the files the client loads that name a path that is gone, said at the start (a
    // resumed session was told at its start, and the transcript has it).
    let stale = match source {
        "resume" => sources::Stale::default(),
        _ => Known::stale_lines(store, scope, &loaded, &turn.drift_ignore)?,
    };
    if signal.is_empty() {
        if source == "resume" {
            return Ok((None, None));
        }
        let memories = store.count_live(scope)?;
        let voice = turn.client.voice(&known);
        let status = inject::status_line(memories, &voice, &stale);
        let line = notice::waiting(memories, voice.search, stale.lines.len())
            + &notice::sources_left(&known.left).unwrap_or_default();
        return Ok((Some(format!("{status}\n")), Some(line)));
    }
    let mut hits = rules_for_files(store, scope, &known, &signal.files)?;
    let found = unasked::for_session(store, scope, &signal, turn.budget, &loaded)?;
    let ruled: HashSet<i64> = hits.iter().map(|h| h.id).collect();
    hits.extend(found.into_iter().filter(|h| !ruled.contains(&h.id)));
    let most = turn.budget.max_results();
    let branch = signal.branch.clone();
    let frame = Frame::Session {
        most,
        team,
        stale: &stale,
    };
    let offered = offer(store, turn, (hits, &known), frame)?;
    // On resume the session was given its notes before: a line only when there is news.
    if source == "resume" && offered.text.is_none() {
        return Ok((None, None));
    }
    let (shown, left, gone) = (offered.shown.len(), &offered.left, stale.lines.len());
    let line = notice::session(shown, branch.as_deref(), left, gone)
        + &notice::sources_left(&known.left).unwrap_or_default();
    Ok((offered.text, Some(line)))
}

/// The memories of the rules whose `paths:` match a file being changed: the client shows such a
/// rule only beside a matching file the model reads, and the session is about those files.
fn rules_for_files(
    store: &Store,
    scope: &Scope,
    known: &Known,
    files: &[String],
) -> Result<Vec<Hit>> {
    let mut ids = Vec::new();
    for rule in known.rules_for(files) {
        ids.extend(store.memories_of_source(rule.id)?);
    }
    let memories = store.live_openings_by_ids(&ids, scope, crate::store::index::HEAD_BYTES)?;
    Ok(memories.into_iter().map(Hit::of_memory).collect())
}
