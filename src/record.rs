//! Recording a memory the way every write path must: secrets masked, the memory stored (or, when
//! another process holds the store's lock longer than the writer may wait, left in the spool
//! for the next write), and shared through the checkout when its settings say so.
//!
//! `synapse remember`, `/synapse:remember`, a `remember:` lesson in a reply (the Stop hook) and
//! the MCP `remember` tool all write through `remember`, so none of them can skip a step. Those
//! that answer the writer also say which live memories the new one is close to (`similar`), so
//! whoever writes can settle a replacement in the same step.

use std::collections::HashSet;
use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use crate::config::Budget;
use crate::recall::{self, Options};
use crate::secrets::Secrets;
use crate::store::shared::Event;
use crate::store::spool;
use crate::store::write::{NewMemory, Remembered};
use crate::store::{is_busy, Scope, Stamp, Store};

/// One memory to record.
pub struct Recording<'a> {
    pub memory: NewMemory,
    /// Older memories the new one replaces, in the same transaction.
    pub supersedes: &'a [i64],
    /// The checkout a new memory is shared through when its `.synapse/config.toml` says
    /// `share = true`; `None` never shares (a global memory, another project's, no checkout).
    pub checkout: Option<&'a Path>,
}

/// What recording did.
#[derive(Debug)]
pub enum Recorded {
    /// Stored, or found to repeat a live memory (`outcome.duplicate`).
    Stored { outcome: Remembered, shared: Shared },
    /// The store was busy: the masked text waits in the spool and is stored, exactly once, by
    /// the next process that writes.
    Spooled,
}

/// Whether a newly stored memory went to the team's shared file.
#[derive(Debug)]
pub enum Shared {
    /// Not asked: no checkout, sharing not set, or nothing new was stored.
    No,
    /// Shared: the event written to the shared file.
    Yes(Event),
    /// Sharing was asked and failed; the memory is stored all the same. Why, for the writer.
    Failed(String),
}

impl Shared {
    /// The line a writer is told, if sharing was asked.
    pub fn line(&self) -> Option<String> {
        match self {
            Shared::No => None,
            Shared::Yes(_) => Some(format!(
                "shared through {} (share = true in {})",
                crate::team::FILE,
                crate::team::SETTINGS
            )),
            Shared::Failed(why) => Some(format!("not shared: {why}")),
        }
    }
}

/// The sentence every write path says for a spooled memory.
pub const SPOOLED: &str = "the store is busy (another process holds it); the text waits in \
                           Synapse's spool and is stored with the next write";

/// Record `recording.memory`, visible from `visible`. Text that cannot be a memory (empty, too
/// long) is an error and nothing is spooled: the store refuses it before it waits for the lock.
/// A write that finds the store busy is spooled when
/// the spool can carry it: it cannot carry a supersede (which must check the older memories
/// under the lock) or text stored with its secrets (the spool holds only masked text).
pub fn remember(store: &mut Store, visible: &Scope, recording: Recording) -> Result<Recorded> {
    let Recording {
        memory,
        supersedes,
        checkout,
    } = recording;
    let outcome = match store.remember(&memory, supersedes, visible) {
        Ok(outcome) => outcome,
        Err(e) if is_busy(&e) && supersedes.is_empty() && memory.secrets == Secrets::Mask => {
            spool::append(store.dir(), spooled(&memory))?;
            return Ok(Recorded::Spooled);
        }
        Err(e) => return Err(e),
    };
    let shared = if outcome.duplicate {
        Shared::No
    } else {
        match crate::team::share_if_set(store, visible, checkout, outcome.id) {
            Ok(Some(event)) => Shared::Yes(event),
            Ok(None) => Shared::No,
            Err(e) => Shared::Failed(format!("{e:#}")),
        }
    };
    Ok(Recorded::Stored { outcome, shared })
}

