//! The claim reader's words: the pieces of a text (`scan`) as clauses of folded words, split at
//! line ends, semicolons and sentence ends, each word knowing whether it is code and whether
//! its phrase ends after it.

use super::scan::{Kind, Piece};
use crate::text::fold;

/// A word of a clause.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Word {
    pub text: String,
    /// Written in backticks, or shaped like code (`eu-west-1`, `.env`).
    pub code: bool,
    /// Written in backticks.
    pub ticked: bool,
    /// A comma or dash follows it, or a parenthesis opens after it: the phrase ends here.
    pub pause: bool,
}

/// The clauses of a text cut into `pieces`.
pub fn clauses(pieces: &[Piece]) -> Vec<Vec<Word>> {
    let mut out = vec![Vec::new()];
    let mut after_span = false;
    for piece in pieces {
        let glued = after_span && piece.space.is_empty();
        after_span = piece.kind == Kind::Ticked;
        if piece.kind == Kind::Ticked {
            let after = piece.after;
            let inner = fold(piece.text.trim());
            let pause = after.starts_with(',') || after.trim_start().starts_with('(');
            if !inner.is_empty() {
                out.last_mut().expect("one clause").push(Word {
                    text: inner,
                    code: true,
                    ticked: true,
                    pause,
                });
            }
            if after.starts_with(['.', ';', '!', '?']) {
                out.push(Vec::new());
            }
            continue;
        }
        // Punctuation right after a span belongs to it (read above), not to the next word.
        let raw = if glued {
            piece
                .text
                .trim_start_matches([',', ':', '.', ';', '!', '?'])
        } else {
            piece.text
        };
        if raw.is_empty() {
            continue;
        }
        let rest = piece.after;
        let newline_after = rest.starts_with(['\n', '\r']);
        let trimmed = raw.trim_end_matches(['"', '\'', ')', ']', '}', '>', '*', '!', '?']);
        let ends_sentence = trimmed.ends_with(['.', ';', '!', '?'])
            || raw.ends_with(['!', '?'])
            || trimmed.ends_with(".)")
            || newline_after;
        let pause = trimmed.ends_with(',')
            || raw.ends_with(['—', '–'])
            || rest.trim_start().starts_with('(');
        let text = trimmed
            .trim_end_matches(['.', ';', ',', ':', '!', '?', ')', '"', '\''])
            .trim_start_matches(['(', '[', '{', '<', '"', '\'', '*']);
        let folded = fold(text);
        let plain_compound = folded.contains('-')
            && folded
                .split('-')
                .all(|p| !p.is_empty() && p.chars().all(char::is_alphabetic));
        if plain_compound {
            // "session-store" and "session store" name the same thing.
            let parts: Vec<&str> = folded.split('-').collect();
            let last = parts.len() - 1;
            for (n, part) in parts.into_iter().enumerate() {
                out.last_mut().expect("one clause").push(Word {
                    text: part.to_owned(),
                    code: false,
                    ticked: false,
                    pause: n == last && pause,
                });
            }
        } else if folded.chars().any(char::is_alphanumeric)
            || ["%", "=", "->", "→", "=>"].contains(&folded.as_str())
        {
            let code = (folded.contains(['.', '/', '_', '-', ':', '=', '@'])
                || folded.starts_with('#'))
                && folded.chars().any(char::is_alphabetic);
            out.last_mut().expect("one clause").push(Word {
                text: folded,
                code,
                ticked: false,
                pause,
            });
        }
        if ends_sentence {
            out.push(Vec::new());
        }
    }
    out.retain(|c| !c.is_empty());
    out
}
