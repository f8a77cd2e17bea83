//! What `synapse import --from` reads: Claude Code's auto-memory folder, or one instruction file
//! and what it imports, as memories to store once. The files are read by the fold's own reading
//! (`walk`, `read`): the same pieces, labels, dates, limits and imports as the hooks give them.
//! The memories are copies the user asked for; nothing here watches the files afterwards, and an
//! import of them is undone like any other (`Store::undo_import`).

use std::path::Path;

use anyhow::{bail, Context, Result};

use super::find::Candidate;
use super::walk::{Stat, Walk};
use super::{folder, Place, SYNC};
use crate::secrets::Secrets;
use crate::store::sources::{FileRead, Kind as FileKind};
use crate::store::write::NewMemory;

/// What a path given to `--from` holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// An auto-memory folder (`~/.claude/projects/KEY/memory`): each topic file is one memory,
    /// `MEMORY.md` one per item.
    ClaudeMemory,
    /// An `AGENTS.md` file: one memory per list item or paragraph.
    AgentsMd,
    /// Any Markdown file (a `CLAUDE.md`, a rule): one memory per list item or paragraph.
    Markdown,
}

/// The memories `path` holds, for `place`'s project, as the fold would make them: labelled by
/// where they come from (`memory/deploy.md · Deploy window`, `AGENTS.md:12`), dated by their
/// file's modification time (or a topic's frontmatter `modified`). A file that cannot be read as
/// text fails the whole import, naming it and why. Notes on how files were read (decoded from
/// UTF-16) go to `notes`.
pub fn memories(
    kind: Kind,
    path: &Path,
    place: &Place,
    secrets: Secrets,
    notes: &mut Vec<String>,
) -> Result<Vec<NewMemory>> {
    let reads = match kind {
        Kind::ClaudeMemory => memory_folder(path, place, notes)?,
        Kind::AgentsMd => instruction_file(path, FileKind::Agents, place, notes)?,
        Kind::Markdown => instruction_file(path, FileKind::Instructions, place, notes)?,
    };
    let mut memories = Vec::new();
    for read in reads {
        if let Some(why) = read
            .file
            .problem
            .as_deref()
            .filter(|_| read.pieces.is_empty())
        {
            bail!("{} gives nothing to import: {why}", read.file.path);
        }
        let created = read.file.modified.div_euclid(1_000_000_000);
        memories.extend(read.pieces.into_iter().map(|piece| NewMemory {
            body: piece.text,
            source: piece.label,
            project: place.project.clone(),
            created_at: Some(piece.written.unwrap_or(created)),
            secrets,
        }));
    }
    Ok(memories)
}

/// Each topic file of an auto-memory folder, and its `MEMORY.md`, read as the fold reads the
/// project's own memory folder.
fn memory_folder(folder: &Path, place: &Place, notes: &mut Vec<String>) -> Result<Vec<FileRead>> {
    let folder = folder
        .canonicalize()
        .with_context(|| format!("could not read the memory folder {}", folder.display()))?;
    let entries = std::fs::read_dir(&folder)
        .with_context(|| format!("could not read the memory folder {}", folder.display()))?;
    let mut files = Vec::new();
    for entry in entries {
        let path = entry
            .with_context(|| format!("could not read the memory folder {}", folder.display()))?
            .path();
        if path.extension().is_some_and(|e| e == "md") && path.is_file() {
            files.push(path);
        }
    }
    if files.is_empty() {
        bail!(
            "{} holds no .md files: --from claude-memory takes an auto-memory folder \
             (~/.claude/projects/KEY/memory)",
            folder.display()
        );
    }
    // The topic files first, then the index (whose items follow the files they point to).
    files.sort_by_key(|path| {
        (
            path.file_name().is_some_and(|n| n == folder::INDEX),
            path.clone(),
        )
    });
    let place = place.reading_memory_in(folder.clone());
    let candidates = files.into_iter().map(|path| {
        let index = path.file_name().is_some_and(|n| n == folder::INDEX);
        Candidate {
            kind: if index {
                FileKind::Index
            } else {
                FileKind::Topic
            },
            path,
            project: place.project.clone(),
            dir: None,
            via: None,
            depth: 0,
        }
    });
    read_all(&place, candidates.collect(), false, notes)
}

/// An instruction file and the files it imports, as the fold reads them; named from the
/// project's top when it lies in the project, else from its own folder.
fn instruction_file(
    path: &Path,
    kind: FileKind,
    place: &Place,
    notes: &mut Vec<String>,
) -> Result<Vec<FileRead>> {
    let file = path
        .canonicalize()
        .with_context(|| format!("could not read {}", path.display()))?;
    let inside = place
        .top
        .as_deref()
        .is_some_and(|top| file.starts_with(top));
    let folder = file.parent().unwrap_or(Path::new("/")).to_path_buf();
    let place = if inside {
        place.clone()
    } else {
        place.named_from(folder.clone())
    };
    let candidate = Candidate {
        path: file,
        kind,
        project: place.project.clone(),
        dir: Some(folder.to_string_lossy().into_owned()),
        via: None,
        depth: 0,
    };
    read_all(&place, vec![candidate], true, notes)
}

