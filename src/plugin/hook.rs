//! The Claude Code hooks: payloads in, context out.
//!
//! - SessionStart (startup, clear, compact, resume): the memories `recall::unasked` offers for
//!   the task signal, framed as a block; with no signal, one status line. On resume, only what
//!   the session was not given before.
//! - UserPromptSubmit: the memories `recall::unasked` offers for the prompt that this session
//!   has not been given.
//! - UserPromptSubmit with `/synapse:remember`, `recall`, `read`, `forget` or `share`: run the
//!   command on the text as typed and print its answer (see `slash`).
//! - UserPromptSubmit with lines the user starts with `remember:`: record each (`record`), say so,
//!   and offer memories as usual.
//! - Stop: record `remember:` lines and `<remember>` blocks of the last reply as project
//!   memories (`record`); give the model nothing (context would make Claude continue).
//! - PreCompact: ask the compaction's summary to end with the session's lessons as `remember:`
//!   lines (the client appends a PreCompact hook's plain output to the summary's instructions).
//!   PostCompact: record those lines from the summary, as Stop does from a reply.
//!
//! Beside the model's context, a hook may have a line for the person (`notice`, in the client's
//! `systemMessage`): what the session was given and left out, what was saved. With no line, or
//! `[hooks] notice = "off"`, the context is printed as plain text, as it was before lines existed.
//!
//! Gemini CLI runs the same binaries with `--client gemini` (`Client`): its payloads are read,
//! and its answers framed, in `gemini`.
//!
//! A hook never breaks a session: `main` turns every failure into one line in `synapse.log` in
//! the data folder, prints nothing, and exits 0.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use serde::Deserialize;

use super::{gemini, inject, lessons, notice, slash};
use crate::config::{data_dir, Budget, Notice, Settings};
use crate::drift;
use crate::recall::unasked::{self, PROMPT_MEMORIES};
use crate::recall::Hit;
use crate::record::{self, Recorded, Recording, Shared};
use crate::signal::{Pending, Signal};
use crate::sources::{self, Known};
use crate::store::injected::Replaced;
use crate::store::spool;
use crate::store::write::NewMemory;
use crate::store::{Scope, Store};

/// The most stdin a hook reads; a prompt longer than this is cut (recall needs its start).
const MAX_INPUT: u64 = 4 << 20;
/// How long after it starts a hook waits for the changed files of a large checkout.
const SIGNAL_WAIT: Duration = Duration::from_millis(3);
/// The most changed files beside which a hook looks for a nested `CLAUDE.md`.
const NEAR_FILES: usize = 32;
/// The most `remember:` lines of one prompt recorded: a hook's work is bounded whatever is pasted.
const MAX_TYPED: usize = 8;

/// Which hook is running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    SessionStart,
    UserPromptSubmit,
    Stop,
    /// PreCompact or PostCompact, as the payload's `hook_event_name` says: one binary for both.
    Compact,
}

impl Event {
    fn name(self) -> &'static str {
        match self {
            Event::SessionStart => "SessionStart",
            Event::UserPromptSubmit => "UserPromptSubmit",
            Event::Stop => "Stop",
            Event::Compact => "PreCompact/PostCompact",
        }
    }
}

/// What the summary of a compaction is asked for, before the client compacts (PreCompact). The
/// client adds it to the summary's instructions; the lines it asks for are kept by PostCompact.
pub const BEFORE_COMPACTION: &str = "Synapse (this project's memory across sessions): at the \
end of the summary, list the durable lessons of this session that a later session would need and \
that no earlier reply already marked with remember: (a decision and its reason, a fix that \
worked, a fact about this project or its tools), one per line, each line starting with \
\"remember: \" and complete on its own. Leave out what was only true for this task. If there are \
none, write no such line.";

/// What a hook answers: context for the model, and a line for the person.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Answer {
    pub context: Option<String>,
    pub line: Option<String>,
}

impl Answer {
    fn context(context: Option<String>) -> Answer {
        Answer {
            context,
            line: None,
        }
    }

    /// The answer as the client gets it: whatever it quotes (a memory, a file's line, a page, a
    /// branch's name) as text only (`text::visible`).
    fn shown(self) -> Answer {
        let shown = |text: String| crate::text::visible(&text).into_owned();
        Answer {
            context: self.context.map(shown),
            line: self.line.map(shown),
        }
    }
}

/// The client that runs a hook: they send different payloads and take answers in different
/// forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Client {
    /// Claude Code: its payload is `Payload`, and plain stdout is context for the model.
    ClaudeCode,
    /// Gemini CLI, named on the command line as `--client gemini` (see `gemini`).
    Gemini,
}

