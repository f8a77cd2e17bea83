//! What a client's setup changed, kept so that `--undo` can take it back: each config file it
//! touched, as it was before the first setup and as the latest setup left it, and what it did
//! through the client's own commands (a marketplace added, a plugin installed, ...).
//!
//! Kept in the data folder as `setup/CLIENT/journal.json` with the files' bytes beside it
//! (`N.before`, `N.after`), private like everything there: a config file may hold a key.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

/// One client's journal.
#[derive(Debug)]
pub struct Journal {
    dir: PathBuf,
    files: Vec<Touched>,
    /// What setup did through the client's own commands, by name, for undo to reverse.
    pub did: BTreeMap<String, String>,
}

/// A config file setup may have changed.
#[derive(Debug)]
struct Touched {
    path: PathBuf,
    /// Its bytes before the first setup (`None`: there was no such file) and its mode.
    before: Option<(Vec<u8>, u32)>,
    /// Its bytes as the latest setup left it.
    after: Option<Vec<u8>>,
}

#[derive(Serialize, Deserialize)]
struct Index {
    files: Vec<IndexEntry>,
    did: BTreeMap<String, String>,
}

#[derive(Serialize, Deserialize)]
struct IndexEntry {
    path: PathBuf,
    existed: bool,
    mode: u32,
    exists_after: bool,
}

/// How one file was put back.
#[derive(Debug, PartialEq, Eq)]
pub enum Restored {
    /// As it was before setup, byte for byte (or gone again, when setup created it).
    AsBefore,
    /// Changed since setup by someone else: left as it is (Synapse's own entries already out).
    ChangedSince,
    /// Setup left it as it found it: nothing to do.
    Untouched,
}

impl Journal {
    /// The journal of `client` in the data folder `data`, if a setup left one.
    pub fn load(data: &Path, client: &str) -> Result<Option<Journal>> {
        let dir = data.join("setup").join(client);
        let index = dir.join("journal.json");
        let bytes = match std::fs::read(&index) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e).with_context(|| format!("could not read {}", index.display())),
        };
        let index: Index = serde_json::from_slice(&bytes).with_context(|| {
            format!(
                "{} is not a setup journal",
                dir.join("journal.json").display()
            )
        })?;
        let mut files = Vec::new();
        for (n, entry) in index.files.into_iter().enumerate() {
            let read = |name: String| {
                std::fs::read(dir.join(&name))
                    .with_context(|| format!("could not read {}", dir.join(name).display()))
            };
            let before = match entry.existed {
                true => Some((read(format!("{n}.before"))?, entry.mode)),
                false => None,
            };
            let after = match entry.exists_after {
                true => Some(read(format!("{n}.after"))?),
                false => None,
            };
            files.push(Touched {
                path: entry.path,
                before,
                after,
            });
        }
        Ok(Some(Journal {
            dir,
            files,
            did: index.did,
        }))
    }

    /// The journal for a setup of `client` about to touch `paths`: the one an earlier setup
    /// left (whose "before" is kept: it is the state to go back to), with each path it does not
    /// hold yet read as it is now.
    pub fn begin(data: &Path, client: &str, paths: &[PathBuf]) -> Result<Journal> {
        let mut journal = Journal::load(data, client)?.unwrap_or_else(|| Journal {
            dir: data.join("setup").join(client),
            files: Vec::new(),
            did: BTreeMap::new(),
        });
        for path in paths {
            if journal.files.iter().any(|f| &f.path == path) {
                continue;
            }
            let before = read_with_mode(path)?;
            journal.files.push(Touched {
                path: path.clone(),
                after: before.as_ref().map(|(bytes, _)| bytes.clone()),
                before,
            });
        }
        Ok(journal)
    }

    /// Record the files as setup left them, and keep the journal; a journal of a setup that
    /// changed nothing and did nothing is not kept. Returns the files that differ from before.
    pub fn finish(&mut self, data: &Path) -> Result<Vec<PathBuf>> {
        for file in &mut self.files {
            file.after = read_with_mode(&file.path)?.map(|(bytes, _)| bytes);
        }
        let changed: Vec<PathBuf> = self
            .files
            .iter()
            .filter(|f| f.before.as_ref().map(|(b, _)| b) != f.after.as_ref())
            .map(|f| f.path.clone())
            .collect();
        if changed.is_empty() && self.did.is_empty() {
            self.remove()?;
        } else {
            self.save(data)?;
        }
        Ok(changed)
    }

    /// Which files are still as setup left them (nobody changed them since): those `restore`
    /// puts back as they were. Read before undoing anything.
    pub fn unchanged_since(&self) -> Result<Vec<bool>> {
        self.files
            .iter()
            .map(|f| Ok(read_with_mode(&f.path)?.map(|(bytes, _)| bytes) == f.after))
            .collect()
    }

    /// Put back each file that `unchanged` (from `unchanged_since`, read before the undo) says
    /// nobody touched since setup: its bytes and mode as before, or no file when there was
    /// none. The rest are left as they are now. Returns each file and what became of it.
    pub fn restore(&self, unchanged: &[bool]) -> Result<Vec<(PathBuf, Restored)>> {
        let mut out = Vec::new();
        for (file, &unchanged) in self.files.iter().zip(unchanged) {
            let touched = file.before.as_ref().map(|(b, _)| b) != file.after.as_ref();
            // An unchanged file is put back even when setup left it as it found it: the undo's
            // own steps (a client's uninstall) may have rewritten it.
            if unchanged {
                put_back(&file.path, file.before.as_ref())?;
            }
            let outcome = match (touched, unchanged) {
                (true, true) => Restored::AsBefore,
                (true, false) => Restored::ChangedSince,
                (false, _) => Restored::Untouched,
            };
            out.push((file.path.clone(), outcome));
        }
        Ok(out)
    }

    /// Forget the journal (after an undo).
    pub fn remove(&self) -> Result<()> {
        match std::fs::remove_dir_all(&self.dir) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(e).with_context(|| format!("could not remove {}", self.dir.display()))
            }
            _ => Ok(()),
        }
    }

    fn save(&self, data: &Path) -> Result<()> {
        crate::files::private_dir(data)?;
        crate::files::private_dir(&data.join("setup"))?;
        crate::files::private_dir(&self.dir)?;
        let mut entries = Vec::new();
        for (n, file) in self.files.iter().enumerate() {
            if let Some((bytes, _)) = &file.before {
                write_private(&self.dir.join(format!("{n}.before")), bytes)?;
            }
            if let Some(bytes) = &file.after {
                write_private(&self.dir.join(format!("{n}.after")), bytes)?;
            }
            entries.push(IndexEntry {
                path: file.path.clone(),
                existed: file.before.is_some(),
                mode: file.before.as_ref().map_or(0o600, |(_, mode)| *mode),
                exists_after: file.after.is_some(),
            });
        }
        let index = Index {
            files: entries,
            did: self.did.clone(),
        };
        write_private(
            &self.dir.join("journal.json"),
            &serde_json::to_vec_pretty(&index)?,
        )
    }
}

