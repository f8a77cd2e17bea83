//! Credential files named in the text (`/etc/rsyncd.secrets`, `.htpasswd`,
//! `/etc/ppp/chap-secrets`, `/etc/ipsec.secrets`, `/etc/davfs2/secrets`, Postfix's
//! `sasl_passwd`, OpenVPN's `auth-user-pass`): the lines that follow the name (or the rest of its
//! own line, after a `:`, and code spans on that line) are read in that file's format, and the
//! field that holds the secret is masked. A table of the files and their formats; the lines of a
//! file whose name is not given are left to the shapes of [`lines`](super::lines).

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::assignments::parse_arg;
use super::{at, before, value, Span};

/// Where a credential file's lines keep the secret.
#[derive(Clone, Copy)]
enum Format {
    /// `user:secret` (`.htpasswd`, `rsyncd.secrets`).
    Colon,
    /// The n-th field of fields split by spaces, maybe quoted (from 0): `client server secret
    /// addresses` in `chap-secrets`, `url user password` in davfs2's `secrets`.
    Field(usize),
    /// `selectors : TYPE "secret"` (`ipsec.secrets`), for the types that hold a secret.
    Ipsec,
    /// `user:secret` as the n-th field (from 0): `[host]:port user:password` in Postfix's
    /// `sasl_passwd`.
    FieldColon(usize),
    /// A user on the first line and the password on the second, nothing else (OpenVPN's
    /// `auth-user-pass` file).
    TwoLines,
}

/// Credential files by the end of their path, and their format.
const FILES: &[(&str, Format)] = &[
    ("htpasswd", Format::Colon),
    ("rsyncd.secrets", Format::Colon),
    ("chap-secrets", Format::Field(2)),
    ("pap-secrets", Format::Field(2)),
    ("davfs2/secrets", Format::Field(2)),
    ("ipsec.secrets", Format::Ipsec),
    ("sasl_passwd", Format::FieldColon(1)),
    ("auth-user-pass", Format::TwoLines),
    // PgBouncer's `auth_file`: `"user" "password"` (or its `md5`/SCRAM hash)
    ("userlist.txt", Format::Field(1)),
];

/// The types of `ipsec.secrets` entries whose value is a secret (not `RSA`, whose value is a
/// file).
const IPSEC_TYPES: &[&str] = &["PSK", "EAP", "XAUTH", "NTLM"];

/// How many lines after a file's name are read, and how long a line may be.
const MAX_LINES: usize = 32;
const MAX_LINE: usize = 1024;

/// What the file rule remembers along one text.
#[derive(Default)]
pub(super) struct Files {
    /// lines have been read to here, so that no line is read twice
    read_until: usize,
}

/// Whether the last word of a key run may end a credential file's name.
#[inline]
pub(super) fn may_name(last: &[u8]) -> bool {
    matches!(
        last,
        b"secrets" | b"htpasswd" | b"passwd" | b"pass" | b"txt"
    )
}

