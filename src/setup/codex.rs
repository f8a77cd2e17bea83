//! Codex CLI: Synapse's hooks and MCP server in the user's `config.toml` (`$CODEX_HOME`, else
//! `~/.codex`), edited in place with `toml_edit`, so the user's formatting and comments stay.
//!
//! Each hook is one matcher group `[[hooks.EVENT]]` whose command string carries the arguments
//! (Codex drops an `args` field): `"<folder>/bin/synapse-hook" EVENT --client codex`. The MCP
//! server is `[mcp_servers.synapse]`.
//!
//! Codex runs a user's hook only once it is trusted: `[hooks.state."<config.toml>:<event>:<group>:
//! <handler>"]` holds `trusted_hash`, which must equal the hash Codex computes for the hook:
//! `sha256:` and the hex SHA-256 of the hook's identity as compact JSON with sorted keys,
//! `{"event_name": "session_start", "hooks": [{"async": false, "command": ..., "timeout": 10,
//! "type": "command"}]}` (with `matcher` and `statusMessage` when set; read in Codex's
//! `hooks/src/engine/discovery.rs` and `config/src/fingerprint.rs`, and checked against 0.171.0:
//! its `hooks/list` reports these hooks trusted, and a trusted hook runs where an untrusted one
//! is skipped; `tests/e2e_setup.rs`). The key's numbers are positions, so a group moved in the
//! file needs trusting again, as in Codex's own `/hooks` screen.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use sha2::Digest as _;
use toml_edit::{value, Array, ArrayOfTables, DocumentMut, InlineTable, Item, Table, Value};

use super::journal::Journal;
use super::Outcome;

/// Codex's events and the hook each runs: (event, the key's label, Synapse's hook).
const EVENTS: [(&str, &str, &str); 5] = [
    ("SessionStart", "session_start", "session-start"),
    ("UserPromptSubmit", "user_prompt_submit", "prompt-submit"),
    ("Stop", "stop", "stop"),
    ("PreCompact", "pre_compact", "compact"),
    ("PostCompact", "post_compact", "compact"),
];
/// Seconds a hook may take (Codex's unit; its default is 600).
const TIMEOUT: i64 = 10;
/// The MCP server's name, in `[mcp_servers.NAME]` and in the model's tool names.
const SERVER: &str = "synapse";
/// The variables Synapse reads that Codex should hand the MCP server (it starts servers with a
/// short list of its own otherwise).
const SERVER_ENV: [&str; 3] = ["SYNAPSE_DATA", "SYNAPSE_BUDGET", "SYNAPSE_BIN_DIR"];
/// The comment above each table setup adds, so a reader knows where it came from.
const MARK: &str = "# Synapse: `synapse setup --undo codex` takes this out";

/// Codex's folder: `$CODEX_HOME` as Codex resolves it (it must exist), else `~/.codex`.
pub fn codex_home() -> Result<PathBuf> {
    match std::env::var_os("CODEX_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(&dir)
            .canonicalize()
            .with_context(|| format!("CODEX_HOME is {}, which does not exist", dir.display())),
        None => Ok(super::home()?.join(".codex")),
    }
}

/// The command string of Synapse's hook `hook` run from the launchers in `folder`.
pub fn command(folder: &Path, hook: &str) -> String {
    format!(
        "{} {hook} --client codex",
        quoted(&folder.join("bin/synapse-hook"))
    )
}

