//! The list of memories the view shows: rows read a chunk at a time as the reader moves down
//! (`Store::chunk`), or the answers of a search, and which one is selected.

use anyhow::{Context, Result};

use crate::recall::Hit;
use crate::store::browse::After;
use crate::store::{Memory, Scope, Store};

/// How many memories the list reads at a time: several screens.
const CHUNK: usize = 200;
/// How many characters of a memory's opening line a row keeps.
const OPENING_CHARS: usize = 200;

/// Whether a memory is recallable, and if not, why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Live,
    /// Replaced by this memory.
    Superseded(i64),
    Forgotten,
}

impl State {
    fn of(memory: &Memory) -> State {
        match (memory.forgotten_at, memory.superseded_by) {
            (Some(_), _) => State::Forgotten,
            (None, Some(by)) => State::Superseded(by),
            (None, None) => State::Live,
        }
    }
}

/// One memory as a row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub id: i64,
    /// A global memory, not the project's.
    pub global: bool,
    pub source: String,
    /// Seconds since the epoch.
    pub created_at: i64,
    pub state: State,
    /// The first line that holds anything, cut to `OPENING_CHARS`.
    pub opening: String,
}

impl Row {
    pub fn of_memory(memory: &Memory) -> Row {
        Row {
            id: memory.id,
            global: memory.project.is_none(),
            source: crate::text::visible(&memory.source).into_owned(),
            created_at: memory.created_at.seconds(),
            state: State::of(memory),
            opening: crate::text::gist(&memory.body, OPENING_CHARS),
        }
    }

    /// A search answer: recall returns only live memories.
    fn of_hit(hit: &Hit) -> Row {
        Row {
            id: hit.id,
            global: hit.project.is_none(),
            source: crate::text::visible(&hit.source).into_owned(),
            created_at: hit.created_at.seconds(),
            state: State::Live,
            opening: crate::text::gist(&hit.body, OPENING_CHARS),
        }
    }
}

/// The rows shown and the selection among them.
#[derive(Debug, Default)]
pub struct Rows {
    pub rows: Vec<Row>,
    /// Every row the list can show is read (a search's answers always are).
    pub complete: bool,
    pub selected: usize,
    /// The first row on screen.
    pub top: usize,
    /// How many rows fit on screen.
    pub height: usize,
    /// Superseded and forgotten memories are listed too.
    pub all: bool,
}

impl Rows {
    /// The newest memories `scope` sees, a chunk of them.
    pub fn browse(store: &Store, scope: &Scope, all: bool, height: usize) -> Result<Rows> {
        let mut rows = Rows {
            all,
            height,
            ..Rows::default()
        };
        rows.read_more(store, scope)?;
        Ok(rows)
    }

    /// The answers of a search, in recall's order.
    pub fn answers(hits: &[Hit], height: usize) -> Rows {
        Rows {
            rows: hits.iter().map(Row::of_hit).collect(),
            complete: true,
            height,
            ..Rows::default()
        }
    }

    pub fn selected(&self) -> Option<&Row> {
        self.rows.get(self.selected)
    }

    /// Move the selection by `by` rows (negative: up), reading more when it nears the end.
    pub fn step(&mut self, store: &Store, scope: &Scope, by: isize) -> Result<()> {
        let want = self.selected.saturating_add_signed(by);
        self.select(store, scope, want)
    }

    /// Select row `at`, or the last one there is.
    pub fn select(&mut self, store: &Store, scope: &Scope, at: usize) -> Result<()> {
        // Read a screen beyond the selection, so paging down never waits on a read.
        while !self.complete && self.rows.len() <= at.saturating_add(self.height) {
            self.read_more(store, scope)?;
        }
        self.selected = at.min(self.rows.len().saturating_sub(1));
        self.keep_in_view();
        Ok(())
    }

    /// Select the last memory, reading every row there is.
    pub fn select_last(&mut self, store: &Store, scope: &Scope) -> Result<()> {
        while !self.complete {
            self.read_more(store, scope)?;
        }
        self.select(store, scope, usize::MAX)
    }

    /// How many rows fit on screen now.
    pub fn fit(&mut self, height: usize) {
        self.height = height.max(1);
        self.keep_in_view();
    }

    /// Read the selected memory again after a change to it (a forget, a restore): its row shows
    /// its new state where it was, so the change can be undone on the spot.
    pub fn refresh(&mut self, store: &Store, scope: &Scope, id: i64) -> Result<()> {
        let memory = store.head(id, scope)?;
        if let Some(row) = self.rows.iter_mut().find(|r| r.id == id) {
            *row = Row::of_memory(&memory);
        }
        Ok(())
    }

    fn keep_in_view(&mut self) {
        let height = self.height.max(1);
        if self.selected < self.top {
            self.top = self.selected;
        } else if self.selected >= self.top + height {
            self.top = self.selected + 1 - height;
        }
    }

    fn read_more(&mut self, store: &Store, scope: &Scope) -> Result<()> {
        let after = self.rows.last().map(|r| After {
            created_at: r.created_at,
            id: r.id,
        });
        let chunk = store
            .chunk(scope, self.all, after, CHUNK)
            .context("could not read the list of memories")?;
        self.complete = chunk.len() < CHUNK;
        self.rows.extend(chunk.iter().map(Row::of_memory));
        Ok(())
    }
}
