//! Settling a drift finding the way a person chose, through the store's own writes, so every
//! change has its history entry and its undo: the command line (`synapse drift --dismiss`,
//! `--settle`) and the terminal UI both call `settle`.
//!
//! Nothing here decides: a finding is a candidate (a guess may order, mark or point, never
//! hide), and a person names what to do with each.
//!
//! A memory that is a piece of one of Claude Code's files (`crate::sources`) is settled in the
//! store like any other, and stays settled while that part of the file keeps its text (a fold
//! keeps an unchanged piece's memory, forgotten or superseded as it is; an edited piece is a new
//! memory). The file itself is Claude Code's,
//! which still reads it: the line says so, naming the file and line to edit.

use anyhow::{bail, Result};

use super::{FileLine, Finding, Kind};
use crate::store::{Scope, Store};

/// How a person settles one drift finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settle {
    /// Of a pair (conflict, duplicate), mark the older memory (`finding.id`) replaced by the
    /// newer (`finding.newer`). A stale finding has no newer memory: an error.
    SupersedeOlder,
    /// Forget this memory: `finding.id` or `finding.newer`, nothing else.
    Forget(i64),
    /// Judge the finding fine: drift stops reporting it (`store::dismissed`), until it is taken
    /// back with `synapse drift --undismiss` or its reason changes. It holds across a forget and
    /// a restore of either memory (their text is unchanged), and goes with a memory deleted.
    Dismiss,
}

/// Settle `finding` in `scope` through the store's own write functions (history kept, undoable);
/// returns one line saying what was done, with its undo command.
pub fn settle(store: &mut Store, scope: &Scope, finding: &Finding, how: Settle) -> Result<String> {
    match how {
        Settle::SupersedeOlder => {
            let (Some(newer), Some(newer_named)) = (finding.newer, finding.newer_named()) else {
                bail!(
                    "{} is {}, with no newer memory to be superseded by: forget it or dismiss \
                     the finding",
                    finding.named(),
                    kind_said(finding.kind)
                );
            };
            store.supersede(finding.id, newer, scope)?;
            Ok(format!(
                "superseded {} by newer {newer_named} (undo: synapse restore {}){}",
                finding.named(),
                finding.id,
                still_in_file(finding.source.as_ref())
            ))
        }
        Settle::Forget(id) => {
            let (named, place) = if id == finding.id {
                (finding.named(), finding.source.as_ref())
            } else if Some(id) == finding.newer {
                (
                    finding.newer_named().unwrap_or_else(|| id.to_string()),
                    finding.newer_source.as_ref(),
                )
            } else {
                bail!(
                    "memory {id} is not part of this finding ({}): forget {} or its newer memory \
                     through it, or use `synapse forget {id}`",
                    finding.describe(),
                    finding.id
                );
            };
            store.forget(id, scope)?;
            Ok(format!(
                "forgot {named} (undo: synapse restore {id}){}",
                still_in_file(place)
            ))
        }
        Settle::Dismiss => {
            let kind = finding.kind.as_str();
            store.dismiss(kind, finding.id, finding.newer, &finding.why, scope)?;
            let (on, name) = match (finding.newer, finding.newer_named()) {
                (Some(newer), Some(named)) => (
                    format!("{} vs newer {named}", finding.named()),
                    format!("{}:{newer}", finding.id),
                ),
                _ => (finding.named(), finding.id.to_string()),
            };
            Ok(format!(
                "dismissed the {kind} finding on {on} ({}): drift no longer reports it (undo: \
                 synapse drift --undismiss {name})",
                finding.why
            ))
        }
    }
}

/// What kind of finding it is, in a sentence: "stale".
fn kind_said(kind: Kind) -> &'static str {
    match kind {
        Kind::Stale => "stale",
        Kind::Conflict => "in conflict",
        Kind::Duplicate => "a duplicate",
    }
}