/// `path` as one word of a POSIX shell line: in double quotes when nothing in it is special
/// there, else in single quotes.
fn quoted(path: &Path) -> String {
    let text = path.to_string_lossy();
    if !text.contains(['"', '$', '`', '\\', '!']) {
        format!("\"{text}\"")
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// The hash Codex records for a trusted hook: a command handler with Synapse's timeout, in
/// a group without a matcher.
pub fn trusted_hash(label: &str, command: &str) -> String {
    let identity = serde_json::json!({
        "event_name": label,
        "hooks": [{"async": false, "command": command, "timeout": TIMEOUT, "type": "command"}],
    });
    // serde_json's maps are sorted by key (no `preserve_order`), as Codex's canonical form is.
    let digest = sha2::Sha256::digest(identity.to_string().as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// The state key Codex gives the first handler of group `group` of `label` in `config`.
fn state_key(config: &Path, label: &str, group: usize) -> String {
    format!("{}:{label}:{group}:0", config.display())
}

pub fn setup(folder: &Path, options: super::Options, data: &Path) -> Result<Outcome> {
    let home = codex_home()?;
    let config = home.join("config.toml");
    let mut journal = Journal::begin(data, "codex", std::slice::from_ref(&config))?;
    let here = folder.to_string_lossy().into_owned();
    if let Some(earlier) = journal.did.get("folder").filter(|f| **f != here) {
        anyhow::bail!(
            "Codex is wired to the Synapse launchers in {earlier} already; `synapse setup --undo \
             codex` first, then set it up from {here}"
        );
    }
    journal.did.insert("folder".into(), here);
    let text = read(&config)?;
    let mut doc: DocumentMut = text
        .parse()
        .with_context(|| format!("{} is not valid TOML; fix it first", config.display()))?;
    let mut outcome = Outcome::default();
    wire_server(&mut doc, folder, &mut outcome)?;
    let groups = wire_hooks(&mut doc, folder, &mut outcome)?;
    let untrusted = trust(&mut doc, &config, &groups, options.trust, &mut outcome)?;
    if untrusted > 0 {
        outcome.todo.push(format!(
            "Codex skips Synapse's {untrusted} hooks until you trust them: run `synapse setup \
             codex --trust`, or trust them in Codex's /hooks screen"
        ));
    }
    let edited = doc.to_string();
    if edited != text {
        std::fs::create_dir_all(&home)
            .with_context(|| format!("could not create {}", home.display()))?;
        write(&config, &edited)?;
    }
    outcome.files = journal.finish(data)?;
    Ok(outcome)
}

/// Take Synapse's entries out of `config.toml` (the journal then puts the file back whole when
/// nobody changed it since).
pub fn undo(journal: &Journal) -> Result<Outcome> {
    let mut outcome = Outcome::default();
    let Some(folder) = journal.did.get("folder").map(PathBuf::from) else {
        return Ok(outcome);
    };
    let config = codex_home()?.join("config.toml");
    let text = read(&config)?;
    let Ok(mut doc) = text.parse::<DocumentMut>() else {
        outcome.kept.push(format!(
            "{} is not valid TOML now: Synapse's entries were left in it",
            config.display()
        ));
        return Ok(outcome);
    };
    let ours_server = server_command(&folder);
    let servers = doc.get_mut("mcp_servers").and_then(Item::as_table_like_mut);
    if let Some(servers) = servers {
        let is_ours = servers
            .get(SERVER)
            .and_then(|s| s.get("command"))
            .and_then(Item::as_str)
            == Some(ours_server.as_str());
        if is_ours {
            servers.remove(SERVER);
            outcome
                .changed
                .push(format!("removed the MCP server [mcp_servers.{SERVER}]"));
        }
    }
    let mut removed = 0;
    if let Some(hooks) = doc.get_mut("hooks").and_then(Item::as_table_like_mut) {
        for (event, label, hook) in EVENTS {
            let ours = command(&folder, hook);
            let Some(groups) = hooks.get_mut(event) else {
                continue;
            };
            if let Some(at) = position(groups, &ours) {
                remove_group(groups, at);
                removed += 1;
                if let Some(state) = hooks.get_mut("state").and_then(Item::as_table_like_mut) {
                    state.remove(&state_key(&config, label, at));
                }
            }
        }
        for (event, _, _) in EVENTS {
            if hooks.get(event).is_some_and(is_empty_list) {
                hooks.remove(event);
            }
        }
        if hooks
            .get("state")
            .and_then(Item::as_table_like)
            .is_some_and(|t| t.is_empty())
        {
            hooks.remove("state");
        }
    }
    if removed > 0 {
        outcome
            .changed
            .push(format!("removed Synapse's {removed} hooks and their trust"));
    }
    for key in ["hooks", "mcp_servers"] {
        if doc
            .get(key)
            .and_then(Item::as_table_like)
            .is_some_and(|t| t.is_empty())
        {
            doc.remove(key);
        }
    }
    let edited = doc.to_string();
    if edited != text {
        write(&config, &edited)?;
    }
    Ok(outcome)
}

fn server_command(folder: &Path) -> String {
    folder
        .join("bin/synapse-mcp")
        .to_string_lossy()
        .into_owned()
}

/// `[mcp_servers.synapse]`, unless the user has a server of that name.
fn wire_server(doc: &mut DocumentMut, folder: &Path, outcome: &mut Outcome) -> Result<()> {
    let ours = server_command(folder);
    let servers = doc
        .entry("mcp_servers")
        .or_insert_with(implicit_table)
        .as_table_like_mut()
        .context("mcp_servers in config.toml is not a table")?;
    match servers.get(SERVER) {
        Some(server) if server.get("command").and_then(Item::as_str) == Some(ours.as_str()) => {
            outcome
                .kept
                .push(format!("MCP server [mcp_servers.{SERVER}]: already there"));
        }
        Some(_) => outcome.kept.push(format!(
            "MCP server [mcp_servers.{SERVER}]: one of yours has that name, kept as it is"
        )),
        None => {
            let mut table = Table::new();
            table.decor_mut().set_prefix(format!("\n{MARK}\n"));
            table.insert("command", value(ours.as_str()));
            table.insert("env_vars", value(Array::from_iter(SERVER_ENV)));
            servers.insert(SERVER, Item::Table(table));
            outcome.changed.push(format!(
                "added the MCP server [mcp_servers.{SERVER}]: {ours}"
            ));
        }
    }
    Ok(())
}

/// Synapse's group in each event, added where missing. Returns, per event, the label and the
/// position of Synapse's group (`None` where a hook of the user's running Synapse is kept).
fn wire_hooks(
    doc: &mut DocumentMut,
    folder: &Path,
    outcome: &mut Outcome,
) -> Result<Vec<(&'static str, String, Option<usize>)>> {
    let hooks = doc
        .entry("hooks")
        .or_insert_with(implicit_table)
        .as_table_like_mut()
        .context("hooks in config.toml is not a table")?;
    let mut out = Vec::new();
    let mut added = Vec::new();
    let mut there = Vec::new();
    for (event, label, hook) in EVENTS {
        let ours = command(folder, hook);
        let groups = hooks
            .entry(event)
            .or_insert(Item::ArrayOfTables(ArrayOfTables::new()));
        if let Some(at) = position(groups, &ours) {
            there.push(event);
            out.push((label, ours, Some(at)));
        } else if let Some(theirs) = first_synapse_hook(groups) {
            outcome.kept.push(format!(
                "hook {event}: one of yours runs Synapse already ({theirs}), kept; none added"
            ));
            out.push((label, ours, None));
        } else {
            let at = push_group(groups, &ours)
                .with_context(|| format!("hooks.{event} in config.toml is not a list"))?;
            added.push(event);
            out.push((label, ours, Some(at)));
        }
    }
    if !there.is_empty() {
        outcome.kept.push(format!(
            "Synapse's hooks ({}): already there",
            there.join(", ")
        ));
    }
    if !added.is_empty() {
        outcome.changed.push(format!(
            "added Synapse's hooks ({}), each `{}`",
            added.join(", "),
            command(folder, "EVENT")
        ));
    }
    Ok(out)
}

/// Record `trusted_hash` for each of Synapse's groups when `trust`; returns how many stay
/// untrusted.
fn trust(
    doc: &mut DocumentMut,
    config: &Path,
    groups: &[(&str, String, Option<usize>)],
    trust: bool,
    outcome: &mut Outcome,
) -> Result<usize> {
    let mut untrusted = 0;
    let mut trusted_now = 0;
    for (label, ours, at) in groups {
        let Some(at) = at else { continue };
        let key = state_key(config, label, *at);
        let hash = trusted_hash(label, ours);
        let hooks = doc["hooks"]
            .as_table_like_mut()
            .context("hooks in config.toml is not a table")?;
        let recorded = hooks
            .get("state")
            .and_then(|s| s.get(&key))
            .and_then(|s| s.get("trusted_hash"))
            .and_then(Item::as_str);
        if recorded == Some(hash.as_str()) {
            continue;
        }
        if !trust {
            untrusted += 1;
            continue;
        }
        let state = hooks
            .entry("state")
            .or_insert_with(implicit_table)
            .as_table_like_mut()
            .context("hooks.state in config.toml is not a table")?;
        match state.get_mut(&key).and_then(Item::as_table_like_mut) {
            // The user's own switch (`enabled`) on this key stays.
            Some(entry) => {
                entry.insert("trusted_hash", value(hash));
            }
            None => {
                let mut entry = Table::new();
                entry.insert("trusted_hash", value(hash));
                state.insert(&key, Item::Table(entry));
            }
        }
        trusted_now += 1;
    }
    if trusted_now > 0 {
        outcome.changed.push(format!(
            "trusted Synapse's {trusted_now} hooks, as Codex's /hooks screen records it \
             ([hooks.state])"
        ));
    } else if trust && untrusted == 0 {
        outcome.kept.push("hooks: trusted already".into());
    }
    Ok(untrusted)
}

/// A handler in an event's groups that runs a Synapse hook of its own (hand-wired, or from
/// another folder).
fn first_synapse_hook(groups: &Item) -> Option<String> {
    commands(groups)
        .into_iter()
        .find(|c| c.contains("synapse-hook"))
}

/// A table that prints no header of its own (`[hooks]` above `[[hooks.Stop]]`).
fn implicit_table() -> Item {
    let mut table = Table::new();
    table.set_implicit(true);
    Item::Table(table)
}

/// The command strings of every handler in an event's groups.
fn commands(groups: &Item) -> Vec<String> {
    let tables: Vec<&dyn toml_edit::TableLike> = match groups {
        Item::ArrayOfTables(a) => a.iter().map(|t| t as &dyn toml_edit::TableLike).collect(),
        Item::Value(Value::Array(a)) => a
            .iter()
            .filter_map(|v| v.as_inline_table().map(|t| t as &dyn toml_edit::TableLike))
            .collect(),
        _ => Vec::new(),
    };
    tables.into_iter().flat_map(handlers).collect()
}

/// The command strings of one group's handlers.
fn handlers(group: &dyn toml_edit::TableLike) -> Vec<String> {
    let list: Vec<&Value> = match group.get("hooks") {
        Some(Item::Value(Value::Array(a))) => a.iter().collect(),
        Some(Item::ArrayOfTables(a)) => {
            return a
                .iter()
                .filter_map(|t| t.get("command").and_then(Item::as_str).map(str::to_owned))
                .collect()
        }
        _ => Vec::new(),
    };
    list.into_iter()
        .filter_map(|v| {
            v.as_inline_table()?
                .get("command")?
                .as_str()
                .map(str::to_owned)
        })
        .collect()
}

/// The position of the group whose only handler runs `ours`.
fn position(groups: &Item, ours: &str) -> Option<usize> {
    let matches = |group: &dyn toml_edit::TableLike| handlers(group) == [ours];
    match groups {
        Item::ArrayOfTables(a) => a.iter().position(|t| matches(t)),
        Item::Value(Value::Array(a)) => a
            .iter()
            .position(|v| v.as_inline_table().is_some_and(|t| matches(t))),
        _ => None,
    }
}

/// Append Synapse's group running `ours`; its position, or `None` when `groups` is no list.
fn push_group(groups: &mut Item, ours: &str) -> Option<usize> {
    let mut handler = InlineTable::new();
    handler.insert("type", "command".into());
    handler.insert("command", ours.into());
    handler.insert("timeout", TIMEOUT.into());
    let list = Array::from_iter([Value::InlineTable(handler)]);
    match groups {
        Item::ArrayOfTables(a) => {
            let mut group = Table::new();
            group.decor_mut().set_prefix(format!("\n{MARK}\n"));
            group.insert("hooks", value(list));
            a.push(group);
            Some(a.len() - 1)
        }
        Item::Value(Value::Array(a)) => {
            let mut group = InlineTable::new();
            group.insert("hooks", Value::Array(list));
            a.push(group);
            Some(a.len() - 1)
        }
        _ => None,
    }
}

fn remove_group(groups: &mut Item, at: usize) {
    match groups {
        Item::ArrayOfTables(a) => {
            a.remove(at);
        }
        Item::Value(Value::Array(a)) => {
            a.remove(at);
        }
        _ => {}
    }
}

fn is_empty_list(groups: &Item) -> bool {
    match groups {
        Item::ArrayOfTables(a) => a.is_empty(),
        Item::Value(Value::Array(a)) => a.is_empty(),
        _ => false,
    }
}

/// A config file's text, empty when there is none yet.
fn read(path: &Path) -> Result<String> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .with_context(|| format!("{} is not UTF-8 text", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(e).with_context(|| format!("could not read {}", path.display())),
    }
}

/// Write `text` over `path` in one step, keeping its mode (0600 for a new file).
fn write(path: &Path, text: &str) -> Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(path).ok().map(|m| m.permissions().mode());
    let mut file = crate::files::AtomicFile::create(path)?;
    file.write_all(text.as_bytes())
        .with_context(|| format!("could not write {}", path.display()))?;
    file.commit()?;
    if let Some(mode) = mode {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
            .with_context(|| format!("could not keep the mode of {}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trust_hash_is_codexs_for_a_known_hook() {
        // Codex 0.171.0's `hooks/list` reported this hash for `echo hi` at SessionStart with a
        // 10 s timeout (a fresh CODEX_HOME, `codex app-server`).
        assert_eq!(
            trusted_hash("session_start", "echo hi"),
            "sha256:763043cd829dd3033aa42d00b4dec6bec613155d2f3f69ac3fc1e56f572420bf"
        );
    }

    #[test]
    fn a_path_with_a_space_or_a_quote_stays_one_word() {
        assert_eq!(
            command(Path::new("/home/u/my tools/synapse"), "stop"),
            "\"/home/u/my tools/synapse/bin/synapse-hook\" stop --client codex"
        );
        assert_eq!(
            command(Path::new("/home/u/it's $here"), "stop"),
            r"'/home/u/it'\''s $here/bin/synapse-hook' stop --client codex"
        );
    }
}
