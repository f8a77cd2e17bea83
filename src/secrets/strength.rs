//! Does a value look like a secret, and how surely? [`excluded`] rules out the look-alikes
//! (references, templates, code, URLs, paths, e-mail addresses, numbers, versions, digests,
//! file names, identifiers, placeholders); [`score`] then grades what is left by its make-up:
//! character classes, how often letters and digits switch, random-looking case, entropy. A place
//! asks for a grade ([`KEYED`] right after a key that names a secret, up to [`SURE`] for a value
//! that stands alone), so one score serves every reader.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::MARKER;

/// Values longer than this are not read as one credential.
pub(super) const MAX_VALUE: usize = 1024;

/// Grades of [`score`]: any non-trivial value, as after `password=`.
pub(super) const KEYED: u8 = 1;
/// A value shaped like a password (digits with symbols or mixing), as after `-p` or `key:`.
pub(super) const PASSWORD: u8 = 2;
/// A value that looks generated or like a human password, as a few words after "password".
pub(super) const STRICT: u8 = 3;
/// A value sure to be a password wherever it stands (all four classes, policy-style).
pub(super) const SURE: u8 = 4;

/// What a value is made of.
#[derive(Default)]
pub(super) struct Classes {
    pub chars: usize,
    pub lower: usize,
    pub upper: usize,
    /// Letters without case (CJK and the like).
    pub uncased: usize,
    pub digit: usize,
    /// Punctuation other than the separators `._-/:`.
    pub strong: usize,
    pub sep: usize,
    /// Adjacent letter/digit changes (`a1b2` has 3).
    pub alternations: usize,
}

impl Classes {
    pub fn of(v: &str) -> Classes {
        let mut c = Classes::default();
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
                1
            } else if ch.is_alphabetic() {
                c.uncased += 1;
                1
            } else {
                if matches!(ch, '.' | '_' | '-' | '/' | ':') {
                    c.sep += 1;
                } else {
                    c.strong += 1;
                }
                5
            };
            if (last == 1 && class == 3) || (last == 3 && class == 1) {
                c.alternations += 1;
            }
            last = class;
        }
        c
    }

    fn letters(&self) -> usize {
        self.lower + self.upper + self.uncased
    }

    fn kinds(&self) -> usize {
        usize::from(self.lower + self.uncased > 0)
            + usize::from(self.upper > 0)
            + usize::from(self.digit > 0)
            + usize::from(self.strong + self.sep > 0)
    }
}

/// Shannon entropy of the bytes of `v`, in bits per byte (gitleaks counts characters: the same
/// for the ASCII its rules match).
pub(super) fn entropy(v: &[u8]) -> f64 {
    let mut counts = [0u32; 256];
    for &b in v {
        if let Some(n) = counts.get_mut(usize::from(b)) {
            *n += 1;
        }
    }
    let total = v.len().max(1) as f64;
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
    v.iter()
        .filter(|&&b| {
            seen.get_mut(usize::from(b))
                .is_some_and(|s| !std::mem::replace(s, true))
        })
        .count()
}

fn consonant_run(run: &[u8]) -> usize {
    run.split(|c| b"aeiouyAEIOUY".contains(c))
        .map(<[u8]>::len)
        .max()
        .unwrap_or(0)
}

/// Letters that read like a word or CamelCase (`getElementById`, `GITHUB`), not drawn at
/// random (`hqUdCLKIxk`: two capitals after a small letter, or five consonants in a row).
pub(super) fn wordy(piece: &str) -> bool {
    // (an acronym ending a word is no random case: `parsedURL`)
    let b = piece
        .trim_end_matches(|c: char| c.is_ascii_uppercase())
        .as_bytes();
    if !b.iter().any(u8::is_ascii_lowercase) || !b.iter().any(u8::is_ascii_uppercase) {
        return true;
    }
    let camel = !b.windows(3).any(|w| {
        matches!(w, [a, b, c] if a.is_ascii_lowercase() && b.is_ascii_uppercase() && c.is_ascii_uppercase())
    });
    let consonants = b
        .split(|c| !c.is_ascii_alphabetic())
        .map(consonant_run)
        .max()
        .unwrap_or(0);
    camel && consonants <= 4
}

