//! `synapse sync`: fold into the store now what the hooks fold on their own when it changes:
//! Claude Code's memory files of this project (every one, without a hook's limits, and the
//! nested `CLAUDE.md` files git tracks), and the project's shared file, reporting the lines that
//! could not be folded.

use anyhow::Result;
use serde::Serialize;

#[derive(Debug, clap::Args)]
pub struct Args {}

/// What `sync --json` prints: the team file's fold (its fields, as before) and the sources'.
#[derive(Serialize)]
struct Report {
    #[serde(flatten)]
    team: crate::team::Synced,
    sources: Sources,
}

#[derive(Serialize)]
struct Sources {
    /// Files known after the fold.
    files: usize,
    #[serde(flatten)]
    folded: crate::store::sources::Folded,
}

pub fn run(_args: Args, json: bool) -> Result<()> {
    let here = super::here()?;
    let mut store = crate::store::Store::open_default()?;
    let scope = crate::store::Scope::of_folder(&here)?;
    let known = super::try_fold_sources(&mut store, &scope, crate::sources::SYNC)?;
    let sources = Sources {
        files: known.as_ref().map_or(0, |k| k.files.len()),
        folded: known.map(|k| k.folded).unwrap_or_default(),
    };
    let team = match crate::team::checkout(&here) {
        Some(top) => {
            let project = scope.key().unwrap_or_default().to_owned();
            let path = crate::team::file_in(&top);
            crate::team::fold(&mut store, &project, &path, crate::team::SYNC_BYTES)?
        }
        None => crate::team::Synced::default(),
    };
    if json {
        return super::print_json(&Report { team, sources });
    }
    let s = &sources.folded;
    outln!(
        "Claude Code's memory files: {} known; {} folded ({} memories new, {} gone), {} deleted",
        sources.files,
        s.files,
        s.added,
        s.removed,
        s.gone
    );
    if team.file.is_none() {
        outln!(
            "no shared file here yet ({}); `synapse share ID` starts one",
            crate::team::FILE
        );
        return Ok(());
    }
    let f = &team.folded;
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
    for p in &team.skipped {
        outln!("  skipped line {}: {}", p.line, p.why);
    }
    Ok(())
}
