//! `synapse drift`: audit every memory a folder sees for stale, conflicting and duplicate ones,
//! or the memories of one of Claude Code's files (`synapse drift CLAUDE.md`).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde_json::json;

use crate::drift::{self, Finding, Kind};
use crate::sources::{self, Place};
use crate::store::sources::SourceFile;
use crate::store::{Scope, Store};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The folder whose memories to audit (its project's and the global ones), or one of Claude
    /// Code's memory or instruction files (`CLAUDE.md`, a rule, a memory file) to audit the
    /// memories it gives; default: here.
    #[arg(value_name = "DIR|FILE")]
    path: Option<PathBuf>,
}

pub fn run(args: Args, json: bool) -> Result<()> {
    let dir = match args.path {
        Some(dir) => dir,
        None => super::here()?,
    };
    if dir.is_file() {
        return run_file(&dir, json);
    }
    if !dir.is_dir() {
        bail!(
            "{} is neither a folder nor a file; pass the folder whose memories to audit, or one \
             of Claude Code's files",
            dir.display()
        );
    }
    let scope = Scope::of_folder(&dir)?;
    let mut store = super::open_to_read()?;
    // An audit covers Claude Code's files as they are now, every one of them.
    super::fold_sources(&mut store, &scope, sources::SYNC);
    let visible = store.count_live(&scope)?;
    let findings = drift::audit(&store, &scope)?;
    report(&store, &scope, &dir, None, visible, findings, json)
}

/// Audit the memories of one source file against everything its project sees: the findings
/// whose memory, or newer memory, is one of its pieces.
fn run_file(path: &Path, json: bool) -> Result<()> {
    let file = path
        .canonicalize()
        .with_context(|| format!("could not resolve {}", path.display()))?;
    let mut store = super::open_to_read()?;
    let here = here_place()?;
    super::fold_sources(&mut store, &here.scope(), sources::SYNC);
    let folded = store.source_files_at(&file.to_string_lossy())?;
    let mine = folded
        .iter()
        .find(|f| f.project == here.project)
        .or(folded.first());
    let (scope, source) = match mine {
        Some(source) => {
            let scope = match &source.project {
                Some(key) => Scope::project(key.clone()),
                None => here.scope(),
            };
            (scope, source.clone())
        }
        None => fold(&mut store, here, &file)?,
    };
    let pieces = store.memories_of_source(source.id)?;
    let findings: Vec<Finding> = drift::audit(&store, &scope)?
        .into_iter()
        .filter(|f| pieces.contains(&f.id) || f.newer.is_some_and(|n| pieces.contains(&n)))
        .collect();
    let count = i64::try_from(pieces.len()).unwrap_or(i64::MAX);
    report(&store, &scope, &file, Some(&source), count, findings, json)
}

/// Where a session in the current folder stands.
fn here_place() -> Result<Place> {
    let here = super::here()?;
    let scope = Scope::of_folder(&here)?;
    Ok(Place::new(
        &scope,
        &here,
        crate::team::checkout(&here).as_deref(),
    ))
}

/// Fold the sources of the project `file` belongs to and return its scope and `file`'s row; an
/// error naming the files that are sources when it is not one of them. A file of the current
/// project's memory folder belongs to that project (the folder lies outside it, under the
/// home); any other to the project of its own folder, whose `CLAUDE.md` files beside and above
/// it are looked for.
fn fold(store: &mut Store, here: Place, file: &Path) -> Result<(Scope, SourceFile)> {
    let place = if file.starts_with(&here.client.memory) {
        here
    } else {
        let folder = file.parent().unwrap_or(Path::new("/"));
        let scope = Scope::of_folder(folder)?;
        Place::new(&scope, folder, crate::team::checkout(folder).as_deref())
    };
    let near: Vec<String> = place
        .top
        .as_deref()
        .and_then(|top| file.strip_prefix(top).ok())
        .map(|rest| rest.to_string_lossy().into_owned())
        .into_iter()
        .collect();
    let known = sources::refresh(store, &place, &near, sources::SYNC)
        .with_context(|| format!("could not read the sources of {}", place.cwd.display()))?;
    if let Some(source) = known.files.iter().find(|f| Path::new(&f.path) == file) {
        return Ok((place.scope(), source.clone()));
    }
    let names: Vec<&str> = known.files.iter().map(|f| f.shown.as_str()).collect();
    let names = if names.is_empty() {
        "none here".to_owned()
    } else {
        names.join(", ")
    };
    bail!(
        "{} is not one of Claude Code's memory or instruction files for this project, so it gives \
         no memories to audit. Those files are CLAUDE.md, CLAUDE.local.md, .claude/CLAUDE.md, \
         what they import, .claude/rules/*.md, AGENTS.md and the auto-memory folder's files; \
         here: {names}",
        file.display()
    )
}

