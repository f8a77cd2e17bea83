//! Recall: from a question to the few memories worth handing over.
//!
//! The steps, each in its own module: `terms` splits the question; `lanes` ranks it in the
//! stemmed-word and trigram indexes; `fuse` merges them with a coverage ranking by reciprocal rank
//! and applies the evidence floor (and, for the hooks, the coverage floor), with each candidate's
//! evidence weighed at its length (`length`: a long text holds many words by chance); `pack`
//! fits the survivors into the budget. A query with no terms (empty, or only function words)
//! answers with the newest visible memories.

pub mod fuse;
pub mod lanes;
pub mod length;
pub mod pack;
pub mod terms;
pub mod unasked;

use std::collections::HashSet;

use anyhow::Result;
use serde::Serialize;

use crate::config::{Budget, Ignore};
use crate::drift::Finding;
use crate::store::{Memory, Scope, Store};
use crate::text::WordStemmer;
use fuse::LanePlace;
use lanes::{Counts, Lane};
use pack::{Cut, Item, Limits, Packed};
use terms::Terms;

/// How much recall may return.
#[derive(Clone, Debug)]
pub struct Options {
    pub budget: Budget,
    /// Caps the count below the budget's.
    pub limit: Option<usize>,
    /// Results beyond that count, for a caller that drops some before showing the rest (the
    /// hooks leave drift out, so a chain of updates does not use up the places).
    pub spare: usize,
    /// Keep every candidate's story in `Recalled::explain`.
    pub explain: bool,
    /// Apply the evidence floor (off only to measure what the floor does).
    pub floor: bool,
    /// Apply the coverage floor too (`fuse::Coverage`): for the hooks, which inject memories
    /// nobody asked for, so a memory sharing one common word with the task stays out even at the
    /// price of an answer now and then.
    pub unasked: bool,
    /// Check what is returned for drift (off where only the ranking matters, as in eval).
    pub drift: bool,
    /// The paths that check never calls stale: the caller's settings (`[drift] ignore`).
    pub ignore: Ignore,
    /// Search the trigram index for every term, which finds words inside identifiers
    /// (`webhook` in `StripeWebhookHandler`). Off in the hooks, whose few milliseconds cannot
    /// pay for trigram phrases: they search it only for words the word index lacks in scripts
    /// written without spaces.
    pub substrings: bool,
    /// A term matching more memories than this is common: it counts toward coverage but pulls
    /// no candidates, and the terms that do pull them match no more together (`lanes`). Lower
    /// ranks fewer memories, faster; the hooks use less than the default `lanes::COMMON_DF`.
    pub common: i64,
}

impl Options {
    /// The most results to return: the budget's count, lowered by `limit`, plus `spare`.
    pub fn max_results(&self) -> usize {
        let budget = self.budget.max_results();
        self.limit.map_or(budget, |l| l.min(budget)) + self.spare
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            budget: Budget::default(),
            limit: None,
            spare: 0,
            explain: false,
            floor: true,
            unasked: false,
            drift: true,
            ignore: Ignore::default(),
            substrings: true,
            common: lanes::COMMON_DF,
        }
    }
}

/// One returned memory.
#[derive(Clone, Debug, Serialize)]
pub struct Hit {
    pub id: i64,
    pub project: Option<String>,
    pub source: String,
    pub created_at: crate::store::Stamp,
    /// The memory's text as sent: whole, or abridged.
    pub text: String,
    pub abridged: bool,
    /// The stored body's size in bytes (what `read` pages through).
    pub bytes: usize,
    /// Fused score (0 for a recency answer).
    pub score: f64,
    /// How many distinct query terms it holds.
    pub coverage: usize,
    /// Those terms counted at the memory's length (`length`): each as much as holding it says
    /// in a memory that long, so `coverage` itself for a memory no longer than the scope's
    /// average, less for a longer one. Not sent.
    #[serde(skip)]
    pub coverage_at_length: f64,
    /// The stored body, or its head for a memory longer than that (`Memory::body`), for callers
    /// that check answers (eval) or paths (the hooks); not sent.
    #[serde(skip)]
    pub body: String,
    /// What a hook's block says of it beside its id (drift's "older; #15, ... may replace it"),
    /// set by `unasked::offer`; not sent.
    #[serde(skip)]
    pub mark: Option<String>,
}

