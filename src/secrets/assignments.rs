//! Keys that name a secret (see [`keys`](super::keys)), and their values: `KEY=value`,
//! `key: value`, `"key": "value"`, `key := value`, `key => value`, `key is value`,
//! `key value` (flags and a few prose words), `<key>value</key>`, `<add key="..." value="...">`,
//! `Authorization: Bearer value`, `curl -u user:password`, `mysql -pvalue`.
//!
//! The whole value becomes one span: quoted, up to its closing quote; bare, up to a space, a
//! quote, `,;<`, an unbalanced bracket or `&` before another `key=`. It must then pass the test
//! the key word asks for ([`value::keyed`] mostly).

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::keys::{could_name, named, Form, Test};
use super::{at, before, value, Span, MARKER};

/// Where a value is, and where scanning goes on.
struct Parsed {
    start: usize,
    end: usize,
}

/// The value starting at `p` (after the separator and spaces): quoted (`"..."`, `'...'`,
/// `` `...` ``, `\"...\"`) up to its closing quote on the same line, or bare up to a space, a
/// quote, `,;<`, an unbalanced closing bracket, `&` before another `key=`, or an escaped newline.
/// Without a value, how far it looked (so that a long stretch is not looked at again).
fn parse_value(b: &[u8], p: usize) -> Result<Parsed, usize> {
    let c = at(b, p);
    let (open, skip) = match c {
        b'"' | b'\'' | b'`' => (Some(c), 1),
        b'\\' if matches!(at(b, p + 1), b'"' | b'\'') => (Some(at(b, p + 1)), 2),
        _ => (None, 0),
    };
    let start = p + skip;
    if let Some(q) = open {
        let mut i = start;
        while i < b.len() && i - start <= value::MAX_VALUE {
            let c = at(b, i);
            if c == b'\n' || c == b'\r' {
                return Err(i);
            }
            if c == b'\\' && q != b'`' {
                // an escaped closing quote in JSON-in-a-string ends the value; `\x` is a char
                if skip == 2 && at(b, i + 1) == q {
                    break;
                }
                i += 2;
                continue;
            }
            if c == q {
                break;
            }
            i += 1;
        }
        if i >= b.len() || i - start > value::MAX_VALUE || i == start {
            return Err(i);
        }
        return Ok(Parsed { start, end: i });
    }
    let mut i = start;
    let mut depth = 0i32;
    while i < b.len() && i - start <= value::MAX_VALUE {
        let c = at(b, i);
        let stop = match c {
            b'"' | b'`' | b',' | b';' | b'<' => true,
            b'(' | b'[' | b'{' => {
                depth += 1;
                false
            }
            b')' | b']' | b'}' => {
                depth -= 1;
                depth < 0
            }
            b'&' => {
                let n = at(b, i + 1);
                n == b'&' || n.is_ascii_whitespace() || n == 0 || next_is_assignment(b, i + 1)
            }
            b'\\' => matches!(at(b, i + 1), b'n' | b'r' | b't' | b'"'),
            _ => c.is_ascii_whitespace(),
        };
        if stop {
            break;
        }
        i += 1;
    }
    if i - start > value::MAX_VALUE {
        return Err(i);
    }
    // sentence and YAML punctuation after a bare value
    let mut end = i;
    while end > start {
        let c = before(b, end);
        let quote_unpaired = c == b'\''
            && b.get(start..end)
                .unwrap_or_default()
                .iter()
                .filter(|&&x| x == b'\'')
                .count()
                % 2
                == 1;
        if matches!(c, b'.' | b':' | b',') || quote_unpaired {
            end -= 1;
        } else {
            break;
        }
    }
    if end > start {
        Ok(Parsed { start, end })
    } else {
        Err(i)
    }
}

/// `key=` at `i` (as after `&` in a query string).
fn next_is_assignment(b: &[u8], i: usize) -> bool {
    let n = b
        .get(i..)
        .unwrap_or_default()
        .iter()
        .take(64)
        .take_while(|&&c| {
            c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'[' | b']')
        })
        .count();
    n > 0 && at(b, i + n) == b'='
}

fn spaces(b: &[u8], mut p: usize) -> usize {
    while matches!(at(b, p), b' ' | b'\t') {
        p += 1;
    }
    p
}

/// `is `/`was ` at `p`, returning what follows.
fn copula(b: &[u8], p: usize) -> Option<usize> {
    for w in [&b"is"[..], b"was", b"are"] {
        let Some(got) = b.get(p..p + w.len()) else {
            continue;
        };
        if got.eq_ignore_ascii_case(w) && matches!(at(b, p + w.len()), b' ' | b'\t') {
            return Some(spaces(b, p + w.len()));
        }
    }
    None
}

/// The key run `s..e` (see [`super::walk`]): if its last word may name a secret and a value
/// follows, push the value's span. `before_word` is the last word of the run before, when only
/// a space separates them (`API` in `API key: ...`). Returns where looking for keys may resume
/// when a value was consumed.
#[inline]
pub(super) fn in_run(
    text: &str,
    s: usize,
    e: usize,
    last: &[u8],
    before_word: Option<&[u8]>,
    spans: &mut Vec<Span>,
) -> Option<usize> {
    let b = text.as_bytes();
    let flag = at(b, s) == b'-';
    let glued_p = flag && at(b, s + 1) == b'p';
    let alone = last.len() + 1 >= e - s;
    if !(glued_p || could_name(last, alone, flag)) {
        return None;
    }
    assignment(text, s, e, before_word, spans)
}