/// Print the findings among `visible` memories seen from `at` (or, for a source file, the
/// memories it gives).
fn report(
    store: &Store,
    scope: &Scope,
    at: &Path,
    source: Option<&SourceFile>,
    visible: i64,
    findings: Vec<Finding>,
    json: bool,
) -> Result<()> {
    let chains = drift::chains(&findings);
    let of = |kind: Kind| -> Vec<&Finding> { findings.iter().filter(|f| f.kind == kind).collect() };
    if json {
        let mut out = json!({
            "project": scope.key(),
            "memories": visible,
            "count": findings.len(),
            "stale": of(Kind::Stale),
            "conflict": of(Kind::Conflict),
            "duplicate": of(Kind::Duplicate),
            "chains": chains,
        });
        if let Some(file) = source {
            out["file"] = json!(file.shown);
        }
        return super::print_json(&out);
    }
    match source {
        Some(file) => outln!(
            "{} finding(s) on the {visible} memories of {} (nothing was changed)",
            findings.len(),
            file.shown
        ),
        None => outln!(
            "{} finding(s) among {visible} memories visible from {} (nothing was changed)",
            findings.len(),
            at.display()
        ),
    }
    let text = |id: i64| -> String {
        store
            .get(id, scope)
            .ok()
            .flatten()
            .map(|m| crate::text::gist(&m.body, 100))
            .unwrap_or_default()
    };
    for (kind, title) in [
        (Kind::Stale, "stale: names a path that is gone"),
        (
            Kind::Conflict,
            "conflict: the newer one stands; `synapse supersede OLD NEW` settles it",
        ),
        (
            Kind::Duplicate,
            "duplicate: the same text; `synapse forget OLD` keeps one",
        ),
    ] {
        let mut group = of(kind);
        if kind == Kind::Conflict {
            // A chain is shown once, newest first, and its pairs are not listed again.
            for chain in &chains {
                outln!(
                    "\nchain: {} updates of one thing; the newest stands ({})",
                    chain.len(),
                    chain
                        .iter()
                        .map(i64::to_string)
                        .collect::<Vec<_>>()
                        .join(" <- ")
                );
                outln!("  newest {}: {}", chain[0], text(chain[0]));
                for id in &chain[1..] {
                    outln!("  older  {id}: {}", text(*id));
                }
            }
            group.retain(|f| !chains.iter().any(|c| c.contains(&f.id)));
        }
        if group.is_empty() {
            continue;
        }
        outln!("\n{title} ({})", group.len());
        for f in group {
            match (f.newer, f.newer_named()) {
                (Some(newer), Some(named)) => outln!(
                    "  {} (older) vs {named} (newer): {} ({})\n      old: {}\n      new: {}",
                    f.named(),
                    f.why,
                    f.certainty.word(),
                    text(f.id),
                    text(newer)
                ),
                _ => outln!(
                    "  {}: {} ({})\n      {}",
                    f.named(),
                    f.why,
                    f.certainty.word(),
                    text(f.id)
                ),
            }
        }
    }
    Ok(())
}
