//! `synapse drift`: audit every memory a folder sees for stale, conflicting and duplicate ones,
//! or the memories of one of Claude Code's files (`synapse drift CLAUDE.md`); and settle what it
//! finds: one finding dismissed (`--dismiss`, undone by `--undismiss`), or every certain finding
//! of a kind at once after one confirmation (`--settle`).

use std::io::{IsTerminal, Write as _};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde_json::json;

use crate::drift::settle::{settle, Settle};
use crate::drift::{self, Certainty, Finding, Kind};
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
    /// Dismiss a finding as looked at and fine, so drift stops reporting it: the finding on
    /// memory ID, or OLDER:NEWER to name a pair (repeatable).
    #[arg(long, value_name = "FINDING", value_parser = finding_named, group = "action")]
    dismiss: Vec<(i64, Option<i64>)>,
    /// Take back the dismissal of a finding (ID or OLDER:NEWER, repeatable).
    #[arg(long, value_name = "FINDING", value_parser = finding_named, group = "action")]
    undismiss: Vec<(i64, Option<i64>)>,
    /// List the findings dismissed here.
    #[arg(long, group = "action")]
    dismissed: bool,
    /// Settle every certain finding of a kind, after one confirmation: `stale` forgets each
    /// memory naming a gone path, `duplicates` supersedes the older of each repeated pair by
    /// the newer. Only certain findings are settled so (a conflict is a rule's guess, never
    /// certain: settle those one by one with `synapse supersede OLD NEW`).
    #[arg(long, value_enum, value_name = "KIND", group = "action")]
    settle: Option<Bulk>,
    /// With --settle: do not ask for confirmation (needed without a terminal).
    #[arg(long, requires = "settle")]
    yes: bool,
}

/// The findings `--settle` acts on, all certain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Bulk {
    /// Forget each memory naming a path that is gone.
    Stale,
    /// Supersede the older memory of each pair with the same text by the newer.
    Duplicates,
}

/// `ID` or `OLDER:NEWER`.
fn finding_named(text: &str) -> Result<(i64, Option<i64>), String> {
    let id = |part: &str| {
        part.trim()
            .parse::<i64>()
            .map_err(|_| format!("{text:?} is not ID or OLDER:NEWER (ids are numbers)"))
    };
    match text.split_once(':') {
        Some((older, newer)) => Ok((id(older)?, Some(id(newer)?))),
        None => Ok((id(text)?, None)),
    }
}

/// What an audit saw: the store and scope it read, where, the source file audited (if one),
/// how many memories, and the findings.
struct Audited {
    store: Store,
    scope: Scope,
    at: PathBuf,
    source: Option<SourceFile>,
    visible: i64,
    findings: Vec<Finding>,
}

pub fn run(args: Args, json: bool) -> Result<()> {
    let path = match &args.path {
        Some(path) => path.clone(),
        None => super::here()?,
    };
    // Reading creates nothing: a write opens the store for writing only when it has something
    // to write (`writable`).
    let audited = audit(&path, false)?;
    if args.dismissed {
        return list_dismissed(&audited, json);
    }
    if !args.undismiss.is_empty() {
        let Audited {
            mut store, scope, ..
        } = audited;
        return undismiss(&mut store, &scope, &args.undismiss, json);
    }
    if !args.dismiss.is_empty() {
        return dismiss(&path, audited, &args.dismiss, json);
    }
    if let Some(bulk) = args.settle {
        return settle_all(&path, audited, bulk, args.yes, json);
    }
    report(&audited, json)
}

/// Audit what `path` (a folder or a source file) sees, in the store of the data folder:
/// `writable` opens it for writing (creating it if need be), else to read.
fn audit(path: &Path, writable: bool) -> Result<Audited> {
    let open = || -> Result<Store> {
        if writable {
            Store::open_default()
        } else {
            super::open_to_read()
        }
    };
    if path.is_file() {
        return audit_file(path, open()?);
    }
    if !path.is_dir() {
        bail!(
            "{} is neither a folder nor a file; pass the folder whose memories to audit, or one \
             of Claude Code's files",
            path.display()
        );
    }
    let scope = Scope::of_folder(path)?;
    let mut store = open()?;
    // An audit covers Claude Code's files as they are now, every one of them.
    super::fold_sources(&mut store, &scope, sources::SYNC);
    let visible = store.count_live(&scope)?;
    let findings = drift::audit(&store, &scope, &store.settings()?.drift.ignore)?;
    Ok(Audited {
        store,
        scope,
        at: path.to_owned(),
        source: None,
        visible,
        findings,
    })
}

/// `audited` itself when its store is on disk, else the same audit over a store opened for
/// writing: what the stand-in of a missing store holds (pieces of Claude Code's files) would
/// not outlive this process.
fn writable(path: &Path, audited: Audited) -> Result<Audited> {
    if audited.store.on_disk() {
        Ok(audited)
    } else {
        audit(path, true)
    }
}