/// The key run `s..e`: if it is a key naming a secret with a value after it, push the value's
/// span. Returns where scanning may resume when a value was consumed.
#[inline(never)]
fn assignment(
    text: &str,
    s: usize,
    e: usize,
    before_word: Option<&[u8]>,
    spans: &mut Vec<Span>,
) -> Option<usize> {
    let b = text.as_bytes();
    // path segments, mentions and escapes are not keys; a `$variable` is one only when
    // assigned (`$token = ...`), not in `Bearer $ACCESS_TOKEN rest`
    if matches!(before(b, s), b'/' | b'@' | b'%' | b'\\' | b'#') {
        return None;
    }
    let variable = before(b, s) == b'$';
    // the marker's own word is not a key
    if s.checked_sub(1)
        .and_then(|m| b.get(m..))
        .is_some_and(|r| r.starts_with(MARKER.as_bytes()))
    {
        return None;
    }
    let run = b.get(s..e)?;
    let dashes = run.iter().take_while(|&&c| c == b'-').count();
    let flag =
        dashes > 0 && (s == 0 || matches!(before(b, s), b' ' | b'\t' | b'\n' | b'"' | b'\''));
    if dashes > 0 && !flag {
        return None;
    }
    let key = run.get(dashes..)?;
    let key_end = e;
    if key.is_empty() || matches!(key.last(), Some(b'.' | b'-' | b'_')) {
        return None;
    }
    let Some(named) = named(key, flag, if dashes > 0 { None } else { before_word }) else {
        // a glued `-pVALUE` (mysql): the rest of the word, if it looks like a password
        if dashes == 1 && key.len() > 1 && key.first() == Some(&b'p') {
            let end = s
                + 1
                + b.get(s + 1..)?
                    .iter()
                    .take_while(|c| !c.is_ascii_whitespace())
                    .count();
            let v = text.get(s + 2..end)?;
            if value::strict(v) {
                spans.push(Span::new(s + 2, end, "password", 3));
                return Some(end);
            }
        }
        return None;
    };

    // the separator
    let mut p = key_end;
    let open = before(b, s);
    let quoted = matches!(open, b'"' | b'\'');
    if quoted {
        if at(b, p) == b'\\' && at(b, p + 1) == open {
            p += 2;
        } else if at(b, p) == open {
            p += 1;
        }
    }
    let xml = open == b'<' && at(b, p) == b'>';
    let after_spaces = spaces(b, p);
    let gap = after_spaces > p;
    p = after_spaces;
    // `key value` and `key is value`: no `=` or `:` says where the value is
    let mut loose = false;
    if xml {
        p += 1;
    } else if at(b, p) == b'=' && at(b, p + 1) != b'=' {
        p += if at(b, p + 1) == b'>' { 2 } else { 1 };
    } else if at(b, p) == b':' && at(b, p + 1) != b':' {
        // a segment of a colon chain (`arn:aws:...:secret:name`) is not a key
        if before(b, s) == b':' && at(b, p + 1) != b'=' {
            return None;
        }
        p += if at(b, p + 1) == b'=' { 2 } else { 1 };
    } else if quoted
        && b.get(p..p + 6)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"value="))
    {
        // <add key="Password" value="..." />
        p += 6;
    } else if let Some(q) = (gap && !variable).then(|| copula(b, p)).flatten() {
        p = q;
        loose = true;
    } else if gap && !variable && (flag || named.form == Form::Prose) {
        loose = true;
    } else if flag && !gap && matches!(at(b, p), b'"' | b'\'') {
        // a quoted value glued to its flag: `-p'pw'`
        loose = true;
    } else {
        return None;
    }
    p = spaces(b, p);
    if matches!(at(b, p), b'\n' | b'\r' | 0) {
        return None;
    }
    let parsed = match parse_value(b, p) {
        Ok(parsed) => parsed,
        // a long stretch without a value is not looked at again
        Err(to) => return (to.saturating_sub(p) > 128).then_some(to),
    };
    let (mut vs, ve) = (parsed.start, parsed.end);
    let raw = text.get(vs..ve)?;
    // `key value` in prose: the next word, not another `key=value`
    if loose && raw.trim_end_matches('=').contains('=') {
        return None;
    }
    let mut v = raw;
    if let Some(rest) = v.strip_prefix("pass:") {
        vs += 5;
        v = rest;
    }
    let ok = match named.test {
        Test::Keyed => value::keyed(v),
        Test::Strict => value::strict(v),
        Test::Password => value::password_like(v),
        Test::Base64 => {
            v.bytes()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='))
                && value::keyed(v)
        }
        // (a reference is no `user:password`: `vault:secret/app#key`)
        Test::UserPass | Test::MaybeUserPass if value::reference(v) => false,
        Test::UserPass | Test::MaybeUserPass => match v.split_once(':') {
            // `user:password`: the place says it is a password, so any real value counts
            Some((user, pass)) if user_like(user) => {
                vs += user.len() + 1;
                v = pass;
                value::embedded(pass, user)
                    && !pass.starts_with('/')
                    && !pass.bytes().all(|c| c.is_ascii_digit())
            }
            Some(_) => false,
            None => named.test == Test::MaybeUserPass && value::keyed(v),
        },
    };
    if ok {
        spans.push(Span::new(vs, vs + v.len(), named.kind, 3));
        return Some(ve);
    }
    // a long rejected value is skipped whole (keeps the scan linear); a short one is scanned
    // for keys of its own (`Authorization: Bearer ...`)
    let long = ve - p > 128 && !raw.bytes().any(|c| c == b' ');
    long.then_some(ve)
}

fn user_like(user: &str) -> bool {
    !user.is_empty()
        && user.len() <= 64
        && user.bytes().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(c, b'_' | b'-' | b'.' | b'@' | b'+' | b'$' | b'{' | b'}')
        })
}
