//! Keys that name a secret (see [`keys`](super::keys)), and their values: `KEY=value`,
//! `key: value`, `"key": "value"`, `key := value`, `key ?= value`, `key => value`, `key is value`,
//! `key value` (flags and a few prose words), `<key>value</key>`, `<add key="..." value="...">`,
//! `Authorization: Bearer value`, `curl -u user:password`, `mysql -pvalue`; and from the
//! structure around a key: `KEY["x"] = value` (an index), `define('KEY', 'value')` (a call's
//! pair of arguments), `setPassword("value")` (a setter), `auth=("user", "password")` (a
//! pair), `/pass:value` (a Windows switch), `curl -su user:pw` (a flag cluster), `requirepass
//! value` and `set -x KEY value` (a directive line), `password: >-` (a YAML block scalar),
//! `- name: KEY` then `value: ...` or `<entry key="KEY">value</entry>` (a key as a label),
//! `| Password |` (a Markdown table column) and `| KEY | value |` (a row),
//! `Authorization: SSWS value` (any scheme), `echo value | ... --password-stdin` (a pipe) and
//! `ConvertTo-SecureString "value" -AsPlainText`; and the default of a parameter expansion
//! (`${DB_PASSWORD:-value}`).
//!
//! The whole value becomes one span: quoted, up to its closing quote; bare, up to a space, a
//! quote, `,;<`, an unbalanced bracket or `&` before another `key=`. It must then pass the test
//! the key word asks for ([`value::keyed`] mostly).
//!
//! This file reads the separator after a key (`=`, `:`, `:=`, `=>`, `>` of an element, `value=`
//! of an `<add>`, a space before `is` or a flag's value), tests the value, and splits an
//! `Authorization` value into its scheme and credentials; the other forms live apart, one
//! concern each: [`parse`] (where a value ends), [`flags`] (command lines),
//! [`code`] (calls, setters, types, labels) and [`structures`] (tables, YAML block scalars).

#![deny(clippy::string_slice, clippy::indexing_slicing)]

mod code;
mod flags;
mod parse;
mod structures;

pub(super) use flags::{cluster, stdin_value, RUNNERS};
pub(super) use parse::{parse_arg, user_like};

