//! Reading one source file for its fold: its text, up to a limit, cut into pieces with their
//! labels, and the files it imports. A file that is not text (a NUL byte near its start) gives
//! nothing and says why; one in UTF-16 with a byte-order mark is decoded.

use std::io::Read;
use std::path::Path;

use super::find::Candidate;
use super::{imports, split, Place};
use crate::store::sources::{FileRead, Kind, Piece, SourceFile};

/// The most memories one file gives.
const MAX_PIECES: usize = 500;

/// How far into a file a NUL byte makes it binary (as git judges).
const BINARY_SNIFF: usize = 8000;

/// A file's text as read for its fold.
#[derive(Debug, Default)]
pub(super) struct Text {
    pub(super) text: String,
    /// The bytes read when the file is longer than the limit; 0 when read whole.
    pub(super) cut: i64,
    /// What a person may want to know of how it was read (decoded from UTF-16).
    pub(super) note: Option<String>,
}

/// The first `limit` bytes of the file at `path` (of `size` bytes), as text: UTF-8, with any byte
/// that is not replaced, or UTF-16 when a byte-order mark says so. `Err` says why there is no
/// text: the file could not be read, or holds a NUL byte near its start (not text).
pub(super) fn read_text(path: &Path, size: i64, limit: u64) -> Result<Text, String> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(limit).read_to_end(&mut bytes))
        .map_err(|e| format!("unreadable: {e}"))?;
    let read = i64::try_from(bytes.len()).unwrap_or(i64::MAX);
    let cut = if size > read { read } else { 0 };
    if let Some(text) = utf16(&bytes) {
        return Ok(Text {
            text,
            cut,
            note: Some("decoded from UTF-16".to_owned()),
        });
    }
    if bytes.iter().take(BINARY_SNIFF).any(|&b| b == 0) {
        return Err("not text: a NUL byte in its first 8 KB".to_owned());
    }
    Ok(Text {
        text: String::from_utf8_lossy(&bytes).into_owned(),
        cut,
        note: None,
    })
}

/// `bytes` decoded as UTF-16 when they start with its byte-order mark (which is dropped); an odd
/// last byte (a cut) and unpaired halves are replaced.
fn utf16(bytes: &[u8]) -> Option<String> {
    let little = match bytes {
        [0xFF, 0xFE, ..] => true,
        [0xFE, 0xFF, ..] => false,
        _ => return None,
    };
    let units = bytes[2..].chunks_exact(2).map(|pair| {
        let pair = [pair[0], pair[1]];
        if little {
            u16::from_le_bytes(pair)
        } else {
            u16::from_be_bytes(pair)
        }
    });
    Some(
        char::decode_utf16(units)
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect(),
    )
}