impl Client {
    /// The client the hook's arguments name: none for Claude Code, `--client gemini` (or
    /// `--client claude`). Anything else is an error: a hook guessing the client would answer in
    /// a form the client drops.
    fn from_args(args: &[String]) -> Result<Client> {
        match args {
            [] => Ok(Client::ClaudeCode),
            [flag, name] if flag == "--client" && name == "claude" => Ok(Client::ClaudeCode),
            [flag, name] if flag == "--client" && name == "gemini" => Ok(Client::Gemini),
            _ => anyhow::bail!(
                "unexpected arguments {args:?}: a hook takes none, or --client claude|gemini"
            ),
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
    /// Every event: tells PreCompact from PostCompact.
    #[serde(default)]
    pub hook_event_name: Option<String>,
    /// PostCompact: the summary the compaction wrote.
    #[serde(default)]
    pub compact_summary: Option<String>,
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
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let client = Client::from_args(&args)?;
    let mut input = String::new();
    std::io::stdin()
        .take(MAX_INPUT)
        .read_to_string(&mut input)
        .context("could not read the hook payload from stdin")?;
    // Debug builds only: lets the tests prove that a panic, whatever it quotes, stays silent.
    if cfg!(debug_assertions) && std::env::var_os("SYNAPSE_TEST_PANIC").is_some() {
        panic!("a test panic quoting the payload: {input}");
    }
    let store = respond(event, client, &input, |text| {
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(text.as_bytes())?;
        stdout.flush().context("could not write the hook's output")
    })?;
    // The process ends here, with everything written committed. Closing the store would unmap
    // it and free its page cache piece by piece, about half a millisecond that exit spends at
    // once.
    std::mem::forget(store);
    Ok(())
}

/// Handle one payload of Claude Code's: what the hook answers.
pub fn run(event: Event, input: &str) -> Result<Answer> {
    Ok(handle(event, Client::ClaudeCode, input)?.0.shown())
}

/// Handle one payload, hand what the hook prints to `print`, then trim the store's log, and
/// return the store (none when the hook is off).
fn respond(
    event: Event,
    client: Client,
    input: &str,
    print: impl FnOnce(&str) -> Result<()>,
) -> Result<Option<Store>> {
    let (answer, store) = handle(event, client, input)?;
    let answer = answer.shown();
    let printed = match client {
        Client::ClaudeCode => claude_output(event, answer),
        Client::Gemini => gemini::output(event, answer),
    };
    if let Some(text) = printed {
        print(&text)?;
    }
    // After the output is out: a checkpoint that fails cannot cost the session its context.
    if let Some(store) = &store {
        store.trim_log()?;
    }
    Ok(store)
}

/// What Claude Code takes: the context alone as plain text, as before lines existed; with a line,
/// JSON whose `systemMessage` the person sees and whose `additionalContext` the model gets.
/// Plain output keeps no trailing newline in the model's context and `additionalContext` keeps
/// every byte (measured in 2.1.197 and 2.1.332), so the context's last newline is left off: the
/// model's text is the same either way, but for the client's label before it. A Stop hook's
/// line is JSON with no context (anything else makes Claude continue); PostCompact's output is
/// pasted into the compaction's result as it is, so its line is plain text.
fn claude_output(event: Event, answer: Answer) -> Option<String> {
    let Some(line) = answer.line else {
        return answer.context;
    };
    if event == Event::Compact {
        return Some(line + "\n");
    }
    let mut out = serde_json::json!({ "systemMessage": line });
    if let Some(context) = answer.context {
        out["hookSpecificOutput"] = serde_json::json!({
            "hookEventName": event.name(),
            "additionalContext": context.strip_suffix('\n').unwrap_or(&context),
        });
    }
    Some(out.to_string() + "\n")
}

/// What one payload makes the hook answer, and the store it opened (none when the hook is off).
fn handle(event: Event, client: Client, input: &str) -> Result<(Answer, Option<Store>)> {
    let payload: Payload = match client {
        Client::ClaudeCode => serde_json::from_str(input)
            .with_context(|| format!("{} payload is not the expected JSON", event.name()))?,
        Client::Gemini => gemini::payload(event, input)?,
    };
    let dir = data_dir()?;
    let settings = Settings::load(&dir)?;
    // A Synapse slash command in the prompt is run here, on the text as typed (see `slash`),
    // whether or not memories are added to prompts.
    let command = match event {
        Event::UserPromptSubmit => payload.prompt.as_deref().and_then(slash::parse),
        _ => None,
    };
    // Lines the user marked `remember:` are kept whatever the settings say, as a slash command
    // is run: the user asked for it in so many words.
    let typed = match (event, &command, payload.prompt.as_deref()) {
        (Event::UserPromptSubmit, None, Some(prompt)) => lessons::typed(prompt),
        _ => Vec::new(),
    };
    let prompt_on = settings.hooks.prompt_submit;
    let on = command.is_some()
        || !typed.is_empty()
        || match event {
            Event::SessionStart => settings.hooks.session_start,
            Event::UserPromptSubmit => settings.hooks.prompt_submit,
            Event::Stop => settings.hooks.stop,
            Event::Compact => settings.hooks.compact,
        };
    if !on {
        return Ok((Answer::default(), None));
    }
    let notice = settings.hooks.notice;
    if event == Event::Compact {
        anyhow::ensure!(
            client == Client::ClaudeCode,
            "the compaction hooks are Claude Code's; Gemini CLI's extension does not run them"
        );
        match payload.hook_event_name.as_deref() {
            // Before a compaction: a constant request, nothing to open.
            Some("PreCompact") => {
                let context = Some(format!("{BEFORE_COMPACTION}\n"));
                return Ok((Answer::context(context), None));
            }
            Some("PostCompact") => {}
            other => anyhow::bail!(
                "the compaction hook ran for {other:?}, not PreCompact or PostCompact: the \
                 plugin's hooks/hooks.json is wired wrong"
            ),
        }
    }
    // One lookup of the repository serves the scope and the task signal. A large checkout's
    // changed files are listed on a thread while the store opens (see `signal::Pending`).
    let repo = git2::Repository::discover(&payload.cwd).ok();
    let scope = Scope::of_folder_in(&payload.cwd, repo.as_ref())?;
    let checkout = repo.as_ref().and_then(|r| r.workdir()).map(PathBuf::from);
    // The signal steers recall only: not for a slash command, a Stop, or a prompt that only
    // keeps `remember:` lines with prompt memories off.
    let wants_signal = match event {
        Event::SessionStart => true,
        Event::UserPromptSubmit => command.is_none() && prompt_on,
        Event::Stop | Event::Compact => false,
    };
    let pending = wants_signal.then(|| Pending::start(repo, &settings.signal.ignore));
    let budget = settings.budget;
    let mut store = match Store::open_for_hook(&dir) {
        // Drift reads `[drift] ignore` from the store's settings: not a second read of the file.
        Ok(store) => store.with_settings(settings),
        // Even opening may wait on another process (one recovering the write-ahead log, say):
        // a lesson is never dropped for that.
        Err(e) if matches!(event, Event::Stop | Event::Compact) && crate::store::is_busy(&e) => {
            let (mut unapplied, mut spooled) = (Vec::new(), Vec::new());
            for (memory, replaces) in lessons_of(&scope, &payload) {
                spool::append(&dir, record::spooled(&memory))?;
                unapplied.extend(replaces);
                spooled.push(Recorded::Spooled);
            }
            // The spool carries text alone: a replacement must check the older memory under
            // the lock. Said in the log, so a memory left live is not a silent surprise.
            if !unapplied.is_empty() {
                anyhow::bail!(
                    "the store was busy: the lessons wait in the spool, and the memories they \
                     replace ({}) stay live",
                    ids_list(&unapplied)
                );
            }
            let line = (notice != Notice::Off)
                .then(|| notice::saved(&spooled, saved_from(event)))
                .flatten();
            return Ok((
                Answer {
                    context: None,
                    line,
                },
                None,
            ));
        }
        Err(e) => return Err(e),
    };
    let signal = || pending.map_or_else(Signal::default, |p| p.wait(SIGNAL_WAIT));
    let answer = match (event, &command) {
        (Event::UserPromptSubmit, Some(command)) => {
            let (text, shown) =
                slash::run(&mut store, &scope, command, budget, checkout.as_deref())?;
            mark_given(&mut store, &payload, shown)?;
            Ok::<_, anyhow::Error>(Answer::context(Some(text)))
        }
        (Event::SessionStart, _) => {
            let team = fold_team(&mut store, &scope, checkout.as_deref());
            let signal = signal();
            let known = fold_sources(
                (event, client),
                &mut store,
                &scope,
                (&payload, checkout.as_deref()),
                &signal,
            );
            let start = Start {
                signal,
                budget,
                team,
                known,
            };
            let (context, line) = session_start(&mut store, &scope, &payload, start)?;
            let line = line.filter(|_| notice != Notice::Off);
            Ok(Answer { context, line })
        }
        (Event::UserPromptSubmit, None) => {
            let (kept, saved) =
                keep_typed(&mut store, &scope, &payload, typed, checkout.as_deref())?;
            let offered = if prompt_on {
                let signal = signal();
                let known = fold_sources(
                    (event, client),
                    &mut store,
                    &scope,
                    (&payload, checkout.as_deref()),
                    &signal,
                );
                prompt_submit(&mut store, &scope, &payload, signal, &known)?
            } else {
                None
            };
            let given = offered.as_ref().map(|o| notice::prompt(&o.shown));
            let line = match notice {
                Notice::Off => None,
                Notice::Start => saved,
                Notice::Always => [saved, given.filter(|_| offered_any(&offered))]
                    .into_iter()
                    .flatten()
                    .reduce(|a, b| format!("{a}; {b}")),
            };
            let offered = offered.and_then(|o| o.text);
            let context = [kept, offered].into_iter().flatten().reduce(|a, b| a + &b);
            Ok(Answer { context, line })
        }
        (Event::Stop | Event::Compact, _) => {
            let lessons = lessons_of(&scope, &payload);
            let (recorded, failed) =
                stop(&mut store, &scope, &payload, lessons, checkout.as_deref())?;
            if !failed.is_empty() {
                log_failure(event, &anyhow::anyhow!("{}", failed.join("; ")));
            }
            if event == Event::Compact {
                // The summary the session goes on from holds their text.
                mark_given(&mut store, &payload, stored_ids(&recorded))?;
            }
            let line = (notice != Notice::Off)
                .then(|| notice::saved(&recorded, saved_from(event)))
                .flatten();
            Ok(Answer {
                context: None,
                line,
            })
        }
    }?;
    Ok((answer, Some(store)))
}

/// Whether a prompt's offer showed any memory.
fn offered_any(offered: &Option<Offered>) -> bool {
    offered.as_ref().is_some_and(|o| !o.shown.is_empty())
}

/// Where the lessons a hook saves came from, for the person's line.
fn saved_from(event: Event) -> &'static str {
    match event {
        Event::Compact => " from the compaction summary",
        _ => "",
    }
}

/// The memories newly stored among `recorded`.
fn stored_ids(recorded: &[Recorded]) -> Vec<i64> {
    recorded
        .iter()
        .filter_map(|r| match r {
            Recorded::Stored { outcome, .. } if !outcome.duplicate => Some(outcome.id),
            _ => None,
        })
        .collect()
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

/// Fold what changed among Claude Code's own memory and instruction files (`sources::refresh`,
/// bounded by `sources::HOOK`), and return the files known, as `client` sees them. A fold that
/// fails costs the session nothing: it is logged, the files known before are used, and the next
/// hook tries again.
fn fold_sources(
    (event, client): (Event, Client),
    store: &mut Store,
    scope: &Scope,
    (payload, checkout): (&Payload, Option<&Path>),
    signal: &Signal,
) -> Known {
    let known = fold_claude_files(event, store, scope, (payload, checkout), signal);
    match client {
        Client::ClaudeCode => known,
        // Gemini loads none of Claude Code's files: their memories are Synapse's to offer.
        Client::Gemini => known.for_another_client(),
    }
}

/// `fold_sources`'s work.
fn fold_claude_files(
    event: Event,
    store: &mut Store,
    scope: &Scope,
    (payload, checkout): (&Payload, Option<&Path>),
    signal: &Signal,
) -> Known {
    let place = sources::Place::new(scope, &payload.cwd, checkout);
    // The folders of the first changed files are looked in: a bounded number of `stat`s.
    let near = &signal.files[..signal.files.len().min(NEAR_FILES)];
    match sources::refresh(store, &place, near, sources::HOOK) {
        Ok(known) => known,
        Err(e) => {
            log_failure(
                event,
                &e.context("could not fold Claude Code's memory files"),
            );
            Known::unchanged(store, &place).unwrap_or_else(|e| {
                log_failure(event, &e.context("could not read the memory files folded"));
                Known::default()
            })
        }
    }
}

/// What SessionStart works from, besides the payload.
struct Start {
    signal: Signal,
    budget: Budget,
    /// Memories a teammate's newer one replaced, for the left-out line.
    team: Vec<String>,
    known: Known,
}

/// The model's context at a session's start, and the person's line.
fn session_start(
    store: &mut Store,
    scope: &Scope,
    payload: &Payload,
    start: Start,
) -> Result<(Option<String>, Option<String>)> {
    let Start {
        signal,
        budget,
        team,
        known,
    } = start;
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
    // Lines of the files the client loads that name a path that is gone, said at the start (a
    // resumed session was told at its start, and the transcript has it).
    let stale = match source {
        "resume" => sources::Stale::default(),
        _ => known.stale_lines(store, scope)?,
    };
    if signal.is_empty() {
        if source == "resume" {
            return Ok((None, None));
        }
        let memories = store.count_live(scope)?;
        let status = inject::status_line(memories, known.saving(), &stale);
        let line = notice::waiting(memories, stale.lines.len());
        return Ok((Some(format!("{status}\n")), Some(line)));
    }
    let mut hits = rules_for_files(store, scope, &known, &signal.files)?;
    let loaded = known.loaded_memories(store)?;
    let found = unasked::for_session(store, scope, &signal, budget, &loaded)?;
    let ruled: std::collections::HashSet<i64> = hits.iter().map(|h| h.id).collect();
    hits.extend(found.into_iter().filter(|h| !ruled.contains(&h.id)));
    let most = budget.max_results();
    let branch = signal.branch.clone();
    let frame = Frame::Session {
        most,
        team,
        stale: &stale,
    };
    let offered = offer(store, scope, payload, (hits, &known), frame)?;
    // On resume the session was given its notes before: a line only when there is news.
    if source == "resume" && offered.text.is_none() {
        return Ok((None, None));
    }
    let (shown, left, gone) = (offered.shown.len(), &offered.left, stale.lines.len());
    let line = notice::session(shown, branch.as_deref(), left, gone);
    Ok((offered.text, Some(line)))
}

/// The memories of the rules whose `paths:` match a file being changed: the client shows such a
/// rule only beside a matching file the model reads, and the session is about those files.
fn rules_for_files(
    store: &Store,
    scope: &Scope,
    known: &Known,
    files: &[String],
) -> Result<Vec<Hit>> {
    let mut ids = Vec::new();
    for rule in known.rules_for(files) {
        ids.extend(store.memories_of_source(rule.id)?);
    }
    let memories = store.live_openings_by_ids(&ids, scope, crate::store::index::HEAD_BYTES)?;
    Ok(memories.into_iter().map(Hit::of_memory).collect())
}

fn prompt_submit(
    store: &mut Store,
    scope: &Scope,
    payload: &Payload,
    signal: Signal,
    known: &Known,
) -> Result<Option<Offered>> {
    let prompt = payload.prompt.as_deref().unwrap_or("");
    let loaded = known.loaded_memories(store)?;
    let found = unasked::for_prompt(store, scope, prompt, &signal, &loaded)?;
    let frame = Frame::Prompt { whole: found.whole };
    offer(store, scope, payload, (found.hits, known), frame).map(Some)
}

/// What a hook offered: the block for the model (none when there is nothing to say), the
/// memories it shows, and what it left out.
struct Offered {
    text: Option<String>,
    shown: Vec<i64>,
    left: drift::LeftOut,
}

/// The block a hook frames its offer in.
enum Frame<'a> {
    /// SessionStart's: up to `most` memories, and the memories a teammate's newer one replaced
    /// (found when the team's file was folded) on the same line as what drift left out, then the
    /// loaded lines that name gone paths.
    Session {
        most: usize,
        team: Vec<String>,
        stale: &'a sources::Stale,
    },
    /// UserPromptSubmit's: up to `PROMPT_MEMORIES`, those in `whole` with their text, the
    /// others as pointers.
    Prompt {
        whole: std::collections::HashSet<i64>,
    },
}

/// Frame what `unasked::offer` keeps of `hits`, and remember both what was shown and what was
/// left out, so neither is offered (or explained) twice.
/// Memories repeating a line of the files Claude Code loads itself are screened out first
/// (`Known::screen`): the model has that line already.
fn offer(
    store: &mut Store,
    scope: &Scope,
    payload: &Payload,
    (hits, known): (Vec<Hit>, &Known),
    frame: Frame<'_>,
) -> Result<Offered> {
    let nothing_stale = sources::Stale::default();
    let (most, also_left_out, whole, stale) = match frame {
        Frame::Session { most, team, stale } => (most, team, None, stale),
        Frame::Prompt { whole } => (PROMPT_MEMORIES, Vec::new(), Some(whole), &nothing_stale),
    };
    let session = &payload.session_id;
    let given = store.injected(session)?;
    let screened = known.screen(store, hits)?;
    let mut offer = unasked::offer(store, scope, &given, screened.hits, most)?;
    let repeats = screened.repeats.into_iter();
    for (id, why) in repeats.filter(|(id, _)| !given.contains(id)) {
        offer.left.add(Some(id), why, "already loaded");
    }
    for why in also_left_out {
        offer.left.add(None, why, "replaced");
    }
    // A memory this session was given and has since replaced (`remember (replaces #N): ...` in
    // a reply): said once, here, so the model knows the replacement took. The newer memory is
    // then marked given: its text is in the reply that wrote it.
    let own = lesson_label(payload);
    let replaced: Vec<Replaced> = store
        .replaced_since_given(session, scope)?
        .into_iter()
        .filter(|r| r.source.starts_with(&own))
        .collect();
    for r in &replaced {
        let why = format!(
            "{}, given earlier, is replaced by {} (written this session)",
            r.old, r.new
        );
        offer.left.add(None, why, "replaced");
    }
    let whole = whole.map(|whole| offer.whole_with_pairs(whole));
    let now = crate::store::now();
    let left = offer.left.line();
    let (hits, left, saving) = (&offer.hits, left.as_deref(), known.saving());
    let shown = match &whole {
        None => inject::session_block(hits, left, stale, now, saving),
        Some(whole) => inject::prompt_block(hits, whole, left, now, saving),
    };
    let Some((text, shown)) = shown else {
        return Ok(Offered {
            text: None,
            shown: Vec::new(),
            left: offer.left,
        });
    };
    let mut given = shown.clone();
    given.extend(&offer.left.ids);
    given.extend(replaced.iter().map(|r| r.new));
    mark_given(store, payload, given)?;
    Ok(Offered {
        text: Some(text),
        shown,
        left: offer.left,
    })
}

/// Remember that this session was given (or told why it was not given) the memories `ids`, so
/// no later prompt offers them again.
fn mark_given(store: &mut Store, payload: &Payload, ids: Vec<i64>) -> Result<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let session = &payload.session_id;
    write_or_spool(
        store,
        |store| store.mark_injected(session, &ids),
        || spool::Entry::Injected {
            session: session.clone(),
            ids: ids.clone(),
        },
    )
}