/// Read `candidates` (and, with `imports`, what they import) with a sync's limits, as new files.
fn read_all(
    place: &Place,
    candidates: Vec<Candidate>,
    imports: bool,
    notes: &mut Vec<String>,
) -> Result<Vec<FileRead>> {
    let mut walk = Walk::new(place, SYNC);
    if imports {
        walk.roots_and_imports(candidates, &[]);
    } else {
        for candidate in candidates {
            let stat: Option<Stat> = Stat::of(&candidate.path);
            let stat = stat.with_context(|| {
                format!("could not read {}: not a file", candidate.path.display())
            })?;
            walk.look(&candidate, stat, None);
        }
    }
    let (fold, said, _) = walk.finish();
    notes.extend(said);
    Ok(fold.reads)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::client::Client;
    use crate::store::{Scope, Store};
    use std::path::PathBuf;

    /// A place over a repository `top` with the auto memory in `memory`, and no home.
    fn place(top: &Path, memory: &Path) -> Place {
        Place {
            project: Some(top.to_string_lossy().into_owned()),
            top: Some(top.to_path_buf()),
            cwd: top.to_path_buf(),
            client: Client {
                config: top.join("no-config"),
                home: None,
                memory: memory.to_path_buf(),
                auto_memory: true,
                codex_memories: top.join("no-codex"),
            },
            key_path: top.to_path_buf(),
            approved: std::cell::OnceCell::new(),
        }
    }

    /// What the fold made and what an import of the same files makes are the same memories:
    /// bodies, labels and times, a topic's frontmatter time and an imported file's pieces too.
    #[test]
    fn an_import_gives_the_memories_the_fold_gives() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (top, memory) = (root.join("repo"), root.join("memory"));
        std::fs::create_dir_all(top.join("docs")).unwrap();
        std::fs::create_dir_all(&memory).unwrap();
        let write = |path: PathBuf, text: &str| std::fs::write(path, text).unwrap();
        write(
            memory.join("deploy.md"),
            "---\nname: Deploy window\ndescription: never deploy on Fridays\n---\n\nThe Friday \
             release broke twice.\n",
        );
        write(
            memory.join("dated.md"),
            "---\nname: Dated\ndescription: d\nmetadata:\n  modified: 2025-03-04T05:06:07Z\n\
             ---\nA dated note.\n",
        );
        write(
            memory.join("MEMORY.md"),
            "- [Deploy window](deploy.md) — never on Fridays\n- The staging database resets \
             nightly\n",
        );
        write(
            top.join("CLAUDE.md"),
            "# Build\nRun `make check` first.\n\n- See @docs/style.md\n- tests need docker\n",
        );
        write(top.join("docs/style.md"), "- Prefer early returns.\n");
        let place = place(&top, &memory);
        let data = tempfile::tempdir().unwrap();
        let mut store = Store::open(data.path()).unwrap();
        crate::sources::refresh(&mut store, &place, &[], SYNC, &Default::default()).unwrap();
        let scope = Scope::project(top.to_string_lossy());
        let mut folded: Vec<(String, String, i64)> = store
            .list(&scope, false)
            .unwrap()
            .into_iter()
            .map(|m| (m.body, m.source, m.created_at.seconds()))
            .collect();
        let mut notes = Vec::new();
        let secrets = Secrets::default();
        let mut imported: Vec<(String, String, i64)> = [
            memories(Kind::ClaudeMemory, &memory, &place, secrets, &mut notes).unwrap(),
            memories(
                Kind::Markdown,
                &top.join("CLAUDE.md"),
                &place,
                secrets,
                &mut notes,
            )
            .unwrap(),
        ]
        .concat()
        .into_iter()
        .map(|m| (m.body, m.source, m.created_at.unwrap()))
        .collect();
        folded.sort();
        imported.sort();
        assert_eq!(folded.len(), 7, "{folded:#?}");
        assert_eq!(imported, folded);
        assert!(folded
            .iter()
            .any(|(_, label, _)| label == "docs/style.md:1"));
        assert!(folded.iter().any(|(_, _, at)| *at == 1_741_064_767));
    }

    #[test]
    fn a_file_outside_the_project_is_named_from_its_own_folder() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (top, elsewhere) = (root.join("repo"), root.join("notes"));
        std::fs::create_dir_all(&top).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(elsewhere.join("AGENTS.md"), "- builds run on ARM\n").unwrap();
        let place = place(&top, &root.join("memory"));
        let mut notes = Vec::new();
        let got = memories(
            Kind::AgentsMd,
            &elsewhere.join("AGENTS.md"),
            &place,
            Secrets::default(),
            &mut notes,
        )
        .unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].source, "AGENTS.md:1");
    }

    #[test]
    fn a_binary_file_fails_the_import_and_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("memory")).unwrap();
        std::fs::write(root.join("memory/dump.md"), b"\0\0binary").unwrap();
        let place = place(&root, &root.join("memory"));
        let mut notes = Vec::new();
        let error = memories(
            Kind::ClaudeMemory,
            &root.join("memory"),
            &place,
            Secrets::default(),
            &mut notes,
        )
        .unwrap_err()
        .to_string();
        assert!(
            error.contains("dump.md gives nothing to import: not text"),
            "{error}"
        );
    }
}
