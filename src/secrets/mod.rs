//! Secrets in memory text: found and replaced by a marker before anything is stored.
//!
//! One detector for every write path. [`mask`] runs each reader over the text; each adds spans
//! of secret bytes, which are then merged and replaced by [`MARKER`]. Everything else is kept
//! byte for byte. The readers, one module each:
//!
//! - [`catalogue`]: vendor secrets by the field's rule catalogues as data (gitleaks', Nosey
//!   Parker's, Kingfisher's), and Synapse's own rules in gitleaks' format for the shapes they
//!   miss, URL credentials and commands that take a password by position (`docs/secrets.md`).
//! - [`reader`]: one assignment reader: a key that names a secret, a separator, a value
//!   (`KEY=value`, `key: value`, `"key": "value"`, `key is value`, `--flag value`, `-p`,
//!   `-u user:password`, `<key>value</key>`, `setKey("value")`, `f("KEY", "value")`); and
//!   credential lines, Markdown tables and Kubernetes Secrets, whose place names the value.
//! - [`positional`]: passwords known by where they stand: piped by `echo` into a command that
//!   reads one, the lines of a credential file named before them, `user/password@host`.
//! - [`prose`]: a value shaped like a password a few words after a word such as "password"
//!   or "secret" in a sentence, in several languages and scripts; and bare passwords.
//! - [`strength`]: one score of how surely a value is a secret, after the exclusions that
//!   keep look-alikes; each place asks for its own grade.
//!
//! A value found once is then masked wherever else it stands in the text ([`repeats`]).
//!
//! Every scan is linear: each byte is read a bounded number of times (values, windows and
//! look-backs have fixed caps). The scans cut the text only where a byte they checked is ASCII,
//! so any UTF-8 is safe; nothing here slices a `str` by a computed index or unwraps.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

mod catalogue;
mod positional;
mod prose;
mod reader;
mod repeats;
mod strength;
/// The reader's word lists, as data: `words.toml`, written out by `build.rs`.
mod words {
    include!(concat!(env!("OUT_DIR"), "/words.rs"));
}

use serde::Serialize;

/// What a masked secret becomes.
pub const MARKER: &str = "[secret]";

/// Whether a write masks secrets (always, unless a user asks otherwise with `--allow-secrets`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Secrets {
    #[default]
    Mask,
    /// Store the text as given.
    Allow,
}

/// One secret found and masked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Found {
    /// What it looked like: a catalogue rule's id ("asana-client-secret", "private-key") or a
    /// reader's name ("password", "api key").
    pub kind: &'static str,
    /// Where its marker starts in the masked text (bytes).
    pub at: usize,
}

/// A text with its secrets masked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Masked {
    pub text: String,
    pub found: Vec<Found>,
}

/// At most this many passes of the detector over one text (see `mask`).
const MAX_PASSES: usize = 8;

/// `text` with every secret replaced by `MARKER`, and what was found.
///
/// A rule may judge a value by its surroundings, and a marker changes them: masked text, masked
/// again, could lose more. So the detector runs again over its own output until a pass finds
/// nothing (a text with no secret takes one pass, one with secrets usually two), and masking is
/// idempotent: a body stored masked, exported and imported back, is stored unchanged.
pub fn mask(text: &str) -> Masked {
    let (mut masked, mut replaced) = mask_once(text);
    for _ in 1..MAX_PASSES {
        if replaced.is_empty() {
            break;
        }
        let (next, again) = mask_once(&masked.text);
        // Markers of earlier passes move by what each replacement before them changed.
        for f in &mut masked.found {
            let before = again.iter().filter(|&&(_, end)| end <= f.at);
            f.at = before.fold(f.at, |p, &(start, end)| p + MARKER.len() - (end - start));
        }
        masked.found.extend(next.found);
        masked.found.sort_by_key(|f| f.at);
        masked.text = next.text;
        replaced = again;
    }
    masked
}

/// One pass of the detector: the masked text, and the spans it replaced (in `text`).
fn mask_once(text: &str) -> (Masked, Vec<(usize, usize)>) {
    let mut spans = Vec::new();
    catalogue::scan(text, &mut spans);
    reader::scan(text, &mut spans);
    reader::lines(text, &mut spans);
    reader::tables(text, &mut spans);
    reader::kube_secret(text, &mut spans);
    positional::scan(text, &mut spans);
    positional::files(text, &mut spans);
    positional::logins(text, &mut spans);
    prose::scan(text, &mut spans);
    repeats::repeats(text, &mut spans);
    keep_markers(text, &mut spans);
    replace(text, spans)
}

