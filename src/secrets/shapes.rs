//! The vendor token shapes the catalogue misses: a prefix and a body of an alphabet and length
//! ([`RULES`]), Telegram and Discord bot tokens, and ids that announce the secret after them (an
//! AWS key id and its secret key, a Twilio account SID and its auth token; a Twilio auth token
//! with `twilio` before it on its line).

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::strength::{entropy, placeholder, score, KEYED};
use super::{at, before, Span};

const ALNUM: u8 = 0;
/// Letters, digits, `_` and `-`.
const URL: u8 = 1;
/// Letters, digits and `/`.
const PATH: u8 = 2;
/// Base64, standard or URL-safe.
const BASE64: u8 = 3;
/// Lowercase hex.
const HEX: u8 = 4;
/// Capitals and digits.
const UPPER: u8 = 5;

fn has(alphabet: u8, c: u8) -> bool {
    if alphabet == UPPER {
        return c.is_ascii_uppercase() || c.is_ascii_digit();
    }
    c.is_ascii_alphanumeric()
        || match alphabet {
            URL => matches!(c, b'_' | b'-'),
            PATH => c == b'/',
            BASE64 => matches!(c, b'+' | b'/' | b'=' | b'_' | b'-'),
            _ => false,
        } && (alphabet != HEX || c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
}

/// Kind, prefix, alphabet, least and most body length.
#[rustfmt::skip]
const RULES: &[(&str, &str, u8, usize, usize)] = &[
    ("slack webhook", "https://hooks.slack.com/services/", PATH, 20, 200),
    ("github token", "github_pat_", URL, 40, 255),
    ("openai key", "sk-proj-", URL, 40, 255),
    ("anthropic key", "sk-ant-", URL, 30, 255),
    ("huggingface token", "hf_", ALNUM, 30, 100),
    ("docker hub token", "dckr_pat_", URL, 20, 100),
    ("aws access key", "AKIA", UPPER, 16, 16), ("aws access key", "ASIA", UPPER, 16, 16),
    ("google oauth secret", "GOCSPX-", URL, 24, 40),
    ("stripe key", "sk_live_", ALNUM, 16, 255), ("stripe key", "sk_test_", ALNUM, 16, 255),
    ("stripe key", "rk_live_", ALNUM, 16, 255), ("stripe key", "rk_test_", ALNUM, 16, 255),
    ("stripe webhook secret", "whsec_", BASE64, 24, 100),
    ("mailgun key", "key-", HEX, 32, 32),
    ("notion token", "secret_", ALNUM, 40, 50),
    ("private key", "LS0tLS1CRUdJTi", BASE64, 40, 1 << 16),
];

/// The token of a rule at `i`: its length and kind (`""`: too long for the rule, skipped whole so
/// that it is not read again from each of its runs).
fn token_at(b: &[u8], i: usize) -> Option<(usize, &'static str)> {
    let rest = b.get(i..)?;
    RULES
        .iter()
        .find_map(|&(kind, prefix, alphabet, min, max)| {
            let body = rest.strip_prefix(prefix.as_bytes())?;
            let n = body
                .iter()
                .take(max + 1)
                .take_while(|&&c| has(alphabet, c))
                .count();
            let taken = body.get(..n)?;
            // (base64 of a PEM certificate or public key is none)
            let public = body.starts_with(b"BDRVJU") || body.starts_with(b"BQVUJMSUM");
            if n > max {
                return Some((prefix.len() + n, ""));
            }
            let ok = n >= min
                && !public
                && !at(body, n).is_ascii_alphanumeric()
                && entropy(taken) >= 2.5
                && !placeholder(taken);
            ok.then_some((prefix.len() + n, kind))
        })
}

/// A Telegram bot token (`123456789:AA` and 33 more) at `i`.
fn telegram(b: &[u8], i: usize) -> Option<usize> {
    let digits = b
        .get(i..)?
        .iter()
        .take(11)
        .take_while(|c| c.is_ascii_digit())
        .count();
    let body = b.get(i + digits + 1..)?;
    let n = body.iter().take(64).take_while(|&&c| has(URL, c)).count();
    ((8..=10).contains(&digits) && at(b, i + digits) == b':' && body.starts_with(b"AA") && n >= 35)
        .then_some(digits + 1 + n)
}

/// A Discord bot token: base64 of an id, `.`, six characters, `.`, 27 or more.
fn discord(run: &[u8]) -> bool {
    let parts: Vec<&[u8]> = run.split(|&c| c == b'.').collect();
    matches!(parts.as_slice(), [id, ts, mac]
        if (23..=28).contains(&id.len()) && matches!(id.first(), Some(b'M' | b'N' | b'O'))
            && ts.len() == 6 && (27..=40).contains(&mac.len()))
}

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

/// Tokens starting in the run `s..e` (or at a `$`/`{` right before it); returns where the
/// token ends, to skip its insides.
pub(super) fn in_run(text: &str, s: usize, e: usize, spans: &mut Vec<Span>) -> Option<usize> {
    let b = text.as_bytes();
    let run = b.get(s..e)?;
    let start = if matches!(before(b, s), b'$' | b'{' | b'/') {
        s - 1
    } else {
        s
    };
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
    let found = if run.len() == 32
        && run
            .iter()
            .all(|&c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
    {
        // a Twilio auth token: `twilio` earlier on its line
        let line = b.get(s.saturating_sub(160)..s).unwrap_or_default();
        let line = line.rsplit(|&c| c == b'\n').next().unwrap_or_default();
        line.windows(6)
            .any(|w| w.eq_ignore_ascii_case(b"twilio"))
            .then_some((s, 32, "twilio auth token"))
    } else if discord(run) {
        Some((s, run.len(), "discord bot token"))
    } else {
        let tg = if run.starts_with(b"bot") { s + 3 } else { s };
        telegram(b, tg)
            .map(|n| (tg, n, "telegram bot token"))
            .or_else(|| token_at(b, start).map(|(n, kind)| (start, n, kind)))
    };
    let (at_byte, n, kind) = found?;
    if !kind.is_empty() {
        spans.push(Span::new(at_byte, at_byte + n, kind, 0));
    }
    Some(at_byte + n)
}