/// Record the lessons of the last reply. Each is recorded on its own, so one that fails (too
/// long, say) costs no other; one that cannot get the store's lock in time waits in the spool,
/// and a new one is shared too when the checkout says so (one that cannot be shared is kept all
/// the same). A lesson naming memories it replaces replaces those this session may replace
/// (`replaceable`); the others are refused and logged, and the lesson is kept all the same.
/// Returns what was recorded, and what failed, for the log.
fn stop(
    store: &mut Store,
    scope: &Scope,
    payload: &Payload,
    lessons: Vec<(NewMemory, Vec<i64>)>,
    checkout: Option<&Path>,
) -> Result<(Vec<Recorded>, Vec<String>)> {
    let (mut recorded, mut failed) = (Vec::new(), Vec::new());
    for (n, (memory, replaces)) in lessons.into_iter().enumerate() {
        let lesson = n + 1;
        if let Err(e) = crate::store::write::check_body(&memory.body) {
            failed.push(format!("lesson {lesson}: {e:#}"));
            continue;
        }
        let (replaced, refused) = replaceable(store, scope, payload, &replaces)?;
        let kept = keep_lesson(store, scope, memory, &replaced, checkout);
        // A memory this very lesson replaced already is no refusal: the same reply, seen again.
        let stored = match &kept {
            Ok((Recorded::Stored { outcome, .. }, _)) => Some(outcome.id),
            _ => None,
        };
        failed.extend(
            refused
                .into_iter()
                .filter(|r| r.by.is_none() || r.by != stored)
                .map(|r| format!("lesson {lesson}: {}", r.why)),
        );
        match kept {
            Ok((kept, replacing)) => {
                if let Recorded::Stored {
                    outcome,
                    shared: Shared::Failed(why),
                } = &kept
                {
                    failed.push(format!(
                        "lesson {lesson} stored as {}, not shared: {why}",
                        outcome.id
                    ));
                }
                failed.extend(replacing.map(|why| format!("lesson {lesson}: {why}")));
                recorded.push(kept);
            }
            Err(e) => failed.push(format!("lesson {lesson}: {e:#}")),
        }
    }
    Ok((recorded, failed))
}

