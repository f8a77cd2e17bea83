//! Where Synapse keeps its data, the budget levels that bound what it hands over, and the
//! settings (`config.toml` in the data folder, overridden by environment variables, which
//! `environment` lists).

pub mod environment;

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use foldhash::HashSet;
use globset::{Candidate, Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use serde::Deserialize;

/// The data folder: `$SYNAPSE_DATA` if set, else the platform data folder
/// (`~/.local/share/synapse` on Linux).
pub fn data_dir() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("SYNAPSE_DATA").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    let dirs = directories::ProjectDirs::from("", "", "synapse")
        .context("could not find a home folder for the data folder; set SYNAPSE_DATA")?;
    Ok(dirs.data_dir().to_path_buf())
}

/// How much recall may hand over: a count of results, a character budget for their text, and the
/// page size for exact reading.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Budget {
    Lean,
    #[default]
    Balanced,
    Full,
}

impl Budget {
    /// The most results recall returns.
    pub fn max_results(self) -> usize {
        match self {
            Budget::Lean => 4,
            Budget::Balanced => 8,
            Budget::Full => 25,
        }
    }

    /// The most characters of memory text recall returns (`None`: no cap).
    pub fn max_chars(self) -> Option<usize> {
        match self {
            Budget::Lean => Some(2_800),
            Budget::Balanced => Some(6_000),
            Budget::Full => None,
        }
    }

    /// The most bytes of body one read returns.
    pub fn page_bytes(self) -> usize {
        match self {
            Budget::Lean => 2_800,
            Budget::Balanced | Budget::Full => 6_000,
        }
    }
}

impl std::str::FromStr for Budget {
    type Err = anyhow::Error;

    fn from_str(text: &str) -> Result<Budget> {
        match text.trim().to_ascii_lowercase().as_str() {
            "lean" => Ok(Budget::Lean),
            "balanced" => Ok(Budget::Balanced),
            "full" => Ok(Budget::Full),
            other => bail!("budget must be lean, balanced or full, not {other:?}"),
        }
    }
}

/// What the hooks do. `config.toml` in the data folder:
///
/// ```toml
/// budget = "balanced"     # lean | balanced | full: how much SessionStart injects
/// [hooks]
/// session_start = true    # inject memories when a session starts
/// prompt_submit = true    # add memories relevant to each prompt
/// stop = true             # record `remember:` lines from replies
/// compact = true          # before a compaction, ask the summary for the session's lessons
/// notice = "start"        # the line the person sees: "start" | "always" | "off"
/// [drift]
/// ignore = ["Cargo.lock", "target/"]  # paths drift never calls stale
/// [signal]
/// ignore = ["*.lock"]     # changed files that never steer what the hooks recall
/// [sources]
/// read = true             # read Claude Code's memory files and CLAUDE.md (docs/sources.md)
/// ```
///
/// Each `ignore` list is a set of globs (see `Ignore` for the rules); left out, it is
/// `DEFAULT_IGNORE` (lockfiles and build output). A list given REPLACES the defaults for that
/// section: `ignore = []` ignores nothing, and a list that should add to the defaults repeats
/// them (`synapse doctor` prints them).
///
/// Environment variables win over the file: `SYNAPSE_BUDGET`, `SYNAPSE_NOTICE`,
/// `SYNAPSE_SESSION_START`, `SYNAPSE_PROMPT_SUBMIT`, `SYNAPSE_STOP`, `SYNAPSE_COMPACT`
/// (`on`/`off`, `1`/`0`, `true`/`false`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    pub budget: Budget,
    pub hooks: Hooks,
    /// `[drift]`: `ignore`, the paths drift never calls stale.
    pub drift: IgnoreSection,
    /// `[signal]`: `ignore`, the changed files left out of the task signal, so they never steer
    /// what the hooks recall.
    pub signal: IgnoreSection,
    /// `[sources]`: whether Claude Code's memory and instruction files are read.
    pub sources: Sources,
}

/// `[sources]`: whether Synapse reads Claude Code's own memory files (`crate::sources`). Off, it
/// holds nothing of them: what was folded is taken out at the next hook or command.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Sources {
    pub read: bool,
}

