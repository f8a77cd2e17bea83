//! Raw bytes of one live memory, for paging (`read`): its size, its source label's first bytes,
//! and a run of its body from an offset, read through SQLite's incremental blob I/O so that a
//! page of a 16 MiB memory costs a page, not the memory.

use anyhow::Result;
use rusqlite::OptionalExtension;

use super::{Scope, Store, LIVE, VISIBLE};

/// What `Store::bytes_at` read; the bytes may end inside a character.
pub struct RawPage {
    /// The body's size in bytes.
    pub total: usize,
    /// The source label's size in bytes.
    pub source_total: usize,
    /// The source label's first bytes.
    pub source: Vec<u8>,
    /// Up to the asked length of the body from the offset (empty past the end).
    pub bytes: Vec<u8>,
}

impl Store {
    /// Up to `len` bytes of live memory `id`'s body from byte `offset`, with its size and the
    /// first `source_len` bytes of its source; `None` when no live memory `id` is visible from
    /// `scope`. Call it inside `Store::read` for one snapshot of the size and the bytes.
    pub fn bytes_at(
        &self,
        scope: &Scope,
        id: i64,
        offset: usize,
        len: usize,
        source_len: usize,
    ) -> Result<Option<RawPage>> {
        // `octet_length` of the body reads its size from the row, not the body; `substr` of an
        // empty blob is NULL, hence the `coalesce` (an empty source label).
        let sql = format!(
            "SELECT octet_length(m.body), length(CAST(m.source AS BLOB)), \
                    coalesce(substr(CAST(m.source AS BLOB), 1, ?3), X'') \
             FROM memories m WHERE {VISIBLE} AND m.id = ?2 AND {LIVE}"
        );
        let row: Option<(i64, i64, Vec<u8>)> = self
            .conn()
            .prepare_cached(&sql)?
            .query_row(rusqlite::params![scope.key(), id, source_len as i64], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .optional()?;
        let Some((total, source_total, source)) = row else {
            return Ok(None);
        };
        let (total, source_total) = (total as usize, source_total as usize);
        let mut bytes = vec![0u8; len.min(total.saturating_sub(offset))];
        if !bytes.is_empty() {
            self.conn()
                .blob_open(rusqlite::MAIN_DB, "memories", "body", id, true)?
                .read_at_exact(&mut bytes, offset)?;
        }
        Ok(Some(RawPage {
            total,
            source_total,
            source,
            bytes,
        }))
    }
}
