//! Private files: the data folder (0700), files Synapse creates there or for the user (0600),
//! whole-file writes that land atomically, and the one-line log.
//!
//! A store holds whatever people wrote down, keys included until they are masked, so every file
//! Synapse creates is readable by its owner only, from the moment it exists: created with mode
//! 0600 (never created wider and narrowed after). Nothing here changes the mode of something a
//! symbolic link points to, since a link may lead anywhere.

use std::fs::{DirBuilder, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// The log a hook writes its one line to, in the data folder.
pub const LOG_FILE: &str = "synapse.log";
/// The log is moved aside to `synapse.log.1` once it passes this size.
const LOG_BYTES: u64 = 1 << 20;

/// Names of the files Synapse keeps in its data folder (`synapse.db` and its log and backups,
/// `synapse.log`, `config.toml`, the spool, the team files' fold marks, `setup`'s journals); a
/// folder holding nothing else is Synapse's own.
fn is_synapse_file(name: &str) -> bool {
    name.starts_with("synapse.db")
        || name.starts_with(LOG_FILE)
        || name == "config.toml"
        || name.starts_with("spool")
        || name.starts_with(".synapse-")
        || name.starts_with("shared-")
        || name == "setup"
}

/// Make sure the data folder exists and is private. A new folder is created 0700. An existing one
/// wider than that is narrowed when it is Synapse's own: owned by this user, not a symbolic link,
/// and holding only Synapse's files. Any other folder (a user pointing `SYNAPSE_DATA` at a shared
/// place) is left as it is; `synapse doctor` warns about it.
pub fn private_dir(dir: &Path) -> Result<()> {
    match std::fs::symlink_metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .with_context(|| format!("could not create the data folder {}", dir.display())),
        Err(e) => {
            Err(e).with_context(|| format!("could not read the data folder {}", dir.display()))
        }
        Ok(meta) if meta.is_dir() && meta.mode() & 0o077 != 0 && owns(dir, &meta)? => {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).with_context(
                || format!("could not make the data folder {} private", dir.display()),
            )
        }
        Ok(_) => Ok(()),
    }
}

/// Whether the folder is Synapse's to narrow: this user's, and holding only Synapse's files.
fn owns(dir: &Path, meta: &std::fs::Metadata) -> Result<bool> {
    if meta.uid() != current_uid() {
        return Ok(false);
    }
    for entry in std::fs::read_dir(dir)
        .with_context(|| format!("could not list the data folder {}", dir.display()))?
    {
        let name = entry?.file_name();
        if !name.to_str().is_some_and(is_synapse_file) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The user this process runs as.
fn current_uid() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

/// What `synapse doctor` should say about the data folder's mode, if anything.
pub fn dir_warning(dir: &Path) -> Option<String> {
    let meta = std::fs::symlink_metadata(dir).ok()?;
    let mode = meta.mode() & 0o777;
    (meta.is_dir() && mode & 0o077 != 0).then(|| {
        format!(
            "the data folder {} is readable by others (mode {mode:o}); Synapse narrows only a \
             folder that holds nothing but its own files: `chmod 700 {}`",
            dir.display(),
            dir.display()
        )
    })
}

/// Create `path` empty at 0600 if it does not exist; if it does and is a regular file wider
/// than 0600, narrow it. A symbolic link is left alone (and not followed for the mode).
pub fn private_file(path: &Path) -> Result<()> {
    match OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
    {
        Ok(_) => return Ok(()),
        // Another process may have created it a moment ago: that is the same outcome.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e).with_context(|| format!("could not create {}", path.display())),
    }
    let meta = std::fs::symlink_metadata(path)
        .with_context(|| format!("could not read {}", path.display()))?;
    if meta.is_file() && meta.mode() & 0o077 != 0 {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
            .with_context(|| format!("could not make {} private", path.display()))?;
    }
    Ok(())
}

/// Open `path` for appending, creating it 0600.
pub fn append_private(path: &Path) -> std::io::Result<File> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)
}

/// A file written beside its final place and renamed over it when complete, so a reader (or a
/// crash) never sees half of it. Created 0600.
pub struct AtomicFile {
    file: Option<File>,
    temp: PathBuf,
    path: PathBuf,
}

