//! The two full-text indexes, kept in step with `memories` inside every write's transaction,
//! and the count of what each scope holds in them.
//!
//! Only live memories (neither superseded nor forgotten) are indexed, so search never pays for
//! hidden rows. The indexes keep no copy of the text (contentless, with deletes), and each row
//! carries its scope as a token of its own in a `scope` column, so that a search within a scope
//! is one intersection in the index however many other projects the store holds. The `scopes`
//! table counts each scope's rows and tokens: with the per-scope match counts, they are every
//! statistic recall ranks by (`search`), so nothing another project holds changes a score.
//!
//! A long body is indexed by its head, its first `HEAD_BYTES`: what search, coverage counting and
//! drift read of a memory stays bounded by a constant however long the memory is (a pasted log of
//! several MiB would otherwise make every search that matched it pay for all of it). The rest of
//! the body is stored exactly and read page by page.
//!
//! This is plain code rather than triggers on purpose: a trigger that writes a virtual table
//! makes SQLite open a statement savepoint for every insert, and FTS5 flushes its pending index
//! at each savepoint, which made a 10,000-memory import ten times slower.

use std::collections::{BTreeMap, HashMap};

use anyhow::{Context, Result};
use rusqlite::{Connection, OptionalExtension};

/// How much of a body the indexes hold: 8 KiB, about 1,200 words of prose (three pages), more
/// than nearly every note; longer ones are searched by their opening. Each search reads this
/// much of every long memory it matches, to count which words of the question it holds.
pub const HEAD_BYTES: usize = 8 << 10;

/// The indexed part of `body`: its longest prefix of at most `HEAD_BYTES` that ends on a
/// character boundary.
pub fn head(body: &str) -> &str {
    crate::text::cut_bytes(body, HEAD_BYTES)
}

/// The text of the `scope` column for scope number `n`: three characters of a private-use plane
/// that no tokenizer splits, folds or stems, so that it is one word in the word index and one
/// trigram in the trigram index, and no other scope's.
pub fn scope_token(n: i64) -> String {
    const BASE: i64 = 65_534;
    let digit =
        |d: i64| char::from_u32(0xF_0000 + (d.rem_euclid(BASE)) as u32).unwrap_or('\u{F0000}');
    [n / (BASE * BASE), n / BASE, n]
        .into_iter()
        .map(digit)
        .collect()
}

/// What a row adds to its scope's counts: one row, its tokens in the word index (body, source and
/// the scope token) and in the trigram index (the body's trigrams and the scope's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Size {
    pub words: i64,
    pub grams: i64,
}

impl Size {
    /// The size of a row indexed with `head` and `source`, counted about as the tokenizers
    /// split them (runs of letters and digits; each character's trigram).
    pub fn of(head: &str, source: &str) -> Size {
        // One pass over each text: this runs for every row an import stores.
        let count = |text: &str| {
            if text.is_ascii() {
                runs(text.bytes().map(|b| b.is_ascii_alphanumeric()))
            } else {
                runs(text.chars().map(char::is_alphanumeric))
            }
        };
        let (head_words, chars) = count(head);
        Size {
            words: head_words + count(source).0 + 1,
            grams: (chars - 2).max(0) + 1,
        }
    }
}

/// The number of runs of `true` and the number of items in `alnum`: words and characters.
fn runs(alnum: impl Iterator<Item = bool>) -> (i64, i64) {
    let (words, chars, _) = alnum.fold((0, 0, false), |(words, chars, before), here| {
        (words + i64::from(here && !before), chars + 1, here)
    });
    (words, chars)
}

/// The statements that find a scope by its project, bound as a memory's (`None`: the global
/// memories, keyed NULL in `scopes` as in `memories`). `IS` matches NULL too, and is one search of
/// the unique index on `project` either way.
const SCOPE_NUMBER: &str = "SELECT id FROM scopes WHERE project IS ?1";
const SCOPE_DOCS: &str = "SELECT docs FROM scopes WHERE project IS ?1";

