//! Passwords in sentences: a trigger word ("password", "pw", "Passwort", "密码", ...) and then,
//! a few words later on the same line, a value whose [`score`] is high enough: [`PASSWORD`]
//! right after the trigger or a copula (`is`, `:`, `→`, `lautet`, ...), [`STRICT`] further on.
//! Words are runs of letters in any script, so a trigger is found inside words of scripts
//! written without spaces (`密码是X`); values are runs of ASCII and Latin letters between
//! spaces and other marks. And a value sure to be a password ([`SURE`]) is masked bare.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::strength::{key_shape, score, KEYED, PASSWORD, STRICT, SURE};
use super::words::{ASCII_TRIGGERS, CONNECTIVES, FIELDS, NOT_SECRET, PROSE_COPULAS as COPULAS};
use super::words::{QUALIFIERS, TRIGGERS};
use super::{Span, MARKER};

/// How far after a trigger a value is looked for.
const WINDOW_BYTES: usize = 160;
const WINDOW_WORDS: usize = 10;

/// A CJK, kana or Hangul letter: such scripts glue words together.
fn wide(c: char) -> bool {
    c >= '\u{2E80}'
}

fn trigger(word: &str) -> Option<&'static str> {
    if word.len() > 40 {
        return None;
    }
    if word.is_ascii() {
        // (lowercase in a buffer, then searched by halves: no allocation)
        let mut buf = [0u8; 16];
        let n = word.len();
        if !(2..=16).contains(&n) {
            return None;
        }
        for (d, c) in buf.iter_mut().zip(word.bytes()) {
            *d = c.to_ascii_lowercase();
        }
        let find = |w: &[u8]| {
            ASCII_TRIGGERS
                .binary_search_by(|(t, _)| t.as_bytes().cmp(w))
                .ok()
                .and_then(|k| ASCII_TRIGGERS.get(k))
                .map(|&(_, kind)| kind)
        };
        let w = buf.get(..n).unwrap_or_default();
        return find(w).or_else(|| w.strip_suffix(b"s").filter(|w| w.len() > 3).and_then(find));
    }
    let lower = word.to_lowercase();
    TRIGGERS.iter().find_map(|&(t, kind)| {
        let hit = if t.chars().next().is_some_and(wide) {
            lower.contains(t) && (t.chars().count() > 1 || lower.starts_with(t))
        } else {
            lower
                .strip_prefix(t)
                .is_some_and(|rest| rest.chars().count() <= 3)
        };
        hit.then_some(kind)
    })
}

/// A byte range of a value token: ASCII marks and letters, and Latin letters.
fn value_char(c: char) -> bool {
    c.is_ascii_graphic() || (c.is_alphabetic() && !wide(c))
}

/// The value tokens of `text` from `from`, on that line: (start, end).
fn tokens(text: &str, from: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    let rest = text.get(from..).unwrap_or_default();
    // (the window's bytes only, so that a long line is not read again for each trigger in it)
    let mut limit = rest.len().min(2 * WINDOW_BYTES);
    while !rest.is_char_boundary(limit) {
        limit -= 1;
    }
    let line = rest
        .get(..limit)
        .and_then(|r| r.find('\n'))
        .unwrap_or(limit);
    let mut chars = rest
        .get(..line)
        .unwrap_or_default()
        .char_indices()
        .peekable();
    std::iter::from_fn(move || {
        while chars.next_if(|&(_, c)| !value_char(c)).is_some() {}
        let &(s, _) = chars.peek()?;
        let mut e = s;
        while let Some((i, c)) = chars.next_if(|&(_, c)| value_char(c)) {
            e = i + c.len_utf8();
        }
        Some((from + s, from + e))
    })
}

/// A token without the quotes, brackets and sentence marks around it.
fn trim(text: &str, s: usize, e: usize) -> (usize, usize) {
    let t = text.get(s..e).unwrap_or_default();
    let inner = t.trim_start_matches(['"', '\'', '(', '`', '[', '<', '*', ':']);
    let inner = inner.trim_end_matches(['"', '\'', ')', ':', ';', ',', '.', ']', '>', '*', '`']);
    let start = s
        + (t.len()
            - t.trim_start_matches(['"', '\'', '(', '`', '[', '<', '*', ':'])
                .len());
    (start, start + inner.len())
}

