//! What is not a secret, whatever the key before it says. [`excluded`]: empty, the marker,
//! references and templates (`$X`, `${X}`, `{{ x }}`, `vault:...`), code (`f(x)`, `a::b`),
//! URLs, paths, e-mail addresses, numbers, versions, digests, colours, `host:port`, file names,
//! public key lines, identifiers and placeholders (`xxxx`, `EXAMPLE`). [`structured`]: shapes
//! that mix letters, digits and symbols and still are no secret (hex ids, package paths, SSH key
//! blobs, ticket ids), for the tiers that accept a value without a key. [`names_itself`]: a
//! stand-in that says what belongs there (`your_password`). One place for every "no", so a
//! false positive is fixed here and nowhere else.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::identifiers::{identifier_like, member, numbered_identifier, screaming_identifier};
use super::strength::distinct;
use super::MAX_VALUE;
use crate::secrets::{at, MARKER};

/// Digest algorithm names: `sha256:...`, `sha512-...` and `h1:...` are content hashes.
const DIGESTS: &[&str] = &[
    "md5", "sha", "sha1", "sha224", "sha256", "sha384", "sha512", "h1", "zh", "blake2b", "blake3",
    "crc32", "xxh64", "xxh3",
];

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    let Some(&first) = needle.first() else {
        return true;
    };
    hay.iter()
        .enumerate()
        .filter(|&(_, &c)| c == first)
        .any(|(i, _)| hay.get(i..i + needle.len()) == Some(needle))
}

fn ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// `host:port` (`localhost:5432`, `db.internal:6379`).
fn host_port(v: &str) -> bool {
    v.rsplit_once(':').is_some_and(|(host, port)| {
        !host.is_empty()
            && host
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-'))
            && host.bytes().any(|c| c.is_ascii_alphabetic() || c == b'.')
            && (1..=5).contains(&port.len())
            && port.bytes().all(|c| c.is_ascii_digit())
    })
}

/// A CSS colour: `#` and 3, 4, 6 or 8 hex digits.
fn colour(v: &str) -> bool {
    v.strip_prefix('#').is_some_and(|h| {
        matches!(h.len(), 3 | 4 | 6 | 8) && h.bytes().all(|c| c.is_ascii_hexdigit())
    })
}

/// `scheme:rest` where the rest is a path or names (`vault:secret/data/db#password`,
/// `arn:aws:secretsmanager:...`, `op://vault/item/field`, `env:DB_PASSWORD`): a reference.
pub(in crate::secrets) fn reference(v: &str) -> bool {
    let Some((scheme, rest)) = v.split_once(':') else {
        return false;
    };
    let scheme_ok = (2..=16).contains(&scheme.len())
        && scheme.bytes().all(|c| c.is_ascii_lowercase() || c == b'-');
    // (`env:NAME` names an environment variable: openssl's `-passin env:P12_PASS`)
    let variable = scheme == "env" && rest.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_');
    scheme_ok && (rest.contains(':') || rest.contains('/') || identifier_like(rest) || variable)
}

/// Key type names that start a public key line (`ssh-ed25519 AAAA...`).
fn key_type(v: &str) -> bool {
    ["ssh-", "ecdsa-", "sk-ssh-", "sk-ecdsa-"]
        .iter()
        .any(|p| v.starts_with(p))
}

/// Only digits and the punctuation of dates, times, versions and numbers (`2024-01-01`,
/// `10:30`, `1.0.133`, `v2.14.0`, `+1-555-0100`).
fn numeric(v: &str) -> bool {
    let b = v.as_bytes();
    let body = match b.first() {
        Some(b'v' | b'V') => b.get(1..).unwrap_or_default(),
        _ => b,
    };
    body.first().is_some_and(u8::is_ascii_digit)
        && body.iter().all(|c| {
            c.is_ascii_digit() || matches!(c, b'.' | b',' | b':' | b'-' | b'+' | b'_' | b'/')
        })
}

/// A semantic version with pre-release or build parts (`3.1.0-beta.2+exp.7`).
fn version(v: &str) -> bool {
    let b = v.as_bytes();
    let body = match b.first() {
        Some(b'v' | b'V') => b.get(1..).unwrap_or_default(),
        _ => b,
    };
    // digits '.' digits '.' digits, then anything
    let mut dots = 0;
    let mut i = 0;
    let mut digits = 0;
    while let Some(&c) = body.get(i) {
        if c.is_ascii_digit() {
            digits += 1;
        } else if c == b'.' && digits > 0 {
            dots += 1;
            digits = 0;
        } else {
            break;
        }
        i += 1;
    }
    dots >= 2 && digits > 0 && matches!(body.get(i), None | Some(b'-' | b'+'))
}

