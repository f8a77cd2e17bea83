//! Lessons marked for keeping: in a reply, a line starting `remember:` or the text of a
//! `<remember>...</remember>` block (`marked`); in a prompt the user typed, a line starting
//! `remember:` (`typed`). What they may hold in the way of secrets is masked where every memory
//! is stored (`record`).
//!
//! A reply also explains Synapse, shows config and quotes notes, so a mark counts only where the
//! reader sees prose: not in a code fence, an indented code block, a block quote, an HTML comment
//! or an inline code span, the places Markdown keeps for text that is shown or hidden rather than
//! said (`prose`, over the one Markdown reader, `text::markdown`). And what it
//! marks must read as a lesson (`is_lesson`): a template's `<the lesson>`, an ellipsis or a
//! config value such as `true` is the writer showing the syntax, not using it.

mod prose;

use std::ops::Range;

use crate::recall::terms::unspaced;
use crate::secrets;
use crate::text::markdown::list_item;
use prose::{prose, without_code_spans, Line};

/// One lesson marked in a reply: its text, and the memories the writer said it replaces
/// (`remember (replaces #12): ...`, `<remember replaces="12">`).
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

/// The lesson a prose line marks, if it is a `remember:` line: list markers and the bold or
/// italic markup around the label stripped (`- **Remember:** text`, `__remember__: text`,
/// `*Remember: text*`).
fn line_lesson(line: &str) -> Option<Lesson> {
    let mut rest = line.trim_start();
    while let Some(item) = list_item(rest) {
        rest = rest.get(item.width..)?;
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
mod tests;
