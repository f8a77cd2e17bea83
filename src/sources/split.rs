//! Cutting a source file's text into memories: frontmatter, sections at headings and list items,
//! topic files, and `@path` imports. Pure text work; nothing here touches the disk.
//!
//! What is code, a heading or a list item is read by the one Markdown reader, `text::markdown`,
//! line by line in one pass, so any input costs time linear in its length.

use crate::text::markdown::{code_spans, dedent, heading, indentation, list_item, thematic_break};
use crate::text::markdown::{Kind, Reader};

/// The most text one chunk keeps: a section longer than this is a pasted document rather than an
/// instruction, and a memory that size would crowd everything else out of a recall budget.
pub const MAX_CHUNK_BYTES: usize = 8 * 1024;

/// One memory's worth of a source file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// 1-based line of the file the chunk starts on.
    pub line: usize,
    /// The text, as the memory's body.
    pub text: String,
    /// The nearest heading above the chunk (its text, without the `#`s), if any.
    pub heading: Option<String>,
    /// Whether the text was cut at `MAX_CHUNK_BYTES`.
    pub cut: bool,
}

/// The frontmatter fields Synapse reads (a leading `---` block of YAML-like `key: value` lines).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Front {
    pub name: Option<String>,
    pub description: Option<String>,
    /// `metadata.type` (or a top-level `type`): user, feedback, project, reference.
    pub kind: Option<String>,
    /// A rule's `paths:` globs (a list, inline `[..]` or `- item` lines, or one string).
    pub paths: Vec<String>,
    /// When the file's text was last changed, as written (`metadata.modified`, which Claude
    /// Code writes into a memory file it edits, or a top-level `modified`).
    pub modified: Option<String>,
}

/// Split `text` into its frontmatter and the rest; the third value is the 1-based line the rest
/// starts on. Text without frontmatter gives `Front::default()`, the whole text and 1. A leading
/// byte-order mark is never part of the rest: it marks the encoding and is not text.
pub fn front(text: &str) -> (Front, &str, usize) {
    let (front, _, body, body_line) = front_and_description_line(text);
    (front, body, body_line)
}

/// `front`, plus the line the `description` key sits on (where a topic memory starts).
fn front_and_description_line(text: &str) -> (Front, Option<usize>, &str, usize) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match front_block(text) {
        Some(block) => {
            let (front, description_line) = parse_front(&block.lines);
            (front, description_line, block.body, block.body_line)
        }
        None => (Front::default(), None, text, 1),
    }
}

/// A frontmatter block found in a text.
struct FrontBlock<'a> {
    /// The lines between the fences, each with its 1-based line number.
    lines: Vec<(usize, &'a str)>,
    /// The text after the closing line, and the line it starts on.
    body: &'a str,
    body_line: usize,
}

/// The block between an opening `---` and the closing `---` or `...`. `None` without the closing
/// line: a lone `---` on the first line is a thematic break, and the text under it is all body.
fn front_block(text: &str) -> Option<FrontBlock<'_>> {
    let mut lines = text.split_inclusive('\n');
    let opening = lines.next()?;
    if opening.trim_end() != "---" {
        return None;
    }
    let mut consumed = opening.len();
    let mut inner = Vec::new();
    for (index, line) in lines.enumerate() {
        consumed += line.len();
        // The opening line is line 1, so the line at `index` here is line `index + 2`.
        let number = index + 2;
        let content = line.trim_end();
        if content == "---" || content == "..." {
            let (_, body) = text.split_at_checked(consumed)?;
            return Some(FrontBlock {
                lines: inner,
                body,
                body_line: number + 1,
            });
        }
        inner.push((number, content));
    }
    None
}

