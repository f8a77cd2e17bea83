//! Keys given by the shape of code or config around them rather than by a separator: a type
//! before the value (`token: &str = "..."`), a call's pair of arguments (`define('KEY', 'pw')`),
//! a setter (`setPassword("pw")`, `.apiKey("...")`), a `("user", "password")` pair, and a key
//! that is itself a value under a label (`- name: KEY` then `value: ...`,
//! `<entry key="KEY">pw</entry>`, `variable "KEY" { default = ... }`). Each decides only where
//! the value is; [`super`] tests it as the key asks.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::parse::{line_start, parse_value, spaces, user_like};
use crate::secrets::{at, before, keys, value, Span};

/// Words that, first in a key followed by `(`, make it a setter (`setPassword("...")`), or a
/// call that hashes the secret it is given (`make_password("...")`). (Not a check: a test
/// checks a wrong password as often as the right one.)
const SETTERS: &[&str] = &["set", "with", "use", "put", "add", "make", "hash"];

/// Words that name the field a key's value is in, when the key is itself a value
/// (`- name: DB_PASSWORD` then `value: ...`, `<entry key="db.password">...</entry>`,
/// `variable "db_password" { default = ... }`).
const LABELS: &[&str] = &[
    "name",
    "key",
    "variable",
    "param",
    "parameter",
    "property",
    "setting",
    "field",
    "id",
];

/// The fields that hold a labelled key's value (`content` of an HTML `<meta name="...">`).
const VALUE_FIELDS: &[&str] = &["value", "default", "content"];

/// After `key:` at `p`, a type and then `=` (`: &str = `, `: Option<String> = `): where the
/// value after the `=` starts.
pub(super) fn typed(b: &[u8], p: usize) -> Option<usize> {
    let i = spaces(b, p);
    let n = b
        .get(i..)?
        .iter()
        .take(64)
        .take_while(|&&c| {
            c.is_ascii_alphanumeric()
                || matches!(
                    c,
                    b'_' | b'&' | b'\'' | b'<' | b'>' | b':' | b'[' | b']' | b';' | b'*' | b','
                )
                || c == b' '
        })
        .count();
    let mut e = i + n;
    while e > i && before(b, e) == b' ' {
        e -= 1;
    }
    let ty = b.get(i..e)?;
    let starts = ty
        .first()
        .is_some_and(|&c| c.is_ascii_alphabetic() || matches!(c, b'_' | b'&' | b'*' | b'['));
    let eq = spaces(b, e);
    (starts && e > i && at(b, eq) == b'=' && !matches!(at(b, eq + 1), b'=' | b'>'))
        .then(|| spaces(b, eq + 1))
}

/// Whether the quote before `q` is an argument of a call or an item of an array: `(` or `[`
/// before it (past spaces).
pub(super) fn call_before(b: &[u8], q: usize) -> bool {
    let mut i = q;
    while i > 0 && matches!(before(b, i), b' ' | b'\t') {
        i -= 1;
    }
    matches!(before(b, i), b'(' | b'[')
}

/// A key called as a setter: `setPassword(`, `withToken(`, or a method named by the secret
/// itself (`.password(`, `.apiKey(`), not `getPassword(` or `checkPassword(`.
pub(super) fn setter(b: &[u8], s: usize, key: &[u8]) -> bool {
    // the method's own name, after the object it is called on (`ds.setPassword`)
    let dot = key.iter().rposition(|&c| c == b'.');
    let method = dot.and_then(|d| key.get(d + 1..)).unwrap_or(key);
    let Some(first) = keys::first_word(method) else {
        return false;
    };
    keys::is(first, SETTERS)
        || ((dot.is_some() || before(b, s) == b'.')
            && (keys::named(first, false, None).is_some() || keys::is(first, keys::KEY_QUALIFIERS)))
}

/// `("user", "password")` or `['user', 'password']` at `p`: the password, if the pair is
/// complete and the password is a real one. With `alone`, a single argument is the credential
/// itself (`.bearer_auth("token")`), if it passes [`value::keyed`].
pub(super) fn pair(
    text: &str,
    p: usize,
    kind: &'static str,
    alone: bool,
    spans: &mut Vec<Span>,
) -> Option<usize> {
    let b = text.as_bytes();
    let quoted_at = |i: usize| -> Option<(usize, usize)> {
        let q = at(b, i);
        if !matches!(q, b'"' | b'\'') {
            return None;
        }
        let n = b
            .get(i + 1..)?
            .iter()
            .take(257)
            .take_while(|&&c| c != q && c != b'\n')
            .count();
        (n <= 256 && at(b, i + 1 + n) == q).then_some((i + 1, i + 1 + n))
    };
    let (us, ue) = quoted_at(spaces(b, p + 1))?;
    let comma = spaces(b, ue + 1);
    if alone && matches!(at(b, comma), b')' | b']') {
        let v = text.get(us..ue)?;
        if value::keyed(v) {
            spans.push(Span::new(us, ue, kind, 3));
        }
        return Some(ue + 1);
    }
    if at(b, comma) != b',' {
        return None;
    }
    let (ps, pe) = quoted_at(spaces(b, comma + 1))?;
    if !matches!(at(b, spaces(b, pe + 1)), b')' | b']' | b',') {
        return None;
    }
    let user = text.get(us..ue)?;
    let pass = text.get(ps..pe)?;
    let ok = user_like(user)
        && pass.len() >= 4
        && value::embedded(pass, user)
        && !value::excluded(pass)
        && !pass.bytes().all(|c| c.is_ascii_digit());
    if ok {
        spans.push(Span::new(ps, pe, kind, 3));
    }
    Some(pe + 1)
}

