//! Import and export as JSON Lines, one memory a line.
//!
//! A line: `{"body": str, "project": str|null, "source": str?, "created_at": RFC3339?}`; export
//! adds `id`, `updated_at`, `superseded_by` and `forgotten_at`, and import understands them, so
//! export then import is lossless. Import checks every line before it stores anything: a file
//! with one bad line stores nothing and the error names the line.
//!
//! Every import is a batch: the memories it stores carry its number in their `import` history
//! rows, and `Store::undo_import` forgets the ones of a batch still live, so a mistaken import
//! is one command to take back and each memory stays restorable.

use std::collections::{HashMap, HashSet};
use std::io::Write;

use anyhow::{bail, Context, Result};
use rusqlite::{Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::history::{self, Action};
use super::index::{self, ByScope, Tally};
use super::write::{
    check_body, forget_in, set_state, store_hidden, store_new, store_new_unless, NewMemory,
};
use super::{Memory, Scope, Store, MEMORY_COLUMNS, VISIBLE};
use crate::secrets::Secrets;

/// One line as read. `project` absent means "the importing scope's project"; `null` is global.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    body: String,
    #[serde(default, deserialize_with = "present")]
    project: Option<Option<String>>,
    #[serde(default)]
    source: Option<String>,
    #[serde(default)]
    created_at: Option<String>,
    #[serde(default)]
    id: Option<i64>,
    #[serde(default)]
    updated_at: Option<String>,
    #[serde(default)]
    superseded_by: Option<i64>,
    #[serde(default)]
    forgotten_at: Option<String>,
}

/// Tells a field given as `null` (`Some(None)`) from one left out (`None`, by `default`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

/// A line checked and ready to store.
struct Checked {
    memory: NewMemory,
    file_id: Option<i64>,
    superseded_by: Option<i64>,
    forgotten_at: Option<i64>,
    updated_at: Option<i64>,
}

/// What an import did.
#[derive(Debug, Default, Serialize)]
pub struct ImportReport {
    /// Memories stored.
    pub stored: usize,
    /// Lines skipped because the same body was already live in the same scope.
    pub duplicates: usize,
    /// The first and last new ids (ids are given in increasing order).
    pub first_id: Option<i64>,
    pub last_id: Option<i64>,
    /// Secrets masked, over all lines.
    pub masked: usize,
    /// The batch of the memories stored, for `Store::undo_import`; `None` when nothing was stored.
    pub batch: Option<i64>,
}

/// Turn an RFC 3339 timestamp into seconds since the epoch.
pub(crate) fn parse_time(conn: &Connection, text: &str) -> Result<i64> {
    let shaped = text.len() >= 19
        && text.is_char_boundary(10)
        && text.as_bytes()[4] == b'-'
        && text.as_bytes()[7] == b'-'
        && matches!(text.as_bytes()[10], b'T' | b't' | b' ')
        && text.as_bytes()[13] == b':';
    let seconds: Option<i64> = if shaped {
        conn.prepare_cached("SELECT unixepoch(?1)")?
            .query_row([text], |r| r.get(0))?
    } else {
        None
    };
    seconds.with_context(|| format!("{text:?} is not an RFC 3339 time (like 2026-03-14T10:22:00Z)"))
}

fn check_line(conn: &Connection, text: &str, default_project: Option<&str>) -> Result<Checked> {
    let line: Line = serde_json::from_str(text)?;
    super::write::check_body(&line.body)?;
    let project = match line.project {
        None => default_project.map(str::to_owned),
        Some(None) => None,
        Some(Some(p)) if !p.trim().is_empty() => Some(p),
        Some(Some(_)) => bail!("project must be a non-empty string or null"),
    };
    let time = |t: &Option<String>| t.as_deref().map(|t| parse_time(conn, t)).transpose();
    Ok(Checked {
        memory: NewMemory {
            body: line.body,
            source: line.source.unwrap_or_default(),
            project,
            created_at: time(&line.created_at)?,
            secrets: Secrets::Mask,
        },
        file_id: line.id,
        superseded_by: line.superseded_by,
        forgotten_at: time(&line.forgotten_at)?,
        updated_at: time(&line.updated_at)?,
    })
}

