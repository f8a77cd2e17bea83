//! Reading a value once a form has said where it starts: quoted up to its closing quote, or bare
//! up to a space, a quote, `,;<`, an unbalanced bracket or `&` before another `key=`; and the
//! small scanners every form shares (spaces, `is`/`was`, a user name, where a line starts and
//! ends). Kept apart so that each form ends its value the same way.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use crate::secrets::{at, before, value};

/// Where a value is, and where scanning goes on.
pub(super) struct Parsed {
    pub(super) start: usize,
    pub(super) end: usize,
}

/// The value starting at `p` (after the separator and spaces): quoted (`"..."`, `'...'`,
/// `` `...` ``, `\"...\"`) up to its closing quote on the same line, or bare up to a space, a
/// quote, `,;<`, an unbalanced closing bracket, `&` before another `key=`, or an escaped newline.
/// Without a value, how far it looked (so that a long stretch is not looked at again).
pub(super) fn parse_value(b: &[u8], p: usize) -> Result<Parsed, usize> {
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
                // (a `&` that ends a word before another flag is no shell operator:
                // `-w pw& -b base` keeps it)
                // (nor one that ends a line or the text: `pass=feh4c&` in a properties file)
                let flag_next = n == b' ' && at(b, spaces(b, i + 1)) == b'-';
                !flag_next && (n == b'&' || n == b' ' || n == b'\t' || next_is_assignment(b, i + 1))
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

/// One argument of a command at `p`, quoted or bare (see [`parse_value`]): where its text
/// starts and ends, and where the next argument may start.
pub(in crate::secrets) fn parse_arg(b: &[u8], p: usize) -> Option<(usize, usize, usize)> {
    let parsed = parse_value(b, p).ok()?;
    let quoted = parsed.start > p;
    Some((parsed.start, parsed.end, parsed.end + usize::from(quoted)))
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

/// Past the spaces and tabs at `p`.
pub(super) fn spaces(b: &[u8], mut p: usize) -> usize {
    while matches!(at(b, p), b' ' | b'\t') {
        p += 1;
    }
    p
}

/// `is `/`was ` at `p`, returning what follows.
pub(super) fn copula(b: &[u8], p: usize) -> Option<usize> {
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

/// A user name before a password (`deploy` in `deploy:pw`, `backup` in `backup%pw`).
pub(in crate::secrets) fn user_like(user: &str) -> bool {
    !user.is_empty()
        && user.len() <= 64
        && user.bytes().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(c, b'_' | b'-' | b'.' | b'@' | b'+' | b'$' | b'{' | b'}')
        })
}

/// Whether the line holds only spaces before `s`.
pub(super) fn line_start(b: &[u8], s: usize) -> bool {
    let mut i = s;
    while i > 0 && matches!(before(b, i), b' ' | b'\t') {
        i -= 1;
    }
    i == 0 || before(b, i) == b'\n'
}

/// The line start before `s`, looking back at most `max` bytes.
pub(super) fn line_begin(b: &[u8], s: usize, max: usize) -> usize {
    let mut i = s;
    while i > 0 && s - i < max && before(b, i) != b'\n' {
        i -= 1;
    }
    i
}

/// Whether only spaces and a `#` comment follow `i` on its line.
pub(super) fn ends_line(b: &[u8], i: usize) -> bool {
    matches!(at(b, spaces(b, i)), b'\n' | b'\r' | b'#' | 0)
}
