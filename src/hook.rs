//! The Claude Code hooks: payloads in, context out.
//!
//! - SessionStart (startup, clear, compact, resume): recall from the task signal, leave drift
//!   out, and print the block; with no signal, one status line. On resume, only what the session
//!   was not given before.
//! - UserPromptSubmit: recall for the prompt and the signal; print only memories that clear a
//!   stricter floor and that this session has not been given.
//! - UserPromptSubmit with `/synapse:remember`, `recall`, `read` or `forget`: run the command on
//!   the text as typed and print its answer (see `slash`).
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
use crate::recall::fuse::Matcher;
use crate::recall::terms::Terms;
use crate::recall::{self, Hit, Options};
use crate::signal::{Pending, Signal};
use crate::slash;
use crate::store::spool;
use crate::store::write::NewMemory;
use crate::store::{Scope, Store};
use crate::text::WordStemmer;

/// The most stdin a hook reads; a prompt longer than this is cut (recall needs its start).
const MAX_INPUT: u64 = 4 << 20;
/// The most prompt text recall looks at.
const MAX_PROMPT: usize = 2_000;
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

/// What Claude Code sends on stdin (docs/formats.md); unknown fields are ignored.
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

/// Run one hook as a whole process: read stdin, act, print, and always exit 0. A panic is caught
/// too: it prints nothing (the default panic message could quote a payload) and logs where it
/// happened.
pub fn main(event: Event) -> std::process::ExitCode {
    std::panic::set_hook(Box::new(|info| {
        let place = info.location().map_or("an unknown place".to_owned(), |l| {
            format!("{}:{}", l.file(), l.line())
        });
        if let Ok(mut slot) = PANICKED_AT.lock() {
            *slot = Some(place);
        }
    }));
    let outcome = std::panic::catch_unwind(|| run_process(event)).unwrap_or_else(|_| {
        let place = PANICKED_AT
            .lock()
            .ok()
            .and_then(|mut slot| slot.take())
            .unwrap_or_default();
        Err(anyhow::anyhow!(
            "panicked at {place} (a bug in Synapse; please report it)"
        ))
    });
    if let Err(e) = outcome {
        log_failure(event, &e);
    }
    std::process::ExitCode::SUCCESS
}

/// Where the last panic happened, set by the panic hook `main` installs.
static PANICKED_AT: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

fn run_process(event: Event) -> Result<()> {
    let mut input = String::new();
    std::io::stdin()
        .take(MAX_INPUT)
        .read_to_string(&mut input)
        .context("could not read the hook payload from stdin")?;
    // Debug builds only: lets the tests prove that a panic, whatever it quotes, stays silent.
    if cfg!(debug_assertions) && std::env::var_os("SYNAPSE_TEST_PANIC").is_some() {
        panic!("a test panic quoting the payload: {input}");
    }
    let (out, store) = handle(event, &input)?;
    if let Some(text) = out {
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(text.as_bytes())?;
        stdout
            .flush()
            .context("could not write the hook's output")?;
    }
    if let Some(store) = store {
        // After the output is out: a checkpoint that fails cannot cost the session its context.
        store.trim_log()?;
        // The process ends here, with everything written committed. Closing the store would
        // unmap it and free its page cache piece by piece, about half a millisecond that exit
        // spends at once.
        std::mem::forget(store);
    }
    Ok(())
}

/// Handle one payload; `Some(text)` is what the hook prints.
pub fn run(event: Event, input: &str) -> Result<Option<String>> {
    let (out, store) = handle(event, input)?;
    if let Some(store) = store {
        store.trim_log()?;
    }
    Ok(out)
}

