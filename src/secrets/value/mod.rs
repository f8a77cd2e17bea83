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
//!
//! The parts, one concern each: [`exclusions`] (what is not a secret whatever the key says),
//! [`identifiers`] (names and code standing where a value would) and [`strength`] (character
//! classes, case, entropy). This file holds the tiers above, which put them together.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

mod exclusions;
mod identifiers;
mod strength;

pub(super) use exclusions::{excluded, placeholder, reference};
pub(super) use identifiers::{assignment_like, format_field, identifier_like};
pub(super) use strength::{entropy, random_lowercase, wordy};

use super::MARKER;
use exclusions::{name_word, names_itself, structured};
use strength::{switching, Classes};

/// A passphrase ([`passphrase`]) where the kind of what is announced is one that people make of
/// words: a password, a passphrase, a pre-shared key. (Not credentials: code names its fields
/// `credentials: git_cred_acquire_cb`.)
pub(super) fn passphrase_for(kind: &str, v: &str) -> bool {
    matches!(kind, "password" | "passphrase" | "pre-shared key")
        && (passphrase(v) || capitalized_words(v))
}

/// A password of words where the place says one is there: [`passphrase`],
/// [`capitalized_words`] or [`joined_words`] (`literal`: the place also says the value is no
/// name in code, as a command's argument or a credential file's field does).
pub(super) fn phrase_password(v: &str, literal: bool) -> bool {
    passphrase(v) || capitalized_words(v) || joined_words(v, literal)
}

/// `v` split at the first of `-`, `_` or `.` it holds, and that joiner.
fn joined(v: &str) -> Option<(char, Vec<&str>)> {
    let joiner = v.chars().find(|c| matches!(c, '-' | '_' | '.'))?;
    Some((joiner, v.split(joiner).collect()))
}

/// Two to five words joined by one kind of `-`, `_` or `.`, the last perhaps ending in a
/// number of one to four digits (`olive.rake55`, `saw-cliff84`, `lupine_caliper_moss18`), or
/// a number as the last part (`ciruela.tejon.77`): a password a person makes of words, where a
/// key, a flag or a sentence says a password is there. The words are lowercase or capitalized
/// (not `throwDeprecation`, `USERINFO_CHARS`). Without a number it must be `quoted` (a literal,
/// not a name in code: `password => 'otter_pine'`, not `password=db_pass`) and not dotted
/// (`self.pwd`, `headers.cookie` are paths in code). Not a name of code, a host, a file, a
/// remark or a stand-in (`config_file_path`, `db.internal.lan`, `your-password`).
pub(super) fn joined_words(v: &str, quoted: bool) -> bool {
    if v.len() < 8 || v.len() > 64 || placeholder(v.as_bytes()) || names_itself(v) {
        return false;
    }
    let Some((joiner, parts)) = joined(v) else {
        return false;
    };
    if !(2..=5).contains(&parts.len()) {
        return false;
    }
    let last = parts.len() - 1;
    let mut number = false;
    for (k, part) in parts.iter().enumerate() {
        let letters = part.bytes().take_while(u8::is_ascii_alphabetic).count();
        let digits = part.len() - letters;
        let digits_only = letters == 0 && (2..=4).contains(&digits);
        let word = leet(part)
            || (letters >= 3
                && (digits == 0
                    || (k == last
                        && digits <= 4
                        && part.bytes().skip(letters).all(|c| c.is_ascii_digit()))));
        if !(word || (k == last && k > 1 && digits_only)) {
            return false;
        }
        number |= digits > 0;
        let stem = part.get(..letters).unwrap_or(part);
        let cased = stem.bytes().skip(1).all(|c| c.is_ascii_lowercase());
        if !cased {
            return false;
        }
        let listed = |list: &[&str]| list.iter().any(|w| stem.eq_ignore_ascii_case(w));
        if name_word(stem) || listed(STOP_WORDS) || listed(CODE_WORDS) {
            return false;
        }
    }
    if joiner == '.' && DOTTED_ENDS.iter().any(|e| parts.get(last) == Some(e)) {
        return false;
    }
    number || (quoted && joiner != '.')
}

