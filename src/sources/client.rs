//! Where Claude Code keeps a project's memory and instruction files, and whether its auto memory
//! is on, read the way the client reads them (measured with 2.1.332: docs/claude-code.md).

use std::path::{Path, PathBuf};

/// The settings files a session in `top` reads, parsed, in the order the client lets them win:
/// the first that sets a key decides (local, project, then the user's in `config`). A file that
/// is missing or not JSON is left out, as the client leaves it out.
pub fn settings_in_order(config: &Path, top: &Path) -> Vec<(PathBuf, serde_json::Value)> {
    [
        top.join(".claude/settings.local.json"),
        top.join(".claude/settings.json"),
        config.join("settings.json"),
    ]
    .into_iter()
    .filter_map(|path| {
        let bytes = std::fs::read(&path).ok()?;
        let value = serde_json::from_slice(&bytes).ok()?;
        Some((path, value))
    })
    .collect()
}

/// The longest folder key the client uses whole; a longer one is cut and given a hash.
const MAX_KEY: usize = 200;

/// What the client's settings and environment say about its memory, for one project.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Client {
    /// `CLAUDE_CONFIG_DIR`, else `~/.claude`: the user's `CLAUDE.md` and rules, and the
    /// default memory folders.
    pub config: PathBuf,
    /// The user's home, for naming files `~/...`.
    pub home: Option<PathBuf>,
    /// The project's auto-memory folder.
    pub memory: PathBuf,
    /// Whether the client keeps auto memory (its default), so the model writes memory files.
    pub auto_memory: bool,
    /// Codex CLI's memories (`$CODEX_HOME/memories`, else `~/.codex/memories`), for every
    /// project: its `MEMORY.md` is read like a user's `CLAUDE.md`, though no client loads it.
    pub codex_memories: PathBuf,
}

impl Client {
    /// The client's view for the project whose top folder is `top` (the main work tree's top
    /// in a repository, as the store's project key is).
    pub fn for_project(top: &Path) -> Client {
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from);
        let config = std::env::var_os("CLAUDE_CONFIG_DIR")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".claude")))
            .unwrap_or_else(|| PathBuf::from(".claude"));
        let settings = settings_in_order(&config, top);
        let first = |key: &str| settings.iter().find_map(|(_, s)| s.get(key).cloned());
        let auto_memory = match std::env::var("CLAUDE_CODE_DISABLE_AUTO_MEMORY").as_deref() {
            Ok("1") | Ok("true") => false,
            Ok("0") | Ok("false") => true,
            _ => first("autoMemoryEnabled")
                .and_then(|v| v.as_bool())
                .unwrap_or(true),
        };
        let chosen = first("autoMemoryDirectory")
            .and_then(|v| v.as_str().map(str::to_owned))
            .and_then(|dir| expand(&dir, home.as_deref()));
        let memory = chosen.unwrap_or_else(|| {
            config
                .join("projects")
                .join(folder_key(&top.to_string_lossy()))
                .join("memory")
        });
        let codex_memories = std::env::var_os("CODEX_HOME")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".codex")))
            .unwrap_or_else(|| PathBuf::from(".codex"))
            .join("memories");
        Client {
            config,
            home,
            memory,
            auto_memory,
            codex_memories,
        }
    }

    /// Whether the user approved, for the project whose main work tree's top is `top`, the
    /// imports of its instruction files that reach outside the folder the session works in: the
    /// client asks once per project and records the answer as
    /// `projects.<top>.hasClaudeMdExternalIncludesApproved` in its own settings file
    /// (`<config>/.config.json` when there is one, else `.claude.json` in `CLAUDE_CONFIG_DIR` or
    /// the home). A missing or unreadable file is no approval. The file can be large, so callers
    /// ask only when an import reaches outside.
    pub fn external_imports_approved(&self, top: &Path) -> bool {
        let file = [self.config.join(".config.json")]
            .into_iter()
            .chain(
                std::env::var_os("CLAUDE_CONFIG_DIR")
                    .filter(|d| !d.is_empty())
                    .map(PathBuf::from)
                    .or_else(|| self.home.clone())
                    .map(|dir| dir.join(".claude.json")),
            )
            .find(|path| path.is_file());
        let Some(settings) = file
            .and_then(|path| std::fs::read(path).ok())
            .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        else {
            return false;
        };
        settings
            .get("projects")
            .and_then(|projects| projects.get(top.to_string_lossy().as_ref()))
            .and_then(|project| project.get("hasClaudeMdExternalIncludesApproved"))
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false)
    }

    /// `path` as people read it: `~/...` under the home folder, else as it is.
    pub fn shown(&self, path: &Path) -> String {
        match self.home.as_deref().and_then(|h| path.strip_prefix(h).ok()) {
            Some(rest) => format!("~/{}", rest.display()),
            None => path.display().to_string(),
        }
    }
}