/// Record one lesson, replacing the memories `replaced` in the same step. When the replacement
/// cannot be made (a global memory a project lesson may not hide, the store busy) the lesson is
/// still kept, without replacing, and the second value says why the replacement failed.
fn keep_lesson(
    store: &mut Store,
    scope: &Scope,
    memory: NewMemory,
    replaced: &[i64],
    checkout: Option<&Path>,
) -> Result<(Recorded, Option<String>)> {
    if replaced.is_empty() {
        let recording = Recording {
            memory,
            supersedes: &[],
            checkout,
        };
        return Ok((record::remember(store, scope, recording)?, None));
    }
    let recording = Recording {
        memory: memory.clone(),
        supersedes: replaced,
        checkout,
    };
    match record::remember(store, scope, recording) {
        Ok(recorded) => Ok((recorded, None)),
        Err(e) => {
            let why = format!(
                "could not replace {}: {e:#}; the lesson is kept without replacing",
                ids_list(replaced)
            );
            let recording = Recording {
                memory,
                supersedes: &[],
                checkout,
            };
            Ok((record::remember(store, scope, recording)?, Some(why)))
        }
    }
}

/// A memory a lesson named that it may not replace.
struct Refused {
    /// Why, for the log.
    why: String,
    /// The memory that replaced it already, if one did.
    by: Option<i64>,
}

