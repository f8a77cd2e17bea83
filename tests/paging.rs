//! Exact reading (DESIGN §8): pages of a memory's stored bytes, through the library and the CLI.

use crate::common;

use std::path::Path;
use std::process::Output;

use rstest::rstest;
use synapse::config::Budget;
use synapse::read::{read, Page, SOURCE_BYTES};
use synapse::secrets::Secrets;
use synapse::store::write::NewMemory;
use synapse::store::{Scope, Store};

const LEAN: usize = 2_800;
const BALANCED: usize = 6_000;

/// Pieces of awkward text: code, tabs, trailing whitespace, blank lines, multibyte characters of
/// every width, and NUL bytes.
const PIECES: &[&str] = &[
    "fn parse(input: &str) -> Result<u32, String> {\n\tinput.trim().parse().map_err(|e| e.to_string())\n}\n",
    "café crème brûlée — 12 € each   \n",
    "\t\ttabs\tinside\tand trailing spaces \t  \n",
    "emoji 😀🎉🦀 between words\n",
    "漢字とかなの混じった文章です。\n",
    "nul here:\0 and two more\0\0 done\n",
    "   \n\n",
    "é€😀漢é€😀漢é€😀漢",
];

/// A body of at least `min_len` bytes made of `PIECES`, arranged so that byte 2,800 (the lean page
/// size) falls inside a 3-byte character and byte 6,000 (the balanced page size) inside a 4-byte
/// one.
fn awkward_body(min_len: usize) -> String {
    let mut straddles = vec![(BALANCED, '😀'), (LEAN, '€')];
    let mut body = String::new();
    let mut next_piece = PIECES.iter().cycle();
    while body.len() < min_len || !straddles.is_empty() {
        let piece = next_piece.next().unwrap();
        if let Some(&(boundary, ch)) = straddles.last() {
            if body.len() + piece.len() >= boundary {
                while body.len() < boundary - 1 {
                    body.push(if body.len().is_multiple_of(7) {
                        '\t'
                    } else {
                        '-'
                    });
                }
                body.push(ch);
                straddles.pop();
                continue;
            }
        }
        body.push_str(piece);
    }
    assert!(!body.is_char_boundary(LEAN) && !body.is_char_boundary(BALANCED));
    body
}

fn open(dir: &Path) -> Store {
    Store::open(dir).expect("open store")
}

fn store_body(store: &mut Store, scope: &Scope, body: &str, source: &str) -> i64 {
    let memory = NewMemory {
        body: body.to_owned(),
        source: source.to_owned(),
        project: scope.key().map(str::to_owned),
        ..NewMemory::default()
    };
    store.remember(&memory, &[], scope).expect("remember").id()
}

/// Read every page from offset 0, following `next`.
fn all_pages(store: &Store, scope: &Scope, id: i64, page_bytes: usize) -> Vec<Page> {
    let mut pages = Vec::new();
    let mut offset = 0;
    loop {
        let page = read(store, scope, id, offset, page_bytes)
            .expect("read")
            .expect("memory is readable");
        let next = page.next;
        pages.push(page);
        match next {
            Some(n) => {
                assert!(n > offset, "next {n} must move past offset {offset}");
                offset = n;
            }
            None => return pages,
        }
    }
}

fn check_lossless(page_bytes: usize) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = open(dir.path());
    let scope = Scope::project("paging");
    let body = awkward_body(40_000);
    let id = store_body(&mut store, &scope, &body, "test");

    let pages = all_pages(&store, &scope, id, page_bytes);
    assert!(pages.len() >= 40_000 / page_bytes, "{} pages", pages.len());
    let mut joined: Vec<u8> = Vec::new();
    for page in &pages {
        assert_eq!(page.id, id);
        assert_eq!(page.offset, joined.len(), "pages are contiguous");
        assert!(
            page.body.len() <= page_bytes,
            "page of {} bytes",
            page.body.len()
        );
        assert!(std::str::from_utf8(page.body.as_bytes()).is_ok());
        assert_eq!(page.total, body.len());
        joined.extend_from_slice(page.body.as_bytes());
    }
    assert_eq!(joined, body.as_bytes(), "pages join to the stored bytes");
}

#[test]
fn pages_join_to_the_exact_bytes_at_lean_size() {
    assert_eq!(Budget::Lean.page_bytes(), LEAN);
    check_lossless(LEAN);
}

#[test]
fn pages_join_to_the_exact_bytes_at_balanced_size() {
    assert_eq!(Budget::Balanced.page_bytes(), BALANCED);
    check_lossless(BALANCED);
}

