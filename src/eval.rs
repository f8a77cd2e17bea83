//! Relevance evaluation: labeled questions run through the same recall the CLI uses.
//!
//! A case names a query, optionally a project (a folder or a key), and `expect`: text that a
//! useful memory contains (a string or a list, any one counts), or nothing for a question no
//! memory answers. The report gives the share ranked first (`top1`), the share found within the
//! budget (`found`), the mean reciprocal rank (`mrr`), the share whose expected text survived
//! abridging (`survived`) and, for unanswerable cases, the mean number of results returned
//! (`noise`): every one of those costs the user context for nothing.

use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::recall::{self, Options};
use crate::store::search::Lane;
use crate::store::{Scope, Store};

#[derive(Deserialize)]
struct CaseFile {
    #[serde(rename = "case", default)]
    cases: Vec<Case>,
}

/// One labeled question.
#[derive(Clone, Debug, Deserialize)]
pub struct Case {
    pub query: String,
    pub project: Option<String>,
    #[serde(default)]
    pub expect: Expect,
}

/// What answers a case.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(untagged)]
pub enum Expect {
    #[default]
    Nothing,
    One(String),
    Any(Vec<String>),
}

impl Expect {
    /// The texts any one of which answers the case; empty for an unanswerable case.
    pub fn texts(&self) -> Vec<&str> {
        match self {
            Expect::Nothing => Vec::new(),
            Expect::One(s) => vec![s.as_str()],
            Expect::Any(v) => v.iter().map(String::as_str).collect(),
        }
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect()
    }
}

/// A case that was not answered first (or, unanswerable, returned something).
#[derive(Clone, Debug, Serialize)]
pub struct Miss {
    pub query: String,
    pub project: Option<String>,
    pub expect: Vec<String>,
    /// Rank of the first answering result, if any was returned.
    pub rank: Option<usize>,
    /// The ids and opening text of what was returned.
    pub returned: Vec<(i64, String)>,
}

/// The scores of one evaluation run.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub cases: usize,
    pub answerable: usize,
    pub unanswerable: usize,
    pub top1: f64,
    pub found: f64,
    pub mrr: f64,
    pub survived: f64,
    pub noise: f64,
    /// Mean results returned beside the answer on answerable cases where it was found.
    pub surplus: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub misses: Option<Vec<Miss>>,
}

/// Read cases from a TOML file.
pub fn load(path: &Path) -> Result<Vec<Case>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("could not read the cases file {}", path.display()))?;
    parse(&text).with_context(|| format!("{} is not a valid cases file", path.display()))
}

/// Cases from the text of a cases file.
pub fn parse(text: &str) -> Result<Vec<Case>> {
    let file: CaseFile = toml::from_str(text)?;
    Ok(file.cases)
}

/// What answers the questions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Synapse's recall, exactly as the CLI runs it.
    Recall,
    /// A plain BM25 OR-query of every word of the question (statistics within the scope), the top N by the budget's
    /// count: the reference the relevance targets are set against.
    PlainBm25,
}

/// The bodies (and sent texts) a method returns for one question.
fn answer(
    store: &Store,
    scope: &Scope,
    query: &str,
    options: &Options,
    method: Method,
) -> Result<Vec<(i64, String, String)>> {
    if method == Method::Recall {
        let recalled = recall::recall(store, scope, query, options)?;
        return Ok(recalled
            .results
            .into_iter()
            .map(|h| (h.id, h.body, h.text))
            .collect());
    }
    let mut words: Vec<String> = Vec::new();
    for w in crate::text::words(&crate::text::fold(query)) {
        let quoted = format!("\"{w}\"");
        if !words.contains(&quoted) {
            words.push(quoted);
        }
    }
    if words.is_empty() {
        return Ok(Vec::new());
    }
    // Every statistic is exact and taken within the scope, as recall's are.
    let within = store.within(scope)?;
    let counted = words
        .iter()
        .map(|w| {
            Ok((
                w.as_str(),
                store.count_matches(&within, Lane::Words, w, i64::MAX)? as f64,
            ))
        })
        .collect::<Result<Vec<_>>>()?;
    let ranked = store.rank(&within, Lane::Words, &counted, options.max_results())?;
    let ids: Vec<i64> = ranked.iter().map(|&(id, _)| id).collect();
    Ok(store
        .live_by_ids(&ids, scope)?
        .into_iter()
        .map(|m| (m.id, m.body.clone(), m.body))
        .collect())
}

/// How one case went.
#[derive(Clone, Copy, Debug)]
pub struct Scored {
    pub answerable: bool,
    /// The 1-based rank of the first answering result.
    pub rank: Option<usize>,
    /// How many results came back.
    pub returned: usize,
    /// Whether the answering result's text, as sent, still holds the expected text.
    pub survived: bool,
}

