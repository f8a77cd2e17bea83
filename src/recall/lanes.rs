//! The two search lanes: the stemmed-word index (`memory`) and the trigram index
//! (`memorygram`), each ranking the query on its own by bm25 within the visible scope.
//!
//! Ranking work is bounded, whatever the store size: bm25 scores every memory that holds a
//! ranked term, so terms pull candidates rarest first, and only while together they match at
//! most `COMMON_DF` memories (and at most `MAX_RANKED_TERMS` of them). The commoner terms still
//! count, as coverage, among the candidates the rarer ones pulled. A query made only of common
//! terms takes its newest matches, newest first.

use anyhow::Result;
use rusqlite::Connection;

use super::terms::Term;
use crate::store::Scope;

/// A term matching more memories than this is common; the ranked terms of a lane together
/// match no more than this.
pub const COMMON_DF: i64 = 500;
/// At most this many of a query's rarest terms pull candidates in a lane.
pub const MAX_RANKED_TERMS: usize = 8;
/// How many candidates each lane hands to fusion.
pub const LANE_CAP: usize = 50;

/// Which index a lane searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    Words,
    Trigrams,
}

impl Lane {
    fn table(self) -> &'static str {
        match self {
            Lane::Words => "memory",
            Lane::Trigrams => "memorygram",
        }
    }

    fn bm25(self) -> &'static str {
        match self {
            Lane::Words => "bm25(memory, 1.0, 0.3)",
            Lane::Trigrams => "bm25(memorygram)",
        }
    }
}

/// How many memories (in the whole store, counted up to `COMMON_DF + 1`) each term matches in
/// each lane.
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
}

impl Counts {
    /// Count a term's matches.
    pub fn of(conn: &Connection, term: &Term, substrings: bool) -> Result<Counts> {
        let words = count_capped(conn, Lane::Words, &term.phrase())?;
        let trigrams = match (term.for_trigrams(), words > 0) {
            (true, true) if substrings => words,
            (true, false) if substrings || !term.word.is_ascii() => {
                count_capped(conn, Lane::Trigrams, &term.phrase())?
            }
            _ => 0,
        };
        Ok(Counts { words, trigrams })
    }

    fn of_lane(self, lane: Lane) -> i64 {
        match lane {
            Lane::Words => self.words,
            Lane::Trigrams => self.trigrams,
        }
    }
}

/// One lane's ranked candidates: (memory id, bm25 score; lower is better), best first.
pub type Ranked = Vec<(i64, f64)>;

/// Rank `terms` (with their `counts`) in one lane, within `scope`.
pub fn search(
    conn: &Connection,
    lane: Lane,
    terms: &[(&Term, Counts)],
    scope: &Scope,
) -> Result<Ranked> {
    let terms: Vec<(&Term, Counts)> = terms
        .iter()
        .copied()
        .filter(|(_, counts)| counts.of_lane(lane) > 0)
        .collect();
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    let mut rare: Vec<&(&Term, Counts)> = terms
        .iter()
        .filter(|(_, counts)| counts.of_lane(lane) <= COMMON_DF)
        .collect();
    rare.sort_by_key(|(_, counts)| counts.of_lane(lane));
    let mut matched = 0;
    let within = rare
        .iter()
        .take_while(|(_, counts)| {
            matched += counts.of_lane(lane);
            matched <= COMMON_DF
        })
        .count();
    rare.truncate(within.clamp(1, MAX_RANKED_TERMS));
    let rare: Vec<String> = rare.iter().map(|(term, _)| term.phrase()).collect();
    if !rare.is_empty() {
        let sql = format!(
            "SELECT {t}.rowid, {bm25} FROM {t} JOIN memories m ON m.id = {t}.rowid \
             WHERE {t} MATCH ?2 AND (m.project IS NULL OR m.project = ?1) ORDER BY 2 LIMIT ?3",
            t = lane.table(),
            bm25 = lane.bm25()
        );
        return query(conn, &sql, scope, &rare.join(" OR "), LANE_CAP as i64);
    }
    // Only common terms: FTS5's bm25 would count every match of each term to weigh it, so rank
    // the newest matches by recency instead (bm25 reported as 0).
    let all: Vec<String> = terms.iter().map(|(t, _)| t.phrase()).collect();
    let sql = format!(
        "SELECT {t}.rowid, 0.0 FROM {t} JOIN memories m ON m.id = {t}.rowid \
         WHERE {t} MATCH ?2 AND (m.project IS NULL OR m.project = ?1) \
         ORDER BY {t}.rowid DESC LIMIT ?3",
        t = lane.table()
    );
    query(conn, &sql, scope, &all.join(" OR "), LANE_CAP as i64)
}

fn query(conn: &Connection, sql: &str, scope: &Scope, fts: &str, limit: i64) -> Result<Ranked> {
    let mut stmt = conn.prepare_cached(sql)?;
    let rows = stmt.query_map(rusqlite::params![scope.key(), fts, limit], |r| {
        Ok((r.get(0)?, r.get(1)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// How many memories `phrase` matches in `lane`, counting no further than `COMMON_DF + 1`.
fn count_capped(conn: &Connection, lane: Lane, phrase: &str) -> Result<i64> {
    let sql = format!(
        "SELECT count(*) FROM (SELECT 1 FROM {t} WHERE {t} MATCH ?1 LIMIT ?2)",
        t = lane.table()
    );
    Ok(conn
        .prepare_cached(&sql)?
        .query_row(rusqlite::params![phrase, COMMON_DF + 1], |r| r.get(0))?)
}
