//! Duplicates: memories whose text is the same once case, whitespace and punctuation are folded.
//!
//! Word overlap never makes two memories duplicates: "retry 3 times" and "retry 5 times" share
//! every word but one, and that one is the point. Punctuation between two digits is kept, so
//! "1.5s" and "15s" stay different.

use super::fold;

/// The text two duplicates share: folded case and diacritics, letters and digits only, single
/// spaces, with a separator between digits kept as a dot.
pub fn key(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    each_key_char(text, |c| out.push(c));
    out
}

/// A 64-bit hash of `key(text)`, stored with each memory so its duplicates are one index lookup
/// away. FNV-1a: tiny, and stable across builds and platforms, unlike the standard hasher, so
/// the stored values stay valid. It hashes the key as it is made, without keeping it: every
/// memory stored is hashed once.
pub fn hash(text: &str) -> i64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut utf8 = [0u8; 4];
    let mut add = |byte: u8| {
        h ^= u64::from(byte);
        h = h.wrapping_mul(0x0100_0000_01b3);
    };
    each_key_char(text, |c| match u8::try_from(c) {
        Ok(byte) if byte.is_ascii() => add(byte),
        _ => c.encode_utf8(&mut utf8).bytes().for_each(&mut add),
    });
    h as i64
}

/// Hand each character of `key(text)` to `push`, in order.
fn each_key_char(text: &str, push: impl FnMut(char)) {
    if text.is_ascii() {
        // Folding ASCII is lowercasing: no copy of the text is needed.
        key_chars(
            text.bytes().map(|b| char::from(b.to_ascii_lowercase())),
            push,
        );
    } else {
        key_chars(fold(text).chars(), push);
    }
}

/// The key of already-folded characters.
fn key_chars(folded: impl Iterator<Item = char>, mut push: impl FnMut(char)) {
    let mut chars = folded.peekable();
    let (mut before, mut gap, mut empty) = (None::<char>, false, true);
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() {
            if gap && !empty {
                push(' ');
            }
            gap = false;
            empty = false;
            push(c);
        } else if !c.is_whitespace()
            && before.is_some_and(|b| b.is_ascii_digit())
            && chars.peek().is_some_and(|n| n.is_ascii_digit())
        {
            empty = false;
            push('.');
        } else {
            gap = true;
        }
        before = Some(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_case_space_and_punctuation() {
        assert_eq!(key("Use pnpm, not npm."), key("use  pnpm not npm"));
        assert_eq!(key("Café — ok!"), key("cafe ok"));
        assert_eq!(key("a,b"), key("a b"));
        assert_ne!(key("timeout 1.5s"), key("timeout 15s"));
        assert_ne!(key("retry 3 times"), key("retry 5 times"));
        assert_eq!(hash("Use pnpm, not npm."), hash("use pnpm not npm"));
        assert_ne!(hash("retry 3 times"), hash("retry 5 times"));
    }

    /// The key as first written (it collected the folded text's characters first); the stored
    /// hashes of every store were made by it, so the streaming form must agree on any text.
    fn key_as_first_written(text: &str) -> String {
        let chars: Vec<char> = fold(text).chars().collect();
        let mut out = String::new();
        let mut gap = false;
        for (i, &c) in chars.iter().enumerate() {
            if c.is_alphanumeric() {
                if gap && !out.is_empty() {
                    out.push(' ');
                }
                gap = false;
                out.push(c);
            } else if i > 0
                && !c.is_whitespace()
                && chars[i - 1].is_ascii_digit()
                && chars.get(i + 1).is_some_and(|n| n.is_ascii_digit())
            {
                out.push('.');
            } else {
                gap = true;
            }
        }
        out
    }

    fn fnv(text: &str) -> i64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for byte in text.bytes() {
            h ^= u64::from(byte);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h as i64
    }

    proptest::proptest! {
        #[test]
        fn the_streamed_key_and_hash_match_the_first_form(text in "[ -~éÉ漢字1-9.,:\\- ]{0,40}") {
            proptest::prop_assert_eq!(key(&text), key_as_first_written(&text));
            proptest::prop_assert_eq!(hash(&text), fnv(&key_as_first_written(&text)));
        }
    }
}