impl Scored {
    fn reciprocal_rank(&self) -> f64 {
        self.rank.map_or(0.0, |r| 1.0 / r as f64)
    }
}

/// Run every case through `method` and score the answers.
pub fn run(
    store: &Store,
    cases: &[Case],
    options: &Options,
    method: Method,
    verbose: bool,
) -> Result<Report> {
    let (scored, misses) = score(store, cases, options, method, verbose)?;
    let mut report = Report::of(&scored);
    report.misses = verbose.then_some(misses);
    Ok(report)
}

/// Score every case, and list the misses when `verbose`.
pub fn score(
    store: &Store,
    cases: &[Case],
    options: &Options,
    method: Method,
    verbose: bool,
) -> Result<(Vec<Scored>, Vec<Miss>)> {
    let mut scored = Vec::with_capacity(cases.len());
    let mut misses = Vec::new();
    for case in cases {
        let scope = store
            .scope_named(case.project.as_deref())
            .with_context(|| format!("case {:?}: bad project", case.query))?;
        let results = answer(store, &scope, &case.query, options, method)?;
        let expect = case.expect.texts();
        let rank = results
            .iter()
            .position(|(_, body, _)| expect.iter().any(|e| body.contains(e)))
            .map(|i| i + 1);
        let survived = rank.is_some_and(|r| {
            let (_, _, sent) = &results[r - 1];
            expect.iter().any(|e| sent.contains(e))
        });
        scored.push(Scored {
            answerable: !expect.is_empty(),
            rank,
            returned: results.len(),
            survived,
        });
        let missed = if expect.is_empty() {
            !results.is_empty()
        } else {
            rank != Some(1)
        };
        if verbose && missed {
            misses.push(Miss {
                query: case.query.clone(),
                project: case.project.clone(),
                expect: expect.iter().map(|s| s.to_string()).collect(),
                rank,
                returned: results
                    .iter()
                    .map(|(id, _, sent)| (*id, crate::text::cut_chars(sent, 100).to_owned()))
                    .collect(),
            });
        }
    }
    Ok((scored, misses))
}

impl Report {
    /// The scores of a run from its cases.
    pub fn of(scored: &[Scored]) -> Report {
        let answerable: Vec<&Scored> = scored.iter().filter(|s| s.answerable).collect();
        let found: Vec<&&Scored> = answerable.iter().filter(|s| s.rank.is_some()).collect();
        let unanswerable = scored.len() - answerable.len();
        let share = |n: usize, of: usize| if of == 0 { 0.0 } else { n as f64 / of as f64 };
        let mean = |sum: f64, of: usize| if of == 0 { 0.0 } else { sum / of as f64 };
        Report {
            cases: scored.len(),
            answerable: answerable.len(),
            unanswerable,
            top1: share(
                answerable.iter().filter(|s| s.rank == Some(1)).count(),
                answerable.len(),
            ),
            found: share(found.len(), answerable.len()),
            mrr: mean(
                answerable.iter().map(|s| s.reciprocal_rank()).sum(),
                answerable.len(),
            ),
            survived: share(
                answerable.iter().filter(|s| s.survived).count(),
                answerable.len(),
            ),
            noise: share(
                scored
                    .iter()
                    .filter(|s| !s.answerable)
                    .map(|s| s.returned)
                    .sum(),
                unanswerable,
            ),
            surplus: share(found.iter().map(|s| s.returned - 1).sum(), found.len()),
            misses: None,
        }
    }
}

/// Which half of a labeled set a run scores. Tune on `dev`; report `test`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Half {
    Dev,
    Test,
}

/// The seed of the split into halves. Fixed, so a half holds the same cases on every machine
/// and in every run; changing it would hand the test half to tuning.
pub const SPLIT_SEED: u64 = 14;

/// The cases (or anything listed in their order) of one half: the list is shuffled by
/// `SPLIT_SEED` and the first half of the shuffle (rounded up) is `dev`. A split of the file as
/// written, so editing a set re-splits it.
pub fn half<T>(items: Vec<T>, half: Half) -> Vec<T> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    fastrand::Rng::with_seed(SPLIT_SEED).shuffle(&mut order);
    let dev = order.len().div_ceil(2);
    let mut chosen = vec![false; items.len()];
    let picked = match half {
        Half::Dev => &order[..dev],
        Half::Test => &order[dev..],
    };
    for &i in picked {
        chosen[i] = true;
    }
    items
        .into_iter()
        .zip(chosen)
        .filter_map(|(item, keep)| keep.then_some(item))
        .collect()
}

