//! `synapse drift`: audit every memory a folder sees for stale, conflicting and duplicate ones.

use std::path::PathBuf;

use anyhow::{bail, Result};
use serde_json::json;

use crate::drift::{self, Finding, Kind};
use crate::store::{Scope, Store};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The folder whose memories to audit (its project's and the global ones); default: here.
    dir: Option<PathBuf>,
}

pub fn run(args: Args, json: bool) -> Result<()> {
    let dir = match args.dir {
        Some(dir) => dir,
        None => super::here()?,
    };
    if !dir.is_dir() {
        bail!(
            "{} is not a folder; pass the folder whose memories to audit",
            dir.display()
        );
    }
    let scope = Scope::of_folder(&dir)?;
    let store = Store::open_default()?;
    let visible = store.count_live(&scope)?;
    let findings = drift::audit(&store, &scope)?;
    let chains = drift::chains(&findings);
    let of = |kind: Kind| -> Vec<&Finding> { findings.iter().filter(|f| f.kind == kind).collect() };
    if json {
        return super::print_json(&json!({
            "project": scope.key(),
            "memories": visible,
            "count": findings.len(),
            "stale": of(Kind::Stale),
            "conflict": of(Kind::Conflict),
            "duplicate": of(Kind::Duplicate),
            "chains": chains,
        }));
    }
    outln!(
        "{} finding(s) among {visible} memories visible from {} (nothing was changed)",
        findings.len(),
        dir.display()
    );
    let text = |id: i64| -> String {
        store
            .get(id, &scope)
            .ok()
            .flatten()
            .map(|m| abridge(&m.body))
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
            match f.newer {
                None => outln!("  {}: {}\n      {}", f.id, f.why, text(f.id)),
                Some(newer) => outln!(
                    "  {} (older) vs {newer} (newer): {}\n      old: {}\n      new: {}",
                    f.id,
                    f.why,
                    text(f.id),
                    text(newer)
                ),
            }
        }
    }
    Ok(())
}

/// The first line of a memory, cut to 100 characters.
fn abridge(body: &str) -> String {
    let line = body.lines().next().unwrap_or("");
    let cut = crate::text::cut_chars(line, 100);
    if cut.len() < line.len() {
        format!("{cut}…")
    } else {
        cut.to_owned()
    }
}
