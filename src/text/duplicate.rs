//! Duplicates: memories whose text is the same once case, whitespace and punctuation are folded.
//!
//! Word overlap never makes two memories duplicates: "retry 3 times" and "retry 5 times" share
//! every word but one, and that one is the point. Punctuation between two digits is kept, so
//! "1.5s" and "15s" stay different.

use super::fold;

/// The text two duplicates share: folded case and diacritics, letters and digits only, single
/// spaces, with a separator between digits kept as a dot.
pub fn key(text: &str) -> String {
    let folded = fold(text);
    let chars: Vec<char> = folded.chars().collect();
    let mut out = String::with_capacity(folded.len());
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

/// A 64-bit hash of `key(text)`, stored with each memory so its duplicates are one index lookup
/// away. FNV-1a: tiny, and stable across builds and platforms, unlike the standard hasher, so
/// the stored values stay valid.
pub fn hash(text: &str) -> i64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in key(text).bytes() {
        h ^= u64::from(byte);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h as i64
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
}
