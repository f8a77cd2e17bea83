//! PEM private key blocks: `-----BEGIN ... PRIVATE KEY-----` through the matching END line,
//! with YAML indentation, JSON `\n` escapes or CRLF line ends; a block cut short is masked
//! through its last base64 line. Public keys and certificates are left alone.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::{at, Span};

fn run(b: &[u8], from: usize, f: impl Fn(u8) -> bool) -> usize {
    b.get(from..)
        .unwrap_or_default()
        .iter()
        .take_while(|&&c| f(c))
        .count()
}

const END: &str = "-----END ";
const DASHES: &[u8] = b"-----";
/// The longest key body looked at: a 16384-bit RSA key is about 12 KiB.
const MAX_BODY: usize = 64 << 10;

/// Where the next `-----END ` is, for the PEM blocks of one text: the search only moves
/// forward, so a text with many BEGIN lines is still read once.
#[derive(Default)]
pub(super) struct Pem {
    next_end: Option<usize>,
    exhausted: bool,
}

/// A PEM private key block starting with the run `-----BEGIN` at `s` (see [`super::walk`]):
/// through the matching END line (YAML indentation and JSON `\n` escapes included), or, cut
/// short, through its last base64 line. Public keys and certificates are left alone. Returns
/// the block's end.
pub(super) fn pem_at(text: &str, s: usize, pem: &mut Pem, spans: &mut Vec<Span>) -> Option<usize> {
    let b = text.as_bytes();
    let label_start = s + "-----BEGIN ".len();
    if b.get(s..label_start) != Some(b"-----BEGIN ") {
        return None;
    }
    let label_len = run(b, label_start, |c| {
        c.is_ascii_uppercase() || c.is_ascii_digit() || c == b' '
    });
    let label = b.get(label_start..label_start + label_len)?;
    let dashes = label_start + label_len;
    if label_len > 64
        || b.get(dashes..dashes + 5) != Some(DASHES)
        || !label.windows(11).any(|w| w == b"PRIVATE KEY")
    {
        return None;
    }
    let body_start = dashes + 5;
    if !pem.exhausted && pem.next_end.is_none_or(|e| e < body_start) {
        pem.next_end = text
            .get(body_start..)
            .and_then(|rest| rest.find(END))
            .map(|k| body_start + k);
        pem.exhausted = pem.next_end.is_none();
    }
    let closing = pem.next_end.and_then(|e| {
        let l = e + END.len();
        let same = e - body_start <= MAX_BODY
            && b.get(l..l + label_len) == Some(label)
            && b.get(l + label_len..l + label_len + 5) == Some(DASHES);
        same.then_some(l + label_len + 5)
    });
    let end = closing.unwrap_or_else(|| cut_short(b, body_start));
    spans.push(Span::new(s, end, "private key", 0));
    Some(end)
}

/// The end of a key body that has no END line: the last line of base64 (or of a
/// `Name: value` header) after the BEGIN line, blank lines allowed between; in a JSON string
/// (`\n` escapes), the run of base64 and escapes. A BEGIN line not ending there is masked alone.
fn cut_short(b: &[u8], from: usize) -> usize {
    let after = from + run(b, from, |c| c == b' ' || c == b'\t' || c == b'\r');
    if at(b, after) == b'\\' && at(b, after + 1) == b'n' {
        let n = run(b, after, |c| {
            c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=' | b'\\')
        });
        return after + n.min(MAX_BODY);
    }
    let base64 = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=');
    if at(b, after) != b'\n' {
        // newlines collapsed to spaces: base64 words on the same line
        let mut end = from;
        let mut i = after;
        loop {
            let n = run(b, i, base64);
            if n < 16 || i - from > MAX_BODY {
                return end;
            }
            end = i + n;
            i = end + run(b, end, |c| c == b' ');
        }
    }
    let mut end = from;
    let mut line_start = after + 1;
    while line_start < b.len() && line_start - from <= MAX_BODY {
        let len = run(b, line_start, |c| c != b'\n');
        let line = b.get(line_start..line_start + len).unwrap_or_default();
        let indent = line.iter().take_while(|c| c.is_ascii_whitespace()).count();
        let content = line.get(indent..).unwrap_or_default();
        let trimmed_len = content.len()
            - content
                .iter()
                .rev()
                .take_while(|c| c.is_ascii_whitespace())
                .count();
        let content = content.get(..trimmed_len).unwrap_or_default();
        // base64, and not a short word that happens to be made of its letters
        let mixed = content.len() >= 8
            && content.iter().skip(1).any(|&c| {
                c.is_ascii_uppercase() || c.is_ascii_digit() || !c.is_ascii_alphanumeric()
            });
        let base64 = content.iter().all(|&c| base64(c))
            && (content.len() >= 24
                || mixed
                || std::str::from_utf8(content).is_ok_and(|w| !super::strength::wordy(w)));
        let header = content.first().is_some_and(u8::is_ascii_alphabetic)
            && content.windows(2).any(|w| w == b": ");
        if content.is_empty() {
            // a blank line: the body may go on after it
        } else if base64 || header {
            end = line_start + indent + trimmed_len;
        } else {
            break;
        }
        if at(b, line_start + len) != b'\n' {
            break;
        }
        line_start += len + 1;
    }
    end
}
