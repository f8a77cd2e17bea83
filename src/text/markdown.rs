//! Markdown, read one line at a time: which lines are code (a fenced or an indented block), a
//! block quote, an HTML comment or text, and the rules for what opens and closes each, for a
//! heading, a list item, a thematic break and an inline code span. The lessons of a reply are
//! looked for in its text, and instruction files are cut into memories at its headings and list
//! items and read for imports outside code: both ask here, so they agree on what is code.
//!
//! The subset read is what instruction files and replies use (ATX headings, lists, fences,
//! indented code, quotes, HTML comments), CommonMark's rules where they are cheap to follow, in
//! one pass with a small state: any text costs time linear in its length, and each line keeps
//! its bytes and its place.

use std::borrow::Cow;
use std::ops::Range;

/// What a line of Markdown is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Nothing but white space.
    Blank,
    /// What a reader reads as said: a paragraph's line, a heading, a list item, a rule.
    Text,
    /// The line that opens a fenced code block (after a list marker, it may be).
    Opening,
    /// A line inside a fenced code block, or the one closing it.
    Fenced,
    /// A line of an indented code block.
    Indented,
    /// A line of a block quote, or a paragraph line that continues one.
    Quote,
    /// Nothing but an HTML comment, or lines of one.
    Comment,
}

/// One line as `Reader` read it.
#[derive(Debug)]
pub struct Line<'a> {
    pub kind: Kind,
    /// The line without its HTML comments (the line as given when it holds none, and for a
    /// fenced line, where `<!--` is code).
    pub text: Cow<'a, str>,
}

/// Reads a text's lines in order, each given without its line break, and says what each is.
#[derive(Debug, Default)]
pub struct Reader {
    fence: Option<Fence>,
    in_comment: bool,
    quoted: bool,
    /// The content columns of the list items open, innermost last (increasing).
    items: Vec<usize>,
    /// What the last line that was not a comment was, as far as the next one cares.
    before: Before,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Before {
    #[default]
    Blank,
    Text,
    Code,
}

impl Reader {
    /// What `line` is, given the lines before it.
    ///
    /// A fence (```` ``` ```` or `~~~`, three or more) closes at a run of its character at
    /// least as long; left open, it runs to the end. An indented block is 4 columns past the
    /// content of the list item the line is in, after a blank line or more code (an indented
    /// line right under text continues it). A quote runs from a `>` line over the text lines
    /// right under it; a blank line, a heading, a list item, a rule or a fence ends it. An HTML
    /// comment runs from `<!--` (not in a code span) to `-->`, across lines.
    pub fn line<'a>(&mut self, line: &'a str) -> Line<'a> {
        if let Some(fence) = &self.fence {
            if fence.closes(line.trim_start()) {
                self.fence = None;
            }
            return self.read(Kind::Fenced, Cow::Borrowed(line));
        }
        let text = without_comments(line, &mut self.in_comment);
        if text.trim().is_empty() {
            if !line.trim().is_empty() {
                return Line {
                    kind: Kind::Comment,
                    text,
                };
            }
            self.quoted = false;
            return self.read(Kind::Blank, text);
        }
        let (indent, rest) = indentation(&text);
        let rule = thematic_break(rest);
        let item = if rule { None } else { list_item(rest) };
        // After a blank line, a line is in the items whose content it is indented to; a list
        // item is in those its marker is indented to, blank line or not.
        if self.before == Before::Blank || item.is_some() {
            while self.items.last().is_some_and(|&column| column > indent) {
                self.items.pop();
            }
        }
        let container = match self.items.partition_point(|&column| column <= indent) {
            0 => 0,
            n => self.items.get(n - 1).copied().unwrap_or(0),
        };
        let relative = indent - container;
        if relative >= 4 && self.before != Before::Text {
            return self.read(Kind::Indented, text);
        }
        let opens = if relative < 4 {
            Fence::opens(rest)
        } else {
            None
        };
        let ends_quote = || rule || item.is_some() || opens.is_some() || heading(rest).is_some();
        if rest.starts_with('>') || (self.quoted && !ends_quote()) {
            self.quoted = true;
            return self.read(Kind::Quote, text);
        }
        self.quoted = false;
        if let Some(fence) = opens {
            self.fence = Some(fence);
            return self.read(Kind::Opening, text);
        }
        if let Some(item) = item {
            self.items.push(indent + item.width);
            if let Some(fence) = Fence::opens(item.content) {
                self.fence = Some(fence);
                return self.read(Kind::Opening, text);
            }
        }
        self.read(Kind::Text, text)
    }

    /// The line, noting what it was for the next one.
    fn read<'a>(&mut self, kind: Kind, text: Cow<'a, str>) -> Line<'a> {
        self.before = match kind {
            Kind::Blank => Before::Blank,
            Kind::Text | Kind::Quote => Before::Text,
            Kind::Opening | Kind::Fenced | Kind::Indented => Before::Code,
            Kind::Comment => self.before,
        };
        Line { kind, text }
    }
}

