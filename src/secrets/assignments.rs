//! Keys that name a secret (see [`keys`](super::keys)), and their values: `KEY=value`,
//! `key: value`, `"key": "value"`, `key := value`, `key => value`, `key is value`,
//! `key value` (flags and a few prose words), `<key>value</key>`, `<add key="..." value="...">`,
//! `Authorization: Bearer value`, `curl -u user:password`, `mysql -pvalue`; and from the
//! structure around a key: `KEY["x"] = value` (an index), `define('KEY', 'value')` (a call's
//! pair of arguments), `setPassword("value")` (a setter), `auth=("user", "password")` (a
//! pair), `/pass:value` (a Windows switch), `curl -su user:pw` (a flag cluster), `requirepass
//! value` and `set -x KEY value` (a directive line), `password: >-` (a YAML block scalar),
//! `- name: KEY` then `value: ...` or `<entry key="KEY">value</entry>` (a key as a label),
//! `| Password |` (a Markdown table column) and `| KEY | value |` (a row),
//! `Authorization: SSWS value` (any scheme), `echo value | ... --password-stdin` (a pipe) and
//! `ConvertTo-SecureString "value" -AsPlainText`.
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
                // (a `&` that ends a word before another flag is no shell operator:
                // `-w pw& -b base` keeps it)
                let flag_next = n == b' ' && at(b, spaces(b, i + 1)) == b'-';
                !flag_next
                    && (n == b'&'
                        || n.is_ascii_whitespace()
                        || n == 0
                        || next_is_assignment(b, i + 1))
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
    let flag = at(b, s) == b'-' || switch(b, s, e);
    let glued_p = at(b, s) == b'-' && at(b, s + 1) == b'p';
    let alone = last.len() + 1 >= e - s;
    if !(glued_p || cluster(b, s, e) || could_name(last, alone, flag)) {
        return None;
    }
    assignment(text, s, e, before_word, spans)
}

/// A cluster of short flags ending in `-u` (`curl -su user:pw`, `-fsSLu`).
#[inline]
pub(super) fn cluster(b: &[u8], s: usize, e: usize) -> bool {
    (3..=7).contains(&(e - s))
        && at(b, s) == b'-'
        && at(b, e - 1) == b'u'
        && b.get(s + 1..e)
            .is_some_and(|f| f.iter().all(u8::is_ascii_alphabetic))
}

/// A Windows switch: `/pass:value` after a space (`cmdkey /pass:pw`, `/p:pw`).
#[inline]
fn switch(b: &[u8], s: usize, e: usize) -> bool {
    s > 0
        && before(b, s) == b'/'
        && matches!(before(b, s - 1), 0 | b' ' | b'\t' | b'\n')
        && at(b, e) == b':'
}

/// Words that, first in a key followed by `(`, make it a setter (`setPassword("...")`).
const SETTERS: &[&str] = &["set", "with", "use", "put", "add"];

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

