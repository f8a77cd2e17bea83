//! Drift over Claude Code's own files (`crate::sources`): which file and line a finding's memory
//! is written on, paths a piece names judged from its file's folder as well as the project's
//! top, and memories that repeat a piece of a file the client loads into every session.
//!
//! A piece is the file's copy, so a finding on it is fixed in the file: the line it points at
//! is where the words are, not only where the piece starts.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::Path;

use anyhow::Result;

use super::{stale, Certainty, FileLine, Finding, Gone, Kind};
use crate::store::sources::{Kind as FileKind, Origin, SourceFile};
use crate::store::{Memory, Scope, Store};

/// How many lines of a source file are read looking for where a gone path is written.
const LINES_SEARCHED: usize = 20_000;

/// Where memories come from, for the ones that are pieces of source files.
#[derive(Default)]
pub(super) struct Origins {
    origins: HashMap<i64, Origin>,
    files: HashMap<i64, SourceFile>,
}

impl Origins {
    /// Where each of `ids` comes from. Nothing is asked of the store for no ids, and the files
    /// only when one of them is a piece: a hook's batch without findings costs nothing here.
    pub(super) fn of(store: &Store, scope: &Scope, ids: &[i64]) -> Result<Origins> {
        if ids.is_empty() {
            return Ok(Origins::default());
        }
        Origins::with_files(store, scope, store.origins(ids)?)
    }

    /// Every piece `scope` sees, in one query (the audit reads them all anyway).
    pub(super) fn all(store: &Store, scope: &Scope) -> Result<Origins> {
        Origins::with_files(store, scope, store.origins_in(scope)?)
    }

    fn with_files(store: &Store, scope: &Scope, origins: HashMap<i64, Origin>) -> Result<Origins> {
        if origins.is_empty() {
            return Ok(Origins::default());
        }
        let files = store
            .source_files(scope)?
            .into_iter()
            .map(|f| (f.id, f))
            .collect();
        Ok(Origins { origins, files })
    }

    /// The file `id` is a piece of, and where in it.
    fn of_memory(&self, id: i64) -> Option<(&SourceFile, &Origin)> {
        let origin = self.origins.get(&id)?;
        Some((self.files.get(&origin.source)?, origin))
    }

    fn place(&self, id: i64) -> Option<FileLine> {
        self.of_memory(id).map(|(file, origin)| FileLine {
            file: file.shown.clone(),
            line: origin.line,
        })
    }

    /// Give each finding the file and line of its memories that are pieces (a stale one keeps
    /// the line of its path).
    pub(super) fn annotate(&self, findings: &mut [Finding]) {
        if self.origins.is_empty() {
            return;
        }
        for f in findings {
            if f.source.is_none() {
                f.source = self.place(f.id);
            }
            f.newer_source = f.newer.and_then(|n| self.place(n));
        }
    }

    /// The stale findings of `m`, from the paths `gone` it names that are gone from its
    /// project's top. A piece of a project's file names paths from where the file is, so a
    /// relative one that is beside the file is not gone; each one left is a finding at the line
    /// it is written on, since each is a line to fix. Any other memory is one finding naming
    /// every gone path (`paths`), each one's reason in `why`.
    pub(super) fn stale(&self, m: &Memory, gone: Vec<Gone>, home: Option<&Path>) -> Vec<Finding> {
        let finding = |why: String, paths: Vec<String>, source: Option<FileLine>| Finding {
            kind: Kind::Stale,
            certainty: Certainty::Certain,
            id: m.id,
            newer: None,
            why,
            paths,
            newer_text: None,
            source,
            newer_source: None,
            written: None,
        };
        let Some((file, origin)) = self.of_memory(m.id) else {
            if gone.is_empty() {
                return Vec::new();
            }
            let paths = gone.iter().map(|g| g.named.written.clone()).collect();
            return vec![finding(Gone::why_all(&gone), paths, None)];
        };
        // The user's own files (`~/.claude/...`) belong to no project: their relative paths
        // were never judged, and there is no folder to add.
        let folder = Path::new(&file.path)
            .parent()
            .filter(|_| file.project.is_some());
        gone.into_iter()
            .filter_map(|g| {
                let mut why = g.why();
                if let Some(folder) = folder.filter(|_| !g.named.absolute) {
                    let beside = stale::locate(&g.named, Some(folder), home);
                    match beside {
                        Some(place) if !stale::gone(&g.named, &place) => return None,
                        _ => {}
                    }
                    if m.project.as_deref().map(Path::new) != Some(folder) {
                        why = format!("{why} and {}", folder.display());
                    }
                }
                let line = line_in_file(Path::new(&file.path), origin.line, &g.named.written)
                    .unwrap_or_else(|| line_in_piece(&m.body, origin.line, &g.named.written));
                let source = FileLine {
                    file: file.shown.clone(),
                    line,
                };
                Some(finding(why, vec![g.named.written], Some(source)))
            })
            .collect()
    }

