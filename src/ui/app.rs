//! The state of `synapse ui` and what each key does to it. No terminal here: a test feeds key
//! events and looks at the state and at the store.
//!
//! Every change goes through the store's own methods, those the command-line verbs call
//! (`Store::forget`, `Store::restore`, `team::share`, `drift::settle::settle`), so each one is in the
//! memory's history and can be undone; the status line says how.

use std::collections::HashMap;
use std::path::PathBuf;

use anyhow::{Context, Result};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::rows::{Rows, State};
use crate::config::Budget;
use crate::drift::settle::Settle;
use crate::drift::Finding;
use crate::read::Page;
use crate::recall::{self, Options};
use crate::store::browse::OPENING_BYTES;
use crate::store::history::Entry;
use crate::store::shared::Change;
use crate::store::{Scope, Store};

/// The read page's size: `synapse read`'s default.
const PAGE_BYTES: usize = 6_000;

/// A screen over the list: the memory being read, a memory's history, the drift findings.
#[derive(Debug)]
pub enum View {
    Read(Reading),
    History(History),
    Drift(Drift),
}

/// One page of a memory being read, as `synapse read` pages it.
#[derive(Debug)]
pub struct Reading {
    pub page: Page,
    /// Where the pages before this one start, so the reader can go back.
    pub earlier: Vec<usize>,
    /// The page's text cut into lines that fit the screen's width: scrolling counts these.
    pub lines: Vec<String>,
    /// The first line on screen.
    pub scroll: usize,
}

impl Reading {
    fn new(page: Page, earlier: Vec<usize>, width: usize) -> Reading {
        let lines = screen_lines(&page.body, width);
        Reading {
            page,
            earlier,
            lines,
            scroll: 0,
        }
    }
}

/// `text` as lines of at most `width` characters, each line of the text cut where it reaches
/// the edge. Tabs become four spaces, and other control characters (a NUL, an escape) and
/// direction overrides their escapes (`text::visible`): a terminal would act on them instead of
/// showing them.
pub fn screen_lines(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    for line in crate::text::visible(text).split('\n') {
        let mut out = String::new();
        let mut chars = 0;
        for c in line.chars() {
            let shown: &[char] = match c {
                '\t' => &[' '; 4],
                _ => std::slice::from_ref(&c),
            };
            for &c in shown {
                if chars == width {
                    lines.push(std::mem::take(&mut out));
                    chars = 0;
                }
                out.push(c);
                chars += 1;
            }
        }
        lines.push(out);
    }
    lines
}

/// Every recorded change to one memory.
#[derive(Debug)]
pub struct History {
    pub id: i64,
    pub opening: String,
    pub entries: Vec<Entry>,
}

/// The drift findings among the memories this folder sees.
#[derive(Debug)]
pub struct Drift {
    pub findings: Vec<Finding>,
    /// The opening line of each memory the findings name.
    pub openings: HashMap<i64, String>,
    pub selected: usize,
}

/// Everything the view shows, and the store it changes.
pub struct App {
    pub store: Store,
    pub scope: Scope,
    /// The git checkout that sharing writes to, when the project is one.
    checkout: Option<PathBuf>,
    /// The memories listed (the newest first, or a search's answers).
    pub rows: Rows,
    /// How many memories the list holds when not searching (live ones, or all with `a`).
    pub count: i64,
    /// The search typed so far; empty when not searching.
    pub query: String,
    /// Keys go to the search box.
    pub typing: bool,
    /// Screens over the list, the top one shown; `Esc` goes back one.
    pub views: Vec<View>,
    /// The key list is shown over everything.
    pub help: bool,
    /// How many characters a line of text may hold on screen.
    pub width: usize,
    /// What the last action did, and how to undo it.
    pub status: String,
    pub done: bool,
}

impl App {
    /// The newest memories `scope` sees, their first screens only.
    pub fn open(store: Store, scope: Scope, checkout: Option<PathBuf>) -> Result<App> {
        let rows = Rows::browse(&store, &scope, false, 1)?;
        let count = store.count_visible(&scope, false)?;
        Ok(App {
            store,
            scope,
            checkout,
            rows,
            count,
            query: String::new(),
            typing: false,
            views: Vec::new(),
            help: false,
            width: 80,
            status: "? lists the keys".to_owned(),
            done: false,
        })
    }

    /// How many list rows fit on screen, and how wide the text may be.
    pub fn fit(&mut self, height: usize, width: usize) {
        self.rows.fit(height);
        if width != self.width {
            self.width = width;
            for view in &mut self.views {
                if let View::Read(reading) = view {
                    reading.lines = screen_lines(&reading.page.body, width);
                    reading.scroll = reading.scroll.min(reading.lines.len().saturating_sub(1));
                }
            }
        }
    }

