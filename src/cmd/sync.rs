//! `synapse sync`: fold the project's shared file into the store now, and report the lines that
//! could not be folded. SessionStart does the same on its own when the file changed.

use anyhow::Result;

#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args, json: bool) -> Result<()> {
    let (mut store, scope, top) = super::team_here()?;
    let project = scope.key().unwrap_or_default().to_owned();
    let path = crate::team::file_in(&top);
    let synced = crate::team::fold(&mut store, &project, &path, crate::team::SYNC_BYTES)?;
    if json {
        return super::print_json(&synced);
    }
    if synced.file.is_none() {
        outln!(
            "no shared file here yet ({}); `synapse share ID` starts one",
            crate::team::FILE
        );
        return Ok(());
    }
    let f = &synced.folded;
    outln!(
        "folded {}: {} new, {} replaced, {} withdrawn, {} restored",
        crate::team::FILE,
        f.added.len(),
        f.replaced.len(),
        f.withdrawn.len(),
        f.restored.len()
    );
    for (old, new) in &f.replaced {
        outln!("  {old} is replaced by {new}");
    }
    for uid in &f.unknown {
        outln!("  skipped an event for {uid}, which this project does not hold");
    }
    for p in &synced.skipped {
        outln!("  skipped line {}: {}", p.line, p.why);
    }
    Ok(())
}
