//! Recording a memory the way every write path must: secrets masked, the memory stored (or, when
//! another process holds the store's lock longer than the writer may wait, left in the spool
//! for the next write), and shared through the checkout when its settings say so.
//!
//! `synapse remember`, `/synapse:remember`, a `remember:` lesson in a reply (the Stop hook) and
//! the MCP `remember` tool all write through `remember`, so none of them can skip a step.

use std::path::Path;

use anyhow::Result;

use crate::secrets::Secrets;
use crate::store::shared::Event;
use crate::store::spool;
use crate::store::write::{NewMemory, Remembered};
use crate::store::{is_busy, Scope, Store};

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
