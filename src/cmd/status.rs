//! `synapse status`: what this project shares with its team and what stays local.

use anyhow::Result;
use serde_json::json;

#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args, json: bool) -> Result<()> {
    let (store, scope, top) = super::team_here()?;
    let project = scope.key().unwrap_or_default();
    let shared = store.shared(project)?;
    let live = store.list(&scope, false)?;
    let local: Vec<i64> = live
        .iter()
        .filter(|m| m.project.as_deref() == Some(project))
        .filter(|m| !shared.iter().any(|s| s.memory_id == m.id && !s.withdrawn))
        .map(|m| m.id)
        .collect();
    let live_shared: Vec<_> = shared
        .iter()
        .filter(|s| !s.withdrawn && live.iter().any(|m| m.id == s.memory_id))
        .collect();
    let shares_new = crate::team::shares_new(&top)?;
    if json {
        return super::print_json(&json!({
            "project": project,
            "file": crate::team::file_in(&top),
            "share_new_lessons": shares_new,
            "shared": live_shared,
            "local": local,
        }));
    }
    outln!("project {project}");
    outln!(
        "shared file {} (new lessons {})",
        crate::team::FILE,
        if shares_new {
            "are shared: share = true"
        } else {
            "stay local"
        }
    );
    outln!("shared ({}):", live_shared.len());
    for s in &live_shared {
        let by = if s.mine {
            "from here"
        } else {
            s.author.as_str()
        };
        let text = live
            .iter()
            .find(|m| m.id == s.memory_id)
            .map(|m| super::headline(&m.body, 70))
            .unwrap_or_default();
        outln!("{:>6}  {by}  {text}", s.memory_id);
    }
    let ids: Vec<String> = local.iter().map(i64::to_string).collect();
    outln!("local only ({}): {}", local.len(), ids.join(" "));
    Ok(())
}
