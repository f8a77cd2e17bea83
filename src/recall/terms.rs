//! Query terms: the words of a question that are worth searching for.
//!
//! Every word is an OR term. Function words ("the", "did", "what") are dropped, since they match
//! nearly everything and carry no subject; negations and numbers are content and stay ("never",
//! "not", "5"). User text is never read as FTS5 syntax: each term reaches SQLite as a quoted
//! phrase.
//!
//! Each term costs an index lookup before ranking starts (about 0.1 ms in a fresh process), so a
//! long question (a pasted log, a long prompt) keeps only its `MAX_TERMS` most specific terms:
//! the longest words, numbers of two or more digits counting as specific. A long word is rarer
//! than a short one far more often than not, and the index cannot be asked which is rarer without
//! paying the lookups this bound saves.

use foldhash::{HashSet, HashSetExt};

use serde::Serialize;

use crate::text::{fold, is_function_word, words, WordStemmer};

/// One searched term.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Term {
    /// The folded word as the user wrote it (contractions keep their apostrophe: "don't").
    pub word: String,
    /// Its stem, the unit of coverage counting.
    pub stem: String,
}

impl Term {
    /// The term as a quoted FTS5 phrase: `"word"`, with inner quotes doubled.
    pub fn phrase(&self) -> String {
        format!("\"{}\"", self.word.replace('"', "\"\""))
    }

    /// Whether the trigram lane searches this term: it needs three characters to match at all,
    /// and short Latin fragments match inside too many unrelated words ("art" in "start").
    pub fn for_trigrams(&self) -> bool {
        let chars = self.word.chars().count();
        chars >= 4 || (chars == 3 && !self.word.is_ascii())
    }

    /// Whether this is a word of one or two characters in a script written without spaces
    /// (Han, kana, Hangul): too short for the trigram index, and inside a longer run in the word
    /// index, so only a scan of the memories' text finds it (`lanes::scan`). Chinese and
    /// Japanese users search in such words ("漢字").
    pub fn scanned(&self) -> bool {
        // Two Hangul syllables fold to at most six letters of three bytes.
        if self.word.is_ascii() || self.word.len() > 18 {
            return false;
        }
        let needle = self.needle();
        needle.chars().count() <= 2 && needle.chars().all(unspaced)
    }

    /// Whether a text can hold this term inside a longer word: a contraction, a term the trigram
    /// lane searches, or a scanned one.
    pub fn inside(&self) -> bool {
        self.word.contains('\'') || self.for_trigrams() || self.scanned()
    }

    /// The text a scan looks for: the folded word recomposed, since the memories' text is stored
    /// as written (folding splits a Hangul syllable into its letters).
    pub fn needle(&self) -> String {
        use unicode_normalization::UnicodeNormalization;
        self.word.nfc().collect()
    }
}

/// A letter of a script written without spaces between words: Han ideographs, Japanese kana,
/// Hangul syllables.
pub(crate) fn unspaced(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30FF}'   // hiragana, katakana
        | '\u{3400}'..='\u{4DBF}' // Han, extension A
        | '\u{4E00}'..='\u{9FFF}' // Han
        | '\u{AC00}'..='\u{D7AF}' // Hangul syllables
        | '\u{F900}'..='\u{FAFF}' // Han compatibility
        | '\u{20000}'..='\u{2FA1F}' // Han, supplementary planes
    )
}

/// The most terms a question is searched for.
pub const MAX_TERMS: usize = 16;

/// A query split into searched and dropped words.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Terms {
    pub kept: Vec<Term>,
    /// Function words.
    pub dropped: Vec<String>,
    /// Content words beyond the `MAX_TERMS` most specific (the first `MAX_SHOWN` of them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
    /// How many content words were skipped in all.
    #[serde(skip_serializing_if = "is_zero")]
    pub skipped_count: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The most dropped or skipped words a `Terms` lists (a pasted log may hold thousands).
pub const MAX_SHOWN: usize = 64;
/// Up to this many distinct content words, a question has every one stemmed, and the first of
/// each stem searched; a longer one (a pasted log) only its most specific.
const STEM_ALL: usize = 256;

