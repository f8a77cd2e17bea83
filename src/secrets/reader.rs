//! The assignment reader: a key that names a secret, a separator, then a value.
//!
//! A key is a run of `A-Za-z0-9_.-` whose last word (snake, kebab, dotted or CamelCase; a tail
//! such as `_b64` or `Value` may follow) is a key word of [`KEY_WORDS`], or ends in one
//! (`dbpass`, `authtoken`). Flags are keys too (`--password`, `-p`, `-u user:pass`). Between
//! key and value one generic loop skips what may separate them: the key's closing quote and
//! `]`, `=`, `:`, `:=`, `=>`, `>` of an XML element, `(` of a setter call, `,` between a call's
//! arguments, a copula (`is`, `est`, `ist`, ...), or spaces after a flag or a line's first
//! word. The value is read quoted to its closing quote, else bare to a space or a delimiter,
//! and kept if its [`score`] reaches what the place asks for: [`KEYED`] after a strong key
//! word and a separator, [`PASSWORD`] after a weak one (`key`, `-p`) or with spaces only.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::strength::{
    entropy, identifier_like, key_shape, reference, score, KEYED, MAX_VALUE, PASSWORD, STRICT,
};
use super::words::{KEY_COPULAS, KEY_WORDS, NOT_PASS, NOT_SECRET, QUALIFIERS, SUFFIXES, TAILS};
use super::{ahead, at, before, behind, Span};

/// Flags that take `user:password` (`curl -u`, `http -a`, `--user`).
const USER_FLAGS: &[&str] = &["u", "a", "user", "auth", "basic"];

/// The words of a key: snake, kebab, dotted and CamelCase parts.
fn words(key: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut s = None;
    for (i, &c) in key.iter().enumerate() {
        let boundary = !c.is_ascii_alphanumeric()
            || (c.is_ascii_uppercase() && before(key, i).is_ascii_lowercase())
            || (c.is_ascii_uppercase()
                && before(key, i).is_ascii_uppercase()
                && at(key, i + 1).is_ascii_lowercase());
        if boundary {
            if let Some(a) = s.take() {
                out.extend(key.get(a..i));
            }
        }
        if c.is_ascii_alphanumeric() && s.is_none() {
            s = Some(i);
        }
    }
    if let Some(a) = s {
        out.extend(key.get(a..));
    }
    out
}

fn is(word: &[u8], list: &[&str]) -> bool {
    list.iter().any(|w| word.eq_ignore_ascii_case(w.as_bytes()))
}

/// A key word, or a word ending in one: its kind and strength.
fn key_word(w: &[u8]) -> Option<(&'static str, bool)> {
    // (a numbered key is its word: `password2`)
    let digits = w.iter().rev().take_while(|c| c.is_ascii_digit()).count();
    let w = if digits <= 2 && w.len() > digits + 2 {
        w.get(..w.len() - digits)?
    } else {
        w
    };
    // (quick: the last letters of the key words and endings)
    let last = w.last().map_or(0, u8::to_ascii_lowercase);
    if w.len() > 40 || !b"adeghklnorstwy".contains(&last) {
        return None;
    }
    if let Some(&(_, kind, strong)) = KEY_WORDS
        .iter()
        .find(|k| w.eq_ignore_ascii_case(k.0.as_bytes()))
    {
        return Some((kind, strong));
    }
    if is(w, NOT_PASS) {
        return None;
    }
    SUFFIXES.iter().find_map(|s| {
        let n = w.len().checked_sub(s.len()).filter(|&n| n > 0)?;
        w.get(n..)?
            .eq_ignore_ascii_case(s.as_bytes())
            .then_some(("password", true))
    })
}

/// Whether a word of `run` names a secret alone (`password`, `sasl_passwd`).
pub(super) fn names_secret(run: &[u8]) -> bool {
    words(run)
        .iter()
        .any(|w| key_word(w).is_some_and(|(_, strong)| strong))
}

/// Whether the last word of `run` (or the one before a tail) may be a key word: the quick test
/// most runs of a text fail.
fn may_name(run: &[u8]) -> bool {
    let last = |end: usize| {
        let mut st = end;
        while st > 0 && at(run, st - 1).is_ascii_alphanumeric() {
            st -= 1;
            if at(run, st).is_ascii_uppercase() && before(run, st).is_ascii_lowercase() {
                break;
            }
        }
        (st, run.get(st..end).unwrap_or_default())
    };
    let (st, word) = last(run.len());
    let tail = is(word, TAILS) || is(word, &["id"]);
    key_word(word).is_some() || (st > 1 && tail && key_word(last(st - 1).1).is_some())
}

