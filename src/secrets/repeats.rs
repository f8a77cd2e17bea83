//! A secret found once is masked wherever else it stands in the text: the other occurrences of
//! the values the rules were sure of, as whole words, in one bounded pass.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::strength::{entropy, score, MAX_VALUE, STRICT};
use super::{at, before, Span};

/// The most distinct secrets whose other occurrences are looked for, and how many may share a
/// first byte.
const REPEATS: usize = 64;
const REPEATS_PER_BYTE: usize = 8;

/// A secret found once is a secret wherever else it stands in the text (`'<key>'` in code and
/// `adminApiKey: <key>` in the comment after it): every other occurrence of a found value of 8
/// bytes or more that is surely a secret (a vendor token, or a value after a key that names a
/// secret and that looks generated or like a password; not a guess from prose or a bare `key`),
/// as a whole word, is masked too. One pass over the text; the bytes compared
/// are capped at a small multiple of its length, so the time stays linear.
pub(super) fn repeats(text: &str, spans: &mut Vec<Span>) {
    if spans.is_empty() {
        return;
    }
    let b = text.as_bytes();
    let mut values: Vec<(&[u8], &'static str)> = Vec::new();
    // by first byte: indexes into `values`
    let mut by_byte: Vec<Vec<u8>> = vec![Vec::new(); 256];
    for sp in spans.iter() {
        let Some(v) = b.get(sp.start..sp.end) else {
            continue;
        };
        if !(8..=MAX_VALUE).contains(&v.len()) || values.iter().any(|(w, _)| *w == v) {
            continue;
        }
        // (only what is surely a secret: a doubtful value found once stays one doubt)
        let sure = sp.rank == 0
            || (sp.rank <= 3
                && std::str::from_utf8(v).is_ok_and(|v| {
                    // (or a long random key: letters and digits switching, high entropy)
                    let random = v.len() >= 16
                        && v.bytes().all(|c| c.is_ascii_alphanumeric())
                        && entropy(v.as_bytes()) >= 3.0;
                    v.is_ascii() && (random || score(v, false) >= STRICT)
                }));
        if !sure {
            continue;
        }
        let Some(list) = v.first().and_then(|&c| by_byte.get_mut(usize::from(c))) else {
            continue;
        };
        if list.len() >= REPEATS_PER_BYTE || values.len() >= REPEATS {
            continue;
        }
        list.push(u8::try_from(values.len()).unwrap_or(u8::MAX));
        values.push((v, sp.kind));
    }
    if values.is_empty() {
        return;
    }
    let mut budget = b.len().saturating_mul(8).max(1 << 16);
    let mut found = Vec::new();
    for (i, &c) in b.iter().enumerate() {
        let Some(list) = by_byte.get(usize::from(c)).filter(|l| !l.is_empty()) else {
            continue;
        };
        if before(b, i).is_ascii_alphanumeric() {
            continue;
        }
        for &k in list {
            let Some(&(v, kind)) = values.get(usize::from(k)) else {
                continue;
            };
            let n = v.len();
            budget = budget.saturating_sub(n);
            if budget == 0 {
                spans.append(&mut found);
                return;
            }
            if b.get(i..i + n) == Some(v) && !at(b, i + n).is_ascii_alphanumeric() {
                found.push(Span::new(i, i + n, kind, 5));
            }
        }
    }
    spans.append(&mut found);
}