impl Hit {
    /// A memory handed over whole (or as far as it was read), found by something other than
    /// search: the rules a changed file's path selects, the newer side of a conflict drift found.
    pub fn of_memory(memory: crate::store::Memory) -> Hit {
        Hit {
            id: memory.id,
            abridged: !memory.is_whole(),
            text: memory.body.clone(),
            project: memory.project,
            source: memory.source,
            created_at: memory.created_at,
            bytes: memory.bytes,
            score: 0.0,
            coverage: 0,
            coverage_at_length: 0.0,
            body: memory.body,
            mark: None,
        }
    }
}

/// Why one candidate was returned or cut (`--explain`).
#[derive(Clone, Debug, Serialize)]
pub struct Explained {
    pub id: i64,
    pub words: Option<LanePlace>,
    pub trigrams: Option<LanePlace>,
    pub fused: f64,
    pub held: Vec<String>,
    pub coverage: usize,
    pub outcome: String,
}

/// What recall found.
#[derive(Clone, Debug, Serialize)]
pub struct Recalled {
    pub query: String,
    /// False when the question held no word to search for (nothing at all, punctuation, an
    /// emoji, only words too common to search): the results are then the newest memories.
    pub searched: bool,
    pub terms: Terms,
    pub results: Vec<Hit>,
    /// Drift findings on the results: stale ones, and pairs they form with other memories (a
    /// newer contradicting memory that did not match is quoted).
    pub drift: Vec<Finding>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain: Option<Vec<Explained>>,
    /// How many memories of the scope hold each of `terms.kept`, as recall counted them (empty
    /// for an answer of the newest memories).
    #[serde(skip)]
    pub df: Vec<i64>,
}

/// A candidate on its way through recall.
struct Candidate {
    memory: Memory,
    words: Option<LanePlace>,
    trigrams: Option<LanePlace>,
    fused: f64,
    held: Vec<usize>,
    /// The held terms counted at its length (`Hit::coverage_at_length`).
    counted: f64,
    /// Whether it clears the evidence floor (`fuse::Floor`).
    passes: bool,
}

impl Candidate {
    /// Whether a lane ranks it first: the floor keeps each lane's best match.
    fn first_in_a_lane(&self) -> bool {
        [self.words, self.trigrams]
            .iter()
            .any(|place| place.is_some_and(|p| p.rank == 1))
    }
}

/// Recall `query` within `scope`, reading the store in one transaction.
pub fn recall(store: &Store, scope: &Scope, query: &str, options: &Options) -> Result<Recalled> {
    let nothing = HashSet::new();
    store.read(|| recall_in(store, scope, query, options, &nothing))
}

/// `recall` as if the memories `except` were not stored: the hooks leave out the pieces of the
/// files Claude Code loads itself before ranking, so they neither take places nor set the
/// coverage the others are held to.
pub fn recall_except(
    store: &Store,
    scope: &Scope,
    query: &str,
    options: &Options,
    except: &HashSet<i64>,
) -> Result<Recalled> {
    store.read(|| recall_in(store, scope, query, options, except))
}