/// Whether the key `run` names a secret: (kind, strong). `prev` is the word before it.
fn named(run: &[u8], prev: Option<&[u8]>) -> Option<(&'static str, bool)> {
    let words = words(run);
    let k = words.iter().rposition(|w| key_word(w).is_some())?;
    // (`secret_id`: a Vault AppRole names its secret an id)
    let secret_id = words.len() == k + 2
        && words.get(k).is_some_and(|w| is(w, &["secret"]))
        && words.last().is_some_and(|w| is(w, &["id"]));
    if !secret_id && !words.iter().skip(k + 1).all(|w| is(w, TAILS)) {
        return None;
    }
    let (mut kind, mut strong) = key_word(words.get(k)?)?;
    let qualifier = k
        .checked_sub(1)
        .and_then(|q| words.get(q).copied())
        .or(prev);
    if qualifier.is_some_and(|q| is(q, NOT_SECRET)) {
        return None;
    }
    // (a qualifier, or a strong key word before the last: `bearer_auth`)
    let strong_word = |w: &&[u8]| key_word(w).is_some_and(|(_, s)| s);
    if qualifier.is_some_and(|q| is(q, QUALIFIERS)) || words.iter().take(k).any(strong_word) {
        strong = true;
    }
    if words.iter().any(|w| w.eq_ignore_ascii_case(b"aws")) && kind != "password" {
        kind = "aws secret key";
    }
    Some((kind, strong))
}

/// Whether only spaces (or a backtick) stand between the line's start and `s`.
fn line_start(b: &[u8], s: usize) -> bool {
    let n = behind(b, s, space);
    matches!(before(b, s - n), 0 | b'\n' | b'`')
}

fn space(c: u8) -> bool {
    matches!(c, b' ' | b'\t')
}

fn skip_spaces(b: &[u8], mut p: usize) -> usize {
    while space(at(b, p)) {
        p += 1;
    }
    p
}

/// `name=` at the start of `r`.
fn query_key(r: &[u8]) -> bool {
    let n = r
        .iter()
        .take(32)
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
        .count();
    n > 0 && at(r, n) == b'='
}

/// The value at `p`: (start, end, quoted). Quoted to its closing quote on the line, else bare
/// to a space or a delimiter, without a sentence's last `.`, `,` or `:`.
fn value_at(b: &[u8], p: usize) -> Option<(usize, usize, bool)> {
    let q = at(b, p);
    // `\"X\"` in an escaped string
    if q == b'\\' && matches!(at(b, p + 1), b'"' | b'\'') {
        let end = [q, at(b, p + 1)];
        let len = b
            .get(p + 2..)?
            .windows(2)
            .take(MAX_VALUE)
            .position(|w| w == end)?;
        return Some((p + 2, p + 2 + len, true));
    }
    if matches!(q, b'"' | b'\'' | b'`') {
        let len = b
            .get(p + 1..)?
            .iter()
            .take(MAX_VALUE)
            .position(|&c| c == q || c == b'\n')?;
        return (at(b, p + 1 + len) == q).then_some((p + 1, p + 1 + len, true));
    }
    let mut e = p;
    let mut depth = 0i32;
    while e - p < MAX_VALUE {
        let c = at(b, e);
        match c {
            0 | b' ' | b'\t' | b'\n' | b'\r' | b'"' | b'\'' | b'`' | b',' | b';' | b'<' | b'>' => {
                break
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                if depth == 0 {
                    break;
                }
                depth -= 1;
            }
            // `&next=` in a query string
            b'&' if query_key(b.get(e + 1..).unwrap_or_default()) || at(b, e + 1) == b'&' => break,
            // an escape in a string (`\\r\\n`)
            b'\\' if matches!(at(b, e + 1), b'r' | b'n' | b't' | b'"' | b'\'') => break,
            _ => {}
        }
        e += 1;
    }
    while e > p
        && matches!(before(b, e), b'.' | b':')
        && matches!(at(b, e), 0 | b' ' | b'\n' | b'\r' | b'\t')
    {
        e -= 1;
    }
    // `{value}` in an ODBC connection string
    if at(b, p) == b'{'
        && before(b, e) == b'}'
        && at(b, p + 1) != b'{'
        && e > p + 2
        && before(b, p) == b'='
    {
        return Some((p + 1, e - 1, false));
    }
    (e > p).then_some((p, e, false))
}

