//! Whether Claude Code runs this plugin, as `synapse doctor` reports it: the plugin installed and
//! enabled in the client's own records, the hooks' binaries where the plugin's launcher looks for
//! them, and the MCP server answering `initialize`. Every failure names the command that fixes it.
//!
//! The client's records, as 2.1.197 and 2.1.332 write them (docs/claude-code.md): what is
//! installed in `plugins/installed_plugins.json` under its configuration folder (`{"plugins":
//! {"synapse@synapse": [{"installPath", "version", "scope", "projectPath"?}]}}`), and whether it
//! is on in the `enabledPlugins` of the settings files (local, project, then the user's; the first
//! that names it wins). The launchers install the binaries in one folder per user, whichever
//! client runs them (`launcher_data`). A plugin of a marketplace added from a folder runs in place,
//! from that folder (`in_place`), not from the copy its record names.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

use crate::sources::client::settings_in_order;

/// The binaries the plugin's launchers (`bin/synapse-hook`, `bin/synapse-mcp`) look for.
pub const BINARIES: [&str; 6] = [
    "synapse-session-start",
    "synapse-prompt-submit",
    "synapse-stop",
    "synapse-compact",
    "synapse-instructions-loaded",
    "synapse-mcp",
];
/// The settings entry that lets the read-only MCP tools run without asking when the plugin's
/// hooks are off (with hooks on, the plugin's PreToolUse hook allows them; `plugin.json`).
pub const READ_ONLY_ALLOW: &str = r#""permissions": {"allow": ["mcp__plugin_synapse_synapse__recall", "mcp__plugin_synapse_synapse__readmemory", "mcp__plugin_synapse_synapse__drift"]}"#;
/// How long the MCP server may take to answer `initialize`.
const MCP_WAIT: Duration = Duration::from_secs(10);
/// The plugin's name in its manifest; the client's id adds `@` and the marketplace.
const NAME: &str = "synapse";

/// One check and its outcome: `fix` is set when it failed.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Check {
    pub what: &'static str,
    pub ok: bool,
    /// What was found, or what went wrong.
    pub detail: String,
    /// The command (or step) that fixes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl Check {
    fn ok(what: &'static str, detail: String) -> Check {
        Check {
            what,
            ok: true,
            detail,
            fix: None,
        }
    }

    fn failed(what: &'static str, detail: String, fix: String) -> Check {
        Check {
            what,
            ok: false,
            detail,
            fix: Some(fix),
        }
    }
}

/// The plugin as the client installed it.
#[derive(Clone, Debug)]
struct Installed {
    /// `synapse@MARKETPLACE`.
    id: String,
    /// The folder the client runs it from (`CLAUDE_PLUGIN_ROOT`).
    root: PathBuf,
    version: String,
}

/// The checks, in order, for a session in the project whose top folder is `top`, with the
/// client's configuration folder `config`. A check that cannot run for an earlier failure is left
/// out: one failure, one fix.
pub fn check(config: &Path, top: &Path) -> Vec<Check> {
    let installed = match installed(config, top) {
        Ok(Some(installed)) => installed,
        Ok(None) => {
            return vec![Check::failed(
                "plugin",
                format!("not installed in Claude Code ({})", config.display()),
                format!(
                    "in the Synapse checkout: claude plugin marketplace add \"$PWD\" && claude \
                     plugin install {NAME}@{NAME}"
                ),
            )]
        }
        Err(why) => {
            return vec![Check::failed(
                "plugin",
                why,
                format!("claude plugin install {NAME}@{NAME}"),
            )]
        }
    };
    let mut checks = Vec::new();
    let enabled = enabled(config, top, &installed.id);
    checks.push(if enabled {
        Check::ok(
            "plugin",
            format!(
                "{} {}, enabled, run from {}",
                installed.id,
                installed.version,
                installed.root.display()
            ),
        )
    } else {
        Check::failed(
            "plugin",
            format!(
                "{} {} is installed but disabled",
                installed.id, installed.version
            ),
            format!("claude plugin enable {}", installed.id),
        )
    });
    if let Some(file) = hooks_off(config, top) {
        checks.push(Check::failed(
            "hooks",
            format!(
                "disableAllHooks is set in {}: no Synapse hook runs (nothing is injected or \
                 recorded), and recall, readmemory and drift ask before each call",
                file.display()
            ),
            format!(
                "remove disableAllHooks from {}; to keep hooks off and still let the read-only \
                 tools run, add to its settings: {READ_ONLY_ALLOW}",
                file.display()
            ),
        ));
    }
    if !installed.root.join("bin/synapse-hook").is_file() {
        checks.push(Check::failed(
            "launcher",
            format!("{} holds no bin/synapse-hook", installed.root.display()),
            format!(
                "claude plugin uninstall {0} && claude plugin install {0}",
                installed.id
            ),
        ));
        return checks;
    }
    let data = launcher_data();
    let mut server = None;
    for name in BINARIES {
        checks.push(match launcher_finds(&installed.root, name) {
            Ok(Some(path)) => {
                let found = Check::ok("binary", format!("{name}: {}", path.display()));
                if name == "synapse-mcp" {
                    server = Some(path);
                }
                found
            }
            Ok(None) => Check::failed(
                "binary",
                format!(
                    "{name}: not where the launcher looks ({}/bin, {}/target/release, PATH)",
                    data.display(),
                    installed.root.display()
                ),
                format!(
                    "start a session: the plugin downloads them in the background ({}/build.log \
                     says how it goes); or bin/synapse-compile in the Synapse checkout",
                    data.display()
                ),
            ),
            Err(why) => Check::failed(
                "binary",
                format!("{name}: {why}"),
                "check that /bin/sh runs".to_owned(),
            ),
        });
    }
    if let (true, Some(server)) = (checks.iter().all(|c| c.ok), &server) {
        checks.push(origin(server, &installed.root, &data, &installed.version));
    }
    if checks.iter().all(|c| c.ok) {
        checks.push(match mcp_answers(&installed.root) {
            Ok(server) => Check::ok("mcp", format!("answers initialize: {server}")),
            Err(why) => Check::failed(
                "mcp",
                why,
                format!(
                    "run {} by hand to see why",
                    installed.root.join("bin/synapse-mcp").display()
                ),
            ),
        });
    }
    checks
}

