//! Key names that say a secret follows: a table of key words (password, secret, token,
//! api_key, auth, credential, ...), endings (`keystorepass`), tails (`secret_key_base`) and
//! qualifiers (`API key`, not `public_key` or `page_token`).
//!
//! A key is a run of `A-Za-z0-9_.-`, split into words at `_.-` and case changes
//! (`SENTRY_AUTH_TOKEN`, `clientSecret`, `--api-key`). It names a secret when its last key word
//! (from [`KEY_WORDS`] or ending in one of [`SUFFIXES`]) is followed only by [`TAILS`], and the
//! word before it is not in [`NOT_SECRET`]. To teach it a new key word, add one line to
//! [`KEY_WORDS`].

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::{at, class, WordFilter, LOWER_OR_DIGIT, UPPER_OR_DIGIT};

/// How a value after a key word is judged.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Test {
    /// [`value::keyed`](super::value::keyed).
    Keyed,
    /// [`value::strict`](super::value::strict): the key word alone says little (a bare `key`,
    /// a glued `-p`).
    Strict,
    /// Base64 that passes [`value::keyed`](super::value::keyed) (`Authorization: Basic ...`).
    Base64,
    /// [`value::password_like`](super::value::password_like): the flag says a password
    /// follows, but is used for other things too (`-p 8080`, `mkdir -p dir`).
    Password,
    /// [`value::password_like`](super::value::password_like), or a long random key
    /// ([`value::random_key`](super::value::random_key)): an encryption key or its passphrase
    /// (`openssl enc -k pw`, `-K <hex key>`, `ccrypt -K pw`).
    Key,
    /// `user:password`: the part after the colon, which must be there.
    UserPass,
    /// `user:password` if there is a colon, else the whole value (`redis-cli -a`, `auth:`).
    MaybeUserPass,
    /// A flag that gives a password only to the commands that say so (`snmpwalk -X pw`; see
    /// `PASSWORD_FLAGS`): then [`value::keyed`](super::value::keyed) or a passphrase.
    Command,
    /// The key says the value comes on standard input (`--password-stdin`): the value echoed
    /// into the pipe or given as a here-string on the same line.
    Stdin,
    /// The key says the value is in a file (`--password-file`): only a process substitution
    /// gives it on the line (`--password-file <(echo pw)`).
    File,
}

/// Where a key word counts.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Form {
    /// As a key anywhere, and also as `word value` with only a space between (prose, `.netrc`).
    Prose,
    /// As a key with `=` or `:` (and after `--` as a flag).
    Key,
    /// Only as a command-line flag (`-u`, `--user`).
    Flag,
}

#[derive(Clone, Copy, Debug)]
struct KeyWord {
    word: &'static str,
    kind: &'static str,
    form: Form,
    test: Test,
}

const fn kw(word: &'static str, kind: &'static str, form: Form, test: Test) -> KeyWord {
    KeyWord {
        word,
        kind,
        form,
        test,
    }
}

