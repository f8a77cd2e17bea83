//! What a block offers, and what the session is marked as given: both SessionStart and
//! UserPromptSubmit frame what `recall::unasked::offer` keeps, and remember what was shown and
//! what was left out, so neither is offered (or explained) twice.

use std::collections::HashSet;

use anyhow::Result;

use super::{Payload, Turn};
use crate::drift;
use crate::plugin::inject;
use crate::recall::unasked::{self, PROMPT_MEMORIES};
use crate::recall::Hit;
use crate::sources::{Known, Stale};
use crate::store::injected::Replaced;
use crate::store::sources::Kind;
use crate::store::spool;
use crate::store::Store;

/// What a hook offered: the block for the model (none when there is nothing to say), the
/// memories it shows, and what it left out.
pub(super) struct Offered {
    pub(super) text: Option<String>,
    pub(super) shown: Vec<i64>,
    pub(super) left: drift::LeftOut,
}

/// The block a hook frames its offer in.
pub(super) enum Frame<'a> {
    /// SessionStart's: up to `most` memories, and the memories a teammate's newer one replaced
    /// (found when the team's file was folded) on the same line as what drift left out, then the
    /// loaded lines that name gone paths.
    Session {
        most: usize,
        team: Vec<String>,
        stale: &'a Stale,
    },
    /// UserPromptSubmit's: up to `PROMPT_MEMORIES`, those in `whole` with their text, the
    /// others as pointers.
    Prompt { whole: HashSet<i64> },
}

/// Frame what `unasked::offer` keeps of `hits`, and remember both what was shown and what was
/// left out, so neither is offered (or explained) twice.
/// Memories repeating a line of the files the client loads itself are screened out first
/// (`Known::screen`): the model has that line already.
pub(super) fn offer(
    store: &mut Store,
    turn: &Turn,
    (hits, known): (Vec<Hit>, &Known),
    frame: Frame<'_>,
) -> Result<Offered> {
    let (scope, payload) = (&turn.scope, turn.payload);
    let nothing_stale = Stale::default();
    let (most, also_left_out, whole, stale) = match frame {
        Frame::Session { most, team, stale } => (most, team, None, stale),
        Frame::Prompt { whole } => (PROMPT_MEMORIES, Vec::new(), Some(whole), &nothing_stale),
    };
    let session = &payload.session_id;
    let given = store.injected(session)?;
    let screened = known.screen(store, hits)?;
    let mut offer = unasked::offer(
        store,
        scope,
        &given,
        screened.hits,
        most,
        &turn.drift_ignore,
    )?;
    let repeats = screened.repeats.into_iter();
    for (id, why) in repeats.filter(|(id, _)| !given.contains(id)) {
        offer.left.add(Some(id), why, "already loaded");
    }
    for why in also_left_out {
        offer.left.add(None, why, "replaced");
    }
    // A memory this session was given and has since replaced (`remember (replaces #N): ...` in
    // a reply): said once, here, so the model knows the replacement took. The newer memory is
    // then marked given: its text is in the reply that wrote it.
    let own = lesson_label(payload);
    let replaced: Vec<Replaced> = store
        .replaced_since_given(session, scope)?
        .into_iter()
        .filter(|r| r.source.starts_with(&own))
        .collect();
    for r in &replaced {
        let why = format!(
            "{}, given earlier, is replaced by {} (written this session)",
            r.old, r.new
        );
        offer.left.add(None, why, "replaced");
    }
    let whole = whole.map(|whole| offer.whole_with_pairs(whole));
    let now = crate::store::now();
    let left = offer.left.line();
    let voice = turn.client.voice(known);
    let (hits, left) = (&offer.hits, left.as_deref());
    let shown = match &whole {
        None => inject::session_block(hits, left, stale, now, &voice),
        Some(whole) => {
            let files = files_of(store, known, hits)?;
            inject::prompt_block(hits, whole, left, (now, &voice, &files))
        }
    };
    let Some((text, shown)) = shown else {
        return Ok(Offered {
            text: None,
            shown: Vec::new(),
            left: offer.left,
        });
    };
    let mut given = shown.clone();
    given.extend(&offer.left.ids);
    given.extend(replaced.iter().map(|r| r.new));
    mark_given(store, payload, given)?;
    Ok(Offered {
        text: Some(text),
        shown,
        left: offer.left,
    })
}

/// The files the memories among `hits` that were read from one came from, as the model opens
/// them: a topic file whole, else the file and the line its piece starts at.
fn files_of(store: &Store, known: &Known, hits: &[Hit]) -> Result<inject::Files> {
    let ids: Vec<i64> = hits.iter().map(|h| h.id).collect();
    let mut files = inject::Files::new();
    for (id, origin) in store.origins(&ids)? {
        let Some(file) = known.files.iter().find(|f| f.id == origin.source) else {
            continue;
        };
        let place = match file.kind {
            Kind::Topic => file.path.clone(),
            _ => format!("{} line {}", file.path, origin.line),
        };
        files.insert(id, place);
    }
    Ok(files)
}

/// Remember that this session was given (or told why it was not given) the memories `ids`, so
/// no later prompt offers them again.
pub(super) fn mark_given(store: &mut Store, payload: &Payload, ids: Vec<i64>) -> Result<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let session = &payload.session_id;
    write_or_spool(
        store,
        |store| store.mark_injected(session, &ids),
        || spool::Entry::Injected {
            session: session.clone(),
            ids: ids.clone(),
        },
    )
}

/// Make a hook's write, or, when another process holds the store's lock longer than a hook may
/// wait, leave it in the spool for the next process that holds the lock.
pub(super) fn write_or_spool(
    store: &mut Store,
    write: impl FnOnce(&mut Store) -> Result<()>,
    entry: impl FnOnce() -> spool::Entry,
) -> Result<()> {
    match write(store) {
        Err(e) if crate::store::is_busy(&e) => spool::append(store.dir(), entry()),
        other => other,
    }
}

/// The first characters of the session's id, for a memory's source label.
pub(super) fn short_session(payload: &Payload) -> String {
    payload.session_id.chars().take(8).collect()
}

/// The start of the source label of every lesson this session's replies keep ("session
/// 1a2b3c4d "), which the day follows: how a block tells what this session wrote.
pub(super) fn lesson_label(payload: &Payload) -> String {
    let lesson = crate::store::listing::LESSON_LABEL;
    format!("{lesson}{} ", short_session(payload))
}