/// The client's record of this plugin, for a session in `top`: a user-wide install, or one for
/// this project.
fn installed(config: &Path, top: &Path) -> Result<Option<Installed>, String> {
    let path = config.join("plugins/installed_plugins.json");
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("could not read {}: {e}", path.display())),
    };
    let record: Value = serde_json::from_slice(&bytes)
        .map_err(|e| format!("{} is not JSON: {e}", path.display()))?;
    let Some(plugins) = record.get("plugins").and_then(Value::as_object) else {
        return Ok(None);
    };
    let ours = plugins
        .iter()
        .filter(|(id, _)| id.split('@').next() == Some(NAME));
    for (id, installs) in ours {
        let here = installs.as_array().into_iter().flatten().find(|install| {
            match install.get("projectPath").and_then(Value::as_str) {
                Some(project) => Path::new(project) == top,
                None => true,
            }
        });
        if let Some(install) = here {
            let text = |key: &str| install.get(key).and_then(Value::as_str).unwrap_or("");
            let root = in_place(config, id).unwrap_or_else(|| PathBuf::from(text("installPath")));
            return Ok(Some(Installed {
                id: id.clone(),
                root,
                version: text("version").to_owned(),
            }));
        }
    }
    Ok(None)
}

/// The folder the client runs the plugin `id` from when its marketplace was added from a folder
/// (`claude plugin marketplace add PATH`: `"source": "directory"` in
/// `plugins/known_marketplaces.json`): the plugin's folder in that marketplace, as its
/// `marketplace.json` names it. The client runs such a plugin in place, although its install
/// record names a copy in the plugin cache (measured with 2.1.197 and 2.1.332:
/// `CLAUDE_PLUGIN_ROOT` is the marketplace's folder; docs/claude-code.md). `None` for any other
/// marketplace, whose plugins run from the recorded `installPath`.
fn in_place(config: &Path, id: &str) -> Option<PathBuf> {
    let (name, market) = id.split_once('@')?;
    let known = std::fs::read(config.join("plugins/known_marketplaces.json")).ok()?;
    let known: Value = serde_json::from_slice(&known).ok()?;
    let entry = known.get(market)?;
    if entry.pointer("/source/source")?.as_str()? != "directory" {
        return None;
    }
    let folder = entry
        .get("installLocation")
        .or_else(|| entry.pointer("/source/path"))?
        .as_str()?;
    let folder = Path::new(folder);
    let listing = std::fs::read(folder.join(".claude-plugin/marketplace.json")).ok()?;
    let listing: Value = serde_json::from_slice(&listing).ok()?;
    let source = listing
        .get("plugins")?
        .as_array()?
        .iter()
        .find(|p| p.get("name").and_then(Value::as_str) == Some(name))?
        .get("source")?
        .as_str()?;
    let root: PathBuf = folder
        .join(source)
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    Some(root)
}

/// Whether the settings a session in `top` reads turn the plugin `id` on: the first of them that
/// names it decides (`settings_in_order`).
fn enabled(config: &Path, top: &Path, id: &str) -> bool {
    settings_in_order(config, top)
        .iter()
        .find_map(|(_, settings)| settings.get("enabledPlugins")?.get(id)?.as_bool())
        .unwrap_or(false)
}