    /// Act on one key. A failure (a memory already forgotten, a store busy for too long) is
    /// shown on the status line; the view goes on.
    pub fn on_key(&mut self, key: KeyEvent) {
        if let Err(e) = self.try_key(key) {
            self.status = format!("{e:#}");
        }
    }

    fn try_key(&mut self, key: KeyEvent) -> Result<()> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && key.code == KeyCode::Char('c') {
            self.done = true;
            return Ok(());
        }
        if self.help {
            // Any key closes the key list; `q` still quits.
            self.help = false;
            self.done = key.code == KeyCode::Char('q');
            return Ok(());
        }
        if self.typing {
            return self.on_search_key(key);
        }
        match key.code {
            KeyCode::Char('q') => self.done = true,
            KeyCode::Char('?') => self.help = true,
            KeyCode::Esc if !self.views.is_empty() => {
                self.views.pop();
            }
            _ => match self.views.last_mut() {
                None => self.on_list_key(key)?,
                Some(View::Read(reading)) => {
                    let (store, scope) = (&self.store, &self.scope);
                    on_read_key(store, scope, reading, key, self.rows.height, self.width)?;
                }
                Some(View::History(_)) => {}
                Some(View::Drift(_)) => self.on_drift_key(key)?,
            },
        }
        Ok(())
    }

    fn on_list_key(&mut self, key: KeyEvent) -> Result<()> {
        let (store, scope) = (&self.store, &self.scope);
        let page = self.rows.height as isize;
        match key.code {
            KeyCode::Char('/') => self.typing = true,
            KeyCode::Esc => self.clear_search()?,
            KeyCode::Down | KeyCode::Char('j') => self.rows.step(store, scope, 1)?,
            KeyCode::Up | KeyCode::Char('k') => self.rows.step(store, scope, -1)?,
            KeyCode::PageDown => self.rows.step(store, scope, page)?,
            KeyCode::PageUp => self.rows.step(store, scope, -page)?,
            KeyCode::Home | KeyCode::Char('g') => self.rows.select(store, scope, 0)?,
            KeyCode::End | KeyCode::Char('G') => self.rows.select_last(store, scope)?,
            KeyCode::Enter => self.read_selected()?,
            KeyCode::Char('a') => self.toggle_all()?,
            KeyCode::Char('d') => self.open_drift()?,
            KeyCode::Char('f') => self.forget_selected()?,
            KeyCode::Char('r') => self.restore_selected()?,
            KeyCode::Char('h') => self.history_of_selected()?,
            KeyCode::Char('s') => self.share_selected()?,
            _ => {}
        }
        Ok(())
    }

    fn on_search_key(&mut self, key: KeyEvent) -> Result<()> {
        let (store, scope) = (&self.store, &self.scope);
        match key.code {
            KeyCode::Esc => self.clear_search()?,
            KeyCode::Enter => self.typing = false,
            KeyCode::Backspace => {
                self.query.pop();
                self.search()?;
            }
            KeyCode::Down => self.rows.step(store, scope, 1)?,
            KeyCode::Up => self.rows.step(store, scope, -1)?,
            KeyCode::PageDown => self.rows.step(store, scope, self.rows.height as isize)?,
            KeyCode::PageUp => self.rows.step(store, scope, -(self.rows.height as isize))?,
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                self.query.push(c);
                self.search()?;
            }
            _ => {}
        }
        Ok(())
    }

    /// Rank the memories for the query as `synapse recall` does (at most the full budget's 25
    /// answers, no drift check: a keystroke must redraw at once); an empty query lists them all
    /// again.
    fn search(&mut self) -> Result<()> {
        if self.query.trim().is_empty() {
            return self.list_again();
        }
        let options = Options {
            budget: Budget::Full,
            drift: false,
            ..Options::default()
        };
        let found = recall::recall(&self.store, &self.scope, &self.query, &options)
            .with_context(|| format!("could not search for {:?}", self.query))?;
        self.rows = Rows::answers(&found.results, self.rows.height);
        Ok(())
    }

    fn clear_search(&mut self) -> Result<()> {
        let searched = !self.query.is_empty() || self.typing;
        self.query.clear();
        self.typing = false;
        if searched {
            self.list_again()?;
        }
        Ok(())
    }

    /// The list from the top, as `a` last set it.
    fn list_again(&mut self) -> Result<()> {
        let all = self.rows.all;
        self.rows = Rows::browse(&self.store, &self.scope, all, self.rows.height)?;
        self.count = self.store.count_visible(&self.scope, all)?;
        Ok(())
    }

    /// Live memories only, or superseded and forgotten ones too.
    fn toggle_all(&mut self) -> Result<()> {
        self.query.clear();
        self.rows.all = !self.rows.all;
        self.list_again()?;
        self.status = if self.rows.all {
            "listing every memory: live, superseded and forgotten (a: live only)".to_owned()
        } else {
            "listing live memories (a: superseded and forgotten too)".to_owned()
        };
        Ok(())
    }

    fn selected_id(&self) -> Result<i64> {
        self.rows
            .selected()
            .map(|r| r.id)
            .context("no memory is selected")
    }

    fn read_selected(&mut self) -> Result<()> {
        let id = self.selected_id()?;
        self.read(id)
    }

    fn read(&mut self, id: i64) -> Result<()> {
        let page = read_page(&self.store, &self.scope, id, 0)?;
        let reading = Reading::new(page, Vec::new(), self.width);
        self.views.push(View::Read(reading));
        Ok(())
    }

    fn forget_selected(&mut self) -> Result<()> {
        let id = self.selected_id()?;
        self.store
            .forget(id, &self.scope)
            .with_context(|| format!("could not forget {id}"))?;
        self.changed(id)?;
        self.status = format!("forgot {id} (undo: r, or synapse restore {id})");
        Ok(())
    }

    fn restore_selected(&mut self) -> Result<()> {
        let id = self.selected_id()?;
        let before = self.rows.selected().map(|r| r.state);
        let undone = self
            .store
            .restore(id, &self.scope)
            .with_context(|| format!("could not restore {id}"))?;
        self.changed(id)?;
        let undo = match before {
            Some(State::Superseded(by)) if undone == "supersede" => {
                format!("synapse supersede {id} {by}")
            }
            _ => format!("f, or synapse forget {id}"),
        };
        self.status = format!("restored {id} (undid its {undone}; undo: {undo})");
        Ok(())
    }

    fn share_selected(&mut self) -> Result<()> {
        let id = self.selected_id()?;
        let top = self.checkout.as_deref().with_context(|| {
            "this project is not a git checkout: a team shares memories through its repository"
        })?;
        let events = crate::team::share(&mut self.store, &self.scope, top, &[id])
            .with_context(|| format!("could not share {id}"))?;
        let file = crate::team::FILE;
        self.status = match events.into_iter().flatten().next() {
            Some(e) if e.change == Change::Restore => {
                format!("shared {id} again in {file} (undo: synapse unshare {id})")
            }
            Some(e) => format!(
                "shared {id} as {} in {file}; commit and push it (undo: synapse unshare {id})",
                e.uid
            ),
            None => format!("{id} is already shared"),
        };
        Ok(())
    }

    fn history_of_selected(&mut self) -> Result<()> {
        let id = self.selected_id()?;
        let entries = self
            .store
            .history(id, &self.scope)
            .with_context(|| format!("could not read the history of {id}"))?;
        let opening = self.rows.selected().map(|r| r.opening.clone());
        self.views.push(View::History(History {
            id,
            opening: opening.unwrap_or_default(),
            entries,
        }));
        Ok(())
    }

    /// After a change to memory `id`: its row shows its new state, and the count is current.
    fn changed(&mut self, id: i64) -> Result<()> {
        self.rows.refresh(&self.store, &self.scope, id)?;
        if self.query.is_empty() {
            self.count = self.store.count_visible(&self.scope, self.rows.all)?;
        }
        Ok(())
    }

    fn open_drift(&mut self) -> Result<()> {
        let drift = audit(&self.store, &self.scope)?;
        self.status = format!(
            "{} drift finding(s); s supersedes the older, f forgets it (F the newer), x dismisses",
            drift.findings.len()
        );
        self.views.push(View::Drift(drift));
        Ok(())
    }

    fn on_drift_key(&mut self, key: KeyEvent) -> Result<()> {
        let Some(View::Drift(drift)) = self.views.last_mut() else {
            return Ok(());
        };
        let last = drift.findings.len().saturating_sub(1);
        match key.code {
            KeyCode::Down | KeyCode::Char('j') => drift.selected = (drift.selected + 1).min(last),
            KeyCode::Up | KeyCode::Char('k') => drift.selected = drift.selected.saturating_sub(1),
            KeyCode::Home | KeyCode::Char('g') => drift.selected = 0,
            KeyCode::End | KeyCode::Char('G') => drift.selected = last,
            KeyCode::Enter => {
                if let Some(f) = drift.findings.get(drift.selected) {
                    let id = f.id;
                    self.read(id)?;
                }
            }
            KeyCode::Char('s') => self.settle(|_| Some(Settle::SupersedeOlder))?,
            KeyCode::Char('f') => self.settle(|f| Some(Settle::Forget(f.id)))?,
            KeyCode::Char('F') => self.settle(|f| f.newer.map(Settle::Forget))?,
            KeyCode::Char('x') => self.settle(|_| Some(Settle::Dismiss))?,
            _ => {}
        }
        Ok(())
    }

    /// Settle the selected finding as `how` says (`None`: it does not apply to this finding)
    /// through `drift::settle::settle`, as the command line will; then check again, since
    /// settling one finding can settle others.
    fn settle(&mut self, how: impl FnOnce(&Finding) -> Option<Settle>) -> Result<()> {
        let Some(View::Drift(drift)) = self.views.last() else {
            return Ok(());
        };
        let Some(finding) = drift.findings.get(drift.selected).cloned() else {
            return Ok(());
        };
        let selected = drift.selected;
        let how = how(&finding)
            .with_context(|| format!("{} has no newer memory to forget", finding.named()))?;
        let done = crate::drift::settle::settle(&mut self.store, &self.scope, &finding, how)?;
        for id in std::iter::once(finding.id).chain(finding.newer) {
            self.rows.refresh(&self.store, &self.scope, id)?;
        }
        self.count = self.store.count_visible(&self.scope, self.rows.all)?;
        let mut drift = audit(&self.store, &self.scope)?;
        drift.selected = selected.min(drift.findings.len().saturating_sub(1));
        if let Some(view) = self.views.last_mut() {
            *view = View::Drift(drift);
        }
        self.status = done;
        Ok(())
    }
}