/// Reads the frontmatter lines; the second value is the line of `description:`.
fn parse_front(lines: &[(usize, &str)]) -> (Front, Option<usize>) {
    let mut front = Front::default();
    let mut description_line = None;
    // The top-level key that indented lines (and `- item` lines under `paths:`) belong to.
    let mut parent = "";
    // Whether a `name` or `description` continued on indented lines keeps its line breaks (a `|`
    // block) or folds them into spaces (a `>` block, or a plain value wrapped over lines).
    let mut literal = false;
    for &(number, line) in lines {
        let content = line.trim_start();
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let indented = content.len() != line.len();
        let entry = list_entry(content);
        if indented || (entry.is_some() && parent == "paths") {
            match parent {
                "metadata" => match key_value(content) {
                    Some(("type", value)) => front.kind = scalar(value),
                    Some(("modified", value)) => front.modified = scalar(value),
                    _ => {}
                },
                "paths" => front.paths.extend(entry.and_then(scalar)),
                "name" => continue_value(&mut front.name, content, literal),
                "description" => continue_value(&mut front.description, content, literal),
                _ => {}
            }
            continue;
        }
        let Some((key, value)) = key_value(content) else {
            parent = "";
            continue;
        };
        parent = key;
        let block = block_indicator(value);
        literal = block && value.starts_with('|');
        let value = if block { None } else { scalar(value) };
        match key {
            "name" => front.name = value,
            "description" => {
                front.description = value;
                description_line = Some(number);
            }
            "type" => front.kind = value,
            "modified" => front.modified = value,
            "paths" => front.paths = value.as_deref().map(split_list).unwrap_or_default(),
            _ => {}
        }
    }
    (front, description_line)
}

/// `key: value` with both sides trimmed; the key must be one plain word.
fn key_value(line: &str) -> Option<(&str, &str)> {
    let (key, value) = line.split_once(':')?;
    let key = key.trim();
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-');
    plain.then(|| (key, value.trim()))
}

/// The text of a `- item` line, or `None` when the line is not one.
fn list_entry(line: &str) -> Option<&str> {
    let rest = line.strip_prefix('-')?;
    (rest.is_empty() || rest.starts_with([' ', '\t'])).then(|| rest.trim())
}

/// Whether a value is YAML's `|` or `>` (with an optional chomping or indent sign): the text is on
/// the indented lines below.
fn block_indicator(value: &str) -> bool {
    value.starts_with(['|', '>'])
        && value
            .chars()
            .skip(1)
            .all(|c| matches!(c, '-' | '+' | '0'..='9'))
}

/// Adds an indented line to a value that continues below its key.
fn continue_value(field: &mut Option<String>, line: &str, literal: bool) {
    match field {
        Some(value) => {
            value.push(if literal { '\n' } else { ' ' });
            value.push_str(line);
        }
        None => *field = Some(line.to_owned()),
    }
}

/// A value without its matching quotes; `None` when nothing is left.
fn scalar(value: &str) -> Option<String> {
    let value = value.trim();
    let unquoted = ['"', '\'']
        .into_iter()
        .find_map(|quote| value.strip_prefix(quote)?.strip_suffix(quote))
        .unwrap_or(value)
        .trim();
    (!unquoted.is_empty()).then(|| unquoted.to_owned())
}

/// The items of `[a, "b"]` or of `a, b`. A comma inside quotes or braces does not separate, so a
/// glob like `src/{api,web}/**` stays whole.
fn split_list(value: &str) -> Vec<String> {
    let value = value.trim();
    let inner = match value.strip_prefix('[') {
        Some(rest) => rest.strip_suffix(']').unwrap_or(rest),
        None => value,
    };
    let mut items = Vec::new();
    let mut quote = None;
    let mut braces = 0usize;
    let mut rest = inner;
    let mut scanned = 0;
    for (at, c) in inner.char_indices() {
        match (quote, c) {
            (Some(open), c) if c == open => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '{') => braces += 1,
            (None, '}') => braces = braces.saturating_sub(1),
            (None, ',') if braces == 0 => {
                if let Some((item, after)) = rest.split_at_checked(at - scanned) {
                    items.extend(scalar(item));
                    rest = after.strip_prefix(',').unwrap_or(after);
                    scanned = at + 1;
                }
            }
            (None, _) => {}
        }
    }
    items.extend(scalar(rest));
    items
}

