//! The line a person sees of what a hook did: how many notes the model was given and how many
//! were left out and why, or what was saved. It goes in the client's `systemMessage`, which the
//! model never reads, so it changes nothing of the model's context (`[hooks] notice`).

use crate::drift::LeftOut;
use crate::record::Recorded;

/// What every line starts with, so the person knows whose line it is.
const WHO: &str = "Synapse";

/// At a session's start: "Synapse · 4 notes for fix/stripe-webhook · left out 2 (1 stale,
/// 1 replaced) · 1 loaded line names a gone path". `task` is the branch, when the session has
/// one; `stale` counts the lines of the files the client loads that name gone paths.
pub fn session(given: usize, task: Option<&str>, left: &LeftOut, stale: usize) -> String {
    let notes = match given {
        0 => "no notes".to_owned(),
        1 => "1 note".to_owned(),
        n => format!("{n} notes"),
    };
    let mut line = match task {
        Some(branch) => format!("{WHO} · {notes} for {branch}"),
        None => format!("{WHO} · {notes} for this task"),
    };
    if let Some(counts) = left.counts() {
        line.push_str(&format!(" · left out {} ({counts})", left.kinds.len()));
    }
    line + &gone_paths(stale)
}

/// At a session's start with nothing to go on (no branch, no changed files): how many memories
/// there are, and how the person reaches them (`search`, as the client's voice says); and, as
/// `session` says it, how many loaded lines name gone paths.
pub fn waiting(memories: i64, search: &str, stale: usize) -> String {
    let memories = match memories {
        1 => "1 memory".to_owned(),
        n => format!("{n} memories"),
    };
    format!(
        "{WHO} · {memories} here · {search} searches them{}",
        gone_paths(stale)
    )
}

/// " · 2 loaded lines name gone paths": what a session's block says of the files the client
/// loads, counted; nothing for none.
fn gone_paths(stale: usize) -> String {
    match stale {
        0 => String::new(),
        1 => " · 1 loaded line names a gone path".to_owned(),
        n => format!(" · {n} loaded lines name gone paths"),
    }
}

/// What the limits of a hook's reading of Claude Code's files left for later, to follow the
/// session's line (" · Claude Code's files: 9936 not read yet, 1 read in part; synapse sync
/// reads them"), or `None` when nothing was: a limit reached is said, never silent.
pub fn sources_left(left: &crate::sources::Left) -> Option<String> {
    let mut parts = Vec::new();
    if left.waiting > 0 {
        parts.push(format!("{} not read yet", left.waiting));
    }
    if left.unlisted {
        parts.push("a memory folder too large to list whole".to_owned());
    }
    if left.cut > 0 {
        parts.push(format!("{} read in part", left.cut));
    }
    if left.rules > 0 || left.imports {
        parts.push("more rules or imports than a hook reads".to_owned());
    }
    if parts.is_empty() {
        return None;
    }
    Some(format!(
        " · Claude Code's files: {}; synapse sync reads them",
        parts.join(", ")
    ))
}

/// At a prompt (`notice = "always"`): "Synapse · 2 notes for this prompt (#12, #31)".
pub fn prompt(ids: &[i64]) -> String {
    let notes = if ids.len() == 1 { "note" } else { "notes" };
    let ids: Vec<String> = ids.iter().map(|id| format!("#{id}")).collect();
    format!(
        "{WHO} · {} {notes} for this prompt ({})",
        ids.len(),
        ids.join(", ")
    )
}