impl Default for Sources {
    fn default() -> Self {
        Sources { read: true }
    }
}

/// Which hooks are on.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Hooks {
    pub session_start: bool,
    pub prompt_submit: bool,
    pub stop: bool,
    /// PreCompact and PostCompact: ask the compaction's summary for the session's lessons as
    /// `remember:` lines, and keep those lines.
    pub compact: bool,
    pub notice: Notice,
}

impl Default for Hooks {
    fn default() -> Self {
        Hooks {
            session_start: true,
            prompt_submit: true,
            stop: true,
            compact: true,
            notice: Notice::default(),
        }
    }
}

/// When the person sees a line of what a hook did (`systemMessage`, beside the model's context).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Notice {
    /// At session start, and when a hook saves a memory: the default, since a line at every
    /// prompt would be noise.
    #[default]
    Start,
    /// Also at every prompt that is given memories.
    Always,
    /// Never: the hooks print the model's context alone, as plain text.
    Off,
}

impl std::str::FromStr for Notice {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> Result<Self> {
        match s {
            "start" => Ok(Notice::Start),
            "always" => Ok(Notice::Always),
            "off" => Ok(Notice::Off),
            other => bail!("notice must be start, always or off, not {other:?}"),
        }
    }
}

/// A section of `config.toml` that holds one `ignore` list (`[drift]`, `[signal]`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IgnoreSection {
    pub ignore: Ignore,
}

/// `config.toml` as written: the `ignore` lists still text, `None` where left out.
#[derive(Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct SettingsFile {
    budget: Budget,
    hooks: Hooks,
    drift: IgnoreSectionFile,
    signal: IgnoreSectionFile,
    sources: Sources,
}

#[derive(Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct IgnoreSectionFile {
    ignore: Option<Vec<String>>,
}

impl IgnoreSectionFile {
    /// The compiled section; an error names the file, the section and the bad pattern.
    fn compile(self, path: &Path, section: &str) -> Result<IgnoreSection> {
        let ignore = match self.ignore {
            None => Ignore::default(),
            Some(patterns) => Ignore::new(patterns)
                .with_context(|| format!("{}: [{section}] ignore", path.display()))?,
        };
        Ok(IgnoreSection { ignore })
    }
}

impl Settings {
    /// The settings file in `dir`.
    pub fn path(dir: &Path) -> PathBuf {
        dir.join("config.toml")
    }

    /// Read `config.toml` from `dir` (absent: defaults), then apply the environment.
    pub fn load(dir: &Path) -> Result<Settings> {
        let path = Settings::path(dir);
        let mut settings = match std::fs::read_to_string(&path) {
            Ok(text) => Settings::parse(&text, &path)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Settings::default(),
            Err(e) => return Err(e).with_context(|| format!("could not read {}", path.display())),
        };
        if let Some(budget) = env("SYNAPSE_BUDGET") {
            settings.budget = budget.parse().context("SYNAPSE_BUDGET")?;
        }
        if let Some(notice) = env("SYNAPSE_NOTICE") {
            settings.hooks.notice = notice.parse().context("SYNAPSE_NOTICE")?;
        }
        for (name, switch) in [
            ("SYNAPSE_SESSION_START", &mut settings.hooks.session_start),
            ("SYNAPSE_PROMPT_SUBMIT", &mut settings.hooks.prompt_submit),
            ("SYNAPSE_STOP", &mut settings.hooks.stop),
            ("SYNAPSE_COMPACT", &mut settings.hooks.compact),
        ] {
            if let Some(value) = env(name) {
                *switch = on_off(&value).with_context(|| format!("{name}={value:?}"))?;
            }
        }
        Ok(settings)
    }

    /// The settings `text` (the contents of the file at `path`, which errors name) holds.
    fn parse(text: &str, path: &Path) -> Result<Settings> {
        let file: SettingsFile = toml::from_str(text)
            .with_context(|| format!("{} is not valid settings", path.display()))?;
        Ok(Settings {
            budget: file.budget,
            hooks: file.hooks,
            drift: file.drift.compile(path, "drift")?,
            signal: file.signal.compile(path, "signal")?,
            sources: file.sources,
        })
    }
}