/// A line's indentation in columns (a tab reaches the next multiple of 4) and the rest of it.
pub fn indentation(line: &str) -> (usize, &str) {
    let rest = line.trim_start_matches([' ', '\t']);
    let columns = line
        .chars()
        .take_while(|c| matches!(c, ' ' | '\t'))
        .fold(0, |column, c| {
            if c == '\t' {
                column + 4 - column % 4
            } else {
                column + 1
            }
        });
    (columns, rest)
}

/// `line` without up to `columns` columns of its indentation.
pub fn dedent(line: &str, columns: usize) -> &str {
    let mut column = 0;
    for (at, c) in line.char_indices() {
        if column >= columns || !matches!(c, ' ' | '\t') {
            return line.get(at..).unwrap_or("");
        }
        column = if c == '\t' {
            column + 4 - column % 4
        } else {
            column + 1
        };
    }
    ""
}

/// An open code fence: its character and the length of its run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fence {
    mark: char,
    length: usize,
}

impl Fence {
    /// The fence `rest` (a line without its indentation) opens: three or more backticks (whose
    /// info string has none: ```` ```x``` ```` is inline code) or tildes.
    fn opens(rest: &str) -> Option<Fence> {
        let mark = rest.chars().next().filter(|c| matches!(c, '`' | '~'))?;
        let info = rest.trim_start_matches(mark);
        let length = rest.len() - info.len();
        (length >= 3 && !(mark == '`' && info.contains('`'))).then_some(Fence { mark, length })
    }

    /// Whether `rest` closes the fence: a run of its mark at least as long, and nothing after.
    fn closes(&self, rest: &str) -> bool {
        let after = rest.trim_start_matches(self.mark);
        rest.len() - after.len() >= self.length && after.trim().is_empty()
    }
}

/// A list item's marker, as `list_item` finds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Item<'a> {
    /// The marker and the spaces after it that the content is indented by (one when the item
    /// is empty or starts with more than four: the rest are the content's own).
    pub width: usize,
    /// What follows the marker and its spaces.
    pub content: &'a str,
}

/// The list item `rest` (a line without its indentation) starts, if it starts one: `-`, `*` or
/// `+`, or up to nine digits and `.` or `)`, then a space, a tab or the end of the line.
pub fn list_item(rest: &str) -> Option<Item<'_>> {
    let after_digits = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    let digits = rest.len() - after_digits.len();
    let after = if digits == 0 {
        rest.strip_prefix(['-', '*', '+'])?
    } else if digits <= 9 {
        after_digits.strip_prefix(['.', ')'])?
    } else {
        return None;
    };
    if !(after.is_empty() || after.starts_with([' ', '\t'])) {
        return None;
    }
    let marker = rest.len() - after.len();
    let content = after.trim_start_matches([' ', '\t']);
    let spaces = after.len() - content.len();
    let gap = if content.is_empty() || spaces > 4 {
        1
    } else {
        spaces
    };
    Some(Item {
        width: marker + gap,
        content,
    })
}