    /// Memories (Synapse's own, or a topic file's) with a line that repeats a whole piece of a
    /// file the client loads (instructions or `MEMORY.md`; every one of the scope is taken as
    /// loaded): each as (its index in `memories`, the piece's index, the finding). The model
    /// has that piece in every session already.
    pub(super) fn repeats_of_loaded(
        &self,
        store: &Store,
        memories: &[Memory],
    ) -> Result<Vec<(usize, usize, Finding)>> {
        let loaded: Vec<i64> = self
            .files
            .values()
            .filter(|f| matches!(f.kind, FileKind::Instructions | FileKind::Index))
            .map(|f| f.id)
            .collect();
        if loaded.is_empty() {
            return Ok(Vec::new());
        }
        let pieces = store.source_hashes(&loaded)?;
        let at: HashMap<i64, usize> = memories
            .iter()
            .enumerate()
            .map(|(i, m)| (m.id, i))
            .collect();
        let mut found = Vec::new();
        for (i, m) in memories.iter().enumerate() {
            let own_or_topic = self
                .of_memory(m.id)
                .is_none_or(|(file, _)| file.kind == FileKind::Topic);
            if !own_or_topic {
                continue;
            }
            let repeated = super::line_hashes(&m.body)
                .filter_map(|h| pieces.get(&h))
                .find(|&&(piece, _, _)| piece != m.id && at.contains_key(&piece));
            let Some(&(piece, source, line)) = repeated else {
                continue;
            };
            let shown = self.files.get(&source).map_or("", |f| f.shown.as_str());
            found.push((
                i,
                at[&piece],
                Finding {
                    kind: Kind::Duplicate,
                    certainty: Certainty::Certain,
                    id: m.id,
                    newer: Some(piece),
                    why: format!("repeats {shown}:{line}"),
                    paths: Vec::new(),
                    newer_text: None,
                    source: None,
                    newer_source: None,
                    written: None,
                },
            ));
        }
        Ok(found)
    }
}

/// The line of a file where `written` is, in a piece that starts on line `start` and whose text
/// is `text`: the start plus the lines before it in the piece. Exact when the piece holds the
/// file's lines as they are; `line_in_file` corrects it where the piece does not (a topic
/// file's description and body, a dropped comment line).
pub fn line_in_piece(text: &str, start: i64, written: &str) -> i64 {
    let before = text
        .split_once(written)
        .map_or(0, |(before, _)| before.matches('\n').count());
    start.saturating_add(i64::try_from(before).unwrap_or(0))
}

/// The first line at or after `start` of the text `lines` that holds `written`.
pub fn line_in_text<I: IntoIterator<Item = String>>(
    lines: I,
    start: i64,
    written: &str,
) -> Option<i64> {
    let skip = usize::try_from(start.saturating_sub(1)).unwrap_or(0);
    lines
        .into_iter()
        .take(LINES_SEARCHED)
        .skip(skip)
        .position(|line| line.contains(written))
        .map(|n| start.max(1) + i64::try_from(n).unwrap_or(0))
}

/// `line_in_text` over the file at `path` as it is now; `None` when it cannot be read or no
/// longer holds the path there (it changed since it was folded).
fn line_in_file(path: &Path, start: i64, written: &str) -> Option<i64> {
    let file = std::fs::File::open(path).ok()?;
    let lines = BufReader::new(file).lines().map_while(std::io::Result::ok);
    line_in_text(lines, start, written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_in_a_piece_is_on_its_start_line_plus_the_lines_before_it() {
        let piece = "## Layout\nThe handlers are in src/api/h.rs\nand the router in src/old/r.rs.";
        assert_eq!(line_in_piece(piece, 7, "## Layout"), 7);
        assert_eq!(line_in_piece(piece, 7, "src/api/h.rs"), 8);
        assert_eq!(line_in_piece(piece, 7, "src/old/r.rs"), 9);
        assert_eq!(
            line_in_piece(piece, 7, "missing/x.rs"),
            7,
            "not found: the start"
        );
    }

    #[test]
    fn a_path_in_the_file_is_looked_for_from_the_piece_start() {
        // A topic file: the piece is its description, a blank line and its body, which the
        // frontmatter's other lines separate in the file.
        let file = "---\nname: x\ndescription: Where the router was\nmetadata:\n  type: project\n\
                    ---\n\nIt was in src/old/r.rs until March.\n";
        let lines = || file.lines().map(str::to_owned);
        let piece = "Where the router was\n\nIt was in src/old/r.rs until March.";
        assert_eq!(
            line_in_piece(piece, 3, "src/old/r.rs"),
            5,
            "the piece alone"
        );
        assert_eq!(
            line_in_text(lines(), 3, "src/old/r.rs"),
            Some(8),
            "the file"
        );
        assert_eq!(line_in_text(lines(), 9, "src/old/r.rs"), None, "not after");
        assert_eq!(line_in_text(lines(), 1, "name: x"), Some(2));
    }
}
