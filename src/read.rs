//! Exact reading: one memory's stored bytes, a page at a time.
//!
//! The page is read through SQLite's incremental blob I/O, which reads only the pages of the
//! database that hold the requested bytes: paging a 16 MiB memory never loads it whole. Pages end on a character boundary, and concatenating them
//! gives the stored text byte for byte: NULs, multibyte text, code and whitespace included.

use anyhow::{bail, Context, Result};
use serde::Serialize;

use crate::store::{Scope, Store};
use crate::text::whole_chars;

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
    let raw = store.read(|| {
        store
            .bytes_at(scope, id, offset, page_bytes, SOURCE_BYTES)
            .with_context(|| format!("could not read memory {id}"))
    })?;
    let Some(raw) = raw else {
        return Ok(None);
    };
    let (total, source_total, source, slice) = (raw.total, raw.source_total, raw.source, raw.bytes);
    if offset > total {
        bail!("offset {offset} is past the end of memory {id} ({total} bytes)");
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