/// The fields that hold a labelled key's value.
const VALUE_FIELDS: &[&str] = &["value", "default"];

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
    let switch = switch(b, s, e);
    // path segments, mentions and escapes are not keys; a `$variable` is one only when
    // assigned (`$token = ...`), not in `Bearer $ACCESS_TOKEN rest`
    if !switch && matches!(before(b, s), b'/' | b'@' | b'%' | b'\\' | b'#') {
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
    let flag = switch
        || dashes > 0 && (s == 0 || matches!(before(b, s), b' ' | b'\t' | b'\n' | b'"' | b'\''));
    if dashes > 0 && !flag {
        return None;
    }
    let mut key = run.get(dashes..)?;
    if key.is_empty() || matches!(key.last(), Some(b'.' | b'-' | b'_')) {
        return None;
    }
    if dashes == 1 && key.eq_ignore_ascii_case(b"AsPlainText") {
        return plain_text(text, s, e, spans);
    }
    if dashes == 1 && cluster(b, s, e) {
        key = key.get(key.len() - 1..)?;
    }
    let qualifier = if dashes > 0 || switch {
        None
    } else {
        before_word
    };
    let Some(named) = named(key, flag, qualifier) else {
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
    if named.test == Test::Stdin {
        return piped(text, s, e, named.kind, spans);
    }

    // the separator
    let mut p = e;
    let open = before(b, s);
    let quoted = matches!(open, b'"' | b'\'');
    let mut closed = false;
    if quoted {
        if at(b, p) == b'\\' && at(b, p + 1) == open {
            p += 2;
            closed = true;
        } else if at(b, p) == open {
            p += 1;
            closed = true;
        }
    }
    // an index: `ENV["API_TOKEN"] = ...`, `os.environ['DB_PASSWORD'] = ...`
    if closed && at(b, p) == b']' {
        p += 1;
    }
    let xml = open == b'<' && at(b, p) == b'>';
    let after_spaces = spaces(b, p);
    let gap = after_spaces > p;
    p = after_spaces;
    // `key value` and `key is value`: no `=` or `:` says where the value is
    let mut loose = false;
    // `KEY value` as a whole line (`requirepass pw`, `set -x PGPASSWORD pw`): the value ends it
    let mut directive = false;
    let pairs = matches!(named.test, Test::UserPass | Test::MaybeUserPass);
    // a Markdown table cell (`| Password |`)
    let q = spaces(b, p);
    if at(b, q) == b'|' || (at(b, q) == b'`' && at(b, spaces(b, q + 1)) == b'|') {
        return cell(text, s, e, named.kind, spans);
    }
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
        // a type before the value: `token: &str = "..."`; the value is then a literal
        // (`SECRET: c_long = OTHER + 1` is code)
        if let Some(q) = typed(b, p) {
            if !matches!(at(b, q), b'"' | b'\'' | b'`') {
                return None;
            }
            p = q;
        }
    } else if quoted
        && b.get(p..p + 6)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"value="))
    {
        // <add key="Password" value="..." />
        p += 6;
    } else if closed
        && at(b, p) == b','
        && call_before(b, s - 1)
        && !matches!(named.word, "basic" | "bearer")
    {
        // a call's pair of arguments: `define('DB_PASSWORD', '...')`,
        // `Header.Set("Authorization", "Bearer ...")`
        p = spaces(b, p + 1);
        if !matches!(at(b, p), b'"' | b'\'' | b'`') {
            return None;
        }
    } else if !quoted && !gap && at(b, p) == b'(' {
        // `HTTPBasicAuth("user", "pw")`, `setPassword("pw")`, `.apiKey("...")`
        if !(pairs || setter(b, s, key)) {
            return None;
        }
        if !pairs {
            p += 1;
            if !matches!(at(b, p), b'"' | b'\'') {
                return None;
            }
        }
    } else if let Some(q) = (gap && !variable).then(|| copula(b, p)).flatten() {
        p = q;
        loose = true;
    } else if gap && !variable && !closed && (flag || named.form == Form::Prose) {
        loose = true;
    } else if flag && !gap && matches!(at(b, p), b'"' | b'\'') {
        // a quoted value glued to its flag: `-p'pw'`
        loose = true;
    } else if gap && !quoted && !variable && (line_start(b, s) || after_setter(b, s)) {
        loose = true;
        directive = true;
    } else {
        return labelled(text, s, p, named.kind, spans)
            .or_else(|| cell(text, s, e, named.kind, spans));
    }
    p = spaces(b, p);
    if matches!(at(b, p), b'\n' | b'\r' | 0) {
        return None;
    }
    // `auth=("user", "pw")`: the second of the pair
    if pairs && matches!(at(b, p), b'(' | b'[') {
        return pair(text, p, named.kind, spans);
    }
    let parsed = match parse_value(b, p) {
        Ok(parsed) => parsed,
        // a long stretch without a value is not looked at again
        Err(to) => return (to.saturating_sub(p) > 128).then_some(to),
    };
    let was_quoted = parsed.start > p;
    let (mut vs, ve) = (parsed.start, parsed.end);
    let raw = text.get(vs..ve)?;
    // `key value` in prose: the next word, not another `key=value`
    if loose && raw.trim_end_matches('=').contains('=') {
        return None;
    }
    if directive && !ends_line(b, ve + usize::from(was_quoted)) {
        return None;
    }
    // a YAML block scalar (`password: >-` and the value on the next line)
    if !was_quoted && matches!(raw, "|" | "|-" | "|+" | ">" | ">-" | ">+") && ends_line(b, ve) {
        return block_scalar(text, s, ve, named.kind, spans);
    }
    let mut v = raw;
    if let Some(rest) = v.strip_prefix("pass:") {
        vs += 5;
        v = rest;
    }
    // an ODBC value in braces: `Pwd={...};` (not a format field: `{password!r}`)
    if let Some(inner) = v.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
        if !inner.contains(['{', '}']) && !was_quoted && !value::format_field(inner) {
            vs += 1;
            v = inner;
        }
    }
    // `Authorization: <scheme> <credentials>`: the credentials, not the scheme's name
    if named.word == "authorization" && !was_quoted && at(b, ve) == b' ' {
        if let Some(end) = scheme(text, vs, ve, false, spans) {
            return Some(end);
        }
    }
    let ok = match named.test {
        Test::Keyed | Test::Stdin => value::keyed(v),
        Test::Strict => value::strict(v),
        Test::Password => value::password_like(v),
        Test::Base64 => {
            v.bytes()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='))
                && value::keyed(v)
        }
        // (a reference is no `user:password`: `vault:secret/app#key`, `ErrorCode::Auth`)
        Test::UserPass | Test::MaybeUserPass if value::reference(v) || v.contains("::") => false,
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
            None => match v.split_once('%') {
                // `smbclient -U user%password`
                Some((user, pass)) if user_like(user) && value::keyed(pass) => {
                    vs += user.len() + 1;
                    v = pass;
                    true
                }
                _ => named.test == Test::MaybeUserPass && value::keyed(v),
            },
        },
    };
    // a passphrase of words, quoted: `GPG_PASSPHRASE="velvet orbit 36 lantern"`
    let ok = ok
        || (was_quoted && matches!(named.kind, "password" | "passphrase") && value::passphrase(v));
    if ok {
        // (a value the key alone hardly vouches for ranks as a guess, like prose)
        let rank = if named.test == Test::Strict { 4 } else { 3 };
        spans.push(Span::new(vs, vs + v.len(), named.kind, rank));
        return Some(ve);
    }
    // `Authorization: <scheme> <credentials>` with a scheme of any name (`SSWS`, `Token`)
    if named.word == "authorization" {
        if let Some(end) = scheme(text, vs, ve, was_quoted, spans) {
            return Some(end);
        }
    }
    // a long rejected value is skipped whole (keeps the scan linear); a short one is scanned
    // for keys of its own (`Authorization: Bearer ...`)
    let long = ve - p > 128 && !raw.bytes().any(|c| c == b' ');
    long.then_some(ve)
}

