//! Fusion of the lanes and the coverage floor.
//!
//! Reciprocal rank fusion (K = 60) rewards a memory that several rankings agree on without
//! trusting any one ranking's raw scores. Three rankings take part: the two lanes' bm25 orders
//! and the coverage order, which ranks candidates by the informativeness-weighted count of
//! distinct query terms they hold. bm25 alone lets one repeated word outrank a memory that
//! answers more of the question; coverage alone ignores how central a word is to a memory;
//! fused, each corrects the other.
//!
//! The evidence floor then drops candidates that are far behind the best one on both kinds of
//! evidence: weighted coverage below `Floor::SHARE` of the best candidate's, and word-lane bm25
//! below that share of the best. Every result returned costs the reader context, and a memory
//! that is weak on both has matched the question on a word or two that many memories share.
//! The floor is set so that it costs no answer on the labeled sets' dev halves (an earlier floor
//! cut candidates holding a single common term, and lost one answer in twenty doing it). The
//! top-ranked candidate always survives, so a weak answer is still given, and so does each lane's
//! first.

use super::terms::Term;
use crate::store::search::Ranked;
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
/// to the later arrival, until recall reads the candidates and breaks its ties by time.
///
/// The trigram lane's order votes only when the word lane found nothing (a question in a script
/// written without spaces, or only of fragments of identifiers). Otherwise its candidates join
/// unranked, to be ordered by the coverage ranking: bm25 over three-character fragments rewards
/// long words and repeated fragments more than relevance, and on every labeled set its vote
/// ranked answers lower than the word lane's order alone (docs/relevance.md).
pub fn rrf(words: &Ranked, trigrams: &Ranked) -> Vec<Fused> {
    let trigram_vote = if words.is_empty() { 1.0 } else { 0.0 };
    let mut by_id: foldhash::HashMap<i64, Fused> = foldhash::HashMap::default();
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
            let weight = if is_words { 1.0 } else { trigram_vote };
            entry.score += weight / (RRF_K + place.rank as f64);
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
    Matcher::new(terms).held(text, stemmer)
}

/// The terms of one question, made ready to be looked for in many texts (every candidate of a
/// recall): the word openings that can hold a term, and, for every word looked at so far, which
/// terms it holds. Stemming is the cost of counting coverage, and long memories repeat most of
/// their words, so each distinct word is stemmed once per question, and only if it begins like
/// some term. A question has at most `terms::MAX_TERMS` terms; a `Matcher` looks for the first 64.
pub struct Matcher<'a> {
    terms: &'a [Term],
    /// Bit `b0 << 8 | b1` is set when a term's stem begins with the bytes b0 b1.
    pairs: Vec<u64>,
    /// Byte b is set when a term's stem is that one byte.
    single: [bool; 256],
    /// The terms (bit i: term i) each word looked at holds by its stem. Hashed with foldhash
    /// (already in every binary through SQLite's statement cache): the standard hasher cost
    /// half the time of counting coverage on long memories.
    words: foldhash::HashMap<String, u64>,
    /// For each term, whether a text may hold it inside a longer word (`Term::inside`).
    inside: Vec<bool>,
}