/// The text of an ATX heading (`#` to `######`, a space, the text, an optional closing run of
/// `#`s) that `rest` (a line without its indentation) is, if it is one.
pub fn heading(rest: &str) -> Option<&str> {
    let text = rest.trim_start_matches('#');
    let level = rest.len() - text.len();
    if !(1..=6).contains(&level) || !(text.is_empty() || text.starts_with([' ', '\t'])) {
        return None;
    }
    let text = text.trim();
    let unclosed = text.trim_end_matches('#');
    if unclosed.is_empty() {
        return Some(unclosed);
    }
    // `# C#` keeps its `#`; only a run after a space closes the heading.
    Some(if unclosed.ends_with([' ', '\t']) {
        unclosed.trim_end()
    } else {
        text
    })
}

/// Whether `rest` is a line of three or more `-`, `*` or `_` (spaces allowed between): a rule,
/// not a list item.
pub fn thematic_break(rest: &str) -> bool {
    let Some(mark) = rest.chars().next().filter(|c| matches!(c, '-' | '*' | '_')) else {
        return false;
    };
    rest.chars().all(|c| c == mark || matches!(c, ' ' | '\t'))
        && rest.chars().filter(|&c| c == mark).count() >= 3
}

/// The runs of backticks of `line`, where each starts and how long it is, and for each the
/// index of the next run as long (which closes a code span it opens). One backward pass, so a
/// line of many unmatched runs costs no more than its length.
fn backtick_runs(line: &str) -> (Vec<(usize, usize)>, Vec<Option<usize>>) {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for (at, c) in line.char_indices() {
        if c != '`' {
            continue;
        }
        match runs.last_mut() {
            Some((start, length)) if *start + *length == at => *length += 1,
            _ => runs.push((at, 1)),
        }
    }
    let mut next_same = vec![None; runs.len()];
    let mut last_of_length = std::collections::HashMap::new();
    for (index, &(_, length)) in runs.iter().enumerate().rev() {
        if let Some(next) = next_same.get_mut(index) {
            *next = last_of_length.insert(length, index);
        }
    }
    (runs, next_same)
}

/// The byte ranges of a line's inline code spans: a run of backticks up to the next run as
/// long; a run that none closes is text.
pub fn code_spans(line: &str) -> Vec<Range<usize>> {
    let (runs, next_same) = backtick_runs(line);
    let mut spans = Vec::new();
    let mut index = 0;
    while let Some(&(start, _)) = runs.get(index) {
        match next_same.get(index).copied().flatten() {
            Some(close) => {
                let (close_start, close_length) = runs.get(close).copied().unwrap_or_default();
                spans.push(start..close_start + close_length);
                index = close + 1;
            }
            None => index += 1,
        }
    }
    spans
}