/// A call that gives a secret: `setPassword(`, `bearer_auth(`, `password(`; not `getToken(`.
fn setter(key: &[u8]) -> bool {
    // (the method of `obj.method(`)
    let words = words(key.rsplit(|&c| c == b'.').next().unwrap_or(key));
    #[rustfmt::skip]
    const READS: &[&str] = &[
        "get", "check", "has", "is", "validate", "verify", "find", "load",
    ];
    !words.first().is_some_and(|w| is(w, READS))
}

/// Where the separator between a key ending at `e` and its value ends, and the grade the place
/// asks for; `None` if no value follows.
fn separator(b: &[u8], s: usize, e: usize, strong: bool, flag: bool) -> Option<(usize, u8)> {
    let open = before(b, s);
    let mut p = e;
    let mut closed = false;
    if matches!(open, b'"' | b'\'')
        && (at(b, p) == open || at(b, p) == b'\\' && at(b, p + 1) == open)
    {
        p += 1 + usize::from(at(b, p) == b'\\');
        closed = true;
        if at(b, p) == b']' {
            p += 1;
        }
    }
    let need = if strong { KEYED } else { PASSWORD };
    // `<password>X</password>`, `<entry key="password">X</entry>`
    if (open == b'<' || closed) && at(b, p) == b'>' {
        return Some((p + 1, need));
    }
    // `name="password" value="X"`, `<meta name="api-key" content="X">`,
    // `"name": "TOKEN", "value": "X"`; `- name: PASSWORD` then `value: X` on the next line
    let rest = b.get(skip_spaces(b, p)..).unwrap_or_default();
    if closed {
        let mut q = skip_spaces(b, p);
        q = skip_spaces(b, q + usize::from(at(b, q) == b','));
        let quote = usize::from(at(b, q) == b'"');
        let name = ahead(b, q + quote, |c| c.is_ascii_alphabetic());
        let r = skip_spaces(b, q + quote + name + quote);
        if b.get(q + quote..q + quote + name)
            .is_some_and(|w| is(w, &["value", "content"]))
            && matches!(at(b, r), b'=' | b':')
        {
            return Some((skip_spaces(b, r + 1), need));
        }
    }
    if matches!(at(b, skip_spaces(b, p)), b'\n' | b'\r') {
        let next = skip_spaces(b, p) + rest.iter().take_while(|c| c.is_ascii_whitespace()).count();
        return b
            .get(next..)
            .filter(|r| r.starts_with(b"value:"))
            .map(|_| (skip_spaces(b, next + 6), need));
    }
    let gap = space(at(b, p));
    // `arn:aws:...:secret:name`: a key between colons is a path's part
    if before(b, s) == b':' && at(b, p) == b':' && !matches!(at(b, p + 1), b'=' | b' ') {
        return None;
    }
    if flag && !gap && matches!(at(b, p), b'"' | b'\'') {
        return Some((p, KEYED));
    }
    p = skip_spaces(b, p);
    let (c, d) = (at(b, p), at(b, p + 1));
    let sep = match (c, d) {
        (b'|', b'|') if at(b, p + 2) == b'=' => Some(p + 3),
        (b'=', b'>') | (b':', b'=') | (b'?', b'=') | (b'.', b'=') | (b'<', b'-') => Some(p + 2),
        (b'=', d) if d != b'=' => Some(p + 1),
        (b':', d) if d != b':' => Some(p + 1),
        (b'(', q)
            if !gap
                && !closed
                && matches!(q, b'"' | b'\'')
                && setter(b.get(s..e).unwrap_or_default()) =>
        {
            Some(p + 1)
        }
        (b'|', _)
            if line_start(b, s)
                || before(b, s) == b' '
                    && b.get(..s).is_some_and(|h| {
                        h.iter()
                            .rev()
                            .take(256)
                            .take_while(|&&c| c != b'\n')
                            .any(|&c| c == b'|')
                    }) =>
        {
            Some(p + 1)
        }
        (b',', _)
            if closed
                && b.get(..s - 1)
                    .is_some_and(|h| h.trim_ascii_end().ends_with(b"(")) =>
        {
            Some(p + 1)
        }
        _ => None,
    };
    if let Some(q) = sep {
        return Some((skip_spaces(b, q), need));
    }
    if !gap || matches!(c, 0 | b'\n' | b'\r') {
        return None;
    }
    // a copula: `password is X`, `Passwort lautet X`
    let word_end = p + b
        .get(p..)?
        .iter()
        .take(8)
        .take_while(|c| c.is_ascii_alphabetic())
        .count();
    if b.get(p..word_end).is_some_and(|w| is(w, KEY_COPULAS)) && space(at(b, word_end)) {
        return Some((skip_spaces(b, word_end), PASSWORD.max(need)));
    }
    // a flag's value, a directive line (`requirepass X`, `password X`), a quoted value, a
    // variable's name (`set -x DB_PASSWORD X`)
    let key = b.get(s..e).unwrap_or_default();
    let variable = strong
        && (key.contains(&b'_') || (key.len() >= 4 && !key.iter().any(u8::is_ascii_lowercase)));
    let quote = strong && matches!(c, b'"' | b'\'');
    let directive = strong && line_start(b, s);
    let password = words(key)
        .last()
        .and_then(|w| key_word(w))
        .is_some_and(|(kind, _)| kind == "password");
    if flag || quote || directive || variable {
        Some((p, if flag || password { need } else { PASSWORD }))
    } else {
        strong.then_some((p, PASSWORD))
    }
}

