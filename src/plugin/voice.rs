//! How the blocks speak to one client's model: the tools it reads and saves a memory with, as
//! that client names Synapse's MCP tools to its model, and where it keeps lessons. Each adapter
//! gives its client's `Voice`; the blocks (`inject`) only fill it in. A block never names a
//! slash command: those are the person's, and the model cannot run them.

/// Where a client's model keeps the lessons it learns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lessons {
    /// In Synapse's store: a `remember:` line in a reply, or the remember tool.
    Synapse,
    /// In the client's own memory files, which Synapse reads (Claude Code's auto memory):
    /// asking for `remember:` lines too would make two places to write. The text names them.
    Files(&'static str),
}

/// How the blocks speak to one client's model.
#[derive(Clone, Copy, Debug)]
pub struct Voice {
    /// Synapse's MCP tool `recall`, `readmemory` or `remember` as the client names it to its
    /// model ("the mcp__plugin_synapse_synapse__readmemory tool" in Claude Code).
    pub tool: fn(&str) -> String,
    pub lessons: Lessons,
    /// How the person searches the memory, for the person's line when a session starts with
    /// nothing to go on (`/synapse:recall` where the client has Synapse's slash commands).
    pub search: &'static str,
}

/// The tool the blocks name where a line must stay short (a prompt's pointers): the bare name,
/// which every client's name of it holds, and which a client that defers its MCP tools finds
/// by a search for that word (Claude Code's ToolSearch).
pub const READ_SHORT: &str = "readmemory tool";

impl Voice {
    /// How to read the memory `id` whole, for an abridged memory's mark.
    pub fn read(&self, id: i64) -> String {
        format!("{} (id {id})", (self.tool)("readmemory"))
    }

    /// The session block's closing lines: how to read a memory whole and where lessons go.
    pub fn footer(&self) -> String {
        let read = (self.tool)("readmemory");
        match self.lessons {
            Lessons::Synapse => format!(
                "Read a whole memory: {read} with its id. Save a lesson: a line \
                 \"remember: ...\" in your reply, or {}; replace a note: \"remember \
                 (replaces #ID): ...\".",
                (self.tool)("remember")
            ),
            Lessons::Files(files) => format!(
                "Read a whole memory: {read} with its id. Lessons are kept as \
                 {files}, which Synapse reads; keep saving them there. Replace a Synapse note: \
                 \"remember (replaces #ID): ...\"."
            ),
        }
    }

    /// The prompt block's footer, one short line: the prompt block says how to read more in its
    /// header, and a session was told the rest at its start.
    pub fn prompt_footer(&self) -> &'static str {
        match self.lessons {
            Lessons::Synapse => {
                "Save a lesson: a line \"remember: ...\" in your reply; \"remember (replaces \
                 #ID): ...\" replaces a note."
            }
            Lessons::Files(_) => {
                "Replace a Synapse note: a line \"remember (replaces #ID): ...\" in your reply."
            }
        }
    }

    /// The one line SessionStart says when there is no signal to recall from.
    pub fn status_line(&self, memories: i64) -> String {
        match (memories, self.lessons) {
            (0, Lessons::Synapse) => format!(
                "Synapse: no memories for this project yet. Save a lesson with a line \
                 \"remember: ...\" in a reply, or {}.",
                (self.tool)("remember")
            ),
            (0, Lessons::Files(files)) => format!(
                "Synapse: no memories for this project yet; it reads {files} as they are \
                 written."
            ),
            _ => format!(
                "Synapse: {memories} {} for this project. Search them with {}; read one with \
                 {}.",
                if memories == 1 { "memory" } else { "memories" },
                (self.tool)("recall"),
                (self.tool)("readmemory")
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bare(tool: &str) -> String {
        tool.to_owned()
    }

    #[test]
    fn with_the_client_s_memory_files_no_remember_lines_are_asked_for() {
        let files = Voice {
            tool: bare,
            lessons: Lessons::Files("Claude Code's memory files"),
            search: "synapse recall",
        };
        assert!(!files.footer().contains("remember:"), "{}", files.footer());
        assert!(files.footer().contains("Claude Code's memory files"));
        assert!(!files.prompt_footer().contains("remember:"));
        assert!(!files.status_line(0).contains("remember:"));
        let synapse = Voice {
            tool: bare,
            lessons: Lessons::Synapse,
            search: "synapse recall",
        };
        assert!(synapse.footer().contains("\"remember: ...\""));
        assert!(synapse.status_line(0).contains("remember:"));
    }
}
