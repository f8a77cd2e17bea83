//! `synapse unshare ID`: withdraw a shared memory from the team. Teammates' copies are forgotten
//! when they next fold the file; a memory shared from here stays here, local only.

use anyhow::Result;
use serde_json::json;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The shared memory to withdraw.
    id: i64,
}

pub fn run(args: Args, json: bool) -> Result<()> {
    let (mut store, scope, top) = super::team_here()?;
    let event = crate::team::unshare(&mut store, &scope, &top, args.id)?;
    if json {
        return super::print_json(&json!({ "unshared": args.id, "uid": event.uid }));
    }
    outln!(
        "unshared {}: written to {}; commit and push it so teammates' copies are forgotten",
        args.id,
        crate::team::FILE
    );
    Ok(())
}
