//! Dismissed drift findings: the ones a person looked at and judged fine, so an audit stops
//! reporting them (`drift::settle`). A dismissal names the finding by its kind, its memory, the
//! newer memory of a pair and its reason; it holds while all four are the same (a memory's text
//! is never edited in place, so the same ids and reason are the same finding), across a forget
//! and a restore of either memory, and lapses when the reason changes (another path gone, a
//! value changed again). It goes with a memory that is deleted (a piece its file no longer
//! holds), since a later memory may be given the same id.

use anyhow::{bail, Result};
use rusqlite::Connection;
use serde::Serialize;

use super::history::{self, Action};
use super::{now, require_in, Scope, Stamp, Store, VISIBLE};

/// One dismissed finding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Dismissal {
    /// The finding's kind, as drift names it (`stale`, `conflict`, `duplicate`).
    pub kind: String,
    /// The memory the finding is against.
    pub id: i64,
    /// Of a pair, the newer memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub newer: Option<i64>,
    /// The finding's reason when it was dismissed.
    pub why: String,
    pub at: Stamp,
}

/// What a dismissal stores as the newer memory of a finding without one: no memory has id 0.
const NO_NEWER: i64 = 0;

impl Store {
    /// Record that the finding of `kind` on `id` (and `newer`, for a pair), for reason `why`,
    /// was looked at and judged fine; a history entry on `id` says so. Both memories must be
    /// visible from `scope`. Dismissing it again only renews the time.
    pub fn dismiss(
        &mut self,
        kind: &str,
        id: i64,
        newer: Option<i64>,
        why: &str,
        scope: &Scope,
    ) -> Result<()> {
        self.write(|conn| {
            require_in(conn, id, scope)?;
            if let Some(newer) = newer {
                require_in(conn, newer, scope)?;
            }
            let at = now();
            conn.prepare_cached(
                "INSERT INTO dismissed(memory_id, newer, kind, why, at) VALUES (?1, ?2, ?3, ?4, ?5) \
                 ON CONFLICT DO UPDATE SET at = excluded.at",
            )?
            .execute(rusqlite::params![
                id,
                newer.unwrap_or(NO_NEWER),
                kind,
                why,
                at
            ])?;
            history::record(conn, id, at, Action::Dismiss, newer)
        })
    }

    /// Take back every dismissal of the findings on `id` (with `newer`, or none for a stale
    /// one), whatever their kind; returns what was taken back. Nothing dismissed is an error.
    pub fn undismiss(
        &mut self,
        id: i64,
        newer: Option<i64>,
        scope: &Scope,
    ) -> Result<Vec<Dismissal>> {
        self.write(|conn| {
            require_in(conn, id, scope)?;
            let taken: Vec<Dismissal> = dismissals_where(conn, scope, Some((id, newer)))?;
            if taken.is_empty() {
                let finding = match newer {
                    Some(newer) => format!("{id}:{newer}"),
                    None => id.to_string(),
                };
                bail!(
                    "no dismissed finding on {finding} (see `synapse drift --dismissed`; a \
                     pair is named OLDER:NEWER)"
                );
            }
            conn.prepare_cached("DELETE FROM dismissed WHERE memory_id = ?1 AND newer = ?2")?
                .execute(rusqlite::params![id, newer.unwrap_or(NO_NEWER)])?;
            history::record(conn, id, now(), Action::Undismiss, newer)?;
            Ok(taken)
        })
    }

    /// The dismissals whose memories `scope` sees, oldest first.
    pub fn dismissals(&self, scope: &Scope) -> Result<Vec<Dismissal>> {
        dismissals_where(self.conn(), scope, None)
    }
}