/// A hidden memory already stored with the same project, text and time as `memory`.
fn same_hidden(conn: &Connection, memory: &NewMemory) -> Result<Option<i64>> {
    let Some(created) = memory.created_at else {
        return Ok(None);
    };
    Ok(conn
        .prepare_cached(
            "SELECT id FROM memories WHERE project IS ?1 AND folded = ?2 AND body = ?3 \
             AND created_at = ?4 AND (superseded_by IS NOT NULL OR forgotten_at IS NOT NULL) \
             LIMIT 1",
        )?
        .query_row(
            rusqlite::params![
                memory.project,
                crate::text::duplicate::hash(&memory.body),
                memory.body,
                created
            ],
            |r| r.get(0),
        )
        .optional()?)
}

/// For each scope an import stores into (by project, `None` for global memories):
/// `None` when it held live memories as the import began, else the hashes of the bodies stored
/// there so far. A line in a scope that held nothing can only repeat an earlier line of the file,
/// so the store is searched for a live copy only when the hash was seen (a first import into a
/// project is then one query a line cheaper).
#[derive(Default)]
struct Fresh(ByScope<Option<HashSet<i64>>>);

impl Fresh {
    /// Whether a live memory of `project` might hold the body hashed as `folded`; remembers the
    /// body as stored.
    fn may_repeat(
        &mut self,
        conn: &Connection,
        project: Option<&str>,
        folded: i64,
    ) -> Result<bool> {
        let stored = self.0.get_or_make(project, || {
            let held_nothing = index::live_count(conn, project)? == 0;
            Ok(held_nothing.then(HashSet::new))
        })?;
        Ok(match stored {
            Some(stored) => !stored.insert(folded),
            None => true,
        })
    }
}

/// Store checked lines (inside the import's one write transaction): live ones unless already
/// live in their scope, hidden ones as they were, then their supersedes and forgets.
fn store_lines(conn: &Connection, lines: &[(usize, Checked)]) -> Result<ImportReport> {
    let mut report = ImportReport::default();
    let batch = history::next_batch(conn)?;
    let action = Action::Import { batch };
    let mut new_ids: HashMap<i64, i64> = HashMap::new();
    let mut hidden = Vec::new();
    let mut tally = Tally::default();
    let mut fresh = Fresh::default();
    for (_, line) in lines {
        let stays_live = line.superseded_by.is_none() && line.forgotten_at.is_none();
        let (id, stored) = if stays_live {
            let outcome = store_new_unless(conn, &mut tally, &line.memory, action, |p, f| {
                fresh.may_repeat(conn, p, f)
            })?;
            report.masked += outcome.masked.len();
            (outcome.id, !outcome.duplicate)
        } else if let Some(id) = same_hidden(conn, &line.memory)? {
            // The same memory, already here (an export imported back): nothing to change.
            new_ids.extend(line.file_id.map(|f| (f, id)));
            report.duplicates += 1;
            continue;
        } else {
            if line.memory.secrets == Secrets::Mask {
                report.masked += crate::secrets::mask(&line.memory.body).found.len();
            }
            (store_hidden(conn, &line.memory, action)?, true)
        };
        if stored {
            if let Some(updated) = line.updated_at {
                conn.prepare_cached("UPDATE memories SET updated_at = ?2 WHERE id = ?1")?
                    .execute(rusqlite::params![id, updated])?;
            }
            report.stored += 1;
            report.first_id.get_or_insert(id);
            report.last_id = Some(id);
        } else {
            report.duplicates += 1;
        }
        if let Some(file_id) = line.file_id {
            new_ids.insert(file_id, id);
        }
        if !stays_live {
            hidden.push((id, line));
        }
    }
    for (id, line) in hidden {
        let by = line.superseded_by.map(|t| new_ids[&t]);
        let at = line
            .updated_at
            .or(line.forgotten_at)
            .or(line.memory.created_at)
            .unwrap_or_else(super::now);
        set_state(conn, &mut tally, id, by, line.forgotten_at, at)?;
    }
    tally.write(conn)?;
    report.batch = (report.stored > 0).then_some(batch);
    Ok(report)
}