/// What an `ignore` list holds when `config.toml` leaves it out: lockfiles, build output and
/// Synapse's own team folder.
/// Changing a lockfile says nothing about the task, and a path under a build folder comes and
/// goes with every build.
pub const DEFAULT_IGNORE: &[&str] = &[
    // Lockfiles.
    "Cargo.lock",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lock",
    "bun.lockb",
    "deno.lock",
    "poetry.lock",
    "uv.lock",
    "pdm.lock",
    "Pipfile.lock",
    "Gemfile.lock",
    "composer.lock",
    "go.sum",
    "flake.lock",
    "Podfile.lock",
    "Package.resolved",
    "packages.lock.json",
    "pubspec.lock",
    "mix.lock",
    "gradle.lockfile",
    // Build output, caches and virtual environments.
    "target/",
    "node_modules/",
    "dist/",
    "build/",
    ".next/",
    ".nuxt/",
    ".svelte-kit/",
    ".turbo/",
    "__pycache__/",
    ".venv/",
    ".tox/",
    ".mypy_cache/",
    ".pytest_cache/",
    ".ruff_cache/",
    ".gradle/",
    // Synapse's own shared file (`team`): sharing a lesson says nothing about the task.
    ".synapse/",
];

/// A compiled `ignore` list: which paths (relative to the top of the work tree, `/` between
/// folders, as git names them) it matches. The rules are those of `.gitignore`, without `!`:
///
/// - A pattern without a `/` (but for a trailing one) matches a file or folder name at any
///   depth: `Cargo.lock` matches `Cargo.lock` and `web/api/Cargo.lock`; `*.lock` any name
///   ending in `.lock`.
/// - A pattern with a `/` in it (leading or inside) is matched from the top of the work tree:
///   `docs/generated/*.md`, `/build/` (the top `build` folder only). `**` stands for any number
///   of folders: `**/package-lock.json` is the same as `package-lock.json`.
/// - A pattern that matches a folder matches everything under it; a trailing `/` makes it match
///   folders only: `target/` matches `target/debug/synapse` and `crates/x/target/a.o`, not a
///   file named `target`.
/// - `*`, `?` and `[...]` never match a `/`; `{a,b}` matches either; `\` escapes. Case counts.
///
/// Two lists are equal when they hold the same patterns.
///
/// A plain name (no glob character, no `/` but a trailing one), as every default is, is looked up
/// by name; the other patterns are compiled into `globset` sets. So the defaults cost no glob
/// compilation, which a hook would pay on every run.
#[derive(Clone)]
pub struct Ignore {
    patterns: Vec<String>,
    /// Plain names matching a file or a folder. foldhash: the defaults are built on every run.
    names: HashSet<String>,
    /// Plain names written with a trailing `/`, which match folders only.
    folder_names: HashSet<String>,
    /// The other patterns matching a file or a folder, anchored (`**/` before a bare name).
    globs: GlobSet,
    /// The other patterns written with a trailing `/`.
    folder_globs: GlobSet,
}

/// The characters that make a pattern a glob rather than a plain name.
const GLOB_CHARS: &[char] = &['*', '?', '[', ']', '{', '}', '\\', '/'];

impl Ignore {
    /// Compile `patterns`; the error names the first one that is not a glob.
    pub fn new<S: Into<String>>(patterns: impl IntoIterator<Item = S>) -> Result<Ignore> {
        let patterns: Vec<String> = patterns.into_iter().map(Into::into).collect();
        let mut names = HashSet::default();
        let mut folder_names = HashSet::default();
        let mut globs = GlobSetBuilder::new();
        let mut folder_globs = GlobSetBuilder::new();
        for pattern in &patterns {
            match compile(pattern).with_context(|| format!("{pattern:?} is not a glob"))? {
                Pattern::Name(name, false) => {
                    names.insert(name.to_owned());
                }
                Pattern::Name(name, true) => {
                    folder_names.insert(name.to_owned());
                }
                Pattern::Glob(glob, false) => {
                    globs.add(glob);
                }
                Pattern::Glob(glob, true) => {
                    folder_globs.add(glob);
                }
            }
        }
        let built = |set: GlobSetBuilder| {
            set.build()
                .context("the patterns could not be compiled together")
        };
        Ok(Ignore {
            names,
            folder_names,
            globs: built(globs)?,
            folder_globs: built(folder_globs)?,
            patterns,
        })
    }

