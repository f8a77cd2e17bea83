//! Every environment variable Synapse reads (the CLI, the hooks, the MCP server and the plugin's
//! launchers in `bin/`), in one table: `synapse --help` lists them from it, `synapse doctor`
//! shows the ones set, and tests hold the code, the launchers and the docs to it (a variable the
//! code reads and the table lacks, or one the docs name that it does not, fails them).
//!
//! Variables only the tests and benchmarks read are not here: `docs/development.md` lists them.

/// One variable Synapse reads.
#[derive(Debug)]
pub struct Variable {
    pub name: &'static str,
    pub kind: Kind,
    /// What it does, as `--help` says it.
    pub what: &'static str,
}

/// Whose a variable is, which decides whether `synapse doctor` shows its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Synapse's own settings.
    Own,
    /// Set by a client (Claude Code, Codex CLI), or read as the client reads them.
    Client,
    /// The system's (set on every machine, so doctor does not show them).
    System,
}

/// The variables, in the order `--help` and the docs give them.
pub const VARIABLES: &[Variable] = &[
    Variable {
        name: "SYNAPSE_DATA",
        kind: Kind::Own,
        what: "The data folder (synapse.db, config.toml, synapse.log); default: the platform's \
               data folder (`synapse doctor` shows it)",
    },
    Variable {
        name: "SYNAPSE_BUDGET",
        kind: Kind::Own,
        what: "The hooks' and the MCP server's budget: lean, balanced or full",
    },
    Variable {
        name: "SYNAPSE_SESSION_START",
        kind: Kind::Own,
        what: "on or off: inject memories when a session starts",
    },
    Variable {
        name: "SYNAPSE_PROMPT_SUBMIT",
        kind: Kind::Own,
        what: "on or off: add memories relevant to each prompt",
    },
    Variable {
        name: "SYNAPSE_STOP",
        kind: Kind::Own,
        what: "on or off: record `remember:` lines from replies",
    },
    Variable {
        name: "SYNAPSE_COMPACT",
        kind: Kind::Own,
        what: "on or off: ask a compaction's summary for lessons, and keep them",
    },
    Variable {
        name: "SYNAPSE_NOTICE",
        kind: Kind::Own,
        what: "start, always or off: when the hooks show you a line of what they did",
    },
    Variable {
        name: "SYNAPSE_BIN_DIR",
        kind: Kind::Own,
        what: "Where the plugin's launchers (bin/) look first for Synapse's binaries",
    },
    Variable {
        name: "SYNAPSE_RELEASE_URL",
        kind: Kind::Own,
        what: "Where the launchers download the release archives from when no binary is \
               found; default: the GitHub release of the plugin's version",
    },
    Variable {
        name: "SYNAPSE_BUILD",
        kind: Kind::Own,
        what: "source: the launchers build the binaries with cargo instead",
    },
    Variable {
        name: "CLAUDE_PLUGIN_ROOT",
        kind: Kind::Client,
        what: "The plugin's folder (set by Claude Code): the launchers look in its \
               target/release",
    },
    Variable {
        name: "CLAUDE_PROJECT_DIR",
        kind: Kind::Client,
        what: "The project synapse-mcp serves without --project (set by Claude Code)",
    },
    Variable {
        name: "CLAUDE_CONFIG_DIR",
        kind: Kind::Client,
        what: "Claude Code's folder (default ~/.claude), where Synapse reads the user's \
               CLAUDE.md, rules and the auto-memory folders",
    },
    Variable {
        name: "CLAUDE_CODE_DISABLE_AUTO_MEMORY",
        kind: Kind::Client,
        what: "1: Claude Code keeps no memory files, so Synapse's blocks ask for \"remember:\" \
               lines again (0: on, whatever the settings say)",
    },
    Variable {
        name: "CODEX_HOME",
        kind: Kind::Client,
        what: "Codex CLI's folder (default ~/.codex): `synapse setup codex` edits its \
               config.toml",
    },
    Variable {
        name: "HOME",
        kind: Kind::System,
        what: "Where ~/.claude and the default data folder are, and how files under it are \
               named; drift never calls a path under another account's home missing",
    },
    Variable {
        name: "XDG_DATA_HOME",
        kind: Kind::System,
        what: "On Linux, the default data folder is $XDG_DATA_HOME/synapse when it is set",
    },
    Variable {
        name: "TMPDIR",
        kind: Kind::System,
        what: "Drift never calls a path under it missing",
    },
    Variable {
        name: "PATH",
        kind: Kind::System,
        what: "Where the launchers look for the binaries last, and `synapse doctor` for the \
               hooks and `claude`",
    },
    Variable {
        name: "CARGO_HOME",
        kind: Kind::System,
        what: "Where bin/synapse-compile installs the binaries (default ~/.cargo)",
    },
    Variable {
        name: "RUSTFLAGS",
        kind: Kind::System,
        what: "Extra compiler flags for bin/synapse-compile",
    },
];

/// How wide `--help`'s list is, and where its descriptions start.
const WIDTH: usize = 100;
const INDENT: usize = 25;

