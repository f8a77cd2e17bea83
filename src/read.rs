//! Exact reading: one memory's stored bytes, a page at a time.
//!
//! The page is read through SQLite's incremental blob I/O, which reads only the pages of the
//! database that hold the requested bytes: paging a 16 MiB memory never loads it whole. Pages end on a character boundary, and concatenating them
//! gives the stored text byte for byte: NULs, multibyte text, code and whitespace included.

use anyhow::{bail, Context, Result};
use rusqlite::OptionalExtension;
use serde::Serialize;

use crate::store::{Scope, Store};

/// The most bytes of a source label a page carries.
pub const SOURCE_BYTES: usize = 240;

/// One page of a memory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Page {
    pub id: i64,
    pub body: String,
    /// Byte offset of this page in the body.
    pub offset: usize,
    /// Where the next page starts; `None` at the end.
    pub next: Option<usize>,
    /// The body's size in bytes.
    pub total: usize,
    pub source: String,
    /// The source label was cut to `SOURCE_BYTES`.
    pub sourceabridged: bool,
}

/// Read up to `page_bytes` of memory `id` from byte `offset`. A missing, superseded, forgotten or
/// out-of-scope id answers `None`; an offset past the end or inside a character is an error.
pub fn read(
    store: &Store,
    scope: &Scope,
    id: i64,
    offset: usize,
    page_bytes: usize,
) -> Result<Option<Page>> {
    // One snapshot for the checks and the bytes.
    store.read(|| read_in(store, scope, id, offset, page_bytes))
}

fn read_in(
    store: &Store,
    scope: &Scope,
    id: i64,
    offset: usize,
    page_bytes: usize,
) -> Result<Option<Page>> {
    let row: Option<(i64, i64, Vec<u8>)> = store
        .conn()
        .prepare_cached(
            // `octet_length` of the body reads its size from the row, not the body; `substr` of
            // an empty blob is NULL, hence the `coalesce` (an empty source label).
            "SELECT octet_length(m.body), length(CAST(m.source AS BLOB)), \
                    coalesce(substr(CAST(m.source AS BLOB), 1, ?3), X'') \
             FROM memories m WHERE (m.project IS NULL OR m.project = ?1) AND m.id = ?2 \
             AND m.superseded_by IS NULL AND m.forgotten_at IS NULL",
        )?
        .query_row(
            rusqlite::params![scope.key(), id, SOURCE_BYTES as i64],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()
        .with_context(|| format!("could not read memory {id}"))?;
    let Some((total, source_total, source)) = row else {
        return Ok(None);
    };
    let (total, source_total) = (total as usize, source_total as usize);
    if offset > total {
        bail!("offset {offset} is past the end of memory {id} ({total} bytes)");
    }
    let mut slice = vec![0u8; page_bytes.min(total - offset)];
    if !slice.is_empty() {
        store
            .conn()
            .blob_open(rusqlite::MAIN_DB, "memories", "body", id, true)?
            .read_at_exact(&mut slice, offset)
            .with_context(|| format!("could not read memory {id}"))?;
    }
    if slice.first().is_some_and(|b| (0x80..0xC0).contains(b)) {
        bail!(
            "offset {offset} is inside a character of memory {id}; use 0 or a `next` from a page"
        );
    }
    let body = whole_chars(&slice, page_bytes)
        .with_context(|| format!("memory {id} holds bytes that are not UTF-8"))?;
    let end = offset + body.len();
    let source_text = whole_chars(&source, SOURCE_BYTES)
        .with_context(|| format!("the source of memory {id} is not UTF-8"))?;
    Ok(Some(Page {
        id,
        offset,
        next: (end < total).then_some(end),
        total,
        sourceabridged: source_text.len() < source_total,
        source: source_text,
        body,
    }))
}

/// The longest prefix of `bytes` of at most `limit` bytes that ends on a character boundary.
pub(crate) fn whole_chars(bytes: &[u8], limit: usize) -> Result<String> {
    let mut cut = &bytes[..bytes.len().min(limit)];
    if let Err(e) = std::str::from_utf8(cut) {
        if e.error_len().is_some() {
            bail!("invalid UTF-8 at byte {}", e.valid_up_to());
        }
        cut = &cut[..e.valid_up_to()];
    }
    Ok(String::from_utf8(cut.to_vec())?)
}

#[cfg(test)]
mod tests {
    use super::whole_chars;

    #[test]
    fn pages_end_on_character_boundaries() {
        let text = "aé€😀";
        assert_eq!(whole_chars(text.as_bytes(), 2).unwrap(), "a");
        assert_eq!(whole_chars(text.as_bytes(), 3).unwrap(), "aé");
        assert_eq!(whole_chars(text.as_bytes(), 100).unwrap(), text);
    }
}