    /// The patterns, as written.
    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// Whether these are the defaults (`DEFAULT_IGNORE`).
    pub fn is_default(&self) -> bool {
        self.patterns
            .iter()
            .map(String::as_str)
            .eq(DEFAULT_IGNORE.iter().copied())
    }

    /// Whether `relative_path` (from the top of the work tree, `/` between folders; a leading
    /// `./` is allowed, a trailing `/` says it is a folder) or a folder it lies in is matched.
    pub fn matches(&self, relative_path: &str) -> bool {
        let path = relative_path.strip_prefix("./").unwrap_or(relative_path);
        let (path, folder) = match path.strip_suffix('/') {
            Some(path) => (path, true),
            None => (path, false),
        };
        if path.is_empty() {
            return false;
        }
        let folders_above = path
            .match_indices('/')
            .filter_map(|(at, _)| path.get(..at))
            .any(|above| self.matches_one(above, true));
        folders_above || self.matches_one(path, folder)
    }

    /// Whether the patterns match `path` itself (a folder when `folder`), not what it lies in.
    fn matches_one(&self, path: &str, folder: bool) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        if self.names.contains(name) || (folder && self.folder_names.contains(name)) {
            return true;
        }
        let globs = !self.globs.is_empty();
        let folder_globs = folder && !self.folder_globs.is_empty();
        if !globs && !folder_globs {
            return false;
        }
        let candidate = Candidate::new(path);
        (globs && self.globs.is_match_candidate(&candidate))
            || (folder_globs && self.folder_globs.is_match_candidate(&candidate))
    }
}

/// One pattern, compiled, and whether it matches folders only.
enum Pattern<'a> {
    /// A plain name, matched at any depth.
    Name(&'a str, bool),
    /// A glob over whole paths from the top of the work tree.
    Glob(Glob, bool),
}

fn compile(pattern: &str) -> Result<Pattern<'_>> {
    if pattern.starts_with('!') {
        bail!("`!` (matching again what another pattern ignores) is not supported");
    }
    let (body, folder_only) = match pattern.strip_suffix('/') {
        Some(body) => (body, true),
        None => (pattern, false),
    };
    if body.trim_start_matches('/').is_empty() {
        bail!("it names no path");
    }
    if !body.contains(GLOB_CHARS) {
        return Ok(Pattern::Name(body, folder_only));
    }
    let anchored = match body.strip_prefix('/') {
        Some(rest) => rest.to_owned(),
        None if body.contains('/') => body.to_owned(),
        None => format!("**/{body}"),
    };
    let glob = GlobBuilder::new(&anchored)
        .literal_separator(true)
        .build()
        .map_err(|e| anyhow::anyhow!("{}", e.kind()))?;
    Ok(Pattern::Glob(glob, folder_only))
}

impl Default for Ignore {
    /// `DEFAULT_IGNORE`, compiled.
    fn default() -> Self {
        Ignore::new(DEFAULT_IGNORE.iter().copied()).expect("the default ignore globs compile")
    }
}

impl PartialEq for Ignore {
    fn eq(&self, other: &Self) -> bool {
        self.patterns == other.patterns
    }
}

impl Eq for Ignore {}

