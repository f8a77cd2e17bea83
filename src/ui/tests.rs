//! The view without a terminal: keys fed to `App`, the state and the store looked at after, and
//! frames drawn into ratatui's `TestBackend`.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

use super::app::{screen_lines, View};
use super::rows::State;
use super::{draw, App};
use crate::recall::{self, Options};
use crate::store::write::NewMemory;
use crate::store::{Scope, Store};

/// A store in a temporary folder holding `bodies` in project `p`, the first oldest.
fn store_with(bodies: &[&str]) -> (tempfile::TempDir, Store, Scope) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let scope = Scope::project("p");
    for (i, body) in bodies.iter().enumerate() {
        let memory = NewMemory {
            body: (*body).to_owned(),
            project: Some("p".into()),
            created_at: Some(1_700_000_000 + i as i64),
            ..NewMemory::default()
        };
        store.remember(&memory, &[], &scope).unwrap();
    }
    (dir, store, scope)
}

fn app_with(bodies: &[&str]) -> (tempfile::TempDir, App) {
    let (dir, store, scope) = store_with(bodies);
    let mut app = App::open(store, scope, None).unwrap();
    app.fit(10, 80);
    (dir, app)
}

fn press(app: &mut App, keys: &str) {
    for c in keys.chars() {
        app.on_key(KeyEvent::from(KeyCode::Char(c)));
    }
}

fn press_code(app: &mut App, code: KeyCode) {
    app.on_key(KeyEvent::from(code));
}

fn listed(app: &App) -> Vec<i64> {
    app.rows.rows.iter().map(|r| r.id).collect()
}

/// The frame drawn for `app` on a `width` x `height` screen, as lines of text.
fn drawn(app: &mut App, width: u16, height: u16) -> Vec<String> {
    app.fit(draw::list_rows(height), usize::from(width) - 2);
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| draw::draw(frame, app)).unwrap();
    let buffer = terminal.backend().buffer();
    (0..height)
        .map(|y| {
            (0..width)
                .map(|x| buffer[(x, y)].symbol())
                .collect::<String>()
        })
        .collect()
}

const NOTES: [&str; 4] = [
    "Webhook retries: 5 attempts with exponential backoff",
    "We pin Rust 1.82.0 in rust-toolchain.toml",
    "Deploys go out on Tuesdays only",
    "The CI cache key includes the Rust version",
];

#[test]
fn it_opens_on_the_newest_memories_first() {
    let (_dir, app) = app_with(&NOTES);
    assert_eq!(listed(&app), [4, 3, 2, 1]);
    assert_eq!(app.count, 4);
    assert_eq!(app.rows.selected().unwrap().id, 4);
}

#[test]
fn search_ranks_as_recall_does_as_you_type_and_esc_clears_it() {
    let (_dir, mut app) = app_with(&NOTES);
    press(&mut app, "/rust");
    assert!(app.typing);
    let options = Options {
        budget: crate::config::Budget::Full,
        drift: false,
        ..Options::default()
    };
    let recalled = recall::recall(&app.store, &app.scope, "rust", &options).unwrap();
    let expected: Vec<i64> = recalled.results.iter().map(|h| h.id).collect();
    assert_eq!(listed(&app), expected);
    assert!(listed(&app).contains(&2) && listed(&app).contains(&4) && listed(&app).len() == 2);

    press_code(&mut app, KeyCode::Backspace);
    assert_eq!(app.query, "rus");
    press_code(&mut app, KeyCode::Esc);
    assert!(!app.typing && app.query.is_empty());
    assert_eq!(listed(&app), [4, 3, 2, 1]);
}

#[test]
fn q_in_the_search_box_is_a_letter_and_outside_it_quits() {
    let (_dir, mut app) = app_with(&NOTES);
    press(&mut app, "/q");
    assert!(!app.done);
    assert_eq!(app.query, "q");
    press_code(&mut app, KeyCode::Enter);
    press(&mut app, "q");
    assert!(app.done);
}

#[test]
fn forget_and_restore_go_through_the_store_and_say_the_undo() {
    let (_dir, mut app) = app_with(&NOTES);
    press(&mut app, "j");
    assert_eq!(app.rows.selected().unwrap().id, 3);
    press(&mut app, "f");
    assert!(app.status.contains("forgot 3") && app.status.contains("restore 3"));
    let stored = app.store.get(3, &app.scope).unwrap().unwrap();
    assert!(stored.forgotten_at.is_some());
    // The row stays where it was, marked, so `r` undoes the forget on the spot.
    assert_eq!(app.rows.selected().unwrap().state, State::Forgotten);
    assert_eq!(app.count, 3);

    press(&mut app, "r");
    assert!(app.status.contains("restored 3"), "{}", app.status);
    assert!(app.store.get(3, &app.scope).unwrap().unwrap().is_live());
    let actions: Vec<String> = app
        .store
        .history(3, &app.scope)
        .unwrap()
        .into_iter()
        .map(|e| e.action)
        .collect();
    assert_eq!(actions, ["remember", "forget", "restore-forget"]);

    press(&mut app, "r");
    assert!(app.status.contains("nothing to restore"), "{}", app.status);
}