impl<'a> Matcher<'a> {
    pub fn new(terms: &'a [Term]) -> Matcher<'a> {
        let terms = terms.get(..64).unwrap_or(terms);
        let mut pairs = vec![0u64; 1024];
        let mut single = [false; 256];
        for term in terms {
            match term.stem.as_bytes() {
                [b0, b1, ..] => {
                    let bit = usize::from(*b0) << 8 | usize::from(*b1);
                    pairs[bit / 64] |= 1 << (bit % 64);
                }
                [b0] => single[usize::from(*b0)] = true,
                [] => {}
            }
        }
        Matcher {
            terms,
            pairs,
            single,
            words: foldhash::HashMap::default(),
            inside: terms.iter().map(Term::inside).collect(),
        }
    }

    /// Whether some term's stem could share this word's opening.
    fn may_open(&self, word: &[u8]) -> bool {
        match word {
            [b0, b1, ..] => {
                let bit = usize::from(*b0) << 8 | usize::from(*b1);
                self.pairs[bit / 64] & (1 << (bit % 64)) != 0 || self.single[usize::from(*b0)]
            }
            [b0] => self.single[usize::from(*b0)],
            [] => false,
        }
    }

    /// The terms one folded word holds by its stem.
    fn of_word(&mut self, word: &str, stemmer: &WordStemmer) -> u64 {
        if let Some(&held) = self.words.get(word) {
            return held;
        }
        let mut held = 0;
        let mut stem: Option<String> = None;
        for (i, term) in self.terms.iter().enumerate() {
            if shares_opening(word, &term.stem)
                && *stem.get_or_insert_with(|| stemmer.stem(word)) == term.stem
            {
                held |= 1 << i;
            }
        }
        self.words.insert(word.to_owned(), held);
        held
    }

    /// Which terms `text` holds (see `held_terms`).
    pub fn held(&mut self, text: &str, stemmer: &WordStemmer) -> Vec<usize> {
        let folded = if text.contains('\u{2019}') {
            fold(&text.replace('\u{2019}', "'"))
        } else {
            fold(text)
        };
        let all = if self.terms.len() == 64 {
            u64::MAX
        } else {
            (1 << self.terms.len()) - 1
        };
        let mut held = 0u64;
        if folded.is_ascii() {
            // The common case, a byte at a time: splitting on characters costs several times
            // more, and a long memory's head is 8 KiB of them.
            for word in folded.as_bytes().split(|b| !b.is_ascii_alphanumeric()) {
                if held == all {
                    break;
                }
                if self.may_open(word) {
                    if let Ok(word) = std::str::from_utf8(word) {
                        held |= self.of_word(word, stemmer);
                    }
                }
            }
        } else {
            for word in words(&folded) {
                if held == all {
                    break;
                }
                if self.may_open(word.as_bytes()) {
                    held |= self.of_word(word, stemmer);
                }
            }
        }
        for (i, term) in self.terms.iter().enumerate() {
            if held & (1 << i) == 0 && self.inside[i] && folded.contains(&term.word) {
                held |= 1 << i;
            }
        }
        (0..self.terms.len())
            .filter(|i| held & (1 << i) != 0)
            .collect()
    }
}

/// Which term (index into `terms`) one word of a text holds, if any: the word-by-word form of
/// `held_terms`, for finding where in a text the matches are.
pub fn term_at(terms: &[Term], word: &str, stemmer: &WordStemmer) -> Option<usize> {
    let folded = fold(&word.replace('\u{2019}', "'"));
    terms.iter().position(|term| {
        (term.inside() && folded.contains(&term.word))
            || words(&folded).any(|w| shares_opening(w, &term.stem) && stemmer.stem(w) == term.stem)
    })
}

/// A cheap test before stemming: a word can only share a stem that it begins like. Only the first
/// two characters are compared: the stemmer may rewrite the third of a short word ("any" -> "ani",
/// "try" -> "tri").
fn shares_opening(word: &str, stem: &str) -> bool {
    let n = stem.chars().take(2).map(char::len_utf8).sum::<usize>();
    word.len() >= n && word.as_bytes()[..n] == stem.as_bytes()[..n]
}

/// How informative a term is, from the number of memories taken to hold it (`df`, smoothed by
/// `lanes::smoothed_df`) out of `total`: the bm25 inverse document frequency. A term that
/// matches nothing weighs as a very rare one.
pub fn weight(df: f64, total: i64) -> f64 {
    let (df, total) = (df.max(1.0), total.max(1) as f64);
    (1.0 + (total - df + 0.5) / (df + 0.5)).ln()
}

/// Re-rank the word lane's `places` (one per candidate, `None` for those it did not rank) by
/// each one's bm25 times `kept[i]`, the share of its held terms' weight its length keeps
/// (`length`): a long memory whose bm25 comes from words its length holds anyway moves down.
/// The lane's ranks are handed out again in the new order (so a candidate left out of the list
/// keeps its gap) and each place gets the weighed bm25. Whether any rank changed: when every
/// share is 1, nothing does.
pub fn reweigh_words(places: &mut [Option<LanePlace>], kept: &[f64]) -> bool {
    let ranked: Vec<(usize, LanePlace)> = places
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.map(|p| (i, p)))
        .collect();
    if ranked.iter().all(|&(i, _)| kept[i] >= 1.0) {
        return false;
    }
    let mut ranks: Vec<usize> = ranked.iter().map(|(_, p)| p.rank).collect();
    ranks.sort_unstable();
    let mut order: Vec<(usize, LanePlace)> = ranked
        .iter()
        .map(|&(i, p)| {
            let bm25 = p.bm25 * kept[i].min(1.0);
            (i, LanePlace { rank: p.rank, bm25 })
        })
        .collect();
    order.sort_by(|(_, a), (_, b)| a.bm25.total_cmp(&b.bm25).then(a.rank.cmp(&b.rank)));
    let mut moved = false;
    for ((i, place), rank) in order.into_iter().zip(ranks) {
        moved |= rank != place.rank;
        places[i] = Some(LanePlace { rank, ..place });
    }
    moved
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

/// The evidence floor for one query: a candidate passes when it holds at least `SHARE` of the
/// best candidate's weighted coverage, or its word-lane bm25 is at least `SHARE` of the best
/// one's.
#[derive(Clone, Debug)]
pub struct Floor {
    /// The most weighted coverage any candidate has.
    pub best_covered: f64,
    /// The best word-lane bm25 (as a positive number).
    pub best_words: f64,
}

impl Floor {
    /// How far below the best a candidate may fall on both measures and still be returned.
    pub const SHARE: f64 = 0.4;

