//! Budget packing: take ranked results in order until the budget is spent.
//!
//! A result that does not fit whole is abridged: its opening line if that holds a matched word,
//! else a snippet, the stretch of its head that holds the most distinct query terms. A memory
//! longer than its indexed head (`store::index::HEAD_BYTES`) is never sent whole: only its head
//! was read. Exact duplicate bodies are sent once. A nonzero budget always returns the top
//! result, cut to fit if it must be.

use super::fuse::{held_terms, term_at};
use super::terms::Term;
use crate::text::{cut_chars, WordStemmer};

/// The most characters of a snippet (about 40 words of prose).
const SNIPPET_CHARS: usize = 300;

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
    /// The body, or its head when `whole` is false.
    pub body: &'a str,
    pub whole: bool,
    /// The whole body's size in bytes.
    pub bytes: usize,
    /// Already cut (by the floor) before packing.
    pub cut: Option<Cut>,
}

/// The limits packing works within.
pub struct Limits {
    pub max_results: usize,
    pub max_chars: Option<usize>,
}

/// Decide, in order, what each item becomes.
pub fn pack(items: &[Item], terms: &[Term], limits: &Limits, stemmer: &WordStemmer) -> Vec<Packed> {
    let mut out = Vec::with_capacity(items.len());
    let mut seen: foldhash::HashMap<(&str, usize), i64> = foldhash::HashMap::default();
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
        if let Some(&first) = seen.get(&(item.body, item.bytes)) {
            out.push(Packed::Cut(Cut::Duplicate(first)));
            continue;
        }
        let remaining = limits.max_chars.map(|cap| cap.saturating_sub(spent));
        let chars = item.body.chars().count();
        // A head alone is never the whole memory: it goes as an abridged form, at most a
        // snippet's length when there is no character budget.
        let room = match (remaining, item.whole) {
            (Some(left), _) if chars > left => Some(left),
            (Some(left), false) => Some(left.min(SNIPPET_CHARS)),
            (None, false) => Some(SNIPPET_CHARS),
            _ => None,
        };
        let decision = match room {
            Some(left) => match abridge(item, terms, left, stemmer) {
                Some(text) if text.chars().count() <= left && !text.is_empty() => {
                    Packed::Abridged(text)
                }
                _ if taken == 0 || !item.whole => {
                    Packed::Abridged(cut_chars(item.body, left.max(1)).to_owned())
                }
                _ => Packed::Cut(Cut::Budget),
            },
            None => Packed::Whole,
        };
        match &decision {
            Packed::Whole => spent += chars,
            Packed::Abridged(text) => spent += text.chars().count(),
            Packed::Cut(_) => {}
        }
        if !matches!(decision, Packed::Cut(_)) {
            taken += 1;
            seen.insert((item.body, item.bytes), item.id);
        }
        out.push(decision);
    }
    out
}

/// A shorter form of a body: the opening line when it holds a matched word, else the snippet
/// around the matches; `None` when neither applies.
fn abridge(item: &Item, terms: &[Term], left: usize, stemmer: &WordStemmer) -> Option<String> {
    let opening = item.body.lines().next().unwrap_or("");
    let shorter = opening.len() < item.body.len() || !item.whole;
    let opening_fits = shorter && opening.chars().count() <= left;
    if opening_fits && (terms.is_empty() || !held_terms(terms, opening, stemmer).is_empty()) {
        return Some(opening.trim_end().to_owned());
    }
    if terms.is_empty() {
        return None;
    }
    snippet(item.body, terms, left.min(SNIPPET_CHARS), stemmer)
}