#[test]
fn a_lists_forgotten_memories_too() {
    let (_dir, mut app) = app_with(&NOTES);
    press(&mut app, "f");
    press_code(&mut app, KeyCode::Esc);
    press(&mut app, "a");
    assert_eq!(listed(&app), [4, 3, 2, 1]);
    assert_eq!(app.rows.rows[0].state, State::Forgotten);
    assert_eq!(app.count, 4);
    press(&mut app, "a");
    assert_eq!(listed(&app), [3, 2, 1]);
    assert_eq!(app.count, 3);
}

#[test]
fn enter_reads_the_whole_memory_page_by_page() {
    let long = "line of a long memory, é and ü\n".repeat(600);
    let (_dir, mut app) = app_with(&[&long]);
    press_code(&mut app, KeyCode::Enter);
    let mut text = String::new();
    loop {
        let Some(View::Read(reading)) = app.views.last() else {
            panic!("not reading");
        };
        text.push_str(&reading.page.body);
        if reading.page.next.is_none() {
            break;
        }
        press(&mut app, "n");
    }
    assert_eq!(text, long);
    press(&mut app, "p");
    let Some(View::Read(reading)) = app.views.last() else {
        panic!("not reading");
    };
    assert!(reading.page.offset > 0 && reading.page.next.is_some());
    press_code(&mut app, KeyCode::Esc);
    assert!(app.views.is_empty());
}

#[test]
fn h_shows_the_history() {
    let (_dir, mut app) = app_with(&NOTES);
    press(&mut app, "h");
    let Some(View::History(history)) = app.views.last() else {
        panic!("no history shown");
    };
    assert_eq!(history.id, 4);
    assert_eq!(history.entries.len(), 1);
}

#[test]
fn share_outside_a_checkout_says_why_and_changes_nothing() {
    let (_dir, mut app) = app_with(&NOTES);
    press(&mut app, "s");
    assert!(app.status.contains("not a git checkout"), "{}", app.status);
}

#[test]
fn the_list_reads_more_only_as_the_reader_moves_down() {
    let bodies: Vec<String> = (0..450).map(|i| format!("memory number {i}")).collect();
    let bodies: Vec<&str> = bodies.iter().map(String::as_str).collect();
    let (_dir, mut app) = app_with(&bodies);
    assert_eq!(app.rows.rows.len(), 200);
    assert_eq!(app.count, 450);
    press_code(&mut app, KeyCode::End);
    assert_eq!(app.rows.rows.len(), 450);
    assert_eq!(app.rows.selected().unwrap().id, 1);
    assert_eq!(app.rows.top, 440);
    press_code(&mut app, KeyCode::Home);
    assert_eq!((app.rows.selected, app.rows.top), (0, 0));
    press_code(&mut app, KeyCode::PageDown);
    assert_eq!((app.rows.selected, app.rows.top), (10, 1));
}

#[test]
fn a_drift_finding_is_settled_with_one_key() {
    let (_dir, mut app) = app_with(&[
        "Use tabs for indentation in Makefiles.",
        "use tabs for indentation in makefiles",
        "Deploys go out on Tuesdays only",
        "deploys go out on tuesdays only!",
    ]);
    press(&mut app, "d");
    let Some(View::Drift(drift)) = app.views.last() else {
        panic!("no drift shown");
    };
    assert_eq!(drift.findings.len(), 2);
    assert_eq!(
        (drift.findings[0].id, drift.findings[0].newer),
        (1, Some(2))
    );

    press(&mut app, "f");
    assert!(app.status.contains("forgot 1"), "{}", app.status);
    assert!(app
        .store
        .get(1, &app.scope)
        .unwrap()
        .unwrap()
        .forgotten_at
        .is_some());
    let Some(View::Drift(drift)) = app.views.last() else {
        panic!("drift closed");
    };
    assert_eq!(drift.findings.len(), 1);

    press(&mut app, "x");
    assert!(app.status.contains("dismissed"), "{}", app.status);
    let Some(View::Drift(drift)) = app.views.last() else {
        panic!("drift closed");
    };
    assert!(drift.findings.is_empty());
    assert!(app.store.get(3, &app.scope).unwrap().unwrap().is_live());
    assert_eq!(
        app.rows.rows.iter().find(|r| r.id == 1).unwrap().state,
        State::Forgotten
    );
}

