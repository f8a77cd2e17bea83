//! What a view that browses the store reads (`synapse ui`): the memories a scope sees, newest
//! first, a chunk at a time and each only to its opening, and how many there are.
//!
//! A view shows a screen of memories and fetches more as the reader scrolls: opening on a store of
//! ten thousand memories must not read ten thousand bodies. Each chunk starts after the last row
//! of the one before (by creation time, then id), so a chunk costs the same wherever it is.

use anyhow::Result;

use super::{heads, Memory, HEAD_COLUMNS};
use super::{Scope, Store, LIVE, VISIBLE};

/// The most bytes of each body a chunk reads: enough for an opening line.
pub const OPENING_BYTES: usize = 512;

/// Where a chunk of the listing starts: after the memory made at `created_at` (seconds) with
/// `id`, in newest-first order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct After {
    pub created_at: i64,
    pub id: i64,
}

impl Store {
    /// Up to `limit` memories visible from `scope`, newest first, starting after `after` (from the
    /// newest when `None`); only live ones unless `all`. Each body is read only to its first
    /// `OPENING_BYTES` (see `Memory::body`; `bytes` is the whole size).
    pub fn chunk(
        &self,
        scope: &Scope,
        all: bool,
        after: Option<After>,
        limit: usize,
    ) -> Result<Vec<Memory>> {
        // The live listing walks the index of live memories by time; the whole one has none
        // that covers forgotten rows, and sorts what the scope sees.
        let (index, live) = if all {
            ("", "1")
        } else {
            ("INDEXED BY memories_recent", LIVE)
        };
        let sql = format!(
            "SELECT {HEAD_COLUMNS} FROM memories m {index} \
             WHERE {VISIBLE} AND {live} AND (m.created_at, m.id) < (?2, ?3) \
             ORDER BY m.created_at DESC, m.id DESC LIMIT ?4"
        );
        let (created_at, id) = after.map_or((i64::MAX, i64::MAX), |a| (a.created_at, a.id));
        let mut stmt = self.conn().prepare_cached(&sql)?;
        let rows = stmt.query_map(
            rusqlite::params![scope.key(), created_at, id, limit as i64],
            Memory::from_head_row,
        )?;
        heads(
            self.conn(),
            rows.collect::<rusqlite::Result<_>>()?,
            OPENING_BYTES,
        )
    }

    /// How many memories `scope` sees: live ones, or every one in any state when `all`.
    pub fn count_visible(&self, scope: &Scope, all: bool) -> Result<i64> {
        if !all {
            return self.count_live(scope);
        }
        let sql = format!("SELECT count(*) FROM memories m WHERE {VISIBLE}");
        Ok(self.conn().query_row(&sql, [scope.key()], |r| r.get(0))?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn remember(store: &mut Store, body: &str, project: Option<&str>, at: i64) -> i64 {
        crate::store::remember_at(store, body, project, Some(at))
    }

    #[test]
    fn chunks_walk_the_visible_memories_newest_first_without_overlap() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let scope = Scope::project("p");
        let mut ids = Vec::new();
        for i in 0..7 {
            ids.push(remember(
                &mut store,
                &format!("note {i}"),
                Some("p"),
                100 + i / 2,
            ));
        }
        remember(&mut store, "another project's", Some("q"), 500);
        let global = remember(&mut store, "global", None, 50);
        store.forget(ids[6], &scope).unwrap();

        let mut seen = Vec::new();
        let mut after = None;
        loop {
            let chunk = store.chunk(&scope, false, after, 3).unwrap();
            let Some(last) = chunk.last() else { break };
            after = Some(After {
                created_at: last.created_at.seconds(),
                id: last.id,
            });
            seen.extend(chunk.iter().map(|m| m.id));
        }
        let mut expected: Vec<i64> = ids[..6].iter().rev().copied().collect();
        expected.push(global);
        assert_eq!(seen, expected);
        assert_eq!(store.count_visible(&scope, false).unwrap(), 7);

        let all: Vec<i64> = store
            .chunk(&scope, true, None, 100)
            .unwrap()
            .iter()
            .map(|m| m.id)
            .collect();
        assert_eq!(all[0], ids[6], "the forgotten one is listed with all");
        assert_eq!(all.len(), 8);
        assert_eq!(store.count_visible(&scope, true).unwrap(), 8);
    }

    #[test]
    fn a_chunk_reads_only_the_opening_of_a_long_body() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let long = format!("first line\n{}", "é".repeat(20_000));
        remember(&mut store, &long, Some("p"), 1);
        let chunk = store.chunk(&Scope::project("p"), false, None, 1).unwrap();
        assert!(chunk[0].body.len() <= OPENING_BYTES);
        assert!(chunk[0].body.starts_with("first line\n"));
        assert_eq!(chunk[0].bytes, long.len());
    }
}
