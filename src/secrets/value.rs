//! Does a value look like a secret? First the shapes that are not one ([`excluded`]:
//! references, templates, code, URLs, paths, e-mail addresses, numbers, versions, digests,
//! colours, identifiers and plain words; placeholders such as `xxxx` or `EXAMPLE`), then
//! character classes, case and digit mixing, and entropy. A value is tested at the strength
//! its place asks for:
//!
//! - [`keyed`]: right after a key that names a secret (`PASSWORD=...`): any non-trivial value.
//! - [`password_like`]: where a sentence or a flag says a password follows (`pw is X`,
//!   `-p X`): a digit, and punctuation or letters and digits mixed.
//! - [`strict`]: with only a hint nearby (prose, a bare `key`): it must look generated (mixed
//!   case and digits, switching often) or like a human password (letters, digits, symbols).
//! - [`embedded`]: a URL's or a credential file's password: anything but a reference or a
//!   placeholder, since the place says what it is.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::{at, MARKER};

/// Values longer than this are not parsed as one credential (vendor tokens have their own rules).
pub(super) const MAX_VALUE: usize = 1024;

/// Digest algorithm names: `sha256:...`, `sha512-...` and `h1:...` are content hashes.
const DIGESTS: &[&str] = &[
    "md5", "sha", "sha1", "sha224", "sha256", "sha384", "sha512", "h1", "zh", "blake2b", "blake3",
    "crc32", "xxh64", "xxh3",
];

/// What a value is made of.
#[derive(Default, Debug)]
pub(super) struct Classes {
    pub chars: usize,
    pub lower: usize,
    pub upper: usize,
    /// Letters without case (CJK and the like).
    pub uncased: usize,
    pub digit: usize,
    /// Punctuation other than the separators `._-/:`: `!#$%&*+=?@^~` and the like.
    pub strong: usize,
    /// The separators `._-/:`.
    pub sep: usize,
    /// Adjacent letter/digit changes (`a1b2` has 3).
    pub alternations: usize,
}

impl Classes {
    pub fn of(v: &str) -> Classes {
        let mut c = Classes::default();
        // 0 none, 1 lower, 2 upper, 3 digit, 4 other letter, 5 punctuation
        let mut last = 0u8;
        for ch in v.chars() {
            c.chars += 1;
            let class = if ch.is_ascii_digit() {
                c.digit += 1;
                3
            } else if ch.is_lowercase() {
                c.lower += 1;
                1
            } else if ch.is_uppercase() {
                c.upper += 1;
                2
            } else if ch.is_alphabetic() {
                c.uncased += 1;
                4
            } else {
                if matches!(ch, '.' | '_' | '-' | '/' | ':') {
                    c.sep += 1;
                } else {
                    c.strong += 1;
                }
                5
            };
            let letter = |k: u8| matches!(k, 1 | 2 | 4);
            if (letter(last) && class == 3) || (last == 3 && letter(class)) {
                c.alternations += 1;
            }
            last = class;
        }
        c
    }

    fn letters(&self) -> usize {
        self.lower + self.upper + self.uncased
    }

    /// How many of lower, upper, digit and punctuation occur (uncased letters count as lower).
    fn kinds(&self) -> usize {
        usize::from(self.lower + self.uncased > 0)
            + usize::from(self.upper > 0)
            + usize::from(self.digit > 0)
            + usize::from(self.strong + self.sep > 0)
    }
}

/// Shannon entropy of the bytes of `v`, in bits per byte.
pub(super) fn entropy(v: &[u8]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &b in v {
        if let Some(n) = counts.get_mut(usize::from(b)) {
            *n += 1;
        }
    }
    let total = v.len() as f64;
    counts
        .iter()
        .filter(|&&n| n > 0)
        .map(|&n| {
            let p = f64::from(n) / total;
            -p * p.log2()
        })
        .sum()
}

