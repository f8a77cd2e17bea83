//! Full-text search within a scope: how many memories a phrase matches, the best matches by
//! BM25, the newest matches, and the neighbours drift compares.
//!
//! Every statement intersects the query with the scope's tokens in the index (`index`), so it
//! reads only what the scope holds, and every statistic a score uses (rows, average length,
//! how many rows hold each phrase) is counted within the scope (`Within`, `rank`). What other
//! projects hold changes no count, no score and no order here, and costs nothing.
//!
//! The statements write their constant limits into the SQL, so that only the question's words
//! are bound: a hook runs most statements once, and a bound limit made SQLite plan them twice.

use super::index::scope_token;
use super::rank::idf;
use super::{Memory, Scope, Store, LIVE, VISIBLE};
use anyhow::Result;

/// Which index a search reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    /// The stemmed-word index (`memory`: body, source).
    Words,
    /// The trigram index (`memorygram`: body), which matches inside words and in scripts written
    /// without spaces.
    Trigrams,
}

impl Lane {
    fn table(self) -> &'static str {
        match self {
            Lane::Words => "memory",
            Lane::Trigrams => "memorygram",
        }
    }

    /// The columns a question's words are searched in.
    fn columns(self) -> &'static str {
        match self {
            Lane::Words => "{body source}",
            Lane::Trigrams => "body",
        }
    }

    /// `synapse_bm25`'s column weights: a word in a memory's source label counts 0.3 of one in
    /// its body; the scope column counts nothing.
    fn weights(self) -> &'static str {
        match self {
            Lane::Words => "1.0, 0.3, 0.0",
            Lane::Trigrams => "1.0, 0.0",
        }
    }
}

/// The statement counting a MATCH's rows up to `cap`.
fn count_sql(lane: Lane, cap: i64) -> String {
    format!(
        "SELECT count(*) FROM (SELECT 1 FROM {t} WHERE {t} MATCH ?1 LIMIT {cap})",
        t = lane.table()
    )
}

/// The statement ranking a MATCH of `scopes` scope phrases and `terms` term phrases: bound are
/// the expression (?1), the average row length (?2) and each term's IDF (?3 on).
fn rank_sql(lane: Lane, scopes: usize, terms: usize, limit: usize) -> String {
    // The scope's phrases come first in the expression and weigh nothing.
    let zeros = ", 0.0".repeat(scopes);
    let idfs: String = (0..terms).map(|i| format!(", ?{}", i + 3)).collect();
    format!(
        "SELECT rowid, synapse_bm25({t}, ?2, {w}{zeros}{idfs}) AS score FROM {t} \
         WHERE {t} MATCH ?1 ORDER BY score, rowid LIMIT {limit}",
        t = lane.table(),
        w = lane.weights(),
    )
}

/// One lane's ranked candidates: (memory id, score; lower is better), best first.
pub type Ranked = Vec<(i64, f64)>;

/// A scope as the indexes see it: the phrases that select its rows and what it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Within {
    /// `Some("scope : (...) AND ")`, `Some("")` when the scope sees every indexed memory (one
    /// project and the global memories alone in the store: the intersection would select every
    /// row, and cost a read of the scope's whole list per search), or `None` when the scope has
    /// nothing indexed.
    filter: Option<String>,
    /// How many phrases `filter` has (one per scope token).
    phrases: usize,
    /// Live memories the scope sees.
    pub docs: i64,
    words: i64,
    grams: i64,
}

impl Within {
    /// The average memory's length in the word index, in tokens (`index::Size::words`).
    pub fn average_words(&self) -> f64 {
        self.average(Lane::Words)
    }

    /// The average row length in `lane`, in tokens.
    fn average(&self, lane: Lane) -> f64 {
        let tokens = match lane {
            Lane::Words => self.words,
            Lane::Trigrams => self.grams,
        };
        tokens as f64 / self.docs.max(1) as f64
    }