/// `content="X`: an attribute, which the reader reads.
fn attribute(v: &str) -> bool {
    v.split_once("=\"")
        .is_some_and(|(name, _)| !name.is_empty() && name.bytes().all(|c| c.is_ascii_alphabetic()))
}

/// Values announced by a trigger word in prose; `weak`: a trigger that also names other
/// things (`key`), which announces only the value right after it; `marker`: a secret masked
/// already, which announces only a password-shaped value near it (`was [secret]; I reset it
/// to X`, `Client("[secret]", "X")`). Returns where to go on.
fn after_trigger(
    text: &str,
    from: usize,
    kind: &'static str,
    weak: bool,
    marker: bool,
    spans: &mut Vec<Span>,
) -> usize {
    // 2: right after the trigger or a copula; 1: after a connective; 0: further
    let mut near = 2;
    let mut end = from;
    let mut prev_slash = false;
    let mut first = true;
    for (s, e) in tokens(text, from).take(WINDOW_WORDS) {
        if s > from + WINDOW_BYTES {
            break;
        }
        let gap = text.get(end..s).unwrap_or_default();
        if gap.contains([':', '：', '—', '–', '→', '=']) {
            near = 2;
        }
        end = e;
        let (vs, ve) = trim(text, s, e);
        let raw = text.get(s..e).unwrap_or_default();
        let v = text.get(vs..ve).unwrap_or_default();
        if trigger(v).is_some() || (first && FIELDS.iter().any(|f| v.eq_ignore_ascii_case(f))) {
            return s;
        }
        first = false;
        let slash = std::mem::replace(&mut prev_slash, raw == "/");
        if v.is_empty()
            || COPULAS.iter().any(|c| v.eq_ignore_ascii_case(c))
            || (near == 2 && v.len() == 1 && v.bytes().all(|c| c.is_ascii_digit()))
        {
            near = 2;
            continue;
        }
        if CONNECTIVES.iter().any(|c| v.eq_ignore_ascii_case(c)) {
            near = near.max(1);
            continue;
        }
        // `admin/pw`: a user and a password
        let (vs, v) = match v.split_once('/') {
            Some((user, pass))
                if (1..=24).contains(&user.len())
                    && !pass.contains('/')
                    && score(user, false) < STRICT
                    && user
                        .bytes()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.')) =>
            {
                (vs + user.len() + 1, pass)
            }
            // (`login admin / pw`: after the slash)
            _ if kind == "login" && !slash => continue,
            _ => (vs, v),
        };
        let kind = if kind == "login" { "password" } else { kind };
        // (three words joined right after the trigger: `pw: amber_sloth_kettle`)
        let sc = score(v, near == 2 && v.split(['_', '-', '.']).count() >= 3);
        let mixed = v.len() >= 8
            && v.bytes()
                .any(|c| c.is_ascii_digit() || c.is_ascii_punctuation())
            && !v.contains(['=', '"', '\'', '<', '>', '(', ')', '{', '}', '[', ']'])
            && v.bytes()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric() || !c.is_ascii());
        // (a PIN or a passcode is digits; after a weak `key`, an API key's shape)
        let digits = matches!(kind, "pin" | "passcode")
            && (4..=8).contains(&v.len())
            && v.bytes().all(|c| c.is_ascii_digit());
        let ok = match near {
            2 if digits || (weak && key_shape(v)) => true,
            // (after a marker, `ttl=3600`; `content="X"`: an assignment, the reader's)
            _ if marker && v.contains('=') || attribute(v) => false,
            _ if kind == "pin" => digits && near == 2,
            2 => sc >= PASSWORD || (sc >= KEYED && mixed && !weak && !marker),
            1 => sc >= PASSWORD && !weak,
            _ => sc >= STRICT && !weak && !marker,
        };
        if ok {
            spans.push(Span::new(vs, vs + v.len(), kind, 4));
        }
        near = if raw.ends_with(':') { 2 } else { 0 };
        if ok || (raw.ends_with(['.', ';']) && raw.len() > 1) {
            break;
        }
    }
    end
}