/// Audit the memories of one source file against everything its project sees: the findings
/// whose memory, or newer memory, is one of its pieces.
fn audit_file(path: &Path, mut store: Store) -> Result<Audited> {
    let file = path
        .canonicalize()
        .with_context(|| format!("could not resolve {}", path.display()))?;
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
    if let (Some(why), true) = (&source.problem, pieces.is_empty()) {
        bail!(
            "{} is one of Claude Code's files, but gives no memories to audit: {why}",
            file.display()
        );
    }
    let findings: Vec<Finding> = drift::audit(&store, &scope, &store.settings()?.drift.ignore)?
        .into_iter()
        .filter(|f| pieces.contains(&f.id) || f.newer.is_some_and(|n| pieces.contains(&n)))
        .collect();
    let visible = i64::try_from(pieces.len()).unwrap_or(i64::MAX);
    Ok(Audited {
        store,
        scope,
        at: file,
        source: Some(source),
        visible,
        findings,
    })
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
    let settings = store.settings()?.sources.clone();
    let known = sources::refresh(store, &place, &near, sources::SYNC, &settings)
        .with_context(|| format!("could not read the sources of {}", place.cwd.display()))?;
    let rows = store.source_files_at(&file.to_string_lossy())?;
    let mine = rows
        .iter()
        .find(|f| f.project == place.project)
        .or(rows.first());
    if let Some(source) = mine {
        return Ok((place.scope(), source.clone()));
    }
    if let Err(e) = std::fs::File::open(file) {
        bail!(
            "{} is unreadable ({e}), so it gives no memories to audit",
            file.display()
        );
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

/// Print the findings among the memories seen from where the audit looked (or, for a source
/// file, the memories it gives).
fn report(audited: &Audited, json: bool) -> Result<()> {
    let Audited {
        store,
        scope,
        at,
        source,
        visible,
        findings,
    } = audited;
    let visible = *visible;
    let chains = drift::chains(findings);
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
    if !findings.is_empty() {
        outln!(
            "\nto settle: `synapse drift --dismiss ID` (OLDER:NEWER for a pair) judges one fine; \
             `--settle stale` or `--settle duplicates` settles every certain one after asking"
        );
    }
    let dismissed = store.dismissals(scope)?.len();
    if dismissed > 0 {
        outln!("{dismissed} finding(s) dismissed here are not shown (synapse drift --dismissed)");
    }
    Ok(())
}

/// `ID` or `OLDER:NEWER`, as a finding is named.
fn name(id: i64, newer: Option<i64>) -> String {
    match newer {
        Some(newer) => format!("{id}:{newer}"),
        None => id.to_string(),
    }
}

/// `--dismissed`: the findings dismissed in the audited scope, oldest first.
fn list_dismissed(audited: &Audited, json: bool) -> Result<()> {
    let dismissed = audited.store.dismissals(&audited.scope)?;
    if json {
        return super::print_json(&json!({ "dismissed": dismissed }));
    }
    if dismissed.is_empty() {
        outln!("no finding is dismissed here");
    }
    for d in &dismissed {
        outln!(
            "{} {} ({}), dismissed {} (undo: synapse drift --undismiss {})",
            d.kind,
            name(d.id, d.newer),
            d.why,
            d.at.date(),
            name(d.id, d.newer)
        );
    }
    Ok(())
}

/// `--undismiss`: take back each dismissal named; one that fails costs no other, and is named
/// in the error at the end.
fn undismiss(
    store: &mut Store,
    scope: &Scope,
    named: &[(i64, Option<i64>)],
    json: bool,
) -> Result<()> {
    let mut done = Vec::new();
    let mut refused = Vec::new();
    for &(id, newer) in named {
        match store.undismiss(id, newer, scope) {
            Ok(taken) => {
                for d in &taken {
                    if !json {
                        outln!(
                            "drift reports the {} finding on {} again (undo: synapse drift \
                             --dismiss {})",
                            d.kind,
                            name(d.id, d.newer),
                            name(d.id, d.newer)
                        );
                    }
                }
                done.extend(taken);
            }
            Err(e) => refused.push(format!("{}: {e:#}", name(id, newer))),
        }
    }
    if json {
        super::print_json(&json!({ "undismissed": done, "refused": refused }))?;
    }
    refuse_any(&refused, named.len())
}

/// `--dismiss`: dismiss each finding named, as `settle` does.
fn dismiss(path: &Path, audited: Audited, named: &[(i64, Option<i64>)], json: bool) -> Result<()> {
    // Each name must match a finding before anything is written (or a store created).
    for &(id, newer) in named {
        find(&audited.findings, id, newer)?;
    }
    let mut audited = writable(path, audited)?;
    let mut targets = Vec::new();
    for &(id, newer) in named {
        targets.push(find(&audited.findings, id, newer)?.clone());
    }
    let mut lines = Vec::new();
    let mut refused = Vec::new();
    for f in targets {
        match settle(&mut audited.store, &audited.scope, &f, Settle::Dismiss) {
            Ok(line) => {
                if !json {
                    outln!("{line}");
                }
                lines.push(json!({ "finding": f, "did": line }));
            }
            Err(e) => refused.push(format!("{}: {e:#}", name(f.id, f.newer))),
        }
    }
    if json {
        super::print_json(&json!({ "dismissed": lines, "refused": refused }))?;
    }
    refuse_any(&refused, named.len())
}

/// The one finding `id` (with `newer`, if given) names, or an error saying which there are.
fn find(findings: &[Finding], id: i64, newer: Option<i64>) -> Result<&Finding> {
    let on: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.id == id && newer.is_none_or(|n| f.newer == Some(n)))
        .collect();
    match on.as_slice() {
        [one] => Ok(one),
        [] => bail!(
            "drift finds nothing on {} here (see `synapse drift`; a pair is named OLDER:NEWER, \
             the older first)",
            name(id, newer)
        ),
        many => bail!(
            "memory {id} has {} findings here; name one: {}",
            many.len(),
            many.iter()
                .map(|f| format!("{} ({}: {})", name(f.id, f.newer), f.kind.as_str(), f.why))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// What `--settle` does with one finding.
fn planned(bulk: Bulk, f: &Finding) -> (Settle, String) {
    match (bulk, f.newer_named()) {
        (Bulk::Duplicates, Some(newer)) => (
            Settle::SupersedeOlder,
            format!("supersede {} by newer {newer} ({})", f.named(), f.why),
        ),
        _ => (
            Settle::Forget(f.id),
            format!("forget {} ({})", f.named(), f.why),
        ),
    }
}

/// The certain findings `bulk` settles, one a memory (a memory naming several gone paths is
/// forgotten once).
fn plan(findings: &[Finding], bulk: Bulk) -> Vec<Finding> {
    let kind = match bulk {
        Bulk::Stale => Kind::Stale,
        Bulk::Duplicates => Kind::Duplicate,
    };
    let mut seen = std::collections::HashSet::new();
    findings
        .iter()
        .filter(|f| f.kind == kind && f.certainty == Certainty::Certain)
        .filter(|f| seen.insert(f.id))
        .cloned()
        .collect()
}

/// `--settle`: say what will be done, ask once (unless `yes`), then settle each finding in its
/// own write; one that fails costs no other and is named in the error at the end.
fn settle_all(path: &Path, audited: Audited, bulk: Bulk, yes: bool, json: bool) -> Result<()> {
    let mut audited = audited;
    if !plan(&audited.findings, bulk).is_empty() {
        audited = writable(path, audited)?;
    }
    let todo = plan(&audited.findings, bulk);
    if todo.is_empty() {
        if json {
            return super::print_json(&json!({ "settled": [], "refused": [] }));
        }
        outln!(
            "nothing to settle: no certain {} finding here",
            match bulk {
                Bulk::Stale => "stale",
                Bulk::Duplicates => "duplicate",
            }
        );
        return Ok(());
    }
    if !yes {
        confirm(&todo, bulk, json)?;
    }
    let mut settled = Vec::new();
    let mut refused = Vec::new();
    for f in &todo {
        let (how, _) = planned(bulk, f);
        match settle(&mut audited.store, &audited.scope, f, how) {
            Ok(line) => {
                if !json {
                    outln!("{line}");
                }
                settled.push(json!({ "finding": f, "did": line }));
            }
            Err(e) => refused.push(format!("{}: {e:#}", name(f.id, f.newer))),
        }
    }
    if json {
        super::print_json(&json!({ "settled": settled, "refused": refused }))?;
    }
    refuse_any(&refused, todo.len())
}

/// Show what `--settle` will do and ask once on the terminal; without one, refuse. The list
/// and the question go to standard error with --json, whose output is the result alone.
fn confirm(todo: &[Finding], bulk: Bulk, json: bool) -> Result<()> {
    let mut said = format!("this will settle {} certain finding(s):\n", todo.len());
    for f in todo {
        said.push_str(&format!("  {}\n", planned(bulk, f).1));
    }
    said.push_str("each can be undone with the command its line gives\n");
    if !std::io::stdin().is_terminal() {
        eprint!("{}", crate::text::visible(&said));
        bail!(
            "standard input is not a terminal to confirm on, so nothing was changed; run it \
             again with --yes to settle these"
        );
    }
    said.push_str("settle them? [y/N] ");
    if json {
        eprint!("{}", crate::text::visible(&said));
    } else {
        out!("{said}");
        std::io::stdout()
            .flush()
            .context("could not write the question")?;
    }
    let mut answer = String::new();
    std::io::stdin()
        .read_line(&mut answer)
        .context("could not read the answer from the terminal")?;
    if !matches!(answer.trim(), "y" | "Y" | "yes" | "Yes") {
        bail!("nothing was changed (answer y to settle them)");
    }
    Ok(())
}

/// An error naming each refusal, if any, of `asked` tries.
fn refuse_any(refused: &[String], asked: usize) -> Result<()> {
    match refused {
        [] => Ok(()),
        [one] if asked == 1 => bail!("{one}"),
        _ => bail!(
            "{} of {asked} were left as they were:\n{}",
            refused.len(),
            refused.join("\n")
        ),
    }
}
