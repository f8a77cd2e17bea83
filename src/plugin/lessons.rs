//! Lessons marked for keeping: in a reply, a line starting `remember:` or the text of a
//! `<remember>...</remember>` block (`marked`); in a prompt the user typed, a line starting
//! `remember:` (`typed`). What they may hold in the way of secrets is masked where every memory
//! is stored (`record`).
//!
//! A reply also explains Synapse, shows config and quotes notes, so a mark counts only where the
//! reader sees prose: not in a code fence, an indented code block, a block quote or an inline code
//! span, the places Markdown keeps for text that is shown rather than said (`prose`). And what it
//! marks must read as a lesson (`is_lesson`): a template's `<the lesson>`, an ellipsis or a
//! config value such as `true` is the writer showing the syntax, not using it.

use std::ops::Range;

use crate::recall::terms::unspaced;
use crate::secrets;

/// One lesson marked in a reply: its text, and the memories the writer said it replaces
/// (`remember (replaces #12): ...`, `<remember replaces="12">`; issue 33).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lesson {
    pub text: String,
    pub replaces: Vec<i64>,
}

/// The lessons marked in `message`, in the order they stand, trimmed.
///
/// A line counts when, after list markers and bold or italic markup, it starts with `remember:`
/// or `remember (replaces #12, #15):`; a block is `<remember>` or `<remember replaces="12,15">`
/// up to `</remember>`. A replace that names no plain id (`(replaces #N)`) makes no lesson: the
/// writer was showing the syntax, or meant a replacement that cannot be made.
pub fn marked(message: &str) -> Vec<Lesson> {
    let lines = prose(message);
    let blocks = blocks(message, &lines);
    // A `remember:` line inside a block is part of the block's lesson, not one of its own.
    let in_block = |at: usize| blocks.iter().any(|(span, _)| span.contains(&at));
    let lines = lines
        .iter()
        .filter(|l| l.prose && !in_block(l.at))
        .filter_map(|l| Some((l.at..l.end, line_lesson(l.text)?)));
    let mut found: Vec<_> = blocks.iter().cloned().chain(lines).collect();
    found.retain(|(_, l)| is_lesson(&l.text));
    found.sort_by_key(|(span, _)| span.start);
    found.into_iter().map(|(_, l)| l).collect()
}

/// What the user marked for keeping in a prompt: each line that starts with `remember:` (any
/// case, after white space), outside code and quotes, with what follows the colon trimmed.
/// A prompt is the user's own words, so only this plain form counts (a list item or a tag may be
/// text the user is asking about), and what follows is kept unless it holds no word at all: a
/// placeholder, an ellipsis, or only a secret.
pub fn typed(prompt: &str) -> Vec<String> {
    prose(prompt)
        .into_iter()
        .filter(|l| l.prose)
        .filter_map(|l| {
            let (label, lesson) = l.text.trim_start().split_once(':')?;
            let lesson = lesson.trim();
            (label.eq_ignore_ascii_case("remember") && says_something(lesson))
                .then(|| lesson.to_owned())
        })
        .collect()
}

/// The tag that opens a block, without its attributes and `>`.
const TAG: &str = "<remember";

/// One line of a text without its line break, where it starts and ends (with the break), and
/// whether it is prose (see `prose`).
struct Line<'a> {
    at: usize,
    end: usize,
    text: &'a str,
    prose: bool,
}