/// The number of the scope of `project` (`None`: global memories), made on first use.
fn scope_number(conn: &Connection, project: Option<&str>) -> Result<i64> {
    if let Some(n) = conn
        .prepare_cached(SCOPE_NUMBER)?
        .query_row([project], |r| r.get(0))
        .optional()?
    {
        return Ok(n);
    }
    conn.prepare_cached("INSERT INTO scopes(project) VALUES (?1)")?
        .execute([project])
        .with_context(|| match project {
            Some(p) => format!("could not add the scope of project {p:?}"),
            None => "could not add the global scope".to_owned(),
        })?;
    Ok(conn.last_insert_rowid())
}

/// How many live memories the scope of `project` holds, as `scopes` counts them: a
/// transaction's own rows count once its `Tally` is written.
pub(crate) fn live_count(conn: &Connection, project: Option<&str>) -> Result<i64> {
    Ok(conn
        .prepare_cached(SCOPE_DOCS)?
        .query_row([project], |r| r.get(0))
        .optional()?
        .unwrap_or(0))
}

/// A value for each scope met, keyed by project (`None`: global memories) without allocating a
/// key for a scope already met: the tallies of a write look one up for every row.
pub(crate) struct ByScope<T> {
    global: Option<T>,
    projects: HashMap<String, T>,
}

impl<T> Default for ByScope<T> {
    fn default() -> Self {
        ByScope {
            global: None,
            projects: HashMap::new(),
        }
    }
}

impl<T> ByScope<T> {
    /// The value of `project`'s scope, made by `make` the first time the scope is met.
    pub(crate) fn get_or_make(
        &mut self,
        project: Option<&str>,
        make: impl FnOnce() -> Result<T>,
    ) -> Result<&mut T> {
        let Some(key) = project else {
            return match &mut self.global {
                Some(value) => Ok(value),
                none => Ok(none.insert(make()?)),
            };
        };
        if !self.projects.contains_key(key) {
            let value = make()?;
            self.projects.insert(key.to_owned(), value);
        }
        Ok(self
            .projects
            .get_mut(key)
            .expect("the value was inserted above"))
    }
}

/// What one write transaction changes in the `scopes` counts, written once at its end by
/// `Tally::write`: an import of many rows then looks each scope up and updates its counts once,
/// not once a row (two statements a row were 7% of an import's instructions).
#[derive(Default)]
pub(crate) struct Tally {
    /// Scope numbers by project.
    numbers: ByScope<i64>,
    changes: BTreeMap<i64, (i64, Size)>,
}

impl Tally {
    /// The number of `project`'s scope, looked up once a transaction.
    fn number(&mut self, conn: &Connection, project: Option<&str>) -> Result<i64> {
        Ok(*self
            .numbers
            .get_or_make(project, || scope_number(conn, project))?)
    }

    /// Count `rows` more rows of `size` in scope `n` (both negative for rows taken out).
    fn add(&mut self, n: i64, rows: i64, size: Size) {
        let (r, s) = self.changes.entry(n).or_default();
        *r += rows;
        s.words += size.words;
        s.grams += size.grams;
    }

    /// Add what was counted to `scopes`. Every write transaction that adds or removes index rows
    /// calls it before it commits; one that fails rolls back, counts and rows alike.
    pub(crate) fn write(&mut self, conn: &Connection) -> Result<()> {
        let mut update = conn.prepare_cached(
            "UPDATE scopes SET docs = docs + ?2, words = words + ?3, grams = grams + ?4 \
             WHERE id = ?1",
        )?;
        for (n, (rows, size)) in std::mem::take(&mut self.changes) {
            update.execute(rusqlite::params![n, rows, size.words, size.grams])?;
        }
        Ok(())
    }
}

/// What the indexes hold of a memory: its text and source, under its project's scope.
pub(crate) struct Indexed<'a> {
    pub id: i64,
    pub body: &'a str,
    pub source: &'a str,
    pub project: Option<&'a str>,
}

/// Add a live memory to both indexes.
pub(crate) fn add(conn: &Connection, tally: &mut Tally, entry: &Indexed) -> Result<()> {
    let (id, body, source) = (entry.id, head(entry.body), entry.source);
    let n = tally.number(conn, entry.project)?;
    let token = scope_token(n);
    conn.prepare_cached("INSERT INTO memory(rowid, body, source, scope) VALUES (?1, ?2, ?3, ?4)")?
        .execute(rusqlite::params![id, body, source, token])?;
    conn.prepare_cached("INSERT INTO memorygram(rowid, body, scope) VALUES (?1, ?2, ?3)")?
        .execute(rusqlite::params![id, body, token])?;
    tally.add(n, 1, Size::of(body, source));
    Ok(())
}

