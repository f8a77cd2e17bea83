//! PreCompact and PostCompact: one binary for both, told apart by the payload's
//! `hook_event_name`. Before a compaction, the summary is asked to end with the session's lessons
//! as `remember:` lines (the client appends a PreCompact hook's plain output to the summary's
//! instructions); after it, those lines are recorded from the summary as Stop records them from
//! a reply (`stop`).

use anyhow::Result;

use super::{Answer, Payload};

/// What the summary of a compaction is asked for, before the client compacts (PreCompact). The
/// client adds it to the summary's instructions; the lines it asks for are kept by PostCompact.
pub const BEFORE_COMPACTION: &str = "Synapse (this project's memory across sessions): at the \
end of the summary, list the durable lessons of this session that a later session would need and \
that no earlier reply already marked with remember: (a decision and its reason, a fix that \
worked, a fact about this project or its tools), one per line, each line starting with \
\"remember: \" and complete on its own. Leave out what was only true for this task. If there are \
none, write no such line.";

/// Before a compaction, the request for its summary; after it, `None`: the summary's lessons
/// are recorded as a reply's are.
pub(super) fn before(payload: &Payload) -> Result<Option<Answer>> {
    match payload.hook_event_name.as_deref() {
        Some("PreCompact") => Ok(Some(Answer::context(Some(format!(
            "{BEFORE_COMPACTION}\n"
        ))))),
        Some("PostCompact") => Ok(None),
        other => anyhow::bail!(
            "the compaction hook ran for {other:?}, not PreCompact or PostCompact: the \
             plugin's hooks/hooks.json is wired wrong"
        ),
    }
}

/// Where the lessons a hook saves came from, for the person's line.
pub(super) fn saved_from(event: super::Event) -> &'static str {
    match event {
        super::Event::Compact => " from the compaction summary",
        _ => "",
    }
}