impl Terms {
    /// Split a query into terms. A query of nothing but function words keeps no terms: it asks
    /// for nothing in particular, and recall answers it with the newest memories.
    ///
    /// Linear in the query: each distinct word is looked at once (a pasted log repeats most of
    /// its words). A question of more than `STEM_ALL` distinct content words has only as many
    /// stemmed as it takes to find its `MAX_TERMS` most specific terms.
    pub fn parse(query: &str, stemmer: &WordStemmer) -> Terms {
        let mut terms = Terms::default();
        let folded = fold(&query.replace('\u{2019}', "'"));
        let mut seen: HashSet<&str> = HashSet::new();
        let mut content: Vec<&str> = Vec::new();
        for raw in folded.split(|c: char| !(crate::text::is_word_char(c) || c == '\'')) {
            let word = raw.trim_matches('\'');
            let word = word.strip_suffix("'s").unwrap_or(word);
            if word.is_empty() || words(word).next().is_none() || !seen.insert(word) {
                continue;
            }
            if is_function_word(word) {
                if terms.dropped.len() < MAX_SHOWN {
                    terms.dropped.push(word.to_owned());
                }
            } else {
                content.push(word);
            }
        }
        // Which content words to stem, in question order: all of them, or, for a long question,
        // the most specific until `MAX_TERMS` stems are found.
        let mut chosen: Vec<usize> = (0..content.len()).collect();
        if content.len() > STEM_ALL {
            chosen.sort_by_key(|&i| std::cmp::Reverse(specificity(content[i])));
        }
        let mut stems: HashSet<String> = HashSet::new();
        let mut kept: Vec<(usize, Term)> = Vec::new();
        for &i in &chosen {
            if content.len() > STEM_ALL && kept.len() == MAX_TERMS {
                break;
            }
            let word = content[i];
            // A contraction is matched as the phrase of its parts; its stem is the whole word.
            let stem = if word.contains('\'') {
                word.to_owned()
            } else {
                stemmer.stem(word)
            };
            if stems.insert(stem.clone()) {
                let word = word.to_owned();
                kept.push((i, Term { word, stem }));
            }
        }
        if content.len() > STEM_ALL {
            kept.sort_by_key(|(i, _)| *i);
            let taken: HashSet<usize> = kept.iter().map(|(i, _)| *i).collect();
            for (_, word) in content
                .iter()
                .enumerate()
                .filter(|(i, _)| !taken.contains(i))
            {
                terms.skipped_count += 1;
                if terms.skipped.len() < MAX_SHOWN {
                    terms.skipped.push((*word).to_owned());
                }
            }
        }
        terms.kept = kept.into_iter().map(|(_, t)| t).collect();
        terms.keep_most_specific();
        terms
    }

    /// Keep the `MAX_TERMS` most specific terms, in their order in the question.
    fn keep_most_specific(&mut self) {
        if self.kept.len() <= MAX_TERMS {
            return;
        }
        let mut order: Vec<usize> = (0..self.kept.len()).collect();
        // Stable: among equally specific terms, the earlier ones stay.
        order.sort_by_key(|&i| std::cmp::Reverse(specificity(&self.kept[i].word)));
        let mut keep = vec![false; self.kept.len()];
        for &i in &order[..MAX_TERMS] {
            keep[i] = true;
        }
        let mut index = 0;
        self.kept.retain(|term| {
            let kept = keep[index];
            index += 1;
            if !kept {
                self.skipped_count += 1;
                if self.skipped.len() < MAX_SHOWN {
                    self.skipped.push(term.word.clone());
                }
            }
            kept
        });
    }

    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }
}

/// How specific a term is likely to be, without asking the index: its length in characters, and
/// as much as a long word for a number of two or more digits (a port, a status code, a limit).
fn specificity(word: &str) -> usize {
    let chars = word.chars().count();
    if chars >= 2 && word.bytes().all(|b| b.is_ascii_digit()) {
        chars.max(8)
    } else {
        chars
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(query: &str) -> Vec<String> {
        Terms::parse(query, &WordStemmer::default())
            .kept
            .into_iter()
            .map(|t| t.word)
            .collect()
    }

    #[test]
    fn function_word_list_is_sorted_for_binary_search() {
        assert!(is_function_word("the") && is_function_word("yourselves") && is_function_word("a"));
        assert!(!is_function_word("any") && !is_function_word("may"));
        assert!(!is_function_word("not") && !is_function_word("never"));
    }

    #[test]
    fn drops_function_words_keeps_negations_and_numbers() {
        assert_eq!(
            kept("When did we NOT retry 5 times?"),
            ["not", "retry", "5", "times"]
        );
        assert_eq!(
            kept("we never use the don't-list"),
            ["never", "use", "don't", "list"]
        );
    }

    #[test]
    fn possessives_fold_and_word_forms_merge() {
        assert_eq!(
            kept("Caroline's painting paintings"),
            ["caroline", "painting"]
        );
    }

    #[test]
    fn fts_syntax_is_only_text() {
        let terms = Terms::parse("NEAR(a b) \"x\" OR y* -z col:w", &WordStemmer::default());
        let words: Vec<_> = terms.kept.iter().map(|t| t.word.as_str()).collect();
        assert_eq!(words, ["near", "b", "x", "y", "z", "col", "w"]);
        assert!(terms.kept.iter().all(|t| t.phrase().starts_with('"')));
    }

    #[test]
    fn a_long_question_keeps_its_most_specific_terms_in_order() {
        let words: Vec<String> = (0..MAX_TERMS).map(|i| format!("word{i:02}")).collect();
        let query = format!("ab {} 5432 cd idempotency", words.join(" "));
        let terms = Terms::parse(&query, &WordStemmer::default());
        let kept: Vec<&str> = terms.kept.iter().map(|t| t.word.as_str()).collect();
        assert_eq!(kept.len(), MAX_TERMS);
        assert_eq!(
            kept[..MAX_TERMS - 2],
            words[..MAX_TERMS - 2],
            "earlier words first"
        );
        assert_eq!(
            kept[MAX_TERMS - 2..],
            ["5432", "idempotency"],
            "a number is specific"
        );
        assert_eq!(terms.skipped, ["ab", "word14", "word15", "cd"]);
    }

    #[test]
    fn stopword_only_query_keeps_nothing() {
        assert!(Terms::parse("what is it that we did?", &WordStemmer::default()).is_empty());
    }
}
