//! Text folding and stemming, shared by query terms and coverage counting, how common a word is
//! in English at large (`english`), text made safe to show (`visible`), and the one reader of
//! Markdown (`markdown`: what is code, a quote, a comment, a heading or a list item).
//!
//! SQLite's tokenizers decide what the indexes match; this module mirrors them closely enough to
//! tell, for a handful of candidates, which query terms each one holds. It folds case and
//! diacritics the way `unicode61 remove_diacritics 2` does and stems with the Porter family, so a
//! query for "painting" counts as held by a memory that says "painted".
//!
//! It also owns how text is shown (`visible`): every output path, to a person or a model, shows
//! a memory's control characters and direction overrides as escapes, through that one function.

pub mod age;
pub mod duplicate;
pub mod english;
mod function_words;
pub mod markdown;
mod visible;

pub use function_words::is_function_word;
pub use visible::{hidden, visible};

use std::cell::RefCell;
use std::collections::HashMap;

use anyhow::{bail, Result};
use rust_stemmers::{Algorithm, Stemmer};
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// Lowercase `text` and strip diacritics ("Configuração" -> "configuracao").
pub fn fold(text: &str) -> String {
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    text.nfd()
        .filter(|c| !is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .collect()
}

/// A word character as `unicode61` sees it: letters and numbers separate nothing.
pub fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

/// The words of already-folded text, as `unicode61` splits them.
pub fn words(folded: &str) -> impl Iterator<Item = &str> {
    folded
        .split(|c: char| !is_word_char(c))
        .filter(|w| !w.is_empty())
}

/// The first `n` characters of `text`.
pub fn cut_chars(text: &str, n: usize) -> &str {
    match text.char_indices().nth(n) {
        Some((at, _)) => text.get(..at).unwrap_or(text),
        None => text,
    }
}

/// A memory's first line that holds anything, cut to `n` characters (an ellipsis marks a cut),
/// shown safely (`visible`): how a memory is named in one line.
pub fn gist(body: &str, n: usize) -> String {
    let line = body
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let cut = cut_chars(line, n);
    let more = if cut.len() < line.len() { "…" } else { "" };
    format!("{}{more}", visible(cut))
}

/// The longest prefix of `text` of at most `n` bytes that ends on a character boundary.
pub fn cut_bytes(text: &str, n: usize) -> &str {
    let mut end = text.len().min(n);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or_default()
}

/// The longest prefix of `bytes` of at most `limit` bytes that ends on a character boundary, as
/// text; bytes that are not UTF-8 before that point are an error.
pub fn whole_chars(bytes: &[u8], limit: usize) -> Result<String> {
    let mut cut = bytes.get(..bytes.len().min(limit)).unwrap_or(bytes);
    if let Err(e) = std::str::from_utf8(cut) {
        if e.error_len().is_some() {
            bail!("invalid UTF-8 at byte {}", e.valid_up_to());
        }
        cut = cut.get(..e.valid_up_to()).unwrap_or_default();
    }
    Ok(String::from_utf8(cut.to_vec())?)
}

/// Stems words with the English Snowball stemmer (the successor of the Porter stemmer the
/// index uses; the two agree on the common suffixes that matter for counting coverage).
pub struct WordStemmer {
    stemmer: Stemmer,
    /// Stems already made: a drift check or audit stems the same words again and again, and
    /// Snowball costs thousands of instructions a word. At most `MEMO_WORDS` are kept.
    memo: RefCell<HashMap<String, String, foldhash::fast::RandomState>>,
}

/// How many stems a `WordStemmer` remembers: a project's working vocabulary, bounded.
const MEMO_WORDS: usize = 1 << 16;

impl Default for WordStemmer {
    fn default() -> Self {
        WordStemmer {
            stemmer: Stemmer::create(Algorithm::English),
            memo: RefCell::default(),
        }
    }
}

impl WordStemmer {
    /// The stem of one folded word. A number with a plural `s` ("408s", "1990s") stems to the
    /// number, as it does in the index; Snowball leaves it whole.
    pub fn stem(&self, word: &str) -> String {
        if let Some(stem) = self.memo.borrow().get(word) {
            return stem.clone();
        }
        let stem = match word.strip_suffix('s') {
            Some(number) if !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) => {
                number.to_owned()
            }
            _ => self.stemmer.stem(word).into_owned(),
        };
        let mut memo = self.memo.borrow_mut();
        if memo.len() < MEMO_WORDS {
            memo.insert(word.to_owned(), stem.clone());
        }
        stem
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plural_numbers_stem_to_the_number() {
        let s = WordStemmer::default();
        assert_eq!(s.stem("408s"), "408");
        assert_eq!(s.stem("1990s"), "1990");
        assert_eq!(s.stem("s"), "s");
        assert_eq!(s.stem("retries"), s.stem("retry"));
    }

    #[test]
    fn folds_case_and_accents() {
        assert_eq!(fold("Configuração Élan"), "configuracao elan");
        assert_eq!(fold("CamelCase"), "camelcase");
    }

    #[test]
    fn splits_like_unicode61() {
        let folded = fold("src/webhooks/stripe.rs: E0502 don't");
        let got: Vec<_> = words(&folded).collect();
        assert_eq!(
            got,
            ["src", "webhooks", "stripe", "rs", "e0502", "don", "t"]
        );
    }

    #[test]
    fn pages_end_on_character_boundaries() {
        let text = "aé€😀";
        assert_eq!(whole_chars(text.as_bytes(), 2).unwrap(), "a");
        assert_eq!(whole_chars(text.as_bytes(), 3).unwrap(), "aé");
        assert_eq!(whole_chars(text.as_bytes(), 100).unwrap(), text);
    }

    #[test]
    fn stems_word_forms_together() {
        let s = WordStemmer::default();
        assert_eq!(s.stem("painting"), s.stem("painted"));
        assert_eq!(s.stem("migrations"), s.stem("migration"));
    }
}
