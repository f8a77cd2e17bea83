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
    /// What the fold left out (nothing, but a file past the 8 MiB a fold reads).
    left: crate::sources::Left,
    /// The files cut or unreadable, each with why.
    problems: Vec<Problem>,
}

/// A source file that gave no memories, or fewer than it holds.
#[derive(Serialize)]
struct Problem {
    file: String,
    /// The bytes folded when the file was cut at a limit.
    cut: Option<i64>,
    /// Its size in bytes.
    size: i64,
    why: Option<String>,
}

impl Problem {
    fn of(file: &crate::store::sources::SourceFile) -> Problem {
        Problem {
            file: file.shown.clone(),
            cut: (file.cut > 0).then_some(file.cut),
            size: file.size,
            why: file.problem.clone(),
        }
    }

    /// One line for a person: `memory/big.md: folded its first 8 MiB of 12 MiB`.
    fn line(&self) -> String {
        let mut parts = Vec::new();
        if let Some(cut) = self.cut {
            parts.push(format!(
                "folded its first {} of {}",
                crate::sources::bytes_said(cut),
                crate::sources::bytes_said(self.size)
            ));
        }
        parts.extend(self.why.clone());
        format!("{}: {}", self.file, parts.join("; "))
    }
}

pub fn run(_args: Args, json: bool) -> Result<()> {
    let here = super::here()?;
    let mut store = crate::store::Store::open_default()?;
    let scope = crate::store::Scope::of_folder(&here)?;
    let known = super::try_fold_sources(&mut store, &scope, crate::sources::SYNC)?;
    let problems = match &known {
        Some(_) => store.source_problems(&scope)?,
        None => Vec::new(),
    };
    let sources = Sources {
        files: store.count_source_files(&scope)?,
        left: known.as_ref().map(|k| k.left.clone()).unwrap_or_default(),
        folded: known.map(|k| k.folded).unwrap_or_default(),
        problems: problems.iter().map(Problem::of).collect(),
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
    for said in sources.left.said() {
        outln!("  {said}");
    }
    for problem in &sources.problems {
        outln!("  {}", problem.line());
    }
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