#[rstest]
#[case::lean(LEAN)]
#[case::balanced(BALANCED)]
fn pages_end_at_the_last_character_boundary_that_fits(#[case] page_bytes: usize) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = open(dir.path());
    let scope = Scope::project("paging");
    let body = awkward_body(30_000);
    let id = store_body(&mut store, &scope, &body, "test");
    let mut cut_inside_a_character = 0;
    for page in all_pages(&store, &scope, id, page_bytes) {
        let limit = (page.offset + page_bytes).min(body.len());
        let expected_end = (page.offset..=limit)
            .rev()
            .find(|&i| body.is_char_boundary(i))
            .unwrap();
        let end = page.offset + page.body.len();
        assert_eq!(end, expected_end, "page at {} of {page_bytes}", page.offset);
        assert_eq!(page.body.as_bytes(), &body.as_bytes()[page.offset..end]);
        if end < limit {
            cut_inside_a_character += 1;
        }
    }
    assert!(
        cut_inside_a_character > 0,
        "a boundary fell inside a character"
    );
}

#[test]
fn total_counts_bytes_not_characters() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = open(dir.path());
    let scope = Scope::project("paging");
    let body = "é€😀漢\0";
    let id = store_body(&mut store, &scope, body, "");
    let page = read(&store, &scope, id, 0, LEAN).unwrap().unwrap();
    assert_eq!(page.total, 2 + 3 + 4 + 3 + 1);
    assert_eq!(page.body, body);
    assert_eq!(page.next, None);
}

#[test]
fn reading_at_the_exact_end_gives_an_empty_last_page() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = open(dir.path());
    let scope = Scope::project("paging");
    let body = "ends with a crab 🦀";
    let id = store_body(&mut store, &scope, body, "");
    let page = read(&store, &scope, id, body.len(), LEAN)
        .unwrap()
        .expect("the end is a valid offset");
    assert_eq!(page.body, "");
    assert_eq!(page.offset, body.len());
    assert_eq!(page.next, None);
    assert_eq!(page.total, body.len());
}

#[test]
fn an_offset_past_the_end_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = open(dir.path());
    let scope = Scope::project("paging");
    let id = store_body(&mut store, &scope, "short", "");
    assert!(read(&store, &scope, id, 6, LEAN).is_err());
    assert!(read(&store, &scope, id, 10_000, BALANCED).is_err());
}

#[test]
fn an_offset_inside_a_character_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = open(dir.path());
    let scope = Scope::project("paging");
    let body = "aé€😀漢z";
    let id = store_body(&mut store, &scope, body, "");
    for offset in 0..=body.len() {
        let result = read(&store, &scope, id, offset, LEAN);
        if body.is_char_boundary(offset) {
            let page = result.unwrap().unwrap();
            assert_eq!(page.body, &body[offset..]);
        } else {
            assert!(result.is_err(), "offset {offset} is inside a character");
        }
    }
}

#[test]
fn a_missing_id_reads_as_none() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = open(dir.path());
    let scope = Scope::project("paging");
    let id = store_body(&mut store, &scope, "the only memory", "");
    assert!(read(&store, &scope, id + 1, 0, LEAN).unwrap().is_none());
    assert!(read(&store, &scope, -1, 0, LEAN).unwrap().is_none());
}

#[test]
fn a_superseded_memory_reads_as_none() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = open(dir.path());
    let scope = Scope::project("paging");
    let old = store_body(&mut store, &scope, "the port is 8080", "");
    let new = store_body(&mut store, &scope, "the port is 9090", "");
    store.supersede(old, new, &scope).unwrap();
    assert!(read(&store, &scope, old, 0, LEAN).unwrap().is_none());
    assert!(read(&store, &scope, new, 0, LEAN).unwrap().is_some());
}

#[test]
fn a_forgotten_memory_reads_as_none_until_restored() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = open(dir.path());
    let scope = Scope::project("paging");
    let id = store_body(&mut store, &scope, "something to forget", "");
    store.forget(id, &scope).unwrap();
    assert!(read(&store, &scope, id, 0, LEAN).unwrap().is_none());
    store.restore(id, &scope).unwrap();
    assert!(read(&store, &scope, id, 0, LEAN).unwrap().is_some());
}

#[test]
fn another_projects_memory_reads_as_none() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = open(dir.path());
    let alpha = Scope::project("alpha");
    let beta = Scope::project("beta");
    let private = store_body(&mut store, &alpha, "alpha only", "");
    let shared = store_body(&mut store, &Scope::global(), "everyone sees this", "");
    assert!(read(&store, &alpha, private, 0, LEAN).unwrap().is_some());
    assert!(read(&store, &beta, private, 0, LEAN).unwrap().is_none());
    assert!(read(&store, &Scope::global(), private, 0, LEAN)
        .unwrap()
        .is_none());
    assert!(read(&store, &beta, shared, 0, LEAN).unwrap().is_some());
    assert!(read(&store, &alpha, shared, 0, LEAN).unwrap().is_some());
}

#[test]
fn an_out_of_scope_id_with_a_bad_offset_still_reads_as_none() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = open(dir.path());
    let id = store_body(&mut store, &Scope::project("alpha"), "é", "");
    let beta = Scope::project("beta");
    assert!(read(&store, &beta, id, 1, LEAN).unwrap().is_none());
    assert!(read(&store, &beta, id, 99, LEAN).unwrap().is_none());
}