    /// The floor over candidates with weighted coverage `covered` and word-lane bm25 `words`
    /// (lower is better, 0 for none).
    pub fn new(covered: &[f64], words: &[f64]) -> Floor {
        Floor {
            best_covered: covered.iter().copied().fold(0.0, f64::max),
            best_words: words.iter().map(|w| -w).fold(0.0, f64::max),
        }
    }

    /// Whether a candidate with this weighted coverage and word-lane bm25 passes.
    pub fn passes(&self, covered: f64, words: f64) -> bool {
        covered >= Self::SHARE * self.best_covered || -words >= Self::SHARE * self.best_words
    }
}

/// The coverage floor, which the hooks apply beside the evidence floor (`Options::unasked`): a
/// memory they inject was not asked for and costs every turn its tokens, so one sharing a single
/// common word with the task, or fewer than half the best candidate's terms, stays out, even at
/// the price of an answer now and then.
#[derive(Clone, Debug)]
pub struct Coverage {
    /// The most terms any candidate holds, counted at its length (`length`): a long memory
    /// holding every word of the task by chance does not raise the bar for the notes.
    pub best: f64,
    /// How many query terms the store holds at all.
    pub known: usize,
    /// For each query term: whether it is a rarest known term (fewest matching memories).
    pub rarest: Vec<bool>,
}

impl Coverage {
    /// The floor for terms matching `df[i]` memories each, over candidates that hold `held`,
    /// counted at their lengths `counted` (the count itself for a memory of average length).
    pub fn new(df: &[i64], held: &[&[usize]], counted: &[f64]) -> Coverage {
        let fewest = df.iter().copied().filter(|&n| n > 0).min();
        let tied = df.iter().filter(|&&n| Some(n) == fewest).count();
        let fewest = fewest.filter(|_| tied == 1);
        let best = held
            .iter()
            .zip(counted)
            .map(|(h, &c)| c.min(h.len() as f64))
            .fold(0.0, f64::max);
        Coverage {
            best,
            known: df.iter().filter(|&&n| n > 0).count(),
            rarest: df.iter().map(|&n| Some(n) == fewest).collect(),
        }
    }

