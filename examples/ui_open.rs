//! How fast `synapse ui` opens and keeps up with typing, on a generated store.
//!
//! `cargo run --release --example ui_open -- MEMORIES ITERATIONS` (defaults 10,000 and 30). It
//! builds a temporary store of the `retrieval` fixture's memories (`common::corpus`), then times,
//! each after one untimed warm-up:
//! - `open`: opening the store, reading the view's first chunk and count (`App::open`) and drawing
//!   the first frame into a 120 x 40 `TestBackend`: what stands between `synapse ui` and its
//!   first screen, less process start and the terminal's own setup;
//! - `keystroke`: one key typed into the search box (`/fixture note 42`, over and over), which
//!   ranks the memories with recall, and the frame drawn after it;
//! - `redraw`: a frame drawn with nothing changed.
//!
//! Targets: open under 100 ms, a keystroke's redraw under 16 ms. It prints one JSON
//! object with the medians; it never touches the user's store.

mod common;

use std::time::Instant;

use anyhow::{bail, Context, Result};
use common::{arg, corpus, measure_timed, ms};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use serde_json::json;
use synapse::secrets::Secrets;
use synapse::store::{Scope, Store};
use synapse::ui::{draw, App};

const WIDTH: u16 = 120;
const HEIGHT: u16 = 40;
/// What the keystroke measurement types, a key at a time, before starting over.
const TYPED: &str = "/fixture note 42";

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let count = arg(&args, 0, 10_000, 1_000_000, "MEMORIES")?;
    let iterations = arg(&args, 1, 30, 1_000, "ITERATIONS")?;

    let dir = tempfile::tempdir().context("could not make a temporary folder")?;
    let mut store = Store::open(dir.path())?;
    let report = store.import(&corpus(count), &Scope::global(), Secrets::Mask)?;
    if report.stored != count {
        bail!("seeded {} of {count} memories", report.stored);
    }
    drop(store);
    let scope = Scope::project("fixture-project");

    let open = measure_timed("open", iterations, || {
        let started = Instant::now();
        let mut app = App::open(Store::open(dir.path())?, scope.clone(), None)?;
        let mut terminal = Terminal::new(TestBackend::new(WIDTH, HEIGHT))?;
        frame(&mut terminal, &mut app)?;
        let took = ms(started);
        if app.count != count as i64 {
            bail!("the view counts {} of {count} memories", app.count);
        }
        Ok((took, app.rows.rows.len()))
    })?;

    let mut app = App::open(Store::open(dir.path())?, scope.clone(), None)?;
    let mut terminal = Terminal::new(TestBackend::new(WIDTH, HEIGHT))?;
    frame(&mut terminal, &mut app)?;
    let mut typed = TYPED.chars().cycle();
    let keystroke = measure_timed("keystroke", iterations, || {
        let c = typed.next().context("the keys to type ran out")?;
        if c == '/' {
            // Starting over: the search box emptied first, untimed.
            app.on_key(KeyEvent::from(KeyCode::Esc));
        }
        let started = Instant::now();
        app.on_key(KeyEvent::from(KeyCode::Char(c)));
        frame(&mut terminal, &mut app)?;
        Ok((ms(started), app.rows.rows.len()))
    })?;
    // The whole query answers (a prefix of a word in every memory may not: recall ranks words).
    app.on_key(KeyEvent::from(KeyCode::Esc));
    for c in TYPED.chars() {
        app.on_key(KeyEvent::from(KeyCode::Char(c)));
    }
    if app.rows.rows.is_empty() {
        bail!("typing {TYPED:?} found nothing: {}", app.status);
    }
    let redraw = measure_timed("redraw", iterations, || {
        let started = Instant::now();
        frame(&mut terminal, &mut app)?;
        Ok((ms(started), app.rows.rows.len()))
    })?;

    // The helpers call the size they are handed `response_bytes`; here it is the rows listed.
    let measurements: Vec<serde_json::Value> = [open, keystroke, redraw]
        .into_iter()
        .map(|mut m| {
            if let Some(rows) = m.as_object_mut().and_then(|o| o.remove("response_bytes")) {
                m["rows"] = rows;
            }
            m
        })
        .collect();
    let out = json!({
        "profile": if cfg!(debug_assertions) { "debug" } else { "release" },
        "memories": count,
        "iterations": iterations,
        "screen": format!("{WIDTH}x{HEIGHT}"),
        "measurements": measurements,
    });
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}

/// Fit the view to the screen and draw one frame, as `synapse ui` does after each key.
fn frame(terminal: &mut Terminal<TestBackend>, app: &mut App) -> Result<()> {
    app.fit(draw::list_rows(HEIGHT), usize::from(WIDTH) - 2);
    terminal.draw(|f| draw::draw(f, app))?;
    Ok(())
}