/// The stretch of `text` of at most `chars` characters that holds the most distinct terms,
/// starting at a word, marked with `…` where it cuts the text. One pass over the words, then one
/// over the matches: linear in the text.
fn snippet(text: &str, terms: &[Term], chars: usize, stemmer: &WordStemmer) -> Option<String> {
    // (byte offset, character offset, term) of each word holding a term, in order.
    let mut matches: Vec<(usize, usize, usize)> = Vec::new();
    let mut start = None;
    let ends = std::iter::once((text.len(), ' '));
    for (n, (at, c)) in text.char_indices().chain(ends).enumerate() {
        let inside = crate::text::is_word_char(c) || c == '\'';
        match (start, inside) {
            (None, true) => start = Some((at, n)),
            (Some((from, first)), false) => {
                if let Some(term) = text.get(from..at).and_then(|w| term_at(terms, w, stemmer)) {
                    matches.push((from, first, term));
                }
                start = None;
            }
            _ => {}
        }
    }
    if matches.is_empty() || chars < 2 {
        return None;
    }
    // The best window starts at a match; two pointers count the distinct terms of each.
    let span = chars.saturating_sub(2);
    let mut counts = vec![0usize; terms.len()];
    let (mut distinct, mut end, mut best) = (0, 0, (0, 0));
    for begin in 0..matches.len() {
        // Each window holds at least its first match.
        while end < matches.len() && (end <= begin || matches[end].1 - matches[begin].1 < span) {
            let term = matches[end].2;
            counts[term] += 1;
            if counts[term] == 1 {
                distinct += 1;
            }
            end += 1;
        }
        if distinct > best.0 {
            best = (distinct, begin);
        }
        let term = matches[begin].2;
        counts[term] -= 1;
        if counts[term] == 0 {
            distinct -= 1;
        }
    }
    let from = matches[best.1].0;
    let rest = text.get(from..).unwrap_or_default();
    let body = cut_chars(rest, span);
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    out.push_str(body.trim_end());
    if body.len() < rest.len() {
        out.push('…');
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;
    use crate::recall::terms::Terms;

    fn terms(query: &str) -> Vec<Term> {
        Terms::parse(query, &WordStemmer::default()).kept
    }

    fn item(body: &str, whole: bool) -> Item<'_> {
        Item {
            id: 1,
            body,
            whole,
            bytes: if whole { body.len() } else { body.len() * 10 },
            cut: None,
        }
    }

    #[test]
    fn a_snippet_is_the_stretch_holding_the_most_distinct_terms() {
        let filler = "nothing to see here. ".repeat(40);
        let text = format!(
            "{filler}webhook once. {filler}the webhook retry budget and its backoff. {filler}"
        );
        let got = snippet(
            &text,
            &terms("webhook retry backoff"),
            120,
            &WordStemmer::default(),
        )
        .unwrap();
        assert!(
            got.starts_with("…webhook retry budget and its backoff"),
            "{got}"
        );
        assert!(got.chars().count() <= 120 && got.ends_with('…'), "{got}");
    }

    #[rstest]
    #[case::one_word("webhook")]
    #[case::between_accents("é webhook é")]
    #[case::a_long_word(&format!("{}webhook", "x".repeat(500)))]
    #[case::a_repeated_word("webhook webhook retry")]
    fn a_snippet_never_panics_on_tiny_room_or_long_words(
        #[case] text: &str,
        #[values(0, 1, 2, 3, 4, 5)] room: usize,
    ) {
        let s = WordStemmer::default();
        if let Some(got) = snippet(text, &terms("webhook retry"), room, &s) {
            assert!(got.chars().count() <= room.max(2) + 2, "{room} {got}");
        }
    }

    #[test]
    fn a_head_is_sent_abridged_even_when_the_budget_has_room() {
        let s = WordStemmer::default();
        let head = format!(
            "Deploy log of the payments service\n{}",
            "line of log\n".repeat(100)
        );
        let limits = Limits {
            max_results: 4,
            max_chars: None,
        };
        let packed = pack(
            &[item(&head, false)],
            &terms("payments deploy"),
            &limits,
            &s,
        );
        assert_eq!(
            packed,
            [Packed::Abridged(
                "Deploy log of the payments service".into()
            )]
        );
        let whole = pack(
            &[item("short and whole", true)],
            &terms("short"),
            &limits,
            &s,
        );
        assert_eq!(whole, [Packed::Whole]);
    }
}
