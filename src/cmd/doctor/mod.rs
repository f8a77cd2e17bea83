//! `synapse doctor`: where everything is, and whether it works; whether Claude Code runs the
//! plugin is `wiring`'s to check.

pub mod wiring;

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use serde_json::json;

use crate::config::{data_dir, Ignore, Settings};
use crate::signal::Signal;
use crate::store::{Scope, Store};

#[derive(Debug, clap::Args)]
pub struct Args {}

/// The hook binaries the plugin runs.
const HOOKS: &[&str] = &[
    "synapse-session-start",
    "synapse-prompt-submit",
    "synapse-stop",
    "synapse-compact",
    "synapse-instructions-loaded",
];

pub fn run(_args: Args, json: bool) -> Result<()> {
    let mut problems: Vec<String> = Vec::new();
    let dir = data_dir()?;
    let settings = Settings::load(&dir).unwrap_or_else(|e| {
        problems.push(format!("settings: {e:#}"));
        Settings::default()
    });
    let cwd = std::env::current_dir()?;
    let scope = Scope::of_folder(&cwd)?;
    // Doctor looks: a data folder without a store is reported, not filled.
    let store = Store::open_to_read(&dir);
    let stored = store.as_ref().is_ok_and(Store::on_disk);
    let (total, here) = match &store {
        Ok(store) => (
            store.count_live(&Scope::global())?,
            store.count_live(&scope)?,
        ),
        Err(e) => {
            problems.push(format!("store: {e:#}"));
            (0, 0)
        }
    };
    let hooks: Vec<(&str, Option<PathBuf>)> = HOOKS.iter().map(|h| (*h, find(h))).collect();
    for (name, path) in &hooks {
        if path.is_none() {
            problems.push(format!(
                "{name} not found next to synapse or on PATH: run `bin/synapse-compile` in the \
                 Synapse checkout"
            ));
        }
    }
    let signal = Signal::of_folder(&cwd, &settings.signal.ignore);
    let log = dir.join("synapse.log");
    let last_log = std::fs::read_to_string(&log)
        .ok()
        .and_then(|l| l.lines().last().map(str::to_owned));
    let claude = find("claude");
    let mut warnings: Vec<String> = crate::files::dir_warning(&dir).into_iter().collect();
    let spool = match &store {
        Ok(store) => crate::store::spool::waiting(store)?,
        Err(_) => None,
    };
    if let Some(spool) = &spool {
        warnings.push(spool_warning(spool));
    }
    // Claude Code's memory files of this folder, as the hooks read them (`sources`).
    let checkout = crate::team::checkout(&cwd);
    let place = crate::sources::Place::new(&scope, &cwd, checkout.as_deref());
    let (source_files, backlog, problem_files) = match &store {
        Ok(store) => (
            store.count_source_files(&scope)?,
            store.source_backlog(&scope)?,
            store.source_problems(&scope)?,
        ),
        Err(_) => Default::default(),
    };
    if backlog.waiting > 0 {
        warnings.push(format!(
            "{} of Claude Code's memory files found and not read yet (a hook reads {} at a \
             time, newest first); `synapse sync` reads them all",
            backlog.waiting,
            crate::sources::HOOK.files
        ));
    }
    for file in &problem_files {
        warnings.push(source_problem(file));
    }
    let claude_memory = json!({
        "read": settings.sources.read,
        "auto_memory": place.client.auto_memory,
        "memory_folder": place.client.memory,
        "memory_folder_exists": place.client.memory.is_dir(),
        "files_folded": source_files,
        "waiting": backlog.waiting,
        "problems": problem_files.iter().map(|f| json!({
            "file": f.shown,
            "path": f.path,
            "cut": (f.cut > 0).then_some(f.cut),
            "size": f.size,
            "why": f.problem,
        })).collect::<Vec<_>>(),
    });
    // Whether Claude Code runs the plugin: installed, enabled, binaries found, MCP answering.
    let top = place.top.clone().unwrap_or_else(|| cwd.clone());
    let wiring = wiring::check(&place.client.config, &top);
    for check in wiring.iter().filter(|c| !c.ok) {
        problems.push(format!(
            "{}: {}; fix: {}",
            check.what,
            check.detail,
            check.fix.as_deref().unwrap_or("-")
        ));
    }
    let team = match (checkout, &store) {
        (Some(top), Ok(store)) => Some(team(&top, store, &scope, &mut warnings)?),
        _ => None,
    };

    let environment = crate::config::environment::set();

    if json {
        super::print_json(&json!({
            "environment": environment
                .iter()
                .map(|(name, value)| ((*name).to_owned(), json!(value)))
                .collect::<serde_json::Map<_, _>>(),
            "team": team,
            "claude_memory": claude_memory,
            "data": dir,
            "database": dir.join("synapse.db"),
            "database_exists": stored,
            "settings_file": Settings::path(&dir),
            "budget": settings.budget,
            "hooks_on": {
                "session_start": settings.hooks.session_start,
                "prompt_submit": settings.hooks.prompt_submit,
                "stop": settings.hooks.stop,
                "compact": settings.hooks.compact,
            },
            "notice": settings.hooks.notice,
            "drift_ignore": ignore_json(&settings.drift.ignore),
            "signal_ignore": ignore_json(&settings.signal.ignore),
            "project": scope.key(),
            "memories_here": here,
            "global_memories": total,
            "branch": signal.branch,
            "changed_files": signal.files.len(),
            "hook_binaries": hooks.iter().map(|(n, p)| json!({"name": n, "path": p})).collect::<Vec<_>>(),
            "claude": claude,
            "plugin": wiring,
            "log": log,
            "last_log_line": last_log,
            "spool": spool,
            "warnings": warnings,
            "problems": problems,
        }))?;
    } else {
        outln!("data folder   {}", dir.display());
        for (name, value) in &environment {
            outln!("environment   {name}={value}");
        }
        outln!(
            "database      {}{}",
            dir.join("synapse.db").display(),
            if stored {
                ""
            } else {
                " (none yet: the first write creates it)"
            }
        );
        outln!(
            "settings      {} (budget {:?}; hooks: session start {}, prompt {}, stop {}, \
             compact {}; notice {:?})",
            Settings::path(&dir).display(),
            settings.budget,
            on(settings.hooks.session_start),
            on(settings.hooks.prompt_submit),
            on(settings.hooks.stop),
            on(settings.hooks.compact),
            settings.hooks.notice
        );
        let (drift, files) = (&settings.drift.ignore, &settings.signal.ignore);
        // One list when both are the same (the defaults are), not the same long line twice.
        if drift.patterns() == files.patterns() && drift.is_default() == files.is_default() {
            let both = ignore_text(drift, ", for drift and the task signal");
            outln!("ignore        {both}");
        } else {
            outln!("drift ignore  {}", ignore_text(drift, ""));
            outln!("signal ignore {}", ignore_text(files, ""));
        }
        outln!(
            "project       {} ({here} memories visible here, {total} global)",
            scope.key().unwrap_or("-")
        );
        outln!(
            "signal        branch {}, {} changed files",
            signal.branch.as_deref().unwrap_or("-"),
            signal.files.len()
        );
        for (name, path) in &hooks {
            outln!("{name:<22}{}", shown(path.as_deref()));
        }
        if let Some(team) = &team {
            outln!(
                "team          {} ({} events; {} memories shared here, {} local only; new \
                 lessons {})",
                team["file"].as_str().unwrap_or("-"),
                team["events"],
                team["shared"],
                team["local"],
                if team["share_new_lessons"] == json!(true) {
                    "shared"
                } else {
                    "stay local"
                }
            );
        }
        outln!(
            "claude files  {} ({}; auto memory {}, folder {}{})",
            if settings.sources.read {
                "read"
            } else {
                "not read ([sources] read = false)"
            },
            format_args!("{source_files} files folded"),
            on(place.client.auto_memory),
            place.client.memory.display(),
            if place.client.memory.is_dir() {
                ""
            } else {
                ", not there yet"
            }
        );
        outln!("claude        {}", shown(claude.as_deref()));
        for check in &wiring {
            let mark = if check.ok { "ok" } else { "FAILED" };
            outln!("{:<14}{mark}: {}", check.what, check.detail);
            if let Some(fix) = &check.fix {
                outln!("{:<14}fix: {fix}", "");
            }
        }
        outln!(
            "log           {} (last: {})",
            log.display(),
            last_log.as_deref().unwrap_or("empty")
        );
        for warning in &warnings {
            outln!("warning: {warning}");
        }
        if problems.is_empty() {
            outln!("everything works");
        }
    }
    if !problems.is_empty() {
        bail!("{}", problems.join("\n"));
    }
    Ok(())
}