fn distinct(v: &[u8]) -> usize {
    let mut seen = [false; 256];
    let mut n = 0;
    for &b in v {
        if let Some(s) = seen.get_mut(usize::from(b)) {
            if !*s {
                *s = true;
                n += 1;
            }
        }
    }
    n
}

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

/// A run of letters that reads like a word or an identifier (`getElementById`, `GITHUB`,
/// `PostgreSQL`), not like letters drawn at random (`QXwTRbnvKpLm`).
pub(super) fn wordy(piece: &str) -> bool {
    let c = Classes::of(piece);
    if c.upper == 0 || c.lower == 0 {
        return true;
    }
    // CamelCase, and no long run of consonants (`SecretString`, `getElementById`)
    let b = piece.as_bytes();
    let consonants = b
        .split(|c| !c.is_ascii_alphabetic() || b"aeiouyAEIOUY".contains(c))
        .map(<[u8]>::len)
        .max()
        .unwrap_or(0);
    camel_like(b) && consonants <= 4
}

/// Words and identifiers joined by separators (`process.env.API_TOKEN`, `YOUR_KEY_HERE`,
/// `cosign.pub`, `none`, `Jane`): no digits, nothing that reads as random.
pub(super) fn identifier_like(v: &str) -> bool {
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
fn numbered_identifier(v: &str) -> bool {
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
pub(super) fn format_field(inner: &str) -> bool {
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
fn member(v: &str) -> bool {
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
fn screaming_identifier(v: &str) -> bool {
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
pub(super) fn reference(v: &str) -> bool {
    let Some((scheme, rest)) = v.split_once(':') else {
        return false;
    };
    let scheme_ok = (2..=16).contains(&scheme.len())
        && scheme.bytes().all(|c| c.is_ascii_lowercase() || c == b'-');
    scheme_ok && (rest.contains(':') || rest.contains('/') || identifier_like(rest))
}

/// Key type names that start a public key line (`ssh-ed25519 AAAA...`).
fn key_type(v: &str) -> bool {
    ["ssh-", "ecdsa-", "sk-ssh-", "sk-ecdsa-"]
        .iter()
        .any(|p| v.starts_with(p))
}

/// A letter run that reads like CamelCase or a word (`TokenStore`, `getElementById`,
/// `HTTPServer`), not like letters drawn at random: random mixed case puts two capitals
/// together between lowercase letters (`hqUdCLKIxk`).
fn camel_like(run: &[u8]) -> bool {
    let lower = run.iter().any(u8::is_ascii_lowercase);
    let upper = run.iter().any(u8::is_ascii_uppercase);
    if !(lower && upper) {
        return true;
    }
    // two capitals together after a lowercase letter
    !run.windows(3).any(|w| {
        matches!(w, [a, b, c] if a.is_ascii_lowercase() && b.is_ascii_uppercase() && c.is_ascii_uppercase())
    })
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
pub(super) fn placeholder(b: &[u8]) -> bool {
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
pub(super) fn excluded(v: &str) -> bool {
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
    numeric(v) || version(v) || email(v) || digest(v) || identifier_like(v)
}

/// A value right after a key that names a secret: anything with some mix of letters,
/// digits and punctuation that is not excluded.
pub(super) fn keyed(v: &str) -> bool {
    // quick: too short, or one kind of character only (a word, a number)
    if v.len() < 6
        || v.bytes().all(|c| c.is_ascii_lowercase())
        || v.bytes().all(|c| c.is_ascii_digit())
        || excluded(v)
    {
        return false;
    }
    let c = Classes::of(v);
    if c.chars < 6 || c.letters() == 0 && c.digit == 0 {
        return false;
    }
    let kinds = c.kinds();
    let enough = kinds >= 3 || (kinds == 2 && c.chars >= 8);
    enough && (c.chars < 8 || entropy(v.as_bytes()) >= 2.0)
}

/// Words that make a value with spaces a remark, not a passphrase (`see the vault`, `set in
/// CI`, `same as staging`).
#[rustfmt::skip]
const STOP_WORDS: &[&str] = &[
    "the", "a", "an", "in", "on", "at", "of", "to", "for", "from", "see", "ask", "use", "set",
    "not", "is", "are", "was", "be", "same", "as", "one", "it", "this", "that", "and", "or", "with",
    "by", "via", "our", "your", "my", "no", "none", "todo", "tbd", "check", "stored", "saved",
    "kept", "vault", "env", "empty", "blank", "unset", "please", "here", "there", "if", "when",
];

/// A passphrase of words with spaces (`velvet orbit 36 lantern`, `correct horse battery
/// staple`): three to eight short words, at least three of them of letters, none of them a word
/// of a remark ([`STOP_WORDS`]), and no template or placeholder. Only where quotes and a key
/// that names a password say a value is there.
pub(super) fn passphrase(v: &str) -> bool {
    if v.len() < 12 || v.len() > 128 || v.contains(MARKER) || placeholder(v.as_bytes()) {
        return false;
    }
    if v.bytes()
        .any(|c| matches!(c, b'{' | b'}' | b'$' | b'<' | b'>' | b'%' | b'\\' | b'\t'))
    {
        return false;
    }
    let mut words = 0;
    let mut letters = 0;
    for w in v.split(' ').filter(|w| !w.is_empty()) {
        words += 1;
        let n = w.chars().count();
        if !(1..=20).contains(&n)
            || STOP_WORDS.iter().any(|s| w.eq_ignore_ascii_case(s))
            || !w
                .chars()
                .all(|c| c.is_alphanumeric() || "-_.!?&#@*+=".contains(c))
        {
            return false;
        }
        if n >= 3 && w.chars().all(char::is_alphabetic) {
            letters += 1;
        }
    }
    (3..=8).contains(&words) && letters >= 3
}

/// Shapes of things that are not secrets although they mix letters, digits and symbols: hex
/// ids, paths and package names with a `/` (base64 aside), e-mail-like `@` names, file names
/// (with a `#L88` or `:118` anchor), SSH key blobs, `ABC-...` ticket and advisory ids.
fn structured(v: &str) -> bool {
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
    if b.contains(&b'@') && b.contains(&b'.') {
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

/// A value with no key right before it: it must look generated (mixed case and digits,
/// switching often) or like a human password (letters, digits and punctuation).
pub(super) fn strict(v: &str) -> bool {
    // quick: too short, or short and without a digit (words), or without what a human
    // password (a symbol) or a generated one (mixed case) needs
    let digit = v.bytes().any(|c| c.is_ascii_digit());
    let upper = v.bytes().any(|c| c.is_ascii_uppercase());
    let symbol = v
        .bytes()
        .any(|c| !c.is_ascii_alphanumeric() && !matches!(c, b'.' | b'_' | b'-' | b'/' | b':'));
    if v.len() < 8 || (v.len() < 16 && !digit) || (v.is_ascii() && !upper && !symbol) {
        return false;
    }
    if excluded(v) || structured(v) {
        return false;
    }
    let c = Classes::of(v);
    if c.chars < 8 || c.chars > 256 || c.letters() == 0 {
        return false;
    }
    let b = v.as_bytes();
    // a human password: letters, digits and punctuation, with a capital or two symbols
    let human = c.digit > 0 && c.strong > 0 && c.letters() >= 3 && (c.upper > 0 || c.strong >= 2);
    // a generated one: mixed case and digits, switching often, not CamelCase words
    let generated = c.lower > 0 && c.upper > 0 && c.digit > 0 && switching(&c, b);
    let letters = c.digit == 0 && c.chars >= 16 && !wordy(v) && entropy(b) >= 3.5;
    (human || generated || letters) && entropy(b) >= 2.5
}

/// A value sure enough to be a secret wherever else it stands: it passes [`strict`], or it is
/// long, random and switches between letters and digits often (a hex or base64 key).
pub(super) fn certain(v: &str) -> bool {
    if strict(v) {
        return true;
    }
    let c = Classes::of(v);
    c.chars >= 16 && c.alternations >= 4 && entropy(v.as_bytes()) >= 3.0
}

/// Letters and digits switching often (not `S3Bucket2`, `EC2Instance3`), or letters in
/// random case.
fn switching(c: &Classes, b: &[u8]) -> bool {
    c.alternations >= 4 || random_case(b)
}

/// A value where the sentence says a password follows (`password for the NAS: X`, `pw ... is
/// X`, `-p X`): it passes [`keyed`], is not [`structured`], and has a digit, and punctuation or
/// letters and digits switching often (not `TokenStore3`).
pub(super) fn password_like(v: &str) -> bool {
    if v.len() < 8 || !keyed(v) || structured(v) {
        return false;
    }
    let c = Classes::of(v);
    c.digit > 0 && (c.strong > 0 || switching(&c, v.as_bytes()))
}

/// Some run of letters in `b` has random-looking case (see [`camel_like`]).
fn random_case(b: &[u8]) -> bool {
    b.split(|x| !x.is_ascii_alphabetic())
        .any(|run| run.len() >= 3 && !camel_like(run))
}

/// A password in a URL or a credential file, where the place says it is one: anything but a
/// reference, a template, a placeholder or a value that names itself (`user:password@`,
/// `admin:admin@`, `your-password`).
pub(super) fn embedded(v: &str, user: &str) -> bool {
    let b = v.as_bytes();
    let Some(&first) = b.first() else {
        return false;
    };
    if v.len() > MAX_VALUE || v.contains(MARKER) || matches!(first, b'$' | b'<' | b'{' | b'[') {
        return false;
    }
    if ["${", "{{", "<%", "%s", "%("].iter().any(|t| v.contains(t)) {
        return false;
    }
    if b.iter()
        .all(|&c| c == b'*' || c == b'x' || c == b'X' || c == b'.')
        || placeholder(b)
    {
        return false;
    }
    if v.eq_ignore_ascii_case(user) || names_itself(v) {
        return false;
    }
    true
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyed_values() {
        for yes in [
            "hunter2x!",
            "Tr0ub4dor&3",
            "k8Jd0a9sLq2Z",
            "0f3a9c5e7b1d2468ace0",
            "8d7e2b1c-55aa-4f0e-9c3d-0a1b2c3d4e5f",
            "QmFzZTY0VmFsdWU=",
            "ZqXvBnMkLpWrTsYu",
            "ñu-2024x",
            "Grün&Blau-77",
        ] {
            assert!(keyed(yes), "{yes}");
        }
        for no in [
            "",
            "changeme",
            "none",
            "true",
            "12345678",
            "2025-01-31",
            "v1.2.3",
            "$DB_PASS",
            "${API_KEY}",
            "{{ vault.key }}",
            "<redacted>",
            "[secret]",
            "process.env.API_TOKEN",
            "YOUR_TOKEN_HERE",
            "X-Api-Key",
            "os.getenv(\"TOKEN\")",
            "/etc/app/secret.txt",
            "id_ed25519.pub",
            "ops@example.org",
            "********",
            "abc...xyz",
            "sha256:0f3a9c5e7b1d2468",
            "oauth2",
        ] {
            assert!(!keyed(no), "{no}");
        }
    }

    #[test]
    fn strict_values() {
        for yes in [
            "Wq9!plover-Dart",
            "Zk4mQ8rT2vX7nB1c",
            "sn0w&Ash#19",
            "Кот2023!Ыx",
        ] {
            assert!(strict(yes), "{yes}");
        }
        for no in [
            "0f3a9c5e7b1d2468ace0",
            "8d7e2b1c-55aa-4f0e-9c3d-0a1b2c3d4e5f",
            "01HZX3K4M5N6P7Q8R9S0T1V2W3",
            "Notes2024.md",
            "registry.io/team/app@sha256:0f3a",
            "v3.1.0-beta.2+exp.7",
            "getElementById",
            "sha512-QmFzZTY0VmFsdWU+Zm9vYmFy==",
        ] {
            assert!(!strict(no), "{no}");
        }
    }
}