/// `line` without its HTML comments: `<!--` up to `-->`, across lines (`in_comment` carries
/// one that runs past the line). A `<!--` inside an inline code span opens nothing.
fn without_comments<'a>(line: &'a str, in_comment: &mut bool) -> Cow<'a, str> {
    const OPEN: &str = "<!--";
    const CLOSE: &str = "-->";
    if !*in_comment && !line.contains(OPEN) {
        return Cow::Borrowed(line);
    }
    let (runs, next_same) = backtick_runs(line);
    let mut kept = String::new();
    let mut at = 0;
    let mut run = 0;
    // Where the next `<!--` at or after `at` starts, found once per opening.
    let mut next_open: Option<Option<usize>> = None;
    loop {
        if *in_comment {
            match line.get(at..).and_then(|s| s.find(CLOSE)) {
                Some(i) => {
                    *in_comment = false;
                    at += i + CLOSE.len();
                }
                None => return Cow::Owned(kept),
            }
        }
        if next_open.is_none_or(|open| open.is_some_and(|o| o < at)) {
            next_open = Some(line.get(at..).and_then(|s| s.find(OPEN)).map(|i| at + i));
        }
        let Some(open) = next_open.flatten() else {
            kept.push_str(line.get(at..).unwrap_or_default());
            return Cow::Owned(kept);
        };
        while runs.get(run).is_some_and(|&(start, _)| start < at) {
            run += 1;
        }
        match runs.get(run) {
            // A code span that starts first is text, a `<!--` inside it too.
            Some(&(start, length)) if start < open => {
                let end = match next_same.get(run).copied().flatten() {
                    Some(close) => runs.get(close).map_or(start + length, |&(s, l)| s + l),
                    None => start + length,
                };
                kept.push_str(line.get(at..end).unwrap_or_default());
                at = end;
            }
            _ => {
                kept.push_str(line.get(at..open).unwrap_or_default());
                *in_comment = true;
                at = open + OPEN.len();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;
    use Kind::{Blank, Comment, Fenced, Indented, Opening, Quote, Text};

    /// What each line of `text` is.
    fn kinds(text: &str) -> Vec<Kind> {
        let mut reader = Reader::default();
        text.split('\n')
            .map(|line| reader.line(line).kind)
            .collect()
    }

    #[rstest]
    #[case::backticks_then_tildes(
        "```\n~~~\n```\n~~~\nafter",
        &[Opening, Fenced, Fenced, Opening, Fenced]
    )]
    #[case::a_shorter_run_does_not_close("````\n```\n````\nx", &[Opening, Fenced, Fenced, Text])]
    #[case::text_after_the_run_does_not_close(
        "```\n``` x\n```",
        &[Opening, Fenced, Fenced]
    )]
    #[case::an_unclosed_fence_runs_to_the_end("x\n```sh\n# h\n- i", &[Text, Opening, Fenced, Fenced])]
    #[case::inline_code_is_no_fence("```x```\nnext", &[Text, Text])]
    #[case::a_fence_in_a_list_item(
        "- step:\n  ```\n  code\n  ```\n- next",
        &[Text, Opening, Fenced, Fenced, Text]
    )]
    #[case::a_fence_opened_by_a_nested_item(
        "- a\n  - ```\n    x\n    ```\n- b",
        &[Text, Opening, Fenced, Fenced, Text]
    )]
    #[case::indented_code_after_a_blank_line("text\n\n    code\n\tcode\nback", &[Text, Blank, Indented, Indented, Text])]
    #[case::an_indented_line_under_text_continues_it("text\n    more", &[Text, Text])]
    #[case::indented_inside_an_item_is_its_text(
        "- item\n\n    more\n\n      code",
        &[Text, Blank, Text, Blank, Indented]
    )]
    #[case::indented_code_after_a_list(
        "- item\n\nBack out.\n\n    code",
        &[Text, Blank, Text, Blank, Indented]
    )]
    #[case::an_indented_fence_is_code_not_a_fence(
        "x\n\n    ```\nafter",
        &[Text, Blank, Indented, Text]
    )]
    #[case::code_after_a_fence("```\n```\n    code", &[Opening, Fenced, Indented])]
    #[case::a_quote_and_its_lazy_lines(
        "> quoted\nstill quoted\n\nnot",
        &[Quote, Quote, Blank, Text]
    )]
    #[case::an_item_heading_or_fence_ends_a_quote(
        "> q\n- item\n> q\n# h\n> q\n```",
        &[Quote, Text, Quote, Text, Quote, Opening]
    )]
    #[case::a_comment_over_lines(
        "a <!-- b\nc\n--> d\n<!-- e -->\n```",
        &[Text, Comment, Text, Comment, Opening]
    )]
    #[case::a_fence_inside_a_comment_opens_nothing("<!--\n```\n-->\nx", &[Comment, Comment, Comment, Text])]
    #[case::a_comment_inside_a_fence_is_code("```\n<!--\n```\nx", &[Opening, Fenced, Fenced, Text])]
    #[case::a_rule_opens_no_item("* * *\n\n    code", &[Text, Blank, Indented])]
    fn each_line_is_read_as_commonmark_reads_it(#[case] text: &str, #[case] want: &[Kind]) {
        assert_eq!(kinds(text), want, "{text:?}");
    }

    #[rstest]
    #[case::none("plain `<!--` text", "plain `<!--` text", false)]
    #[case::inline("a <!-- b --> c", "a  c", false)]
    #[case::two("a<!--1-->b<!--2-->c", "abc", false)]
    #[case::left_open("a <!-- b", "a ", true)]
    #[case::in_a_code_span("`<!--` stays <!-- goes -->", "`<!--` stays ", false)]
    #[case::a_span_inside_a_comment("<!-- `x --> y`", " y`", false)]
    #[case::an_unclosed_backtick("` <!-- x -->", "` ", false)]
    fn comments_are_cut_out_but_not_from_code_spans(
        #[case] line: &str,
        #[case] want: &str,
        #[case] open: bool,
    ) {
        let mut in_comment = false;
        assert_eq!(without_comments(line, &mut in_comment), want);
        assert_eq!(in_comment, open);
    }

    #[test]
    fn a_comment_carried_over_ends_at_its_close() {
        let mut in_comment = true;
        assert_eq!(without_comments("x --> y <!-- z", &mut in_comment), " y ");
        assert!(in_comment);
    }

    #[test]
    fn code_spans_pair_runs_of_equal_length() {
        let line = "a `b` ``c ` d`` ` e";
        let spans: Vec<&str> = code_spans(line)
            .into_iter()
            .map(|r| line.get(r).unwrap())
            .collect();
        assert_eq!(spans, ["`b`", "``c ` d``"]);
    }

    #[rstest]
    #[case::dash("- x", Some((2, "x")))]
    #[case::number("12. x", Some((4, "x")))]
    #[case::paren("3) x", Some((3, "x")))]
    #[case::wide_gap("-  x", Some((3, "x")))]
    #[case::code_in_an_item("-      x", Some((2, "x")))]
    #[case::empty("-", Some((2, "")))]
    #[case::tab("-\tx", Some((2, "x")))]
    #[case::no_space("-x", None)]
    #[case::ten_digits("1234567890. x", None)]
    fn list_items(#[case] rest: &str, #[case] want: Option<(usize, &str)>) {
        let got = list_item(rest).map(|i| (i.width, i.content));
        assert_eq!(got, want);
    }

    #[test]
    fn headings_and_rules() {
        assert_eq!(heading("## Deploy ##"), Some("Deploy"));
        assert_eq!(heading("# C#"), Some("C#"));
        assert_eq!(heading("#nope"), None);
        assert_eq!(heading("####### seven"), None);
        assert!(thematic_break("- - -"));
        assert!(!thematic_break("- -"));
    }

    /// Items nested 2,000 deep, then a line of alternating backticks and comment openings: each
    /// is read in one pass (the items' columns are searched, not scanned).
    #[test]
    fn deep_nesting_and_many_markers() {
        let mut text = String::new();
        for depth in 0..2_000 {
            text.push_str(&" ".repeat(depth * 2));
            text.push_str("- x\n");
        }
        text.push_str("`<!--`");
        text.push_str(&"<!--`".repeat(5_000));
        let mut reader = Reader::default();
        let lines: Vec<Line> = text.split('\n').map(|l| reader.line(l)).collect();
        assert!(lines.iter().all(|l| l.kind == Text));
        // The first code span holds a `<!--`; the next one opens a comment left open.
        assert_eq!(lines.last().map(|l| &*l.text), Some("`<!--`"));
        assert!(reader.in_comment);
    }
}
