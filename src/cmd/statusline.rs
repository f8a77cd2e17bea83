//! `synapse statusline`: one short line for Claude Code's status line.
//!
//! Claude Code runs the `statusLine` command of the user's settings after each message (and
//! every `refreshInterval` seconds), with a JSON object on standard input that names the
//! session and its folders (`session_id`, `cwd`, `workspace.current_dir`, ...), and shows what
//! it prints. This verb prints how many memories that folder's project sees (its own and the
//! global ones) and how many memories handed to this session were replaced since.
//!
//! Its work is a few statements on a store opened read-only (`Store::peek`): nothing is created,
//! migrated or folded in, and the drift shown is only what costs no more than the session's own
//! handed memories (`replaced_since_given`), never an audit of the store; counts stop at
//! `COUNT_CAP` and show a `+` there. A status line must
//! never show an error: on any failure it prints nothing, exits 0 and logs one line in
//! `synapse.log`, as the hooks do (only when the data folder exists).

use std::path::PathBuf;

use anyhow::{Context, Result};
use serde::Deserialize;

use crate::store::{Scope, Store};

#[derive(Debug, clap::Args)]
pub struct Args {}

/// The fields of the client's status-line input this verb reads; the rest is ignored.
#[derive(Debug, Deserialize)]
struct Payload {
    session_id: Option<String>,
    cwd: Option<PathBuf>,
    workspace: Option<Workspace>,
}

#[derive(Debug, Deserialize)]
struct Workspace {
    current_dir: Option<PathBuf>,
}

/// More than any status-line input the client sends (about 2 KiB): a larger one is refused
/// unread.
const MAX_INPUT: u64 = 1 << 20;

pub fn run(_args: Args, _json: bool) -> Result<()> {
    let Ok(dir) = crate::config::data_dir() else {
        return Ok(());
    };
    let shown = line(&dir).and_then(|text| {
        if let Some(text) = text {
            outln!("{text}");
        }
        Ok(())
    });
    match shown {
        // A closed pipe is no failure worth logging (`is_closed_pipe`).
        Err(e) if !super::is_closed_pipe(&e) => log(&dir, &e),
        _ => {}
    }
    Ok(())
}

/// The line for the payload on standard input; `None` when there is no store.
fn line(dir: &std::path::Path) -> Result<Option<String>> {
    let payload = read_payload()?;
    let Some(store) = Store::peek(dir)? else {
        return Ok(None);
    };
    let folder = payload
        .workspace
        .and_then(|w| w.current_dir)
        .or(payload.cwd)
        .context("the status-line input names no folder (workspace.current_dir or cwd)")?;
    let scope = Scope::of_folder(&folder)?;
    let (counts, replaced) = store.read(|| {
        let counts = store.count_live_by_place(&scope)?;
        let replaced = match payload.session_id.as_deref() {
            Some(session) => store.replaced_since_given(session, &scope)?.len(),
            None => 0,
        };
        Ok((counts, replaced))
    })?;
    Ok(Some(render(counts, replaced)))
}

fn read_payload() -> Result<Payload> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(MAX_INPUT + 1)
        .read_to_end(&mut bytes)
        .context("could not read the status-line input")?;
    if bytes.len() as u64 > MAX_INPUT {
        anyhow::bail!("the status-line input is longer than {MAX_INPUT} bytes");
    }
    serde_json::from_slice(&bytes).context("the status-line input is not the JSON expected")
}

/// `Synapse · 12 memories (3 global) · 1 replaced since given`.
fn render(counts: crate::store::peek::Counts, replaced: usize) -> String {
    let cap = crate::store::peek::COUNT_CAP;
    let at_cap = |n: i64| if n >= cap { "+" } else { "" };
    let total = counts.project + counts.global;
    let more = at_cap(counts.project.max(counts.global));
    let noun = if total == 1 { "memory" } else { "memories" };
    let mut text = format!("Synapse · {total}{more} {noun}");
    if counts.global > 0 {
        text.push_str(&format!(
            " ({}{} global)",
            counts.global,
            at_cap(counts.global)
        ));
    }
    if replaced > 0 {
        text.push_str(&format!(" · {replaced} replaced since given"));
    }
    text
}

/// One line in `synapse.log`, as a hook logs a failure; none when the data folder is missing
/// (logging must not create it).
fn log(dir: &std::path::Path, error: &anyhow::Error) {
    if !dir.is_dir() {
        return;
    }
    let line = format!("{} statusline failed: {error:#}", crate::store::today());
    drop(crate::files::log(dir, &line));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::peek::Counts;

    #[test]
    fn the_line_names_the_count_the_global_share_and_what_was_replaced() {
        let counts = |project, global| Counts { project, global };
        assert_eq!(render(counts(0, 0), 0), "Synapse · 0 memories");
        assert_eq!(render(counts(1, 0), 0), "Synapse · 1 memory");
        assert_eq!(
            render(counts(9, 3), 2),
            "Synapse · 12 memories (3 global) · 2 replaced since given"
        );
        // Counting stops at the cap, and the line says so.
        assert_eq!(
            render(counts(999, 2), 0),
            "Synapse · 1001+ memories (2 global)"
        );
        assert_eq!(
            render(counts(5, 999), 0),
            "Synapse · 1004+ memories (999+ global)"
        );
    }
}