fn recall_in(
    store: &Store,
    scope: &Scope,
    query: &str,
    options: &Options,
    except: &HashSet<i64>,
) -> Result<Recalled> {
    let stemmer = WordStemmer::default();
    let terms = Terms::parse(query, &stemmer);
    let max_results = options.max_results();
    let (candidates, df) = if terms.is_empty() {
        let recent = store
            .recent(scope, max_results)?
            .into_iter()
            .map(|memory| Candidate {
                memory,
                words: None,
                trigrams: None,
                fused: 0.0,
                held: Vec::new(),
                counted: 0.0,
                passes: true,
            })
            .collect();
        (recent, Vec::new())
    } else {
        candidates(store, scope, &terms, &stemmer, options, except)?
    };

    let items: Vec<Item> = candidates
        .iter()
        .enumerate()
        .map(|(rank, c)| Item {
            id: c.memory.id,
            body: &c.memory.body,
            whole: c.memory.is_whole(),
            bytes: c.memory.bytes,
            cut: (options.floor && rank > 0 && !c.first_in_a_lane() && !c.passes)
                .then_some(Cut::Floor),
        })
        .collect();
    let limits = Limits {
        max_results,
        max_chars: options.budget.max_chars(),
    };
    let packed = pack::pack(&items, &terms.kept, &limits, &stemmer);

    let mut results = Vec::new();
    let mut explain = options.explain.then(Vec::new);
    for (c, decision) in candidates.iter().zip(&packed) {
        let (text, abridged) = match decision {
            Packed::Whole => (Some(c.memory.body.clone()), false),
            Packed::Abridged(text) => (Some(text.clone()), true),
            Packed::Cut(_) => (None, false),
        };
        if let Some(explain) = explain.as_mut() {
            explain.push(Explained {
                id: c.memory.id,
                words: c.words,
                trigrams: c.trigrams,
                fused: c.fused,
                held: c.held.iter().map(|&i| terms.kept[i].word.clone()).collect(),
                coverage: c.held.len(),
                outcome: match decision {
                    Packed::Whole => "returned".into(),
                    Packed::Abridged(_) => "returned abridged".into(),
                    Packed::Cut(cut) => cut.describe(),
                },
            });
        }
        if let Some(text) = text {
            results.push(Hit {
                id: c.memory.id,
                project: c.memory.project.clone(),
                source: c.memory.source.clone(),
                created_at: c.memory.created_at,
                text,
                abridged,
                bytes: c.memory.bytes,
                score: c.fused,
                coverage: c.held.len(),
                coverage_at_length: c.counted,
                body: c.memory.body.clone(),
                mark: None,
            });
        }
    }
    let drift = if options.drift {
        let returned: Vec<Memory> = candidates
            .into_iter()
            .zip(&packed)
            .filter(|(_, decision)| !matches!(decision, Packed::Cut(_)))
            .map(|(c, _)| c.memory)
            .collect();
        crate::drift::check(
            store,
            scope,
            &returned,
            crate::drift::Partners::Newer,
            &options.ignore,
        )?
    } else {
        Vec::new()
    };
    Ok(Recalled {
        query: query.to_owned(),
        searched: !terms.is_empty(),
        terms,
        results,
        drift,
        explain,
        df,
    })
}

