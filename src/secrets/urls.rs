//! Credentials in URLs: `scheme://user:password@host` keeps the user and the host and masks
//! the password; `scheme://token@host` masks a user part that is itself a generated token. Also
//! Oracle's `user/password@host`, a URL-like login with no scheme (Go's MySQL DSN is a rule of
//! `catalogue/synapse.toml`).

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::strength::{names_itself, placeholder, score, KEYED, PASSWORD, STRICT};
use super::{ahead, at, before, behind, Span, MARKER};

/// A password where the place says it is one: anything but a reference, a template, a
/// placeholder or a value that names itself (`user:password@`, `admin:admin@`).
fn embedded(v: &str, user: &str) -> bool {
    !v.is_empty()
        && !v.contains(MARKER)
        && !v.starts_with(['$', '<', '{', '['])
        && !["${", "{{", "<%", "%s", "%("].iter().any(|t| v.contains(t))
        && !v.bytes().all(|c| matches!(c, b'*' | b'x' | b'X' | b'.'))
        && !placeholder(v.as_bytes())
        && !v.eq_ignore_ascii_case(user)
        && !names_itself(v)
}

/// The longest userinfo looked at.
const MAX_USERINFO: usize = 512;

/// Every password in a URL or a `user/password@host` login in `text`.
pub(super) fn scan(text: &str, spans: &mut Vec<Span>) {
    let b = text.as_bytes();
    for (k, _) in text.match_indices('/') {
        if at(b, k + 1) == b'/' && before(b, k) == b':' {
            at_scheme(text, k - 1, spans);
            continue;
        }
        // `user/password@host` (sqlplus and the like): the run before the slash is the user
        let s = k - behind(b, k, |c| c.is_ascii_alphanumeric() || b"_$#".contains(&c));
        if s < k && matches!(before(b, s), 0 | b' ' | b'\t' | b'\n' | b'"' | b'\'' | b':') {
            slash_login(text, s, k, spans);
        }
    }
}

/// The userinfo after a `://` at `k`.
fn at_scheme(text: &str, k: usize, spans: &mut Vec<Span>) {
    let b = text.as_bytes();
    {
        // a scheme before: a letter, then letters, digits, `+.-`
        if !before_is_scheme(b, k) {
            return;
        }
        let start = k + 3;
        let mut last_at = None;
        let mut first_colon = None;
        // a `?` or `#` after `user:` (not a port) may be part of a password written as is
        // (`https://jdoe:Tide?7@host`); it ends the authority unless an `@` follows
        let mut query: Option<usize> = None;
        let mut i = start;
        while i < b.len() && i - start < MAX_USERINFO {
            let c = at(b, i);
            if matches!(c, b'/' | b'"' | b'\'' | b'<' | b'>' | b'`' | b'\\')
                || c.is_ascii_whitespace()
            {
                break;
            }
            if matches!(c, b'?' | b'#') && query.is_none() {
                let in_password = first_colon.is_some_and(|colon| {
                    last_at.is_none()
                        && b.get(colon + 1..i)
                            .is_some_and(|p| !p.iter().all(u8::is_ascii_digit))
                });
                if !in_password {
                    break;
                }
                query = Some(i);
            }
            if c == b'@' {
                last_at = Some(i);
            } else if c == b':' && first_colon.is_none() && last_at.is_none() {
                first_colon = Some(i);
            }
            i += 1;
        }
        // no `@` after the `?`: the userinfo ended there
        if let Some(q) = query {
            if last_at.is_none_or(|a| a < q) {
                last_at = last_at.filter(|&a| a < q);
            }
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
                if embedded(pass, user) {
                    spans.push(Span::new(colon + 1, at_sign, "url credentials", 2));
                }
            }
            None => {
                let user = text.get(start..at_sign).unwrap_or_default();
                // (a generated token, or a long key of letters and digits: a Sentry DSN's)
                let key = user.len() >= 32
                    && user.bytes().all(|c| c.is_ascii_alphanumeric())
                    && score(user, false) >= KEYED;
                if (score(user, false) >= STRICT && user.len() >= 20) || key {
                    spans.push(Span::new(start, at_sign, "url credentials", 2));
                }
            }
        }
    }
}

/// How many bytes from `ps` (at most 129) are neither a space nor one of `stops`: a password
/// up to the `@` after it.
fn password_run(b: &[u8], ps: usize, stops: &[u8]) -> usize {
    let window = b.get(..ps + 129).unwrap_or(b);
    ahead(window, ps, |c| {
        !c.is_ascii_whitespace() && !stops.contains(&c)
    })
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

/// `user/password@host` at the run `s..e` followed by `/` (`sqlplus scott/pw@//db:1521/x`,
/// `rman target sys/pw@prod`): the password, if it looks like one (a path or a package
/// `actions/checkout@v4` does not).
fn slash_login(text: &str, s: usize, e: usize, spans: &mut Vec<Span>) {
    let b = text.as_bytes();
    let user = text.get(s..e).unwrap_or_default();
    if user.is_empty()
        || user.len() > 64
        || !user
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'#'))
    {
        return;
    }
    let ps = e + 1;
    let n = password_run(b, ps, b"/@\"'`");
    let at_sign = ps + n;
    let host = at(b, at_sign + 1);
    if n == 0
        || n > 128
        || at(b, at_sign) != b'@'
        || !(host.is_ascii_alphanumeric() || host == b'/')
    {
        return;
    }
    // `@//host` is Oracle's connect string: the place alone says a password came before it
    let connect = host == b'/' && at(b, at_sign + 2) == b'/';
    if let Some(pass) = text.get(ps..at_sign) {
        if score(pass, false) >= PASSWORD || (connect && embedded(pass, user)) {
            spans.push(Span::new(ps, at_sign, "password", 2));
        }
    }
}