#[test]
fn a_long_source_label_is_cut_on_a_character_boundary() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = open(dir.path());
    let scope = Scope::project("paging");
    // 239 ASCII bytes, then a 3-byte character across the 240-byte limit.
    let source = format!("{}€ and more after the limit", "s".repeat(SOURCE_BYTES - 1));
    let id = store_body(&mut store, &scope, "body", &source);
    let page = read(&store, &scope, id, 0, LEAN).unwrap().unwrap();
    assert!(page.sourceabridged);
    assert!(page.source.len() <= SOURCE_BYTES);
    assert_eq!(page.source, "s".repeat(SOURCE_BYTES - 1));
    assert!(source.starts_with(&page.source));
}

#[test]
fn a_source_label_of_exactly_the_limit_is_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = open(dir.path());
    let scope = Scope::project("paging");
    let source = format!("{}漢", "s".repeat(SOURCE_BYTES - 3));
    assert_eq!(source.len(), SOURCE_BYTES);
    let id = store_body(&mut store, &scope, "body", &source);
    let page = read(&store, &scope, id, 0, LEAN).unwrap().unwrap();
    assert!(!page.sourceabridged);
    assert_eq!(page.source, source);
}

#[test]
fn a_short_source_label_is_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = open(dir.path());
    let scope = Scope::project("paging");
    let id = store_body(&mut store, &scope, "body", "session 42 · café");
    let page = read(&store, &scope, id, 0, LEAN).unwrap().unwrap();
    assert!(!page.sourceabridged);
    assert_eq!(page.source, "session 42 · café");
}

#[test]
fn an_empty_source_label_reads_as_empty() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = open(dir.path());
    let scope = Scope::project("paging");
    let id = store_body(&mut store, &scope, "no label on this one", "");
    let page = read(&store, &scope, id, 0, LEAN).unwrap().unwrap();
    assert_eq!(page.source, "");
    assert!(!page.sourceabridged);
    assert_eq!(page.body, "no label on this one");
}

#[test]
fn an_imported_memory_without_a_source_is_readable() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = open(dir.path());
    let scope = Scope::project("paging");
    let report = store
        .import(
            "{\"body\": \"imported with no source\"}\n",
            &scope,
            Secrets::Mask,
        )
        .unwrap();
    let id = report.first_id.unwrap();
    let page = read(&store, &scope, id, 0, LEAN).unwrap().unwrap();
    assert_eq!(page.body, "imported with no source");
    assert_eq!(page.source, "");
}

// ---- through the CLI ----

fn synapse(data: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    common::run_synapse(
        data,
        data.parent().unwrap(),
        args,
        stdin.unwrap_or_default(),
    )
}

fn synapse_json(data: &Path, args: &[&str], stdin: Option<&[u8]>) -> serde_json::Value {
    let out = synapse(data, args, stdin);
    assert!(
        out.status.success(),
        "synapse {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

#[test]
fn cli_read_of_a_missing_id_prints_a_null_memory() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let stored = synapse_json(
        &data,
        &["remember", "kept", "--project", "p", "--json"],
        None,
    );
    assert_eq!(stored["id"], 1);
    let out = synapse_json(&data, &["read", "77", "--project", "p", "--json"], None);
    assert_eq!(out, serde_json::json!({ "memory": null }));
}

#[test]
fn cli_read_pages_follow_next_to_the_exact_text() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let body = awkward_body(12_000);
    let stored = synapse_json(
        &data,
        &["remember", "--project", "p", "--json"],
        Some(body.as_bytes()),
    );
    let id = stored["id"].as_i64().unwrap().to_string();

    let mut joined = String::new();
    let mut offset = 0u64;
    let mut pages = 0;
    loop {
        let args = [
            "read",
            &id,
            "--project",
            "p",
            "--budget",
            "lean",
            "--offset",
            &offset.to_string(),
            "--json",
        ];
        let page = synapse_json(&data, &args, None)["memory"].clone();
        assert_eq!(page["offset"].as_u64(), Some(offset));
        assert_eq!(page["total"].as_u64(), Some(body.len() as u64));
        let text = page["body"].as_str().unwrap();
        assert!(text.len() <= LEAN);
        joined.push_str(text);
        pages += 1;
        match page["next"].as_u64() {
            Some(next) => offset = next,
            None => {
                assert!(page["next"].is_null());
                break;
            }
        }
    }
    assert!(pages >= 5, "{pages} pages");
    assert_eq!(joined.as_bytes(), body.as_bytes());
}

#[test]
fn cli_read_inside_a_character_fails() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let stored = synapse_json(
        &data,
        &["remember", "€uro", "--project", "p", "--json"],
        None,
    );
    let id = stored["id"].as_i64().unwrap().to_string();
    let out = synapse(
        &data,
        &["read", &id, "--project", "p", "--offset", "1"],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("synapse: "));
}