/// Cut instruction text (a `CLAUDE.md`, a rule, `AGENTS.md`, `MEMORY.md`) into at most `limit`
/// chunks at headings and list items; `first_line` is the line `body` starts on in its file.
///
/// A heading starts a new context and is not a chunk of its own: the paragraph text right under it
/// is one chunk that begins with the heading line, so the heading's words find it. Each top-level
/// list item is one chunk, with its continuation lines and nested items. Fenced code never splits
/// a chunk, HTML comments are dropped, and a chunk is cut at `MAX_CHUNK_BYTES`.
pub fn sections(body: &str, first_line: usize, limit: usize) -> Vec<Chunk> {
    let mut cutter = Cutter {
        limit,
        chunks: Vec::new(),
        open: None,
        heading: None,
        heading_line: None,
        reader: Reader::default(),
        fence_dedent: 0,
        blank_before: false,
    };
    for (index, line) in body.split('\n').enumerate() {
        if cutter.chunks.len() >= limit {
            break;
        }
        let line = line.strip_suffix('\r').unwrap_or(line);
        cutter.line(first_line + index, line);
    }
    cutter.close();
    cutter.chunks
}

/// The state of one pass of `sections` over a text.
struct Cutter {
    limit: usize,
    chunks: Vec<Chunk>,
    /// The chunk being written.
    open: Option<Open>,
    /// The text of the nearest heading above.
    heading: Option<String>,
    /// The nearest heading's line number and line, while nothing has come under it yet: the next
    /// paragraph starts with it.
    heading_line: Option<(usize, String)>,
    /// What each line is: text, code, a comment.
    reader: Reader,
    /// How many columns the lines of the open code fence lose (an item's content indent, for a
    /// fence inside an item).
    fence_dedent: usize,
    /// The previous line was blank (a line that only held a comment does not count).
    blank_before: bool,
}

/// A chunk being written.
struct Open {
    line: usize,
    text: String,
    heading: Option<String>,
    /// For a list item, the column its content starts at: lines indented that far are its own.
    item_indent: Option<usize>,
    /// A blank line came after the last line written, to be kept if more text follows.
    blank_pending: bool,
}

impl Open {
    fn push(&mut self, line: &str) {
        // Past the cap the rest is cut anyway; not copying it keeps a huge section cheap.
        if self.text.len() > MAX_CHUNK_BYTES {
            return;
        }
        if !self.text.is_empty() {
            self.text.push('\n');
            if self.blank_pending {
                self.text.push('\n');
            }
        }
        self.blank_pending = false;
        self.text.push_str(line);
    }
}

impl Cutter {
    fn line(&mut self, number: usize, raw: &str) {
        let read = self.reader.line(raw);
        match read.kind {
            Kind::Fenced => {
                if let Some(open) = &mut self.open {
                    open.push(dedent(raw, self.fence_dedent));
                }
                return;
            }
            Kind::Comment => return,
            Kind::Blank => {
                if let Some(open) = &mut self.open {
                    open.blank_pending = true;
                }
                self.blank_before = true;
                return;
            }
            Kind::Text | Kind::Opening | Kind::Indented | Kind::Quote => {}
        }
        let line: &str = &read.text;
        let opens = read.kind == Kind::Opening;
        // Code and quotes hold no heading, rule or list item.
        let structure = matches!(read.kind, Kind::Text | Kind::Opening);
        let blank_before = std::mem::replace(&mut self.blank_before, false);
        let (indent, rest) = indentation(line);

        if let Some(item_indent) = self.open.as_ref().and_then(|open| open.item_indent) {
            if indent >= item_indent {
                self.fence_opened(opens, item_indent);
                self.push(dedent(line, item_indent));
                return;
            }
        }
        if structure && indent < 4 && thematic_break(rest) {
            self.close();
            return;
        }
        if structure && indent < 4 {
            if let Some(text) = heading(rest) {
                self.close();
                self.heading = (!text.is_empty()).then(|| text.to_owned());
                self.heading_line = Some((number, line.trim().to_owned()));
                return;
            }
        }
        if let Some(item) = list_item(rest).filter(|_| structure) {
            self.close();
            self.heading_line = None;
            let item_indent = indent + item.width;
            self.open = Some(Open {
                line: number,
                text: String::new(),
                heading: self.heading.clone(),
                item_indent: Some(item_indent),
                blank_pending: false,
            });
            self.fence_opened(opens, item_indent);
            self.push(item.content);
            return;
        }
        let in_item = self
            .open
            .as_ref()
            .is_some_and(|open| open.item_indent.is_some());
        if in_item && !blank_before {
            // A lazy continuation of the item (or a fence written flush under it).
            self.fence_opened(opens, indent);
            self.push(rest);
            return;
        }
        if in_item || self.open.is_none() {
            self.close();
            let (line_number, text) = match self.heading_line.take() {
                Some(heading) => heading,
                None => (number, String::new()),
            };
            self.open = Some(Open {
                line: line_number,
                text,
                heading: self.heading.clone(),
                item_indent: None,
                blank_pending: false,
            });
        }
        self.fence_opened(opens, 0);
        self.push(line);
    }