/// Read an assignment whose key is the run `s..e`; returns where reading may go on.
fn assignment(
    text: &str,
    s: usize,
    e: usize,
    prev: Option<&[u8]>,
    user_flag: &mut Option<usize>,
    spans: &mut Vec<Span>,
) -> Option<usize> {
    let b = text.as_bytes();
    let opens_word =
        |i: usize| matches!(before(b, i), 0 | b' ' | b'\t' | b'\n' | b'"' | b'\'' | b'`');
    // a Windows switch: `/p:X`, `/user:NAME`
    let switch = before(b, s) == b'/' && opens_word(s - 1) && at(b, e) == b':';
    let expansion = before(b, s) == b'{' && before(b, s - 1) == b'$';
    // `$token = "X"` (PHP, Perl, PowerShell) assigns; `$TOKEN` elsewhere is a reference
    let sigil = before(b, s) == b'$'
        && b.get(skip_spaces(b, e)..).is_some_and(|r| {
            r.starts_with(b".=")
                || r.starts_with(b":=")
                || r.starts_with(b"=") && !r.starts_with(b"==")
        });
    // `${DB_PASSWORD:-X}`: the default of a parameter expansion is written out
    if expansion {
        named(b.get(s..e)?, None)?;
        let p = e + usize::from(at(b, e) == b':');
        let p = p + usize::from(matches!(at(b, p), b'-' | b'='));
        if matches!(at(b, p), b'?' | b'+') {
            return None;
        }
        let n = ahead(b, p, |c| !matches!(c, b'}' | b'\n'));
        let v = text.get(p..p + n)?;
        if p > e && at(b, p + n) == b'}' && !v.starts_with('$') && score(v, true) >= KEYED {
            spans.push(Span::new(p, p + n, "password", 3));
        }
        return Some(p + n);
    }
    if !switch
        && !sigil
        && matches!(
            before(b, s),
            b'/' | b'@' | b'%' | b'\\' | b'#' | b'$' | b'.'
        )
    {
        return None;
    }
    let run = b.get(s..e)?;
    let dashes = run.iter().take_while(|&&c| c == b'-').count();
    let flag = dashes > 0 || switch;
    if dashes > 0 && !opens_word(s) {
        return None;
    }
    let key = run.get(dashes..)?;
    let same_line = |u: usize| !b.get(u..s).is_some_and(|r| r.contains(&b'\n'));
    let after_user = user_flag.is_some_and(same_line);
    // `-u user:password`, `-u user,password`, `-U DOMAIN\\user%password`, `redis-cli -a X`
    // (`curl -su user:pw`: single-letter flags run together, the last one `u`)
    let cluster = dashes == 1
        && key.len() <= 3
        && key.ends_with(b"u")
        && key.iter().all(u8::is_ascii_lowercase);
    if flag && (is(key, USER_FLAGS) || cluster) {
        *user_flag = Some(s);
        let (p, _) = separator(b, s, e, true, true)?;
        let (vs, mut ve, _) = value_at(b, p)?;
        let v = text.get(vs..ve)?;
        let split = v.split_once(':').or_else(|| v.split_once('%'));
        let (ps, pass) = match split.or_else(|| v.split_once(',')) {
            Some((user, pass)) => (vs + user.len() + 1, pass),
            None if at(b, ve) == b',' => {
                let (ps, pe, _) = value_at(b, ve + 1)?;
                ve = pe;
                (ps, text.get(ps..pe)?)
            }
            None if key.eq_ignore_ascii_case(b"a") => (vs, v),
            None => return Some(ve),
        };
        if !pass.starts_with(['$', '/', '{', '<'])
            && !reference(pass)
            && !pass.bytes().all(|c| c.is_ascii_digit() || c == b'*')
            && (score(pass, true) >= KEYED || pass.len() >= 8 && entropy(pass.as_bytes()) >= 3.0)
        {
            spans.push(Span::new(ps, ve, "password", 3));
        }
        return Some(ve);
    }
    // `-p X`, `-w X` (ldap), `-k X`; glued `-pX`, `-p'X'`
    let (kind, strong) = if dashes == 1
        && key.len() > 1
        && matches!(key.first(), Some(b'p' | b'P'))
        && named(key, None).is_none()
    {
        let (vs, mut ve, quoted) = value_at(b, s + 2)?;
        // (a glued value is read to the space: `-pWord.Word42.`)
        ve += usize::from(!quoted && at(b, ve) == b'.' && space(at(b, ve + 1)));
        let v = text.get(vs..ve)?;
        let sc = score(v, true);
        let digit = v.bytes().any(|c| c.is_ascii_digit());
        let words = v.matches('-').count() >= 2 || v.bytes().any(|c| c.is_ascii_uppercase());
        if sc >= STRICT
            || (sc >= PASSWORD && words)
            || (sc >= KEYED && (quoted || after_user || digit) && key.starts_with(b"p"))
        {
            spans.push(Span::new(vs, ve, "password", 3));
            return Some(ve);
        }
        return None;
    } else if (dashes == 1 || switch) && matches!(key, b"p" | b"P" | b"w" | b"N") {
        // (MySQL's `-p` takes its password glued; after a space comes the database)
        let line = b
            .get(s.saturating_sub(64)..s)
            .unwrap_or_default()
            .rsplit(|&c| c == b'\n')
            .next();
        if key == b"p"
            && at(b, e) == b' '
            && line.is_some_and(|l| l.trim_ascii_start().starts_with(b"mysql"))
        {
            return None;
        }
        ("password", false)
    } else if dashes == 1 && matches!(key, b"k" | b"K") {
        ("encryption key", true)
    } else {
        named(key, if flag { None } else { prev })?
    };
    let (p, mut need) = separator(b, s, e, strong, flag)?;
    // `-u user -p X`: after a user on the line, `-p` is the password
    if flag && after_user {
        need = KEYED;
    }
    let (mut vs, mut ve, mut quoted) = value_at(b, p + usize::from(at(b, p) == b'('))?;
    let mut v = text.get(vs..ve)?;
    // `auth=("user", "password")`, `Credential("user", "password")`: the second
    let arg = |i: usize| skip_spaces(b, i + 1);
    let call = b
        .get(..vs.saturating_sub(1))
        .is_some_and(|h| h.trim_ascii_end().ends_with(b"("));
    if kind == "credentials"
        && quoted
        && call
        && at(b, ve + 1) == b','
        && matches!(at(b, arg(ve + 1)), b'"' | b'\'')
    {
        (vs, ve, quoted) = value_at(b, arg(ve + 1))?;
        v = text.get(vs..ve)?;
        need = KEYED;
    }
    // `Authorization: Bearer X`: the scheme is no value
    let scheme = v.split([' ', '"', '\'']).next().unwrap_or_default();
    #[rustfmt::skip]
    const SCHEMES: &[&str] = &["bearer", "basic", "token", "digest", "bot", "ssws", "apikey"];
    if is(scheme.as_bytes(), SCHEMES) {
        if quoted {
            vs += scheme.len();
            v = text.get(vs..ve)?.trim_start();
            vs = ve - v.len();
        } else {
            (vs, ve, _) = value_at(b, skip_spaces(b, ve))?;
            v = text.get(vs..ve)?;
        }
    }
    // a value that is itself a key (`user=svc token=X`), or XML without its closing tag
    if (!quoted && identifier_like(v) && at(b, ve) == b'=')
        || (before(b, s) == b'<'
            && at(b, e) == b'>'
            && !(at(b, ve) == b'<' && at(b, ve + 1) == b'/'))
    {
        return None;
    }
    // (after a weak `key`, a long random run of letters and digits is an API key's shape)
    let need = if (quoted && strong) || (kind == "api key" && key_shape(v)) {
        KEYED
    } else {
        need
    };
    // (a flag's argument or a password key's value is written out, not a name in code)
    let literal = quoted || flag || (need == KEYED && kind == "password");
    if score(v, literal) < need {
        // (a long value is not read again from each of its runs)
        return (ve - vs > 64).then_some(ve);
    }
    spans.push(Span::new(vs, ve, kind, 3));
    Some(ve + usize::from(quoted))
}

