//! The slash commands that take text (`/synapse:remember`, `/synapse:recall`, `/synapse:read`,
//! `/synapse:forget`, `/synapse:share`), run on the prompt exactly as the user typed it.
//!
//! Claude Code substitutes a command's arguments raw into the shell line of its markdown file,
//! so quotes, `$VAR`, backticks, `;` and globs in them were the shell's to interpret: an
//! apostrophe broke the command, `$HOME` was expanded, a backtick could run a program. The
//! UserPromptSubmit hook, though, receives every prompt as typed, slash commands included, as a
//! JSON string with no shell in between. So the hook runs these commands itself (see
//! `session::handle`) and prints the answer as context for the model; their markdown files
//! run nothing and ask the model to report what the hook said.

use std::path::Path;

use anyhow::Result;

use super::voice::Voice;
use crate::config::{Budget, Ignore};
use crate::drift;
use crate::recall::{self, Options};
use crate::record::{self, Recorded, Recording};
use crate::store::write::NewMemory;
use crate::store::{is_busy, Scope, Store};

/// The prefix of this plugin's commands in a prompt.
const PREFIX: &str = "/synapse:";

/// A command typed at the start of a prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command<'a> {
    pub verb: Verb,
    /// Everything after the command name and the one space (or line break) that ends it.
    pub text: &'a str,
}

/// The commands the hook runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verb {
    Remember,
    Recall,
    Read,
    Forget,
    Share,
}

impl Verb {
    fn name(self) -> &'static str {
        match self {
            Verb::Remember => "remember",
            Verb::Recall => "recall",
            Verb::Read => "read",
            Verb::Forget => "forget",
            Verb::Share => "share",
        }
    }
}

/// The command a prompt starts with, if it is one of these; `None` for any other prompt (other
/// commands, such as `/synapse:drift`, take no text and run from their markdown file).
pub fn parse(prompt: &str) -> Option<Command<'_>> {
    let rest = prompt.strip_prefix(PREFIX)?;
    let name_end = rest.find(|c: char| c.is_whitespace()).unwrap_or(rest.len());
    let (name, tail) = rest.split_at_checked(name_end)?;
    let verb = [
        Verb::Remember,
        Verb::Recall,
        Verb::Read,
        Verb::Forget,
        Verb::Share,
    ]
    .into_iter()
    .find(|v| v.name() == name)?;
    let mut chars = tail.chars();
    let text = match chars.next() {
        Some(' ' | '\t' | '\n') => chars.as_str(),
        Some('\r') => chars.as_str().strip_prefix('\n').unwrap_or(chars.as_str()),
        _ => tail,
    };
    Some(Command { verb, text })
}

/// What running a command did: the answer for the model, what it recorded (for the person's
/// line), and the memories the answer shows (by text or by id: the session may name them in a
/// `replaces #N` later).
pub struct Ran {
    pub text: String,
    pub recorded: Vec<Recorded>,
    pub shown: Vec<i64>,
}

/// Run `command` and say what happened, for the model to read. A request that cannot be done
/// (an id that is not there, an empty text) is answered, not failed; only the store failing is
/// an error.
/// `checkout` is the top of the session's git checkout, where `/synapse:share` writes and
/// where `share = true` makes `/synapse:remember` share. A recall's results close the way the
/// client's blocks do (`voice`).
pub fn run(
    store: &mut Store,
    scope: &Scope,
    command: &Command,
    (budget, ignore, voice): (Budget, &Ignore, &Voice),
    checkout: Option<&Path>,
) -> Result<Ran> {
    let name = command.verb.name();
    let mut recorded = Vec::new();
    let (said, shown) = match command.verb {
        Verb::Remember => {
            let kept = remember(store, scope, command.text, checkout, ignore)?;
            recorded.extend(kept.recorded);
            (kept.lines.join("\n"), kept.shown)
        }
        Verb::Share => (share(store, scope, command.text, checkout)?, Vec::new()),
        Verb::Recall => recall(store, scope, command.text, (budget, ignore), voice)?,
        Verb::Read => read(store, scope, command.text, budget)?,
        Verb::Forget => (forget(store, scope, command.text)?, Vec::new()),
    };
    Ok(Ran {
        text: format!("Synapse ran /synapse:{name} on the text exactly as typed:\n{said}\n"),
        recorded,
        shown,
    })
}