    /// The MATCH expression for `terms` (quoted phrases, any of them) within the scope.
    fn matching(&self, lane: Lane, terms: &[&str]) -> Option<String> {
        let filter = self.filter.as_ref()?;
        Some(format!(
            "{filter}{} : ({})",
            lane.columns(),
            terms.join(" OR ")
        ))
    }
}

impl Store {
    /// What `scope` holds in the indexes: its own project's memories and the global ones.
    pub fn within(&self, scope: &Scope) -> Result<Within> {
        // One row per scope with something indexed: a store holds few projects. The global
        // scope is keyed NULL; `IS` keeps the test true or false when the scope is global too.
        let mut stmt = self.conn().prepare_cached(
            "SELECT id, docs, words, grams, project IS NULL OR project IS ?1 FROM scopes \
             WHERE docs > 0",
        )?;
        let rows = stmt.query_map([scope.key()], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })?;
        let (mut tokens, mut docs, mut words, mut grams, mut others) = (Vec::new(), 0, 0, 0, 0);
        for row in rows {
            let (n, d, w, g, visible): (i64, i64, i64, i64, bool) = row?;
            if visible {
                tokens.push(format!("\"{}\"", scope_token(n)));
                (docs, words, grams) = (docs + d, words + w, grams + g);
            } else {
                others += d;
            }
        }
        let (filter, phrases) = match (tokens.len(), others) {
            (0, _) => (None, 0),
            (_, 0) => (Some(String::new()), 0),
            (n, _) => (Some(format!("scope : ({}) AND ", tokens.join(" OR "))), n),
        };
        Ok(Within {
            filter,
            phrases,
            docs,
            words,
            grams,
        })
    }

    /// How many memories of the scope `phrase` matches in `lane`, counting no further than
    /// `cap`.
    pub fn count_matches(
        &self,
        within: &Within,
        lane: Lane,
        phrase: &str,
        cap: i64,
    ) -> Result<i64> {
        let Some(fts) = within.matching(lane, &[phrase]) else {
            return Ok(0);
        };
        Ok(self
            .conn()
            .prepare_cached(&count_sql(lane, cap))?
            .query_row([fts], |r| r.get(0))?)
    }

    /// The scope's best `limit` matches in `lane` for any of `terms` (a quoted phrase and how
    /// many of the scope's memories it matches, or a caller's estimate of that), by BM25 over the
    /// scope's statistics.
    pub fn rank(
        &self,
        within: &Within,
        lane: Lane,
        terms: &[(&str, f64)],
        limit: usize,
    ) -> Result<Ranked> {
        let phrases: Vec<&str> = terms.iter().map(|(p, _)| *p).collect();
        let Some(fts) = within.matching(lane, &phrases) else {
            return Ok(Vec::new());
        };
        let sql = rank_sql(lane, within.phrases, terms.len(), limit);
        let mut params: Vec<rusqlite::types::Value> = vec![fts.into(), within.average(lane).into()];
        params.extend(terms.iter().map(|&(_, df)| idf(within.docs, df).into()));
        let mut stmt = self.conn().prepare_cached(&sql)?;
        let rows = stmt.query_map(rusqlite::params_from_iter(params), |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The scope's newest `limit` matches in `lane` for any of `terms`, newest first (score 0):
    /// the `limit` that arrived last (an index walk that stops at a fixed count, whatever the
    /// number of matches), in the order they were written (`Memory::written`).
    pub fn newest_matches(
        &self,
        within: &Within,
        lane: Lane,
        terms: &[&str],
        limit: usize,
    ) -> Result<Ranked> {
        let Some(fts) = within.matching(lane, terms) else {
            return Ok(Vec::new());
        };
        let sql = format!(
            "SELECT n.rowid, 0.0 FROM (SELECT rowid FROM {t} WHERE {t} MATCH ?1 \
             ORDER BY rowid DESC LIMIT {limit}) n JOIN memories m ON m.id = n.rowid \
             ORDER BY m.created_at DESC, m.id DESC",
            t = lane.table()
        );
        let mut stmt = self.conn().prepare_cached(&sql)?;
        let rows = stmt.query_map([fts], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Up to `limit` ids of the scope's live memories whose text contains `needle`, newest first
    /// (score 0), looking only at the newest `scan` of them and only at bodies no longer than
    /// their head (`index::HEAD_BYTES`): a bounded search for words no index can match (see
    /// `recall::terms::Term::scanned`).
    pub fn containing(
        &self,
        scope: &Scope,
        needle: &str,
        scan: usize,
        limit: usize,
    ) -> Result<Ranked> {
        let sql = format!(
            "SELECT id, 0.0 FROM (SELECT m.id, m.body FROM memories m INDEXED BY memories_recent \
             WHERE {VISIBLE} AND {LIVE} ORDER BY m.created_at DESC, m.id DESC LIMIT {scan}) \
             WHERE octet_length(body) <= {head} AND instr(body, ?2) > 0 LIMIT {limit}",
            head = super::index::HEAD_BYTES,
        );
        let mut stmt = self.conn().prepare_cached(&sql)?;
        let rows = stmt.query_map(rusqlite::params![scope.key(), needle], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Up to `limit` ids of the scope's memories holding any of `terms` in the word index,
    /// written on one side of `memory` in time (`Memory::written`): the nearest newer ones, or
    /// the nearest older ones.
    ///
    /// The word index is ordered by id, not by time, and a scan of it must stop at a fixed
    /// count. So it is scanned from `memory`'s id both ways, `limit` matches each way, and what
    /// was written on the asked side is kept: ids are the order memories arrived in, which is
    /// near their order in time, but not the same (a folder of topic files folds in the order
    /// of its entries, an import keeps its lines' times). The id only says where to look; time
    /// says which side a memory is on.
    pub fn neighbours(
        &self,
        within: &Within,
        terms: &[&str],
        memory: &Memory,
        newer: bool,
        limit: usize,
    ) -> Result<Vec<i64>> {
        let Some(fts) = within.matching(Lane::Words, terms) else {
            return Ok(Vec::new());
        };
        let scan = |above: bool| {
            let (side, order) = if above { (">", "") } else { ("<", " DESC") };
            format!(
                "SELECT n.rowid AS id, m.created_at AS at FROM (SELECT rowid FROM memory \
                 WHERE memory MATCH ?1 AND rowid {side} ?2 ORDER BY rowid{order} LIMIT {limit}) n \
                 JOIN memories m ON m.id = n.rowid"
            )
        };
        let (side, order) = if newer { (">", "") } else { ("<", " DESC") };
        let sql = format!(
            "SELECT id FROM ({} UNION ALL {}) WHERE (at, id) {side} (?3, ?2) \
             ORDER BY at{order}, id{order} LIMIT {limit}",
            scan(true),
            scan(false)
        );
        let mut stmt = self.conn().prepare_cached(&sql)?;
        let at = memory.created_at.seconds();
        let rows = stmt.query_map(rusqlite::params![fts, memory.id, at], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Up to `limit` ids of other memories `scope` sees whose whole text folds to the same as
    /// `memory`'s (its stored hash, one index lookup).
    pub fn repeats(&self, memory: &Memory, scope: &Scope, limit: usize) -> Result<Vec<i64>> {
        // 0 is what a row without a stored hash reads as (`Memory::folded`).
        if memory.folded == 0 {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT m.id FROM memories m WHERE m.folded = ?2 AND m.id != ?3 AND {VISIBLE} \
             LIMIT {limit}"
        );
        let mut stmt = self.conn().prepare_cached(&sql)?;
        let rows = stmt.query_map(
            rusqlite::params![scope.key(), memory.folded, memory.id],
            |r| r.get(0),
        )?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::write::NewMemory;
    use rusqlite::StatementStatus;

    fn store_with(bodies: &[(&str, Option<&str>)]) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        for &(body, project) in bodies {
            let memory = NewMemory {
                body: body.into(),
                project: project.map(str::to_owned),
                ..NewMemory::default()
            };
            let scope = project.map_or_else(Scope::global, Scope::project);
            store.remember(&memory, &[], &scope).unwrap();
        }
        (dir, store)
    }

    /// A hook runs each statement about once, so a second prepare of it costs as much as the
    /// first: bound limits, and new values for a MATCH, made SQLite prepare statements again
    /// (see `Store::open`).
    #[test]
    fn statements_are_prepared_once() {
        let (_dir, store) = store_with(&[
            ("webhook retries back off", Some("p")),
            ("the webhook timeout is 30 s", Some("p")),
            ("retries: 5", None),
            ("webhook retries elsewhere", Some("q")),
        ]);
        let within = store.within(&Scope::project("p")).unwrap();
        assert_eq!(within.phrases, 2, "the scope's filter is in the statements");
        for words in [["\"webhook\"", "\"retri\""], ["\"timeout\"", "\"webhook\""]] {
            let counted: Vec<(&str, f64)> = words
                .iter()
                .map(|w| {
                    let n = store.count_matches(&within, Lane::Words, w, 501).unwrap();
                    (*w, n as f64)
                })
                .collect();
            let found = store.rank(&within, Lane::Words, &counted, 50).unwrap();
            assert!(!found.is_empty(), "{words:?}");
        }
        let reprepared = |sql: String| {
            let stmt = store.conn().prepare_cached(&sql).unwrap();
            stmt.get_status(StatementStatus::RePrepare)
        };
        assert_eq!(reprepared(count_sql(Lane::Words, 501)), 0);
        assert_eq!(reprepared(rank_sql(Lane::Words, within.phrases, 2, 50)), 0);
    }

    /// Counts, scores and order within a scope are the same whatever other projects hold.
    #[test]
    fn other_projects_change_no_count_and_no_score() {
        let mine = [
            ("the deploy runs on fridays", Some("p")),
            (
                "deploy keys rotate monthly; the deploy key lives in vault",
                Some("p"),
            ),
            ("global: deploy with care", None),
        ];
        let (_a, alone) = store_with(&mine);
        let mut crowded: Vec<(&str, Option<&str>)> = vec![("deploy deploy deploy", Some("q")); 40];
        crowded.extend(mine);
        crowded.extend(vec![("a deploy elsewhere", Some("r")); 30]);
        let (_b, shared) = store_with(&crowded);
        let answer = |store: &Store| {
            let within = store.within(&Scope::project("p")).unwrap();
            let n = store
                .count_matches(&within, Lane::Words, "\"deploy\"", 501)
                .unwrap();
            let ranked = store
                .rank(&within, Lane::Words, &[("\"deploy\"", n as f64)], 50)
                .unwrap();
            let scores: Vec<f64> = ranked.iter().map(|&(_, s)| s).collect();
            (within.docs, n, scores)
        };
        let (docs, n, scores) = answer(&alone);
        assert_eq!((docs, n, scores.len()), (3, 3, 3));
        assert_eq!(answer(&shared), (docs, n, scores));
    }

    /// With no other project in the store the scope's filter would select every row: it is left
    /// out, and the answers are the same.
    #[test]
    fn a_scope_alone_searches_without_its_filter() {
        let (_dir, store) = store_with(&[("deploy on fridays", Some("p")), ("deploy", None)]);
        let within = store.within(&Scope::project("p")).unwrap();
        assert_eq!((within.filter.as_deref(), within.phrases), (Some(""), 0));
        let n = store
            .count_matches(&within, Lane::Words, "\"deploy\"", 501)
            .unwrap();
        assert_eq!(n, 2);
    }

    #[test]
    fn a_scope_with_nothing_indexed_matches_nothing() {
        let (_dir, store) = store_with(&[("deploy on fridays", Some("q"))]);
        let within = store.within(&Scope::project("p")).unwrap();
        assert_eq!(within.docs, 0);
        let n = store
            .count_matches(&within, Lane::Words, "\"deploy\"", 501)
            .unwrap();
        assert_eq!(n, 0);
    }
}