/// Letters and digits switching often, or a run of letters in random case.
fn switching(c: &Classes, b: &[u8]) -> bool {
    c.alternations >= 4
        || b.split(|x| !x.is_ascii_alphabetic())
            .any(|run| run.len() >= 3 && std::str::from_utf8(run).is_ok_and(|r| !wordy(r)))
}

/// Lowercase letters drawn at random (`hzmqtrvwk`): few vowels, a long run of consonants.
fn random_lowercase(b: &[u8]) -> bool {
    let vowels = b.iter().filter(|c| b"aeiouy".contains(c)).count();
    (8..=64).contains(&b.len())
        && b.iter().all(u8::is_ascii_lowercase)
        && distinct(b) >= 6
        && vowels * 5 <= b.len()
        && consonant_run(b) >= 5
}

/// Words (`.` `_` `-` `:` `/` between them) that read like words or CamelCase: a name in code.
pub(super) fn identifier_like(v: &str) -> bool {
    let mut any = false;
    for piece in v.split(['.', '_', '-', ':', '/']).filter(|p| !p.is_empty()) {
        if !piece.chars().all(char::is_alphabetic) || !wordy(piece) {
            return false;
        }
        any = true;
    }
    any
}

/// Lowercase names with a short number on one (`x86_64`, `node-2`), or CONSTANT_NAMES_2.
fn numbered_name(v: &str) -> bool {
    let pieces: Vec<&str> = v
        .split(['.', '_', '-', ':', '/'])
        .filter(|p| !p.is_empty())
        .collect();
    let numbered = |p: &&str, upper: bool| {
        let letters = p
            .bytes()
            .take_while(|c| {
                if upper {
                    c.is_ascii_uppercase()
                } else {
                    c.is_ascii_lowercase()
                }
            })
            .count();
        letters >= 1
            && p.len() - letters <= 3
            && p.bytes().skip(letters).all(|c| c.is_ascii_digit())
    };
    let pieces = match pieces.split_last() {
        Some((l, rest))
            if l.len() <= 3 && l.bytes().all(|c| c.is_ascii_digit()) && rest.len() >= 2 =>
        {
            rest.to_vec()
        }
        _ => pieces,
    };
    (pieces.len() >= 2 && pieces.iter().all(|p| numbered(p, false)))
        || (pieces.len() >= 3 && pieces.iter().all(|p| numbered(p, true)))
}

/// Words that say a value stands in for one (`xxxx`, `YOUR_KEY`, `changeme`).
pub(super) fn placeholder(b: &[u8]) -> bool {
    #[rustfmt::skip]
    const WORDS: &[&str] = &[
        "example", "sample", "dummy", "placeholder", "redacted", "changeme", "xxxx", "your",
    ];
    let has = |p: &&str| {
        b.windows(p.len())
            .any(|w| w.eq_ignore_ascii_case(p.as_bytes()))
    };
    WORDS.iter().any(has)
}

/// A value made only of words that name a secret or fill in for one (`db_password`,
/// `my-secret`, `secrettoken`).
pub(super) fn names_itself(v: &str) -> bool {
    #[rustfmt::skip]
    const NAMES: &[&str] = &[
        "password", "passwd", "pass", "secret", "token", "passphrase", "apikey", "key", "here",
    ];
    #[rustfmt::skip]
    const FILLERS: &[&str] = &[
        "your", "my", "the", "user", "db", "api", "access", "app", "some", "real", "new", "super",
    ];
    let is = |w: &str, list: &[&str]| list.iter().any(|n| w.eq_ignore_ascii_case(n));
    let words = || {
        v.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
    };
    let lower: String = v
        .chars()
        .filter(|c| !c.is_ascii_digit())
        .collect::<String>()
        .to_ascii_lowercase();
    words().any(|w| {
        ["password", "passwd", "secret", "token", "apikey"]
            .iter()
            .any(|n| w.eq_ignore_ascii_case(n))
    }) || (lower.bytes().all(|c| c.is_ascii_alphabetic())
        && ["password", "passwd", "secret", "token"]
            .iter()
            .any(|n| lower.contains(n))
        // (glued names and fillers only: `mysecretpassword`, not `hunter2SECRETxyz9`)
        && NAMES
            .iter()
            .chain(FILLERS)
            .fold(lower.clone(), |rest, n| rest.replace(n, ""))
            .is_empty())
        || (words().any(|w| is(w, NAMES)) && words().all(|w| is(w, NAMES) || is(w, FILLERS)))
}