/// Drop the spans that reach into a marker already in `text`: what a marker stands for is
/// masked, and a span over one would mask it again with what surrounds it.
fn keep_markers(text: &str, spans: &mut Vec<Span>) {
    let markers: Vec<(usize, usize)> = text
        .match_indices(MARKER)
        .map(|(at, m)| (at, at + m.len()))
        .collect();
    if !markers.is_empty() {
        spans.retain(|s| !markers.iter().any(|&(a, z)| s.start < z && a < s.end));
    }
}

/// A run of secret bytes, `start..end`, found by one rule.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: usize,
    end: usize,
    kind: &'static str,
    /// Which label wins when spans overlap: lower is more specific.
    rank: u8,
}

impl Span {
    fn new(start: usize, end: usize, kind: &'static str, rank: u8) -> Span {
        Span {
            start,
            end,
            kind,
            rank,
        }
    }
}

/// The byte at `i`, or 0 past either end.
#[inline]
fn at(b: &[u8], i: usize) -> u8 {
    b.get(i).copied().unwrap_or(0)
}

/// How many bytes from `i` on satisfy `f`.
fn ahead(b: &[u8], i: usize, f: impl Fn(u8) -> bool) -> usize {
    b.get(i..)
        .unwrap_or_default()
        .iter()
        .take_while(|&&c| f(c))
        .count()
}

/// How many bytes right before `i` satisfy `f`.
fn behind(b: &[u8], i: usize, f: impl Fn(u8) -> bool) -> usize {
    b.get(..i)
        .unwrap_or_default()
        .iter()
        .rev()
        .take_while(|&&c| f(c))
        .count()
}

/// How far the line around a place is read each way: a longer line is read as this window, so
/// that many places on one long line do not each read all of it.
const LINE_REACH: usize = 512;

/// The line around `start..end` (byte offsets), at most `LINE_REACH` bytes each way.
fn line_around(text: &str, start: usize, end: usize) -> (usize, usize) {
    let b = text.as_bytes();
    let (from, to) = (
        start.saturating_sub(LINE_REACH),
        (end + LINE_REACH).min(b.len()),
    );
    let newline = |c: &u8| *c == b'\n';
    let line = b.get(from..start).and_then(|h| h.iter().rposition(newline));
    let mut s = line.map_or(from, |p| from + p + 1);
    let mut e = b
        .get(end..to)
        .and_then(|t| t.iter().position(newline))
        .map_or(to, |p| end + p);
    while s < e && !text.is_char_boundary(s) {
        s += 1;
    }
    while e > s && !text.is_char_boundary(e) {
        e -= 1;
    }
    (s, e)
}

/// The byte before `i`, or 0 at the start.
#[inline]
fn before(b: &[u8], i: usize) -> u8 {
    i.checked_sub(1).map_or(0, |j| at(b, j))
}

/// Replace the (merged) spans by the marker.
fn replace(text: &str, mut spans: Vec<Span>) -> (Masked, Vec<(usize, usize)>) {
    // Widen every span to character boundaries (they already are; this keeps it so).
    for s in &mut spans {
        s.end = s.end.min(text.len());
        while s.end < text.len() && !text.is_char_boundary(s.end) {
            s.end += 1;
        }
        while s.start > 0 && !text.is_char_boundary(s.start) {
            s.start -= 1;
        }
    }
    spans.retain(|s| s.start < s.end);
    spans.sort_by_key(|s| (s.start, s.rank, std::cmp::Reverse(s.end)));
    let mut merged: Vec<Span> = Vec::with_capacity(spans.len());
    for s in spans {
        match merged.last_mut() {
            // overlapping or touching: one marker for both
            Some(last) if s.start <= last.end => {
                if s.end > last.end {
                    last.end = s.end;
                }
                if s.rank < last.rank && s.start == last.start {
                    last.kind = s.kind;
                    last.rank = s.rank;
                }
            }
            _ => merged.push(s),
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut found = Vec::with_capacity(merged.len());
    let replaced: Vec<(usize, usize)> = merged.iter().map(|s| (s.start, s.end)).collect();
    let mut done = 0;
    for s in merged {
        out.push_str(text.get(done..s.start).unwrap_or_default());
        found.push(Found {
            kind: s.kind,
            at: out.len(),
        });
        out.push_str(MARKER);
        done = s.end;
    }
    out.push_str(text.get(done..).unwrap_or_default());
    (Masked { text: out, found }, replaced)
}
