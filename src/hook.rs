//! The Claude Code hooks: payloads in, context out.
//!
//! - SessionStart (startup, clear, compact, resume): recall from the task signal, leave drift
//!   out, and print the block; with no signal, one status line. On resume, only what the session
//!   was not given before.
//! - UserPromptSubmit: recall for the prompt and the signal; print only memories that clear a
//!   stricter floor and that this session has not been given.
//! - Stop: record `remember:` lines and `<remember>` blocks of the last reply as project
//!   memories, secrets masked; print nothing (printing would make Claude continue).
//!
//! A hook never breaks a session: `main` turns every failure into one line in `synapse.log` in
//! the data folder, prints nothing, and exits 0.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use serde::Deserialize;

use crate::config::{data_dir, Budget, Settings};
use crate::drift;
use crate::inject;
use crate::recall::{self, Hit, Options};
use crate::signal::{Pending, Signal};
use crate::store::write::NewMemory;
use crate::store::{Scope, Store};

/// The most stdin a hook reads; a prompt longer than this is cut (recall needs its start).
const MAX_INPUT: u64 = 4 << 20;
/// The most prompt text recall looks at.
const MAX_PROMPT: usize = 2_000;
/// How long a hook waits for a locked store.
const BUSY_MS: u64 = 250;
/// A term matching more memories than this is common in the hooks' recall (`Options::common`):
/// half of `lanes::COMMON_DF`, which ranks half as many memories per lane and stops counting
/// each term's matches sooner; a prompt's common words rarely decide what is worth injecting
/// unasked.
const HOOK_COMMON: i64 = 250;
/// How long after it starts a hook waits for the changed files of a large checkout.
const SIGNAL_WAIT: Duration = Duration::from_millis(3);

/// Which hook is running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    SessionStart,
    UserPromptSubmit,
    Stop,
}

impl Event {
    fn name(self) -> &'static str {
        match self {
            Event::SessionStart => "SessionStart",
            Event::UserPromptSubmit => "UserPromptSubmit",
            Event::Stop => "Stop",
        }
    }
}

/// What Claude Code sends on stdin (DESIGN §10); unknown fields are ignored.
#[derive(Debug, Deserialize)]
pub struct Payload {
    pub session_id: String,
    pub cwd: PathBuf,
    /// SessionStart: startup, resume, clear or compact.
    #[serde(default)]
    pub source: Option<String>,
    /// UserPromptSubmit.
    #[serde(default)]
    pub prompt: Option<String>,
    /// Stop.
    #[serde(default)]
    pub last_assistant_message: Option<String>,
}

/// Run one hook as a whole process: read stdin, act, print, and always exit 0.
pub fn main(event: Event) -> std::process::ExitCode {
    let mut input = String::new();
    let outcome = std::io::stdin()
        .take(MAX_INPUT)
        .read_to_string(&mut input)
        .context("could not read the hook payload from stdin")
        .and_then(|_| handle(event, &input))
        .and_then(|(out, store)| {
            if let Some(text) = out {
                let mut stdout = std::io::stdout().lock();
                stdout.write_all(text.as_bytes())?;
                stdout
                    .flush()
                    .context("could not write the hook's output")?;
            }
            // The process ends here, with everything written committed. Closing the store would
            // unmap it and free its page cache piece by piece, about half a millisecond that
            // exit spends at once.
            std::mem::forget(store);
            Ok(())
        });
    if let Err(e) = outcome {
        log_failure(event, &e);
    }
    std::process::ExitCode::SUCCESS
}

/// Handle one payload; `Some(text)` is what the hook prints.
pub fn run(event: Event, input: &str) -> Result<Option<String>> {
    Ok(handle(event, input)?.0)
}

/// `run`, handing back the store it opened (none when the hook is off).
fn handle(event: Event, input: &str) -> Result<(Option<String>, Option<Store>)> {
    let payload: Payload = serde_json::from_str(input)
        .with_context(|| format!("{} payload is not the expected JSON", event.name()))?;
    let dir = data_dir()?;
    let settings = Settings::load(&dir)?;
    let on = match event {
        Event::SessionStart => settings.hooks.session_start,
        Event::UserPromptSubmit => settings.hooks.prompt_submit,
        Event::Stop => settings.hooks.stop,
    };
    if !on {
        return Ok((None, None));
    }
    // One lookup of the repository serves the scope and the task signal. A large checkout's
    // changed files are listed on a thread while the store opens (see `signal::Pending`).
    let repo = git2::Repository::discover(&payload.cwd).ok();
    let scope = Scope::of_folder_in(&payload.cwd, repo.as_ref())?;
    let pending = (event != Event::Stop).then(|| Pending::start(repo));
    let mut store = Store::open(&dir)?;
    store.for_hook(BUSY_MS)?;
    let signal = || pending.map_or_else(Signal::default, |p| p.wait(SIGNAL_WAIT));
    let out = match event {
        Event::SessionStart => {
            session_start(&mut store, &scope, &payload, signal(), settings.budget)
        }
        Event::UserPromptSubmit => prompt_submit(&mut store, &scope, &payload, signal()),
        Event::Stop => stop(&mut store, &scope, &payload).map(|_| None),
    }?;
    store.trim_log()?;
    Ok((out, Some(store)))
}