/// A memory as the spool keeps it: masked before it touches the disk.
pub fn spooled(memory: &NewMemory) -> spool::Entry {
    spool::Entry::Remember {
        body: crate::secrets::mask(&memory.body).text,
        source: memory.source.clone(),
        project: memory.project.clone(),
        created_at: memory.created_at.unwrap_or_else(crate::store::now),
    }
}

/// The most memories a write reports as similar.
pub const MOST_SIMILAR: usize = 3;
/// The characters of a new memory recall is asked about. Recall keeps only a question's most
/// specific terms (`recall::terms::MAX_TERMS`), so a longer opening would add lookups, not terms.
const SIMILAR_QUERY_CHARS: usize = 2_000;
/// The characters of a similar memory's first line that are shown.
const GIST_CHARS: usize = 100;

/// A live memory close to one just written: one the writer may mean to replace.
#[derive(Clone, Debug, Serialize)]
pub struct Similar {
    pub id: i64,
    /// Its first line, cut to `GIST_CHARS` characters.
    pub gist: String,
    /// "3 days ago", as the injected blocks say it (`text::age`).
    pub age: String,
    pub created_at: Stamp,
    pub source: String,
    /// Written after the new memory (`Memory::written`: a lesson that waited in the spool, an
    /// import's older time): the new one cannot replace it, though it may replace the new one.
    #[serde(skip)]
    pub newer: bool,
}

impl Similar {
    /// "similar: #12 Webhook retry limit is 5 attempts (3 days ago); HOW", where `how` says how
    /// to replace it.
    pub fn line(&self, how: &str) -> String {
        format!("similar: #{} {} ({}); {how}", self.id, self.gist, self.age)
    }

    /// `line` for a writer who can run `synapse` (the CLI, the slash commands, a typed line), told
    /// how the memory `new` just stored replaces this one (or, when this one is newer, how it
    /// replaces the new one).
    pub fn command_line(&self, new: i64) -> String {
        if self.newer {
            return self.line(&format!(
                "it is newer: `synapse supersede {new} {}` if it replaces this one",
                self.id
            ));
        }
        self.line(&format!(
            "`synapse supersede {} {new}` replaces it",
            self.id
        ))
    }
}

/// The live memories visible from `visible` closest to the one `outcome` stored, best first, at
/// most `MOST_SIMILAR`: recall asked the new text, with the new memory itself left out. A repeat
/// stored nothing and finds nothing (the writer is told which memory it repeats).
///
/// A memory counts as similar only when it holds at least half of the terms recall kept from the
/// new text, and at least two (`similar_floor`): one shared word ("deploy", "webhook") is how
/// unrelated notes of one project look, and a note the writer means to replace restates most of
/// its subject. Drift's findings are not required: a new value of an old setting is similar
/// whether or not a rule can call it a conflict.
pub fn similar(store: &Store, visible: &Scope, outcome: &Remembered) -> Result<Vec<Similar>> {
    if outcome.duplicate {
        return Ok(Vec::new());
    }
    let new = store.head(outcome.id, visible)?;
    let query = crate::text::cut_chars(&new.body, SIMILAR_QUERY_CHARS);
    // Ranking only: no drift check, no substring search (a similar note shares whole words).
    let options = Options {
        budget: Budget::Full,
        limit: Some(MOST_SIMILAR),
        spare: MOST_SIMILAR,
        drift: false,
        substrings: false,
        ..Options::default()
    };
    let except = HashSet::from([outcome.id]);
    let found = recall::recall_except(store, visible, query, &options, &except)?;
    // With no term to search, recall answers with the newest memories: similar to nothing.
    if !found.searched {
        return Ok(Vec::new());
    }
    let need = similar_floor(found.terms.kept.len());
    let now = crate::store::now();
    Ok(found
        .results
        .into_iter()
        .filter(|hit| hit.coverage >= need)
        .take(MOST_SIMILAR)
        .map(|hit| Similar {
            id: hit.id,
            gist: crate::text::gist(&hit.body, GIST_CHARS),
            age: crate::text::age::age(now - hit.created_at.seconds()).said(),
            newer: (hit.created_at, hit.id) > new.written(),
            created_at: hit.created_at,
            source: hit.source,
        })
        .collect())
}

