//! Fusion of the lanes and the coverage floor.
//!
//! Reciprocal rank fusion (K = 60) rewards a memory that several rankings agree on without
//! trusting any one ranking's raw scores. Three rankings take part: the two lanes' bm25 orders
//! and the coverage order, which ranks candidates by the informativeness-weighted count of
//! distinct query terms they hold. bm25 alone lets one repeated word outrank a memory that
//! answers more of the question; coverage alone ignores how central a word is to a memory;
//! fused, each corrects the other.
//!
//! The coverage floor then drops candidates that hold fewer than half as many distinct query
//! terms as the best-covered one, and, once the query has two or more terms the store knows,
//! candidates holding only one of them, unless that one is the query's rarest known term: a
//! memory sharing one common word with a question is rarely its answer, while one sharing its
//! most specific word often is, and every result returned costs the reader context. The
//! top-ranked candidate always survives, so a weak answer is still given, and so does each lane's
//! first: bm25 found the one term it holds central to it in that index.

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

/// A cheap test before stemming: a word can only share a stem that it begins like. Only the first
/// two characters are compared: the stemmer may rewrite the third of a short word ("any" -> "ani",
/// "try" -> "tri").
fn shares_opening(word: &str, stem: &str) -> bool {
    let n = stem.chars().take(2).map(char::len_utf8).sum::<usize>();
    word.len() >= n && word.as_bytes()[..n] == stem.as_bytes()[..n]
}

/// How informative a term is, from the number of memories holding it (`df`) out of `total`:
/// the bm25 inverse document frequency. A term that matches nothing weighs as a very rare one.
pub fn weight(df: i64, total: i64) -> f64 {
    let (df, total) = (df.max(1) as f64, total.max(1) as f64);
    (1.0 + (total - df + 0.5) / (df + 0.5)).ln()
}

/// Add the coverage ranking to fused scores: `covered[i]` is candidate i's weighted coverage.
/// Candidates are ranked by it (ties keep their fused order) and each gains 1 / (K + rank).
pub fn add_coverage_rank(scores: &mut [f64], covered: &[f64]) {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| {
        covered[b]
            .total_cmp(&covered[a])
            .then(scores[b].total_cmp(&scores[a]))
    });
    for (rank, i) in order.into_iter().enumerate() {
        scores[i] += 1.0 / (RRF_K + rank as f64 + 1.0);
    }
}

/// The coverage floor for one query.
#[derive(Clone, Debug, Default)]
pub struct Floor {
    /// The most distinct terms any candidate holds.
    pub best: usize,
    /// How many query terms the store holds at all.
    pub known: usize,
    /// For each query term: whether it is a rarest known term (fewest matching memories).
    pub rarest: Vec<bool>,
}

impl Floor {
    /// The floor for terms matching `df[i]` memories each, over candidates that hold `held`.
    pub fn new(df: &[i64], held: &[&[usize]]) -> Floor {
        let fewest = df.iter().copied().filter(|&n| n > 0).min();
        Floor {
            best: held.iter().map(|h| h.len()).max().unwrap_or(0),
            known: df.iter().filter(|&&n| n > 0).count(),
            rarest: df.iter().map(|&n| Some(n) == fewest).collect(),
        }
    }

    /// Whether a candidate holding the terms `held` passes: at least half as many as the best
    /// candidate, and, when the store knows two or more of the query's terms, either two of them
    /// or the rarest one.
    pub fn passes(&self, held: &[usize]) -> bool {
        let lone_ok = match held {
            [only] => self.known < 2 || self.rarest.get(*only).copied().unwrap_or(false),
            [] => self.known < 2,
            _ => true,
        };
        2 * held.len() >= self.best && lone_ok
    }
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
    fn floor_is_half_of_best_and_more_than_one_common_word() {
        // Terms 0..4 match 50, 3, 0 and 20 memories: term 1 is the rarest known term.
        let floor = Floor::new(&[50, 3, 0, 20], &[&[0, 3], &[1]]);
        assert_eq!((floor.best, floor.known), (2, 3));
        assert!(floor.passes(&[0, 3]));
        assert!(
            !floor.passes(&[0]),
            "one common word of several is not enough"
        );
        assert!(floor.passes(&[1]), "the rarest word alone may answer");
        let wide = Floor::new(&[50, 3, 7, 9], &[&[0, 1, 2, 3]]);
        assert!(
            !wide.passes(&[1]),
            "fewer than half of the best candidate's terms"
        );
        assert!(
            Floor::new(&[5], &[&[0]]).passes(&[0]),
            "a one-word question needs one word"
        );
    }

    #[test]
    fn rare_terms_weigh_more() {
        assert!(weight(1, 1000) > weight(10, 1000));
        assert!(weight(10, 1000) > weight(900, 1000));
        assert!(weight(0, 1000) >= weight(1, 1000));
    }

    #[test]
    fn coverage_rank_lifts_better_covered() {
        let mut scores = vec![0.03, 0.02];
        add_coverage_rank(&mut scores, &[1.0, 5.0]);
        assert!(scores[1] > 0.02 + 1.0 / 62.0 - 1e-12);
        assert!((scores[0] - (0.03 + 1.0 / 62.0)).abs() < 1e-12);
    }
}
