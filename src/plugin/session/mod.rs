//! The session core: what every client's hooks decide alike. Given a payload already read by a
//! client's adapter, it decides what to offer the model (`start`, `prompt`), marks what the
//! session was given (`offer`), records the lessons of a reply or a compaction (`stop`,
//! `compact`), and returns an `Answer` for the adapter to write in the client's form. What
//! differs by client reaches it through `Adapter` alone: no module of the core names a client.
//!
//! - SessionStart (startup, clear, compact, resume): the memories `recall::unasked` offers for
//!   the task signal, framed as a block; with no signal, one status line. On resume, only what
//!   the session was not given before.
//! - UserPromptSubmit: the memories `recall::unasked` offers for the prompt that this session
//!   has not been given; a Synapse slash command typed at the prompt is run (`slash`), and lines
//!   the user starts with `remember:` are recorded.
//! - Stop: record `remember:` lines and `<remember>` blocks of the last reply as project
//!   memories (`record`); give the model nothing.
//! - PreCompact: ask the compaction's summary for the session's lessons; PostCompact: record
//!   them.
//!
//! Beside the model's context, a hook may have a line for the person (`notice`). A hook never
//! breaks a session: its failures are logged (`log_failure`) by the process that runs it.

mod compact;
mod fold;
mod loaded;
mod offer;
mod prompt;
mod start;
mod stop;

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;

use super::voice::Voice;
use super::{lessons, slash};
use crate::config::{data_dir, Budget, Ignore, Notice, Settings, Sources};
use crate::signal::{Pending, Signal};
use crate::sources::Known;
use crate::store::{Scope, Store};

pub use compact::BEFORE_COMPACTION;

/// How long after it starts a hook waits for the changed files of a large checkout.
const SIGNAL_WAIT: Duration = Duration::from_millis(3);

/// Which hook is running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    SessionStart,
    UserPromptSubmit,
    Stop,
    /// PreCompact or PostCompact, as the payload's `hook_event_name` says: one binary for both.
    Compact,
    /// The client loaded an instruction file into the session (Claude Code's
    /// InstructionsLoaded).
    InstructionsLoaded,
}

impl Event {
    /// The event's name in the log (Claude Code's names, which the binaries are named for).
    pub fn name(self) -> &'static str {
        match self {
            Event::SessionStart => "SessionStart",
            Event::UserPromptSubmit => "UserPromptSubmit",
            Event::Stop => "Stop",
            Event::Compact => "PreCompact/PostCompact",
            Event::InstructionsLoaded => "InstructionsLoaded",
        }
    }
}

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
    pub fn shown(self) -> Answer {
        let shown = |text: String| crate::text::visible(&text).into_owned();
        Answer {
            context: self.context.map(shown),
            line: self.line.map(shown),
        }
    }
}

/// A payload as the core reads it, whatever client sent it: each adapter fills it from its own.
#[derive(Debug, Default)]
pub struct Payload {
    pub session_id: String,
    pub cwd: PathBuf,
    /// SessionStart: startup, resume, clear or compact.
    pub source: Option<String>,
    /// UserPromptSubmit: the prompt as the user typed it.
    pub prompt: Option<String>,
    /// Stop: the reply the turn ended with.
    pub last_assistant_message: Option<String>,
    /// The client's name of the event: tells PreCompact from PostCompact.
    pub hook_event_name: Option<String>,
    /// PostCompact: the summary the compaction wrote.
    pub compact_summary: Option<String>,
    /// InstructionsLoaded: the file the client loaded (absolute), and why (its
    /// `load_reason`).
    pub loaded_file: Option<(String, String)>,
}

/// A client the hooks serve, as its adapter describes it: how its payloads are read and its
/// answers written, and what the core must know of it. One implementation per client, in its
/// own module; the core calls these and nothing else of a client.
pub trait Adapter {
    /// Read the client's payload for `event`.
    fn payload(&self, event: Event, input: &str) -> Result<Payload>;
    /// What the hook prints for `answer`, in the client's form; `None` prints nothing.
    fn output(&self, event: Event, answer: Answer) -> Option<String>;
    /// The source files as this client's session sees them: which it loads itself, so that
    /// their memories are not offered again.
    fn known(&self, known: Known) -> Known;
    /// How the blocks speak to this client's model: how it names Synapse's tools, where it
    /// keeps lessons.
    fn voice(&self, known: &Known) -> Voice;
}

/// One hook's run once the store is open: what its steps read.
struct Turn<'a> {
    event: Event,
    client: &'a dyn Adapter,
    payload: &'a Payload,
    scope: Scope,
    /// The top of the session's git checkout.
    checkout: Option<PathBuf>,
    notice: Notice,
    budget: Budget,
    /// The paths drift never calls stale (`[drift] ignore`).
    drift_ignore: Ignore,
    /// Whether the clients' own memory files are read (`[sources]`).
    sources: Sources,
    /// The task signal, being read (none when the hook does not recall).
    pending: Option<Pending>,
}

impl Turn<'_> {
    /// The task signal: the branch, and the changed files if they were listed in time.
    fn signal(&mut self) -> Signal {
        self.pending
            .take()
            .map_or_else(Signal::default, |p| p.wait(SIGNAL_WAIT))
    }

    fn checkout(&self) -> Option<&std::path::Path> {
        self.checkout.as_deref()
    }
}

/// What one payload makes the hook answer, and the store it opened (none when the hook is off).
pub fn handle(
    event: Event,
    client: &dyn Adapter,
    payload: Payload,
) -> Result<(Answer, Option<Store>)> {
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
            Event::InstructionsLoaded => settings.hooks.session_start,
        };
    if !on {
        return Ok((Answer::default(), None));
    }
    if event == Event::InstructionsLoaded {
        return loaded::record(&dir, &payload);
    }
    if event == Event::Compact {
        // Before a compaction: a constant request, nothing to open.
        if let Some(asked) = compact::before(&payload)? {
            return Ok((asked, None));
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
        Event::Stop | Event::Compact | Event::InstructionsLoaded => false,
    };
    let pending = wants_signal.then(|| Pending::start(repo, &settings.signal.ignore));
    let mut turn = Turn {
        event,
        client,
        payload: &payload,
        scope,
        checkout,
        notice: settings.hooks.notice,
        budget: settings.budget,
        drift_ignore: settings.drift.ignore,
        sources: settings.sources,
        pending,
    };
    let mut store = match Store::open_for_hook(&dir) {
        Ok(store) => store,
        // Even opening may wait on another process (one recovering the write-ahead log, say):
        // a lesson is never dropped for that.
        Err(e) if matches!(event, Event::Stop | Event::Compact) && crate::store::is_busy(&e) => {
            return Ok((stop::spool_all(&dir, &turn)?, None));
        }
        Err(e) => return Err(e),
    };
    let answer = match event {
        Event::SessionStart => start::run(&mut store, &mut turn)?,
        Event::UserPromptSubmit => match &command {
            Some(command) => prompt::command(&mut store, &turn, command)?,
            None => prompt::run(&mut store, &mut turn, typed, prompt_on)?,
        },
        Event::Stop | Event::Compact => stop::run(&mut store, &turn)?,
        Event::InstructionsLoaded => Answer::default(),
    };
    Ok((answer, Some(store)))
}

/// One line in `synapse.log` in the data folder: the hook's only way to report. It names what
/// failed, never the payload's text.
pub fn log_failure(event: Event, error: &anyhow::Error) {
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