/// Words that, as the last word of a key, name a secret.
const KEY_WORDS: &[KeyWord] = &[
    kw("password", "password", Form::Prose, Test::Keyed),
    kw("passwd", "password", Form::Prose, Test::Keyed),
    kw("passphrase", "passphrase", Form::Prose, Test::Keyed),
    kw("passcode", "password", Form::Prose, Test::Keyed),
    kw("pass", "password", Form::Key, Test::Keyed),
    // the word for password as a key in other languages (`contrasena: X`, `Kennwort=X`)
    kw("passwort", "password", Form::Key, Test::Keyed),
    kw("kennwort", "password", Form::Key, Test::Keyed),
    kw("contrasena", "password", Form::Key, Test::Keyed),
    kw("senha", "password", Form::Key, Test::Keyed),
    kw("wachtwoord", "password", Form::Key, Test::Keyed),
    kw("haslo", "password", Form::Key, Test::Keyed),
    kw("heslo", "password", Form::Key, Test::Keyed),
    kw("salasana", "password", Form::Key, Test::Keyed),
    kw("losenord", "password", Form::Key, Test::Keyed),
    kw("motdepasse", "password", Form::Key, Test::Keyed),
    kw("pwd", "password", Form::Key, Test::Keyed),
    kw("pw", "password", Form::Key, Test::Keyed),
    kw("secret", "secret", Form::Prose, Test::Keyed),
    kw("token", "token", Form::Prose, Test::Keyed),
    kw("apikey", "api key", Form::Prose, Test::Keyed),
    // `key` alone says little; with a qualifier before it (`api_key`, `API key`) it is a key
    // word like the others (see `named`)
    kw("key", "api key", Form::Key, Test::Strict),
    kw("auth", "credentials", Form::Key, Test::MaybeUserPass),
    kw("authorization", "credentials", Form::Key, Test::Keyed),
    kw("credential", "credentials", Form::Key, Test::MaybeUserPass),
    kw("credentials", "credentials", Form::Key, Test::MaybeUserPass),
    kw("creds", "credentials", Form::Key, Test::MaybeUserPass),
    kw("bearer", "bearer token", Form::Prose, Test::Keyed),
    kw("basic", "basic auth", Form::Prose, Test::Base64),
    // a signed URL's signature (Azure SAS `sig=`)
    kw("sig", "signature", Form::Key, Test::Keyed),
    // a pre-shared key (`psk="..."` in wpa_supplicant.conf, `wpa_psk=`)
    kw("psk", "pre-shared key", Form::Key, Test::Keyed),
    // OpenWeatherMap's `appid=` is its API key (an app's id elsewhere is short or a UUID, which
    // the strict test and the key shape leave alone)
    kw("appid", "api key", Form::Key, Test::Strict),
    // command-line flags: `curl -u user:pw`, `redis-cli -a pw`, `openssl -passin pass:pw`
    kw("u", "password", Form::Flag, Test::UserPass),
    kw("user", "password", Form::Flag, Test::UserPass),
    kw("a", "password", Form::Flag, Test::MaybeUserPass),
    // `sshpass -p pw`, `zip -P pw` (a port or a path after `-p` fails the strict test)
    kw("p", "password", Form::Flag, Test::Password),
    // `ldapsearch -w pw` (a width or a word after `-w` fails the password test)
    kw("w", "password", Form::Flag, Test::Password),
    // `openssl enc -k pw` and `-K <hex>`, `ccrypt -K pw` (`curl -k URL`, `sort -k 2` fail the test)
    kw("k", "encryption key", Form::Flag, Test::Key),
    // `doctl auth init -t <token>` (`docker build -t app:1.2`, `sort -t ,` fail the strict test)
    kw("t", "token", Form::Flag, Test::Strict),
    // `snmpwalk -X pw` (SNMPv3's privacy passphrase), `ssh-keygen -N pw` (a new passphrase)
    kw("x", "password", Form::Flag, Test::Command),
    kw("n", "password", Form::Flag, Test::Command),
    kw("passin", "password", Form::Flag, Test::Keyed),
    kw("passout", "password", Form::Flag, Test::Keyed),
];

/// Endings that make a last word a key word (`keystorepass`, `PGPASSWORD`, `authToken`).
const SUFFIXES: &[(&str, &str)] = &[
    ("password", "password"),
    ("passwd", "password"),
    ("pass", "password"),
    ("pwd", "password"),
    // `rootpw` (slapd.conf, kickstart), `bindpw`
    ("pw", "password"),
    ("secret", "secret"),
    ("token", "token"),
    ("apikey", "api key"),
    // `masterauth`, `requireauth` (Redis, HAProxy); `oauth` alone is a protocol's name
    ("auth", "credentials"),
];

/// Words that may follow the key word and keep it a secret (`secret_key_base`, `token_value`).
#[rustfmt::skip]
const TAILS: &[&str] = &[
    "base", "value", "val", "b64", "base64", "hex", "raw", "plain", "plaintext", "str", "string",
    "text", "bytes", "enc", "encoded",
];

