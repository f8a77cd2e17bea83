//! What `synapse import --from` reads: Claude Code's auto-memory folder, or one instruction file,
//! as memories to store once. The memories are copies the user asked for; nothing here watches the
//! files afterwards, and an import of them is undone like any other (`Store::undo_import`).

use std::collections::HashSet;
use std::path::Path;
use std::time::UNIX_EPOCH;

use anyhow::{bail, Context, Result};

use super::split;
use crate::secrets::Secrets;
use crate::store::write::NewMemory;

/// The auto memory's index file, which names the topic files beside it.
const INDEX: &str = "MEMORY.md";

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

/// The memories `path` holds, for `project`, dated by their file's modification time and
/// labelled by where they come from (`memory/deploy.md`, `AGENTS.md:12`).
pub fn memories(
    kind: Kind,
    path: &Path,
    project: Option<&str>,
    secrets: Secrets,
) -> Result<Vec<NewMemory>> {
    let found = match kind {
        Kind::ClaudeMemory => memory_folder(path)?,
        Kind::AgentsMd | Kind::Markdown => instruction_file(path)?,
    };
    Ok(found
        .into_iter()
        .map(|memory| NewMemory {
            project: project.map(str::to_owned),
            secrets,
            ..memory
        })
        .collect())
}

/// Each topic file of an auto-memory folder as one memory, then the items of its `MEMORY.md`
/// that are more than a link to one of those topic files (which say again what the topic's
/// description says).
fn memory_folder(folder: &Path) -> Result<Vec<NewMemory>> {
    let entries = std::fs::read_dir(folder)
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
    files.sort();
    let mut memories = Vec::new();
    let mut topics = HashSet::new();
    let mut index = None;
    for path in &files {
        let name = file_name(path);
        if name == INDEX {
            index = Some(path);
            continue;
        }
        let (text, created_at) = read(path)?;
        if let Some((_, chunk)) = split::topic(&text) {
            memories.push(NewMemory {
                body: chunk.text,
                source: format!("memory/{name}"),
                created_at,
                ..NewMemory::default()
            });
            topics.insert(name);
        }
    }
    if let Some(path) = index {
        let (text, created_at) = read(path)?;
        let (_, body, first_line) = split::front(&text);
        for chunk in split::sections(body, first_line, usize::MAX) {
            if links_a_topic(&chunk.text, &topics) {
                continue;
            }
            memories.push(NewMemory {
                body: chunk.text,
                source: format!("memory/{INDEX}:{}", chunk.line),
                created_at,
                ..NewMemory::default()
            });
        }
    }
    Ok(memories)
}

/// Whether an index item is one line linking to a topic file (`[Deploy](deploy.md) — ...`).
fn links_a_topic(text: &str, topics: &HashSet<String>) -> bool {
    split::linked_file(text).is_some_and(|target| topics.contains(target))
}

/// An instruction file, one memory per list item or paragraph (`split::sections`).
fn instruction_file(path: &Path) -> Result<Vec<NewMemory>> {
    let (text, created_at) = read(path)?;
    let name = file_name(path);
    let (_, body, first_line) = split::front(&text);
    Ok(split::sections(body, first_line, usize::MAX)
        .into_iter()
        .map(|chunk| NewMemory {
            source: format!("{name}:{}", chunk.line),
            body: chunk.text,
            created_at,
            ..NewMemory::default()
        })
        .collect())
}

/// A file's text and its modification time in seconds since the epoch (`None` when the system
/// gives none, and the memory is dated now).
fn read(path: &Path) -> Result<(String, Option<i64>)> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("could not read {}", path.display()))?;
    let modified = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .with_context(|| format!("could not read the modification time of {}", path.display()))?;
    let seconds = modified
        .duration_since(UNIX_EPOCH)
        .ok()
        .and_then(|d| i64::try_from(d.as_secs()).ok());
    Ok((text, seconds))
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_line_linking_a_topic_says_nothing_new() {
        let topics: HashSet<String> = ["deploy.md".to_owned()].into();
        assert!(links_a_topic(
            "[Deploy window](deploy.md) — never on Fridays",
            &topics
        ));
        assert!(links_a_topic("[Deploy](./deploy.md)", &topics));
        assert!(!links_a_topic("[Other](other.md) — a fact", &topics));
        assert!(!links_a_topic("the API listens on 3000", &topics));
        assert!(!links_a_topic(
            "[Deploy](deploy.md)\nand a fact below",
            &topics
        ));
    }
}
