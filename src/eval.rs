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
                store.count_matches(&within, Lane::Words, w, i64::MAX)?,
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

/// Run every case through `method` and score the answers.
pub fn run(
    store: &Store,
    cases: &[Case],
    options: &Options,
    method: Method,
    verbose: bool,
) -> Result<Report> {
    let (mut answerable, mut top1, mut found, mut survived) = (0usize, 0usize, 0usize, 0usize);
    let (mut rr, mut noise, mut surplus) = (0f64, 0usize, 0usize);
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
        if expect.is_empty() {
            noise += results.len();
        } else {
            answerable += 1;
            if let Some(rank) = rank {
                found += 1;
                rr += 1.0 / rank as f64;
                top1 += usize::from(rank == 1);
                surplus += results.len() - 1;
                let (_, _, sent) = &results[rank - 1];
                survived += usize::from(expect.iter().any(|e| sent.contains(e)));
            }
        }
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
    let share = |n: usize, of: usize| if of == 0 { 0.0 } else { n as f64 / of as f64 };
    let unanswerable = cases.len() - answerable;
    Ok(Report {
        cases: cases.len(),
        answerable,
        unanswerable,
        top1: share(top1, answerable),
        found: share(found, answerable),
        mrr: if answerable == 0 {
            0.0
        } else {
            rr / answerable as f64
        },
        survived: share(survived, answerable),
        noise: share(noise, unanswerable),
        surplus: share(surplus, found),
        misses: verbose.then_some(misses),
    })
}