/// The key run `s..e` (see [`super::walk`]): if the text up to `e` names a credential file, the
/// secrets in the lines that follow.
pub(super) fn at_name(text: &str, e: usize, state: &mut Files, spans: &mut Vec<Span>) {
    let b = text.as_bytes();
    let head = b.get(..e).unwrap_or_default();
    let Some(&(name, format)) = FILES.iter().find(|(name, _)| {
        let n = name.len();
        head.ends_with(name.as_bytes()) && {
            let c = before(b, e - n);
            // a path (`/etc/x`, `.htpasswd`), or a name with a dot or dash of its own
            matches!(c, b'/' | b'.')
                || (name.contains(['.', '-', '/', '_'])
                    && !(c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-')))
        }
    }) else {
        return;
    };
    let name_len = name.len();
    // the rest of the name's own line, after a `:` (`/etc/davfs2/secrets: url user pw`); a
    // line longer than a file's line is prose or data, and is not read (which keeps the work
    // for each name bounded)
    let Some(rest) = line_len(b, e) else {
        return;
    };
    let line_end = e + rest;
    if at(b, e) == b':' && e >= state.read_until {
        let from = e + 1 + run_of(b, e + 1, |c| c == b' ' || c == b'\t');
        entry(text, from.min(line_end), line_end, format, spans);
    }
    // a line of the file quoted as code on the name's own line (`` `backup:pw` goes in
    // /etc/rsyncd.secrets ``)
    let mut line_start = e - name_len;
    while line_start > 0 && e - line_start < MAX_LINE && before(b, line_start) != b'\n' {
        line_start -= 1;
    }
    if line_end.saturating_sub(line_start) <= MAX_LINE {
        code_spans(
            text,
            line_start.max(state.read_until),
            line_end,
            format,
            spans,
        );
    }
    if matches!(format, Format::TwoLines) {
        two_lines(text, line_end + 1, spans);
        return;
    }
    let mut start = (line_end + 1).max(state.read_until);
    for _ in 0..MAX_LINES {
        if start >= b.len() {
            break;
        }
        let n = run_of(b, start, |c| c != b'\n');
        let end = start + n;
        let line = b.get(start..end).unwrap_or_default();
        // a blank line ends the file
        if line.trim_ascii().is_empty() {
            break;
        }
        if n <= MAX_LINE && line.trim_ascii_start().first() != Some(&b'#') {
            entry(text, start, end, format, spans);
        }
        start = end + 1;
    }
    state.read_until = state.read_until.max(start);
}

/// A file of two lines from `from`, perhaps in a code fence: a user, then a password (each one
/// word, and the block ends after them). The password, if it is [`value::keyed`] or a
/// passphrase.
fn two_lines(text: &str, from: usize, spans: &mut Vec<Span>) {
    let b = text.as_bytes();
    let mut words: Vec<(usize, usize)> = Vec::new();
    let mut start = from;
    for k in 0..4 {
        // (a line longer than a credential file's is none of its lines)
        let Some(n) = line_len(b, start) else {
            return;
        };
        let line = b.get(start..start + n).unwrap_or_default();
        let content = line.trim_ascii();
        let fence = content.starts_with(b"```");
        if content.is_empty() || (fence && k > 0) || start >= b.len() {
            break;
        }
        if !fence {
            if content.iter().any(u8::is_ascii_whitespace) {
                return;
            }
            let lead = line.len() - line.trim_ascii_start().len();
            words.push((start + lead, start + lead + content.len()));
        }
        start += n + 1;
    }
    // (not words joined without a number: the second line may be an option, `persist-tun`)
    if let [_, (vs, ve)] = *words.as_slice() {
        if text
            .get(vs..ve)
            .is_some_and(|v| value::keyed(v) || value::passphrase(v))
        {
            spans.push(Span::new(vs, ve, "password", 3));
        }
    }
}

/// Each code span (`` `...` ``) in `s..e` read as a line of the file, unless it holds a name of
/// one (`` `postmap /etc/postfix/sasl_passwd` ``).
fn code_spans(text: &str, s: usize, e: usize, format: Format, spans: &mut Vec<Span>) {
    let b = text.as_bytes();
    let mut i = s;
    while i < e {
        if at(b, i) != b'`' {
            i += 1;
            continue;
        }
        let open = i + 1;
        let close = open + run_of(b, open, |c| c != b'`' && c != b'\n');
        if close >= e || at(b, close) != b'`' {
            return;
        }
        let inside = b.get(open..close).unwrap_or_default();
        let names_file = FILES
            .iter()
            .any(|(name, _)| inside.windows(name.len()).any(|w| w == name.as_bytes()));
        if !names_file {
            entry(text, open, close, format, spans);
        }
        i = close + 1;
    }
}

/// The length of the line from `from` to its end, if at most [`MAX_LINE`] (looking no further).
fn line_len(b: &[u8], from: usize) -> Option<usize> {
    let n = b
        .get(from..)
        .unwrap_or_default()
        .iter()
        .take(MAX_LINE + 1)
        .take_while(|&&c| c != b'\n')
        .count();
    (n <= MAX_LINE).then_some(n)
}

fn run_of(b: &[u8], from: usize, f: impl Fn(u8) -> bool) -> usize {
    b.get(from..)
        .unwrap_or_default()
        .iter()
        .take_while(|&&c| f(c))
        .count()
}

/// One line `s..e` of a credential file in `format`: its secret, if it passes
/// [`value::keyed`].
fn entry(text: &str, s: usize, e: usize, format: Format, spans: &mut Vec<Span>) {
    let b = text.as_bytes();
    let secret = match format {
        Format::Colon => {
            let user = run_of(b, s, |c| c != b':' && c != b'\n');
            let user_ok = user > 0 && user <= 64 && s + user < e;
            let vs = s + user + 1;
            let mut ve = e;
            while ve > vs && before(b, ve).is_ascii_whitespace() {
                ve -= 1;
            }
            let field = b.get(s..s + user).unwrap_or_default();
            (user_ok && !field.iter().any(u8::is_ascii_whitespace)).then_some((vs, ve))
        }
        Format::Field(k) => fields(b, s, e).get(k).copied(),
        Format::TwoLines => None,
        Format::FieldColon(k) => fields(b, s, e).get(k).and_then(|&(a, z)| {
            let colon = b.get(a..z)?.iter().position(|&c| c == b':')?;
            (colon > 0 && a + colon + 1 < z).then_some((a + colon + 1, z))
        }),
        Format::Ipsec => {
            let f = fields(b, s, e);
            let colon = f
                .iter()
                .position(|&(a, z)| b.get(a..z) == Some(b":"))
                .unwrap_or(f.len());
            let kind = f.get(colon + 1).and_then(|&(a, z)| b.get(a..z));
            kind.filter(|t| {
                IPSEC_TYPES
                    .iter()
                    .any(|k| t.eq_ignore_ascii_case(k.as_bytes()))
            })
            .and_then(|_| f.last().copied())
            .filter(|_| f.len() > colon + 2)
        }
    };
    let Some((vs, ve)) = secret else {
        return;
    };
    if text
        .get(vs..ve)
        .is_some_and(|v| value::keyed(v) || value::phrase_password(v, true))
    {
        spans.push(Span::new(vs, ve, "password", 3));
    }
}

/// The fields of the line `s..e` split by spaces, a quoted one without its quotes (at most 16).
fn fields(b: &[u8], s: usize, e: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut p = s;
    while out.len() < 16 {
        while p < e && matches!(at(b, p), b' ' | b'\t') {
            p += 1;
        }
        if p >= e || at(b, p) == b'\r' {
            break;
        }
        // a field of its own, whatever follows (`:` in `ipsec.secrets`)
        if at(b, p) == b':' && matches!(at(b, p + 1), b' ' | b'\t') {
            out.push((p, p + 1));
            p += 1;
            continue;
        }
        let Some((vs, ve, next)) = parse_arg(b, p).filter(|&(_, _, next)| next <= e) else {
            break;
        };
        out.push((vs, ve));
        p = next.max(p + 1);
    }
    out
}
