//! `synapse share ID... | --all`: share this project's memories with everyone who clones its
//! repository, through `.synapse/memories.jsonl`.

use anyhow::{bail, Result};
use serde_json::json;

use crate::store::shared::Change;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The memories to share.
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    ids: Vec<i64>,
    /// Share every live memory of this project that may be shared.
    #[arg(long)]
    all: bool,
}

pub fn run(args: Args, json: bool) -> Result<()> {
    let (mut store, scope, top) = super::team_here()?;
    let ids = if args.all {
        let project = scope.key().unwrap_or_default();
        store
            .list(&scope, false)?
            .into_iter()
            .filter(|m| m.project.as_deref() == Some(project))
            .map(|m| m.id)
            .rev()
            .collect()
    } else {
        args.ids
    };
    if ids.is_empty() && !json {
        outln!("nothing to share: this project has no live memories of its own yet");
        return Ok(());
    }
    let mut report = Vec::new();
    let mut refused = Vec::new();
    // One memory at a time: a memory that may not be shared (a secret, say) costs no other.
    for id in ids {
        match crate::team::share(&mut store, &scope, &top, &[id]) {
            Ok(events) => {
                let (shared, uid) = match events.into_iter().flatten().next() {
                    Some(e) if e.change == Change::Restore => ("again", Some(e.uid)),
                    Some(e) => ("now", Some(e.uid)),
                    None => ("already", None),
                };
                if !json {
                    match (shared, &uid) {
                        ("now", Some(uid)) => outln!("shared {id} as {uid}"),
                        ("again", _) => outln!("shared {id} again"),
                        _ => outln!("{id} is already shared"),
                    }
                }
                report.push(json!({ "id": id, "uid": uid, "shared": shared }));
            }
            Err(e) => {
                refused.push(format!("{e:#}"));
                report.push(json!({ "id": id, "refused": format!("{e:#}") }));
            }
        }
    }
    if json {
        super::print_json(&json!({ "file": crate::team::file_in(&top), "shared": report }))?;
    } else if report.len() > refused.len() {
        outln!(
            "written to {}: commit and push it to share with your team",
            crate::team::FILE
        );
    }
    if !refused.is_empty() {
        bail!(
            "{} of {} memories were not shared:\n{}",
            refused.len(),
            report.len(),
            refused.join("\n")
        );
    }
    Ok(())
}
