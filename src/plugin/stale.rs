//! What a session is told of the lines of the files the client loads into it (`CLAUDE.md`,
//! `AGENTS.md`, rules) that name a path that is gone (`sources::Known::stale_lines`): the model
//! was given those lines as instructions, and a path they send it to is not there. The session's
//! block ends with them, and the person's line counts them (`notice`).

use crate::sources::Stale;

/// The most lines of loaded files naming gone paths a session's block names one by one.
const STALE_LINES: usize = 3;

/// What a session is told of the lines of the files the client loads into it that name a path
/// that is gone: one line each, "CLAUDE.md:6 names docs/retry-policy.md, which is gone", at most
/// `STALE_LINES`, then how many more (and how many pieces were not read); `None` for none. The
/// model was given those lines as instructions: a path they send it to is not there.
pub fn said(stale: &Stale) -> Option<String> {
    let mut said: Vec<String> = stale
        .lines
        .iter()
        .take(STALE_LINES)
        .map(|l| {
            let which = if l.paths.len() == 1 { "is" } else { "are" };
            let place = &l.place;
            format!("{place} names {}, which {which} gone", listed(&l.paths))
        })
        .collect();
    let more = stale.lines.len().saturating_sub(STALE_LINES);
    if more > 0 {
        let (lines, name) = if more == 1 {
            ("line", "names")
        } else {
            ("lines", "name")
        };
        said.push(format!(
            "{more} more {lines} of the files loaded into this session {name} gone paths \
             (`synapse drift` lists them)."
        ));
    }
    if stale.unread > 0 {
        said.push(format!(
            "{} pieces of the files loaded into this session were not checked for gone paths \
             (`synapse drift` checks them all).",
            stale.unread
        ));
    }
    (!said.is_empty()).then(|| said.join("\n"))
}

/// "a", "a and b", "a, b and c".
fn listed(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// A line of `file` naming the gone `paths`, for the tests.
#[cfg(test)]
pub fn line(file: &str, line: i64, paths: &[&str]) -> crate::drift::StaleLine {
    crate::drift::StaleLine {
        place: crate::drift::FileLine {
            file: file.into(),
            line,
        },
        paths: paths.iter().map(|p| p.to_string()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_is_told_of_at_most_three_loaded_lines_naming_gone_paths() {
        let stale = Stale {
            lines: vec![
                line("CLAUDE.md", 6, &["docs/retry-policy.md"]),
                line("CLAUDE.md", 9, &["src/a.rs", "src/b.rs", "src/c.rs"]),
                line(".claude/rules/api.md", 2, &["api/v1.yaml"]),
                line("~/.claude/CLAUDE.md", 4, &["/opt/tool/bin/x"]),
                line("~/.claude/CLAUDE.md", 5, &["/opt/tool/bin/y"]),
            ],
            unread: 0,
        };
        let said = said(&stale).unwrap();
        assert_eq!(said.lines().count(), 4, "{said}");
        assert!(
            said.starts_with(
                "CLAUDE.md:6 names docs/retry-policy.md, which is gone\n\
                 CLAUDE.md:9 names src/a.rs, src/b.rs and src/c.rs, which are gone\n"
            ),
            "{said}"
        );
        assert!(
            said.ends_with(
                "2 more lines of the files loaded into this session name gone paths (`synapse \
                 drift` lists them)."
            ),
            "{said}"
        );
        assert_eq!(super::said(&Stale::default()), None);
    }
}
