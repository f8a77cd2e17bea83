//! Where a text is prose, as the one Markdown reader (`text::markdown`) says: its text lines,
//! not code, quotes or comments, with inline code spans blanked out, for the lesson readers.

use crate::text::markdown::{code_spans, Kind, Reader};

/// One line of a text without its line break, where it starts and ends (with the break), and
/// whether it is prose (see `prose`).
pub(super) struct Line<'a> {
    pub(super) at: usize,
    pub(super) end: usize,
    pub(super) text: &'a str,
    pub(super) prose: bool,
}

/// The lines of `text`, each marked prose or not: prose is what Markdown shows as said (a
/// paragraph's line, a heading, a list item), not a line of a code block (fenced or indented),
/// of a block quote or of an HTML comment.
pub(super) fn prose(text: &str) -> Vec<Line<'_>> {
    let mut reader = Reader::default();
    let mut lines = Vec::new();
    let mut at = 0;
    for raw in text.split_inclusive('\n') {
        let line = raw.trim_end_matches(['\n', '\r']);
        let start = at;
        at += raw.len();
        let prose = reader.line(line).kind == Kind::Text;
        lines.push(Line {
            at: start,
            end: at,
            text: line,
            prose,
        });
    }
    lines
}

/// `line` with each inline code span replaced by as many spaces as it has bytes.
pub(super) fn without_code_spans(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut from = 0;
    for span in code_spans(line) {
        out.push_str(line.get(from..span.start).unwrap_or_default());
        out.extend(std::iter::repeat_n(' ', span.len()));
        from = span.end;
    }
    out.push_str(line.get(from..).unwrap_or_default());
    out
}
