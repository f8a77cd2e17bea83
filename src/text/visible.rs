//! Text shown to a person or a model, with every character that would act instead of being read
//! replaced by its visible escape (`visible`).
//!
//! A memory's stored bytes are any UTF-8 (a pasted log, a file with odd bytes); shown raw, some
//! of them act: an escape sequence recolours a terminal or sets its window title, a NUL or a
//! carriage return hides what came before it, and a direction override reorders the text a
//! reader sees, so that it says one thing and means another (the "Trojan source" trick). What is
//! replaced (`hidden`):
//!
//! - the control characters (C0, DEL, C1) but tab and newline; a carriage return before a
//!   newline is dropped, since a Windows line ending is only a line ending;
//! - the bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), the
//!   characters rustc's `text_direction_codepoint_in_literal` lint refuses in source;
//! - the Unicode tag characters (U+E0000–U+E007F): invisible to a person, yet a model reads them
//!   as letters, so they can carry instructions no one sees.
//!
//! Kept as they are: the left-to-right and right-to-left marks (U+200E, U+200F, U+061C), which
//! right-to-left text needs and which reorder nothing but the punctuation beside them; the
//! zero-width joiner and non-joiner, which emoji and several scripts need; variation selectors and
//! other invisible characters that change how a character looks, never what the text says.
//!
//! The escape is Rust's: `\u{1b}`, `\u{202e}`. It names the exact character (U+FFFD would lose
//! which one it was, and the control pictures cover only C0 and DEL), it is ASCII (every terminal
//! and font shows it), it stays short, and a person or a model reads it as an escape. Nothing
//! stored changes: `synapse read --raw` and `synapse export` give the exact bytes.

use std::borrow::Cow;

/// Whether `c` acts on a terminal or disguises text when shown raw: `visible` replaces it.
pub fn hidden(c: char) -> bool {
    match c {
        '\t' | '\n' => false,
        c if c.is_control() => true,
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => true,
        '\u{e0000}'..='\u{e007f}' => true,
        _ => false,
    }
}

/// `text` with every `hidden` character written as its escape (`\u{1b}`); a carriage return
/// right before a newline is dropped. Borrowed when there is nothing to replace: the common case
/// costs one pass over the bytes.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.bytes().any(may_start_hidden) {
        return Cow::Borrowed(text);
    }
    if !text.chars().any(hidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' && chars.peek() == Some(&'\n') {
            continue;
        }
        if hidden(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Whether a byte of UTF-8 may begin a `hidden` character: an ASCII control other than tab and
/// newline, or the first byte of the two-, three- and four-byte forms the hidden ranges use
/// (U+0080–U+009F: 0xC2; U+202A–U+2069: 0xE2; U+E0000–U+E007F: 0xF3).
fn may_start_hidden(b: u8) -> bool {
    (b < 0x20 && b != b'\t' && b != b'\n') || matches!(b, 0x7f | 0xc2 | 0xe2 | 0xf3)
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    #[rstest]
    #[case::escape_sequence("a\x1b[31mred\x1b[0m", r"a\u{1b}[31mred\u{1b}[0m")]
    #[case::window_title("\x1b]0;pwned\x07x", r"\u{1b}]0;pwned\u{7}x")]
    #[case::nul("a\0b", r"a\u{0}b")]
    #[case::lone_carriage_return("shown\rhidden", r"shown\u{d}hidden")]
    #[case::windows_line_ending("one\r\ntwo", "one\ntwo")]
    #[case::delete("a\x7fb", r"a\u{7f}b")]
    #[case::c1_csi("a\u{9b}31mb", r"a\u{9b}31mb")]
    #[case::bidi_override("user\u{202e}gpj.exe", r"user\u{202e}gpj.exe")]
    #[case::bidi_isolate("a\u{2066}b\u{2069}", r"a\u{2066}b\u{2069}")]
    #[case::tag_characters("ok\u{e0049}\u{e0067}", r"ok\u{e0049}\u{e0067}")]
    fn acting_characters_are_shown_as_escapes(#[case] raw: &str, #[case] shown: &str) {
        assert_eq!(visible(raw), shown);
    }

    #[rstest]
    #[case::plain("webhooks retry 5 times\n\tindented")]
    #[case::accents_and_emoji("Configuração ✓ 🚀 € ü")]
    #[case::right_to_left_marks("שלום\u{200f} (a) مرحبا\u{61c}")]
    #[case::joiners("👩\u{200d}💻 می\u{200c}خواهم")]
    #[case::other_characters_starting_like_hidden_ones("é ¡ – … ‰ \u{2070}")]
    fn readable_text_is_left_as_it_is(#[case] text: &str) {
        assert!(matches!(visible(text), Cow::Borrowed(t) if t == text));
    }

    #[test]
    fn showing_twice_changes_nothing_more() {
        let once = visible("\x1b[2J\u{202e}x\r").into_owned();
        assert_eq!(visible(&once), once);
        assert!(!once.chars().any(hidden));
    }
}
