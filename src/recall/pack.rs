//! Budget packing: take ranked results in order until the budget is spent.
//!
//! A result that does not fit whole is abridged: its opening line if that holds a matched word,
//! else the FTS5 snippet around the match. Exact duplicate bodies are sent once. A nonzero
//! budget always returns the top result, cut to fit if it must be.

use std::collections::HashMap;

use anyhow::Result;
use rusqlite::{Connection, OptionalExtension};

use super::fuse::held_terms;
use super::terms::Term;
use crate::text::WordStemmer;

/// Why a candidate was not returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// It held fewer than half as many query terms as the best-covered candidate.
    Floor,
    /// Its body is exactly that of a memory already returned.
    Duplicate(i64),
    /// The result count was reached (budget or `--limit`).
    Limit,
    /// Not even an abridged form fit in what was left of the character budget.
    Budget,
}

impl Cut {
    pub fn describe(self) -> String {
        match self {
            Cut::Floor => "cut: below the coverage floor".into(),
            Cut::Duplicate(id) => format!("cut: same text as {id}"),
            Cut::Limit => "cut: result limit".into(),
            Cut::Budget => "cut: character budget spent".into(),
        }
    }
}

/// What packing decided for one candidate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Packed {
    /// Sent whole.
    Whole,
    /// Sent abridged, with this text.
    Abridged(String),
    Cut(Cut),
}

/// One candidate as packing sees it.
pub struct Item<'a> {
    pub id: i64,
    pub body: &'a str,
    /// Already cut (by the floor) before packing.
    pub cut: Option<Cut>,
}

/// The limits packing works within.
pub struct Limits {
    pub max_results: usize,
    pub max_chars: Option<usize>,
}

/// Decide, in order, what each item becomes.
pub fn pack(
    conn: &Connection,
    items: &[Item],
    terms: &[Term],
    limits: &Limits,
    stemmer: &WordStemmer,
) -> Result<Vec<Packed>> {
    let mut out = Vec::with_capacity(items.len());
    let mut seen: HashMap<&str, i64> = HashMap::new();
    let mut spent = 0usize;
    let mut taken = 0usize;
    for item in items {
        if let Some(cut) = item.cut {
            out.push(Packed::Cut(cut));
            continue;
        }
        if taken >= limits.max_results {
            out.push(Packed::Cut(Cut::Limit));
            continue;
        }
        if let Some(&first) = seen.get(item.body) {
            out.push(Packed::Cut(Cut::Duplicate(first)));
            continue;
        }
        let remaining = limits.max_chars.map(|cap| cap.saturating_sub(spent));
        let chars = item.body.chars().count();
        let decision = match remaining {
            Some(left) if chars > left => {
                let short = abridge(conn, item, terms, left, stemmer)?;
                match short {
                    Some(text) if text.chars().count() <= left && !text.is_empty() => {
                        Packed::Abridged(text)
                    }
                    _ if taken == 0 => {
                        Packed::Abridged(cut_chars(item.body, left.max(1)).to_owned())
                    }
                    _ => Packed::Cut(Cut::Budget),
                }
            }
            _ => Packed::Whole,
        };
        match &decision {
            Packed::Whole => spent += chars,
            Packed::Abridged(text) => spent += text.chars().count(),
            Packed::Cut(_) => {}
        }
        if !matches!(decision, Packed::Cut(_)) {
            taken += 1;
            seen.insert(item.body, item.id);
        }
        out.push(decision);
    }
    Ok(out)
}

/// A shorter form of a body: the opening line when it holds a matched word, else the FTS5
/// snippet around the match; `None` when neither applies.
fn abridge(
    conn: &Connection,
    item: &Item,
    terms: &[Term],
    left: usize,
    stemmer: &WordStemmer,
) -> Result<Option<String>> {
    let opening = item.body.lines().next().unwrap_or("");
    let opening_fits = opening.len() < item.body.len() && opening.chars().count() <= left;
    if opening_fits && (terms.is_empty() || !held_terms(terms, opening, stemmer).is_empty()) {
        return Ok(Some(opening.trim_end().to_owned()));
    }
    if terms.is_empty() {
        return Ok(None);
    }
    let words = terms
        .iter()
        .map(Term::phrase)
        .collect::<Vec<_>>()
        .join(" OR ");
    let grams = terms
        .iter()
        .filter(|t| t.for_trigrams())
        .map(Term::phrase)
        .collect::<Vec<_>>()
        .join(" OR ");
    for (sql, query) in [
        (
            "SELECT snippet(memory, 0, '', '', '…', 32) FROM memory \
             WHERE memory MATCH ?1 AND rowid = ?2",
            words,
        ),
        (
            "SELECT snippet(memorygram, 0, '', '', '…', 64) FROM memorygram \
             WHERE memorygram MATCH ?1 AND rowid = ?2",
            grams,
        ),
    ] {
        if query.is_empty() {
            continue;
        }
        let snippet: Option<String> = conn
            .prepare_cached(sql)?
            .query_row(rusqlite::params![query, item.id], |r| r.get(0))
            .optional()?;
        if let Some(s) = snippet.filter(|s| !s.trim().is_empty()) {
            return Ok(Some(s));
        }
    }
    Ok(None)
}

/// The first `n` characters of `text`.
pub fn cut_chars(text: &str, n: usize) -> &str {
    match text.char_indices().nth(n) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}