#[test]
fn supersede_on_a_stale_finding_is_refused_with_why() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    let key = project
        .canonicalize()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let mut store = Store::open(&dir.path().join("data")).unwrap();
    let scope = Scope::project(key.clone());
    let memory = NewMemory {
        body: "The parser lives in src/parser.rs".into(),
        project: Some(key),
        ..NewMemory::default()
    };
    store.remember(&memory, &[], &scope).unwrap();
    let mut app = App::open(store, scope, None).unwrap();
    press(&mut app, "d");
    let Some(View::Drift(drift)) = app.views.last() else {
        panic!("no drift shown");
    };
    assert_eq!(drift.findings.len(), 1, "{:?}", drift.findings);
    press(&mut app, "s");
    assert!(app.status.contains("no newer memory"), "{}", app.status);
    press(&mut app, "F");
    assert!(app.status.contains("no newer memory"), "{}", app.status);
    assert!(app.store.get(1, &app.scope).unwrap().unwrap().is_live());
}

#[test]
fn the_frame_shows_the_list_the_search_and_the_status() {
    let (_dir, mut app) = app_with(&NOTES);
    let frame = drawn(&mut app, 100, 12);
    assert!(frame[0].contains("synapse ui"));
    assert!(frame[1].contains("first line"));
    assert!(frame[2].starts_with("> 4"), "{}", frame[2]);
    assert!(frame[2].contains("The CI cache key includes the Rust version"));
    assert!(frame[10].contains("/ to search"));
    assert!(frame[11].contains("p · 4 live"), "{}", frame[11]);

    press(&mut app, "/deploys");
    let frame = drawn(&mut app, 100, 12);
    assert!(frame[2].contains("Deploys go out on Tuesdays only"));
    assert!(frame[10].contains("/ deploys█") && frame[10].contains("1 answer"));
}

#[test]
fn the_key_list_names_every_key() {
    let (_dir, mut app) = app_with(&NOTES);
    press(&mut app, "?");
    let frame = drawn(&mut app, 100, 24).join("\n");
    for (key, _) in draw::KEYS {
        assert!(frame.contains(key.trim()), "{key} missing from\n{frame}");
    }
    press(&mut app, "x");
    assert!(!app.help && !app.done);
}

#[test]
fn a_memory_read_shows_its_bytes_and_text() {
    let (_dir, mut app) = app_with(&NOTES);
    press_code(&mut app, KeyCode::Enter);
    let frame = drawn(&mut app, 80, 10);
    assert!(frame[1].contains("memory 4") && frame[1].contains("bytes 0..42 of 42"));
    assert!(frame[2].contains("The CI cache key includes the Rust version"));
}

/// A memory with an escape sequence (one setting the window's title) and a direction override
/// shows them as escapes in the list and on its page; ratatui would drop
/// the control characters silently, and the override would reorder what the reader sees.
#[test]
fn control_characters_and_overrides_are_shown_as_escapes() {
    let sly = "Deploy \x1b]0;owned\x07notes \u{202e}txt.exe";
    let (_dir, mut app) = app_with(&[sly]);
    let list = drawn(&mut app, 100, 10).join("\n");
    assert!(
        list.contains(r"\u{1b}]0;owned\u{7}notes \u{202e}txt.exe"),
        "{list}"
    );
    press_code(&mut app, KeyCode::Enter);
    let page = drawn(&mut app, 100, 10).join("\n");
    assert!(page.contains(r"Deploy \u{1b}]0;owned\u{7}notes"), "{page}");
    for frame in [&list, &page] {
        assert!(!frame.chars().any(crate::text::hidden), "{frame:?}");
    }
}

#[rstest::rstest]
#[case::short("ab", 4, &["ab"])]
#[case::cut_at_the_edge("abcdef", 4, &["abcd", "ef"])]
#[case::lines_kept("a\nb", 4, &["a", "b"])]
#[case::tab_and_nul("a\tb\0", 12, &["a    b\\u{0}"])]
#[case::escape_and_windows_line_ends("\x1b[2Jx\r\ny", 20, &["\\u{1b}[2Jx", "y"])]
#[case::multibyte("éééé é", 3, &["ééé", "é é"])]
fn screen_lines_cut_at_the_width(#[case] text: &str, #[case] width: usize, #[case] want: &[&str]) {
    assert_eq!(screen_lines(text, width), want);
}
