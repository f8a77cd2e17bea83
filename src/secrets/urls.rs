//! Credentials in URLs: `scheme://user:password@host` keeps the user and the host and masks
//! the password; `scheme://token@host` masks a user part that is itself a generated token.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::{at, value, Span};

/// The longest userinfo looked at.
const MAX_USERINFO: usize = 512;

/// The userinfo after a `://` at `k` (see [`super::walk`]).
pub(super) fn at_scheme(text: &str, k: usize, spans: &mut Vec<Span>) {
    let b = text.as_bytes();
    {
        // a scheme before: a letter, then letters, digits, `+.-`
        if !before_is_scheme(b, k) {
            return;
        }
        let start = k + 3;
        let mut last_at = None;
        let mut first_colon = None;
        let mut i = start;
        while i < b.len() && i - start < MAX_USERINFO {
            let c = at(b, i);
            if matches!(
                c,
                b'/' | b'?' | b'#' | b'"' | b'\'' | b'<' | b'>' | b'`' | b'\\'
            ) || c.is_ascii_whitespace()
            {
                break;
            }
            if c == b'@' {
                last_at = Some(i);
            } else if c == b':' && first_colon.is_none() && last_at.is_none() {
                first_colon = Some(i);
            }
            i += 1;
        }
        let Some(at_sign) = last_at else {
            return;
        };
        let host = at(b, at_sign + 1);
        if !(host.is_ascii_alphanumeric() || host == b'[') {
            return;
        }
        match first_colon.filter(|&c| c < at_sign) {
            Some(colon) => {
                let user = text.get(start..colon).unwrap_or_default();
                let pass = text.get(colon + 1..at_sign).unwrap_or_default();
                if value::embedded(pass, user) {
                    spans.push(Span::new(colon + 1, at_sign, "url credentials", 2));
                }
            }
            None => {
                let user = text.get(start..at_sign).unwrap_or_default();
                if value::strict(user) && user.len() >= 20 {
                    spans.push(Span::new(start, at_sign, "url credentials", 2));
                }
            }
        }
    }
}

fn before_is_scheme(b: &[u8], k: usize) -> bool {
    let mut i = k;
    let mut n = 0;
    while i > 0 && n < 32 {
        let c = at(b, i - 1);
        if !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-')) {
            break;
        }
        i -= 1;
        n += 1;
    }
    n >= 2 && at(b, i).is_ascii_alphabetic()
}
