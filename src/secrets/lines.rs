//! Lines that are credentials by their shape: `.pgpass` (`host:port:database:user:password`)
//! and the base64 values under a Kubernetes Secret's `data:`.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::{at, before, value, Span};

/// The longest `.pgpass` line read after a label that names the file.
const MAX_LABELLED: usize = 1024;

/// What the line rules remember along one text.
#[derive(Default)]
pub(super) struct Lines {
    /// `data:` blocks have been read to here, so that nested ones are not read again
    data_until: usize,
    /// the YAML document is a Kubernetes ConfigMap (`kind: ConfigMap`), whose `data:` is
    /// plain configuration
    config_map: bool,
}

/// A key run followed by `:` (see [`super::walk`]). If it starts its line (after indentation
/// or `*:` wildcard fields), the line may be a credential by its shape: a `.pgpass` line
/// (`host:port:database:user:password`), or the `data:` of a Kubernetes Secret, whose values
/// are base64. A `.pgpass` line may also stand in a code span (`` `h:5432:*:u:pw` ``), in quotes
/// on a line that names `.pgpass`, or after a label or words on its line that name it (`In
/// .pgpass: h:5432:*:u:pw`).
pub(super) fn line_run(text: &str, s: usize, state: &mut Lines, spans: &mut Vec<Span>) {
    let b = text.as_bytes();
    let mut i = s;
    while i > 0 && matches!(before(b, i), b' ' | b'\t' | b'*' | b':') {
        i -= 1;
    }
    let quote = before(b, i);
    if matches!(quote, b'`' | b'"' | b'\'') && i == s {
        // a quoted line: up to the closing quote on the same line
        let n = run_of(b, s, |c| c != quote && c != b'\n');
        // in quotes, only where the line says what it is (`echo '...' >> ~/.pgpass`)
        let rest = b.get(s + n..).unwrap_or_default();
        let rest = rest.get(..rest.len().min(256)).unwrap_or_default();
        let line = rest
            .get(..run_of(rest, 0, |c| c != b'\n'))
            .unwrap_or_default();
        let said = quote == b'`' || line.windows(6).any(|w| w == b"pgpass");
        if at(b, s + n) == quote && said {
            pgpass(text, s, b.get(s..s + n).unwrap_or_default(), spans);
        }
        return;
    }
    if i > 0 && quote != b'\n' {
        // after a label or words that name the file (`In .pgpass: h:5432:*:u:pw`, `the .pgpass
        // line is h:5432:*:u:pw`)
        let label = at(b, i) == b':' && matches!(at(b, i + 1), b' ' | b'\t');
        if label || matches!(at(b, i), b' ' | b'\t') {
            let mut ls = i;
            while ls > 0 && i - ls < 256 && before(b, ls) != b'\n' {
                ls -= 1;
            }
            let label = b.get(ls..i).unwrap_or_default();
            if label.windows(6).any(|w| w == b"pgpass") {
                let cs = i + 1 + run_of(b, i + 1, |c| c == b' ' || c == b'\t');
                let ce = cs
                    + b.get(cs..)
                        .unwrap_or_default()
                        .iter()
                        .take(MAX_LABELLED)
                        .take_while(|&&c| c != b'\n')
                        .count();
                pgpass(text, cs, b.get(cs..ce).unwrap_or_default(), spans);
            }
        }
        return;
    }
    let line_start = i;
    let content_start = i + run_of(b, i, |c| c == b' ' || c == b'\t');
    let line_end = content_start + run_of(b, content_start, |c| c != b'\n');
    let content = b.get(content_start..line_end).unwrap_or_default();
    let content = content.strip_suffix(b"\r").unwrap_or(content);
    if content_start == line_start {
        if content.starts_with(b"apiVersion:") {
            state.config_map = false;
        } else if let Some(kind) = content.strip_prefix(b"kind:") {
            state.config_map = kind.trim_ascii() == b"ConfigMap";
        }
    }
    if matches!(content, b"data:" | b"stringData:") {
        if line_end >= state.data_until && !state.config_map {
            let found = spans.len();
            let end = data_block(text, line_end + 1, content_start - line_start, spans);
            // `kind: ConfigMap` right after the block (kubectl prints `data` before `kind`)
            let next = b.get(end..).unwrap_or_default();
            if next.starts_with(b"kind: ConfigMap") {
                spans.truncate(found);
            }
            state.data_until = end;
        }
    } else if s == content_start || at(b, content_start) == b'*' {
        pgpass(text, content_start, content, spans);
    }
}