/// Of the memories a lesson says it replaces, those this session may replace: visible from its
/// scope, live, and shown to this session (`Store::shown_to`: given by a hook or a slash
/// command, or written by its own replies). The rest are refused: a reply may name an id it
/// never saw (another project's, a guess, or an id it read before that memory was deleted), and
/// it must not hide that memory.
fn replaceable(
    store: &Store,
    scope: &Scope,
    payload: &Payload,
    ids: &[i64],
) -> Result<(Vec<i64>, Vec<Refused>)> {
    let (mut replaceable, mut refused) = (Vec::new(), Vec::new());
    let shown = store.shown_to(&payload.session_id, &lesson_label(payload), ids)?;
    for &id in ids {
        match store.get(id, scope)? {
            Some(m) if m.is_live() && !shown.contains(&id) => refused.push(Refused {
                why: format!(
                    "replaces {id} refused: this session was never shown memory {id}, so the \
                     lesson is stored as new"
                ),
                by: None,
            }),
            Some(m) if m.is_live() => replaceable.push(id),
            Some(m) => refused.push(Refused {
                why: format!(
                    "replaces {id} refused: memory {id} is already superseded or forgotten"
                ),
                by: m.superseded_by,
            }),
            None => refused.push(Refused {
                why: format!(
                    "replaces {id} refused: this session sees no memory {id} (another \
                     project's, or none)"
                ),
                by: None,
            }),
        }
    }
    Ok((replaceable, refused))
}