fn session_start(
    store: &mut Store,
    scope: &Scope,
    payload: &Payload,
    signal: Signal,
    budget: Budget,
) -> Result<Option<String>> {
    let source = payload.source.as_deref().unwrap_or("startup");
    if matches!(source, "compact" | "clear") {
        store.clear_injected(&payload.session_id)?;
    }
    if signal.is_empty() {
        if source == "resume" {
            return Ok(None);
        }
        return Ok(Some(format!(
            "{}\n",
            inject::status_line(store.count_live(scope)?)
        )));
    }
    let options = Options {
        budget,
        drift: false,
        substrings: false,
        common: HOOK_COMMON,
        ..Options::default()
    };
    let found = recall::recall(store, scope, &signal.query(), &options)?;
    let hits = naming_changed_files_first(found.results, &signal.files);
    offer(store, scope, payload, hits, inject::session_block)
}

fn prompt_submit(
    store: &mut Store,
    scope: &Scope,
    payload: &Payload,
    mut signal: Signal,
) -> Result<Option<String>> {
    signal.prompt = Some(prompt_start(payload.prompt.as_deref().unwrap_or("")).to_owned());
    let found = recall::recall(store, scope, &signal.query(), &prompt_options())?;
    let need = prompt_floor(found.terms.kept.len());
    let hits: Vec<Hit> = found
        .results
        .into_iter()
        .filter(|h| h.coverage >= need)
        .collect();
    offer(store, scope, payload, hits, inject::prompt_block)
}

/// The part of a prompt recall looks at: its first `MAX_PROMPT` characters.
pub fn prompt_start(prompt: &str) -> &str {
    prompt
        .char_indices()
        .nth(MAX_PROMPT)
        .map_or(prompt, |(at, _)| &prompt[..at])
}

/// How UserPromptSubmit recalls: the lean budget, three memories at most, no substring search
/// (see `Options::substrings`), fewer ranked memories (`HOOK_COMMON`), and drift checked later, on
/// what is offered (`drift_of`).
pub fn prompt_options() -> Options {
    Options {
        budget: Budget::Lean,
        limit: Some(3),
        drift: false,
        substrings: false,
        common: HOOK_COMMON,
        ..Options::default()
    }
}

/// How many distinct words of the prompt (and signal) a memory must hold to be injected
/// unasked: one for a one-word prompt, two up to eight words, three beyond. Injecting costs the
/// session context, so a memory sharing one word with a long prompt stays out.
pub fn prompt_floor(terms: usize) -> usize {
    match terms {
        0 | 1 => 1,
        2..=8 => 2,
        _ => 3,
    }
}

type Format = fn(&[Hit], Option<&str>, i64) -> Option<(String, Vec<i64>)>;

/// Print the hits this session was not given yet, leaving drift out, and remember both what was
/// shown and what was left out, so neither is offered (or explained) twice.
fn offer(
    store: &mut Store,
    scope: &Scope,
    payload: &Payload,
    hits: Vec<Hit>,
    format: Format,
) -> Result<Option<String>> {
    let (fresh, findings) = store.read(|| {
        let given = store.injected(&payload.session_id)?;
        let fresh: Vec<Hit> = hits
            .into_iter()
            .filter(|h| !given.contains(&h.id))
            .collect();
        let findings = drift_of(store, scope, &fresh)?;
        Ok((fresh, findings))
    })?;
    let offered: Vec<i64> = fresh.iter().map(|h| h.id).collect();
    let left = drift::leave_out(&findings, &offered);
    let kept: Vec<Hit> = fresh
        .into_iter()
        .filter(|h| !left.ids.contains(&h.id))
        .collect();
    let now = crate::store::now();
    let Some((text, mut given)) = format(&kept, left.line.as_deref(), now) else {
        return Ok(None);
    };
    given.extend(&left.ids);
    store.mark_injected(&payload.session_id, &given)?;
    Ok(Some(text))
}

/// The drift findings on hits about to be offered. The hooks recall without drift and check
/// only these: most of what a prompt recalls falls below its floor or was given before, and
/// each check costs an index search.
pub fn drift_of(store: &Store, scope: &Scope, hits: &[Hit]) -> Result<Vec<drift::Finding>> {
    if hits.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<i64> = hits.iter().map(|h| h.id).collect();
    let memories = store.live_by_ids(&ids, scope)?;
    drift::check(store, scope, &memories, drift::Partners::Newer)
}

/// Memories that name a file being changed come first: they are about the work at hand.
fn naming_changed_files_first(hits: Vec<Hit>, files: &[String]) -> Vec<Hit> {
    let (mut first, rest): (Vec<Hit>, Vec<Hit>) = hits
        .into_iter()
        .partition(|h| files.iter().any(|f| h.body.contains(f.as_str())));
    first.extend(rest);
    first
}

fn stop(store: &mut Store, scope: &Scope, payload: &Payload) -> Result<()> {
    let Some(message) = payload.last_assistant_message.as_deref() else {
        return Ok(());
    };
    let day = crate::store::today();
    let short: String = payload.session_id.chars().take(8).collect();
    for lesson in crate::lessons::marked(message) {
        let memory = NewMemory {
            body: crate::lessons::mask_secrets(&lesson),
            source: format!("session {short} {day}"),
            project: scope.key().map(str::to_owned),
            created_at: None,
        };
        store.remember(&memory, &[], scope)?;
    }
    Ok(())
}

/// One line in `synapse.log` in the data folder: the hook's only way to report.
fn log_failure(event: Event, error: &anyhow::Error) {
    let Ok(dir) = data_dir() else {
        return;
    };
    let line = format!(
        "{} {} failed: {}\n",
        crate::store::today(),
        event.name(),
        format!("{error:#}").replace('\n', " ")
    );
    let written = append(&dir.join("synapse.log"), &line);
    // Nowhere is left to report a log that cannot be written; the session goes on regardless.
    drop(written);
}

fn append(path: &Path, line: &str) -> std::io::Result<()> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?
        .write_all(line.as_bytes())
}