/// How many of the new text's `terms` a memory must hold to be similar: half, rounded up, and
/// never fewer than two.
fn similar_floor(terms: usize) -> usize {
    terms.div_ceil(2).max(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lesson(body: &str, secrets: Secrets) -> NewMemory {
        NewMemory {
            body: body.to_owned(),
            source: "test".to_owned(),
            project: Some("proj".to_owned()),
            secrets,
            ..NewMemory::default()
        }
    }

    fn record(store: &mut Store, memory: NewMemory, supersedes: &[i64]) -> Result<Recorded> {
        let recording = Recording {
            memory,
            supersedes,
            checkout: None,
        };
        remember(store, &Scope::project("proj"), recording)
    }

    #[rstest::rstest]
    #[case::a_new_value_of_the_same_setting("Webhook retries: 8 attempts", true)]
    #[case::one_shared_word("Webhook payloads are signed with HMAC", false)]
    #[case::nothing_shared("The staging database is Postgres 16", false)]
    fn a_write_names_the_memories_close_to_it(#[case] text: &str, #[case] similar_to_old: bool) {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let old = lesson("Webhook retry limit is 5 attempts", Secrets::Mask);
        let Recorded::Stored { outcome: old, .. } = record(&mut store, old, &[]).unwrap() else {
            panic!("not stored");
        };
        let new = lesson(text, Secrets::Mask);
        let Recorded::Stored { outcome, .. } = record(&mut store, new, &[]).unwrap() else {
            panic!("not stored");
        };
        let found = similar(&store, &Scope::project("proj"), &outcome).unwrap();
        let ids: Vec<i64> = found.iter().map(|s| s.id).collect();
        let expected = if similar_to_old { vec![old.id] } else { vec![] };
        assert_eq!(ids, expected, "{found:?}");
        if let Some(near) = found.first() {
            assert_eq!(near.gist, "Webhook retry limit is 5 attempts");
            assert_eq!(near.age, "today");
        }
    }

    #[test]
    fn a_repeat_names_nothing_similar() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let text = "Webhook retry limit is 5 attempts";
        record(&mut store, lesson(text, Secrets::Mask), &[]).unwrap();
        let Recorded::Stored { outcome, .. } =
            record(&mut store, lesson(text, Secrets::Mask), &[]).unwrap()
        else {
            panic!("not stored");
        };
        assert!(outcome.duplicate);
        assert!(similar(&store, &Scope::project("proj"), &outcome)
            .unwrap()
            .is_empty());
    }

    #[test]
    fn a_busy_store_spools_what_the_spool_can_carry_and_refuses_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open_for_hook(dir.path()).unwrap();
        let spool = dir.path().join("spool.jsonl");
        let lock = rusqlite::Connection::open(dir.path().join("synapse.db")).unwrap();
        lock.execute_batch("BEGIN EXCLUSIVE").unwrap();

        let masked = lesson("deploy key password=hunter2SECRETxyz9", Secrets::Mask);
        assert!(matches!(
            record(&mut store, masked, &[]).unwrap(),
            Recorded::Spooled
        ));
        let spooled = std::fs::read_to_string(&spool).unwrap();
        assert!(spooled.contains("deploy key password="), "{spooled}");
        assert!(!spooled.contains("hunter2SECRETxyz9"), "{spooled}");

        // A supersede must check the older memory under the lock; text kept with its secrets
        // cannot go where only masked text may; an empty text is no memory at all.
        for (memory, supersedes) in [
            (lesson("replaces 1", Secrets::Mask), &[1][..]),
            (lesson("token=hunter2SECRETxyz9", Secrets::Allow), &[][..]),
            (lesson("  ", Secrets::Mask), &[][..]),
        ] {
            assert!(record(&mut store, memory, supersedes).is_err());
        }
        assert_eq!(std::fs::read_to_string(&spool).unwrap(), spooled);
    }
}