/// Words that end in `pass` and name no password (`bypass`, `compass`, a render pass).
#[rustfmt::skip]
const NOT_PASS: &[&str] = &[
    "bypass", "buypass", "compass", "overpass", "underpass", "surpass", "trespass", "encompass",
    "multipass", "renderpass", "subpass", "getpass",
];

/// Words after the key word that say where the value comes from instead: piped in
/// (`--password-stdin`), or read from a file, which may be a process substitution
/// (`--password-file <(echo pw)`).
const ENDS: &[(&str, Test)] = &[("stdin", Test::Stdin), ("file", Test::File)];

/// Words between a key word and its ending (`--passwd-on-stdin`, `--password-from-file`).
const LEADS: &[&str] = &["on", "from"];

/// The test an ending of [`ENDS`] gives a key, if `word` is one.
fn end(word: &[u8]) -> Option<Test> {
    ENDS.iter()
        .find(|(w, _)| word.eq_ignore_ascii_case(w.as_bytes()))
        .map(|&(_, t)| t)
}

/// Words before the key word that make it something else: public halves, lookups, paging,
/// tokenizers and counts.
#[rustfmt::skip]
pub(super) const NOT_SECRET: &[&str] = &[
    "public", "publishable", "pub", "cache", "foreign", "sort", "partition", "idempotency",
    "object", "hash", "routing", "lookup", "group", "row", "range", "index", "unique", "composite",
    "dedup", "dedupe", "map", "dict", "host", "site", "known", "page", "next", "prev", "previous",
    "continuation", "cancellation", "cancel", "sync", "resume", "cursor", "pagination", "eos",
    "bos", "pad", "unk", "sep", "cls", "mask", "special", "start", "end", "stop", "max", "min",
    "input", "output", "prompt", "completion", "total", "count", "num",
];

/// Words before `key` that make it a credential (`API key`, `account_key`, `SECRET_KEY`).
#[rustfmt::skip]
pub(super) const KEY_QUALIFIERS: &[&str] = &[
    "api", "secret", "private", "access", "signing", "sign", "license", "licence", "master",
    "admin", "app", "client", "service", "account", "auth", "encryption", "encrypt", "hmac", "jwt",
    "session", "shared", "consumer", "storage", "write", "deploy", "root", "aes", "cipher",
    "webhook", "server", "subscription", "integration", "ingest", "management", "personal", "bot",
    "sas", "crypto", "otp", "totp", "mfa", "recovery", "sdk", "preshared", "psk", "wifi", "wpa",
    // SQLCipher's `PRAGMA key = '...'`
    "pragma", "developer",
];

/// The key words (not flags) and suffix endings, the tails, and the flag words, as filters
/// (see [`WordFilter`]). Built at compile time: an index out of range would fail the build,
/// not a run.
#[allow(clippy::indexing_slicing)]
pub(super) const FILTERS: [WordFilter; 3] = {
    let mut heads = WordFilter::EMPTY;
    let mut flags = WordFilter::EMPTY;
    let mut i = 0;
    while i < KEY_WORDS.len() {
        let k = &KEY_WORDS[i];
        if matches!(k.form, Form::Flag) {
            flags = flags.word(k.word);
        } else {
            heads = heads.word(k.word);
        }
        i += 1;
    }
    let mut i = 0;
    while i < SUFFIXES.len() {
        heads = heads.ending(SUFFIXES[i].0);
        i += 1;
    }
    let mut tails = WordFilter::EMPTY;
    let mut i = 0;
    while i < TAILS.len() {
        tails = tails.word(TAILS[i]);
        i += 1;
    }
    let mut i = 0;
    while i < ENDS.len() {
        tails = tails.word(ENDS[i].0);
        i += 1;
    }
    [heads, tails, flags]
};

