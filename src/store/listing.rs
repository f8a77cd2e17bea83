//! Listing memories a page at a time, each with where it came from (`SourceKind`), filtered by
//! that, by age and by id: what `synapse list` shows. Only the page is read (`LIMIT`), and one
//! count says how many there are in all.

use anyhow::Result;
use serde::Serialize;

use super::history::IMPORT;
use super::{Memory, Scope, Store, LIVE, MEMORY_COLUMNS, VISIBLE};

/// How the label of a lesson the Stop hook recorded from a reply begins (`session ID DATE`).
pub const LESSON_LABEL: &str = "session ";
/// The label of a memory the model stored through the MCP server without giving one.
pub const MCP_LABEL: &str = "mcp";

/// Where a memory came from, told by what the store records of it: its rows in `sourced`,
/// `shared` and `history`, then its label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    /// A piece of one of Claude Code's files (`CLAUDE.md`, a rule, the auto memory).
    File,
    /// Folded in from a teammate's line of the project's shared file.
    Team,
    /// Imported (`synapse import`, JSON Lines or Claude Code's files with `--from`).
    Import,
    /// A lesson the Stop hook recorded from a reply's `remember:` line.
    Lesson,
    /// Stored by the model through the MCP server.
    Mcp,
    /// Typed by a person: `synapse remember`, `/synapse:remember`, a `remember:` line in a prompt.
    Typed,
}

impl SourceKind {
    /// Every kind, in the order `--source` lists them.
    pub const ALL: [SourceKind; 6] = [
        SourceKind::Typed,
        SourceKind::Lesson,
        SourceKind::Mcp,
        SourceKind::File,
        SourceKind::Import,
        SourceKind::Team,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::File => "file",
            SourceKind::Team => "team",
            SourceKind::Import => "import",
            SourceKind::Lesson => "lesson",
            SourceKind::Mcp => "mcp",
            SourceKind::Typed => "typed",
        }
    }

    /// The kind named `text`, if one is.
    pub fn parse(text: &str) -> Option<SourceKind> {
        SourceKind::ALL.into_iter().find(|k| k.as_str() == text)
    }
}

/// Which memories a page is taken from.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Superseded and forgotten ones too.
    pub all: bool,
    pub kind: Option<SourceKind>,
    /// Only those made at or after this second since the epoch.
    pub since: Option<i64>,
    /// Only these ids.
    pub ids: Option<Vec<i64>>,
}

/// A memory of a page and where it came from.
#[derive(Clone, Debug, Serialize)]
pub struct Listed {
    #[serde(flatten)]
    pub memory: Memory,
    pub source_kind: SourceKind,
}

/// One page of a listing, and how many memories the filter keeps in all.
#[derive(Clone, Debug)]
pub struct Page {
    pub memories: Vec<Listed>,
    pub total: i64,
}

/// SQL giving the `SourceKind` of the row aliased `m`, in the order of `SourceKind`: a piece
/// of a file first (whatever its label), then a teammate's, an import, and then the label.
fn kind_sql() -> String {
    format!(
        "CASE \
         WHEN EXISTS (SELECT 1 FROM sourced s WHERE s.memory_id = m.id) THEN 'file' \
         WHEN m.id IN (SELECT memory_id FROM shared WHERE NOT mine AND memory_id IS NOT NULL) \
              THEN 'team' \
         WHEN EXISTS (SELECT 1 FROM history h WHERE h.memory_id = m.id AND h.action = '{IMPORT}') \
              THEN 'import' \
         WHEN substr(m.source, 1, {}) = '{LESSON_LABEL}' THEN 'lesson' \
         WHEN m.source = '{MCP_LABEL}' THEN 'mcp' \
         ELSE 'typed' END",
        LESSON_LABEL.len()
    )
}

impl Store {
    /// The page of memories visible from `scope` that `filter` keeps, newest first: `limit`
    /// of them from the `offset`th, and how many there are in all.
    pub fn list_page(
        &self,
        scope: &Scope,
        filter: &Filter,
        limit: usize,
        offset: usize,
    ) -> Result<Page> {
        let live = if filter.all { "1" } else { LIVE };
        let kind = kind_sql();
        let ids = filter.ids.as_ref().map(serde_json::to_string).transpose()?;
        let kept = format!(
            "{VISIBLE} AND {live} AND (?2 IS NULL OR ({kind}) = ?2) \
             AND (?3 IS NULL OR m.created_at >= ?3) \
             AND (?4 IS NULL OR m.id IN (SELECT value FROM json_each(?4)))"
        );
        let params = rusqlite::params![
            scope.key(),
            filter.kind.map(SourceKind::as_str),
            filter.since,
            ids,
        ];
        self.read(|| {
            let total: i64 = self.conn().query_row(
                &format!("SELECT count(*) FROM memories m WHERE {kept}"),
                params,
                |r| r.get(0),
            )?;
            let sql = format!(
                "SELECT {MEMORY_COLUMNS}, {kind} FROM memories m WHERE {kept} \
                 ORDER BY m.created_at DESC, m.id DESC LIMIT ?5 OFFSET ?6"
            );
            let mut stmt = self.conn().prepare(&sql)?;
            let page = rusqlite::params![
                scope.key(),
                filter.kind.map(SourceKind::as_str),
                filter.since,
                ids,
                i64::try_from(limit).unwrap_or(i64::MAX),
                i64::try_from(offset).unwrap_or(i64::MAX),
            ];
            let rows = stmt.query_map(page, |r| {
                let kind: String = r.get(9)?;
                Ok(Listed {
                    memory: Memory::from_row(r)?,
                    source_kind: SourceKind::parse(&kind).unwrap_or(SourceKind::Typed),
                })
            })?;
            let memories = rows.collect::<rusqlite::Result<_>>()?;
            Ok(Page { memories, total })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_named_once_and_read_back() {
        for kind in SourceKind::ALL {
            assert_eq!(SourceKind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(SourceKind::parse("cli"), None);
    }

    #[test]
    fn a_page_holds_at_most_its_limit_and_counts_them_all() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let scope = Scope::project("p");
        for (n, source) in ["cli", "session abc 2026-11-01", "mcp", "session x"]
            .into_iter()
            .enumerate()
        {
            let memory = crate::store::write::NewMemory {
                body: format!("note {n}"),
                source: source.into(),
                project: Some("p".into()),
                created_at: Some(1_000 * (n as i64 + 1)),
                ..Default::default()
            };
            store.remember(&memory, &[], &scope).unwrap();
        }
        let ids = |page: &Page| -> Vec<i64> { page.memories.iter().map(|l| l.memory.id).collect() };
        let all = Filter::default();
        let first = store.list_page(&scope, &all, 3, 0).unwrap();
        assert_eq!((ids(&first), first.total), (vec![4, 3, 2], 4));
        let second = store.list_page(&scope, &all, 3, 3).unwrap();
        assert_eq!((ids(&second), second.total), (vec![1], 4));
        let lessons = Filter {
            kind: Some(SourceKind::Lesson),
            ..Filter::default()
        };
        let page = store.list_page(&scope, &lessons, 10, 0).unwrap();
        assert_eq!((ids(&page), page.total), (vec![4, 2], 2));
        let recent = Filter {
            since: Some(3_000),
            ids: Some(vec![1, 3, 4]),
            ..Filter::default()
        };
        let page = store.list_page(&scope, &recent, 10, 0).unwrap();
        assert_eq!(ids(&page), [4, 3]);
        assert_eq!(page.memories[1].source_kind, SourceKind::Mcp);
    }
}