/// The variables as `synapse --help` lists them: a name, then what it does, wrapped.
pub fn help() -> String {
    let mut out = String::from("Environment variables (an empty value counts as unset):\n");
    for variable in VARIABLES {
        let mut line = format!("  {}", variable.name);
        // A name too long for its column has a line of its own.
        if line.len() + 2 > INDENT {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        let mut first = true;
        for word in variable.what.split(' ') {
            if !first && line.len() + 1 + word.len() > WIDTH {
                out.push_str(&line);
                out.push('\n');
                line.clear();
                first = true;
            }
            if first {
                line.extend(std::iter::repeat_n(' ', INDENT - line.len()));
                first = false;
            } else {
                line.push(' ');
            }
            line.push_str(word);
        }
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str("\nThe budget and the hooks' switches win over config.toml in the data folder.");
    out
}

/// The variables of Synapse and of the client set in this process, with their values: what
/// `synapse doctor` shows, since any of them changes what Synapse does.
pub fn set() -> Vec<(&'static str, String)> {
    VARIABLES
        .iter()
        .filter(|v| v.kind != Kind::System)
        .filter_map(|v| {
            let value = std::env::var_os(v.name).filter(|value| !value.is_empty())?;
            Some((v.name, value.to_string_lossy().into_owned()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    use super::{help, VARIABLES};

    fn root() -> &'static Path {
        Path::new(env!("CARGO_MANIFEST_DIR"))
    }

    /// The names in the first column of each Markdown table in `text` whose header's first cell
    /// is `variable` (a cell may name several: "`CARGO_HOME`, `RUSTFLAGS`").
    fn tabled(text: &str) -> Vec<BTreeSet<String>> {
        let mut tables = Vec::new();
        let mut rows: Option<BTreeSet<String>> = None;
        for line in text.lines() {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            if !line.starts_with('|') {
                tables.extend(rows.take());
                continue;
            }
            if cells.get(1) == Some(&"variable") {
                rows = Some(BTreeSet::new());
            } else if let (Some(rows), Some(cell)) = (rows.as_mut(), cells.get(1)) {
                rows.extend(
                    cell.split(',')
                        .map(|n| n.trim().trim_matches('`').to_owned())
                        .filter(|n| !n.is_empty() && !n.starts_with('-')),
                );
            }
        }
        tables.extend(rows);
        tables
    }

    fn names() -> BTreeSet<String> {
        VARIABLES.iter().map(|v| v.name.to_owned()).collect()
    }

    #[test]
    fn names_are_unique() {
        assert_eq!(names().len(), VARIABLES.len());
    }

    /// docs/settings.md's table, and the README's when it has one, name exactly the variables
    /// of the table here.
    #[test]
    fn the_docs_tables_name_exactly_these_variables() {
        for doc in ["docs/settings.md", "README.md"] {
            let text = std::fs::read_to_string(root().join(doc)).unwrap();
            let tables = tabled(&text);
            assert!(
                doc == "README.md" || tables.len() == 1,
                "{doc} should have one table of environment variables, it has {}",
                tables.len()
            );
            for table in tables {
                let missing: Vec<_> = names().difference(&table).cloned().collect();
                let unknown: Vec<_> = table.difference(&names()).cloned().collect();
                assert!(
                    missing.is_empty() && unknown.is_empty(),
                    "{doc}'s table of environment variables lacks {missing:?} and names \
                     {unknown:?}, which Synapse does not read (the list is in \
                     src/config/environment.rs)"
                );
            }
        }
    }

    /// Every `SYNAPSE_…` name in the README and docs/ is one Synapse reads, or one of the
    /// tests' in docs/development.md's table: a renamed or removed variable leaves no name behind.
    #[test]
    fn the_docs_name_no_other_synapse_variable() {
        let development = std::fs::read_to_string(root().join("docs/development.md")).unwrap();
        let tests: BTreeSet<String> = tabled(&development).into_iter().flatten().collect();
        let mut docs = vec![root().join("README.md")];
        for entry in std::fs::read_dir(root().join("docs")).unwrap() {
            docs.push(entry.unwrap().path());
        }
        let mut unknown = BTreeSet::new();
        for doc in docs
            .iter()
            .filter(|d| d.extension().is_some_and(|e| e == "md"))
        {
            let text = std::fs::read_to_string(doc).unwrap();
            for (at, _) in text.match_indices("SYNAPSE_") {
                let name: String = text
                    .get(at..)
                    .unwrap_or_default()
                    .chars()
                    .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                    .collect();
                let rest = text.get(at + name.len()..).unwrap_or_default();
                // A name followed by `*` names a family the development table spells out.
                let known = if rest.starts_with('*') {
                    tests.iter().any(|t| t.starts_with(&name))
                } else {
                    names().contains(&name) || tests.contains(&name)
                };
                if !known {
                    unknown.insert(format!("{name} ({})", doc.display()));
                }
            }
        }
        assert!(
            unknown.is_empty(),
            "the docs name variables that neither Synapse nor the tests read: {unknown:?}"
        );
    }

    #[test]
    fn help_lists_each_variable_on_lines_of_at_most_100_columns() {
        let help = help();
        for variable in VARIABLES {
            assert!(
                help.lines()
                    .any(|l| l.split_whitespace().next() == Some(variable.name)),
                "{help}"
            );
        }
        for line in help.lines() {
            assert!(line.chars().count() <= 100, "{line:?}");
        }
    }
}
