//! UserPromptSubmit: the memories `recall::unasked` offers for the prompt that this session has
//! not been given, and the lines the user marked `remember:`, recorded. (A Synapse slash command
//! typed at the prompt is run instead, by `slash`.)

use anyhow::Result;

use super::offer::{mark_given, offer, short_session, Frame, Offered};
use super::{fold, Answer, Turn};
use crate::config::Notice;
use crate::plugin::{notice, slash};
use crate::recall::unasked;
use crate::sources::{Known, Place};
use crate::store::Store;

/// The most `remember:` lines of one prompt recorded: a hook's work is bounded whatever is pasted.
const MAX_TYPED: usize = 8;

/// The UserPromptSubmit hook's answer for a prompt that is no slash command: what became of the
/// lines the user marked `remember:` (`typed`), then the memories offered when `offering`.
pub(super) fn run(
    store: &mut Store,
    turn: &mut Turn,
    typed: Vec<String>,
    offering: bool,
) -> Result<Answer> {
    let (kept, saved) = keep_typed(store, turn, typed)?;
    let offered = if offering {
        let signal = turn.signal();
        let known = fold::sources(store, turn, &signal);
        let prompt = turn.payload.prompt.as_deref().unwrap_or("");
        let loaded = known.loaded_memories(store)?;
        let found = unasked::for_prompt(store, &turn.scope, prompt, &signal, &loaded)?;
        let frame = Frame::Prompt { whole: found.whole };
        Some(offer(store, turn, (found.hits, &known), frame)?)
    } else {
        None
    };
    let given = offered.as_ref().map(|o| notice::prompt(&o.shown));
    let line = match turn.notice {
        Notice::Off => None,
        Notice::Start => saved,
        Notice::Always => [saved, given.filter(|_| offered_any(&offered))]
            .into_iter()
            .flatten()
            .reduce(|a, b| format!("{a}; {b}")),
    };
    let offered = offered.and_then(|o| o.text);
    let context = [kept, offered].into_iter().flatten().reduce(|a, b| a + &b);
    Ok(Answer { context, line })
}

/// The UserPromptSubmit hook's answer for a Synapse slash command typed at the prompt: the
/// command's answer for the model, and what it saved for the person.
pub(super) fn command(store: &mut Store, turn: &Turn, command: &slash::Command) -> Result<Answer> {
    // The files are not refreshed for a command: what was last folded says how the client
    // keeps lessons, which a recall's answer ends with.
    let place = Place::new(&turn.scope, &turn.payload.cwd, turn.checkout());
    let known = turn.client.known(Known::unchanged(store, &place)?);
    let voice = turn.client.voice(&known);
    let ran = slash::run(
        store,
        &turn.scope,
        command,
        (turn.budget, &turn.drift_ignore, &voice),
        turn.checkout(),
    )?;
    mark_given(store, turn.payload, ran.shown)?;
    let line = (turn.notice != Notice::Off)
        .then(|| notice::saved(&ran.recorded, ""))
        .flatten();
    Ok(Answer {
        context: Some(ran.text),
        line,
    })
}

/// Whether a prompt's offer showed any memory.
fn offered_any(offered: &Option<Offered>) -> bool {
    offered.as_ref().is_some_and(|o| !o.shown.is_empty())
}

/// Record the lines the user marked `remember:` in the prompt (at most `MAX_TYPED`), and tell
/// the model what became of them, so it does not save them a second time. Each memory stored is
/// marked as given to this session: the prompt holds its text already.
/// Returns the model's context and the person's line.
fn keep_typed(
    store: &mut Store,
    turn: &Turn,
    typed: Vec<String>,
) -> Result<(Option<String>, Option<String>)> {
    if typed.is_empty() {
        return Ok((None, None));
    }
    let mut said = vec![
        "Synapse kept the lines the user marked \"remember:\" in this prompt as project memories \
         (nothing more to save for them):"
            .to_owned(),
    ];
    let (day, short) = (crate::store::today(), short_session(turn.payload));
    let (mut given, mut recorded) = (Vec::new(), Vec::new());
    for (n, text) in typed.into_iter().enumerate() {
        if n == MAX_TYPED {
            said.push(format!("only the first {MAX_TYPED} lines were kept"));
            break;
        }
        let source = format!("prompt {short} {day}");
        let kept = slash::keep(store, &turn.scope, &text, source, turn.checkout())?;
        said.push(format!("line {}: {}", n + 1, kept.lines.join("; ")));
        given.extend(kept.shown);
        recorded.extend(kept.recorded);
    }
    mark_given(store, turn.payload, given)?;
    Ok((Some(said.join("\n") + "\n"), notice::saved(&recorded, "")))
}