/// The settings file a session in `top` reads that turns every hook off (`disableAllHooks`), if
/// the first of them that sets it does.
fn hooks_off(config: &Path, top: &Path) -> Option<PathBuf> {
    settings_in_order(config, top)
        .into_iter()
        .find_map(|(path, settings)| Some((path, settings.get("disableAllHooks")?.as_bool()?)))
        .and_then(|(path, off)| off.then_some(path))
}

/// Where the plugin's launchers install the binaries (`synapse_data` in `bin/synapse-find`).
fn launcher_data() -> PathBuf {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default()
        .join(".local/share/synapse-plugin")
}

/// Where the plugin's launcher at `root` finds the binary `name`: its own lookup
/// (`bin/synapse-find`), run by `/bin/sh` with the paths as arguments, never in the script text.
fn launcher_finds(root: &Path, name: &str) -> Result<Option<PathBuf>, String> {
    let script = r#"root=$1; here=$1/bin; . "$here/synapse-find" && synapse_find "$2" && printf %s "$found""#;
    let out = Command::new("/bin/sh")
        .args(["-c", script, "synapse-doctor"])
        .arg(root)
        .arg(name)
        .env("CLAUDE_PLUGIN_ROOT", root)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("could not run /bin/sh: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "the launcher's lookup failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let found = String::from_utf8_lossy(&out.stdout).into_owned();
    Ok((!found.is_empty()).then(|| PathBuf::from(found)))
}

/// Where the binaries the launcher runs came from (the `ORIGIN` file `bin/synapse-fetch` or
/// `bin/synapse-build` writes beside them in the data folder, or "found at PATH"), and whether
/// their version (`cli --version`: the `synapse-mcp` the launcher found, one binary of the same
/// build as the hooks) is the
/// plugin's (its manifest's, else the client's record `recorded`): a mismatch is a failure, never
/// used silently.
fn origin(cli: &Path, root: &Path, data: &Path, recorded: &str) -> Check {
    let theirs = Command::new(cli)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .ok()
        .and_then(|out| {
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            Some(text.split_whitespace().nth(1)?.to_owned())
        })
        .unwrap_or_default();
    let ours = plugin_version(root).unwrap_or_else(|| recorded.to_owned());
    let from = match cli.parent().map(|dir| dir.join("ORIGIN")) {
        Some(file) if cli.starts_with(data) => describe_origin(&file),
        _ => format!("found at {}", cli.display()),
    };
    let fix = if cli.starts_with(data) {
        // The launcher itself passes over an install of another version (its VERSION file).
        "start a session: the launcher installs the binaries of the plugin's version".to_owned()
    } else {
        format!(
            "these binaries are not the plugin's: rebuild them with bin/synapse-compile in a \
             checkout of version {ours}, or remove {} so the launcher installs its own",
            cli.display()
        )
    };
    if theirs.is_empty() || theirs != ours {
        return Check::failed(
            "binaries",
            format!(
                "version {} ({from}), but the plugin is version {}",
                if theirs.is_empty() {
                    "unknown"
                } else {
                    &theirs
                },
                if ours.is_empty() { "unknown" } else { &ours },
            ),
            fix,
        );
    }
    Check::ok("binaries", format!("version {theirs}, {from}"))
}

/// The plugin's version, from `.claude-plugin/plugin.json` under `root`.
fn plugin_version(root: &Path) -> Option<String> {
    let bytes = std::fs::read(root.join(".claude-plugin/plugin.json")).ok()?;
    let manifest: Value = serde_json::from_slice(&bytes).ok()?;
    Some(manifest.get("version")?.as_str()?.to_owned())
}

/// The `ORIGIN` file's `key=value` lines as one phrase.
fn describe_origin(file: &Path) -> String {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let get = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
            .unwrap_or("?")
            .to_owned()
    };
    match get("source").as_str() {
        "download" => format!("downloaded from {} (sha256 {})", get("url"), get("sha256")),
        "build" => format!("built from source ({})", get("cargo")),
        _ => format!(
            "in {}, origin not recorded",
            file.parent().unwrap_or(file).display()
        ),
    }
}