/// Every assignment in `text`, in one walk over its key runs.
pub(super) fn scan(text: &str, spans: &mut Vec<Span>) {
    let b = text.as_bytes();
    let key_byte = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.');
    let mut prev: Option<(usize, usize)> = None;
    let mut user_flag = None;
    let mut i = 0;
    while let Some(k) = b.get(i..).and_then(|r| r.iter().position(|&c| key_byte(c))) {
        let s = i + k;
        let e = s + ahead(b, s, key_byte);
        i = e;
        // (`\r\nAuthorization:` in a logged string: the escape is no part of the key)
        let s = if before(b, s) == b'\\' && matches!(at(b, s), b'n' | b'r' | b't') && e > s + 2 {
            s + 1
        } else {
            s
        };
        let run = b.get(s..e).unwrap_or_default();
        let lead = run.iter().take_while(|&&c| c == b'-').count();
        let trimmed_end = e - run
            .iter()
            .rev()
            .take_while(|&&c| matches!(c, b'.' | b'-' | b'_'))
            .count();
        if trimmed_end <= s + lead {
            continue;
        }
        let before_word = prev
            .filter(|&(_, pe)| pe + 1 == s && at(b, pe) == b' ')
            .and_then(|(ps, pe)| b.get(ps..pe));
        let gate =
            lead > 0 || before(b, s) == b'/' || may_name(b.get(s..trimmed_end).unwrap_or_default());
        let found = spans.len();
        if let Some(next) = gate
            .then(|| assignment(text, s, trimmed_end, before_word, &mut user_flag, spans))
            .flatten()
        {
            if spans.get(found).is_some_and(|sp| sp.kind == "secret") {
                pair_id(text, b.get(s..trimmed_end).unwrap_or_default(), s, spans);
            }
            i = i.max(next);
            prev = None;
            continue;
        }
        prev = Some((s, trimmed_end));
    }
}

