//! The drift reader: one reading of each memory, which every conflict rule judges.
//!
//! The text is cut into pieces once (`scan`). The claim rule reads the pieces as clauses of
//! folded words (`clauses`) and those as claims (`claims`, with its word lists in
//! `claim_words`); the value rules read them as tokens with their case and marks (`tokens`) and
//! those as values and describing words (`values`). One units table and one list of places
//! (`lexicon`) serve both.

pub mod claim_words;
pub mod claims;
pub mod clauses;
pub mod lexicon;
pub mod scan;
pub mod tokens;
pub mod values;

use crate::text::WordStemmer;
use claims::Profile;
use values::Values;

/// One memory as the conflict rules read it.
#[derive(Clone, Debug)]
pub struct Reading {
    /// Its claims, for the claim rule (`conflict`).
    pub claims: Profile,
    /// Its values and describing words, for the value rules (`value`, `replaced`).
    pub values: Values,
}

impl Reading {
    /// Read `text`.
    pub fn of(text: &str, stemmer: &WordStemmer) -> Reading {
        let pieces = scan::pieces(text);
        Reading {
            claims: Profile::of(clauses::clauses(&pieces), stemmer),
            values: values::read(tokens::tokens(&pieces), stemmer),
        }
    }
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    /// A backtick without a partner once kept the clause splitter where it was, forever: every
    /// recall and hook that checked such a memory for drift hung.
    #[rstest]
    #[case::alone("`")]
    #[case::between_words("a ` b")]
    #[case::opening_code("run `cargo test")]
    #[case::two("``")]
    #[case::after_a_word("x`")]
    #[case::after_a_pair("`é` `")]
    #[case::at_the_end("end with `")]
    fn an_unmatched_backtick_ends(#[case] text: &str) {
        let reading = Reading::of(text, &WordStemmer::default());
        assert!(reading.claims.claims.len() <= text.len() + 1, "{text:?}");
        assert!(reading.values.words.len() <= text.len() + 1, "{text:?}");
    }
}