/// Take a live memory out of both indexes.
pub(crate) fn remove(conn: &Connection, tally: &mut Tally, entry: &Indexed) -> Result<()> {
    let n = tally.number(conn, entry.project)?;
    conn.prepare_cached("DELETE FROM memory WHERE rowid = ?1")?
        .execute([entry.id])?;
    conn.prepare_cached("DELETE FROM memorygram WHERE rowid = ?1")?
        .execute([entry.id])?;
    let size = Size::of(head(entry.body), entry.source);
    tally.add(
        n,
        -1,
        Size {
            words: -size.words,
            grams: -size.grams,
        },
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_s_value_is_made_once_and_global_is_no_project() {
        let mut made = 0;
        let mut values = ByScope::default();
        for project in [None, Some("p"), None, Some("p"), Some("q")] {
            *values
                .get_or_make(project, || {
                    made += 1;
                    Ok(0)
                })
                .unwrap() += 1;
        }
        assert_eq!(made, 3);
        assert_eq!(*values.get_or_make(None, || Ok(99)).unwrap(), 2);
        assert_eq!(*values.get_or_make(Some("p"), || Ok(99)).unwrap(), 2);
        assert!(values
            .get_or_make(Some("r"), || anyhow::bail!("no such scope"))
            .is_err());
    }

    #[test]
    fn the_head_ends_on_a_character_boundary() {
        let body = format!("{}é and more", "x".repeat(HEAD_BYTES - 1));
        assert_eq!(head(&body).len(), HEAD_BYTES - 1);
        assert_eq!(head("short"), "short");
        assert_eq!(head(""), "");
    }

    #[rstest::rstest]
    #[case::empty("", "")]
    #[case::prose("Retry the webhook 3 times, then give up.", "cli")]
    #[case::punctuation_runs("--a--b-- ..c", "")]
    #[case::accents_and_cjk("café déjà vu 连接池 の 大きさ", "stop hook")]
    #[case::two_characters("ab", "")]
    fn a_size_counts_words_and_trigrams_as_the_tokenizers_split(
        #[case] head: &str,
        #[case] source: &str,
    ) {
        let words = |t: &str| {
            t.split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .count() as i64
        };
        let chars = head.chars().count() as i64;
        let expected = Size {
            words: words(head) + words(source) + 1,
            grams: (chars - 2).max(0) + 1,
        };
        assert_eq!(Size::of(head, source), expected);
    }

    /// The hooks look a scope up on every prompt: each lookup, the global scope's too, is one
    /// search of an index, never a scan of `scopes`.
    #[test]
    fn a_scope_is_found_through_an_index() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::Store::open(dir.path()).unwrap();
        for sql in [SCOPE_NUMBER, SCOPE_DOCS] {
            for project in [None, Some("p")] {
                let plan: Vec<String> = store
                    .conn()
                    .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
                    .unwrap()
                    .query_map([project], |r| r.get(3))
                    .unwrap()
                    .collect::<rusqlite::Result<_>>()
                    .unwrap();
                let searched = plan.len() == 1
                    && plan[0].starts_with("SEARCH scopes USING")
                    && plan[0].contains("INDEX");
                assert!(searched, "{sql} for {project:?}: {plan:?}");
            }
        }
    }

    /// A transaction finds the global scope a store already has, by the spelling `scopes` keys it
    /// with (NULL), and counts its rows there rather than in a second global row.
    #[test]
    fn writes_count_global_memories_in_the_one_global_scope() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = crate::store::Store::open(dir.path()).unwrap();
        let global = crate::store::Scope::global();
        for body in ["use pnpm", "tabs, not spaces"] {
            let memory = crate::store::write::NewMemory {
                body: body.into(),
                ..Default::default()
            };
            store.remember(&memory, &[], &global).unwrap();
        }
        let rows: Vec<(Option<String>, i64)> = store
            .conn()
            .prepare("SELECT project, docs FROM scopes")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(rows, [(None, 2)]);
        assert_eq!(live_count(store.conn(), None).unwrap(), 2);
    }
}