fn run_of(b: &[u8], from: usize, f: impl Fn(u8) -> bool) -> usize {
    b.get(from..)
        .unwrap_or_default()
        .iter()
        .take_while(|&&c| f(c))
        .count()
}

/// The lines of a `data:` block indented by more than `indent`, from `from`: each `key: value`
/// with a base64 value. Returns where the block ends.
fn data_block(text: &str, from: usize, indent: usize, spans: &mut Vec<Span>) -> usize {
    let b = text.as_bytes();
    let mut line_start = from;
    while line_start < b.len() {
        let len = run_of(b, line_start, |c| c != b'\n');
        let line = b.get(line_start..line_start + len).unwrap_or_default();
        let line_indent = line
            .iter()
            .take_while(|&&c| c == b' ' || c == b'\t')
            .count();
        let content = line.get(line_indent..).unwrap_or_default();
        let content = content.strip_suffix(b"\r").unwrap_or(content);
        if !content.is_empty() {
            if line_indent <= indent {
                return line_start;
            }
            k8s_data_value(text, line_start + line_indent, content, spans);
        }
        line_start += len + 1;
    }
    b.len()
}

fn k8s_data_value(text: &str, start: usize, content: &[u8], spans: &mut Vec<Span>) {
    let key = content
        .iter()
        .take_while(|&&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
        .count();
    if key == 0 || at(content, key) != b':' || at(content, key + 1) != b' ' {
        return;
    }
    let vs = key + 1 + run_of(content, key + 1, |c| c == b' ' || c == b'\t');
    let mut ve = content.len();
    while ve > vs && at(content, ve - 1).is_ascii_whitespace() {
        ve -= 1;
    }
    let Some(v) = text.get(start + vs..start + ve) else {
        return;
    };
    let base64 = v.len() >= 8
        && v.len() % 4 == 0
        && v.bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='))
        && !value::identifier_like(v);
    if base64 && (value::keyed(v) || value::strict(v)) {
        spans.push(Span::new(start + vs, start + ve, "kubernetes secret", 3));
    }
}

/// `hostname:port:database:username:password`, the port a number or `*`.
fn pgpass(text: &str, start: usize, content: &[u8], spans: &mut Vec<Span>) {
    let mut fields = [(0usize, 0usize); 4];
    let mut p = 0;
    for f in &mut fields {
        let n = content
            .get(p..)
            .unwrap_or_default()
            .iter()
            .take_while(|&&c| c != b':' && !c.is_ascii_whitespace())
            .count();
        if n == 0 || at(content, p + n) != b':' {
            return;
        }
        *f = (p, p + n);
        p += n + 1;
    }
    let field = |k: usize| -> &[u8] {
        fields
            .get(k)
            .and_then(|&(a, z)| content.get(a..z))
            .unwrap_or_default()
    };
    let host = field(0);
    let port = field(1);
    let host_ok = host
        .iter()
        .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b'_' | b'*'))
        && host
            .iter()
            .any(|&c| c.is_ascii_alphabetic() || c == b'*' || c == b'.');
    let port_ok = port == b"*" || (port.len() <= 5 && port.iter().all(u8::is_ascii_digit));
    // a MAC or IPv6 address is hex groups and colons, not a host, a database and a user
    let hex_groups = (0..4).all(|k| {
        let f = field(k);
        f.len() <= 4 && f.iter().all(u8::is_ascii_hexdigit)
    });
    let mut end = content.len();
    while end > p && at(content, end - 1).is_ascii_whitespace() {
        end -= 1;
    }
    // a remark after the password (`h:5432:*:u:pw   <- note`): the password ends at the first
    // space, and must then look like one
    let space = content
        .get(p..end)
        .and_then(|r| r.iter().position(u8::is_ascii_whitespace))
        .map(|k| p + k);
    let end = space.unwrap_or(end);
    let Some(pass) = text.get(start + p..start + end) else {
        return;
    };
    let (ua, uz) = fields.get(3).copied().unwrap_or_default();
    let user = text.get(start + ua..start + uz).unwrap_or_default();
    if host_ok
        && port_ok
        && !hex_groups
        && (space.is_none() || value::keyed(pass) || value::phrase_password(pass, true))
        && value::embedded(pass, user)
    {
        spans.push(Span::new(start + p, start + end, "password", 3));
    }
}