/// A warning for a source file that gave no memories or fewer than it holds.
fn source_problem(file: &crate::store::sources::SourceFile) -> String {
    let mut parts = Vec::new();
    if file.cut > 0 {
        parts.push(format!(
            "folded its first {} of {}; `synapse sync` reads up to {}",
            crate::sources::bytes_said(file.cut),
            crate::sources::bytes_said(file.size),
            crate::sources::bytes_said(i64::try_from(crate::sources::SYNC.bytes).unwrap_or(0))
        ));
    }
    parts.extend(file.problem.clone());
    format!("Claude Code's {}: {}", file.shown, parts.join("; "))
}

/// What doctor says of a spool that holds writes: how many, whether the next write stores them,
/// and what happens to those that no longer apply or when it cannot be drained at all.
fn spool_warning(spool: &crate::store::spool::Waiting) -> String {
    let mut said = format!(
        "{} writes ({} bytes) wait in the spool (a hook could not get the store's lock in time)",
        spool.lines, spool.bytes
    );
    match &spool.blocked {
        Some(why) => said.push_str(&format!(
            "; it cannot be drained: {why}. Writes go on without it, each logging `spool not \
             drained`, and its writes wait until it can be read and emptied (fix its \
             permissions; moving it away drops them)"
        )),
        None => said.push_str("; the next write stores them"),
    }
    if spool.stale > 0 {
        said.push_str(&format!(
            "; {} of them no longer apply (memories deleted since, or no memory's text) and are \
             left out then, each with a line in synapse.log",
            spool.stale
        ));
    }
    if spool.unreadable > 0 {
        said.push_str(&format!(
            "; {} lines were cut short by a killed writer and are skipped",
            spool.unreadable
        ));
    }
    said
}