/// The lines of `text`, each marked prose or not. Not prose: lines of a fenced code block (```
/// or ~~~, at any indent, closed by a run of the same character at least as long), of an
/// indented code block (4 columns past the open list item's content, after a blank line or
/// more code: an indented line that continues a paragraph or belongs to a list item is prose),
/// and of a block quote (from a `>` line to the next blank line, as Markdown continues a quoted
/// paragraph).
fn prose(text: &str) -> Vec<Line<'_>> {
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
fn list_marker(rest: &str) -> Option<usize> {
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

/// The lesson a prose line marks, if it is a `remember:` line: list markers and the bold or
/// italic markup around the label stripped (`- **Remember:** text`, `__remember__: text`,
/// `*Remember: text*`).
fn line_lesson(line: &str) -> Option<Lesson> {
    let mut rest = line.trim_start();
    while let Some(width) = list_marker(rest) {
        rest = rest.get(width..)?;
    }
    let emphasis = |c: char| c == '*' || c == '_';
    let opened = rest.len() - rest.trim_start_matches(emphasis).len();
    let rest = rest.get(opened..)?;
    let after_label = rest
        .get(..LABEL.len())
        .filter(|l| l.eq_ignore_ascii_case(LABEL))
        .and_then(|_| rest.get(LABEL.len()..))?;
    // Markup that closes the opening one stands before or after the colon (`__remember__:`,
    // `**Remember:**`); left open, it closes at the end of the line (`*Remember: text*`).
    fn skip(s: &str) -> (bool, &str) {
        let rest = s.trim_start_matches(['*', '_']);
        (rest.len() < s.len(), rest)
    }
    let (before_group, head) = skip(after_label);
    let (head, replaces) = match head.trim_start().strip_prefix('(') {
        Some(group) => {
            let (inside, after) = group.split_once(')')?;
            (after, replaced_ids(inside)?)
        }
        None => (head, Vec::new()),
    };
    let (before_colon, head) = skip(head);
    let (after_colon, text) = skip(head.strip_prefix(':')?);
    let mut text = text.trim();
    if opened > 0 && !(before_group || before_colon || after_colon) {
        let end = text.len() - text.trim_end_matches(emphasis).len();
        text = text.get(..text.len() - end.min(opened))?.trim_end();
    }
    Some(Lesson {
        text: text.to_owned(),
        replaces,
    })
}

/// The word that labels a lesson.
const LABEL: &str = "remember";

/// The ids a replace names (`replaces #12, #15`, `replaces 12 15`), or `None` when it is not a
/// replace or names anything but positive ids.
fn replaced_ids(group: &str) -> Option<Vec<i64>> {
    let word = "replaces";
    let list = group
        .trim_start()
        .get(..word.len())
        .filter(|w| w.eq_ignore_ascii_case(word))
        .and_then(|_| group.trim_start().get(word.len()..))?;
    let mut ids = Vec::new();
    for id in list.split([',', ' ', '\t']).filter(|s| !s.is_empty()) {
        let digits = id.strip_prefix('#').unwrap_or(id);
        if !digits.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let id: i64 = digits.parse().ok().filter(|n| *n > 0)?;
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    (!ids.is_empty()).then_some(ids)
}

/// The `<remember>` blocks of `message` whose opening tag stands in prose (not in code, a quote
/// or an inline code span), with where each stands. A tag with any attribute but a well-formed
/// `replaces` is not a block.
fn blocks(message: &str, lines: &[Line]) -> Vec<(Range<usize>, Lesson)> {
    // The message with everything that is not prose blanked out, byte for byte, so a position
    // found in it is the same position in the message.
    let mut seen = String::with_capacity(message.len());
    for line in lines {
        if line.prose {
            seen.push_str(&without_code_spans(line.text));
        } else {
            seen.extend(std::iter::repeat_n(' ', line.text.len()));
        }
        let eol = line.at + line.text.len()..line.end;
        seen.push_str(message.get(eol).unwrap_or_default());
    }
    let seen = seen.to_ascii_lowercase();
    // Once a block is open, what it holds is the lesson, code and quotes included: its end is
    // the next closing tag wherever it stands.
    let lowered = message.to_ascii_lowercase();
    let close = "</remember>";
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(open) = seen.get(from..).and_then(|s| s.find(TAG)).map(|i| from + i) {
        from = open + TAG.len();
        let Some(tag_end) = seen.get(from..).and_then(|s| s.find('>')).map(|i| from + i) else {
            break;
        };
        let Some(end) = lowered
            .get(tag_end..)
            .and_then(|s| s.find(close))
            .map(|i| tag_end + i)
        else {
            break;
        };
        let attributes = message.get(from..tag_end).unwrap_or_default();
        let text = message.get(tag_end + 1..end).unwrap_or_default();
        from = end + close.len();
        if let Some(replaces) = tag_replaces(attributes) {
            found.push((
                open..from,
                Lesson {
                    text: text.trim().to_owned(),
                    replaces,
                },
            ));
        }
    }
    found
}

/// The ids a block's attributes say it replaces: none for no attributes, `None` for anything
/// but one `replaces="12"` or `replaces="12,15"` (or single quotes).
fn tag_replaces(attributes: &str) -> Option<Vec<i64>> {
    let attributes = attributes.trim();
    if attributes.is_empty() {
        return Some(Vec::new());
    }
    let (name, value) = attributes.split_once('=')?;
    if !name.trim().eq_ignore_ascii_case("replaces") {
        return None;
    }
    let value = value.trim();
    let ids = ['"', '\'']
        .into_iter()
        .find_map(|q| value.strip_prefix(q)?.strip_suffix(q))?;
    replaced_ids(&format!("replaces {ids}"))
}

/// `line` with each inline code span (a run of backticks up to the next run as long) replaced
/// by as many spaces as it has bytes; a run left open is kept as written.
fn without_code_spans(line: &str) -> String {
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

/// Whether `text` reads as a lesson: not a placeholder, not only a secret, and at least two
/// words (runs of letters and digits, one of them with a letter), or one run of at least
/// `UNSPACED_SENTENCE` letters of a script written without spaces. One word alone (`true`,
/// `TEXT`, `bold`) or a number is a value or a label, not something learned; words joined by
/// punctuation are a setting or a path, which a note may well be (`POOL_SIZE=20`).
fn is_lesson(text: &str) -> bool {
    let Some(bare) = words_of(text) else {
        return false;
    };
    let words: Vec<&str> = bare
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let lettered = |w: &&str| w.chars().any(char::is_alphabetic);
    (words.len() >= 2 && words.iter().any(lettered))
        || words
            .iter()
            .any(|w| w.chars().filter(|c| unspaced(*c)).count() >= UNSPACED_SENTENCE)
}

/// Letters of a script written without spaces that make one word a sentence: its words are
/// mostly one to three characters long.
const UNSPACED_SENTENCE: usize = 4;

/// Whether a lesson the user typed holds a word at all (see `words_of`).
fn says_something(text: &str) -> bool {
    words_of(text).is_some_and(|w| w.chars().any(char::is_alphabetic))
}

/// `text` without the markup, quotes and ellipses around it, or `None` when it is only a secret
/// (nothing with a letter is left once the secrets are masked) or a placeholder: words in
/// brackets (`<the lesson>`, `[text]`, `{{lesson}}`), or a name in capitals (`TEXT`,
/// `YOUR_LESSON`), where a template leaves its blanks.
fn words_of(text: &str) -> Option<&str> {
    let masked = secrets::mask(text).text.replace(secrets::MARKER, " ");
    if !masked.chars().any(char::is_alphabetic) {
        return None;
    }
    let bare = text.trim_matches(|c: char| c.is_whitespace() || "*_`~\"'.…".contains(c));
    let blank = |c: char| c.is_alphabetic() || c.is_whitespace() || c == '_' || c == '-';
    let bracketed = [('<', '>'), ('[', ']'), ('{', '}')]
        .iter()
        .any(|&(open, close)| {
            bare.strip_prefix(open)
                .and_then(|b| b.strip_suffix(close))
                .is_some_and(|inside| inside.trim_matches([open, close]).chars().all(blank))
        });
    let capitals = bare.chars().any(char::is_alphabetic)
        && bare
            .chars()
            .all(|c| c.is_uppercase() || c.is_ascii_digit() || c == '_');
    (!bracketed && !capitals).then_some(bare)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(reply: &str) -> Vec<String> {
        marked(reply).into_iter().map(|l| l.text).collect()
    }

    #[test]
    fn finds_marked_lessons() {
        let reply = "Done.\nremember: Run migrations with `make migrate`\n- Remember: pool is 20\n\
                     <remember>Staging deploys\nneed approval</remember>\nnot remember: this";
        assert_eq!(
            texts(reply),
            [
                "Run migrations with `make migrate`",
                "pool is 20",
                "Staging deploys\nneed approval",
            ]
        );
    }

    #[test]
    fn multibyte_text_anywhere_is_no_problem() {
        // A byte index inside a character once made the Stop hook panic.
        let reply = "ñ\nremember: the staging password=\"ñu-2024\" rotates\nRémember: é\n\
                     <remember>日本語の文は空白なし</remember><remember>unclosed";
        assert_eq!(
            texts(reply),
            [
                "the staging password=\"ñu-2024\" rotates",
                "日本語の文は空白なし"
            ]
        );
    }

    #[test]
    fn marks_in_code_fences_count_for_nothing() {
        let reply = "```yaml\nremember: keep the cache warm between runs\n```\n\
                     ~~~~\n<remember>the staging queue drains hourly</remember>\n~~~\nstill fenced: \
                     ~~~ is shorter\nremember: the fence is still open here\n~~~~\n\
                     remember: the fence closed with a run as long as its opening";
        assert_eq!(
            texts(reply),
            ["the fence closed with a run as long as its opening"]
        );
        // A fence indented under a list item is still a fence.
        assert!(texts("1. Edit it:\n   ```yaml\n   remember: keep it on\n   ```").is_empty());
    }

    #[test]
    fn indented_code_counts_for_nothing_but_a_list_item_may_be_indented() {
        let shown = "An example:\n\n    remember: the example reply ends like this one\n";
        assert!(texts(shown).is_empty());
        assert!(texts("Output:\n\n\tremember: the tab makes this code\n").is_empty());
        // Indented past a list item's content only by less than 4 columns: part of the item.
        let item = "- Ran the checks:\n\n    remember: the checks need a warm cache first\n";
        assert_eq!(texts(item), ["the checks need a warm cache first"]);
        // An indented line right under a paragraph continues it.
        let paragraph = "Done.\n    remember: the paragraph goes on in this line\n";
        assert_eq!(texts(paragraph), ["the paragraph goes on in this line"]);
        // A paragraph back at the margin after a blank line closes the list.
        let closed = "- item\n\nBack out.\n\n    remember: a code line after the list\n";
        assert!(texts(closed).is_empty());
    }

    #[test]
    fn a_block_quote_counts_for_nothing_up_to_its_blank_line() {
        let reply = "> remember: an old note the user quoted\nstill the quote's paragraph\n\
                     remember: also inside the quote, by continuation\n> <remember>a quoted block \
                     lesson</remember>\n\nremember: the new lesson after the quote";
        assert_eq!(texts(reply), ["the new lesson after the quote"]);
    }

    #[test]
    fn inline_code_spans_count_for_nothing() {
        let reply = "`remember: shown as code`\nWrite `<remember>shown as code</remember>` or \
                     ``<remember>two ticks ` here</remember>``.";
        assert!(texts(reply).is_empty());
        // A code span inside a lesson is part of it.
        let reply = "<remember>Run `make db` before `make test` always</remember>";
        assert_eq!(texts(reply), ["Run `make db` before `make test` always"]);
    }

    #[test]
    fn markup_around_the_label_is_stripped() {
        let reply = "**Remember:** the cache is cold after deploys\n\
                     **Remember**: the queue is shared by both apps\n\
                     __remember__: tests share one database\n\
                     *Remember: lint before pushing tags*\n\
                     - **remember:** bullets work too\n* remember: and stars as bullets\n\
                     + remember: and plus signs\n12. remember: numbered items as well\n\
                     3) remember: with a parenthesis too\n## Remember: a heading is a title";
        assert_eq!(
            texts(reply),
            [
                "the cache is cold after deploys",
                "the queue is shared by both apps",
                "tests share one database",
                "lint before pushing tags",
                "bullets work too",
                "and stars as bullets",
                "and plus signs",
                "numbered items as well",
                "with a parenthesis too",
            ]
        );
        // What the markup left behind alone is not a lesson (issue 33 stored `** bold`).
        assert!(texts("**Remember:** bold").is_empty());
    }

    #[test]
    fn placeholders_ellipses_and_values_are_not_lessons() {
        for text in [
            "<the lesson>",
            "[text]",
            "{lesson}",
            "`<lesson>`",
            "<what broke>…",
            "TEXT",
            "...",
            "…",
            "true",
            "false",
            "null",
            "42",
            "3.14",
            "YOUR_LESSON",
            "{{lesson}}",
            "v2",
            "2606:4700::1111",
            "\"yes\"",
            "** __",
            "日本語",
        ] {
            assert!(texts(&format!("remember: {text}")).is_empty(), "{text}");
            assert!(
                texts(&format!("<remember>{text}</remember>")).is_empty(),
                "{text}"
            );
        }
        // Brackets inside a lesson are its text, not a placeholder.
        for text in [
            "`Vec<T>` is not `Send` here",
            "[staging] and [prod] differ",
            "use {project}/cache for builds",
            "ワーカーは再起動が必要",
            "deploy: ok",
            "POOL_SIZE=20",
            "docs/adr/0007.md",
            "nameserver 10.0.0.2",
            "{\"retries\": 8}",
        ] {
            assert_eq!(texts(&format!("remember: {text}")), [text]);
        }
    }

    #[test]
    fn a_lesson_that_is_only_a_secret_is_not_kept() {
        let token = "ghp_Qx7TzL0aVb3NcR8mK2pW5sY9dF4gH6jE1uIo";
        assert_ne!(
            secrets::mask(token).text,
            token,
            "the detector must know this shape"
        );
        assert!(texts(&format!("remember: {token}")).is_empty());
        // Words beside it are kept, to be masked where the memory is stored.
        assert_eq!(marked(&format!("remember: token {token}")).len(), 1);
        let named = format!("remember: the CI token is {token}, rotated monthly");
        assert_eq!(marked(&named).len(), 1);
        assert!(typed(&format!("remember: {token}")).is_empty());
    }

    #[test]
    fn replaces_are_read_from_the_label_and_the_tag() {
        let reply = "remember (replaces #12): retries stop after 8 attempts\n\
                     **Remember (replaces 15, #21):** the TTL is 300 seconds\n\
                     REMEMBER (Replaces 4 4): ids named twice count once\n\
                     <remember replaces=\"7\">deploys go through the release job</remember>\n\
                     <remember replaces='3, 9'>logs are kept for two weeks</remember>";
        let got: Vec<(String, Vec<i64>)> = marked(reply)
            .into_iter()
            .map(|l| (l.text, l.replaces))
            .collect();
        let want = [
            ("retries stop after 8 attempts", vec![12]),
            ("the TTL is 300 seconds", vec![15, 21]),
            ("ids named twice count once", vec![4]),
            ("deploys go through the release job", vec![7]),
            ("logs are kept for two weeks", vec![3, 9]),
        ];
        assert_eq!(got, want.map(|(t, r)| (t.to_owned(), r)));
    }

    #[test]
    fn a_malformed_replace_is_no_lesson() {
        let reply = "remember (replaces #N): the new lesson\n\
                     remember (replaces): nothing named here\n\
                     remember (replaces #0): not an id at all\n\
                     remember (see #12): not a replace\n\
                     <remember replaces=\"N\">the new lesson</remember>\n\
                     <remember id=\"4\">another attribute</remember>\n\
                     <remembering>a longer tag</remembering>";
        assert!(texts(reply).is_empty());
    }

    #[test]
    fn lessons_come_in_the_order_they_stand_and_a_block_holds_its_lines() {
        let reply = "<remember>the first one stands here</remember>\n\
                     remember: the second one is a line\n\
                     <remember>\nremember: a line inside a block\nbelongs to it\n</remember>";
        assert_eq!(
            texts(reply),
            [
                "the first one stands here",
                "the second one is a line",
                "remember: a line inside a block\nbelongs to it",
            ]
        );
    }

    #[test]
    fn a_prompt_drops_placeholders_but_keeps_short_words() {
        let prompt = "remember: <the lesson>\nremember: ...\nremember: [text]\nremember: pnpm\n\
                      \n    remember: pasted code\n";
        assert_eq!(typed(prompt), ["pnpm"]);
    }

    #[test]
    fn a_prompt_keeps_only_its_own_plain_remember_lines() {
        let prompt =
            "Why does CI fail?\nremember: we never deploy on Fridays\n  REMEMBER:  pool is 20 \n\
                      ```yaml\nremember: true\n```\n- remember: a list item\n> remember: a quote\n\
                      remember:\nplease remember: this";
        assert_eq!(typed(prompt), ["we never deploy on Fridays", "pool is 20"]);
        assert!(typed("~~~\nremember: x\n~~~").is_empty());
    }
}