/// A path `ignore` matches (`[drift] ignore`) is never called stale in what is said of it.
fn remember(
    store: &mut Store,
    scope: &Scope,
    text: &str,
    checkout: Option<&Path>,
    ignore: &Ignore,
) -> Result<Kept> {
    let source = format!("slash-command {}", crate::store::today());
    let mut kept = keep(store, scope, text, source, checkout)?;
    if let Some(Recorded::Stored { outcome, .. }) = &kept.recorded {
        let findings = drift::of_remembered(store, scope, outcome, ignore)?;
        kept.lines
            .extend(findings.iter().map(|f| f.about_new(outcome.id)));
        kept.shown.extend(findings.iter().map(|f| f.id));
    }
    Ok(kept)
}

/// What keeping a typed text did.
pub struct Kept {
    /// What became of it, a line each.
    pub lines: Vec<String>,
    /// What recording did (none when nothing was recorded: not a memory's text).
    pub recorded: Option<Recorded>,
    /// The memories the lines name: the one stored or repeated, and those close to it.
    pub shown: Vec<i64>,
}

/// Record `text` the user typed as a memory of `scope`, labelled `source`: the lines that say
/// what became of it (and which live memories it is close to, `record::similar`).
/// `/synapse:remember` and a prompt's `remember:` lines both keep text this way.
pub fn keep(
    store: &mut Store,
    scope: &Scope,
    text: &str,
    source: String,
    checkout: Option<&Path>,
) -> Result<Kept> {
    let said = |line: String, recorded: Option<Recorded>| Kept {
        lines: vec![line],
        recorded,
        shown: Vec::new(),
    };
    if let Err(e) = crate::store::write::check_body(text) {
        return Ok(said(format!("nothing stored: {e:#}"), None));
    }
    let recording = Recording {
        memory: NewMemory {
            body: text.to_owned(),
            source,
            project: scope.key().map(str::to_owned),
            ..NewMemory::default()
        },
        supersedes: &[],
        checkout,
    };
    let (outcome, shared) = match record::remember(store, scope, recording)? {
        Recorded::Stored { outcome, shared } => (outcome, shared),
        Recorded::Spooled => {
            return Ok(said(record::SPOOLED.to_owned(), Some(Recorded::Spooled)));
        }
    };
    let id = outcome.id;
    let mut lines = vec![if outcome.duplicate {
        format!("already remembered as memory {id}; nothing stored")
    } else {
        format!("remembered as memory {id}")
    }];
    lines.extend(outcome.masked_line());
    lines.extend(shared.line());
    let similar = record::similar(store, scope, &outcome)?;
    lines.extend(similar.iter().map(|near| near.command_line(id)));
    let mut shown = vec![id];
    shown.extend(similar.iter().map(|near| near.id));
    Ok(Kept {
        lines,
        recorded: Some(Recorded::Stored { outcome, shared }),
        shown,
    })
}

fn recall(
    store: &Store,
    scope: &Scope,
    query: &str,
    (budget, ignore): (Budget, &Ignore),
    voice: &Voice,
) -> Result<(String, Vec<i64>)> {
    let options = Options {
        budget,
        ignore: ignore.clone(),
        ..Options::default()
    };
    let found = recall::recall(store, scope, query, &options)?;
    let now = crate::store::now();
    let mut shown: Vec<i64> = found.results.iter().map(|hit| hit.id).collect();
    shown.extend(
        found
            .drift
            .iter()
            .flat_map(|f| [f.id].into_iter().chain(f.newer)),
    );
    Ok((
        super::inject::recall_block(query, &found, now, voice),
        shown,
    ))
}