/// After `key:` at `p`, a type and then `=` (`: &str = `, `: Option<String> = `): where the
/// value after the `=` starts.
fn typed(b: &[u8], p: usize) -> Option<usize> {
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

fn user_like(user: &str) -> bool {
    !user.is_empty()
        && user.len() <= 64
        && user.bytes().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(c, b'_' | b'-' | b'.' | b'@' | b'+' | b'$' | b'{' | b'}')
        })
}

/// Whether the line holds only spaces before `s`.
fn line_start(b: &[u8], s: usize) -> bool {
    let mut i = s;
    while i > 0 && matches!(before(b, i), b' ' | b'\t') {
        i -= 1;
    }
    i == 0 || before(b, i) == b'\n'
}

/// The line start before `s`, looking back at most `max` bytes.
fn line_begin(b: &[u8], s: usize, max: usize) -> usize {
    let mut i = s;
    while i > 0 && s - i < max && before(b, i) != b'\n' {
        i -= 1;
    }
    i
}

/// Whether only spaces and a `#` comment follow `i` on its line.
fn ends_line(b: &[u8], i: usize) -> bool {
    matches!(at(b, spaces(b, i)), b'\n' | b'\r' | b'#' | 0)
}

/// Commands that set a variable to the words after it: `set -x NAME value` (fish), `setenv`
/// (csh).
const SET_COMMANDS: &[&str] = &["set", "setenv"];

