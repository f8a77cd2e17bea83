//! Stop (and PostCompact): record the lessons the last reply marked (`remember:` lines and
//! `<remember>` blocks; a compaction's summary is read as a reply is) as memories of this
//! project, each on its own, replacing what a lesson says it replaces where this session may.
//! The model is given nothing: context after a reply would make some clients continue.

use std::path::Path;

use anyhow::Result;

use super::compact::saved_from;
use super::offer::{lesson_label, mark_given};
use super::{log_failure, Answer, Event, Payload, Turn};
use crate::config::Notice;
use crate::plugin::{lessons, notice};
use crate::record::{self, Recorded, Recording, Shared};
use crate::store::spool;
use crate::store::write::NewMemory;
use crate::store::{Scope, Store};

/// The Stop (or PostCompact) hook's answer: no context, and the person's line of what was saved.
pub(super) fn run(store: &mut Store, turn: &Turn) -> Result<Answer> {
    let event = turn.event;
    let lessons = lessons_of(&turn.scope, turn.payload);
    let (recorded, failed) = stop(store, &turn.scope, turn.payload, lessons, turn.checkout())?;
    if !failed.is_empty() {
        log_failure(event, &anyhow::anyhow!("{}", failed.join("; ")));
    }
    if event == Event::Compact {
        // The summary the session goes on from holds their text.
        mark_given(store, turn.payload, stored_ids(&recorded))?;
    }
    let line = (turn.notice != Notice::Off)
        .then(|| notice::saved(&recorded, saved_from(event)))
        .flatten();
    Ok(Answer {
        context: None,
        line,
    })
}

/// With the store too busy to open: every lesson goes to the spool in the data folder `dir`,
/// for the next process that holds the store's lock.
pub(super) fn spool_all(dir: &Path, turn: &Turn) -> Result<Answer> {
    let (mut unapplied, mut spooled) = (Vec::new(), Vec::new());
    for (memory, replaces) in lessons_of(&turn.scope, turn.payload) {
        spool::append(dir, record::spooled(&memory))?;
        unapplied.extend(replaces);
        spooled.push(Recorded::Spooled);
    }
    // The spool carries text alone: a replacement must check the older memory under the lock.
    // Said in the log, so a memory left live is not a silent surprise.
    if !unapplied.is_empty() {
        anyhow::bail!(
            "the store was busy: the lessons wait in the spool, and the memories they replace \
             ({}) stay live",
            ids_list(&unapplied)
        );
    }
    let line = (turn.notice != Notice::Off)
        .then(|| notice::saved(&spooled, saved_from(turn.event)))
        .flatten();
    Ok(Answer {
        context: None,
        line,
    })
}

/// The memories newly stored among `recorded`.
fn stored_ids(recorded: &[Recorded]) -> Vec<i64> {
    recorded
        .iter()
        .filter_map(|r| match r {
            Recorded::Stored { outcome, .. } if !outcome.duplicate => Some(outcome.id),
            _ => None,
        })
        .collect()
}

/// Record the lessons of the last reply. Each is recorded on its own, so one that fails (too
/// long, say) costs no other; one that cannot get the store's lock in time waits in the spool,
/// and a new one is shared too when the checkout says so (one that cannot be shared is kept all
/// the same). A lesson naming memories it replaces replaces those this session may replace
/// (`replaceable`); the others are refused and logged, and the lesson is kept all the same.
/// Returns what was recorded, and what failed, for the log.
fn stop(
    store: &mut Store,
    scope: &Scope,
    payload: &Payload,
    lessons: Vec<(NewMemory, Vec<i64>)>,
    checkout: Option<&Path>,
) -> Result<(Vec<Recorded>, Vec<String>)> {
    let (mut recorded, mut failed) = (Vec::new(), Vec::new());
    for (n, (memory, replaces)) in lessons.into_iter().enumerate() {
        let lesson = n + 1;
        if let Err(e) = crate::store::write::check_body(&memory.body) {
            failed.push(format!("lesson {lesson}: {e:#}"));
            continue;
        }
        let (replaced, refused) = replaceable(store, scope, payload, &replaces)?;
        let kept = keep_lesson(store, scope, memory, &replaced, checkout);
        // A memory this very lesson replaced already is no refusal: the same reply, seen again.
        let stored = match &kept {
            Ok((Recorded::Stored { outcome, .. }, _)) => Some(outcome.id),
            _ => None,
        };
        failed.extend(
            refused
                .into_iter()
                .filter(|r| r.by.is_none() || r.by != stored)
                .map(|r| format!("lesson {lesson}: {}", r.why)),
        );
        match kept {
            Ok((kept, replacing)) => {
                if let Recorded::Stored {
                    outcome,
                    shared: Shared::Failed(why),
                } = &kept
                {
                    failed.push(format!(
                        "lesson {lesson} stored as {}, not shared: {why}",
                        outcome.id
                    ));
                }
                failed.extend(replacing.map(|why| format!("lesson {lesson}: {why}")));
                recorded.push(kept);
            }
            Err(e) => failed.push(format!("lesson {lesson}: {e:#}")),
        }
    }
    Ok((recorded, failed))
}

