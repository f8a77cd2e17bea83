//! Reading one source file for its fold: its text, up to a limit, cut into pieces with their
//! labels, and the files it imports.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::find::Candidate;
use super::{split, Place};
use crate::store::sources::{FileRead, Kind, Piece, SourceFile};

/// The most memories one file gives.
const MAX_PIECES: usize = 500;

/// The first `limit` bytes of a file, as text (a multibyte character cut at the end, or any
/// byte that is not UTF-8, is replaced).
pub(super) fn read_start(path: &Path, limit: u64) -> std::io::Result<String> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limit)
        .read_to_end(&mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// A file read for its fold, and the files it imports (to be looked at in turn).
pub(super) fn read_file(
    place: &Place,
    candidate: &Candidate,
    text: &str,
    stamp: (i64, i64),
    before: Option<&SourceFile>,
) -> (FileRead, Vec<Candidate>) {
    let path = &candidate.path;
    let shown = shown(place, path);
    let (front, body, first) = split::front(text);
    // A rules folder's file is a rule only while it has `paths:`; without, the client loads it.
    let kind = match candidate.kind {
        Kind::Rule if front.paths.is_empty() => Kind::Instructions,
        kind => kind,
    };
    let mut imports = Vec::new();
    let pieces: Vec<Piece> = match kind {
        Kind::Topic => split::topic(text)
            .map(|(name, chunk)| Piece {
                line: i64::try_from(chunk.line).unwrap_or(i64::MAX),
                label: titled(&shown, name.as_deref()),
                text: chunk.text,
            })
            .into_iter()
            .collect(),
        _ => {
            if matches!(kind, Kind::Instructions | Kind::Agents) {
                let folder = path.parent().unwrap_or(Path::new("/"));
                for import in split::imports(body) {
                    if let Some(target) = resolve_import(&import, folder, place) {
                        imports.push(Candidate {
                            path: target,
                            kind: Kind::Instructions,
                            project: candidate.project.clone(),
                            dir: candidate.dir.clone(),
                        });
                    }
                }
            }
            let folder = path.parent().unwrap_or(Path::new("/"));
            split::sections(body, first, MAX_PIECES)
                .into_iter()
                .filter(|chunk| kind != Kind::Index || !points_to_a_topic(&chunk.text, folder))
                .map(|chunk| Piece {
                    line: i64::try_from(chunk.line).unwrap_or(i64::MAX),
                    label: format!("{shown}:{}", chunk.line),
                    text: chunk.text,
                })
                .collect()
        }
    };
    let file = SourceFile {
        id: before.map_or(0, |f| f.id),
        project: candidate.project.clone(),
        path: path.to_string_lossy().into_owned(),
        kind,
        shown: file_name_shown(place, path),
        dir: match kind {
            Kind::Topic | Kind::Rule => None,
            _ => candidate.dir.clone(),
        },
        globs: front.paths,
        size: stamp.0,
        modified: stamp.1,
    };
    let read = FileRead {
        seen: before.map(|f| (f.size, f.modified)),
        file,
        pieces,
    };
    (read, imports)
}

/// Whether an entry of `MEMORY.md` is only a pointer to a topic file beside it
/// (`[Title](file.md) — hook`): the topic file is the memory, and a copy of its pointer would
/// only count its words twice in every search.
fn points_to_a_topic(entry: &str, folder: &Path) -> bool {
    split::linked_file(entry).is_some_and(|target| folder.join(target).is_file())
}

/// A topic file's label: where it is, then its `name` (`memory/pagination.md · List
/// pagination`). The name is often the only place the file's subject is named, and a label's
/// words are searched and counted like the text's; kept out of the text, it does not stop two
/// files saying the same thing under two names from being found repeats.
fn titled(shown: &str, name: Option<&str>) -> String {
    match name.map(str::trim).filter(|n| !n.is_empty()) {
        Some(name) => format!("{shown} · {}", name.replace(['\n', '\r'], " ")),
        None => shown.to_owned(),
    }
}

/// An `@path` import's file: relative to the importing file's folder, `~/` to the home.
fn resolve_import(import: &str, folder: &Path, place: &Place) -> Option<PathBuf> {
    let path = if let Some(rest) = import.strip_prefix("~/") {
        place.client.home.as_ref()?.join(rest)
    } else {
        folder.join(import)
    };
    let path = std::fs::canonicalize(path).ok()?;
    path.is_file().then_some(path)
}

/// A memory's label for a file: `memory/NAME` in the memory folder, relative to the top in the
/// project, `~/`-relative elsewhere.
fn shown(place: &Place, path: &Path) -> String {
    if let Ok(rest) = path.strip_prefix(&place.client.memory) {
        return format!("memory/{}", rest.display());
    }
    file_name_shown(place, path)
}

/// A file as drift names it: relative to the project, or `~/`-relative (the memory folder).
fn file_name_shown(place: &Place, path: &Path) -> String {
    if let Some(rest) = place.top.as_deref().and_then(|t| path.strip_prefix(t).ok()) {
        return rest.display().to_string();
    }
    place.client.shown(path)
}