use super::keys::{could_name, named, Form, Test};
use super::{at, before, value, Span, MARKER};
pub(super) use code::connection_call;
use code::{call_before, labelled, pair, setter, typed};
use flags::{
    after_setter, glued_only, password_command, password_flag, piped, plain_text, substituted,
    switch, user_before,
};
use parse::{copula, ends_line, line_start, parse_value, spaces};
use structures::{block_scalar, cell};

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
    let glued_p = at(b, s) == b'-' && matches!(at(b, s + 1), b'p' | b'P');
    let alone = last.len() + 1 >= e - s;
    let host_token = super::keys::host_token(b.get(s..e).unwrap_or_default());
    if !(glued_p || cluster(b, s, e) || could_name(last, alone, flag) || host_token) {
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
    let switch = switch(b, s, e);
    // path segments, mentions and escapes are not keys; a `$variable` is one only when
    // assigned (`$token = ...`), not in `Bearer $ACCESS_TOKEN rest`
    if !switch && matches!(before(b, s), b'/' | b'@' | b'%' | b'\\' | b'#') {
        return None;
    }
    // a name inside a shell parameter expansion (`${JWT_SECRET:?required}`) is a reference, but
    // its default is the value (`${DB_PASSWORD:-X}`)
    if before(b, s) == b'{' && before(b, s - 1) == b'$' {
        let close = e + b.get(e..)?.iter().take(256).position(|&c| c == b'}')?;
        let (offset, default) = expansion_default(text.get(s - 2..=close)?)?;
        let ds = s - 2 + offset;
        if let Some(named) = named(b.get(s..e)?, false, None) {
            if value::keyed(default) {
                spans.push(Span::new(ds, ds + default.len(), named.kind, 3));
            }
        }
        return Some(close + 1);
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
    let glued_p = dashes == 1 && key.len() > 1 && matches!(key.first(), Some(b'p' | b'P'));
    if key.is_empty() || matches!(key.last(), Some(b'.' | b'-' | b'_')) {
        return glued_p.then(|| glued_password(text, s, spans)).flatten();
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
        return glued_p.then(|| glued_password(text, s, spans)).flatten();
    };
    if named.test == Test::Stdin {
        return piped(text, s, e, named.kind, spans);
    }
    if named.test == Test::File {
        return substituted(text, e, named.kind, spans);
    }

    // the separator
    let mut p = e;
    let open = before(b, s);
    let quoted = matches!(open, b'"' | b'\'');
    // a code span holds a line of its own (`` `requirepass pw` ``)
    let span = open == b'`';
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
    // a quoted value glued to its flag (`mysql -p'pw'`): the syntax says it is the flag's value
    let mut glued = false;
    // `KEY value` as a whole line (`requirepass pw`, `set -x PGPASSWORD pw`): the value ends it
    let mut directive = false;
    let pairs = matches!(named.test, Test::UserPass | Test::MaybeUserPass);
    // a Markdown table cell (`| Password |`)
    let q = spaces(b, p);
    let bar = at(b, q) == b'|' && at(b, q + 1) != b'|';
    if bar || (at(b, q) == b'`' && at(b, spaces(b, q + 1)) == b'|') {
        return cell(text, s, e, named.kind, spans);
    }
    if xml {
        p += 1;
        // the value in a child element (Windows' unattend.xml: `<AdministratorPassword><Value>`)
        if b.get(p..p + 7)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"<Value>"))
        {
            p += 7;
        }
    } else if at(b, p) == b'|' && at(b, p + 1) == b'|' && at(b, p + 2) == b'=' {
        // Ruby's `ENV["KEY"] ||= "value"`
        p += 3;
    } else if at(b, p) == b'=' && at(b, p + 1) != b'=' {
        p += if at(b, p + 1) == b'>' { 2 } else { 1 };
    } else if matches!(at(b, p), b'?' | b'+') && at(b, p + 1) == b'=' && at(b, p + 2) != b'=' {
        // Make's `KEY ?= value` and `KEY += value`
        p += 2;
    } else if at(b, p) == b'<'
        && at(b, p + 1) == b'-'
        && matches!(at(b, p + 2), b' ' | b'"' | b'\'')
    {
        // R's `key <- "value"`
        p += 2;
    } else if at(b, p) == b':' && at(b, p + 1) != b':' {
        // a segment of a colon chain (`arn:aws:...:secret:name`) is not a key; a name after a
        // namespace is (Puppet's `mysql::server::root_password:`)
        if before(b, s) == b':' && before(b, s - 1) != b':' && at(b, p + 1) != b'=' {
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
    } else if closed && at(b, p) == b',' && call_before(b, s - 1) && named.word != "basic" {
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
        glued = true;
    } else if gap && !quoted && !variable && (line_start(b, s) || span || after_setter(b, s)) {
        loose = true;
        directive = true;
    } else {
        return labelled(text, s, p, named.kind, spans)
            .or_else(|| cell(text, s, e, named.kind, spans));
    }
    p = spaces(b, p);
    // Cisco's type of what follows (`enable secret 0 pw`, `username x password 7 0822455D0A16`)
    if loose
        && matches!(at(b, p), b'0' | b'5' | b'7' | b'8' | b'9')
        && at(b, p + 1) == b' '
        && !matches!(at(b, spaces(b, p + 1)), b'\n' | b'\r' | 0)
    {
        p = spaces(b, p + 1);
    }
    if matches!(at(b, p), b'\n' | b'\r' | 0) {
        return None;
    }
    // `auth=("user", "pw")`: the second of the pair
    if pairs && matches!(at(b, p), b'(' | b'[') {
        return pair(
            text,
            p,
            named.kind,
            named.test == Test::MaybeUserPass,
            spans,
        );
    }
    let parsed = match parse_value(b, p) {
        Ok(parsed) => parsed,
        // a long stretch without a value is not looked at again
        Err(to) => return (to.saturating_sub(p) > 128).then_some(to),
    };
    let was_quoted = parsed.start > p;
    let (mut vs, mut ve) = (parsed.start, parsed.end);
    let raw = text.get(vs..ve)?;
    // an element's text ends at its closing tag; `<password>@host` is a placeholder in a URL
    let close = ve + usize::from(was_quoted);
    if xml && !(at(b, close) == b'<' && at(b, close + 1) == b'/') {
        return None;
    }
    // a directive's value ends its line, or comes before the setting command's flags (`aws
    // configure set NAME value --profile x`)
    let after_value = spaces(b, ve + usize::from(was_quoted));
    let line_value = ends_line(b, after_value) || (span && at(b, after_value) == b'`');
    if directive && !line_value && !(at(b, after_value) == b'-' && after_setter(b, s)) {
        return None;
    }
    // `key value` in prose: the next word, not another `key=value` (a directive's whole
    // value may hold a `=`: `AuthLDAPBindPassword pw=82`)
    if loose && value::assignment_like(raw) && !(line_start(b, s) && line_value) {
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
    // the default of a parameter expansion: `${DB_PASSWORD:-X}`, Spring's `${api.key:X}`
    if let Some((offset, default)) = expansion_default(v) {
        vs += offset;
        v = default;
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
    // the command whose one-letter flag this is, if the flag always gives it a password
    // (`sshpass -p`; see `PASSWORD_FLAGS`)
    let command = || {
        let letter = key.first().copied().unwrap_or_default();
        (key.len() == 1)
            .then(|| password_command(b, s, letter))
            .flatten()
    };
    let by_command = || command().is_some() && (value::keyed(v) || value::passphrase(v));
    let ok = match named.test {
        Test::Keyed | Test::Stdin | Test::File => value::keyed(v),
        // (a bare `key` or `appid` with an API key's shape after it: `key=<32 hex>`)
        Test::Strict => value::strict(v) || (named.kind == "api key" && value::long_key(v)),
        // (after `-u user` on the same command, `-p` is that user's password)
        Test::Password => {
            value::password_like(v)
                || value::word_password(v)
                || ((glued || user_before(b, s)) && value::keyed(v))
                || command().is_some_and(|command| {
                    // (words joined need a number or quotes: after mysql's spaced `-p`, a bare
                    // `orders_archive` is the database, the password being asked for)
                    value::keyed(v)
                        || value::phrase_password(v, was_quoted)
                        // (a command that takes its password after a space: any literal value)
                        || (!glued_only(command)
                            && value::embedded(v, "")
                            && !v.starts_with(['-', '%'])
                            && !value::reference(v)
                            && !value::assignment_like(v))
                })
        }
        Test::Key => {
            value::password_like(v)
                || value::random_key(v)
                || value::word_password(v)
                || by_command()
        }
        Test::Command => by_command(),
        Test::Base64 => {
            v.bytes()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='))
                && value::keyed(v)
        }
        // (a reference is no `user:password`: `vault:secret/app#key`, `ErrorCode::Auth`; a
        // passphrase after the colon is: `admin:tundra_rhubarb_zephyr`)
        Test::UserPass | Test::MaybeUserPass
            if (value::reference(v) && !pass_phrase(v)) || v.contains("::") =>
        {
            false
        }
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
                // `smbclient -U user%password`, also with a domain (`CORP\\user%password`)
                Some((user, pass))
                    if user_like(user.rsplit('\\').next().unwrap_or(user))
                        && (value::keyed(pass) || value::passphrase(pass)) =>
                {
                    vs += user.len() + 1;
                    v = pass;
                    true
                }
                _ if named.test == Test::UserPass && flag => {
                    // lftp's `-u user,password`: a bare value stops at the comma
                    match comma_pair(text, vs, ve, was_quoted) {
                        Some((ps, pe)) => {
                            vs = ps;
                            v = text.get(ps..pe)?;
                            ve = pe;
                            true
                        }
                        None => false,
                    }
                }
                _ => named.test == Test::MaybeUserPass && value::keyed(v),
            },
        },
    };
    // a passphrase of words, with spaces when quoted (`GPG_PASSPHRASE="velvet orbit 36
    // lantern"`), joined by dashes or dots when bare (`signing.password=velvet.orbit.lantern`);
    // a short weak password after a key that names one (`DB_PASSWORD=hunter2`)
    // (a value is a literal when quoted, or after `=` or `:` on a line of its own: `.env`,
    // compose's `- KEY=v`, a directive; not `password is case-sensitive`)
    let literal = was_quoted || ((line_start(b, s) || after_item(b, s)) && (!loose || directive));
    let ok = ok
        || (named.test != Test::Command && value::passphrase_for(named.kind, v))
        || (named.kind == "password" && value::joined_words(v, literal))
        || (named.kind == "password" && named.test == Test::Keyed && value::weak_password(v));
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

/// Whether a list item's dash or `export` alone comes before `s` on its line (`- KEY=value`,
/// `export KEY=value`).
fn after_item(b: &[u8], s: usize) -> bool {
    let mut i = s;
    while i > 0 && matches!(before(b, i), b' ' | b'\t') {
        i -= 1;
    }
    if before(b, i) == b'-' {
        return line_start(b, i - 1);
    }
    i >= 6 && b.get(i - 6..i) == Some(b"export") && line_start(b, i - 6)
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

/// The default value of a parameter expansion (`${NAME:-default}`, `${NAME-default}`,
/// `${NAME:=default}`, Spring's `${name.x:default}`), and where it starts in `v`; not an error
/// message (`${NAME:?message}`) or another expansion.
fn expansion_default(v: &str) -> Option<(usize, &str)> {
    let inner = v.strip_prefix("${")?.strip_suffix('}')?;
    let name = inner
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.'))
        .count();
    let rest = inner.get(name..)?;
    if rest.starts_with(":?") || rest.starts_with('?') {
        return None;
    }
    let op = [":-", ":=", "-", "=", ":"]
        .into_iter()
        .find(|op| rest.starts_with(op))?;
    let default = rest.get(op.len()..)?;
    (name > 0 && !default.is_empty() && !default.contains(['$', '{', '}']))
        .then_some((2 + name + op.len(), default))
}

/// `user:passphrase` (a passphrase of three words or more, or letters drawn at random, after
/// the colon), which [`value::reference`] would read as `scheme:name`.
fn pass_phrase(v: &str) -> bool {
    v.split_once(':').is_some_and(|(user, pass)| {
        user_like(user) && (value::passphrase(pass) || value::random_lowercase(pass))
    })
}

/// lftp's `-u user,password` (the user `vs..ve`, with the comma inside its quotes or right
/// after it): the password's range, if the user looks like one and the password like a secret.
fn comma_pair(text: &str, vs: usize, ve: usize, quoted: bool) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    let (user, ps, pe) = if quoted {
        let (user, pass) = text.get(vs..ve)?.split_once(',')?;
        (user, vs + user.len() + 1, vs + user.len() + 1 + pass.len())
    } else {
        if at(b, ve) != b',' {
            return None;
        }
        let parsed = parse_value(b, ve + 1).ok()?;
        if parsed.start != ve + 1 {
            return None;
        }
        (text.get(vs..ve)?, parsed.start, parsed.end)
    };
    let pass = text.get(ps..pe)?;
    (user_like(user) && !pass.contains(',') && value::keyed(pass)).then_some((ps, pe))
}

/// A glued `-pVALUE` (mysql, 7z, unrar) at `s`: the rest of the word, if it is
/// [`value::glued`]. A full stop at its end is the sentence's when nothing follows on the line,
/// and the password's when the command goes on (`-pPw7. archive.rar`).
fn glued_password(text: &str, s: usize, spans: &mut Vec<Span>) -> Option<usize> {
    let b = text.as_bytes();
    let end = s
        + 1
        + b.get(s + 1..)?
            .iter()
            .take_while(|c| !c.is_ascii_whitespace())
            .count();
    let v = text.get(s + 2..end)?;
    // (to a command whose `-p` is always a password, any value is one: `mysql -pharbor91`; a
    // glued `-P` only to such a command: `sqlcmd -Ppw`, not Gradle's `-Pversion=2`)
    let letter = at(b, s + 1);
    let listed = |w: &str| {
        (value::keyed(w) || value::phrase_password(w, true) || value::weak_password(w))
            && password_flag(b, s, letter)
    };
    let glued = |w: &str| (letter == b'p' && value::glued(w)) || listed(w);
    let stop = v.strip_suffix('.').filter(|rest| glued(rest));
    let end = match stop {
        Some(rest) if ends_line(b, end) => s + 2 + rest.len(),
        Some(_) => end,
        None if glued(v) => end,
        None => return None,
    };
    spans.push(Span::new(s + 2, end, "password", 3));
    Some(end)
}