/// The dismissals whose memory `scope` sees (only those of `finding`, `(id, newer)`, if given).
fn dismissals_where(
    conn: &Connection,
    scope: &Scope,
    finding: Option<(i64, Option<i64>)>,
) -> Result<Vec<Dismissal>> {
    let (id, newer) = match finding {
        Some((id, newer)) => (Some(id), Some(newer.unwrap_or(NO_NEWER))),
        None => (None, None),
    };
    let mut stmt = conn.prepare_cached(&dismissals_sql())?;
    let rows = stmt.query_map(rusqlite::params![scope.key(), id, newer], |r| {
        let newer: i64 = r.get(2)?;
        Ok(Dismissal {
            kind: r.get(0)?,
            id: r.get(1)?,
            newer: (newer != NO_NEWER).then_some(newer),
            why: r.get(3)?,
            at: Stamp::read(r, 4)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The dismissals whose memory the scope `?1` sees, only those of `(?2, ?3)` when `?2` is set.
/// CROSS JOIN walks the dismissals (a person's few) and looks each memory up by id; left to
/// itself the planner walks every memory the scope sees and probes the dismissals for each, a
/// cost that grows with the store, paid by every hook that found drift.
fn dismissals_sql() -> String {
    format!(
        "SELECT d.kind, d.memory_id, d.newer, d.why, d.at FROM dismissed d \
         CROSS JOIN memories m ON m.id = d.memory_id \
         WHERE {VISIBLE} AND (?2 IS NULL OR (d.memory_id = ?2 AND d.newer = ?3)) \
         ORDER BY d.at, d.memory_id, d.newer, d.kind"
    )
}

/// Take out every dismissal naming the memory `id` (inside the caller's transaction, as it
/// deletes the memory): a later memory given the same id must not inherit them.
pub(crate) fn forget_memory(conn: &Connection, id: i64) -> Result<()> {
    conn.prepare_cached("DELETE FROM dismissed WHERE memory_id = ?1 OR newer = ?1")?
        .execute([id])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(store: &mut Store, body: &str) -> i64 {
        crate::store::remember_at(store, body, Some("p"), None)
    }

    /// Listing the dismissals walks the dismissals and looks their memories up, never every
    /// memory the scope sees: the hooks list them whenever drift found something.
    #[test]
    fn dismissals_are_listed_without_a_walk_of_the_memories() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let plan: Vec<String> = store
            .conn()
            .prepare(&format!("EXPLAIN QUERY PLAN {}", dismissals_sql()))
            .unwrap()
            .query_map(rusqlite::params!["p", None::<i64>, None::<i64>], |r| {
                r.get(3)
            })
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(plan[0], "SCAN d", "{plan:?}");
        assert!(
            plan[1].starts_with("SEARCH m USING INTEGER PRIMARY KEY"),
            "{plan:?}"
        );
    }

    #[test]
    fn a_dismissal_is_listed_in_its_scope_only_and_taken_back_once() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let scope = Scope::project("p");
        let (old, new) = (
            note(&mut store, "retries: 3"),
            note(&mut store, "retries: 5"),
        );
        store
            .dismiss("conflict", old, Some(new), "retries: 3 vs 5", &scope)
            .unwrap();
        // Again: one row, the time renewed.
        store
            .dismiss("conflict", old, Some(new), "retries: 3 vs 5", &scope)
            .unwrap();
        let listed = store.dismissals(&scope).unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!((listed[0].id, listed[0].newer), (old, Some(new)));
        assert!(store.dismissals(&Scope::project("q")).unwrap().is_empty());
        let err = store
            .dismiss("stale", old, None, "x", &Scope::project("q"))
            .unwrap_err();
        assert!(
            err.to_string().contains(&format!("no memory {old}")),
            "{err}"
        );
        let history: Vec<String> = store
            .history(old, &scope)
            .unwrap()
            .into_iter()
            .map(|e| e.action)
            .collect();
        assert_eq!(history, ["remember", "dismiss", "dismiss"]);
        assert!(store.undismiss(old, None, &scope).is_err(), "not the pair");
        assert_eq!(store.undismiss(old, Some(new), &scope).unwrap(), listed);
        assert!(store.dismissals(&scope).unwrap().is_empty());
        assert!(store.undismiss(old, Some(new), &scope).is_err());
    }
}
