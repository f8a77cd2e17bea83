//! The one tokenizer of drift: a memory's text cut into pieces as written, each with the white
//! space before it and the text after it, which every reading of the memory starts from.
//!
//! A piece is a span between backticks, a backtick with no partner, or a run of other
//! characters up to white space or a backtick. Backticks pair from the left. The readers take
//! what they need from the pieces: the claim reader trims and folds each into a word of a
//! clause (`clauses`); the value reader splits each into words and numbers with their case and
//! the marks before them (`tokens`).

/// What a piece is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The inside of a pair of backticks, untrimmed.
    Ticked,
    /// A backtick with no partner: no backtick follows it.
    Unpaired,
    /// Characters up to white space or a backtick.
    Plain,
}

/// One piece of a text.
#[derive(Clone, Copy, Debug)]
pub struct Piece<'a> {
    pub kind: Kind,
    /// The piece as written: a span's inside, "`" for an unpaired backtick, or the run.
    pub text: &'a str,
    /// The white space right before it.
    pub space: &'a str,
    /// All the text after it (after the closing backtick of a span).
    pub after: &'a str,
}

/// Cut `text` into pieces.
pub fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        let (space, trimmed) = rest
            .split_at_checked(rest.len() - rest.trim_start().len())
            .unwrap_or(("", rest));
        rest = trimmed;
        if rest.is_empty() {
            break;
        }
        let (kind, text, after) = match rest.strip_prefix('`') {
            Some(body) => match body.split_once('`') {
                Some((inner, after)) => (Kind::Ticked, inner, after),
                None => (Kind::Unpaired, "`", body),
            },
            None => {
                let end = rest
                    .find(|c: char| c.is_whitespace() || c == '`')
                    .unwrap_or(rest.len());
                let (text, after) = rest.split_at_checked(end).unwrap_or((rest, ""));
                (Kind::Plain, text, after)
            }
        };
        out.push(Piece {
            kind,
            text,
            space,
            after,
        });
        rest = after;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_pair_backticks_from_the_left() {
        let cut: Vec<(Kind, &str)> = pieces("Set `a b`, x`y` then `z")
            .iter()
            .map(|p| (p.kind, p.text))
            .collect();
        assert_eq!(
            cut,
            [
                (Kind::Plain, "Set"),
                (Kind::Ticked, "a b"),
                (Kind::Plain, ","),
                (Kind::Plain, "x"),
                (Kind::Ticked, "y"),
                (Kind::Plain, "then"),
                (Kind::Unpaired, "`"),
                (Kind::Plain, "z"),
            ]
        );
    }
}