/// An `autoMemoryDirectory` value as the client takes it: absolute or `~/`, else ignored.
fn expand(dir: &str, home: Option<&Path>) -> Option<PathBuf> {
    let dir = dir.trim_end_matches('/');
    if let Some(rest) = dir.strip_prefix("~/") {
        return (!rest.split('/').any(|part| part == "..")).then(|| home.map(|h| h.join(rest)))?;
    }
    (dir.starts_with('/') && dir.len() >= 3 && !dir.contains('\0')).then(|| PathBuf::from(dir))
}

/// The folder name the client keys a project's files by: every UTF-16 unit other than an ASCII
/// letter or digit becomes `-`; a key longer than 200 characters is cut there and followed by
/// `-` and the base-36 of the absolute value of Java's string hash of the whole path.
pub fn folder_key(path: &str) -> String {
    // The client replaces UTF-16 units, so a character outside the basic plane becomes two.
    let key: String = path
        .encode_utf16()
        .map(|unit| match char::from_u32(u32::from(unit)) {
            Some(c) if c.is_ascii_alphanumeric() => c,
            _ => '-',
        })
        .collect();
    if key.len() <= MAX_KEY {
        return key;
    }
    let hash = path.encode_utf16().fold(0i32, |h, unit| {
        h.wrapping_mul(31).wrapping_add(i32::from(unit))
    });
    let cut: String = key.chars().take(MAX_KEY).collect(); // ASCII: characters are bytes
    format!("{cut}-{}", base36(hash.unsigned_abs()))
}

fn base36(mut n: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_turns_every_other_character_into_a_dash() {
        assert_eq!(
            folder_key("/tmp/cc-research/w/my.repo_x y"),
            "-tmp-cc-research-w-my-repo-x-y"
        );
        assert_eq!(folder_key("/a/é😀"), "-a----");
    }

    #[test]
    fn a_long_key_is_cut_and_hashed_as_the_client_does() {
        // Java: "a".repeat(250).hashCode() with h = 31h + c, wrapping.
        let path = format!("/{}", "a".repeat(250));
        let mut h: i32 = 0;
        for c in path.encode_utf16() {
            h = h.wrapping_mul(31).wrapping_add(i32::from(c));
        }
        let key = folder_key(&path);
        assert_eq!(key.len(), 200 + 1 + base36(h.unsigned_abs()).len());
        assert!(key.starts_with("-aaa"));
        assert_eq!(base36(35), "z");
        assert_eq!(base36(36), "10");
    }

    #[test]
    fn a_relative_memory_folder_is_ignored_and_home_is_expanded() {
        let home = Path::new("/home/u");
        assert_eq!(expand("relmem", Some(home)), None);
        assert_eq!(
            expand("~/mem/x/", Some(home)),
            Some(PathBuf::from("/home/u/mem/x"))
        );
        assert_eq!(expand("~/../etc", Some(home)), None);
        assert_eq!(expand("/m", Some(home)), None);
        assert_eq!(expand("/mem", Some(home)), Some(PathBuf::from("/mem")));
    }
}
