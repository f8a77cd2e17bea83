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

use std::cell::OnceCell;

use crate::text::WordStemmer;
use claims::Profile;
use values::Values;

/// One memory as the conflict rules read it. The text is cut into pieces when it is read; each
/// reader runs on them the first time a rule asks for what it reads, and once: `check` reads
/// the claims of every memory it is handed (to find partners) but the values only of a memory
/// in a pair, and a partner's claims only if the pair is no repeat.
pub struct Reading<'a> {
    pieces: Vec<scan::Piece<'a>>,
    stemmer: &'a WordStemmer,
    claims: OnceCell<Profile>,
    values: OnceCell<Values>,
}

impl<'a> Reading<'a> {
    /// Read `text`.
    pub fn of(text: &'a str, stemmer: &'a WordStemmer) -> Reading<'a> {
        Reading {
            pieces: scan::pieces(text),
            stemmer,
            claims: OnceCell::new(),
            values: OnceCell::new(),
        }
    }

    /// Its claims, for the claim rule (`conflict`).
    pub fn claims(&self) -> &Profile {
        self.claims
            .get_or_init(|| Profile::of(clauses::clauses(&self.pieces), self.stemmer))
    }

    /// Its values and describing words, for the value rules (`value`, `replaced`).
    pub fn values(&self) -> &Values {
        self.values
            .get_or_init(|| values::read(tokens::tokens(&self.pieces), self.stemmer))
    }
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    /// A hook's check reads the claims of every memory it is handed and the values only of
    /// those in a pair: asking for one reading reads nothing else.
    #[test]
    fn each_reader_runs_when_asked_and_once() {
        let stemmer = WordStemmer::default();
        let reading = Reading::of("Webhook retries: 3 times", &stemmer);
        assert!(reading.claims.get().is_none() && reading.values.get().is_none());
        let claims: *const Profile = reading.claims();
        assert!(reading.values.get().is_none());
        assert!(std::ptr::eq(claims, reading.claims()));
        assert!(!reading.values().values.is_empty());
    }

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
        let stemmer = WordStemmer::default();
        let reading = Reading::of(text, &stemmer);
        assert!(reading.claims().claims.len() <= text.len() + 1, "{text:?}");
        assert!(reading.values().words.len() <= text.len() + 1, "{text:?}");
    }
}