/// Whether a command that sets a variable (and its short flags) starts the line before `s`.
fn after_setter(b: &[u8], s: usize) -> bool {
    let mut i = s;
    // flags: `-x`, `-gx` (a few)
    for _ in 0..4 {
        let e = i;
        while i > 0 && matches!(before(b, i), b' ' | b'\t') {
            i -= 1;
        }
        if i == e {
            return false;
        }
        let we = i;
        while i > 0 && before(b, i).is_ascii_alphanumeric() && we - i < 16 {
            i -= 1;
        }
        let word = b.get(i..we).unwrap_or_default();
        if before(b, i) == b'-' && !word.is_empty() {
            i -= 1;
            continue;
        }
        return !word.is_empty() && super::keys::is(word, SET_COMMANDS) && line_start(b, i);
    }
    false
}

/// Whether the quote before `q` is an argument of a call or an item of an array: `(` or `[`
/// before it (past spaces).
fn call_before(b: &[u8], q: usize) -> bool {
    let mut i = q;
    while i > 0 && matches!(before(b, i), b' ' | b'\t') {
        i -= 1;
    }
    matches!(before(b, i), b'(' | b'[')
}

/// A key called as a setter: `setPassword(`, `withToken(`, or a method named by the secret
/// itself (`.password(`, `.apiKey(`), not `getPassword(` or `checkPassword(`.
fn setter(b: &[u8], s: usize, key: &[u8]) -> bool {
    // the method's own name, after the object it is called on (`ds.setPassword`)
    let dot = key.iter().rposition(|&c| c == b'.');
    let method = dot.and_then(|d| key.get(d + 1..)).unwrap_or(key);
    let Some(first) = super::keys::first_word(method) else {
        return false;
    };
    super::keys::is(first, SETTERS)
        || ((dot.is_some() || before(b, s) == b'.')
            && (super::keys::named(first, false, None).is_some()
                || super::keys::is(first, super::keys::KEY_QUALIFIERS)))
}

/// `("user", "password")` or `['user', 'password']` at `p`: the password, if the pair is
/// complete and the password is a real one.
fn pair(text: &str, p: usize, kind: &'static str, spans: &mut Vec<Span>) -> Option<usize> {
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
    !word.is_empty() && super::keys::is(word, LABELS)
}

/// How far after a labelled key its value field is looked for.
const LABEL_WINDOW: usize = 320;