/// For a memory that is a piece of one of Claude Code's files, written at `place`: what settling
/// it in the store does not do.
fn still_in_file(place: Option<&FileLine>) -> String {
    match place {
        Some(place) => format!(
            "; the text stays in {place}, where Claude Code still reads it: edit the file there \
             to take it out (Synapse keeps the memory hidden while that part of the file is \
             unchanged)"
        ),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Ignore;

    /// Every finding `scope` sees, ignoring the default paths.
    fn audit(store: &Store, scope: &Scope) -> Vec<Finding> {
        crate::drift::audit(store, scope, &Ignore::default()).unwrap()
    }

    fn note(store: &mut Store, body: &str, at: i64) -> i64 {
        crate::store::remember_at(store, body, Some("p"), Some(at))
    }

    /// Two memories repeating each other (one stored again with other punctuation), found by an
    /// audit: one certain duplicate finding.
    fn duplicate_pair(store: &mut Store) -> Finding {
        note(store, "Deploy with make release.", 1_000);
        note(store, "deploy with make release", 2_000);
        let findings = audit(store, &Scope::project("p"));
        assert_eq!(findings.len(), 1, "{findings:?}");
        findings[0].clone()
    }

    #[test]
    fn superseding_the_older_replaces_it_by_the_newer_with_its_undo() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let scope = Scope::project("p");
        let f = duplicate_pair(&mut store);
        let line = settle(&mut store, &scope, &f, Settle::SupersedeOlder).unwrap();
        let newer = f.newer.unwrap();
        assert_eq!(
            line,
            format!(
                "superseded {} by newer {newer} (undo: synapse restore {})",
                f.id, f.id
            )
        );
        let old = store.get(f.id, &scope).unwrap().unwrap();
        assert_eq!(old.superseded_by, Some(newer));
        assert!(audit(&store, &scope).is_empty());
    }

    #[test]
    fn a_stale_finding_cannot_be_superseded_and_only_its_memories_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let scope = Scope::project("p");
        let f = duplicate_pair(&mut store);
        let stale = Finding {
            kind: Kind::Stale,
            newer: None,
            ..f.clone()
        };
        let err = settle(&mut store, &scope, &stale, Settle::SupersedeOlder).unwrap_err();
        assert!(err.to_string().contains("forget it or dismiss"), "{err}");
        let err = settle(&mut store, &scope, &f, Settle::Forget(999)).unwrap_err();
        assert!(err.to_string().contains("memory 999 is not part"), "{err}");
        assert!(store.get(f.id, &scope).unwrap().unwrap().is_live());
        let newer = f.newer.unwrap();
        let line = settle(&mut store, &scope, &f, Settle::Forget(newer)).unwrap();
        assert_eq!(
            line,
            format!("forgot {newer} (undo: synapse restore {newer})")
        );
        assert!(store
            .get(newer, &scope)
            .unwrap()
            .unwrap()
            .forgotten_at
            .is_some());
    }

    #[test]
    fn a_dismissed_finding_is_no_longer_reported_and_comes_back_when_taken_back() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let scope = Scope::project("p");
        let f = duplicate_pair(&mut store);
        let newer = f.newer.unwrap();
        let older = store.head(f.id, &scope).unwrap();
        let checked = |store: &Store| {
            crate::drift::check(
                store,
                &scope,
                std::slice::from_ref(&older),
                crate::drift::Partners::Newer,
                &Ignore::default(),
            )
            .unwrap()
        };
        assert_eq!(checked(&store).len(), 1);
        let line = settle(&mut store, &scope, &f, Settle::Dismiss).unwrap();
        assert!(
            line.ends_with(&format!(
                "(undo: synapse drift --undismiss {}:{newer})",
                f.id
            )),
            "{line}"
        );
        assert!(audit(&store, &scope).is_empty());
        // What recall and the hooks check leaves it out too: they no longer set the older aside.
        assert!(checked(&store).is_empty());
        // Both memories stay as they were.
        assert!(store.get(f.id, &scope).unwrap().unwrap().is_live());
        // Across a forget and a restore, the dismissal holds.
        store.forget(f.id, &scope).unwrap();
        store.restore(f.id, &scope).unwrap();
        assert!(audit(&store, &scope).is_empty());
        store.undismiss(f.id, Some(newer), &scope).unwrap();
        assert_eq!(audit(&store, &scope), vec![f]);
    }

    #[test]
    fn a_dismissal_lapses_when_the_reason_changes() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let scope = Scope::project("p");
        let f = duplicate_pair(&mut store);
        let earlier = Finding {
            why: "an earlier reason".into(),
            ..f.clone()
        };
        settle(&mut store, &scope, &earlier, Settle::Dismiss).unwrap();
        assert_eq!(audit(&store, &scope), vec![f]);
    }
}