/// Passwords in sentences, and bare ones.
pub(super) fn scan(text: &str, spans: &mut Vec<Span>) {
    let mut done = 0;
    let mut word_start = None;
    let b = text.as_bytes();
    let mut i = 0;
    while i <= b.len() {
        let (c, n) = match b.get(i) {
            Some(&x) if x.is_ascii() => (char::from(x), 1),
            Some(_) => text
                .get(i..)
                .and_then(|r| r.chars().next())
                .map_or((' ', 1), |c| (c, c.len_utf8())),
            None => (' ', 1),
        };
        i += n;
        let i = i - n;
        let script_change = c.is_alphabetic()
            && word_start.is_some()
            && text
                .get(..i)
                .and_then(|t| t.chars().next_back())
                .is_some_and(|p| wide(p) != wide(c));
        if c.is_alphabetic() && !script_change {
            word_start.get_or_insert(i);
            continue;
        }
        let ended = if script_change {
            word_start.replace(i)
        } else {
            word_start.take()
        };
        let Some(s) = ended else {
            continue;
        };
        if s < done {
            continue;
        }
        let word = text.get(s..i).unwrap_or_default();
        let marker = text
            .get(s.saturating_sub(1)..)
            .is_some_and(|t| t.starts_with(MARKER));
        let Some(kind) = trigger(word) else {
            continue;
        };
        let prev = text
            .get(..s)
            .and_then(|t| t.chars().next_back())
            .unwrap_or(' ');
        let standalone = !matches!(
            c,
            '_' | '-' | '=' | '/' | '.' | '$' | '[' | '(' | '{' | '@' | '\\' | '>'
        ) && !matches!(prev, '_' | '.' | '/' | '$' | '{' | '@' | '\\' | '<')
            || word.chars().next().is_some_and(wide);
        if !standalone {
            continue;
        }
        // (`public key`, `cache key`: the word before says it is none)
        let head = text
            .get(..s)
            .unwrap_or_default()
            .trim_end_matches([' ', '_', '-']);
        let before = head
            .rsplit([' ', '_', '-', '\n', '(', '"'])
            .next()
            .unwrap_or_default();
        if NOT_SECRET.iter().any(|w| before.eq_ignore_ascii_case(w)) {
            continue;
        }
        // (`key` alone is weak; `API key`, `HMAC key` are not)
        let weak = ["key", "keys", "pass"]
            .iter()
            .any(|w| word.eq_ignore_ascii_case(w))
            && !QUALIFIERS.iter().any(|w| before.eq_ignore_ascii_case(w));
        done = after_trigger(text, i + usize::from(marker), kind, weak, marker, spans);
    }
    // bare: capitals, small letters, digits and a symbol of a password policy
    let mut s = 0;
    let mut seen = 0u8;
    for (k, &c) in b.iter().chain(std::iter::once(&b' ')).enumerate() {
        if !c.is_ascii_whitespace() {
            seen |= if c.is_ascii_uppercase() {
                1
            } else if c.is_ascii_lowercase() {
                2
            } else if c.is_ascii_digit() {
                4
            } else if b"!@#%^&*?~".contains(&c) {
                8
            } else {
                0
            };
            continue;
        }
        let (e, all) = (k, seen == 15);
        let start = s;
        s = k + 1;
        seen = 0;
        if all && e >= start + 8 {
            let (mut vs, ve) = trim(text, start, e);
            // (`user%Pass!w0rd`, `user:Pass!w0rd`: the user before it stays)
            let user = text
                .get(vs..ve)
                .and_then(|v| v.find(['%', ':']))
                .filter(|&u| {
                    text.get(vs..vs + u).is_some_and(|u| {
                        u.bytes()
                            .all(|c| c.is_ascii_lowercase() || b"._-".contains(&c))
                    })
                });
            vs += user.map_or(0, |u| u + 1);
            // (not percent-encoding: `foo%20bar%3F`)
            let encoded = |v: &str| {
                v.as_bytes().windows(3).any(
                    |w| matches!(w, [b'%', x, y] if x.is_ascii_hexdigit() && y.is_ascii_hexdigit()),
                )
            };
            if text
                .get(vs..ve)
                .is_some_and(|v| !encoded(v) && score(v, false) >= SURE)
            {
                spans.push(Span::new(vs, ve, "password", 6));
            }
        }
    }
}