/// Page `id` from byte `offset`; a memory that is not live cannot be read, as with `synapse read`.
fn read_page(store: &Store, scope: &Scope, id: i64, offset: usize) -> Result<Page> {
    crate::read::read(store, scope, id, offset, PAGE_BYTES)?.with_context(|| {
        format!("memory {id} cannot be read: it is superseded or forgotten (r restores it)")
    })
}

fn on_read_key(
    store: &Store,
    scope: &Scope,
    reading: &mut Reading,
    key: KeyEvent,
    screen: usize,
    width: usize,
) -> Result<()> {
    let last = reading.lines.len().saturating_sub(1);
    match key.code {
        KeyCode::Down | KeyCode::Char('j') => reading.scroll = (reading.scroll + 1).min(last),
        KeyCode::Up | KeyCode::Char('k') => reading.scroll = reading.scroll.saturating_sub(1),
        KeyCode::PageDown | KeyCode::Char(' ') => {
            reading.scroll = (reading.scroll + screen).min(last);
        }
        KeyCode::PageUp => reading.scroll = reading.scroll.saturating_sub(screen),
        KeyCode::Home | KeyCode::Char('g') => reading.scroll = 0,
        KeyCode::End | KeyCode::Char('G') => reading.scroll = last,
        KeyCode::Char('n') | KeyCode::Right => {
            if let Some(next) = reading.page.next {
                let page = read_page(store, scope, reading.page.id, next)?;
                let mut earlier = std::mem::take(&mut reading.earlier);
                earlier.push(reading.page.offset);
                *reading = Reading::new(page, earlier, width);
            }
        }
        KeyCode::Char('p') | KeyCode::Left => {
            if let Some(offset) = reading.earlier.last().copied() {
                let page = read_page(store, scope, reading.page.id, offset)?;
                let mut earlier = std::mem::take(&mut reading.earlier);
                earlier.pop();
                *reading = Reading::new(page, earlier, width);
            }
        }
        _ => {}
    }
    Ok(())
}

/// Every finding among the memories `scope` sees, with the opening lines of the memories named.
fn audit(store: &Store, scope: &Scope) -> Result<Drift> {
    let ignore = &store.settings()?.drift.ignore;
    let findings =
        crate::drift::audit(store, scope, ignore).context("could not check for drift")?;
    let ids: Vec<i64> = findings
        .iter()
        .flat_map(|f| std::iter::once(f.id).chain(f.newer))
        .collect();
    let openings = store
        .live_openings_by_ids(&ids, scope, OPENING_BYTES)?
        .iter()
        .map(|m| (m.id, crate::text::gist(&m.body, 200)))
        .collect();
    Ok(Drift {
        findings,
        openings,
        selected: 0,
    })
}
