//! The value reader's words: the pieces of a text (`scan`) as words and numbers with their case
//! kept, each knowing whether it opens a sentence, was backticked, or follows a `:` or `=`.

use super::scan::{Kind, Piece};

/// One word or number of a text.
pub(super) struct Token {
    pub(super) text: String,
    pub(super) lower: String,
    /// It opens a sentence (or a line, or follows a colon): a capital there names nothing.
    pub(super) start: bool,
    /// It was written between backticks.
    pub(super) quoted: bool,
    /// A `:` or `=` stands right before it: it is the value of what precedes.
    pub(super) marked: bool,
}

/// The words and numbers of a text cut into `pieces`: a backticked span is one token (an
/// unpaired backtick opens one that runs to the end), otherwise a run of letters, digits and
/// `._-/:%` with sentence punctuation trimmed from its end.
pub(super) fn tokens(pieces: &[Piece]) -> Vec<Token> {
    let mut out = Vec::new();
    let mut start = true;
    let mut marked = false;
    for piece in pieces {
        if piece.space.contains('\n') {
            start = true;
        }
        match piece.kind {
            Kind::Ticked => quoted(&mut out, piece.text, &mut start, &mut marked),
            Kind::Unpaired => {
                quoted(&mut out, piece.after, &mut start, &mut marked);
                break;
            }
            Kind::Plain => words_of(piece.text, &mut out, &mut start, &mut marked),
        }
    }
    out
}

/// A backticked span as one token.
fn quoted(out: &mut Vec<Token>, span: &str, start: &mut bool, marked: &mut bool) {
    push(out, span, start, marked);
    if let Some(t) = out.last_mut().filter(|t| t.text == span) {
        t.quoted = true;
    }
}

/// The tokens of a piece with no white space or backtick in it.
fn words_of(piece: &str, out: &mut Vec<Token>, start: &mut bool, marked: &mut bool) {
    let mut rest = piece;
    while let Some(c) = rest.chars().next() {
        if c.is_alphanumeric() {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || "._-/:%".contains(c)))
                .unwrap_or(rest.len());
            let (whole, after) = rest.split_at_checked(end).unwrap_or((rest, ""));
            let run = whole.trim_end_matches(['.', ':', '-', '/']);
            let stop = whole
                .strip_prefix(run)
                .is_some_and(|t| t.contains(['.', ':']));
            // `localhost:8081`, `fleet-gw:9443`: a name and its port.
            match run.rsplit_once(':') {
                Some((host, port))
                    if host.starts_with(|c: char| c.is_alphabetic())
                        && !port.is_empty()
                        && port.chars().all(|c| c.is_ascii_digit()) =>
                {
                    push(out, host, start, marked);
                    push(out, port, start, marked);
                }
                _ => push(out, run, start, marked),
            }
            *start = stop;
            *marked = whole.ends_with(':');
            rest = after;
            continue;
        }
        if c == '%' {
            push(out, "%", start, marked);
        }
        if ".!?:;".contains(c) {
            *start = true;
        }
        *marked = ":=".contains(c);
        let mut chars = rest.chars();
        chars.next();
        rest = chars.as_str();
    }
}

fn push(out: &mut Vec<Token>, text: &str, start: &mut bool, marked: &mut bool) {
    if !text.is_empty() {
        out.push(Token {
            text: text.to_owned(),
            lower: text.to_lowercase(),
            start: *start,
            quoted: false,
            marked: *marked,
        });
        *start = false;
        *marked = false;
    }
}

#[cfg(test)]
mod tests {
    use super::super::scan::pieces;
    use super::*;

    #[test]
    fn tokens_keep_code_and_trim_punctuation() {
        let t: Vec<String> = tokens(&pieces("Set `max.poll.ms` to 30s, then v1.2.3."))
            .into_iter()
            .map(|t| t.text)
            .collect();
        assert_eq!(t, ["Set", "max.poll.ms", "to", "30s", "then", "v1.2.3"]);
    }
}