    fn push(&mut self, line: &str) {
        if let Some(open) = &mut self.open {
            open.push(line);
        }
    }

    /// Notes how many columns the lines of a fence lose, when the line `opens` one.
    fn fence_opened(&mut self, opens: bool, dedent: usize) {
        if opens {
            self.fence_dedent = dedent;
        }
    }

    /// Ends the chunk being written, keeping it if it says anything and the limit allows.
    fn close(&mut self) {
        let Some(open) = self.open.take() else {
            return;
        };
        let mut text = open.text;
        text.truncate(text.trim_end().len());
        let cut = text.len() > MAX_CHUNK_BYTES;
        if cut {
            let cut = text
                .char_indices()
                .map(|(at, _)| at)
                .take_while(|&at| at <= MAX_CHUNK_BYTES)
                .last()
                .unwrap_or(0);
            text.truncate(cut);
        }
        if !text.trim().is_empty() && self.chunks.len() < self.limit {
            self.chunks.push(Chunk {
                line: open.line,
                text,
                heading: open.heading,
                cut,
            });
        }
    }
}

/// A topic file of Claude Code's auto memory as one memory (its description, then its body),
/// with its frontmatter (its `name` is the title); `None` when it says nothing.
pub fn topic(text: &str) -> Option<(Front, Chunk)> {
    let (front, description_line, body, body_line) = front_and_description_line(text);
    let description = front.description.as_deref().map(str::trim).unwrap_or("");
    let body_text = body.trim();
    let (line, text) = match (description.is_empty(), body_text.is_empty()) {
        (true, true) => return None,
        (true, false) => (body_line + leading_blank_lines(body), body_text.to_owned()),
        (false, true) => (description_line.unwrap_or(1), description.to_owned()),
        (false, false) => (
            description_line.unwrap_or(1),
            format!("{description}\n\n{body_text}"),
        ),
    };
    let chunk = Chunk {
        line,
        text,
        heading: None,
        cut: false,
    };
    Some((front, chunk))
}

/// How many whitespace-only lines open `text`, so a chunk's line is where its text starts.
fn leading_blank_lines(text: &str) -> usize {
    text.split('\n')
        .take_while(|line| line.trim().is_empty())
        .count()
}

/// The file a one-line index entry of `MEMORY.md` links to (`[Deploy](deploy.md) — hook` gives
/// `deploy.md`), if it is such an entry: a pointer to a topic file, which says itself what the
/// entry says of it.
pub fn linked_file(entry: &str) -> Option<&str> {
    if entry.contains('\n') {
        return None;
    }
    entry.split("](").skip(1).find_map(|after| {
        let target = after.split(')').next().unwrap_or("");
        let target = target.strip_prefix("./").unwrap_or(target);
        (target.ends_with(".md") && !target.contains('/')).then_some(target)
    })
}

/// The `@path` imports of instruction text, as Claude Code reads them (measured:
/// docs/claude-code.md): `@` at the start of a line or after whitespace, then a path running to
/// the next whitespace (`\ ` is a space in it) and cut at a `#`; outside code blocks (fenced or
/// indented), code spans and HTML comments. The path is taken when it starts with `./`, `~/` or `/`, or with a letter,
/// digit, `.`, `_` or `-`, so a bare `@someone` is an import when a file of that name is there, and
/// a `.` ending a sentence is part of the path (which then names no file), as in the client.
pub fn imports(body: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut reader = Reader::default();
    for line in body.lines() {
        let read = reader.line(line);
        if !matches!(read.kind, Kind::Text | Kind::Quote) {
            continue;
        }
        let line: &str = &read.text;
        let spans = code_spans(line);
        let mut span = spans.iter().peekable();
        let mut previous: Option<char> = None;
        for (at, c) in line.char_indices() {
            let after_space = previous.is_none_or(char::is_whitespace);
            previous = Some(c);
            if c != '@' || !after_space {
                continue;
            }
            while span.next_if(|s| s.end <= at).is_some() {}
            if span.peek().is_some_and(|s| s.start <= at) {
                continue;
            }
            if let Some(path) = line.get(at + 1..).and_then(import_path) {
                found.push(path);
            }
        }
    }
    found
}