/// Whether the last word of a run may make it a key: a key word or an ending of one, a tail
/// after other words (`secret_key_base`), or a flag word after a dash (`-u`). Most words of a
/// text fail the filters and are not looked up.
#[inline(always)]
pub(super) fn could_name(word: &[u8], alone: bool, flag: bool) -> bool {
    static BUILT: [WordFilter; 3] = FILTERS;
    let [heads, tails, flags] = &BUILT;
    let maybe = heads.may_be(word)
        || (word.len() > 3 && heads.may_end(word))
        || (!alone && tails.may_be(word))
        || (flag && flags.may_be(word));
    maybe && listed(word)
}

#[inline(never)]
fn listed(word: &[u8]) -> bool {
    lookup(word, true).is_some() || is(word, TAILS) || end(word).is_some()
}

pub(super) fn is(word: &[u8], list: &[&str]) -> bool {
    list.iter().any(|w| word.eq_ignore_ascii_case(w.as_bytes()))
}

/// The words of a key as `start..end` ranges: split at `_.-` and at case changes
/// (`clientSecret`, `HTTPProxy`).
fn word_ranges(key: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < key.len() && !at(key, i).is_ascii_alphanumeric() {
            i += 1;
        }
        if i >= key.len() {
            return None;
        }
        let start = i;
        i += 1;
        while i < key.len() {
            let (p, c, n) = (at(key, i - 1), at(key, i), at(key, i + 1));
            if !c.is_ascii_alphanumeric() {
                break;
            }
            let lower_to_upper =
                (p.is_ascii_lowercase() || p.is_ascii_digit()) && c.is_ascii_uppercase();
            let acronym_end =
                p.is_ascii_uppercase() && c.is_ascii_uppercase() && n.is_ascii_lowercase();
            if lower_to_upper || acronym_end {
                break;
            }
            i += 1;
        }
        Some((start, i))
    })
}

fn words(key: &[u8]) -> impl Iterator<Item = &[u8]> {
    word_ranges(key).filter_map(|(a, z)| key.get(a..z))
}

/// The first word of a key (`set` in `setPassword`).
pub(super) fn first_word(key: &[u8]) -> Option<&[u8]> {
    words(key).next()
}

/// What a key names, if a secret.
#[derive(Clone, Copy, Debug)]
pub(super) struct Named {
    /// The key word itself (`password`, `authorization`, `u`).
    pub word: &'static str,
    pub kind: &'static str,
    pub form: Form,
    pub test: Test,
}

fn lookup(word: &[u8], flag: bool) -> Option<KeyWord> {
    // a numbered key (`key1`, `password2`, `token_2`): the word without its number
    let numbered = numbered(word);
    if numbered.len() < word.len() {
        return KEY_WORDS
            .iter()
            .find(|k| k.form != Form::Flag && numbered.eq_ignore_ascii_case(k.word.as_bytes()))
            .copied();
    }
    if let Some(k) = KEY_WORDS
        .iter()
        .find(|k| word.eq_ignore_ascii_case(k.word.as_bytes()))
    {
        return (k.form != Form::Flag || flag).then_some(*k);
    }
    if is(word, NOT_PASS) {
        return None;
    }
    SUFFIXES.iter().find_map(|&(suffix, kind)| {
        let s = suffix.as_bytes();
        let n = word.len().checked_sub(s.len())?;
        let tail = word.get(n..)?;
        (n > 0 && tail.eq_ignore_ascii_case(s)).then_some(kw(suffix, kind, Form::Key, Test::Keyed))
    })
}

/// `word` without a number of one or two digits at its end (`key` of `key1`), when a word of
/// three letters or more stays.
pub(super) fn numbered(word: &[u8]) -> &[u8] {
    let digits = word.iter().rev().take_while(|c| c.is_ascii_digit()).count();
    match word.len().checked_sub(digits) {
        Some(n) if (1..=2).contains(&digits) && n >= 3 => word.get(..n).unwrap_or(word),
        _ => word,
    }
}