/// One measure of two methods on the same cases: their values, the difference (first minus
/// second) and its 95% bootstrap interval.
#[derive(Clone, Debug, Serialize)]
pub struct Paired {
    pub measure: &'static str,
    pub first: f64,
    pub second: f64,
    pub difference: f64,
    pub low: f64,
    pub high: f64,
}

/// How many resamples the bootstrap draws.
pub const RESAMPLES: usize = 2000;

/// Compare two runs over the same cases (`first[i]` and `second[i]` scored the same case): top1,
/// found and MRR over answerable cases and noise over unanswerable ones, each with a paired
/// percentile bootstrap interval (cases drawn with replacement, `RESAMPLES` times, by a fixed
/// seed so a report repeats).
pub fn compare(first: &[Scored], second: &[Scored]) -> Vec<Paired> {
    assert_eq!(first.len(), second.len(), "both runs score the same cases");
    type Measure = fn(&Scored) -> f64;
    let measures: [(&'static str, bool, Measure); 4] = [
        ("top1", true, |s| f64::from(u8::from(s.rank == Some(1)))),
        ("found", true, |s| f64::from(u8::from(s.rank.is_some()))),
        ("mrr", true, Scored::reciprocal_rank),
        ("noise", false, |s| s.returned as f64),
    ];
    let mut rng = fastrand::Rng::with_seed(SPLIT_SEED);
    let mean = |xs: &[f64]| {
        if xs.is_empty() {
            0.0
        } else {
            xs.iter().sum::<f64>() / xs.len() as f64
        }
    };
    measures
        .iter()
        .map(|&(measure, answerable, value)| {
            let (a, b): (Vec<f64>, Vec<f64>) = first
                .iter()
                .zip(second)
                .filter(|(a, _)| a.answerable == answerable)
                .map(|(a, b)| (value(a), value(b)))
                .unzip();
            let diffs: Vec<f64> = a.iter().zip(&b).map(|(a, b)| a - b).collect();
            let n = diffs.len();
            let mut means: Vec<f64> = if n == 0 {
                Vec::new()
            } else {
                (0..RESAMPLES)
                    .map(|_| (0..n).map(|_| diffs[rng.usize(..n)]).sum::<f64>() / n as f64)
                    .collect()
            };
            means.sort_by(f64::total_cmp);
            let at = |q: f64| {
                means
                    .get(((means.len() as f64 - 1.0) * q).round() as usize)
                    .copied()
                    .unwrap_or(0.0)
            };
            Paired {
                measure,
                first: mean(&a),
                second: mean(&b),
                difference: mean(&diffs),
                low: at(0.025),
                high: at(0.975),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cases(n: usize) -> Vec<Case> {
        (0..n)
            .map(|i| Case {
                query: format!("question {i}"),
                project: None,
                expect: Expect::Nothing,
            })
            .collect()
    }

    #[test]
    fn the_halves_split_every_case_once_and_repeat() {
        let queries =
            |h| -> Vec<String> { half(cases(101), h).into_iter().map(|c| c.query).collect() };
        let (dev, test) = (queries(Half::Dev), queries(Half::Test));
        assert_eq!((dev.len(), test.len()), (51, 50));
        assert!(dev.iter().all(|q| !test.contains(q)));
        assert_eq!(dev, queries(Half::Dev), "the same split every run");
        let first: Vec<String> = cases(51).into_iter().map(|c| c.query).collect();
        assert_ne!(dev, first, "shuffled, not the file's first half");
    }

    fn scored(rank: Option<usize>) -> Scored {
        Scored {
            answerable: true,
            rank,
            returned: 5,
            survived: rank.is_some(),
        }
    }

    #[test]
    fn a_paired_comparison_says_how_sure_it_is() {
        // The first method ranks every answer first; the second, second, on 40 cases.
        let first = vec![scored(Some(1)); 40];
        let second = vec![scored(Some(2)); 40];
        let mrr = compare(&first, &second)
            .into_iter()
            .find(|p| p.measure == "mrr")
            .unwrap();
        assert!((mrr.difference - 0.5).abs() < 1e-12);
        assert!((mrr.low - 0.5).abs() < 1e-12 && (mrr.high - 0.5).abs() < 1e-12);

        // Half the cases better, half worse, the same on the whole: the interval spans 0.
        let mixed: Vec<Scored> = (0..40).map(|i| scored((i % 2 == 0).then_some(1))).collect();
        let flat = vec![scored(Some(2)); 40];
        let mrr = compare(&mixed, &flat)
            .into_iter()
            .find(|p| p.measure == "mrr")
            .unwrap();
        assert!(mrr.low < 0.0 && mrr.high > 0.0, "{mrr:?}");
    }
}
