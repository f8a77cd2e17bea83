//! Fusion of the two lanes and the coverage floor.
//!
//! Reciprocal rank fusion (K = 60) rewards a memory both lanes rank well without trusting either
//! lane's raw scores. The coverage floor then drops candidates that hold fewer than half as many
//! distinct query terms as the best-covered one: a memory sharing one word with a long question
//! is rarely its answer. The top-ranked candidate always survives, so a weak answer is still
//! given.

use std::collections::HashMap;

use super::lanes::Ranked;
use super::terms::Term;
use crate::text::{fold, words, WordStemmer};

/// The RRF constant.
pub const RRF_K: f64 = 60.0;

/// A candidate's place in one lane: 1-based rank and bm25 (lower is better).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct LanePlace {
    pub rank: usize,
    pub bm25: f64,
}

/// A fused candidate, before its text is known.
#[derive(Clone, Debug)]
pub struct Fused {
    pub id: i64,
    pub words: Option<LanePlace>,
    pub trigrams: Option<LanePlace>,
    pub score: f64,
}

/// Fuse two ranked lanes by reciprocal rank: score = sum of 1 / (K + rank). Best first; ties go
/// to the newer id.
pub fn rrf(words: &Ranked, trigrams: &Ranked) -> Vec<Fused> {
    let mut by_id: HashMap<i64, Fused> = HashMap::new();
    let mut add = |ranked: &Ranked, is_words: bool| {
        for (index, &(id, bm25)) in ranked.iter().enumerate() {
            let place = LanePlace {
                rank: index + 1,
                bm25,
            };
            let entry = by_id.entry(id).or_insert(Fused {
                id,
                words: None,
                trigrams: None,
                score: 0.0,
            });
            entry.score += 1.0 / (RRF_K + place.rank as f64);
            if is_words {
                entry.words = Some(place);
            } else {
                entry.trigrams = Some(place);
            }
        }
    };
    add(words, true);
    add(trigrams, false);
    let mut fused: Vec<Fused> = by_id.into_values().collect();
    fused.sort_by(|a, b| b.score.total_cmp(&a.score).then(b.id.cmp(&a.id)));
    fused
}

/// Which of `terms` a text holds (indices into `terms`). A term is held when one of the text's
/// words has the same stem, or, for terms the trigram lane searches, when the text contains it
/// (so "webhook" is held by "StripeWebhookHandler").
pub fn held_terms(terms: &[Term], text: &str, stemmer: &WordStemmer) -> Vec<usize> {
    let folded = fold(&text.replace('\u{2019}', "'"));
    let mut held = vec![false; terms.len()];
    for (i, term) in terms.iter().enumerate() {
        if term.word.contains('\'') || term.for_trigrams() {
            held[i] = folded.contains(&term.word);
        }
    }
    for word in words(&folded) {
        if held.iter().all(|h| *h) {
            break;
        }
        let mut stem: Option<String> = None;
        for (i, term) in terms.iter().enumerate() {
            if held[i] || !shares_opening(word, &term.stem) {
                continue;
            }
            let stem = stem.get_or_insert_with(|| stemmer.stem(word));
            if *stem == term.stem {
                held[i] = true;
            }
        }
    }
    held.iter()
        .enumerate()
        .filter_map(|(i, h)| h.then_some(i))
        .collect()
}

/// A cheap test before stemming: a word can only share a stem that it begins like.
fn shares_opening(word: &str, stem: &str) -> bool {
    let n = stem.chars().take(3).map(char::len_utf8).sum::<usize>();
    word.len() >= n && word.as_bytes()[..n] == stem.as_bytes()[..n]
}

/// Whether a candidate holding `held` distinct terms passes the floor set by the best-covered
/// candidate's `best`: at least half as many.
pub fn passes_floor(held: usize, best: usize) -> bool {
    2 * held >= best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recall::terms::Terms;

    #[test]
    fn rrf_rewards_agreement() {
        let words = vec![(1, -5.0), (2, -4.0)];
        let trigrams = vec![(2, -3.0), (3, -2.0)];
        let fused = rrf(&words, &trigrams);
        assert_eq!(fused[0].id, 2, "ranked by both lanes");
        assert_eq!(fused.len(), 3);
        assert!((fused[0].score - (1.0 / 62.0 + 1.0 / 61.0)).abs() < 1e-12);
    }

    #[test]
    fn coverage_counts_word_forms_and_substrings() {
        let s = WordStemmer::default();
        let terms = Terms::parse("painting webhook retries", &s).kept;
        let held = held_terms(&terms, "She painted the StripeWebhookHandler", &s);
        assert_eq!(held, [0, 1]);
        assert!(held_terms(&terms, "nothing relevant", &s).is_empty());
    }

    #[test]
    fn floor_is_half_of_best() {
        assert!(passes_floor(2, 4));
        assert!(!passes_floor(1, 3));
        assert!(passes_floor(1, 2));
    }
}