/// A file's bytes and mode, or `None` when there is no such file.
fn read_with_mode(path: &Path) -> Result<Option<(Vec<u8>, u32)>> {
    match std::fs::read(path) {
        Ok(bytes) => {
            let mode = std::fs::metadata(path)
                .with_context(|| format!("could not read {}", path.display()))?
                .permissions()
                .mode()
                & 0o7777;
            Ok(Some((bytes, mode)))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("could not read {}", path.display())),
    }
}

/// Make `path` hold `before` (bytes and mode), or remove it when `before` is `None`.
fn put_back(path: &Path, before: Option<&(Vec<u8>, u32)>) -> Result<()> {
    let Some((bytes, mode)) = before else {
        return match std::fs::remove_file(path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(e).with_context(|| format!("could not remove {}", path.display()))
            }
            _ => Ok(()),
        };
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("could not create {}", parent.display()))?;
    }
    let mut file = crate::files::AtomicFile::create(path)?;
    file.write_all(bytes)
        .with_context(|| format!("could not write {}", path.display()))?;
    file.commit()?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(*mode))
        .with_context(|| format!("could not set the mode of {}", path.display()))
}

fn write_private(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut file = crate::files::AtomicFile::create(path)?;
    file.write_all(bytes)
        .with_context(|| format!("could not write {}", path.display()))?;
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_untouched_file_goes_back_byte_for_byte_and_a_changed_one_stays() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let kept = dir.path().join("kept.toml");
        let created = dir.path().join("created.json");
        let edited = dir.path().join("edited.toml");
        std::fs::write(&kept, "# mine\nmodel = \"x\"\n").unwrap();
        std::fs::write(&edited, "a = 1\n").unwrap();
        let paths = [kept.clone(), created.clone(), edited.clone()];
        let mut journal = Journal::begin(&data, "codex", &paths).unwrap();
        std::fs::write(&kept, "# mine\nmodel = \"x\"\n[synapse]\n").unwrap();
        std::fs::write(&created, "{}").unwrap();
        std::fs::write(&edited, "a = 1\nb = 2\n").unwrap();
        journal.finish(&data).unwrap();

        // Someone edits one file after setup.
        std::fs::write(&edited, "a = 1\nb = 2\nc = 3\n").unwrap();
        let journal = Journal::load(&data, "codex").unwrap().unwrap();
        let unchanged = journal.unchanged_since().unwrap();
        assert_eq!(unchanged, [true, true, false]);
        let restored = journal.restore(&unchanged).unwrap();
        assert_eq!(
            std::fs::read_to_string(&kept).unwrap(),
            "# mine\nmodel = \"x\"\n"
        );
        assert!(!created.exists());
        assert_eq!(
            std::fs::read_to_string(&edited).unwrap(),
            "a = 1\nb = 2\nc = 3\n"
        );
        assert_eq!(restored[2].1, Restored::ChangedSince);
    }

    #[test]
    fn a_second_setup_keeps_the_first_ones_before() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let file = dir.path().join("config.toml");
        std::fs::write(&file, "x = 1\n").unwrap();
        let mut first = Journal::begin(&data, "codex", std::slice::from_ref(&file)).unwrap();
        std::fs::write(&file, "x = 1\ny = 2\n").unwrap();
        first.finish(&data).unwrap();
        let mut second = Journal::begin(&data, "codex", std::slice::from_ref(&file)).unwrap();
        std::fs::write(&file, "x = 1\ny = 2\nz = 3\n").unwrap();
        second.finish(&data).unwrap();
        let journal = Journal::load(&data, "codex").unwrap().unwrap();
        journal
            .restore(&journal.unchanged_since().unwrap())
            .unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "x = 1\n");
    }

    #[test]
    fn a_setup_that_changed_nothing_keeps_no_journal() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let file = dir.path().join("config.toml");
        std::fs::write(&file, "x = 1\n").unwrap();
        let mut journal = Journal::begin(&data, "codex", &[file]).unwrap();
        assert!(journal.finish(&data).unwrap().is_empty());
        assert!(Journal::load(&data, "codex").unwrap().is_none());
    }
}