/// What a hook saved: "Synapse saved #20 (1 secret masked)", "Synapse saved #20, #21; #12 was
/// already kept"; `None` when nothing was recorded. `from` says where the lessons came from,
/// when that is not the reply the person just read (" from the compaction summary").
pub fn saved(recorded: &[Recorded], from: &str) -> Option<String> {
    let (mut new, mut known, mut waiting, mut masked) = (Vec::new(), Vec::new(), 0, 0);
    for r in recorded {
        match r {
            Recorded::Stored { outcome, .. } => {
                masked += outcome.masked.len();
                let id = format!("#{}", outcome.id);
                if outcome.duplicate {
                    known.push(id);
                } else {
                    new.push(id);
                }
            }
            Recorded::Spooled => waiting += 1,
        }
    }
    let mut parts = Vec::new();
    if !new.is_empty() {
        parts.push(format!("saved {}{from}", new.join(", ")));
    }
    if !known.is_empty() {
        let was = if known.len() == 1 { "was" } else { "were" };
        parts.push(format!("{} {was} already kept", known.join(", ")));
    }
    if waiting > 0 {
        parts.push(format!(
            "will save {waiting} lesson{} (the store was busy)",
            if waiting == 1 { "" } else { "s" }
        ));
    }
    if parts.is_empty() {
        return None;
    }
    let mut line = format!("{WHO} {}", parts.join("; "));
    if masked > 0 {
        let s = if masked == 1 { "" } else { "s" };
        line.push_str(&format!(" ({masked} secret{s} masked)"));
    }
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Shared;
    use crate::store::write::Remembered;

    fn stored(id: i64, duplicate: bool, masked: usize) -> Recorded {
        let found = crate::secrets::mask("token ghp_0123456789abcdefghijABCDEFGHIJ012345").found;
        Recorded::Stored {
            outcome: Remembered {
                id,
                duplicate,
                masked: found.into_iter().cycle().take(masked).collect(),
                superseded: Vec::new(),
            },
            shared: Shared::No,
        }
    }

    #[test]
    fn the_session_line_counts_what_was_given_and_left_out_by_kind() {
        let mut left = LeftOut::default();
        assert_eq!(
            session(4, Some("fix/webhook"), &left, 0),
            "Synapse · 4 notes for fix/webhook"
        );
        left.add(Some(3), "3 is stale (x)".into(), "stale");
        left.add(Some(5), "5 is replaced by newer 9 (y)".into(), "replaced");
        left.add(Some(6), "6 is stale (z)".into(), "stale");
        assert_eq!(
            session(1, None, &left, 0),
            "Synapse · 1 note for this task · left out 3 (2 stale, 1 replaced)"
        );
        assert_eq!(
            session(0, Some("main"), &LeftOut::default(), 0),
            "Synapse · no notes for main"
        );
        assert_eq!(
            session(2, Some("main"), &left, 4),
            "Synapse · 2 notes for main · left out 3 (2 stale, 1 replaced) · 4 loaded lines \
             name gone paths"
        );
        assert_eq!(
            waiting(12, "/synapse:recall", 1),
            "Synapse · 12 memories here · /synapse:recall searches them · 1 loaded line names a \
             gone path"
        );
    }

    #[test]
    fn the_saved_line_names_new_ids_repeats_the_spool_and_masked_secrets() {
        assert_eq!(saved(&[], ""), None);
        assert_eq!(
            saved(&[stored(20, false, 1)], "").as_deref(),
            Some("Synapse saved #20 (1 secret masked)")
        );
        let all = [stored(20, false, 0), stored(12, true, 0), Recorded::Spooled];
        assert_eq!(
            saved(&all, " from the compaction summary").as_deref(),
            Some(
                "Synapse saved #20 from the compaction summary; #12 was already kept; will save \
                 1 lesson (the store was busy)"
            )
        );
    }

    #[test]
    fn what_the_limits_left_of_the_files_is_said() {
        use crate::sources::Left;
        assert_eq!(sources_left(&Left::default()), None);
        let left = Left {
            waiting: 9_936,
            cut: 1,
            problems: 2,
            ..Left::default()
        };
        assert_eq!(
            sources_left(&left).as_deref(),
            Some(
                " · Claude Code's files: 9936 not read yet, 1 read in part; synapse sync reads \
                 them"
            )
        );
    }

    #[test]
    fn the_prompt_line_names_each_note() {
        assert_eq!(prompt(&[12]), "Synapse · 1 note for this prompt (#12)");
        assert_eq!(
            prompt(&[12, 31]),
            "Synapse · 2 notes for this prompt (#12, #31)"
        );
    }
}