/// The id beside a secret masked under `key` (at `at`): `client_id` by `client_secret`,
/// `appId` by `appSecret`, `consumer_key` by `consumer_secret`; the pair is what opens the door.
fn pair_id(text: &str, key: &[u8], at: usize, spans: &mut Vec<Span>) {
    let b = text.as_bytes();
    let last = words(key).last().map_or(0, |w| w.len());
    let stem = key.get(..key.len() - last).unwrap_or_default();
    let from = at.saturating_sub(256);
    let window = b.get(from..(at + 256).min(b.len())).unwrap_or_default();
    for (k, _) in window
        .windows(stem.len().max(3))
        .enumerate()
        .filter(|(_, w)| w.eq_ignore_ascii_case(stem))
    {
        let i = from + k + stem.len();
        let n = ahead(b, i, |c| c.is_ascii_alphabetic());
        if before(b, from + k).is_ascii_alphanumeric()
            || !b.get(i..i + n).is_some_and(|w| is(w, &["id", "key"]))
        {
            continue;
        }
        let p = i + n + ahead(b, i + n, |c| matches!(c, b'"' | b'\'' | b' ' | b'=' | b':'));
        let v = value_at(b, p).and_then(|(vs, ve, _)| Some((vs, text.get(vs..ve)?)));
        if let Some((vs, v)) =
            v.filter(|(_, v)| v.len() >= 8 && v.contains(|c: char| c.is_ascii_digit()))
        {
            spans.push(Span::new(vs, vs + v.len(), "client id", 3));
        }
    }
}