/// Record one lesson, replacing the memories `replaced` in the same step. When the replacement
/// cannot be made (a global memory a project lesson may not hide, the store busy) the lesson is
/// still kept, without replacing, and the second value says why the replacement failed.
fn keep_lesson(
    store: &mut Store,
    scope: &Scope,
    memory: NewMemory,
    replaced: &[i64],
    checkout: Option<&Path>,
) -> Result<(Recorded, Option<String>)> {
    if replaced.is_empty() {
        let recording = Recording {
            memory,
            supersedes: &[],
            checkout,
        };
        return Ok((record::remember(store, scope, recording)?, None));
    }
    let recording = Recording {
        memory: memory.clone(),
        supersedes: replaced,
        checkout,
    };
    match record::remember(store, scope, recording) {
        Ok(recorded) => Ok((recorded, None)),
        Err(e) => {
            let why = format!(
                "could not replace {}: {e:#}; the lesson is kept without replacing",
                ids_list(replaced)
            );
            let recording = Recording {
                memory,
                supersedes: &[],
                checkout,
            };
            Ok((record::remember(store, scope, recording)?, Some(why)))
        }
    }
}

/// A memory a lesson named that it may not replace.
struct Refused {
    /// Why, for the log.
    why: String,
    /// The memory that replaced it already, if one did.
    by: Option<i64>,
}

/// Of the memories a lesson says it replaces, those this session may replace: visible from its
/// scope, live, and shown to this session (`Store::shown_to`: given by a hook or a slash
/// command, or written by its own replies). The rest are refused: a reply may name an id it
/// never saw (another project's, a guess, or an id it read before that memory was deleted), and
/// it must not hide that memory.
fn replaceable(
    store: &Store,
    scope: &Scope,
    payload: &Payload,
    ids: &[i64],
) -> Result<(Vec<i64>, Vec<Refused>)> {
    let (mut replaceable, mut refused) = (Vec::new(), Vec::new());
    let shown = store.shown_to(&payload.session_id, &lesson_label(payload), ids)?;
    for &id in ids {
        match store.get(id, scope)? {
            Some(m) if m.is_live() && !shown.contains(&id) => refused.push(Refused {
                why: format!(
                    "replaces {id} refused: this session was never shown memory {id}, so the \
                     lesson is stored as new"
                ),
                by: None,
            }),
            Some(m) if m.is_live() => replaceable.push(id),
            Some(m) => refused.push(Refused {
                why: format!(
                    "replaces {id} refused: memory {id} is already superseded or forgotten"
                ),
                by: m.superseded_by,
            }),
            None => refused.push(Refused {
                why: format!(
                    "replaces {id} refused: this session sees no memory {id} (another \
                     project's, or none)"
                ),
                by: None,
            }),
        }
    }
    Ok((replaceable, refused))
}

