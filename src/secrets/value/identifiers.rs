//! Names standing where a value would: words and identifiers joined by separators
//! (`process.env.API_TOKEN`, `YOUR_KEY_HERE`), lowercase words with a short number on them
//! (`base64-encoded`, `x86_64`), constants (`SHA256_DIGEST_LEN`), members of an object
//! (`req.body.password`) and format-string fields (`{password!r}`). Each is code or a name, not
//! a secret, however its letters mix; the exclusions and the `key=` rules ask these.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::strength::wordy;

/// Words and identifiers joined by separators (`process.env.API_TOKEN`, `YOUR_KEY_HERE`,
/// `cosign.pub`, `none`, `Jane`): no digits, nothing that reads as random.
pub(in crate::secrets) fn identifier_like(v: &str) -> bool {
    let mut any = false;
    for piece in v.split(['.', '_', '-', ':', '/']) {
        if piece.is_empty() {
            continue;
        }
        if !piece.chars().all(char::is_alphabetic) || !wordy(piece) {
            return false;
        }
        any = true;
    }
    any
}

/// A lowercase word with a short number on it (`base64`, `utf8`, `x86`, `v2`, `sha256`).
fn numbered_word(piece: &str) -> bool {
    let letters = piece.bytes().take_while(u8::is_ascii_lowercase).count();
    let digits = piece.len() - letters;
    letters >= 1
        && (1..=3).contains(&digits)
        && piece.bytes().skip(letters).all(|c| c.is_ascii_digit())
}

/// Identifiers that carry numbered words (`base64-encoded`, `utf8_name`, `x86_64`): lowercase
/// pieces, some with a short number on them. A bare number or a capital among the pieces
/// (`maple-river-Stone-42`) reads as a passphrase instead.
pub(super) fn numbered_identifier(v: &str) -> bool {
    let mut numbered = false;
    let mut pieces = 0;
    for piece in v.split(['.', '_', '-', ':', '/']) {
        if piece.is_empty() {
            continue;
        }
        pieces += 1;
        if numbered_word(piece) {
            numbered = true;
        } else if !piece.bytes().all(|c| c.is_ascii_lowercase()) {
            return false;
        }
    }
    // (one piece alone, `admin123`, is as likely a weak password as a name)
    numbered && pieces >= 2
}

/// The inside of a format string's field (`password`, `password!r`, `0`, `key.name:>10`),
/// not a value in braces.
pub(in crate::secrets) fn format_field(inner: &str) -> bool {
    let n = inner
        .bytes()
        .take_while(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.'))
        .count();
    let (name, rest) = inner.split_at_checked(n).unwrap_or((inner, ""));
    let name_ok = name.bytes().all(|c| c.is_ascii_digit())
        || identifier_like(name)
        || numbered_identifier(name)
        || name.bytes().all(|c| c.is_ascii_lowercase() || c == b'_');
    let rest_ok = rest.is_empty()
        || rest.starts_with(':')
        || matches!(rest.get(..2), Some("!r" | "!s" | "!a"))
            && rest
                .get(2..)
                .is_some_and(|r| r.is_empty() || r.starts_with(':'));
    !name.is_empty() && name_ok && rest_ok
}

/// A member of an object in code (`parsedURL.username`, `req.body.password`): letters only,
/// joined by dots, the last one starting lowercase.
pub(super) fn member(v: &str) -> bool {
    let mut pieces = 0;
    let mut last = "";
    for piece in v.split('.') {
        if piece.is_empty() || !piece.bytes().all(|c| c.is_ascii_alphabetic() || c == b'_') {
            return false;
        }
        pieces += 1;
        last = piece;
    }
    pieces >= 2
        && last
            .bytes()
            .next()
            .is_some_and(|c| c.is_ascii_lowercase() || c == b'_')
}

/// A constant's name: capitals, some with a short number on them (`__X32_SYSCALL_BIT`,
/// `SHA256_DIGEST_LEN`, `HTTP2_MAX`), three pieces or more.
pub(super) fn screaming_identifier(v: &str) -> bool {
    let mut pieces = 0;
    for piece in v.split('_') {
        if piece.is_empty() {
            continue;
        }
        pieces += 1;
        let letters = piece.bytes().take_while(u8::is_ascii_uppercase).count();
        let digits = piece.len() - letters;
        if letters == 0 || digits > 3 || !piece.bytes().skip(letters).all(|c| c.is_ascii_digit()) {
            return false;
        }
    }
    pieces >= 3
}

/// `key=value`: a word before the `=` (`mode=fast`, `--from-literal=token`), not a password
/// with an `=` in it (`2823Amber=?`, `pXfIIvh=0RY`).
pub(in crate::secrets) fn assignment_like(word: &str) -> bool {
    word.trim_end_matches('=')
        .split_once('=')
        .is_some_and(|(key, _)| identifier_like(key.trim_start_matches('-')))
}