/// Start the MCP server as the client does (the plugin's `bin/synapse-mcp`), ask `initialize`,
/// and return the server's name and version.
fn mcp_answers(root: &Path) -> Result<String, String> {
    let launcher = root.join("bin/synapse-mcp");
    let mut child = Command::new(&launcher)
        .env("CLAUDE_PLUGIN_ROOT", root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not start {}: {e}", launcher.display()))?;
    let request = serde_json::json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "synapse-doctor", "version": env!("CARGO_PKG_VERSION")},
        },
    });
    let stdout = child.stdout.take();
    let (send, answer) = mpsc::channel();
    // A server that never answers must not hold the doctor: the line is read on a thread and
    // waited for a bounded time.
    std::thread::spawn(move || {
        let mut line = String::new();
        let read = stdout.map(|out| BufReader::new(out).read_line(&mut line));
        // The doctor may have stopped waiting; then nobody needs the line.
        send.send(read.map(|r| r.map(|_| line))).ok();
    });
    let written = child
        .stdin
        .take()
        .map(|mut stdin| writeln!(stdin, "{request}"));
    let got = match written {
        Some(Ok(())) => answer.recv_timeout(MCP_WAIT).ok(),
        _ => None,
    };
    let stopped = child.kill().and_then(|()| child.wait());
    let stderr = child
        .stderr
        .take()
        .map(|mut err| {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut err, &mut text).map(|_| text)
        })
        .and_then(Result::ok)
        .unwrap_or_default();
    let line = match got {
        Some(Some(Ok(line))) if !line.trim().is_empty() => line,
        Some(Some(Err(e))) => return Err(format!("could not read the server's answer: {e}")),
        None if stopped.is_err() => return Err("the server did not stop".to_owned()),
        None => {
            return Err(format!(
                "no answer to initialize within {} s",
                MCP_WAIT.as_secs()
            ))
        }
        _ => {
            return Err(format!(
                "the server exited without answering: {}",
                stderr.trim()
            ))
        }
    };
    let reply: Value = serde_json::from_str(&line)
        .map_err(|e| format!("the answer to initialize is not JSON ({e}): {line}"))?;
    let info = reply
        .pointer("/result/serverInfo")
        .ok_or_else(|| format!("the answer to initialize has no serverInfo: {line}"))?;
    let field = |key: &str| info.get(key).and_then(Value::as_str).unwrap_or("?");
    Ok(format!("{} {}", field("name"), field("version")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `claude plugin marketplace add PATH` then `claude plugin install synapse@synapse`, as the
    /// client records them: the install names a copy in the cache, the marketplace its folder.
    fn installed_from_a_folder(config: &Path, market: &Path, source: &str) {
        std::fs::create_dir_all(config.join("plugins")).unwrap();
        std::fs::create_dir_all(market.join(".claude-plugin")).unwrap();
        let cache = config.join("plugins/cache/synapse/synapse/0.1.0");
        let record = serde_json::json!({"version": 2, "plugins": {"synapse@synapse": [
            {"scope": "user", "installPath": cache, "version": "0.1.0"}]}});
        std::fs::write(
            config.join("plugins/installed_plugins.json"),
            record.to_string(),
        )
        .unwrap();
        let known = serde_json::json!({"synapse": {
            "source": {"source": "directory", "path": market},
            "installLocation": market}});
        std::fs::write(
            config.join("plugins/known_marketplaces.json"),
            known.to_string(),
        )
        .unwrap();
        let listing = serde_json::json!({"name": "synapse", "plugins": [
            {"name": "synapse", "source": source}]});
        std::fs::write(
            market.join(".claude-plugin/marketplace.json"),
            listing.to_string(),
        )
        .unwrap();
    }

    #[test]
    fn a_plugin_of_a_folder_marketplace_runs_in_place_not_from_the_cache() {
        let dir = tempfile::tempdir().unwrap();
        let (config, market) = (dir.path().join(".claude"), dir.path().join("checkout"));
        installed_from_a_folder(&config, &market, "./");
        let found = installed(&config, dir.path()).unwrap().unwrap();
        assert_eq!(found.root, market);
        installed_from_a_folder(&config, &market, "./plugins/synapse");
        let found = installed(&config, dir.path()).unwrap().unwrap();
        assert_eq!(found.root, market.join("plugins/synapse"));
    }

    #[test]
    fn a_plugin_of_another_marketplace_runs_from_its_install_path() {
        let dir = tempfile::tempdir().unwrap();
        let (config, market) = (dir.path().join(".claude"), dir.path().join("checkout"));
        installed_from_a_folder(&config, &market, "./");
        let github = serde_json::json!({"synapse": {
            "source": {"source": "github", "repo": "example/synapse"},
            "installLocation": config.join("plugins/marketplaces/synapse")}});
        std::fs::write(
            config.join("plugins/known_marketplaces.json"),
            github.to_string(),
        )
        .unwrap();
        let found = installed(&config, dir.path()).unwrap().unwrap();
        assert_eq!(
            found.root,
            config.join("plugins/cache/synapse/synapse/0.1.0")
        );
    }
}