/// `scheme:rest` naming where a secret is kept (`vault:secret/x`, `env:PASS`, `op://...`).
pub(super) fn reference(v: &str) -> bool {
    v.split_once(':').is_some_and(|(scheme, rest)| {
        (2..=16).contains(&scheme.len())
            && scheme.bytes().all(|c| c.is_ascii_lowercase() || c == b'-')
            && (rest.contains([':', '/']) || identifier_like(rest) || scheme == "env")
    })
}

fn file_name(v: &str) -> bool {
    v.bytes()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-'))
        && v.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.bytes().next().is_some_and(|c| c.is_ascii_lowercase())
                && ext
                    .bytes()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
                && ext.bytes().filter(u8::is_ascii_digit).count() <= 1
                && !ext
                    .trim_end_matches(|c: char| c.is_ascii_digit())
                    .contains(|c: char| c.is_ascii_digit())
        })
}

/// Numbers, dates, versions (`v1.2.3-rc1`), `host:port`, colours.
fn numeric(v: &str) -> bool {
    let body = v.strip_prefix(['v', 'V']).unwrap_or(v).as_bytes();
    let dots = body.iter().filter(|&&c| c == b'.').count();
    let version_head = body
        .iter()
        .take_while(|c| c.is_ascii_digit() || **c == b'.')
        .count();
    let number = body.first().is_some_and(u8::is_ascii_digit)
        && body
            .iter()
            .all(|c| c.is_ascii_digit() || b".,:-+_/".contains(c));
    let version = dots >= 2
        && body.first().is_some_and(u8::is_ascii_digit)
        && matches!(body.get(version_head), None | Some(b'-' | b'+'));
    let host_port = v.rsplit_once(':').is_some_and(|(h, p)| {
        !h.is_empty()
            && h.bytes()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-'))
            && h.bytes().any(|c| c.is_ascii_alphabetic())
            && !h.bytes().any(|c| c.is_ascii_uppercase())
            && (1..=5).contains(&p.len())
            && p.bytes().all(|c| c.is_ascii_digit())
    });
    let colour = v
        .strip_prefix('#')
        .is_some_and(|h| matches!(h.len(), 3 | 6 | 8) && h.bytes().all(|c| c.is_ascii_hexdigit()));
    number || version || host_port || colour
}