impl Store {
    /// Import JSON Lines text. Lines without a `project` field go to `scope`'s project. `secrets`
    /// says whether secrets in the bodies are masked. The whole import is one transaction: it
    /// stores every line or none, and holds the store's write lock while it runs (about a second
    /// for 10,000 lines; other writers wait, hooks spool).
    pub fn import(&mut self, text: &str, scope: &Scope, secrets: Secrets) -> Result<ImportReport> {
        let mut lines = Vec::new();
        let mut errors = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            if raw.trim().is_empty() {
                continue;
            }
            match check_line(self.conn(), raw, scope.key()) {
                Ok(mut line) => {
                    line.memory.secrets = secrets;
                    lines.push((index + 1, line))
                }
                Err(e) => errors.push(format!("line {}: {e:#}", index + 1)),
            }
        }
        let file_ids: HashMap<i64, usize> = lines
            .iter()
            .filter_map(|(number, l)| l.file_id.map(|id| (id, *number)))
            .collect();
        for (number, line) in &lines {
            if let Some(target) = line.superseded_by.filter(|t| !file_ids.contains_key(t)) {
                errors.push(format!(
                    "line {number}: superseded_by {target} names no memory of this file"
                ));
            }
        }
        if !errors.is_empty() {
            let shown = errors
                .iter()
                .take(10)
                .cloned()
                .collect::<Vec<_>>()
                .join("\n");
            let more = errors.len().saturating_sub(10);
            let tail = if more > 0 {
                format!("\n... and {more} more")
            } else {
                String::new()
            };
            bail!("nothing was imported; fix these lines:\n{shown}{tail}");
        }