/// "#12, #15": memory ids as a log line names them.
fn ids_list(ids: &[i64]) -> String {
    ids.iter()
        .map(|id| format!("#{id}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Record the lines the user marked `remember:` in the prompt (at most `MAX_TYPED`), and tell
/// the model what became of them, so it does not save them a second time. Each memory stored is
/// marked as given to this session: the prompt holds its text already.
/// Returns the model's context and the person's line.
fn keep_typed(
    store: &mut Store,
    scope: &Scope,
    payload: &Payload,
    typed: Vec<String>,
    checkout: Option<&Path>,
) -> Result<(Option<String>, Option<String>)> {
    if typed.is_empty() {
        return Ok((None, None));
    }
    let mut said = vec![
        "Synapse kept the lines the user marked \"remember:\" in this prompt as project memories \
         (nothing more to save for them):"
            .to_owned(),
    ];
    let (day, short) = (crate::store::today(), short_session(payload));
    let (mut given, mut recorded) = (Vec::new(), Vec::new());
    for (n, text) in typed.into_iter().enumerate() {
        if n == MAX_TYPED {
            said.push(format!("only the first {MAX_TYPED} lines were kept"));
            break;
        }
        let source = format!("prompt {short} {day}");
        let kept = slash::keep(store, scope, &text, source, checkout)?;
        said.push(format!("line {}: {}", n + 1, kept.lines.join("; ")));
        given.extend(kept.shown);
        if let Some(outcome) = kept.outcome {
            recorded.push(Recorded::Stored {
                outcome,
                shared: Shared::No,
            });
        }
    }
    mark_given(store, payload, given)?;
    Ok((Some(said.join("\n") + "\n"), notice::saved(&recorded, "")))
}

/// The first characters of the session's id, for a memory's source label.
fn short_session(payload: &Payload) -> String {
    payload.session_id.chars().take(8).collect()
}

/// The start of the source label of every lesson this session's replies keep ("session
/// 1a2b3c4d "), which the day follows: how a block tells what this session wrote.
fn lesson_label(payload: &Payload) -> String {
    let lesson = crate::store::listing::LESSON_LABEL;
    format!("{lesson}{} ", short_session(payload))
}

/// The lessons marked in the last reply, as memories of this project, each with the memories it
/// says it replaces.
/// A compaction's summary is read as a reply is (PostCompact).
fn lessons_of(scope: &Scope, payload: &Payload) -> Vec<(NewMemory, Vec<i64>)> {
    let text = payload.last_assistant_message.as_ref();
    let Some(message) = text.or(payload.compact_summary.as_ref()) else {
        return Vec::new();
    };
    let source = format!("{}{}", lesson_label(payload), crate::store::today());
    lessons::marked(message)
        .into_iter()
        .map(|lesson| {
            let memory = NewMemory {
                body: lesson.text,
                source: source.clone(),
                project: scope.key().map(str::to_owned),
                ..NewMemory::default()
            };
            (memory, lesson.replaces)
        })
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    fn note(body: &str, project: &str) -> NewMemory {
        NewMemory {
            body: body.to_owned(),
            source: "test".to_owned(),
            project: Some(project.to_owned()),
            ..NewMemory::default()
        }
    }

    fn payload(session: &str) -> Payload {
        serde_json::from_value(serde_json::json!({"session_id": session, "cwd": "/p"})).unwrap()
    }

    fn supersedes_of(store: &Store, id: i64, scope: &Scope) -> Vec<Option<i64>> {
        let history = store.history(id, scope).unwrap();
        history
            .into_iter()
            .filter(|e| e.action == "supersede")
            .map(|e| e.other_id)
            .collect()
    }

    #[test]
    fn the_client_is_claude_code_unless_the_arguments_name_gemini() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(Client::from_args(&[]).unwrap(), Client::ClaudeCode);
        let gemini = Client::from_args(&args(&["--client", "gemini"])).unwrap();
        assert_eq!(gemini, Client::Gemini);
        let claude = Client::from_args(&args(&["--client", "claude"])).unwrap();
        assert_eq!(claude, Client::ClaudeCode);
        for wrong in [&["gemini"][..], &["--client", "codex"], &["--client"]] {
            assert!(Client::from_args(&args(wrong)).is_err(), "{wrong:?}");
        }
    }

    #[test]
    fn a_lesson_replaces_what_the_session_sees_and_keeps_itself_when_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let (here, there) = (Scope::project("p"), Scope::project("q"));
        let old = note("Webhook retry limit is 5 attempts", "p");
        let old = store.remember(&old, &[], &here).unwrap().id;
        let theirs = note("Another project's retry note", "q");
        let theirs = store.remember(&theirs, &[], &there).unwrap().id;

        store.mark_injected("s1", &[old, theirs]).unwrap();
        let lesson = note("Webhook retries: 8 attempts", "p");
        let (recorded, failed) = stop(
            &mut store,
            &here,
            &payload("s1"),
            vec![(lesson, vec![old, theirs, old])],
            None,
        )
        .unwrap();
        assert_eq!(recorded.len(), 1);
        let err = failed.join("; ");
        assert!(err.contains(&format!("replaces {theirs} refused")), "{err}");

        let new = store.recent(&here, 1).unwrap().remove(0);
        assert_eq!(new.body, "Webhook retries: 8 attempts");
        assert_eq!(supersedes_of(&store, old, &here), [Some(new.id)]);
        assert!(store.get(theirs, &there).unwrap().unwrap().is_live());
    }

    /// A reply may name an id its session was never shown (a guess, or an id that named
    /// another memory when it was read): the lesson is stored as new and the refusal logged.
    #[test]
    fn a_lesson_replaces_only_what_its_session_was_shown_or_wrote() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let here = Scope::project("p");
        let unseen = store.remember(&note("Deploys go out on Fridays", "p"), &[], &here);
        let unseen = unseen.unwrap().id;
        let own = NewMemory {
            source: format!("{}2026-12-01", lesson_label(&payload("s1"))),
            ..note("Webhook retries: 5 attempts", "p")
        };
        let own = store.remember(&own, &[], &here).unwrap().id;
        let lessons = vec![
            (note("Deploys go out on Tuesdays", "p"), vec![unseen]),
            (note("Webhook retries: 8 attempts", "p"), vec![own]),
        ];
        let (recorded, failed) = stop(&mut store, &here, &payload("s1"), lessons, None).unwrap();
        assert_eq!(recorded.len(), 2);
        let err = failed.join("; ");
        assert!(
            err.contains(&format!(
                "replaces {unseen} refused: this session was never shown"
            )),
            "{err}"
        );
        assert!(store.get(unseen, &here).unwrap().unwrap().is_live());
        assert!(!store.get(own, &here).unwrap().unwrap().is_live());
    }

    #[test]
    fn a_lesson_that_cannot_hide_a_global_memory_is_kept_without_replacing() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let here = Scope::project("p");
        let global = NewMemory {
            project: None,
            ..note("Deploys need two approvals", "p")
        };
        let global = store.remember(&global, &[], &Scope::global()).unwrap().id;

        store.mark_injected("s1", &[global]).unwrap();
        let lesson = note("Deploys need one approval", "p");
        let (recorded, failed) = stop(
            &mut store,
            &here,
            &payload("s1"),
            vec![(lesson, vec![global])],
            None,
        )
        .unwrap();
        assert_eq!(recorded.len(), 1);
        let err = failed.join("; ");
        assert!(err.contains("kept without replacing"), "{err}");
        assert!(store.get(global, &here).unwrap().unwrap().is_live());
        assert_eq!(store.count_live(&here).unwrap(), 2);
    }
}
