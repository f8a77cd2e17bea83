//! The two search lanes: the stemmed-word index and the trigram index (`store::search`), each
//! ranking the query on its own by BM25 within the visible scope.
//!
//! Ranking work is bounded, whatever the store size: BM25 scores every memory that holds a
//! ranked term, so terms pull candidates rarest first, and only while together they match at
//! most `common` memories (`COMMON_DF` unless `recall::Options` says less; at most
//! `MAX_RANKED_TERMS` terms). The commoner terms still count, as coverage, among the candidates
//! the rarer ones pulled. A query made only of common terms takes its newest matches, newest
//! first. Every count is taken within the scope.

use anyhow::Result;

use super::terms::Term;
pub use crate::store::search::Lane;
use crate::store::search::{Ranked, Within};
use crate::store::{Scope, Store};
use crate::text::english;

/// A term matching more memories than this is common; the ranked terms of a lane together
/// match no more than this.
pub const COMMON_DF: i64 = 500;
/// At most this many of a query's rarest terms pull candidates in a lane.
pub const MAX_RANKED_TERMS: usize = 8;
/// How many candidates each lane hands to fusion.
pub const LANE_CAP: usize = 50;

/// How many memories of the scope (counted up to `common + 1`) each term matches in each lane.
///
/// A term the word index holds matches about the same memories in the trigram index, so its
/// word count stands for both: counting a phrase of trigrams costs several times a word count.
/// Without `substrings` (see `recall::Options`), the trigram lane searches only words the word
/// index lacks that are not plain ASCII (scripts written without spaces), and counts nothing
/// else.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    pub words: i64,
    pub trigrams: i64,
    /// Matches found by scanning the newest memories' text, for a term no index can match
    /// (`scan`).
    pub scanned: i64,
}

impl Counts {
    /// Count a term's matches within the scope, up to `common + 1`.
    pub fn of(
        store: &Store,
        within: &Within,
        term: &Term,
        substrings: bool,
        common: i64,
    ) -> Result<Counts> {
        let phrase = term.phrase();
        let words = store.count_matches(within, Lane::Words, &phrase, common + 1)?;
        let trigrams = match (term.for_trigrams(), words > 0) {
            (true, true) if substrings => words,
            (true, false) if substrings || !term.word.is_ascii() => {
                store.count_matches(within, Lane::Trigrams, &phrase, common + 1)?
            }
            _ => 0,
        };
        Ok(Counts {
            words,
            trigrams,
            scanned: 0,
        })
    }

    /// How many memories hold the term, by the first way that found any.
    pub fn df(self) -> i64 {
        [self.words, self.trigrams, self.scanned]
            .into_iter()
            .find(|&n| n > 0)
            .unwrap_or(0)
    }

    fn of_lane(self, lane: Lane) -> i64 {
        match lane {
            Lane::Words => self.words,
            Lane::Trigrams => self.trigrams,
        }
    }
}

/// How many words a memory is taken to have when English at large predicts which words it holds.
const PRIOR_WORDS: f64 = 30.0;

/// How many of the scope's `total` memories a term is taken to be in, for its weight: the `df`
/// that hold it, plus as many as ordinary English would put it in (a memory of `PRIOR_WORDS`
/// words holds it with the chance English gives), never more than all of them. In a project of
/// two hundred memories "also" held by one would otherwise weigh as much as the project's own
/// jargon; with the prior it weighs as the ordinary word it is. The prior only ever adds, so
/// words English seldom uses (names, tools, jargon) keep the scope's own counts, and a word every
/// memory of a small project holds stays common. `PRIOR_WORDS` was chosen on the dev halves of
/// every labeled set (docs/relevance.md).
pub fn smoothed_df(word: &str, df: i64, total: i64) -> f64 {
    let in_one = 1.0 - (1.0 - english::share(word)).powf(PRIOR_WORDS);
    let total = total.max(df) as f64;
    (df as f64 + total * in_one).min(total)
}

/// How many of the newest memories a scan for a word no index matches reads (`scan`).
pub const SCAN_ROWS: usize = 2000;

/// Find the terms no index can match (`Term::scanned`: a one- or two-character word of a script
/// written without spaces, which the word index holds only inside a longer run) by scanning the
/// newest `SCAN_ROWS` memories' text, newest first, and record how many each found. Bounded by
/// that constant, not by the store.
pub fn scan(store: &Store, scope: &Scope, terms: &mut [(&Term, Counts)]) -> Result<Ranked> {
    let mut found: Ranked = Vec::new();
    for (term, counts) in terms.iter_mut() {
        if term.scanned() && counts.words == 0 && counts.trigrams == 0 {
            let hits = store.containing(scope, &term.needle(), SCAN_ROWS, LANE_CAP)?;
            counts.scanned = hits.len() as i64;
            for hit in hits {
                if !found.iter().any(|&(id, _)| id == hit.0) {
                    found.push(hit);
                }
            }
        }
    }
    Ok(found)
}

/// Rank `terms` (with their `counts`) in one lane, within the scope; a term matching more than
/// `common` memories is common.
pub fn search(
    store: &Store,
    within: &Within,
    lane: Lane,
    terms: &[(&Term, Counts)],
    common: i64,
) -> Result<Ranked> {
    let terms: Vec<(&Term, i64)> = terms
        .iter()
        .map(|&(term, counts)| (term, counts.of_lane(lane)))
        .filter(|&(_, n)| n > 0)
        .collect();
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    let mut rare: Vec<(&Term, i64)> = terms
        .iter()
        .copied()
        .filter(|&(_, n)| n <= common)
        .collect();
    rare.sort_by_key(|&(_, n)| n);
    let mut matched = 0;
    let within_bound = rare
        .iter()
        .take_while(|&&(_, n)| {
            matched += n;
            matched <= common
        })
        .count();
    rare.truncate(within_bound.clamp(1, MAX_RANKED_TERMS));
    if !rare.is_empty() {
        let weighed: Vec<(String, f64)> = rare
            .iter()
            .map(|&(term, n)| (term.phrase(), smoothed_df(&term.word, n, within.docs)))
            .collect();
        let weighed: Vec<(&str, f64)> = weighed.iter().map(|(p, df)| (p.as_str(), *df)).collect();
        return store.rank(within, lane, &weighed, LANE_CAP);
    }
    // Only common terms: BM25 would score every match of each term, so rank the newest matches
    // by recency instead (reported as 0).
    let phrases: Vec<String> = terms.iter().map(|(term, _)| term.phrase()).collect();
    let all: Vec<&str> = phrases.iter().map(String::as_str).collect();
    store.newest_matches(within, lane, &all, LANE_CAP)
}

#[cfg(test)]
mod tests {
    use super::smoothed_df;

    #[test]
    fn an_ordinary_word_counts_as_more_common_than_the_scope_shows() {
        assert!(smoothed_df("really", 1, 200) > smoothed_df("reranker", 5, 200));
        assert!(smoothed_df("also", 0, 200) > 0.0);
    }

    #[test]
    fn words_english_seldom_uses_keep_the_scope_s_counts() {
        assert_eq!(smoothed_df("reranker", 5, 30), 5.0);
        assert_eq!(smoothed_df("kubectl", 0, 30), 0.0);
    }

    #[test]
    fn no_word_is_in_more_memories_than_there_are() {
        assert_eq!(smoothed_df("the", 30, 30), 30.0);
        assert_eq!(smoothed_df("the", 10, 30), 30.0);
        assert!(smoothed_df("deploy", 4, 4) >= 4.0);
    }
}