/// Search both lanes, count each candidate's coverage, fuse the rankings, and mark what clears
/// the floors; the candidates, and how many memories hold each term.
fn candidates(
    store: &Store,
    scope: &Scope,
    terms: &Terms,
    stemmer: &WordStemmer,
    options: &Options,
    except: &HashSet<i64>,
) -> Result<(Vec<Candidate>, Vec<i64>)> {
    let common = options.common;
    let within = store.within(scope)?;
    let mut counted = terms
        .kept
        .iter()
        .map(|t| {
            Ok((
                t,
                Counts::of(store, &within, t, options.substrings, common)?,
            ))
        })
        .collect::<Result<Vec<_>>>()?;
    let words = lanes::search(store, &within, Lane::Words, &counted, common)?;
    let mut grams = lanes::search(store, &within, Lane::Trigrams, &counted, common)?;
    // Words no index matches join the trigram lane, after what it ranked.
    for hit in lanes::scan(store, scope, &mut counted)? {
        if grams.len() < lanes::LANE_CAP && !grams.iter().any(|&(id, _)| id == hit.0) {
            grams.push(hit);
        }
    }
    let mut fused = fuse::rrf(&words, &grams);
    fused.retain(|f| !except.contains(&f.id));
    let ids: Vec<i64> = fused.iter().map(|f| f.id).collect();
    let mut memories: foldhash::HashMap<i64, Memory> = store
        .live_by_ids(&ids, scope)?
        .into_iter()
        .map(|m| (m.id, m))
        .collect();
    let mut matcher = fuse::Matcher::new(&terms.kept);
    let mut candidates: Vec<Candidate> = fused
        .into_iter()
        .filter_map(|f| {
            let memory = memories.remove(&f.id)?;
            let text = format!("{}\n{}", memory.body, memory.source);
            Some(Candidate {
                held: matcher.held(&text, stemmer),
                counted: 0.0,
                passes: true,
                memory,
                words: f.words,
                trigrams: f.trigrams,
                fused: f.score,
            })
        })
        .collect();

    let total = within.docs;
    let df: Vec<i64> = counted.iter().map(|(_, c)| c.df()).collect();
    let smoothed: Vec<f64> = counted
        .iter()
        .zip(&df)
        .map(|((t, _), &n)| lanes::smoothed_df(&t.word, n, total))
        .collect();
    let weights: Vec<f64> = smoothed.iter().map(|&d| fuse::weight(d, total)).collect();
    // Each candidate's held terms weighed at its length (`length`), and what that keeps of
    // their weight at the average length: 1 for a memory no longer than the average.
    let average = within.average_words();
    let mut covered = Vec::with_capacity(candidates.len());
    let mut kept = Vec::with_capacity(candidates.len());
    for c in &mut candidates {
        let length = length::Length::of(&c.memory.body, &c.memory.source, average);
        let at_length: Vec<f64> = c
            .held
            .iter()
            .map(|&i| length.weight(smoothed[i], total))
            .collect();
        let whole: f64 = c.held.iter().map(|&i| weights[i]).sum();
        let fair: f64 = at_length.iter().sum();
        c.counted = c
            .held
            .iter()
            .zip(&at_length)
            .map(|(&i, w)| w / weights[i])
            .sum();
        covered.push(fair);
        kept.push(if whole > 0.0 { fair / whole } else { 1.0 });
    }
    let mut places: Vec<Option<LanePlace>> = candidates.iter().map(|c| c.words).collect();
    if fuse::reweigh_words(&mut places, &kept) {
        for (c, place) in candidates.iter_mut().zip(places) {
            // Some candidate has a word-lane place, so the trigram lane cast no vote (`rrf`).
            c.words = place;
            c.fused = place.map_or(0.0, |p| 1.0 / (fuse::RRF_K + p.rank as f64));
        }
    }
    let mut scores: Vec<f64> = candidates.iter().map(|c| c.fused).collect();
    fuse::add_coverage_rank(&mut scores, &covered);
    let words: Vec<f64> = candidates
        .iter()
        .map(|c| c.words.map_or(0.0, |p| p.bm25))
        .collect();
    let floor = fuse::Floor::new(&covered, &words);
    let coverage = options.unasked.then(|| {
        let held: Vec<&[usize]> = candidates.iter().map(|c| c.held.as_slice()).collect();
        let counted: Vec<f64> = candidates.iter().map(|c| c.counted).collect();
        fuse::Coverage::new(&df, &held, &counted)
    });
    for ((c, score), (covered, words)) in candidates
        .iter_mut()
        .zip(scores)
        .zip(covered.iter().zip(&words))
    {
        c.fused = score;
        let over_coverage = coverage
            .as_ref()
            .is_none_or(|f| f.passes(&c.held, c.counted));
        c.passes = floor.passes(*covered, *words) && over_coverage;
    }
    // Ties go to the memory written later (`Memory::written`).
    candidates.sort_by(|a, b| {
        b.fused
            .total_cmp(&a.fused)
            .then(b.memory.written().cmp(&a.memory.written()))
    });
    Ok((candidates, df))
}

/// The line that opens a recall's answer, in the hooks' `/synapse:recall` and the MCP `recall`
/// tool: what the results are (notes from earlier sessions, advisory, possibly outdated), for the
/// question asked (cut to 300 characters).
pub fn header(query: &str) -> String {
    let asked = crate::text::cut_chars(query, 300);
    let ellipsis = if asked.len() < query.len() { "…" } else { "" };
    format!(
        "Synapse memories for \"{asked}{ellipsis}\", best first. They are notes from earlier \
         sessions: advisory, possibly outdated; check one against the code before relying on it."
    )
}
