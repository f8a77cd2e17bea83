//! The two search lanes: the stemmed-word index (`memory`) and the trigram index
//! (`memorygram`), each ranking the query on its own by bm25 within the visible scope.
//!
//! Ranking work is bounded, whatever the store size: bm25 scores every memory that holds a
//! ranked term, so terms pull candidates rarest first, and only while together they match at
//! most `common` memories (`COMMON_DF` unless `recall::Options` says less; at most
//! `MAX_RANKED_TERMS` terms). The commoner terms still count, as coverage, among the candidates
//! the rarer ones pulled. A query made only of common terms takes its newest matches, newest
//! first.

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

/// How many memories (in the whole store, counted up to `common + 1`) each term matches in each
/// lane.
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
    /// Count a term's matches, up to `common + 1`.
    pub fn of(conn: &Connection, term: &Term, substrings: bool, common: i64) -> Result<Counts> {
        let words = count_capped(conn, Lane::Words, &term.phrase(), common)?;
        let trigrams = match (term.for_trigrams(), words > 0) {
            (true, true) if substrings => words,
            (true, false) if substrings || !term.word.is_ascii() => {
                count_capped(conn, Lane::Trigrams, &term.phrase(), common)?
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

/// Rank `terms` (with their `counts`) in one lane, within `scope`; a term matching more than
/// `common` memories is common.
pub fn search(
    conn: &Connection,
    lane: Lane,
    terms: &[(&Term, Counts)],
    scope: &Scope,
    common: i64,
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
        .filter(|(_, counts)| counts.of_lane(lane) <= common)
        .collect();
    rare.sort_by_key(|(_, counts)| counts.of_lane(lane));
    let mut matched = 0;
    let within = rare
        .iter()
        .take_while(|(_, counts)| {
            matched += counts.of_lane(lane);
            matched <= common
        })
        .count();
    rare.truncate(within.clamp(1, MAX_RANKED_TERMS));
    let rare: Vec<String> = rare.iter().map(|(term, _)| term.phrase()).collect();
    if !rare.is_empty() {
        return query(conn, &ranked_sql(lane), scope, &rare.join(" OR "));
    }
    // Only common terms: FTS5's bm25 would count every match of each term to weigh it, so rank
    // the newest matches by recency instead (bm25 reported as 0).
    let all: Vec<String> = terms.iter().map(|(t, _)| t.phrase()).collect();
    query(conn, &newest_sql(lane), scope, &all.join(" OR "))
}

/// A lane's best matches by bm25, within the scope. The statements of this module write their
/// constant limits into the SQL, so that only the question's words are bound.
fn ranked_sql(lane: Lane) -> String {
    format!(
        "SELECT {t}.rowid, {bm25} FROM {t} JOIN memories m ON m.id = {t}.rowid \
         WHERE {t} MATCH ?2 AND (m.project IS NULL OR m.project = ?1) ORDER BY 2 LIMIT {LANE_CAP}",
        t = lane.table(),
        bm25 = lane.bm25()
    )
}

/// A lane's newest matches, within the scope.
fn newest_sql(lane: Lane) -> String {
    format!(
        "SELECT {t}.rowid, 0.0 FROM {t} JOIN memories m ON m.id = {t}.rowid \
         WHERE {t} MATCH ?2 AND (m.project IS NULL OR m.project = ?1) \
         ORDER BY {t}.rowid DESC LIMIT {LANE_CAP}",
        t = lane.table()
    )
}

/// A term's matches in a lane, counted no further than `common + 1`.
fn count_sql(lane: Lane, common: i64) -> String {
    format!(
        "SELECT count(*) FROM (SELECT 1 FROM {t} WHERE {t} MATCH ?1 LIMIT {})",
        common + 1,
        t = lane.table()
    )
}

fn query(conn: &Connection, sql: &str, scope: &Scope, fts: &str) -> Result<Ranked> {
    let mut stmt = conn.prepare_cached(sql)?;
    let rows = stmt.query_map(rusqlite::params![scope.key(), fts], |r| {
        Ok((r.get(0)?, r.get(1)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// How many memories `phrase` matches in `lane`, counting no further than `common + 1`.
fn count_capped(conn: &Connection, lane: Lane, phrase: &str, common: i64) -> Result<i64> {
    Ok(conn
        .prepare_cached(&count_sql(lane, common))?
        .query_row([phrase], |r| r.get(0))?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recall::terms::Terms;
    use crate::store::write::NewMemory;
    use crate::store::Store;
    use crate::text::WordStemmer;
    use rusqlite::StatementStatus;

    /// A hook runs each statement about once, so a second prepare of it costs as much as the
    /// first: bound limits, and new values for a MATCH, made SQLite prepare the word lane's
    /// statements again (see `Store::open`).
    #[test]
    fn word_lane_statements_are_prepared_once() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let scope = Scope::project("p");
        for body in [
            "webhook retries back off",
            "the webhook timeout is 30 s",
            "retries: 5",
        ] {
            let memory = NewMemory {
                body: body.into(),
                project: Some("p".into()),
                ..NewMemory::default()
            };
            store.remember(&memory, &[], &scope).unwrap();
        }
        let stemmer = WordStemmer::default();
        for question in ["webhook retries", "timeout of the webhook"] {
            let terms = Terms::parse(question, &stemmer);
            let counted: Vec<(&Term, Counts)> = terms
                .kept
                .iter()
                .map(|t| (t, Counts::of(store.conn(), t, false, COMMON_DF).unwrap()))
                .collect();
            let found = search(store.conn(), Lane::Words, &counted, &scope, COMMON_DF).unwrap();
            assert!(!found.is_empty(), "{question}");
        }
        let reprepared = |sql: String| {
            let stmt = store.conn().prepare_cached(&sql).unwrap();
            stmt.get_status(StatementStatus::RePrepare)
        };
        assert_eq!(reprepared(count_sql(Lane::Words, COMMON_DF)), 0);
        assert_eq!(reprepared(ranked_sql(Lane::Words)), 0);
    }
}