/// Two or three capitalized words of four letters or more joined by one `-`, `_` or `.`
/// (`Compass-Heron`, `Amber_Kettle_Fjord`): where a password is announced, a password a person
/// makes of words. Names of things joined so are rarely given as a password's value.
pub(super) fn capitalized_words(v: &str) -> bool {
    let Some((_, words)) = joined(v) else {
        return false;
    };
    (2..=3).contains(&words.len())
        && words.iter().all(|w| {
            w.chars().count() >= 4
                && w.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                && w.chars().skip(1).all(|c| c.is_ascii_lowercase())
        })
}

/// Values longer than this are not parsed as one credential (vendor tokens have their own rules).
pub(super) const MAX_VALUE: usize = 1024;

/// A value right after a key that names a secret: anything with some mix of letters,
/// digits and punctuation that is not excluded.
pub(super) fn keyed(v: &str) -> bool {
    if generated_blob(v) {
        return true;
    }
    // lowercase letters drawn at random are no word or name, which the exclusions look for
    if strength::random_lowercase(v) {
        return true;
    }
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

/// A long run of random characters of every class, symbols included (a Django `SECRET_KEY`,
/// a generated signing secret): after a key that names a secret it is one, whatever code its
/// symbols spell by chance (`ke(ay=2`). Code, references and prose have dots, quotes,
/// brackets, commas, `$` or spaces, and far fewer distinct characters for their length.
fn generated_blob(v: &str) -> bool {
    let b = v.as_bytes();
    b.len() >= 40
        && b.len() <= MAX_VALUE
        && b.iter().all(|c| c.is_ascii_graphic())
        && !b.iter().any(|c| {
            matches!(
                c,
                b'.' | b'"' | b'\'' | b'`' | b'[' | b']' | b'{' | b'}' | b',' | b'$' | b'<' | b'>'
            )
        })
        && !v.contains(MARKER)
        && strength::distinct(b) >= 24
        && entropy(b) >= 4.5
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

/// Words that make a snake_case value a name in code, not a passphrase.
#[rustfmt::skip]
const CODE_WORDS: &[&str] = &[
    "file", "path", "name", "dir", "var", "config", "conf", "url", "uri", "host", "port", "id",
    "value", "get", "load", "read", "field", "param", "arg", "default", "test", "mock", "dummy",
    "example", "sample", "secrets", "manager", "store", "ref", "mount", "volume", "data", "form",
    "request", "response", "input", "output", "result", "hash", "hashed", "salt", "string", "str",
    "bytes", "raw", "encoded", "decoded", "random", "generate", "generated", "header", "body",
    "payload", "old", "prev", "next", "tmp", "temp", "local", "remote", "cached", "fn", "func",
];

/// Last parts that make a dotted value a host name or a file name.
#[rustfmt::skip]
const DOTTED_ENDS: &[&str] = &[
    "com", "org", "net", "io", "dev", "app", "local", "internal", "corp", "lan", "cloud", "edu",
    "gov", "json", "yaml", "yml", "toml", "txt", "gz", "tar", "zip", "py", "rs", "js", "ts", "sh",
    "conf", "cfg", "ini", "log", "md", "html", "xml", "db", "sql", "pem", "key", "crt",
];

/// A passphrase of words with spaces (`velvet orbit 36 lantern`, `correct horse battery
/// staple`), dashes (`cinder-yarrow-lantern-krill-6`), dots (`velvet.orbit.lantern`) or
/// underscores (`amber_sloth_Kettle`): three to eight short words, at least
/// three of them of letters (or two of four letters or more and a number), none of them a word
/// of a remark ([`STOP_WORDS`]), and no template or placeholder. Only where quotes and a key
/// that names a password, or a sentence, say a value is there.
pub(super) fn passphrase(v: &str) -> bool {
    if v.len() < 12 || v.len() > 128 || v.contains(MARKER) || placeholder(v.as_bytes()) {
        return false;
    }
    if v.bytes()
        .any(|c| matches!(c, b'{' | b'}' | b'$' | b'<' | b'>' | b'%' | b'\\' | b'\t'))
    {
        return false;
    }
    // words joined by dashes (`cinder-yarrow-lantern-krill-6`) when there is no space, by dots
    // (`falcon.domino.yogurt`) when there is neither, else by underscores (`amber_sloth_Kettle`)
    let joiner = if v.contains(' ') {
        ' '
    } else if v.contains('-') || !v.contains(['.', '_']) {
        '-'
    } else if v.contains('.') {
        '.'
    } else {
        '_'
    };
    if joiner != ' ' && v.split(joiner).any(name_word) {
        return false;
    }
    // words joined by underscores are a passphrase only when none of them is a part of code's
    // names (`config_file_path`, `read_from_env` are references)
    if joiner == '_'
        && v.split('_')
            .any(|w| CODE_WORDS.iter().any(|c| w.eq_ignore_ascii_case(c)))
    {
        return false;
    }
    // a dotted name is a host, a file or a code path, not a passphrase (`db.internal.corp`,
    // `backup.tar.gz`, `settings.db.password`)
    if joiner == '.'
        && v.rsplit('.')
            .next()
            .is_some_and(|last| DOTTED_ENDS.contains(&last))
    {
        return false;
    }
    let mut words = 0;
    let mut letters = 0;
    for w in v.split(joiner).filter(|w| !w.is_empty()) {
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
        if n >= 3 && (w.chars().all(char::is_alphabetic) || leet(w)) {
            letters += 1;
        }
    }
    // (or two words of four letters or more and a number: `ciruela.tejon.77`)
    let number = v
        .split(joiner)
        .any(|w| (2..=4).contains(&w.len()) && w.bytes().all(|c| c.is_ascii_digit()));
    let long_words = v
        .split(joiner)
        .filter(|w| w.chars().count() >= 4 && w.chars().all(char::is_alphabetic))
        .count();
    ((3..=8).contains(&words) && letters >= 3) || (words == 3 && number && long_words == 2)
}

/// A word written in digits for some letters (`r0ck37`, `harv35t`, `v1p3r`): three letters or
/// more, and digits with a letter on each side. A number at a word's end (`node1`, `rack2`) is
/// a name's, not a letter's.
fn leet(w: &str) -> bool {
    let b = w.as_bytes();
    // (past the first run of letters come digits, then a letter)
    b.iter().all(u8::is_ascii_alphanumeric)
        && b.iter().filter(|c| c.is_ascii_alphabetic()).count() >= 3
        && b.first().is_some_and(u8::is_ascii_alphabetic)
        && b.iter()
            .skip_while(|c| c.is_ascii_alphabetic())
            .any(u8::is_ascii_alphabetic)
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

/// A long random key where a place says a key follows (`openssl enc -K <hex>`, `the Plaid
/// secret is <hex>`): 24 characters or more of letters and digits (and base64's `+/=_-`),
/// switching between them often, with a high entropy. A hex key counts here, unlike in
/// [`strict`], because the place vouches for it.
pub(super) fn random_key(v: &str) -> bool {
    v.len() >= 24
        && v.bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=' | b'_' | b'-'))
        && !excluded(v)
        && certain(v)
}

/// A [`random_key`] of 32 to 48 letters and digits: an API key's shape. Not what a bare `key`
/// also names: a cache key (`node-modules-<sha256>`, with separators), a short id, or a
/// commit's or a file's digest (40 or 64 hex digits).
pub(super) fn long_key(v: &str) -> bool {
    let hex_digest = matches!(v.len(), 40 | 64) && v.bytes().all(|c| c.is_ascii_hexdigit());
    (32..=48).contains(&v.len())
        && v.bytes().all(|c| c.is_ascii_alphanumeric())
        && !hex_digest
        && random_key(v)
}

/// A short weak password after a key that names a password (`hunter2`, `s3cr3t`, `trustno1`):
/// six or seven letters and digits, three letters or more and a digit, which [`keyed`] finds too
/// short for two kinds of character. Not a placeholder or a name ([`excluded`]).
pub(super) fn weak_password(v: &str) -> bool {
    let b = v.as_bytes();
    (6..8).contains(&b.len())
        && b.iter().all(u8::is_ascii_alphanumeric)
        && b.iter().filter(|c| c.is_ascii_alphabetic()).count() >= 3
        && b.iter().any(u8::is_ascii_digit)
        && !excluded(v)
}

/// A value where the sentence says a password follows (`password for the NAS: X`, `pw ... is
/// X`, `-p X`): it passes [`keyed`], is not [`structured`], and has a digit, and punctuation or
/// letters and digits switching often (not `TokenStore3`).
pub(super) fn password_like(v: &str) -> bool {
    if v.len() < 8 || !keyed(v) || structured(v) {
        return false;
    }
    let c = Classes::of(v);
    c.digit > 0 && (c.strong > 0 || switching(&c, v.as_bytes()) || short_mix(&c, v))
}

/// Both cases and digits in runs of at most three letters, the digits in two places or more
/// (`Qx7-pl2k`, `mR4t-9kzW`): a short password drawn at random. Names put whole words between
/// their digits (`S3Bucket2`, `TokenStore3`).
fn short_mix(c: &Classes, v: &str) -> bool {
    let b = v.as_bytes();
    let digit_runs = b
        .split(|x| !x.is_ascii_digit())
        .filter(|r| !r.is_empty())
        .count();
    c.upper > 0
        && c.lower > 0
        && digit_runs >= 2
        && b.split(|x| !x.is_ascii_alphabetic()).all(|r| r.len() <= 3)
}

/// A password a person makes of words and a number, where a flag or a sentence says a password
/// follows. It passes [`keyed`], is not [`structured`], has a capital, and is either two words of
/// three letters or more with a number of two digits or more, or of one when every word is
/// capitalized (`Russet.Lupine.260`, `inlet_Umber80_`, `Fern7430_willow`, `Birch-Comet-4`), or
/// one capitalized word of five letters or more, a number of two digits or more and at most two
/// symbols (`Marten42`, `Autumn2019!`). `Lab-5G` and `TokenStore3` are neither.
pub(super) fn word_password(v: &str) -> bool {
    if v.len() < 8 || !keyed(v) || structured(v) || Classes::of(v).upper == 0 {
        return false;
    }
    let words: Vec<&str> = v
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| w.chars().count() >= 3)
        .collect();
    let capitalized = words
        .iter()
        .all(|w| w.chars().next().is_some_and(char::is_uppercase));
    let digits = v.split(|c: char| !c.is_ascii_digit()).map(str::len).max();
    if words.len() >= 2 {
        return digits >= Some(2) || (digits == Some(1) && capitalized) || symbol_joined(v);
    }
    // one word: `Word` then digits then a few symbols, nothing else
    let b = v.as_bytes();
    let letters = b.iter().take_while(|c| c.is_ascii_alphabetic()).count();
    let number = b
        .iter()
        .skip(letters)
        .take_while(|c| c.is_ascii_digit())
        .count();
    let symbols = b.iter().skip(letters + number);
    capitalized
        && letters >= 5
        && b.iter()
            .skip(1)
            .take(letters - 1)
            .all(u8::is_ascii_lowercase)
        && number >= 2
        && symbols.len() <= 2
        && symbols.clone().all(u8::is_ascii_punctuation)
}

/// A human password that needs no word to announce it: capitals, small letters, digits and one
/// of the symbols password policies ask for (`!@#%^&*?~`), and [`strict`]. Prose seldom mixes all
/// four in one word, and passwords made to a policy always do. Code does, so its marks rule a word
/// out: brackets, quotes, separators of lists, paths, URLs and ranges (`.` `/` `:` `=`), `$` in
/// names (`write$UNIX2003`), a mention or a fragment (`@user`, `#section`), a format directive
/// or a percent escape (`%Y`, `%3F`); and base64's `+`, which a digest has.
pub(super) fn policy_password(v: &str) -> bool {
    let c = Classes::of(v);
    let b = v.as_bytes();
    // (ASCII only: in a script without spaces the word is the whole sentence)
    v.is_ascii()
        && c.upper > 0
        && c.lower > 0
        && c.digit > 0
        && v.contains(|ch| "!@#%^&*?~".contains(ch))
        && !v.contains(|ch| "{}[]()<>\"'`;,|\\$./:=+".contains(ch))
        && !matches!(b.first(), Some(b'@' | b'#' | b'%' | b'&' | b'*' | b'!'))
        && !b
            .windows(2)
            .any(|w| matches!(w, [b'%', c] if c.is_ascii_alphanumeric()))
        && strict(v)
}

/// A value glued to `-p` (`mysql -pX`): [`strict`], a [`word_password`], or [`keyed`] with a
/// capital and a digit in eight characters or more, since few options glue such a word to `-p`
/// (`-pHarborLight42`, not `-pthread` or `-p2222`).
pub(super) fn glued(v: &str) -> bool {
    let c = Classes::of(v);
    strict(v) || word_password(v) || (c.upper > 0 && c.digit > 0 && c.chars >= 8 && keyed(v))
}

/// Two capitalized words of four letters or more joined by one symbol, perhaps with one more at
/// the end (`Quill^Marble`, `Lantern&Fjord!`): a password a person makes without a number. Not
/// brackets or separators, which join names in code (`Option<String>`, `Foo::Bar`).
fn symbol_joined(v: &str) -> bool {
    let v = v.strip_suffix(|c: char| JOINERS.contains(c)).unwrap_or(v);
    let Some((first, second)) = v.split_once(|c: char| JOINERS.contains(c)) else {
        return false;
    };
    let word = |w: &str| {
        w.chars().count() >= 4
            && w.chars().next().is_some_and(char::is_uppercase)
            && w.chars().skip(1).all(char::is_lowercase)
    };
    word(first) && word(second)
}

/// The symbols [`symbol_joined`] accepts between two words.
const JOINERS: &str = "!@#%^&*+?~";

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

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    #[rstest]
    #[case::a_password("hunter2x!")]
    #[case::a_classic_passphrase("Tr0ub4dor&3")]
    #[case::mixed_letters_and_digits("k8Jd0a9sLq2Z")]
    #[case::hex("0f3a9c5e7b1d2468ace0")]
    #[case::a_uuid("8d7e2b1c-55aa-4f0e-9c3d-0a1b2c3d4e5f")]
    #[case::base64("QmFzZTY0VmFsdWU=")]
    #[case::letters_only_random("ZqXvBnMkLpWrTsYu")]
    #[case::a_password_with_a_tilde("ñu-2024x")]
    #[case::a_german_password("Grün&Blau-77")]
    fn after_a_key_this_is_a_secret(#[case] value: &str) {
        assert!(keyed(value), "{value}");
    }

    #[rstest]
    #[case::empty("")]
    #[case::changeme("changeme")]
    #[case::the_word_none("none")]
    #[case::the_word_true("true")]
    #[case::only_digits("12345678")]
    #[case::a_date("2025-01-31")]
    #[case::a_version("v1.2.3")]
    #[case::an_env_reference("$DB_PASS")]
    #[case::an_env_reference_in_braces("${API_KEY}")]
    #[case::a_template("{{ vault.key }}")]
    #[case::a_redaction("<redacted>")]
    #[case::the_marker("[secret]")]
    #[case::a_javascript_env_lookup("process.env.API_TOKEN")]
    #[case::a_placeholder("YOUR_TOKEN_HERE")]
    #[case::a_header_name("X-Api-Key")]
    #[case::a_python_env_lookup("os.getenv(\"TOKEN\")")]
    #[case::a_path("/etc/app/secret.txt")]
    #[case::a_file_name("id_ed25519.pub")]
    #[case::an_email_address("ops@example.org")]
    #[case::stars("********")]
    #[case::an_elision("abc...xyz")]
    #[case::a_short_digest("sha256:0f3a9c5e7b1d2468")]
    #[case::a_word_with_a_digit("oauth2")]
    fn after_a_key_this_is_no_secret(#[case] value: &str) {
        assert!(!keyed(value), "{value}");
    }

    #[rstest]
    #[case::a_password_with_words("Wq9!plover-Dart")]
    #[case::generated("Zk4mQ8rT2vX7nB1c")]
    #[case::a_password_with_symbols("sn0w&Ash#19")]
    #[case::a_cyrillic_password("Кот2023!Ыx")]
    fn without_a_key_this_is_a_secret(#[case] value: &str) {
        assert!(strict(value), "{value}");
    }

    #[rstest]
    #[case::hex("0f3a9c5e7b1d2468ace0")]
    #[case::a_uuid("8d7e2b1c-55aa-4f0e-9c3d-0a1b2c3d4e5f")]
    #[case::a_ulid("01HZX3K4M5N6P7Q8R9S0T1V2W3")]
    #[case::a_file_name("Notes2024.md")]
    #[case::an_image_digest("registry.io/team/app@sha256:0f3a")]
    #[case::a_version("v3.1.0-beta.2+exp.7")]
    #[case::an_identifier("getElementById")]
    #[case::an_integrity_hash("sha512-QmFzZTY0VmFsdWU+Zm9vYmFy==")]
    fn without_a_key_this_is_no_secret(#[case] value: &str) {
        assert!(!strict(value), "{value}");
    }
}