impl std::fmt::Debug for Ignore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Ignore").field(&self.patterns).finish()
    }
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn on_off(value: &str) -> Result<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "on" | "true" | "yes" => Ok(true),
        "0" | "off" | "false" | "no" => Ok(false),
        _ => bail!("expected on or off"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[test]
    fn settings_file_and_defaults() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Settings::load(dir.path()).unwrap(), Settings::default());
        std::fs::write(
            Settings::path(dir.path()),
            "budget = \"lean\"\n[hooks]\nstop = false\n",
        )
        .unwrap();
        let s = Settings::load(dir.path()).unwrap();
        assert_eq!(s.budget, Budget::Lean);
        assert!(!s.hooks.stop && s.hooks.session_start);
        assert!(s.drift.ignore.is_default() && s.signal.ignore.is_default());
        std::fs::write(Settings::path(dir.path()), "budget = 3").unwrap();
        assert!(Settings::load(dir.path()).is_err());
    }

    #[test]
    fn ignore_lists_in_the_settings_file_replace_the_defaults() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            Settings::path(dir.path()),
            "[drift]\nignore = [\"Cargo.lock\", \"**/package-lock.json\"]\n\
             [signal]\nignore = [\"*.lock\"]\n",
        )
        .unwrap();
        let s = Settings::load(dir.path()).unwrap();
        assert_eq!(
            s.drift.ignore.patterns(),
            ["Cargo.lock", "**/package-lock.json"]
        );
        assert_eq!(s.signal.ignore, Ignore::new(["*.lock"]).unwrap());
        assert!(!s.drift.ignore.is_default() && !s.signal.ignore.is_default());
        // The defaults are gone from a section that lists its own.
        assert!(!s.drift.ignore.matches("node_modules/x/index.js"));
        assert!(!s.signal.ignore.matches("package-lock.json"));
        assert!(s.signal.ignore.matches("web/yarn.lock"));
        assert_eq!(s.budget, Budget::Balanced);

        // Each section left out keeps its defaults; an empty list ignores nothing.
        std::fs::write(Settings::path(dir.path()), "[signal]\nignore = []\n").unwrap();
        let s = Settings::load(dir.path()).unwrap();
        assert!(s.drift.ignore.is_default());
        assert!(s.signal.ignore.patterns().is_empty());
        assert!(!s.signal.ignore.matches("Cargo.lock"));
    }

    #[rstest]
    #[case::bad_glob(
        "[drift]\nignore = [\"ok/\", \"a[\"]\n",
        "[drift] ignore: \"a[\" is not a glob: unclosed character class"
    )]
    #[case::negation(
        "[signal]\nignore = [\"!keep.lock\"]\n",
        "[signal] ignore: \"!keep.lock\" is not a glob: `!`"
    )]
    #[case::no_path(
        "[signal]\nignore = [\"/\"]\n",
        "[signal] ignore: \"/\" is not a glob: it names no path"
    )]
    #[case::not_a_list("[drift]\nignore = \"Cargo.lock\"\n", "is not valid settings")]
    #[case::unknown_key("[signal]\nignores = [\"x\"]\n", "is not valid settings")]
    fn a_bad_ignore_setting_is_refused_with_its_section_and_pattern(
        #[case] text: &str,
        #[case] says: &str,
    ) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(Settings::path(dir.path()), text).unwrap();
        let error = format!("{:#}", Settings::load(dir.path()).unwrap_err());
        assert!(error.contains(says), "{error}");
        assert!(error.contains("config.toml"), "{error}");
    }

    #[rstest]
    // A name without `/` matches a file name at any depth, and so does `**/`.
    #[case::name_at_the_top("Cargo.lock", "Cargo.lock", true)]
    #[case::name_deep("Cargo.lock", "crates/core/Cargo.lock", true)]
    #[case::name_is_whole("Cargo.lock", "Cargo.lock.bak", false)]
    #[case::name_not_a_suffix("Cargo.lock", "MyCargo.lock", false)]
    #[case::double_star_at_the_top("**/package-lock.json", "package-lock.json", true)]
    #[case::double_star_deep("**/package-lock.json", "web/app/package-lock.json", true)]
    #[case::star_name("*.lock", "web/yarn.lock", true)]
    #[case::star_name_other_extension("*.lock", "src/lock.rs", false)]
    #[case::question_mark("go.su?", "svc/go.sum", true)]
    #[case::alternates("{yarn,poetry}.lock", "api/poetry.lock", true)]
    #[case::case_counts("cargo.lock", "Cargo.lock", false)]
    // A pattern with `/` in it is matched from the top; `*` stays within a folder.
    #[case::anchored("docs/generated/*.md", "docs/generated/api.md", true)]
    #[case::anchored_not_deeper("docs/generated/*.md", "docs/generated/v1/api.md", false)]
    #[case::anchored_not_elsewhere("docs/generated/*.md", "web/docs/generated/api.md", false)]
    #[case::leading_slash("/build/", "build/out.o", true)]
    #[case::leading_slash_only_the_top("/build/", "web/build/out.o", false)]
    // A folder pattern matches everything under that folder, at any depth.
    #[case::folder_at_the_top("target/", "target/debug/synapse", true)]
    #[case::folder_deep("target/", "crates/x/target/release/a.o", true)]
    #[case::folder_not_a_file("target/", "target", false)]
    #[case::folder_not_a_prefix("target/", "targets/list.md", false)]
    #[case::folder_not_a_file_name("target/", "src/target.rs", false)]
    #[case::folder_path_given_as_folder("node_modules/", "web/node_modules/", true)]
    #[case::name_matches_a_folder_too("node_modules", "web/node_modules/react/index.js", true)]
    #[case::anchored_folder("docs/gen", "docs/gen/a/b.md", true)]
    // Globs follow the same rules as plain names.
    #[case::glob_name_deep("Cargo.loc[k]", "crates/core/Cargo.lock", true)]
    #[case::glob_name_is_whole("Cargo.loc?", "Cargo.lock.bak", false)]
    #[case::glob_name_matches_a_folder_too("node_module[s]", "web/node_modules/a.js", true)]
    #[case::glob_folder_deep("targe?/", "crates/x/target/release/a.o", true)]
    #[case::glob_folder_not_a_file("targe?/", "src/target", false)]
    #[case::glob_folder_path_given_as_folder("node_module?/", "web/node_modules/", true)]
    #[case::dot_slash("Cargo.lock", "./Cargo.lock", true)]
    #[case::empty_path("Cargo.lock", "", false)]
    fn ignore_matches_like_gitignore(
        #[case] pattern: &str,
        #[case] path: &str,
        #[case] matched: bool,
    ) {
        let ignore = Ignore::new([pattern]).unwrap();
        assert_eq!(ignore.matches(path), matched, "{pattern:?} on {path:?}");
    }

    #[rstest]
    #[case::cargo("Cargo.lock", true)]
    #[case::npm_deep("web/package-lock.json", true)]
    #[case::yarn("yarn.lock", true)]
    #[case::pnpm("pnpm-lock.yaml", true)]
    #[case::poetry("poetry.lock", true)]
    #[case::uv("uv.lock", true)]
    #[case::gemfile("Gemfile.lock", true)]
    #[case::composer("composer.lock", true)]
    #[case::go_sum("services/api/go.sum", true)]
    #[case::pipfile("Pipfile.lock", true)]
    #[case::bun("bun.lockb", true)]
    #[case::flake("flake.lock", true)]
    #[case::podfile("ios/Podfile.lock", true)]
    #[case::nuget("src/App/packages.lock.json", true)]
    #[case::target("target/debug/build/x/output", true)]
    #[case::node_modules("web/node_modules/react/index.js", true)]
    #[case::dist("dist/app.js", true)]
    #[case::build("web/build/index.html", true)]
    #[case::next(".next/server/page.js", true)]
    #[case::pycache("app/__pycache__/main.cpython-312.pyc", true)]
    #[case::venv(".venv/lib/site.py", true)]
    #[case::source("src/webhooks/retry.rs", false)]
    #[case::manifest("Cargo.toml", false)]
    #[case::package_json("web/package.json", false)]
    #[case::go_mod("go.mod", false)]
    #[case::build_script("build.rs", false)]
    #[case::readme("README.md", false)]
    fn the_defaults_are_lockfiles_and_build_output(#[case] path: &str, #[case] matched: bool) {
        let ignore = Ignore::default();
        assert!(ignore.is_default());
        assert_eq!(ignore.matches(path), matched, "{path}");
    }

    #[test]
    fn a_bad_pattern_is_named() {
        let error = format!("{:#}", Ignore::new(["ok", "src/{a,b"]).unwrap_err());
        assert!(
            error.starts_with("\"src/{a,b\" is not a glob: unclosed alternate group"),
            "{error}"
        );
        assert!(Ignore::new(Vec::<String>::new())
            .unwrap()
            .patterns()
            .is_empty());
    }
}