/// Terraform's per-host credentials variable, `TF_TOKEN_<host with dots as underscores>`
/// (`TF_TOKEN_app_terraform_io`): the host's words come after the key word, so its last word
/// names no secret.
pub(super) fn host_token(run: &[u8]) -> bool {
    run.len() > 9 && run.starts_with(b"TF_TOKEN_")
}

/// Whether `key` names a secret; `before` is the last word of the word right before it in
/// prose (`API` in `API key: ...`), if any.
pub(super) fn named(key: &[u8], flag: bool, before: Option<&[u8]>) -> Option<Named> {
    if host_token(key) {
        return Some(Named {
            word: "token",
            kind: "token",
            form: Form::Key,
            test: Test::Keyed,
        });
    }
    let mut head: Option<KeyWord> = None;
    let mut qualifier: Option<&[u8]> = before;
    let mut previous: Option<&[u8]> = before;
    let mut tails_ok = true;
    // where an ending says the value comes from (`--password-stdin`, `--password-file`)
    let mut ended: Option<Test> = None;
    let mut aws = false;
    // a word of [`LEADS`] came, and no ending after it yet
    let mut led = false;
    let mut count = 0;
    for w in words(key) {
        count += 1;
        aws |= w.eq_ignore_ascii_case(b"aws");
        if let Some(k) = lookup(w, flag) {
            head = Some(k);
            qualifier = previous;
            tails_ok = true;
            ended = None;
        } else if head.is_some() {
            // an ending ends a key (`--password-stdin`); a tail may come before it, and a
            // word that leads to the ending (`--passwd-on-stdin`, `--password-from-file`)
            let leads = ended.is_none() && is(w, LEADS);
            tails_ok &= ended.is_none() && (is(w, TAILS) || end(w).is_some() || leads);
            ended = ended.or(end(w));
            led = leads || (led && ended.is_none());
        }
        previous = Some(w);
    }
    let head = head.filter(|_| tails_ok && !led)?;
    if qualifier.is_some_and(|q| is(q, NOT_SECRET)) {
        return None;
    }
    let mut named = Named {
        word: head.word,
        kind: head.kind,
        form: head.form,
        test: head.test,
    };
    if head.word == "key" {
        if qualifier.is_some_and(|q| is(q, KEY_QUALIFIERS)) {
            named.test = Test::Keyed;
            named.form = if count == 1 { Form::Prose } else { Form::Key };
        }
        if qualifier
            .is_some_and(|q| q.eq_ignore_ascii_case(b"access") || q.eq_ignore_ascii_case(b"secret"))
            && aws
        {
            named.kind = "aws secret key";
        }
    }
    if head.word == "secret" && qualifier.is_some_and(|q| q.eq_ignore_ascii_case(b"client")) {
        named.kind = "client secret";
    }
    if aws && head.word == "secret" {
        named.kind = "aws secret key";
    }
    if let Some(test) = ended {
        named.test = test;
    }
    Some(named)
}

/// The last word of a key run, found from its end (`Secret` in `clientSecret`, `KEY` in
/// `API_KEY`, `Proxy` in `HTTPProxy`), as `start..end` within `run`.
#[inline]
pub(super) fn last_word(run: &[u8]) -> (usize, usize) {
    let mut e = run.len();
    for &c in run.iter().rev() {
        if c.is_ascii_alphanumeric() {
            break;
        }
        e -= 1;
    }
    let head = run.get(..e).unwrap_or_default();
    let lower = head
        .iter()
        .rev()
        .take_while(|&&c| class(c) & LOWER_OR_DIGIT != 0)
        .count();
    let mut s = e - lower;
    if lower > 0 {
        // `Secret`: one capital
        if s > 0 && at(run, s - 1).is_ascii_uppercase() {
            s -= 1;
        }
    } else {
        // `KEY`, `V2`: all of them
        s -= run
            .get(..s)
            .unwrap_or_default()
            .iter()
            .rev()
            .take_while(|&&c| class(c) & UPPER_OR_DIGIT != 0)
            .count();
    }
    (s, e)
}