    /// Whether a candidate holding the terms `held`, `counted` at its length, passes: at least
    /// half as many as the best candidate, and, when the store knows two or more of the query's
    /// terms, either two of them or the rarest one.
    pub fn passes(&self, held: &[usize], counted: f64) -> bool {
        let lone_ok = match held {
            [only] => self.known < 2 || self.rarest.get(*only).copied().unwrap_or(false),
            [] => self.known < 2,
            _ => true,
        };
        2.0 * counted.min(held.len() as f64) >= self.best && lone_ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recall::terms::Terms;

    #[test]
    fn rrf_rewards_agreement_and_trigrams_vote_only_alone() {
        let words = vec![(1, -5.0), (2, -4.0)];
        let trigrams = vec![(2, -3.0), (3, -2.0)];
        let fused = rrf(&words, &trigrams);
        assert_eq!(fused.len(), 3, "every lane's candidates take part");
        assert_eq!(fused[0].id, 1, "the word lane's order decides");
        assert_eq!(fused[2].id, 3);
        assert_eq!(fused[2].score, 0.0, "a trigram-only candidate is unranked");
        let alone = rrf(&Vec::new(), &trigrams);
        assert_eq!(
            alone[0].id, 2,
            "with no word match the trigram order decides"
        );
        assert!((alone[0].score - 1.0 / 61.0).abs() < 1e-12);
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
    fn floor_keeps_what_is_near_the_best_on_either_evidence() {
        // Weighted coverage 10, 5, 3, 3; word-lane bm25 -8, -1, -4, -1.
        let floor = Floor::new(&[10.0, 5.0, 3.0, 3.0], &[-8.0, -1.0, -4.0, -1.0]);
        assert!(floor.passes(10.0, -8.0));
        assert!(floor.passes(5.0, -1.0), "half the best coverage is enough");
        assert!(floor.passes(3.0, -4.0), "half the best bm25 is enough");
        assert!(!floor.passes(3.0, -1.0), "far behind on both");
        assert!(
            Floor::new(&[0.0], &[0.0]).passes(0.0, 0.0),
            "nothing to compare with cuts nothing"
        );
    }

    #[test]
    fn coverage_floor_is_half_of_best_and_more_than_one_common_word() {
        // Terms 0..4 match 50, 3, 0 and 20 memories: term 1 is the rarest known term.
        let floor = Coverage::new(&[50, 3, 0, 20], &[&[0, 3], &[1]], &[2.0, 1.0]);
        assert_eq!((floor.best, floor.known), (2.0, 3));
        assert!(floor.passes(&[0, 3], 2.0));
        assert!(
            !floor.passes(&[0], 1.0),
            "one common word of several is not enough"
        );
        assert!(floor.passes(&[1], 1.0), "the rarest word alone may answer");
        let wide = Coverage::new(&[50, 3, 7, 9], &[&[0, 1, 2, 3]], &[4.0]);
        assert!(
            !wide.passes(&[1], 1.0),
            "fewer than half of the best candidate's terms"
        );
        assert!(
            Coverage::new(&[5], &[&[0]], &[1.0]).passes(&[0], 1.0),
            "a one-word question needs one word"
        );
    }

    /// A pasted log holding all four terms by its length (counted 1.2 at it) sets no bar: the
    /// note holding two of them passes, and the log itself falls below half of the note.
    #[test]
    fn a_long_memory_holding_every_term_by_chance_raises_no_bar() {
        let floor = Coverage::new(&[9, 7, 5, 3], &[&[0, 1, 2, 3], &[1, 3]], &[1.2, 2.0]);
        assert_eq!(floor.best, 2.0);
        assert!(floor.passes(&[1, 3], 2.0));
        assert!(!floor.passes(&[0, 1, 2, 3], 0.9));
    }

    #[test]
    fn the_word_lane_is_reranked_by_what_each_length_keeps() {
        let place = |rank, bm25| Some(LanePlace { rank, bm25 });
        let mut places = [place(1, -9.0), place(2, -6.0), None, place(4, -5.0)];
        assert!(!reweigh_words(&mut places, &[1.0, 1.0, 1.0, 1.0]));
        assert_eq!(places[0], place(1, -9.0), "nothing moves at full length");
        // The first keeps a tenth of its terms' weight: it falls behind both others, which
        // take its rank; the gap at 3 stays.
        assert!(reweigh_words(&mut places, &[0.1, 1.0, 1.0, 1.0]));
        assert_eq!(
            places,
            [place(4, -0.9), place(1, -6.0), None, place(2, -5.0)]
        );
    }

    #[test]
    fn rare_terms_weigh_more() {
        assert!(weight(1.0, 1000) > weight(10.0, 1000));
        assert!(weight(10.0, 1000) > weight(900.0, 1000));
        assert!(weight(0.0, 1000) >= weight(1.0, 1000));
    }

    #[test]
    fn coverage_rank_lifts_better_covered() {
        let mut scores = vec![0.03, 0.02];
        add_coverage_rank(&mut scores, &[1.0, 5.0]);
        assert!(scores[1] > 0.02 + 1.0 / 62.0 - 1e-12);
        assert!((scores[0] - (0.03 + 1.0 / 62.0)).abs() < 1e-12);
    }
}