/// A file read for its fold. `stamp` is its size and modification time, `ino` its inode, `text`
/// what was read of it (or why nothing was), `before` its row. The imports are resolved and
/// kept in the row (`SourceFile::imports`), whether their files exist or not.
pub(super) fn read_file(
    place: &Place,
    candidate: &Candidate,
    text: Result<Text, String>,
    (stamp, ino): ((i64, i64), i64),
    before: Option<&SourceFile>,
) -> FileRead {
    let path = &candidate.path;
    let shown = shown(place, path);
    let (read, mut problem) = match text {
        Ok(read) => (read, None),
        Err(why) => (Text::default(), Some(why)),
    };
    let (front, body, first) = split::front(&read.text);
    // A rules folder's file is a rule only while it has `paths:`; without, the client loads it.
    let kind = match candidate.kind {
        Kind::Rule if front.paths.is_empty() => Kind::Instructions,
        kind => kind,
    };
    let folder = path.parent().unwrap_or(Path::new("/"));
    let mut imported = Vec::new();
    let pieces: Vec<Piece> = match kind {
        Kind::Topic => split::topic(&read.text)
            .map(|(front, chunk)| Piece {
                line: i64::try_from(chunk.line).unwrap_or(i64::MAX),
                label: titled(&shown, front.name.as_deref()),
                text: chunk.text,
                written: front.modified.as_deref().and_then(seconds),
            })
            .into_iter()
            .collect(),
        _ => {
            // The client follows the imports of the files it loads by name and of what they
            // import, never those of `MEMORY.md`; a file holding only blanks imports nothing.
            if kind != Kind::Index && !read.text.trim().is_empty() {
                let home = place.client.home.as_deref();
                imported = split::imports(body)
                    .iter()
                    .filter_map(|import| imports::resolve(import, folder, home))
                    .map(|p| p.to_string_lossy().into_owned())
                    .collect();
                imported.dedup();
            }
            let mut chunks = split::sections(body, first, MAX_PIECES + 1);
            let mut limits = Vec::new();
            if chunks.len() > MAX_PIECES {
                chunks.truncate(MAX_PIECES);
                limits.push(format!(
                    "gives its first {MAX_PIECES} memories; the rest is not folded"
                ));
            }
            let cut = chunks.iter().filter(|c| c.cut).count();
            if cut > 0 {
                limits.push(format!(
                    "{cut} of its pieces longer than {} were cut there",
                    super::bytes_said(i64::try_from(split::MAX_CHUNK_BYTES).unwrap_or(i64::MAX))
                ));
            }
            if !limits.is_empty() {
                problem = Some(limits.join("; "));
            }
            chunks
                .into_iter()
                .filter(|chunk| kind != Kind::Index || !points_to_a_topic(&chunk.text, folder))
                .map(|chunk| Piece {
                    line: i64::try_from(chunk.line).unwrap_or(i64::MAX),
                    label: format!("{shown}:{}", chunk.line),
                    text: chunk.text,
                    written: None,
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
        ino,
        imports: imported,
        via: candidate.via.clone(),
        cut: read.cut,
        problem,
    };
    FileRead {
        seen: before.map(|f| (f.size, f.modified)),
        file,
        pieces,
    }
}

/// A frontmatter time (`2026-12-07T11:12:59.087Z`, or a date, taken as midnight UTC) in seconds
/// since the epoch; `None` when it is neither.
fn seconds(written: &str) -> Option<i64> {
    if let Ok(at) = written.parse::<jiff::Timestamp>() {
        return Some(at.as_second());
    }
    let civil = written
        .parse::<jiff::civil::DateTime>()
        .or_else(|_| {
            written
                .parse::<jiff::civil::Date>()
                .map(|d| d.at(0, 0, 0, 0))
        })
        .ok()?;
    civil
        .to_zoned_datetime(jiff::tz::TimeZone::UTC)
        .ok()
        .map(|at| at.timestamp().as_second())
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

/// A memory's label for a file: `memory/NAME` in the memory folder, relative to the top in the
/// project, `~/`-relative elsewhere.
pub(super) fn shown(place: &Place, path: &Path) -> String {
    if let Ok(rest) = path.strip_prefix(&place.client.memory) {
        return format!("memory/{}", rest.display());
    }
    file_name_shown(place, path)
}

/// A file as drift names it: relative to the project, or `~/`-relative (the memory folder).
pub(super) fn file_name_shown(place: &Place, path: &Path) -> String {
    if let Some(rest) = place.top.as_deref().and_then(|t| path.strip_prefix(t).ok()) {
        return rest.display().to_string();
    }
    place.client.shown(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_with(bytes: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.md");
        std::fs::write(&path, bytes).unwrap();
        (dir, path)
    }

    #[test]
    fn utf16_with_a_mark_is_decoded_either_way() {
        let mut little = vec![0xFF, 0xFE];
        little.extend("Deploy é\n".encode_utf16().flat_map(u16::to_le_bytes));
        let mut big = vec![0xFE, 0xFF];
        big.extend("Deploy é\n".encode_utf16().flat_map(u16::to_be_bytes));
        for bytes in [little, big] {
            let (_dir, path) = file_with(&bytes);
            let text = read_text(&path, bytes.len() as i64, 1 << 20).unwrap();
            assert_eq!(text.text, "Deploy é\n");
            assert_eq!(text.note.as_deref(), Some("decoded from UTF-16"));
        }
    }

    #[test]
    fn a_nul_byte_near_the_start_is_not_text() {
        let (_dir, path) = file_with(b"PNG\0\0\x01binary");
        let why = read_text(&path, 13, 1 << 20).unwrap_err();
        assert!(why.starts_with("not text"), "{why}");
    }

    #[test]
    fn a_file_past_the_limit_says_where_it_was_cut() {
        let (_dir, path) = file_with("é".repeat(10).as_bytes());
        let text = read_text(&path, 20, 7).unwrap();
        assert_eq!(text.cut, 7);
        assert!(text.text.starts_with("ééé"));
        let whole = read_text(&path, 20, 20).unwrap();
        assert_eq!((whole.cut, whole.text.len()), (0, 20));
    }

    #[test]
    fn a_file_that_cannot_be_opened_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let why = read_text(&dir.path().join("missing.md"), 1, 10).unwrap_err();
        assert!(why.starts_with("unreadable:"), "{why}");
    }

    #[test]
    fn frontmatter_times_read_as_the_client_writes_them() {
        assert_eq!(seconds("2026-12-07T11:12:59.087Z"), Some(1_796_641_979));
        assert_eq!(seconds("2026-12-07"), Some(1_796_601_600));
        assert_eq!(seconds("2026-12-07T11:12:59"), Some(1_796_641_979));
        assert_eq!(seconds("last tuesday"), None);
    }
}
