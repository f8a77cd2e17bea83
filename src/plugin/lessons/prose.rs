//! Where a text is prose: the lines Markdown shows as said, not as shown (code fences, indented
//! code, block quotes), and inline code spans blanked out, for the lesson readers.

/// One line of a text without its line break, where it starts and ends (with the break), and
/// whether it is prose (see `prose`).
pub(super) struct Line<'a> {
    pub(super) at: usize,
    pub(super) end: usize,
    pub(super) text: &'a str,
    pub(super) prose: bool,
}

/// The lines of `text`, each marked prose or not. Not prose: lines of a fenced code block (```
/// or ~~~, at any indent, closed by a run of the same character at least as long), of an
/// indented code block (4 columns past the open list item's content, after a blank line or
/// more code: an indented line that continues a paragraph or belongs to a list item is prose),
/// and of a block quote (from a `>` line to the next blank line, as Markdown continues a quoted
/// paragraph).
pub(super) fn prose(text: &str) -> Vec<Line<'_>> {
    #[derive(PartialEq)]
    enum Before {
        Blank,
        Prose,
        Code,
    }
    let mut fence: Option<(char, usize)> = None;
    let (mut quoted, mut item_indent, mut before) = (false, 0, Before::Blank);
    let mut lines = Vec::new();
    let mut at = 0;
    for raw in text.split_inclusive('\n') {
        let line = raw.trim_end_matches(['\n', '\r']);
        let start = at;
        at += raw.len();
        let rest = line.trim_start();
        let indent = columns(line);
        let mut prose = false;
        if let Some((mark, len)) = fence {
            if run(rest, mark) >= len && rest.trim_start_matches(mark).trim().is_empty() {
                fence = None;
            }
        } else if let Some(open) = fence_opening(rest) {
            fence = Some(open);
        } else if rest.is_empty() {
            quoted = false;
            before = Before::Blank;
        } else if quoted || rest.starts_with('>') {
            quoted = true;
            before = Before::Prose;
        } else if indent >= item_indent + 4 && before != Before::Prose {
            before = Before::Code;
        } else {
            if let Some(width) = list_marker(rest) {
                item_indent = indent + width;
            } else if before == Before::Blank && indent < item_indent {
                item_indent = 0;
            }
            before = Before::Prose;
            prose = true;
        }
        lines.push(Line {
            at: start,
            end: at,
            text: line,
            prose,
        });
    }
    lines
}

/// The columns of white space that start `line`, a tab reaching the next multiple of 4.
fn columns(line: &str) -> usize {
    let mut n = 0;
    for c in line.chars() {
        match c {
            ' ' => n += 1,
            '\t' => n += 4 - n % 4,
            _ => break,
        }
    }
    n
}

/// How many `mark` characters start `s`.
fn run(s: &str, mark: char) -> usize {
    s.chars().take_while(|&c| c == mark).count()
}

/// The character and length of the fence that `rest` opens, if it opens one: 3 or more
/// backticks or tildes; a backtick fence's info string holds no backtick (```` ```x``` ```` is
/// inline code).
fn fence_opening(rest: &str) -> Option<(char, usize)> {
    let mark = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = run(rest, mark);
    let info = rest.trim_start_matches(mark);
    (len >= 3 && !(mark == '`' && info.contains('`'))).then_some((mark, len))
}

/// The width of the list marker that starts `rest` with the space after it (`- `, `* `, `+ `,
/// `12. `, `3) `), if it starts with one.
pub(super) fn list_marker(rest: &str) -> Option<usize> {
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let marker = match rest.chars().next()? {
        '-' | '*' | '+' => 1,
        _ if (1..=9).contains(&digits) => {
            let after = rest.get(digits..)?;
            if !(after.starts_with('.') || after.starts_with(')')) {
                return None;
            }
            digits + 1
        }
        _ => return None,
    };
    let after = rest.get(marker..)?;
    let spaces = after.len() - after.trim_start_matches([' ', '\t']).len();
    match spaces {
        0 if !after.is_empty() => None,
        1..=4 => Some(marker + spaces),
        _ => Some(marker + 1),
    }
}

/// `line` with each inline code span (a run of backticks up to the next run as long) replaced
/// by as many spaces as it has bytes; a run left open is kept as written.
pub(super) fn without_code_spans(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(i) = rest.find('`') {
        let (before, from) = rest.split_at(i);
        out.push_str(before);
        let ticks = run(from, '`');
        let after = from.get(ticks..).unwrap_or_default();
        let closing = after.match_indices('`').find(|(j, _)| {
            let tail = after.get(*j..).unwrap_or_default();
            run(tail, '`') == ticks && after.get(..*j).is_some_and(|b| !b.ends_with('`'))
        });
        match closing {
            Some((j, _)) => {
                let span = ticks + j + ticks;
                out.extend(std::iter::repeat_n(' ', span));
                rest = from.get(span..).unwrap_or_default();
            }
            None => {
                out.push_str(from.get(..ticks).unwrap_or_default());
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}