/// A page of the memory `args` names, with that memory; an answer that read nothing shows none.
fn read(store: &Store, scope: &Scope, args: &str, budget: Budget) -> Result<(String, Vec<i64>)> {
    let words: Vec<&str> = args
        .split_whitespace()
        .filter(|w| *w != "--offset")
        .collect();
    let (id, offset) = match words.as_slice() {
        [id] => (id.parse::<i64>().ok(), Some(0)),
        [id, offset] => (id.parse::<i64>().ok(), offset.parse::<usize>().ok()),
        _ => (None, None),
    };
    let (Some(id), Some(offset)) = (id, offset) else {
        return Ok((
            format!(
                "nothing read: expected a memory id and an optional byte offset, like \
                 `/synapse:read 12` or `/synapse:read 12 6000`, not {args:?}"
            ),
            Vec::new(),
        ));
    };
    let page = match crate::read::read(store, scope, id, offset, budget.page_bytes()) {
        Ok(Some(page)) => page,
        Ok(None) => {
            return Ok((
                format!(
                    "no readable memory {id} in this project (it may be missing, superseded or \
                     forgotten)"
                ),
                Vec::new(),
            ))
        }
        Err(e) => return Ok((format!("nothing read: {e:#}"), Vec::new())),
    };
    let end = page.offset + page.body.len();
    let more = match page.next {
        Some(next) => format!("more: /synapse:read {id} {next}"),
        None => "the end".to_owned(),
    };
    let escaped = if page.body.chars().any(crate::text::hidden) {
        "; control characters shown as \\u{..} escapes"
    } else {
        ""
    };
    let said = format!(
        "memory {id}, bytes {}..{end} of {}, exactly as stored (source: {}{escaped}):\n{}\n--- \
         {more}",
        page.offset,
        page.total,
        page.source,
        crate::text::visible(&page.body)
    );
    Ok((said, vec![id]))
}

/// The memory ids a command's text lists, or `None` unless it is one or more ids and nothing else.
fn ids(args: &str) -> Option<Vec<i64>> {
    let ids: Option<Vec<i64>> = args.split_whitespace().map(|w| w.parse().ok()).collect();
    ids.filter(|ids| !ids.is_empty())
}

fn forget(store: &mut Store, scope: &Scope, args: &str) -> Result<String> {
    let Some(ids) = ids(args) else {
        return Ok(format!(
            "nothing forgotten: expected memory ids, like `/synapse:forget 12`, not {args:?}"
        ));
    };
    let mut lines = Vec::new();
    for id in ids {
        lines.push(match store.forget(id, scope) {
            Ok(()) => {
                format!("forgot {id} (hidden, not deleted: `synapse restore {id}` undoes it)")
            }
            Err(e) if is_busy(&e) => return Err(e),
            Err(e) => format!("could not forget {id}: {e:#}"),
        });
    }
    Ok(lines.join("\n"))
}

fn share(store: &mut Store, scope: &Scope, args: &str, checkout: Option<&Path>) -> Result<String> {
    let Some(top) = checkout else {
        return Ok(
            "nothing shared: this session is not in a git repository, and a team shares \
                   memories through its repository"
                .to_owned(),
        );
    };
    let Some(ids) = ids(args) else {
        return Ok(format!(
            "nothing shared: expected memory ids, like `/synapse:share 12 15`, not {args:?}"
        ));
    };
    let mut lines = Vec::new();
    for id in ids {
        lines.push(match crate::team::share(store, scope, top, &[id]) {
            Ok(events) if events.iter().flatten().next().is_some() => format!(
                "shared {id} through {}: commit and push it to share it with the team",
                crate::team::FILE
            ),
            Ok(_) => format!("{id} is already shared"),
            Err(e) if is_busy(&e) => return Err(e),
            Err(e) => format!("could not share {id}: {e:#}"),
        });
    }
    Ok(lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_is_everything_after_the_command_and_one_space() {
        let typed = "/synapse:remember  We don't retry 4xx; $HOME `id` *.rs\nsecond line ";
        assert_eq!(
            parse(typed),
            Some(Command {
                verb: Verb::Remember,
                text: " We don't retry 4xx; $HOME `id` *.rs\nsecond line "
            })
        );
        assert_eq!(parse("/synapse:recall\nwebhooks").unwrap().text, "webhooks");
        assert_eq!(parse("/synapse:read").unwrap().text, "");
        assert_eq!(parse("/synapse:drift"), None);
        assert_eq!(parse("/synapse:remembering x"), None);
        assert_eq!(parse("please /synapse:remember x"), None);
        assert_eq!(parse("/synapse:forgeté"), None);
    }
}
