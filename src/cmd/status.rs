//! `synapse status`: what this project shares with its team and what stays local.

use anyhow::Result;
use serde_json::json;

#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args, json: bool) -> Result<()> {
    let (store, scope, top) = super::team_here_to_read()?;
    let project = scope.key().unwrap_or_default();
    let shared = store.shared(project)?;
    let local = store.local_only(project)?;
    let shares_new = crate::team::shares_new(&top)?;
    if json {
        return super::print_json(&json!({
            "project": project,
            "file": crate::team::file_in(&top),
            "share_new_lessons": shares_new,
            "shared": shared,
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
    outln!("shared ({}):", shared.len());
    for s in &shared {
        let by = if s.mine {
            "from here"
        } else {
            s.author.as_str()
        };
        let text = super::headline(&store.head(s.memory_id, &scope)?.body, 70);
        outln!("{:>6}  {by}  {text}", s.memory_id);
    }
    let ids: Vec<String> = local.iter().map(i64::to_string).collect();
    outln!("local only ({}): {}", local.len(), ids.join(" "));
    Ok(())
}