/// Not a secret whatever key stands before it.
pub(super) fn excluded(v: &str) -> bool {
    let b = v.as_bytes();
    let (Some(&first), Some(&last)) = (b.first(), b.last()) else {
        return true;
    };
    let second = b.get(1).copied().unwrap_or(0);
    if v.len() > MAX_VALUE
        || v.contains(MARKER)
        || b.iter()
            .any(|c| c.is_ascii_whitespace() || c.is_ascii_control())
        || (first == b'$' && (second.is_ascii_alphabetic() || matches!(second, b'_' | b'{' | b'(')))
        || (first == b'%' && last == b'%' && b.len() > 2)
        || matches!(first, b'<' | b'(' | b'[' | b'{' | b'-' | b'&')
    {
        return true;
    }
    #[rustfmt::skip]
    const CODE: &[&str] = &[
        "${", "{{", "{%", "%{", "%(", "<%", "#{", "...", "://", "::", "->", "=>", "??", "&&", "||",
        "\u{2026}",
    ];
    if CODE.iter().any(|t| v.contains(t)) {
        return true;
    }
    // a call or an index: f(x), ENV["X"], macro!(x)
    let ident = |c: &u8| c.is_ascii_alphanumeric() || *c == b'_';
    if b.windows(2)
        .any(|w| matches!(w, [p, b'(' | b'['] if ident(p)))
        || b.windows(3)
            .any(|w| matches!(w, [p, b'!', b'(' | b'[' | b'{'] if ident(p)))
    {
        return true;
    }
    // a path: /run/x, ~/x, ./x
    if matches!(first, b'/' | b'~' | b'.')
        && b.iter().filter(|&&c| c == b'/').count() >= 2
        && b.iter()
            .all(|&c| c.is_ascii_alphanumeric() || b"._-/~".contains(&c))
    {
        return true;
    }
    // an e-mail address, a digest (`sha256:...`), a public key type
    let email = v.rsplit_once('@').is_some_and(|(u, h)| {
        !u.is_empty()
            && h.contains('.')
            && h.bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'.' || c == b'-')
            && h.bytes().last().is_some_and(|c| c.is_ascii_alphabetic())
    });
    #[rustfmt::skip]
    const DIGESTS: &[&str] = &[
        "md5", "sha1", "sha256", "sha384", "sha512", "sha", "h1", "blake2b", "blake3",
    ];
    let name = b
        .iter()
        .position(|c| b":-=".contains(c))
        .and_then(|i| v.get(..i));
    let digest = name.is_some_and(|n| DIGESTS.iter().any(|d| n.eq_ignore_ascii_case(d)));
    // a name with a digest in it (`node-modules-<sha256>`)
    let parts = || v.split(['-', '_', '.', ':']);
    let named_digest = parts().any(|p| p.len() >= 16 && p.bytes().all(|c| c.is_ascii_hexdigit()))
        && parts()
            .filter(|p| p.len() >= 3 && p.bytes().all(|c| c.is_ascii_alphabetic()))
            .count()
            >= 2;
    if email || digest || named_digest || v.starts_with("ssh-") || v.starts_with("ecdsa-") {
        return true;
    }
    distinct(b) <= 3
        || file_name(v)
        || placeholder(b)
        || reference(v)
        || numeric(v)
        || identifier_like(v.trim_end_matches(['!', '?']))
        || numbered_name(v)
}