        self.write(|conn| store_lines(conn, &lines))
            .context("nothing was imported")
    }

    /// Import memories read from files (`sources::import`) as one batch, in one transaction:
    /// each masked and checked like any new memory, and skipped when the same body is live in its
    /// scope already (counted as a duplicate).
    pub fn import_memories(&mut self, memories: &[NewMemory]) -> Result<ImportReport> {
        for memory in memories {
            check_body(&memory.body)
                .with_context(|| format!("nothing was imported; {} is refused", memory.source))?;
        }
        self.write(|conn| {
            let mut report = ImportReport::default();
            let batch = history::next_batch(conn)?;
            let mut tally = Tally::default();
            for memory in memories {
                let outcome = store_new(conn, &mut tally, memory, Action::Import { batch })?;
                report.masked += outcome.masked.len();
                if outcome.duplicate {
                    report.duplicates += 1;
                } else {
                    report.stored += 1;
                    report.first_id.get_or_insert(outcome.id);
                    report.last_id = Some(outcome.id);
                }
            }
            tally.write(conn)?;
            report.batch = (report.stored > 0).then_some(batch);
            Ok(report)
        })
        .context("nothing was imported")
    }

    /// Take back import batch `batch`: forget (restorably) each of its memories visible from
    /// `scope` that is still live, in one transaction; returns their ids. A batch with no memory
    /// visible here, or none live any more, is an error that says which.
    pub fn undo_import(&mut self, batch: i64, scope: &Scope) -> Result<Vec<i64>> {
        self.write(|conn| {
            let sql = format!(
                "SELECT {MEMORY_COLUMNS} FROM memories m WHERE {VISIBLE} AND m.id IN \
                 (SELECT memory_id FROM history WHERE action = ?2 AND other_id = ?3) ORDER BY m.id"
            );
            let members: Vec<Memory> = conn
                .prepare(&sql)?
                .query_map(
                    rusqlite::params![scope.key(), history::IMPORT, batch],
                    Memory::from_row,
                )?
                .collect::<rusqlite::Result<_>>()?;
            if members.is_empty() {
                bail!(
                    "no import batch {batch} in this scope: the number is the one an import \
                     printed, and another project's batch needs its --project"
                );
            }
            let live: Vec<&Memory> = members.iter().filter(|m| m.is_live()).collect();
            if live.is_empty() {
                bail!(
                    "import batch {batch} has no live memory left to forget (undone already?): \
                     `synapse list --all` shows its {} memories, `synapse restore ID` brings one back",
                    members.len()
                );
            }
            let mut tally = Tally::default();
            for memory in &live {
                forget_in(conn, &mut tally, memory)?;
            }
            tally.write(conn)?;
            Ok(live.iter().map(|m| m.id).collect())
        })
    }

    /// Write every memory visible from `scope`, in every state, as JSON Lines, oldest id first.
    pub fn export(&self, scope: &Scope, out: &mut dyn Write) -> Result<usize> {
        let sql = format!("SELECT {MEMORY_COLUMNS} FROM memories m WHERE {VISIBLE} ORDER BY m.id");
        let mut stmt = self.conn().prepare(&sql)?;
        let rows = stmt.query_map([scope.key()], Memory::from_row)?;
        let mut count = 0;
        for row in rows {
            serde_json::to_writer(&mut *out, &row?)?;
            out.write_all(b"\n")?;
            count += 1;
        }
        out.flush()?;
        Ok(count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(body: &str, project: &str) -> String {
        serde_json::json!({ "body": body, "project": project }).to_string()
    }

    fn scope_counts(store: &Store) -> Vec<(Option<String>, i64, i64, i64)> {
        let mut stmt = store
            .conn()
            .prepare("SELECT project, docs, words, grams FROM scopes ORDER BY project")
            .unwrap();
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)));
        rows.unwrap().map(Result::unwrap).collect()
    }

    #[test]
    fn each_import_that_stores_is_the_next_batch_and_undo_takes_back_only_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let scope = Scope::project("p");
        let first = store
            .import(&line("the queue holds 50 jobs", "p"), &scope, Secrets::Mask)
            .unwrap();
        assert_eq!(first.batch, Some(1));
        // Nothing stored, no batch: the number is not used up.
        let repeat = store
            .import(&line("the queue holds 50 jobs", "p"), &scope, Secrets::Mask)
            .unwrap();
        assert_eq!((repeat.stored, repeat.batch), (0, None));
        let memories = ["builds run nightly", "the queue holds 50 jobs"].map(|body| NewMemory {
            body: body.into(),
            project: Some("p".into()),
            ..NewMemory::default()
        });
        let second = store.import_memories(&memories).unwrap();
        assert_eq!(
            (second.stored, second.duplicates, second.batch),
            (1, 1, Some(2))
        );

        assert_eq!(
            store.undo_import(2, &scope).unwrap(),
            [second.last_id.unwrap()]
        );
        let live: Vec<String> = store
            .list(&scope, false)
            .unwrap()
            .into_iter()
            .map(|m| m.body)
            .collect();
        assert_eq!(live, ["the queue holds 50 jobs"]);
        let again = store.undo_import(2, &scope).unwrap_err().to_string();
        assert!(again.contains("no live memory"), "{again}");
        let elsewhere = store
            .undo_import(1, &Scope::project("q"))
            .unwrap_err()
            .to_string();
        assert!(elsewhere.contains("no import batch 1"), "{elsewhere}");
    }

    #[test]
    fn a_body_repeated_in_a_file_is_stored_once_per_project_in_a_new_store() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let text = [
            line("deploys go through the release train", "a"),
            line("deploys go through the release train", "a"),
            line("deploys go through the release train", "b"),
            line("the cache holds 200 entries", "a"),
        ]
        .join("\n");
        let report = store
            .import(&text, &Scope::global(), Secrets::Mask)
            .unwrap();
        assert_eq!((report.stored, report.duplicates), (3, 1));
        // Into a project that holds it already, the same file repeats everything.
        let again = store
            .import(&text, &Scope::global(), Secrets::Mask)
            .unwrap();
        assert_eq!((again.stored, again.duplicates), (0, 4));
    }

    #[test]
    fn a_live_line_repeating_a_hidden_one_stays_live_in_a_project_with_memories() {
        // Export of: "blue" superseded by "green", then "blue" remembered again. Importing it
        // where the project already held a memory once stored the hidden copy as live first,
        // took the later live line for its repeat, and then hid both.
        let text = [
            r#"{"id": 1, "body": "deploys use the blue pool", "project": "p", "superseded_by": 2}"#,
            r#"{"id": 2, "body": "deploys use the green pool", "project": "p"}"#,
            r#"{"id": 3, "body": "deploys use the blue pool", "project": "p"}"#,
        ]
        .join("\n");
        for held_before in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let mut store = Store::open(dir.path()).unwrap();
            let scope = Scope::project("p");
            if held_before {
                let earlier = NewMemory {
                    body: "an earlier note".into(),
                    project: Some("p".into()),
                    ..NewMemory::default()
                };
                store.remember(&earlier, &[], &scope).unwrap();
            }
            let report = store.import(&text, &scope, Secrets::Mask).unwrap();
            assert_eq!((report.stored, report.duplicates), (3, 0), "{held_before}");
            let live: Vec<String> = store
                .list(&scope, false)
                .unwrap()
                .into_iter()
                .map(|m| m.body)
                .collect();
            assert!(
                live.contains(&"deploys use the blue pool".to_owned()),
                "{live:?}"
            );
            assert!(
                live.contains(&"deploys use the green pool".to_owned()),
                "{live:?}"
            );
        }
    }

    #[test]
    fn an_import_counts_each_scope_as_remembering_line_by_line_does() {
        let bodies = [
            ("the API listens on 3000", Some("a")),
            ("retries: 3, then the dead-letter queue", Some("a")),
            ("café menus are cached for 5 minutes", None),
            ("builds run on the ARM runners", Some("b")),
        ];
        let dir = tempfile::tempdir().unwrap();
        let mut imported = Store::open(dir.path()).unwrap();
        let text: Vec<String> = bodies
            .iter()
            .map(|(body, project)| {
                serde_json::json!({ "body": body, "project": project, "source": "cli" }).to_string()
            })
            .collect();
        imported
            .import(&text.join("\n"), &Scope::global(), Secrets::Mask)
            .unwrap();

        let other = tempfile::tempdir().unwrap();
        let mut remembered = Store::open(other.path()).unwrap();
        for (body, project) in bodies {
            let memory = NewMemory {
                body: body.into(),
                source: "cli".into(),
                project: project.map(str::to_owned),
                ..NewMemory::default()
            };
            let scope = project.map_or_else(Scope::global, Scope::project);
            remembered.remember(&memory, &[], &scope).unwrap();
        }
        assert_eq!(scope_counts(&imported), scope_counts(&remembered));
        assert_eq!(scope_counts(&imported).len(), 3);
        // Rows counted where they were stored: two in `a`, one in `b`, one global.
        let docs: Vec<(Option<String>, i64)> = scope_counts(&imported)
            .into_iter()
            .map(|(project, docs, _, _)| (project, docs))
            .collect();
        assert_eq!(
            docs,
            [(None, 1), (Some("a".into()), 2), (Some("b".into()), 1)]
        );
    }
}