/// Credential file lines: `.pgpass` (`host:port:database:user:password`) anywhere, and
/// `user:password` alone on a line or in a code span (rsync, htpasswd, chap secrets).
pub(super) fn lines(text: &str, spans: &mut Vec<Span>) {
    let b = text.as_bytes();
    let mut done = 0;
    for k in b
        .iter()
        .enumerate()
        .filter(|&(_, &c)| c == b':')
        .map(|(k, _)| k)
    {
        if k < done {
            continue;
        }
        let s = k - behind(b, k, |c| !c.is_ascii_whitespace());
        let e = k + ahead(b, k, |c| !c.is_ascii_whitespace());
        done = e;
        let Some(t) = text.get(s..e) else { continue };
        let (inner, alone) = match t.strip_prefix('`').and_then(|t| t.strip_suffix(['`', ','])) {
            Some(inner) => (inner.trim_end_matches('`'), true),
            None => (
                t,
                matches!(before(b, s), 0 | b'\n') && matches!(at(b, e), 0 | b'\n' | b'\r'),
            ),
        };
        if !inner.contains(':') || inner.contains("://") {
            continue;
        }
        // (`\:` is a colon in a field, not between two)
        let plain = inner.replace("\\:", "\u{1}\u{1}");
        let fields: Vec<&str> = plain.split(':').collect();
        let last = plain.rfind(':').unwrap_or(0) + 1;
        let ps = s + t.find(inner).unwrap_or(0) + last;
        let pass = inner.get(last..).unwrap_or_default();
        let ok = match fields.as_slice() {
            [host, port, _, user, _] => {
                !host.is_empty()
                    && (port.bytes().all(|c| c.is_ascii_digit()) || *port == "*")
                    && !port.is_empty()
                    && !user.is_empty()
                    && score(pass, true) >= KEYED
            }
            [user, _] => {
                alone
                    && (1..=32).contains(&user.len())
                    && user.bytes().all(|c| {
                        c.is_ascii_lowercase() || c.is_ascii_digit() || b"_.-".contains(&c)
                    })
                    && !pass.bytes().all(|c| c.is_ascii_hexdigit())
                    && score(pass, true) >= PASSWORD
            }
            _ => false,
        };
        if ok && !pass.is_empty() {
            spans.push(Span::new(ps, ps + pass.len(), "password", 3));
        }
    }
}

/// Markdown tables: a header cell that names a secret (`| user | password |`), then the cells
/// of that column in the rows below.
pub(super) fn tables(text: &str, spans: &mut Vec<Span>) {
    let mut column: Option<(usize, &'static str)> = None;
    let mut offset = 0;
    for line in text.split('\n') {
        let start = offset;
        offset += line.len() + 1;
        if !line.trim_start().starts_with('|') {
            column = None;
            continue;
        }
        let bars: Vec<usize> = line.match_indices('|').map(|(k, _)| start + k).collect();
        let cells = bars.windows(2).filter_map(|w| match *w {
            [a, z] => text.get(a + 1..z).map(|c| (a + 1, c)),
            _ => None,
        });
        match column {
            None => {
                column = cells.enumerate().find_map(|(k, (_, c))| {
                    named(c.trim().as_bytes(), None)
                        .filter(|n| n.1)
                        .map(|n| (k, n.0))
                });
            }
            Some((k, kind)) => {
                if let Some((at_byte, cell)) = cells.clone().nth(k) {
                    let v = cell.trim().trim_matches('`');
                    let vs = at_byte + cell.find(v).unwrap_or(0);
                    if !v.starts_with('-') && score(v, true) >= KEYED {
                        spans.push(Span::new(vs, vs + v.len(), kind, 3));
                    }
                }
            }
        }
    }
}

/// A Kubernetes Secret's `data:` or `stringData:` block: the value of each key in it.
pub(super) fn kube_secret(text: &str, spans: &mut Vec<Span>) {
    if !text.contains("kind: Secret") {
        return;
    }
    let (mut inside, mut offset) = (false, 0);
    for line in text.split('\n') {
        let start = offset;
        offset += line.len() + 1;
        if !line.starts_with([' ', '\t']) {
            inside = matches!(line.trim_end(), "data:" | "stringData:");
        } else if let Some((_, raw)) = line.split_once(": ").filter(|_| inside) {
            let v = raw.trim().trim_matches(['"', '\'']);
            let vs = start + line.len() - raw.len() + raw.find(v).unwrap_or(0);
            if score(v, true) >= KEYED {
                spans.push(Span::new(vs, vs + v.len(), "kubernetes secret", 3));
            }
        }
    }
}