/// Shapes that mix letters, digits and symbols and still are no secret when nothing announces
/// one: hex ids and UUIDs, paths, `user@host`, `file.rs:12`, SSH key blobs, ticket ids.
fn structured(v: &str) -> bool {
    let b = v.as_bytes();
    let caps = b.iter().take_while(|c| c.is_ascii_uppercase()).count();
    b.iter().all(|&x| x.is_ascii_hexdigit() || x == b'-')
        || (b.contains(&b'/')
            && !b
                .iter()
                .all(|&x| x.is_ascii_alphanumeric() || b"+/=".contains(&x)))
        || v.rsplit_once('@')
            .is_some_and(|(_, h)| h.contains('.') && !h.starts_with('.'))
        || v.rsplit_once(['#', ':']).is_some_and(|(f, l)| {
            file_name(f)
                && l.bytes()
                    .all(|c| c.is_ascii_digit() || c == b'L' || c == b'-')
        })
        || ["AAAA", "xpub", "npub1"].iter().any(|p| v.starts_with(p))
        || (caps >= 2
            && b.get(caps) == Some(&b'-')
            && b.iter()
                .skip(caps)
                .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-'))
}

/// Words that make words joined a name, not a password (`api-key`, `file_path`), and endings
/// that make them a host or a file (`mail.corp.internal`).
const NAMES: &[&str] = &["key", "api", "auth", "file", "path", "name", "url", "host"];
#[rustfmt::skip]
const ENDINGS: &[&str] = &["com", "org", "net", "io", "local", "internal", "json", "yaml", "txt"];

/// Words joined by `-`, `_` or `.` with a number, or capitalized (`olive.rake55`,
/// `Compass-Heron`): a password a person makes of words, when something announces one.
fn made_of_words(v: &str, literal: bool) -> bool {
    let Some(joiner) = v.chars().find(|c| matches!(c, '-' | '_' | '.')) else {
        return false;
    };
    let parts: Vec<&str> = v.split(joiner).collect();
    // a word, perhaps with a number or written with digits for letters (`r0ck37`)
    let word = |p: &str| {
        p.bytes().next().is_some_and(|c| c.is_ascii_alphabetic())
            && p.bytes().filter(u8::is_ascii_alphabetic).count() >= 3
            && p.len() <= 20
            && p.bytes()
                .skip(1)
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
    };
    let digits = v.bytes().any(|c| c.is_ascii_digit());
    let last = parts.len() - 1;
    v.len() >= 8
        && (2..=5).contains(&parts.len())
        && parts.iter().enumerate().all(|(k, p)| {
            // (a number ends the last word only; before it, digits stand for letters)
            let leet = p
                .as_bytes()
                .windows(2)
                .any(|w| matches!(w, [a, b] if a.is_ascii_digit() && b.is_ascii_alphabetic()));
            let leet_or_last =
                k == last || leet || !p.bytes().last().is_some_and(|c| c.is_ascii_digit());
            (word(p) && leet_or_last)
                || (k == last
                    && k > 1
                    && (1..=4).contains(&p.len())
                    && p.bytes().all(|c| c.is_ascii_digit()))
        })
        && !parts
            .iter()
            .any(|p| NAMES.iter().any(|w| p.eq_ignore_ascii_case(w)))
        && (digits || literal || (parts.len() >= 3 && joiner != '_'))
        && !(file_name(v) && v.rsplit('.').next().is_some_and(|x| x.len() <= 4))
        && !placeholder(v.as_bytes())
        && !names_itself(v)
        && !v.rsplit('.').next().is_some_and(|t| ENDINGS.contains(&t))
}

/// A passphrase: three to eight words of letters with spaces (`biscuit breeze tango`).
fn passphrase(v: &str) -> bool {
    #[rustfmt::skip]
    const STOP: &[&str] = &[
        "the", "a", "an", "in", "on", "of", "to", "for", "see", "use", "set", "not", "is", "was",
        "same", "as", "it", "this", "that", "and", "or", "with", "by", "via", "our", "your",
        "vault", "env", "here",
    ];
    let words: Vec<&str> = v.split(' ').collect();
    (3..=8).contains(&words.len())
        && v.len() <= 128
        && words.iter().all(|w| {
            (1..=20).contains(&w.chars().count())
                && w.chars()
                    .all(|c| c.is_alphanumeric() || "-_.!?&#@*+=".contains(c))
                && !STOP.iter().any(|s| w.eq_ignore_ascii_case(s))
        })
        && words
            .iter()
            .filter(|w| w.len() >= 3 && w.chars().all(char::is_alphabetic))
            .count()
            >= 3
}

/// An API key's shape: a long random run of letters and digits (what a weak `key` announces;
/// after it, a run of 40 or 64 hex digits is a key, not a commit id or a digest).
pub(super) fn key_shape(v: &str) -> bool {
    v.len() >= 20
        && v.bytes().all(|c| c.is_ascii_alphanumeric())
        && v.bytes().any(|c| c.is_ascii_digit())
        && entropy(v.as_bytes()) >= 3.0
}

/// How surely `v` is a secret, by its make-up alone: 0 (not one) up to [`SURE`]. `literal`:
/// the place says the value is written out, not a name in code (quoted, a flag's argument).
pub(super) fn score(v: &str, literal: bool) -> u8 {
    let b = v.as_bytes();
    // (quick: a word)
    if b.len() < 6 || (b.iter().all(u8::is_ascii_alphabetic) && wordy(v) && !random_lowercase(b)) {
        return 0;
    }
    if b.len() > MAX_VALUE || v.contains(MARKER) || placeholder(b) || names_itself(v) {
        return 0;
    }
    let c = Classes::of(v);
    // a long run of random characters of every class (a generated signing secret)
    let blob = b.len() >= 40
        && !v.contains("://")
        && b.iter()
            .all(|c| c.is_ascii_graphic() && !b".\"'`[]{},$<>".contains(c))
        && distinct(b) >= 24
        && entropy(b) >= 4.5;
    if blob {
        return PASSWORD;
    }
    if v.contains(' ') {
        // (quoted after a key: words with a number, `"Lichen harbor 58"`)
        let phrase = literal
            && (2..=6).contains(&v.split(' ').count())
            && v.len() <= 64
            && v.bytes().any(|c| c.is_ascii_digit())
            && v.bytes()
                .all(|c| c.is_ascii_alphanumeric() || b" -_.!?".contains(&c));
        return if passphrase(v) || phrase { PASSWORD } else { 0 };
    }
    if literal && random_lowercase(b) {
        return PASSWORD;
    }
    if excluded(v) {
        return if made_of_words(v, literal) {
            PASSWORD
        } else {
            0
        };
    }
    let e = entropy(b);
    let kinds = c.kinds();
    let keyed = random_lowercase(b)
        || (c.chars >= 6
            && c.letters() + c.digit > 0
            && !b.iter().all(u8::is_ascii_digit)
            && !b.iter().all(u8::is_ascii_lowercase)
            && (kinds >= 3 || (kinds == 2 && (c.chars >= 8 || (literal && c.digit > 0))))
            && (c.chars < 8 || e >= 2.0));
    if !keyed {
        return 0;
    }
    let is_structured = structured(v);
    // a human password (letters, digits and symbols) or a generated one (mixed, switching)
    let human = c.digit > 0 && c.strong > 0 && c.letters() >= 3 && (c.upper > 0 || c.strong >= 2);
    let generated = c.lower > 0 && c.upper > 0 && c.digit > 0 && switching(&c, b);
    let letters = c.digit == 0 && c.chars >= 16 && !wordy(v) && e >= 3.5;
    let strict = c.chars >= 8 && !is_structured && (human || generated || letters) && e >= 2.5;
    if strict {
        let policy = v.is_ascii()
            && c.upper > 0
            && c.lower > 0
            && c.digit > 0
            && v.contains(|ch| "!@#%^&*?~".contains(ch))
            && !v.contains(|ch| "{}[]()<>\"'`;,|\\$./:=+".contains(ch))
            && !matches!(b.first(), Some(b'@' | b'#' | b'%' | b'&' | b'*' | b'!'));
        return if policy { SURE } else { STRICT };
    }
    // a long random key (hex, base64) switching between letters and digits
    // (no word among its parts: `node-modules-<hash>` is a name with a digest)
    let random_key = c.chars >= 24
        && !b.iter().all(u8::is_ascii_hexdigit)
        && c.alternations >= 4
        && e >= 3.0
        && (!is_structured || b.iter().all(u8::is_ascii_hexdigit))
        && !v
            .split(['-', '_', '.', ':'])
            .any(|p| p.len() >= 3 && p.bytes().all(|c| c.is_ascii_alphabetic()));
    // a capitalized word and a number (`Harbor2024`, `Autumn19!`)
    let letters = b.iter().take_while(|c| c.is_ascii_alphabetic()).count();
    let number = b
        .iter()
        .skip(letters)
        .take_while(|c| c.is_ascii_digit())
        .count();
    let word_number = letters >= 4
        && b.iter()
            .skip(1)
            .take(letters - 1)
            .all(u8::is_ascii_lowercase)
        && number >= 2
        && b.len() - letters - number <= 2;
    let short_mix = c.upper > 0
        && c.lower > 0
        && b.split(|x| !x.is_ascii_digit())
            .filter(|r| !r.is_empty())
            .count()
            >= 2
        && b.split(|x| !x.is_ascii_alphabetic()).all(|r| r.len() <= 3);
    let password = c.chars >= 8
        && (random_key
            || made_of_words(v, literal)
            || word_number
            || (!is_structured && c.digit > 0 && (c.strong > 0 || switching(&c, b) || short_mix)));
    if password {
        PASSWORD
    } else {
        KEYED
    }
}
