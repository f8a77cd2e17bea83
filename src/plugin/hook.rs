//! A hook as a whole process: the client its arguments name picks the adapter, which reads the
//! payload on stdin; the session core (`session`) decides the answer; the adapter writes it on
//! stdout. The binaries (`synapse-session-start`, `-prompt-submit`, `-stop`, `-compact`) only
//! call `main` with their event.
//!
//! A hook never breaks a session: `main` turns every failure into one line in `synapse.log` in
//! the data folder, prints nothing, and exits 0.

use std::io::{Read, Write};

use anyhow::{Context, Result};

use super::claude::ClaudeCode;
use super::codex::Codex;
use super::gemini::Gemini;
use super::session::{self, log_failure, Adapter, Answer};
use crate::store::Store;

pub use super::session::{Event, BEFORE_COMPACTION};

/// The most stdin a hook reads: a hook's work is bounded whatever is pasted. A longer payload
/// is refused, and the log says so.
const MAX_INPUT: u64 = 4 << 20;

/// The adapter for the client the hook's arguments name: none for Claude Code, `--client
/// gemini`, `--client codex` (or `--client claude`). Anything else is an error: a hook guessing
/// the client would answer in a form the client drops.
fn client(args: &[String]) -> Result<&'static dyn Adapter> {
    match args {
        [] => Ok(&ClaudeCode),
        [flag, name] if flag == "--client" && name == "claude" => Ok(&ClaudeCode),
        [flag, name] if flag == "--client" && name == "gemini" => Ok(&Gemini),
        [flag, name] if flag == "--client" && name == "codex" => Ok(&Codex),
        _ => anyhow::bail!(
            "unexpected arguments {args:?}: a hook takes none, or --client claude|gemini|codex"
        ),
    }
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
    let client = client(&args)?;
    let mut input = String::new();
    std::io::stdin()
        .take(MAX_INPUT + 1)
        .read_to_string(&mut input)
        .context("could not read the hook payload from stdin")?;
    anyhow::ensure!(
        input.len() as u64 <= MAX_INPUT,
        "the payload is longer than {} MiB, the most a hook reads (a prompt or reply that \
         long): nothing was done with it",
        MAX_INPUT >> 20
    );
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
    let payload = ClaudeCode.payload(event, input)?;
    Ok(session::handle(event, &ClaudeCode, payload)?.0.shown())
}

/// Handle one payload, hand what the hook prints to `print`, then trim the store's log, and
/// return the store (none when the hook is off).
fn respond(
    event: Event,
    client: &dyn Adapter,
    input: &str,
    print: impl FnOnce(&str) -> Result<()>,
) -> Result<Option<Store>> {
    let payload = client.payload(event, input)?;
    let (answer, store) = session::handle(event, client, payload)?;
    let answer = answer.shown();
    if let Some(text) = client.output(event, answer) {
        print(&text)?;
    }
    // After the output is out: a checkpoint that fails cannot cost the session its context.
    if let Some(store) = &store {
        store.trim_log()?;
    }
    Ok(store)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(args: &[&str]) -> Result<&'static dyn Adapter> {
        client(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    /// Tells adapters apart by what they print for one answer.
    fn printed(client: &dyn Adapter) -> Option<String> {
        let answer = Answer {
            context: Some("x".into()),
            line: None,
        };
        client.output(Event::SessionStart, answer)
    }

    #[test]
    fn the_client_is_claude_code_unless_the_arguments_name_another() {
        let claude = printed(&ClaudeCode);
        let gemini = printed(&Gemini);
        let codex = printed(&Codex);
        assert!(claude != gemini && gemini != codex && claude != codex);
        assert_eq!(printed(named(&[]).unwrap()), claude);
        assert_eq!(printed(named(&["--client", "claude"]).unwrap()), claude);
        assert_eq!(printed(named(&["--client", "gemini"]).unwrap()), gemini);
        assert_eq!(printed(named(&["--client", "codex"]).unwrap()), codex);
        for wrong in [&["gemini"][..], &["--client", "cursor"], &["--client"]] {
            assert!(named(wrong).is_err(), "{wrong:?}");
        }
    }
}