/// An `ignore` list for `--json`: its patterns, and whether they are the defaults.
fn ignore_json(ignore: &Ignore) -> serde_json::Value {
    json!({"patterns": ignore.patterns(), "default": ignore.is_default()})
}

/// An `ignore` list on one line: whose it is (and `what_for`), then its patterns.
fn ignore_text(ignore: &Ignore, what_for: &str) -> String {
    let whose = if ignore.is_default() {
        "the defaults"
    } else {
        "set in config.toml"
    };
    let patterns = ignore.patterns();
    if patterns.is_empty() {
        return format!("nothing ({whose}{what_for})");
    }
    format!("({whose}{what_for}) {}", patterns.join(" "))
}

fn on(flag: bool) -> &'static str {
    if flag {
        "on"
    } else {
        "off"
    }
}

fn shown(path: Option<&Path>) -> String {
    path.map_or("not found".to_owned(), |p| p.display().to_string())
}

/// A program next to this `synapse`, else on PATH.
fn find(name: &str) -> Option<PathBuf> {
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|d| d.join(name)))
        .filter(|p| p.is_file());
    beside.or_else(|| {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join(name))
                .find(|p| p.is_file())
        })
    })
}

/// The team's shared file in the checkout at `top`: its events, what this project shares and
/// keeps local, and a warning for each line a fold skips.
fn team(
    top: &Path,
    store: &Store,
    scope: &Scope,
    warnings: &mut Vec<String>,
) -> Result<serde_json::Value> {
    let path = crate::team::file_in(top);
    let bytes = std::fs::metadata(&path).map_or(0, |m| m.len());
    if bytes > crate::team::HOOK_FOLD_BYTES {
        warnings.push(format!(
            "{} is {} MiB, more than a hook folds ({} MiB): run `synapse sync` after pulling",
            crate::team::FILE,
            bytes >> 20,
            crate::team::HOOK_FOLD_BYTES >> 20
        ));
    }
    let (events, problems) = match crate::team::read(&path, crate::team::SYNC_BYTES) {
        Ok(Some(reading)) => (reading.events.len(), reading.problems),
        Ok(None) => (0, Vec::new()),
        Err(e) => {
            warnings.push(format!("team: {e:#}"));
            (0, Vec::new())
        }
    };
    for p in &problems {
        warnings.push(format!(
            "{} line {} is skipped: {}",
            crate::team::FILE,
            p.line,
            p.why
        ));
    }
    let project = scope.key().unwrap_or_default();
    let shared = store.shared(project)?.len();
    let local = store.local_only(project)?.len();
    let shares_new = crate::team::shares_new(top).unwrap_or_else(|e| {
        warnings.push(format!("team: {e:#}"));
        false
    });
    Ok(json!({
        "file": path,
        "events": events,
        "skipped_lines": problems,
        "shared": shared,
        "local": local,
        "share_new_lessons": shares_new,
    }))
}
