//! A secret found once is masked wherever else it stands in the text (`'<key>'` in code and
//! `adminApiKey: <key>` in the comment after it): every other occurrence, as a whole word, of a
//! found value of 8 bytes or more that is surely a secret (a vendor rule's, or a value that looks
//! generated or like a password; not a doubtful guess, which stays one doubt).

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::strength::{entropy, score, MAX_VALUE, STRICT};
use super::{at, before, Span};

/// The most distinct secrets whose other occurrences are looked for: each costs one search
/// through the text, so the time stays linear.
const REPEATS: usize = 16;

pub(super) fn repeats(text: &str, spans: &mut Vec<Span>) {
    let b = text.as_bytes();
    let mut values: Vec<(&str, &'static str)> = Vec::new();
    for sp in spans.iter() {
        let Some(v) = text.get(sp.start..sp.end) else {
            continue;
        };
        let random = v.len() >= 16
            && v.bytes().all(|c| c.is_ascii_alphanumeric())
            && v.bytes().any(|c| c.is_ascii_digit())
            && entropy(v.as_bytes()) >= 3.0;
        let sure =
            sp.rank <= 1 || (sp.rank <= 3 && v.is_ascii() && (random || score(v, false) >= STRICT));
        if (8..=MAX_VALUE).contains(&v.len()) && sure && !values.iter().any(|(w, _)| *w == v) {
            values.push((v, sp.kind));
        }
    }
    let mut found = Vec::new();
    for (v, kind) in values.into_iter().take(REPEATS) {
        for (i, _) in text.match_indices(v) {
            if !before(b, i).is_ascii_alphanumeric() && !at(b, i + v.len()).is_ascii_alphanumeric()
            {
                found.push(Span::new(i, i + v.len(), kind, 5));
            }
        }
    }
    spans.append(&mut found);
}