fn email(v: &str) -> bool {
    let Some((user, host)) = v.rsplit_once('@') else {
        return false;
    };
    !user.is_empty()
        && host.contains('.')
        && host
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'.' || c == b'-')
        && host.bytes().last().is_some_and(|c| c.is_ascii_alphabetic())
}

/// Words that mark a stand-in (`AKIA...EXAMPLE`, `sk_test_your_key`, `xxxx`).
const PLACEHOLDERS: &[&str] = &[
    "example",
    "sample",
    "dummy",
    "placeholder",
    "redacted",
    "changeme",
    "xxxx",
    "your",
];

/// A value with a placeholder word in it.
pub(in crate::secrets) fn placeholder(b: &[u8]) -> bool {
    PLACEHOLDERS.iter().any(|p| {
        b.windows(p.len())
            .any(|w| w.eq_ignore_ascii_case(p.as_bytes()))
    })
}

fn digest(v: &str) -> bool {
    let b = v.as_bytes();
    let name = b
        .iter()
        .position(|c| matches!(c, b':' | b'-' | b'='))
        .and_then(|i| b.get(..i));
    name.is_some_and(|n| DIGESTS.iter().any(|d| n.eq_ignore_ascii_case(d.as_bytes())))
}

/// A filename (`key.pem`, `Release2024.md`): a stem and a short lowercase extension.
fn filename(v: &str) -> bool {
    if v.bytes()
        .any(|c| !(c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-')))
    {
        return false;
    }
    let Some((stem, ext)) = v.rsplit_once('.') else {
        return false;
    };
    !stem.is_empty()
        && (1..=5).contains(&ext.len())
        && ext
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && ext.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
}

/// Not a secret whatever the key says: empty, the marker, references (`$X`, `${X}`,
/// `{{ x }}`, `<%= x %>`, `%X%`), placeholders (`<token>`, `[redacted]`, `***`, `...`), code
/// (`f(x)`, `a::b`, `x ?? y`), URLs, paths, e-mail addresses, numbers, versions, digests,
/// identifiers and plain words.
pub(in crate::secrets) fn excluded(v: &str) -> bool {
    let b = v.as_bytes();
    let (Some(&first), Some(&last)) = (b.first(), b.last()) else {
        return true;
    };
    let second = b.get(1).copied().unwrap_or(0);
    if v.len() > MAX_VALUE || v.contains(MARKER) {
        return true;
    }
    if b.iter()
        .any(|c| c.is_ascii_whitespace() || c.is_ascii_control())
    {
        return true;
    }
    if first == b'$' && (second.is_ascii_alphabetic() || matches!(second, b'_' | b'{' | b'(')) {
        return true;
    }
    if first == b'%' && last == b'%' && b.len() > 2 {
        return true;
    }
    if matches!(first, b'<' | b'(' | b'[' | b'{' | b'-') {
        return true;
    }
    for t in [
        &b"${"[..],
        b"{{",
        b"{%",
        b"%{",
        b"%(",
        b"<%",
        b"#{",
        b"...",
        b"://",
        b"::",
        b"->",
        b"=>",
        b"??",
        b"&&",
        b"||",
        b"\xe2\x80\xa6", // an ellipsis
    ] {
        if contains(b, t) {
            return true;
        }
    }
    // an identifier called or indexed: f(x), ENV["X"]; a macro: Token![;], braced!(x)
    if b.windows(2)
        .any(|w| matches!(w, [p, b'(' | b'['] if ident_byte(*p)))
        || b.windows(3)
            .any(|w| matches!(w, [p, b'!', b'(' | b'[' | b'{'] if ident_byte(*p)))
    {
        return true;
    }
    // a reference to a type or a variable in code: &Token, &str, &'a
    if first == b'&'
        && b.get(1..)
            .unwrap_or_default()
            .iter()
            .all(|&c| ident_byte(c) || matches!(c, b'\'' | b':'))
    {
        return true;
    }
    // a path: /run/x, ~/x, ./x, ../x
    if (first == b'/' || first == b'~' || (first == b'.' && matches!(second, b'/' | b'.')))
        && b.iter().filter(|&&c| c == b'/').count() >= 2
        && b.iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-' | b'/' | b'~'))
    {
        return true;
    }
    if distinct(b) <= 3 || filename(v) || placeholder(b) || key_type(v) || reference(v) {
        return true;
    }
    // a dotted path with a TypeScript `!` (`process.env.KEY!`)
    if v.contains('.') && identifier_like(v.trim_end_matches(['!', '?'])) {
        return true;
    }
    if numbered_identifier(v) || screaming_identifier(v) || member(v) || host_port(v) || colour(v) {
        return true;
    }
    numeric(v)
        || version(v)
        || email(v)
        || digest(v)
        || identifier_like(v)
        || elided(v)
        || named_resource(v)
}

/// A lowercase name of three or more dashed parts, one of them a word of five letters or more
/// that names a secret (`orders-db-password-7f9c2`): a resource named after what it holds.
fn named_resource(v: &str) -> bool {
    let parts: Vec<&str> = v.split('-').collect();
    parts.len() >= 3
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.bytes()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
        && parts.iter().any(|p| p.len() >= 5 && name_word(p))
}

/// Words joined by an apostrophe (`dell'utente`, `l'équipe`, `don't`): an elision or a
/// contraction in prose, not a value.
fn elided(v: &str) -> bool {
    v.contains('\'')
        && v.split('\'')
            .all(|w| !w.is_empty() && w.chars().all(char::is_alphabetic))
}

/// Shapes of things that are not secrets although they mix letters, digits and symbols: hex
/// ids, paths and package names with a `/` (base64 aside), e-mail-like `@` names, file names
/// (with a `#L88` or `:118` anchor), SSH key blobs, `ABC-...` ticket and advisory ids.
pub(super) fn structured(v: &str) -> bool {
    let b = v.as_bytes();
    // hex digits and dashes: hashes, ids, UUIDs
    if b.iter().all(|&x| x.is_ascii_hexdigit() || x == b'-') {
        return true;
    }
    // a '/' only inside base64
    if b.contains(&b'/')
        && !b
            .iter()
            .all(|&x| x.is_ascii_alphanumeric() || matches!(x, b'+' | b'/' | b'='))
    {
        return true;
    }
    // an e-mail address or a `user@host.name`: a domain after the `@`
    let domain = |d: &str| {
        d.contains('.')
            && !d.starts_with('.')
            && d.bytes()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b'_'))
    };
    if v.rsplit_once('@').is_some_and(|(_, host)| domain(host)) {
        return true;
    }
    // a file name with a line anchor: `Store.kt#L88`, `token.rs:118`
    let file = v
        .rsplit_once("#L")
        .or_else(|| v.rsplit_once(':'))
        .filter(|(_, line)| {
            !line.is_empty()
                && line
                    .bytes()
                    .all(|c| c.is_ascii_digit() || c == b'-' || c == b'L')
        })
        .map_or(v, |(name, _)| name);
    if filename(file) {
        return true;
    }
    // public key material: an SSH key blob (its wire format starts with a zero length byte,
    // `AAAA`), BIP32 extended public keys, Nostr public keys
    if ["AAAA", "xpub", "ypub", "zpub", "tpub", "npub1"]
        .iter()
        .any(|p| v.starts_with(p))
    {
        return true;
    }
    // a ticket or advisory id: capitals, a dash, then lowercase letters, digits and dashes
    let caps = b.iter().take_while(|c| c.is_ascii_uppercase()).count();
    caps >= 2
        && at(b, caps) == b'-'
        && b.get(caps..)
            .unwrap_or_default()
            .iter()
            .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
}

