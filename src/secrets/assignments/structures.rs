//! Values placed by the lines around a key rather than a separator after it: Markdown tables (a
//! header cell such as `| Password |` whose column holds secrets in the rows below, or a row's
//! key cell with its value in the next cell) and YAML block scalars (`password: >-` with the
//! value on the next, deeper line). Each reads a bounded number of lines once.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::parse::{line_begin, spaces};
use crate::secrets::keys::{self, Test};
use crate::secrets::{at, before, value, Span};

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
pub(super) fn cell(
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
    // words before the key in its cell (`| API key |`, `| Auth Token |`)
    let mut k = i;
    while k > 0
        && i - k < 32
        && (before(b, k).is_ascii_alphanumeric() || matches!(before(b, k), b' ' | b'\t' | b'`'))
    {
        k -= 1;
    }
    if before(b, k) == b'|' {
        i = k;
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
        if let Some(named) = keys::named(name, false, None) {
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
                } || value::passphrase_for(kind, v);
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

/// The value of a YAML block scalar whose indicator (`|`, `>-`) ends at `ve`, for the key at
/// `s`: its one line, indented deeper than the key, with no more lines after it.
pub(super) fn block_scalar(
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