impl AtomicFile {
    pub fn create(path: &Path) -> Result<AtomicFile> {
        let name = path
            .file_name()
            .with_context(|| format!("{} names no file", path.display()))?;
        let mut temp_name = std::ffi::OsString::from(".");
        temp_name.push(name);
        temp_name.push(format!(".{}.tmp", std::process::id()));
        let temp = path.with_file_name(temp_name);
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&temp)
            .with_context(|| format!("could not create {}", temp.display()))?;
        Ok(AtomicFile {
            file: Some(file),
            temp,
            path: path.to_owned(),
        })
    }

    /// Flush to disk and move into place.
    pub fn commit(mut self) -> Result<()> {
        let file = self.file.take().expect("committed once");
        file.sync_all()
            .with_context(|| format!("could not write {}", self.temp.display()))?;
        drop(file);
        std::fs::rename(&self.temp, &self.path)
            .with_context(|| format!("could not move {} into place", self.path.display()))
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.as_mut().expect("not committed").write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.as_mut().expect("not committed").flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.is_some() {
            // Not committed: the half-written file goes; the old one (if any) stays in place.
            if let Err(e) = std::fs::remove_file(&self.temp) {
                if e.kind() != std::io::ErrorKind::NotFound {
                    eprintln!("synapse: could not remove {}: {e}", self.temp.display());
                }
            }
        }
    }
}

/// Append one line to `synapse.log` in `dir` (created 0600), moving a log past `LOG_BYTES` aside
/// first so it never grows without bound. The line must not carry memory text or a payload.
pub fn log(dir: &Path, line: &str) -> std::io::Result<()> {
    if !dir.exists() {
        DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    }
    let path = dir.join(LOG_FILE);
    if std::fs::metadata(&path).is_ok_and(|m| m.len() > LOG_BYTES) {
        std::fs::rename(&path, dir.join(format!("{LOG_FILE}.1")))?;
    }
    let mut line = line.replace('\n', " ");
    line.push('\n');
    append_private(&path)?.write_all(line.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path).unwrap().mode() & 0o777
    }

    #[test]
    fn a_wide_folder_of_synapse_files_is_narrowed_and_a_shared_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let ours = dir.path().join("ours");
        let shared = dir.path().join("shared");
        for d in [&ours, &shared] {
            std::fs::create_dir(d).unwrap();
            std::fs::write(d.join("synapse.db"), "").unwrap();
            std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        std::fs::write(shared.join("notes.txt"), "").unwrap();
        private_dir(&ours).unwrap();
        private_dir(&shared).unwrap();
        assert_eq!(mode(&ours), 0o700);
        assert_eq!(mode(&shared), 0o755);
        assert!(dir_warning(&shared).is_some() && dir_warning(&ours).is_none());
        let new = dir.path().join("a/b");
        private_dir(&new).unwrap();
        assert_eq!(mode(&new), 0o700);
    }

    #[test]
    fn no_mode_change_through_a_symbolic_link() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target.db");
        std::fs::write(&target, "").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();
        let link = dir.path().join("synapse.db");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        private_file(&link).unwrap();
        assert_eq!(mode(&target), 0o644);
        let fresh = dir.path().join("fresh");
        private_file(&fresh).unwrap();
        assert_eq!(mode(&fresh), 0o600);
    }

    #[test]
    fn an_atomic_file_appears_whole_and_private_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.jsonl");
        std::fs::write(&path, "old\n").unwrap();
        let mut f = AtomicFile::create(&path).unwrap();
        f.write_all(b"new\n").unwrap();
        drop(f);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let mut f = AtomicFile::create(&path).unwrap();
        f.write_all(b"new\n").unwrap();
        f.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
        assert_eq!(mode(&path), 0o600);
    }

    #[test]
    fn the_log_is_private_one_line_per_call_and_bounded() {
        let dir = tempfile::tempdir().unwrap();
        log(dir.path(), "first\nline").unwrap();
        let path = dir.path().join(LOG_FILE);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "first line\n");
        assert_eq!(mode(&path), 0o600);
        std::fs::write(&path, vec![b'x'; LOG_BYTES as usize + 1]).unwrap();
        log(dir.path(), "after").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "after\n");
        assert!(dir.path().join("synapse.log.1").exists());
    }
}