/// A key that is itself a value under a label (see [`label_before`]), at `s`, with `p` after
/// it: its value is the text of the element (`<entry key="db.password">pw</entry>`) or the
/// `value`/`default` field that follows in the same item.
fn labelled(
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
        if super::keys::is(word, LABELS) {
            return None;
        }
        if super::keys::is(word, VALUE_FIELDS) {
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

/// The text of a Markdown table cell ending at or after `i` (`| value |`): its start and end,
/// without spaces or backticks around it.
fn cell_text(b: &[u8], from: usize) -> Option<(usize, usize, usize)> {
    let n = b
        .get(from..)?
        .iter()
        .take(value::MAX_VALUE + 1)
        .take_while(|&&c| c != b'|' && c != b'\n')
        .count();
    if at(b, from + n) != b'|' {
        return None;
    }
    let (mut s, mut e) = (from, from + n);
    while s < e && matches!(at(b, s), b' ' | b'\t' | b'`') {
        s += 1;
    }
    while e > s && matches!(before(b, e), b' ' | b'\t' | b'`') {
        e -= 1;
    }
    Some((s, e, from + n))
}

/// Whether the line from `i` is a Markdown table's separator row (`|---|:--:|`).
fn separator_row(b: &[u8], i: usize) -> bool {
    let i = spaces(b, i);
    let n = b
        .get(i..)
        .unwrap_or_default()
        .iter()
        .take(4096)
        .take_while(|&&c| c != b'\n')
        .count();
    let row = b.get(i..i + n).unwrap_or_default();
    let row = row.strip_suffix(b"\r").unwrap_or(row);
    row.first() == Some(&b'|')
        && row.contains(&b'-')
        && row
            .iter()
            .all(|c| matches!(c, b'|' | b'-' | b':' | b' ' | b'\t'))
}

/// The most rows and columns of a Markdown table read.
const TABLE_ROWS: usize = 1000;
const TABLE_COLUMNS: usize = 32;

/// A key in a Markdown table cell: a header (`| Host | User | Password |`) whose column holds
/// secrets in the rows below, or a row's key cell with its value in the next cell
/// (`| GH_TOKEN | ... |`). Returns the end of what was read.
fn cell(
    text: &str,
    s: usize,
    e: usize,
    kind: &'static str,
    spans: &mut Vec<Span>,
) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = s;
    while i > 0 && matches!(before(b, i), b' ' | b'\t' | b'`') {
        i -= 1;
    }
    if before(b, i) != b'|' {
        return None;
    }
    let (_, _, cell_end) = cell_text(b, e)?;
    if b.get(e..cell_end)?
        .iter()
        .any(|c| !matches!(c, b' ' | b'\t' | b'`'))
    {
        return None;
    }
    // (the rest of the row is not looked at for keys again: one look per row)
    let line_end = cell_end
        + b.get(cell_end..)?
            .iter()
            .take(4096)
            .take_while(|&&c| c != b'\n')
            .count();
    if at(b, line_end) == b'\n' && separator_row(b, line_end + 1) {
        let row_start = line_begin(b, i, 4096);
        return table(text, row_start, line_end + 1, spans).or(Some(line_end));
    }
    // a key cell: the value is the next cell
    if let Some((vs, ve, _)) = cell_text(b, cell_end + 1) {
        let v = text.get(vs..ve)?;
        if value::keyed(v) {
            spans.push(Span::new(vs, ve, kind, 3));
        }
    }
    Some(line_end)
}

/// A table whose header row starts at `header` and separator row at `sep`: every cell of a
/// column whose header names a secret, tested as that name asks. Returns the end of the
/// separator row (the rows are read here once; keys in them are still looked at).
fn table(text: &str, header: usize, sep: usize, spans: &mut Vec<Span>) -> Option<usize> {
    let b = text.as_bytes();
    // the columns whose header names a secret (bit k for column k), and their tests
    let mut secret = 0u32;
    let mut tests = [(Test::Keyed, "password"); TABLE_COLUMNS];
    let mut i = spaces(b, header);
    if at(b, i) != b'|' {
        return None;
    }
    i += 1;
    let mut column = 0;
    while let Some((cs, ce, end)) = cell_text(b, i) {
        if column >= TABLE_COLUMNS {
            break;
        }
        let name = b.get(cs..ce).unwrap_or_default();
        if let Some(named) = super::keys::named(name, false, None) {
            secret |= 1 << column;
            if let Some(t) = tests.get_mut(column) {
                *t = (named.test, named.kind);
            }
        }
        column += 1;
        i = end + 1;
    }
    if secret == 0 {
        return None;
    }
    let mut line = sep;
    line += b.get(line..)?.iter().take_while(|&&c| c != b'\n').count() + 1;
    let body = line;
    for _ in 0..TABLE_ROWS {
        let mut i = spaces(b, line);
        if at(b, i) != b'|' {
            break;
        }
        // a row with a separator row under it heads the next table
        let n = b
            .get(line..)
            .unwrap_or_default()
            .iter()
            .take_while(|&&c| c != b'\n')
            .count();
        if at(b, line + n) == b'\n' && separator_row(b, line + n + 1) {
            break;
        }
        i += 1;
        let mut column = 0;
        while let Some((cs, ce, end)) = cell_text(b, i) {
            if column >= TABLE_COLUMNS {
                break;
            }
            if secret >> column & 1 == 1 {
                let v = text.get(cs..ce).unwrap_or_default();
                let (test, kind) = tests
                    .get(column)
                    .copied()
                    .unwrap_or((Test::Keyed, "password"));
                let ok = match test {
                    Test::Strict => value::strict(v),
                    Test::Password => value::password_like(v),
                    _ => value::keyed(v),
                };
                if ok {
                    spans.push(Span::new(cs, ce, kind, 3));
                }
            }
            column += 1;
            i = end + 1;
        }
        line += n + 1;
        if line > b.len() {
            break;
        }
    }
    Some(body.min(b.len()))
}

/// A value piped into a command whose flag says it reads it from standard input
/// (`echo 'pw' | docker login --password-stdin`, `... --password-stdin <<< 'pw'`).
fn piped(
    text: &str,
    s: usize,
    e: usize,
    kind: &'static str,
    spans: &mut Vec<Span>,
) -> Option<usize> {
    let b = text.as_bytes();
    // a here-string after the flag
    let h = spaces(b, e);
    if b.get(h..h + 3) == Some(b"<<<") {
        let parsed = parse_value(b, spaces(b, h + 3)).ok()?;
        let v = text.get(parsed.start..parsed.end)?;
        if value::keyed(v) {
            spans.push(Span::new(parsed.start, parsed.end, kind, 3));
        }
        return Some(parsed.end);
    }
    // `echo value |` or `printf '%s' value |` earlier on the line
    let line = line_begin(b, s, 512);
    let mut i = line;
    while i < s {
        let word_start = i == line || matches!(before(b, i), b' ' | b'\t' | b';' | b'(' | b'&');
        let echo = if !word_start {
            None
        } else if b.get(i..i + 5) == Some(b"echo ") {
            Some(i + 5)
        } else if b.get(i..i + 7) == Some(b"printf ") {
            Some(i + 7)
        } else {
            None
        };
        let Some(mut p) = echo else {
            i += 1;
            continue;
        };
        p = spaces(b, p);
        // `-n`, `-e`, and printf's format
        while at(b, p) == b'-' && at(b, p + 1).is_ascii_alphabetic() && at(b, p + 2) == b' ' {
            p = spaces(b, p + 3);
        }
        if let Some(f) = b.get(p..p + 6) {
            if f.contains(&b'%') && matches!(at(b, p), b'\'' | b'"') {
                if let Ok(fmt) = parse_value(b, p) {
                    p = spaces(b, fmt.end + 1);
                }
            }
        }
        let parsed = parse_value(b, p).ok()?;
        let close = parsed.end + usize::from(parsed.start > p);
        if at(b, spaces(b, close)) != b'|' || close > s {
            return None;
        }
        let v = text.get(parsed.start..parsed.end)?;
        if value::keyed(v) {
            spans.push(Span::new(parsed.start, parsed.end, kind, 3));
        }
        return None;
    }
    None
}

/// PowerShell's `-AsPlainText` (`ConvertTo-SecureString "pw" -AsPlainText -Force`): the quoted
/// string just before it on the line, or just after it.
fn plain_text(text: &str, s: usize, e: usize, spans: &mut Vec<Span>) -> Option<usize> {
    let b = text.as_bytes();
    let mut q = s;
    while q > 0 && matches!(before(b, q), b' ' | b'\t') {
        q -= 1;
    }
    let quote = before(b, q);
    let (vs, ve) = if matches!(quote, b'"' | b'\'') {
        let ve = q - 1;
        let mut vs = ve;
        while vs > 0 && ve - vs <= 256 && !matches!(before(b, vs), b'\n') && before(b, vs) != quote
        {
            vs -= 1;
        }
        if before(b, vs) != quote || vs == ve {
            return None;
        }
        (vs, ve)
    } else {
        let parsed = parse_value(b, spaces(b, e)).ok()?;
        if parsed.start == spaces(b, e) {
            return None;
        }
        (parsed.start, parsed.end)
    };
    let v = text.get(vs..ve)?;
    if value::keyed(v) {
        spans.push(Span::new(vs, ve, "password", 3));
    }
    None
}

/// `<scheme> <credentials>` as the value of `Authorization` (a quoted `"SSWS token"`, or the
/// bare scheme `vs..ve` and the word after it): the credentials, if they pass
/// [`value::keyed`].
fn scheme(text: &str, vs: usize, ve: usize, quoted: bool, spans: &mut Vec<Span>) -> Option<usize> {
    let b = text.as_bytes();
    let raw = text.get(vs..ve)?;
    let (name, cs, ce) = if quoted {
        let (name, cred) = raw.split_once(' ')?;
        let cs = vs + name.len() + 1 + (cred.len() - cred.trim_start().len());
        (name, cs, ve)
    } else {
        let cs = spaces(b, ve);
        if cs == ve {
            return None;
        }
        let parsed = parse_value(b, cs).ok()?;
        if parsed.start != cs {
            return None;
        }
        (raw, cs, parsed.end)
    };
    let scheme_like = (2..=24).contains(&name.len())
        && name.bytes().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-');
    let cred = text.get(cs..ce)?;
    // parameters (`Digest username="..."`, `WSSE profile="..."`) are keys of their own
    let params = cred.trim_end_matches('=').contains('=');
    if scheme_like && !params && value::keyed(cred) {
        let kind = if name.eq_ignore_ascii_case("bearer") {
            "bearer token"
        } else if name.eq_ignore_ascii_case("basic") {
            "basic auth"
        } else {
            "credentials"
        };
        spans.push(Span::new(cs, ce, kind, 3));
        return Some(ce);
    }
    None
}

/// The value of a YAML block scalar whose indicator (`|`, `>-`) ends at `ve`, for the key at
/// `s`: its one line, indented deeper than the key, with no more lines after it.
fn block_scalar(
    text: &str,
    s: usize,
    ve: usize,
    kind: &'static str,
    spans: &mut Vec<Span>,
) -> Option<usize> {
    let b = text.as_bytes();
    let indent = |from: usize| {
        b.get(from..)
            .unwrap_or_default()
            .iter()
            .take_while(|&&c| c == b' ')
            .count()
    };
    let key_indent = indent(line_begin(b, s, 256));
    let line = ve
        + b.get(ve..)?
            .iter()
            .take(256)
            .take_while(|&&c| c != b'\n')
            .count()
        + 1;
    let vi = indent(line);
    let vs = line + vi;
    let n = b
        .get(vs..)?
        .iter()
        .take(value::MAX_VALUE + 1)
        .take_while(|&&c| c != b'\n' && c != b'\r')
        .count();
    let ve = vs + n;
    let next = ve + usize::from(at(b, ve) == b'\r') + 1;
    let alone = at(b, ve) == 0 || indent(next) <= key_indent || at(b, next) == 0;
    let v = text.get(vs..ve)?;
    if vi > key_indent && alone && value::keyed(v.trim_end()) {
        spans.push(Span::new(vs, vs + v.trim_end().len(), kind, 3));
        return Some(ve);
    }
    None
}