/// JDBC's `DriverManager.getConnection(url, "user", "password")` with `(` at `p`: the
/// password, after a first argument of at most 256 bytes on the line.
pub(in crate::secrets) fn connection_call(text: &str, p: usize, spans: &mut Vec<Span>) {
    let b = text.as_bytes();
    if at(b, p) != b'(' {
        return;
    }
    let mut i = p + 1;
    let mut quote = None;
    while i - p <= 256 {
        let c = at(b, i);
        match (quote, c) {
            (_, 0 | b'\n') => return,
            (None, b'"' | b'\'') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            (None, b'(' | b')') => return,
            (None, b',') => break,
            _ => {}
        }
        i += 1;
    }
    if at(b, i) == b',' {
        pair(text, i, "password", false, spans);
    }
}

/// The word before `s` (past a quote, spaces and a `:` or `=` separator) is a label that
/// makes the key a value itself (`name: DB_PASSWORD`, `key="db.password"`,
/// `variable "db_password"`).
fn label_before(b: &[u8], s: usize) -> bool {
    let mut i = s;
    if matches!(before(b, i), b'"' | b'\'') {
        i -= 1;
    }
    while i > 0 && matches!(before(b, i), b' ' | b'\t') {
        i -= 1;
    }
    if matches!(before(b, i), b':' | b'=') {
        i -= 1;
        if matches!(before(b, i), b'"' | b'\'') {
            i -= 1;
        }
    }
    let e = i;
    while i > 0 && before(b, i).is_ascii_alphabetic() && e - i < 16 {
        i -= 1;
    }
    let word = b.get(i..e).unwrap_or_default();
    !word.is_empty() && keys::is(word, LABELS)
}

/// How far after a labelled key its value field is looked for.
const LABEL_WINDOW: usize = 320;

/// A key that is itself a value under a label (see [`label_before`]), at `s`, with `p` after
/// it: its value is the text of the element (`<entry key="db.password">pw</entry>`) or the
/// `value`/`default` field that follows in the same item.
pub(super) fn labelled(
    text: &str,
    s: usize,
    p: usize,
    kind: &'static str,
    spans: &mut Vec<Span>,
) -> Option<usize> {
    let b = text.as_bytes();
    if !label_before(b, s) {
        return None;
    }
    if at(b, p) == b'>' {
        let vs = p + 1;
        let n = b
            .get(vs..)?
            .iter()
            .take(value::MAX_VALUE + 1)
            .take_while(|&&c| c != b'<' && c != b'\n')
            .count();
        let v = text.get(vs..vs + n)?;
        if at(b, vs + n) == b'<' && value::keyed(v) {
            spans.push(Span::new(vs, vs + n, kind, 3));
            return Some(vs + n);
        }
        return None;
    }
    // the next `value`/`default` field, before another label or the end of the item
    let mut i = p;
    let end = (p + LABEL_WINDOW).min(b.len());
    while i < end {
        let c = at(b, i);
        if matches!(c, b'}' | b']') || (c == b'-' && line_start(b, i)) {
            return None;
        }
        if !c.is_ascii_alphabetic() || before(b, i).is_ascii_alphanumeric() {
            i += 1;
            continue;
        }
        let n = b
            .get(i..end)
            .unwrap_or_default()
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
            .count();
        let word = b.get(i..i + n).unwrap_or_default();
        let mut q = i + n;
        if keys::is(word, LABELS) {
            return None;
        }
        if keys::is(word, VALUE_FIELDS) {
            if matches!(at(b, q), b'"' | b'\'') {
                q += 1;
            }
            q = spaces(b, q);
            if matches!(at(b, q), b':' | b'=') && !matches!(at(b, q + 1), b'=' | b':') {
                let vp = spaces(b, q + 1);
                let parsed = parse_value(b, vp).ok()?;
                let v = text.get(parsed.start..parsed.end)?;
                if value::keyed(v) {
                    spans.push(Span::new(parsed.start, parsed.end, kind, 3));
                    return Some(parsed.end);
                }
                return None;
            }
        }
        i += n.max(1);
    }
    None
}