/// What a stand-in password calls itself.
const NAMES: &[&str] = &[
    "password",
    "passwd",
    "pass",
    "secret",
    "token",
    "passphrase",
    "apikey",
    "key",
    "changeme",
    "redacted",
    "example",
    "here",
    "placeholder",
];

/// Words that may go with a name in a stand-in (`your_password`, `db-pass`).
const FILLERS: &[&str] = &[
    "your", "my", "the", "user", "db", "api", "access", "app", "some", "real", "insert", "enter",
    "super", "new",
];

/// A word that names a secret rather than being one (`password`, `token`, `key`).
pub(super) fn name_word(w: &str) -> bool {
    NAMES.iter().any(|n| w.eq_ignore_ascii_case(n))
}

/// A placeholder that says what belongs there: `password`, `your_password`, `API-TOKEN`,
/// `changeme`, or letters only with such a name run in (`mysecretpassword`, `SuperSecret`).
pub(super) fn names_itself(v: &str) -> bool {
    let b = v.as_bytes();
    let letters_only = b.iter().all(u8::is_ascii_alphabetic);
    let has_name = |w: &[u8]| {
        NAMES.iter().filter(|n| n.len() >= 4).any(|n| {
            w.windows(n.len())
                .any(|x| x.eq_ignore_ascii_case(n.as_bytes()))
        })
    };
    if letters_only && has_name(b) {
        return true;
    }
    let is = |w: &str, list: &[&str]| list.iter().any(|n| w.eq_ignore_ascii_case(n));
    let words = || v.split(['_', '-', '.', ' ']).filter(|w| !w.is_empty());
    let named = words().any(|w| is(w, NAMES)) && words().all(|w| is(w, NAMES) || is(w, FILLERS));
    named
        || (v.len() >= 4
            && v.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("your"))
            && identifier_like(v))
}