/// The path of an import whose text (after the `@`) starts `tail`, if the client takes it as one.
fn import_path(tail: &str) -> Option<String> {
    let mut token = String::new();
    let mut chars = tail.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&' ') => {
                chars.next();
                token.push(' ');
            }
            '\\' => break,
            c if c.is_whitespace() => break,
            c => token.push(c),
        }
    }
    let path = token.split('#').next().unwrap_or("");
    let taken = path.starts_with("./")
        || path.starts_with("~/")
        || (path.starts_with('/') && path != "/" && !path.starts_with("//"))
        || path
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    (taken && !path.is_empty()).then(|| path.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    fn texts(chunks: &[Chunk]) -> Vec<&str> {
        chunks.iter().map(|chunk| chunk.text.as_str()).collect()
    }

    fn lines(chunks: &[Chunk]) -> Vec<usize> {
        chunks.iter().map(|chunk| chunk.line).collect()
    }

    #[test]
    fn front_reads_a_topic_files_fields_and_where_the_body_starts() {
        let text = "---\nname: Deploy window\ndescription: \"never on Fridays\"\nmetadata:\n  type: feedback\n---\nBody here.\n";
        let (front, body, line) = front(text);
        assert_eq!(front.name.as_deref(), Some("Deploy window"));
        assert_eq!(front.description.as_deref(), Some("never on Fridays"));
        assert_eq!(front.kind.as_deref(), Some("feedback"));
        assert_eq!(body, "Body here.\n");
        assert_eq!(line, 7);
    }

    #[rstest]
    #[case::inline_list("paths: [\"src/api/**\", 'lib/*.rs', docs]", &["src/api/**", "lib/*.rs", "docs"])]
    #[case::block_list("paths:\n  - \"src/**/*.ts\"\n  - 'tests/**'", &["src/**/*.ts", "tests/**"])]
    #[case::block_list_flush("paths:\n- src/**\n- lib/**", &["src/**", "lib/**"])]
    #[case::one_string("paths: \"src/**/*.rs\"", &["src/**/*.rs"])]
    #[case::comma_separated("paths: src/**, lib/**", &["src/**", "lib/**"])]
    #[case::braces_stay_whole("paths: [\"src/{api,web}/**\", 'a,b']", &["src/{api,web}/**", "a,b"])]
    #[case::empty_list("paths: []", &[])]
    fn front_reads_paths_in_every_spelling(#[case] yaml: &str, #[case] want: &[&str]) {
        let text = format!("---\n{yaml}\nother: x\n---\nrule");
        let (front, body, _) = front(&text);
        assert_eq!(front.paths, want);
        assert_eq!(body, "rule");
    }

    #[rstest]
    #[case::bom_and_trailing_spaces("\u{feff}---  \nname: n\n---\nbody", Some("n"), "body", 4)]
    #[case::crlf("---\r\nname: n\r\n---\r\nbody\r\n", Some("n"), "body\r\n", 4)]
    #[case::dots_close("---\nname: n\n...\nbody", Some("n"), "body", 4)]
    #[case::no_closing_fence("---\nname: n\nbody", None, "---\nname: n\nbody", 1)]
    #[case::bom_without_front("\u{feff}# Title", None, "# Title", 1)]
    #[case::not_on_first_line("\n---\nname: n\n---\n", None, "\n---\nname: n\n---\n", 1)]
    #[case::closing_at_end_of_text("---\nname: n\n---", Some("n"), "", 4)]
    #[case::empty_text("", None, "", 1)]
    #[case::only_an_opening("---", None, "---", 1)]
    fn front_finds_its_block(
        #[case] text: &str,
        #[case] name: Option<&str>,
        #[case] body: &str,
        #[case] line: usize,
    ) {
        let (front, rest, start) = front(text);
        assert_eq!(front.name.as_deref(), name);
        assert_eq!((rest, start), (body, line));
    }

    #[test]
    fn front_folds_a_wrapped_description_and_ignores_unknown_keys() {
        let text = "---\ndescription: >\n  first part\n  second part\nunknown: [1, 2]\ntype: project\nextra:\n  type: user\n---\n";
        let (front, _, _) = front(text);
        assert_eq!(front.description.as_deref(), Some("first part second part"));
        assert_eq!(front.kind.as_deref(), Some("project"));
    }

    #[test]
    fn front_keeps_line_breaks_of_a_literal_block() {
        let (front, _, _) = front("---\ndescription: |\n  one\n  two\n---\n");
        assert_eq!(front.description.as_deref(), Some("one\ntwo"));
    }

    #[test]
    fn headings_set_the_context_and_lead_the_paragraph_under_them() {
        let body =
            "# Project\n\nIntro words\nmore intro.\n\n## Deploy\n- never on Fridays\n- tag first\n";
        let chunks = sections(body, 1, 10);
        assert_eq!(
            texts(&chunks),
            [
                "# Project\nIntro words\nmore intro.",
                "never on Fridays",
                "tag first"
            ]
        );
        assert_eq!(lines(&chunks), [1, 7, 8]);
        let headings: Vec<_> = chunks.iter().map(|c| c.heading.as_deref()).collect();
        assert_eq!(headings, [Some("Project"), Some("Deploy"), Some("Deploy")]);
    }

    #[test]
    fn a_heading_with_nothing_under_it_is_no_chunk() {
        let chunks = sections("# One\n## Two ##\n\n### C#\n- item\n", 1, 10);
        assert_eq!(texts(&chunks), ["item"]);
        assert_eq!(chunks[0].heading.as_deref(), Some("C#"));
    }

    #[test]
    fn a_nested_list_stays_with_its_top_level_item_dedented() {
        let body = "- parent item\n  continued here\n  - child one\n    - grandchild\n  - child two\n- next\n";
        let chunks = sections(body, 1, 10);
        assert_eq!(
            texts(&chunks),
            [
                "parent item\ncontinued here\n- child one\n  - grandchild\n- child two",
                "next"
            ]
        );
        assert_eq!(lines(&chunks), [1, 6]);
    }

    #[rstest]
    #[case::dot("1. first\n2. second\n10. tenth", &["first", "second", "tenth"])]
    #[case::paren("1) first\n2) second", &["first", "second"])]
    #[case::star_and_plus("* star\n+ plus", &["star", "plus"])]
    #[case::wide_marker_indent("10.  tenth\n     more", &["tenth\nmore"])]
    #[case::not_a_marker("-no space\n1.5 litres", &["-no space\n1.5 litres"])]
    #[case::rule_is_not_an_item("- a\n\n* * *\n\n- b", &["a", "b"])]
    fn list_items_of_every_marker(#[case] body: &str, #[case] want: &[&str]) {
        assert_eq!(texts(&sections(body, 1, 10)), want);
    }

    #[test]
    fn a_fence_never_splits_and_its_dashes_and_hashes_are_code() {
        let body = "## Build\nRun this:\n```sh\n# not a heading\n- not an item\n\n```\nthen done.\n- item\n  ~~~\n  - code in item\n  ~~~\n- last";
        let chunks = sections(body, 1, 10);
        assert_eq!(
            texts(&chunks),
            [
                "## Build\nRun this:\n```sh\n# not a heading\n- not an item\n\n```\nthen done.",
                "item\n~~~\n- code in item\n~~~",
                "last"
            ]
        );
        assert_eq!(lines(&chunks), [1, 9, 13]);
        assert!(chunks.iter().all(|c| c.heading.as_deref() == Some("Build")));
    }

    #[test]
    fn a_fence_flush_under_an_item_belongs_to_it() {
        let chunks = sections("- run:\n```\n- x\n```\n- other", 1, 10);
        assert_eq!(texts(&chunks), ["run:\n```\n- x\n```", "other"]);
    }

    #[test]
    fn an_unclosed_fence_runs_to_the_end() {
        let chunks = sections("- a\n\n```\n- b\n# c", 1, 10);
        assert_eq!(texts(&chunks), ["a", "```\n- b\n# c"]);
    }

    #[test]
    fn html_comments_are_dropped_even_across_lines() {
        let body = "<!-- a note\n- hidden item\n-->\n- shown <!-- aside --> item\n<!-- whole line -->\n- second";
        let chunks = sections(body, 1, 10);
        assert_eq!(texts(&chunks), ["shown  item", "second"]);
        assert_eq!(lines(&chunks), [4, 6]);
    }

    #[test]
    fn text_after_a_list_and_a_blank_line_is_its_own_paragraph() {
        let body = "- item\nlazy continuation\n\nA paragraph.\n\nSame paragraph.\n- next";
        let chunks = sections(body, 1, 10);
        assert_eq!(
            texts(&chunks),
            [
                "item\nlazy continuation",
                "A paragraph.\n\nSame paragraph.",
                "next"
            ]
        );
        assert_eq!(lines(&chunks), [1, 4, 7]);
    }

    #[test]
    fn lines_count_from_where_the_body_starts_in_the_file() {
        let text = "---\nname: n\n---\n\n- first\n\n- second\n";
        let (_, body, line) = front(text);
        assert_eq!(lines(&sections(body, line, 10)), [5, 7]);
    }

    #[test]
    fn limit_caps_the_chunks() {
        let body = "- a\n- b\n- c\n- d";
        assert_eq!(texts(&sections(body, 1, 2)), ["a", "b"]);
        assert!(sections(body, 1, 0).is_empty());
    }

    #[test]
    fn a_long_chunk_is_cut_on_a_character_boundary() {
        let body = format!("- {}", "é".repeat(MAX_CHUNK_BYTES));
        let chunks = sections(&body, 1, 10);
        assert_eq!(chunks[0].text.len(), MAX_CHUNK_BYTES);
        assert!(chunks[0].cut);
        assert!(!sections("- short", 1, 10)[0].cut);
        let odd = format!("- x{}", "é".repeat(MAX_CHUNK_BYTES));
        assert_eq!(sections(&odd, 1, 10)[0].text.len(), MAX_CHUNK_BYTES - 1);
    }

    #[test]
    fn unicode_text_and_a_memory_index() {
        let body = "# Índice\n- [Ventana de despliegue](deploy.md) — nunca los viernes 🚫\n- 日本語のメモ\r\n";
        let chunks = sections(body, 1, 10);
        assert_eq!(
            texts(&chunks),
            [
                "[Ventana de despliegue](deploy.md) — nunca los viernes 🚫",
                "日本語のメモ"
            ]
        );
        assert_eq!(chunks[0].heading.as_deref(), Some("Índice"));
    }

    #[test]
    fn blank_and_comment_only_text_has_no_chunks() {
        assert!(sections("", 1, 10).is_empty());
        assert!(sections("\n  \n<!-- x -->\n-\n# H\n", 1, 10).is_empty());
    }

    #[test]
    fn topic_is_the_description_then_the_body() {
        let text = "---\nname: Deploy window\ndescription: never on Fridays\nmetadata:\n  type: feedback\n---\n\nThe release broke twice.\n";
        let (front, chunk) = topic(text).unwrap();
        assert_eq!(front.name.as_deref(), Some("Deploy window"));
        assert_eq!(chunk.text, "never on Fridays\n\nThe release broke twice.");
        assert_eq!(chunk.line, 3);
    }

    #[rstest]
    #[case::body_only("# Notes\n\nplain", "# Notes\n\nplain", 1)]
    #[case::body_after_blank_lines("---\nname: n\n---\n\n\nbody", "body", 6)]
    #[case::description_only("---\ndescription: d\n---\n", "d", 2)]
    fn topic_starts_where_its_text_does(
        #[case] text: &str,
        #[case] want: &str,
        #[case] line: usize,
    ) {
        let (_, chunk) = topic(text).unwrap();
        assert_eq!((chunk.text.as_str(), chunk.line), (want, line));
    }

    #[test]
    fn a_topic_that_says_nothing_is_none() {
        assert_eq!(
            topic("---\nname: empty\ndescription: \"\"\n---\n  \n"),
            None
        );
        assert_eq!(topic(""), None);
    }

    #[test]
    fn imports_outside_code_only() {
        let body = "See @docs/setup.md and @~/.claude/mine.md.\n@./local.md, @/abs/x.md\nmail a@b.com, ping @someone\n`@in/span.md` and ``a ` @also/span.md``\n```\n@in/fence.md\n```\n(@paren/x.md) last @CLAUDE.local.md\n<!-- @in/comment.md --> @after/comment.md <!-- and\n@in/open.md -->";
        assert_eq!(
            imports(body),
            [
                "docs/setup.md",
                "~/.claude/mine.md.",
                "./local.md,",
                "/abs/x.md",
                "someone",
                "CLAUDE.local.md",
                "after/comment.md",
            ]
        );
    }

    /// What the client takes as an import's path, measured with both pinned clients.
    #[rstest]
    #[case::escaped_space("@docs/with\\ space.md", Some("docs/with space.md"))]
    #[case::fragment("@docs/frag.md#section", Some("docs/frag.md"))]
    #[case::only_a_fragment("@#section", None)]
    #[case::root("@/", None)]
    #[case::network_share("@//host/share.md", None)]
    #[case::another_at("@@team", None)]
    #[case::symbol("@%x.md", None)]
    #[case::backslash_ends_it("@a\\b.md", Some("a"))]
    #[case::home("@~/notes.md", Some("~/notes.md"))]
    fn an_import_path_is_read_as_the_client_reads_it(
        #[case] text: &str,
        #[case] want: Option<&str>,
    ) {
        assert_eq!(imports(text).first().map(String::as_str), want);
    }

    #[test]
    fn front_reads_when_a_memory_file_was_modified() {
        let client = "---\nname: deploy\ndescription: d\nmetadata:\n  node_type: memory\n  modified: 2026-12-07T11:12:59.087Z\n---\nbody";
        assert_eq!(
            front(client).0.modified.as_deref(),
            Some("2026-12-07T11:12:59.087Z")
        );
        let top = "---\nmodified: \"2026-01-02\"\n---\nbody";
        assert_eq!(front(top).0.modified.as_deref(), Some("2026-01-02"));
    }

    #[test]
    fn an_unmatched_backtick_hides_nothing() {
        assert_eq!(imports("a ` stray @x/y.md"), ["x/y.md"]);
    }

    /// Pieces of Markdown and frontmatter, put together at random by the property below.
    const PIECES: &[&str] = &[
        "\n",
        "\r\n",
        "  ",
        "\t",
        "- ",
        "* ",
        "1. ",
        "2) ",
        "# ",
        "### ",
        "```",
        "~~~",
        "<!--",
        "-->",
        "---",
        "...",
        "`",
        "@a/b.md",
        "word",
        "é",
        "漢字",
        "\u{feff}",
        "name: n",
        "description: d",
        "paths: [a, 'b']",
        "  - c",
        "metadata:",
        "  type: user",
        "|",
        ">",
    ];

    proptest::proptest! {
        #[test]
        fn any_text_splits_without_panic_into_ordered_trimmed_chunks(
            pieces in proptest::collection::vec(proptest::sample::select(PIECES), 0..80),
            limit in 0usize..6,
        ) {
            let text = pieces.concat();
            let (_, body, first_line) = front(&text);
            proptest::prop_assert!(text.ends_with(body));
            let last_line = first_line + body.split('\n').count() - 1;
            let chunks = sections(body, first_line, limit);
            proptest::prop_assert!(chunks.len() <= limit);
            for pair in chunks.windows(2) {
                proptest::prop_assert!(pair[0].line < pair[1].line, "{chunks:?}");
            }
            for chunk in &chunks {
                proptest::prop_assert!((first_line..=last_line).contains(&chunk.line));
                proptest::prop_assert!(!chunk.text.trim().is_empty());
                proptest::prop_assert_eq!(chunk.text.trim_end(), chunk.text.as_str());
            }
            topic(&text);
            imports(&text);
        }
    }

    #[test]
    fn odd_input_does_not_panic() {
        for text in [
            "---",
            "---\n---",
            "\u{feff}",
            "#",
            "- ",
            "1.",
            "```",
            "<!--",
            "@",
            "`@a.md",
            "é\n\u{feff}---\n",
        ] {
            let (_, body, line) = front(text);
            sections(body, line, 5);
            topic(text);
            imports(text);
        }
    }
}