/// "#12, #15": memory ids as a log line names them.
fn ids_list(ids: &[i64]) -> String {
    ids.iter()
        .map(|id| format!("#{id}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The lessons marked in the last reply, as memories of this project, each with the memories it
/// says it replaces.
/// A compaction's summary is read as a reply is (PostCompact).
fn lessons_of(scope: &Scope, payload: &Payload) -> Vec<(NewMemory, Vec<i64>)> {
    let text = payload.last_assistant_message.as_ref();
    let Some(message) = text.or(payload.compact_summary.as_ref()) else {
        return Vec::new();
    };
    let source = format!("{}{}", lesson_label(payload), crate::store::today());
    lessons::marked(message)
        .into_iter()
        .map(|lesson| {
            let memory = NewMemory {
                body: lesson.text,
                source: source.clone(),
                project: scope.key().map(str::to_owned),
                ..NewMemory::default()
            };
            (memory, lesson.replaces)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(body: &str, project: &str) -> NewMemory {
        NewMemory {
            body: body.to_owned(),
            source: "test".to_owned(),
            project: Some(project.to_owned()),
            ..NewMemory::default()
        }
    }

    fn payload(session: &str) -> Payload {
        Payload {
            session_id: session.to_owned(),
            cwd: "/p".into(),
            ..Payload::default()
        }
    }

    fn supersedes_of(store: &Store, id: i64, scope: &Scope) -> Vec<Option<i64>> {
        let history = store.history(id, scope).unwrap();
        history
            .into_iter()
            .filter(|e| e.action == "supersede")
            .map(|e| e.other_id)
            .collect()
    }

    #[test]
    fn a_lesson_replaces_what_the_session_sees_and_keeps_itself_when_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let (here, there) = (Scope::project("p"), Scope::project("q"));
        let old = note("Webhook retry limit is 5 attempts", "p");
        let old = store.remember(&old, &[], &here).unwrap().id;
        let theirs = note("Another project's retry note", "q");
        let theirs = store.remember(&theirs, &[], &there).unwrap().id;

        store.mark_injected("s1", &[old, theirs]).unwrap();
        let lesson = note("Webhook retries: 8 attempts", "p");
        let (recorded, failed) = stop(
            &mut store,
            &here,
            &payload("s1"),
            vec![(lesson, vec![old, theirs, old])],
            None,
        )
        .unwrap();
        assert_eq!(recorded.len(), 1);
        let err = failed.join("; ");
        assert!(err.contains(&format!("replaces {theirs} refused")), "{err}");

        let new = store.recent(&here, 1).unwrap().remove(0);
        assert_eq!(new.body, "Webhook retries: 8 attempts");
        assert_eq!(supersedes_of(&store, old, &here), [Some(new.id)]);
        assert!(store.get(theirs, &there).unwrap().unwrap().is_live());
    }

    /// A reply may name an id its session was never shown (a guess, or an id that named
    /// another memory when it was read): the lesson is stored as new and the refusal logged.
    #[test]
    fn a_lesson_replaces_only_what_its_session_was_shown_or_wrote() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let here = Scope::project("p");
        let unseen = store.remember(&note("Deploys go out on Fridays", "p"), &[], &here);
        let unseen = unseen.unwrap().id;
        let own = NewMemory {
            source: format!("{}2026-12-01", lesson_label(&payload("s1"))),
            ..note("Webhook retries: 5 attempts", "p")
        };
        let own = store.remember(&own, &[], &here).unwrap().id;
        let lessons = vec![
            (note("Deploys go out on Tuesdays", "p"), vec![unseen]),
            (note("Webhook retries: 8 attempts", "p"), vec![own]),
        ];
        let (recorded, failed) = stop(&mut store, &here, &payload("s1"), lessons, None).unwrap();
        assert_eq!(recorded.len(), 2);
        let err = failed.join("; ");
        assert!(
            err.contains(&format!(
                "replaces {unseen} refused: this session was never shown"
            )),
            "{err}"
        );
        assert!(store.get(unseen, &here).unwrap().unwrap().is_live());
        assert!(!store.get(own, &here).unwrap().unwrap().is_live());
    }

    #[test]
    fn a_lesson_that_cannot_hide_a_global_memory_is_kept_without_replacing() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let here = Scope::project("p");
        let global = NewMemory {
            project: None,
            ..note("Deploys need two approvals", "p")
        };
        let global = store.remember(&global, &[], &Scope::global()).unwrap().id;

        store.mark_injected("s1", &[global]).unwrap();
        let lesson = note("Deploys need one approval", "p");
        let (recorded, failed) = stop(
            &mut store,
            &here,
            &payload("s1"),
            vec![(lesson, vec![global])],
            None,
        )
        .unwrap();
        assert_eq!(recorded.len(), 1);
        let err = failed.join("; ");
        assert!(err.contains("kept without replacing"), "{err}");
        assert!(store.get(global, &here).unwrap().unwrap().is_live());
        assert_eq!(store.count_live(&here).unwrap(), 2);
    }
}