/// `run`, handing back the store it opened (none when the hook is off).
fn handle(event: Event, input: &str) -> Result<(Option<String>, Option<Store>)> {
    let payload: Payload = serde_json::from_str(input)
        .with_context(|| format!("{} payload is not the expected JSON", event.name()))?;
    let dir = data_dir()?;
    let settings = Settings::load(&dir)?;
    // A Synapse slash command in the prompt is run here, on the text as typed (see `slash`),
    // whether or not memories are added to prompts.
    let command = match event {
        Event::UserPromptSubmit => payload.prompt.as_deref().and_then(slash::parse),
        _ => None,
    };
    let on = command.is_some()
        || match event {
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
    let checkout = repo.as_ref().and_then(|r| r.workdir()).map(PathBuf::from);
    let wants_signal = event != Event::Stop && command.is_none();
    let pending = wants_signal.then(|| Pending::start(repo, &settings.signal.ignore));
    let budget = settings.budget;
    let mut store = match Store::open_for_hook(&dir) {
        // Drift reads `[drift] ignore` from the store's settings: not a second read of the file.
        Ok(store) => store.with_settings(settings),
        // Even opening may wait on another process (one recovering the write-ahead log, say):
        // a lesson is never dropped for that.
        Err(e) if event == Event::Stop && crate::store::is_busy(&e) => {
            for memory in lessons(&scope, &payload) {
                spool::append(&dir, spooled(&memory))?;
            }
            return Ok((None, None));
        }
        Err(e) => return Err(e),
    };
    let signal = || pending.map_or_else(Signal::default, |p| p.wait(SIGNAL_WAIT));
    let out = match (event, &command) {
        (Event::UserPromptSubmit, Some(command)) => {
            slash::run(&mut store, &scope, command, budget, checkout.as_deref()).map(Some)
        }
        (Event::SessionStart, _) => {
            let team = fold_team(&mut store, &scope, checkout.as_deref());
            session_start(&mut store, &scope, &payload, signal(), budget, team)
        }
        (Event::UserPromptSubmit, None) => prompt_submit(&mut store, &scope, &payload, signal()),
        (Event::Stop, _) => stop(&mut store, &scope, &payload, checkout.as_deref()).map(|_| None),
    }?;
    Ok((out, Some(store)))
}

/// Make a hook's write, or, when another process holds the store's lock longer than a hook may
/// wait, leave it in the spool for the next process that holds the lock.
fn write_or_spool(
    store: &mut Store,
    write: impl FnOnce(&mut Store) -> Result<()>,
    entry: impl FnOnce() -> spool::Entry,
) -> Result<()> {
    match write(store) {
        Err(e) if crate::store::is_busy(&e) => spool::append(store.dir(), entry()),
        other => other,
    }
}

/// Fold the checkout's shared file (`team`) into the store when it changed since the last fold
/// (see `team::fold_if_changed` for what an unchanged file costs). Returns, for the block's line
/// on what was left out, the memories a teammate's newer one replaced. A fold that fails (the
/// store busy, an unreadable file) costs the session nothing: it is logged and tried again at
/// the next start.
fn fold_team(store: &mut Store, scope: &Scope, checkout: Option<&Path>) -> Vec<String> {
    let Some(top) = checkout else {
        return Vec::new();
    };
    replaced_by_team(store, scope, top).unwrap_or_else(|e| {
        log_failure(
            Event::SessionStart,
            &e.context("could not fold the team's shared file"),
        );
        Vec::new()
    })
}

/// `fold_team`'s work.
fn replaced_by_team(store: &mut Store, scope: &Scope, top: &Path) -> Result<Vec<String>> {
    let Some(synced) =
        crate::team::fold_if_changed(store, scope, top, crate::team::HOOK_FOLD_BYTES)?
    else {
        return Ok(Vec::new());
    };
    let mut reasons = Vec::new();
    for &(old, new) in &synced.folded.replaced {
        let by = store.require(new, scope)?.source;
        reasons.push(format!("{old} is replaced by newer {new} ({by})"));
    }
    Ok(reasons)
}

fn session_start(
    store: &mut Store,
    scope: &Scope,
    payload: &Payload,
    signal: Signal,
    budget: Budget,
    team: Vec<String>,
) -> Result<Option<String>> {
    let source = payload.source.as_deref().unwrap_or("startup");
    if matches!(source, "compact" | "clear") {
        let session = &payload.session_id;
        write_or_spool(
            store,
            |store| store.clear_injected(session),
            || spool::Entry::Clear {
                session: session.clone(),
            },
        )?;
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
        // Twice the places: what drift leaves out frees places for the next ones.
        spare: budget.max_results(),
        unasked: true,
        drift: false,
        substrings: false,
        common: HOOK_COMMON,
        ..Options::default()
    };
    let found = recall::recall(store, scope, &signal.query(), &options)?;
    let hits = naming_changed_files_first(found.results, &signal.files);
    let most = budget.max_results();
    offer(
        store,
        scope,
        payload,
        hits,
        most,
        inject::session_block,
        team,
    )
}

fn prompt_submit(
    store: &mut Store,
    scope: &Scope,
    payload: &Payload,
    signal: Signal,
) -> Result<Option<String>> {
    let prompt = payload.prompt.as_deref().unwrap_or("");
    let (_, hits) = prompt_hits(store, scope, prompt, signal)?;
    offer(
        store,
        scope,
        payload,
        hits,
        PROMPT_MEMORIES,
        inject::prompt_block,
        Vec::new(),
    )
}

/// What UserPromptSubmit may offer for `prompt`: recall for the prompt's own words, the hits
/// that hold `prompt_floor` of its terms, those holding more of its terms first, and among
/// hits holding as many, the ones the task signal points at first (naming a changed file, then
/// holding a word of the branch or a changed file's name).
/// The signal may order, never admit: on a feature branch nearly every memory shares a word with
/// its name or files, and a memory is worth its tokens on this turn only when the prompt asks
/// about it. Nor may it put a memory holding fewer of the prompt's words before one holding more:
/// only three are injected, and with the signal first, replayed prompts on a feature branch lost
/// their answer to memories about the branch (see docs/relevance.md). Returns recall's answer
/// and the hits over the floor, best first.
pub fn prompt_hits(
    store: &Store,
    scope: &Scope,
    prompt: &str,
    signal: Signal,
) -> Result<(recall::Recalled, Vec<Hit>)> {
    let found = recall::recall(store, scope, prompt_start(prompt), &prompt_options())?;
    // Recall was asked the prompt alone, so a hit's coverage counts the prompt's terms.
    let need = prompt_floor(found.terms.kept.len());
    let mut hits: Vec<Hit> = found
        .results
        .iter()
        .filter(|h| h.coverage >= need)
        .cloned()
        .collect();
    let stemmer = WordStemmer::default();
    let task = Terms::parse(&signal.query(), &stemmer).kept;
    let mut on_task = Matcher::new(&task);
    // Stable: recall's order stands among hits that tie.
    hits.sort_by_cached_key(|h| {
        (
            std::cmp::Reverse(h.coverage),
            !names_a_changed_file(h, &signal.files),
            on_task.held(&h.body, &stemmer).is_empty(),
        )
    });
    Ok((found, hits))
}

/// The most memories UserPromptSubmit injects.
pub const PROMPT_MEMORIES: usize = 3;

/// The part of a prompt recall looks at: its first `MAX_PROMPT` characters.
pub fn prompt_start(prompt: &str) -> &str {
    crate::text::cut_chars(prompt, MAX_PROMPT)
}

/// How UserPromptSubmit recalls: the lean budget, twice `PROMPT_MEMORIES` (what drift leaves out
/// frees places for the next ones), no substring search
/// (see `Options::substrings`), fewer ranked memories (`HOOK_COMMON`), and drift checked later, on
/// what is offered (`drift_of`).
pub fn prompt_options() -> Options {
    Options {
        budget: Budget::Lean,
        limit: Some(PROMPT_MEMORIES),
        spare: PROMPT_MEMORIES,
        unasked: true,
        drift: false,
        substrings: false,
        common: HOOK_COMMON,
        ..Options::default()
    }
}

/// How many distinct words of the prompt a memory must hold to be injected
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

/// Print the first `most` hits this session was not given yet, leaving drift out (so a chain of
/// updates costs one place, its newest), and remember both what was shown and what was left
/// out, so neither is offered (or explained) twice. `also_left_out` holds reasons found before
/// (a teammate's replacement, say) for the same line.
fn offer(
    store: &mut Store,
    scope: &Scope,
    payload: &Payload,
    hits: Vec<Hit>,
    most: usize,
    format: Format,
    also_left_out: Vec<String>,
) -> Result<Option<String>> {
    // Drift is checked on the next hits that could be shown, a batch at a time, until `most`
    // are kept: a session without drift pays for `most` checks, as before spare places.
    let (kept, mut left) = store.read(|| {
        let given = store.injected(&payload.session_id)?;
        let mut fresh = hits.into_iter().filter(|h| !given.contains(&h.id));
        let (mut kept, mut findings, mut offered) = (Vec::new(), Vec::new(), Vec::new());
        loop {
            let batch: Vec<Hit> = fresh.by_ref().take(most - kept.len()).collect();
            if batch.is_empty() {
                break;
            }
            let found = drift_of(store, scope, &batch)?;
            let ids: Vec<i64> = batch.iter().map(|h| h.id).collect();
            let left = drift::leave_out(&found, &ids);
            offered.extend(ids);
            findings.extend(found);
            kept.extend(batch.into_iter().filter(|h| !left.ids.contains(&h.id)));
            if kept.len() >= most {
                break;
            }
        }
        Ok((kept, drift::leave_out(&findings, &offered)))
    })?;
    let now = crate::store::now();
    left.reasons.extend(also_left_out);
    let Some((text, mut given)) = format(&kept, left.line().as_deref(), now) else {
        return Ok(None);
    };
    given.extend(&left.ids);
    let session = &payload.session_id;
    write_or_spool(
        store,
        |store| store.mark_injected(session, &given),
        || spool::Entry::Injected {
            session: session.clone(),
            ids: given.clone(),
        },
    )?;
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
    let memories = store.live_openings_by_ids(&ids, scope, drift::READ_BYTES)?;
    drift::check(store, scope, &memories, drift::Partners::Newer)
}

/// Memories that name a file being changed come first: they are about the work at hand.
fn naming_changed_files_first(hits: Vec<Hit>, files: &[String]) -> Vec<Hit> {
    let (mut first, rest): (Vec<Hit>, Vec<Hit>) = hits
        .into_iter()
        .partition(|h| names_a_changed_file(h, files));
    first.extend(rest);
    first
}

fn names_a_changed_file(hit: &Hit, files: &[String]) -> bool {
    files.iter().any(|f| hit.body.contains(f.as_str()))
}

/// Record the lessons of the last reply. Each is stored on its own, so one that fails (too long,
/// say) costs no other; a lesson that cannot get the store's lock in time waits in the spool.
fn stop(
    store: &mut Store,
    scope: &Scope,
    payload: &Payload,
    checkout: Option<&Path>,
) -> Result<()> {
    let mut failed = Vec::new();
    for (n, memory) in lessons(scope, payload).into_iter().enumerate() {
        let mut stored = None;
        let written = write_or_spool(
            store,
            |store| {
                let outcome = store.remember(&memory, &[], scope)?;
                stored = (!outcome.duplicate).then_some(outcome.id);
                Ok(())
            },
            || spooled(&memory),
        );
        if let Err(e) = written {
            failed.push(format!("lesson {}: {e:#}", n + 1));
        }
        // A new lesson is shared too when the checkout says so. One that cannot be shared is
        // kept all the same (a spooled one is shared by a later `synapse share`).
        if let Some(id) = stored {
            if let Err(e) = crate::team::share_if_set(store, scope, checkout, id) {
                failed.push(format!(
                    "lesson {} stored as {id}, not shared: {e:#}",
                    n + 1
                ));
            }
        }
    }
    if !failed.is_empty() {
        anyhow::bail!("{}", failed.join("; "));
    }
    Ok(())
}

/// The lessons marked in the last reply, as memories of this project, masked already: the
/// spool must not hold a secret either.
fn lessons(scope: &Scope, payload: &Payload) -> Vec<NewMemory> {
    let Some(message) = payload.last_assistant_message.as_deref() else {
        return Vec::new();
    };
    let day = crate::store::today();
    let short: String = payload.session_id.chars().take(8).collect();
    crate::lessons::marked(message)
        .into_iter()
        .map(|lesson| NewMemory {
            body: crate::secrets::mask(&lesson).text,
            source: format!("session {short} {day}"),
            project: scope.key().map(str::to_owned),
            ..NewMemory::default()
        })
        .collect()
}

/// A lesson as the spool keeps it.
fn spooled(memory: &NewMemory) -> spool::Entry {
    spool::Entry::Remember {
        body: memory.body.clone(),
        source: memory.source.clone(),
        project: memory.project.clone(),
        created_at: crate::store::now(),
    }
}

/// One line in `synapse.log` in the data folder: the hook's only way to report. It names what
/// failed, never the payload's text.
fn log_failure(event: Event, error: &anyhow::Error) {
    let Ok(dir) = data_dir() else {
        return;
    };
    let line = format!(
        "{} {} failed: {error:#}",
        crate::store::today(),
        event.name()
    );
    // Nowhere is left to report a log that cannot be written; the session goes on regardless.
    drop(crate::files::log(&dir, &line));
}
