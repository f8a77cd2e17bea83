//! Cutting a source file's text into memories: frontmatter, sections at headings and list items,
//! topic files, and `@path` imports. Pure text work; nothing here touches the disk.

/// One memory's worth of a source file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// 1-based line of the file the chunk starts on.
    pub line: usize,
    /// The text, as the memory's body.
    pub text: String,
    /// The nearest heading above the chunk (its text, without the `#`s), if any.
    pub heading: Option<String>,
}

/// The frontmatter fields Synapse reads (a leading `---` block of YAML-like `key: value` lines).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Front {
    pub name: Option<String>,
    pub description: Option<String>,
    /// `metadata.type` (or a top-level `type`): user, feedback, project, reference.
    pub kind: Option<String>,
    /// A rule's `paths:` globs (a list, inline `[..]` or `- item` lines, or one string).
    pub paths: Vec<String>,
}

/// Split `text` into its frontmatter and the rest; the third value is the 1-based line the rest
/// starts on. Text without frontmatter gives `Front::default()`, the whole text and 1.
pub fn front(text: &str) -> (Front, &str, usize) {
    unimplemented!("issue 32: split::front {}", text.len())
}

/// Cut instruction text (a `CLAUDE.md`, a rule, `AGENTS.md`, `MEMORY.md`) into at most `limit`
/// chunks at headings and list items; `first_line` is the line `body` starts on in its file.
pub fn sections(body: &str, first_line: usize, limit: usize) -> Vec<Chunk> {
    unimplemented!("issue 32: split::sections {} {first_line} {limit}", body.len())
}

/// A topic file of Claude Code's auto memory as one memory (its description, then its body) and
/// its `name` as the title; `None` when it says nothing.
pub fn topic(text: &str) -> Option<(Option<String>, Chunk)> {
    unimplemented!("issue 32: split::topic {}", text.len())
}

/// The `@path` imports of instruction text, as written, outside code spans and fences.
pub fn imports(body: &str) -> Vec<String> {
    unimplemented!("issue 32: split::imports {}", body.len())
}
