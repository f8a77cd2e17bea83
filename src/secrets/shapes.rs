//! Vendor secrets known by what stands near them, which a rule of the catalogue cannot say: ids
//! that announce the secret after them (an AWS key id and its secret key, a Twilio account SID
//! and its auth token), and a Twilio auth token with `twilio` before it on its line.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::strength::{score, KEYED};
use super::{at, Span};

/// The secret after an id that announces it: the first of the next three values of 16
/// characters or more that scores.
fn companion(text: &str, from: usize, kind: &'static str, spans: &mut Vec<Span>) {
    let b = text.as_bytes();
    let mut i = from;
    for _ in 0..3 {
        while matches!(
            at(b, i),
            b' ' | b'\t' | b'"' | b'\'' | b',' | b'/' | b'`' | b':' | b'(' | b'='
        ) {
            i += 1;
        }
        let s = i;
        while !matches!(
            at(b, i),
            0 | b' ' | b'\t' | b'\n' | b'\r' | b'"' | b'\'' | b',' | b')' | b'`'
        ) && i - s <= 256
        {
            i += 1;
        }
        let v = text.get(s..i).unwrap_or_default();
        if v.len() >= 16 && score(v, false) >= KEYED {
            spans.push(Span::new(s, i, kind, 1));
            return;
        }
        if i == s {
            return;
        }
    }
}

/// The secrets the run `s..e` announces, or is.
pub(super) fn in_run(text: &str, s: usize, e: usize, spans: &mut Vec<Span>) {
    let b = text.as_bytes();
    let run = b.get(s..e).unwrap_or_default();
    // ids that announce the secret after them
    let id = |p: &[u8], n: usize, hex: bool| {
        run.starts_with(p)
            && run.len() == n
            && run.iter().all(|&c| {
                c.is_ascii_digit()
                    || if hex {
                        (b'a'..=b'f').contains(&c) || c.is_ascii_uppercase() && p.contains(&c)
                    } else {
                        c.is_ascii_uppercase()
                    }
            })
    };
    if id(b"AKIA", 20, false) || id(b"ASIA", 20, false) {
        companion(text, e, "aws secret key", spans);
    } else if id(b"AC", 34, true) {
        companion(text, e, "twilio auth token", spans);
    }
    if run.len() == 32
        && run
            .iter()
            .all(|&c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
    {
        // a Twilio auth token: `twilio` earlier on its line
        let line = b.get(s.saturating_sub(160)..s).unwrap_or_default();
        let line = line.rsplit(|&c| c == b'\n').next().unwrap_or_default();
        if line.windows(6).any(|w| w.eq_ignore_ascii_case(b"twilio")) {
            spans.push(Span::new(s, e, "twilio auth token", 0));
        }
    }
}
