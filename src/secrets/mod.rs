//! Secrets in memory text: found and replaced by a marker before anything is stored.
//!
//! One detector for every write path. [`mask`] makes one walk over the text's key runs
//! (maximal runs of `A-Za-z0-9_.-`); each rule hooks in at the runs it can start from and adds
//! spans of secret bytes, which are then merged and replaced by [`MARKER`]. Everything else is
//! kept byte for byte. The rules, one module each:
//!
//! - [`catalogue`]: vendor secrets by gitleaks' rule catalogue, vendored as data (about 215
//!   rules: an id, keywords, a regex, an entropy floor, allowlists); see `docs/secrets.md`.
//! - [`tokens`]: vendor tokens by their own shape, a table of prefixes with alphabet and length
//!   (AWS, GitHub, GitLab, Slack, Stripe, Google, OpenAI, Anthropic, npm, SendGrid, Twilio,
//!   ...), JWTs, Discord bot tokens, base64 of a PEM private key, a few prefix-less shapes, and
//!   ids that announce the secret after them.
//! - [`pem`]: PEM private key blocks.
//! - [`urls`]: the password in a URL's userinfo (`scheme://user:password@host`), and in
//!   `user/password@host` logins.
//! - [`keys`] and [`assignments`]: a key that names a secret (a table of key words: password,
//!   secret, token, api_key, auth, credential, ...) and its value, in `KEY=value`,
//!   `key: value`, `"key": "value"`, `key is value`, `--flag value`, `/switch:value`,
//!   `<key>value</key>`, `KEY["x"] = value`, `f("KEY", "value")`, `setKey("value")`,
//!   `auth=("user", "password")`, `KEY value` directive lines, YAML block scalars, a key given
//!   as a label (`name: KEY` then `value: ...`), Markdown table cells and columns,
//!   `Authorization: <scheme> value`, and a value piped into `--password-stdin`.
//! - [`commands`]: passwords that commands take as positional arguments (`htpasswd -b file
//!   user pw`, `net user name pw`), by a table of their syntax.
//! - [`files`]: the lines of a credential file named in the text (`/etc/rsyncd.secrets`,
//!   `.htpasswd`, `chap-secrets`, `ipsec.secrets`), in that file's format.
//! - [`lines`]: lines that are credentials by their shape (`.pgpass`, also in a code span;
//!   Kubernetes `data:`, not a ConfigMap's).
//! - [`prose`]: a value shaped like a password near a word such as "password" or "secret" in
//!   a sentence (`the root password was reset to X`), in several languages, also inside words
//!   of scripts written without spaces (`密码是 X`).
//!
//! A value found once is then masked wherever else it stands in the text ([`repeats`]).
//! - [`value`]: whether a value looks like a secret at all: not a reference, template,
//!   placeholder, path, number, version, digest, identifier or plain word; then character
//!   classes, case and digit mixing, and entropy.
//!
//! Every scan is linear: each byte is read a bounded number of times (values, windows and
//! look-backs have fixed caps, and a long stretch that was read is not read again). The scans
//! work on bytes and cut the text only where a byte they checked is ASCII, so any UTF-8 is
//! safe; nothing here slices a `str` by a computed index, indexes without a check, or unwraps.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

mod assignments;
mod catalogue;
mod commands;
mod files;
mod keys;
mod lines;
mod pem;
mod prose;
mod repeats;
mod tokens;
mod urls;
mod value;

use serde::Serialize;

/// What a masked secret becomes.
pub const MARKER: &str = "[secret]";

/// Whether a write masks secrets (always, unless a user asks otherwise with `--allow-secrets`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Secrets {
    #[default]
    Mask,
    /// Store the text as given.
    Allow,
}

/// One secret found and masked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Found {
    /// What it looked like: a catalogue rule's id ("asana-client-secret") or a hand rule's name
    /// ("private key", "github token", "password").
    pub kind: &'static str,
    /// Where its marker starts in the masked text (bytes).
    pub at: usize,
}

/// A text with its secrets masked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Masked {
    pub text: String,
    pub found: Vec<Found>,
}

/// At most this many passes of the detector over one text (see `mask`).
const MAX_PASSES: usize = 8;

/// `text` with every secret replaced by `MARKER`, and what was found.
///
/// A rule may judge a value by its surroundings, and a marker changes them: masked text, masked
/// again, could lose more. So the detector runs again over its own output until a pass finds
/// nothing (a text with no secret takes one pass, one with secrets usually two), and masking is
/// idempotent: a body stored masked, exported and imported back, is stored unchanged.
pub fn mask(text: &str) -> Masked {
    let (mut masked, mut spans) = mask_once(text);
    for _ in 1..MAX_PASSES {
        if spans.is_empty() {
            break;
        }
        let (next, replaced) = mask_once(&masked.text);
        // Markers of earlier passes move by what each replacement before them changed.
        let moved = |at: usize| -> usize {
            replaced
                .iter()
                .filter(|&&(_, end)| end <= at)
                .fold(at, |p, &(start, end)| p + MARKER.len() - (end - start))
        };
        let mut found: Vec<Found> = masked
            .found
            .iter()
            .map(|f| Found {
                kind: f.kind,
                at: moved(f.at),
            })
            .chain(next.found)
            .collect();
        found.sort_by_key(|f| f.at);
        masked = Masked {
            text: next.text,
            found,
        };
        spans = replaced;
    }
    masked
}

/// One pass of the detector: the masked text, and the spans it replaced (in `text`).
fn mask_once(text: &str) -> (Masked, Vec<(usize, usize)>) {
    let mut spans = Vec::new();
    catalogue::scan(text, &mut spans);
    walk(text, &mut spans);
    prose::bare(text, &mut spans);
    repeats::repeats(text, &mut spans);
    keep_markers(text, &mut spans);
    replace(text, spans)
}

/// Drop the spans that reach into a marker already in `text`: what a marker stands for is
/// masked, and a span over one (a word read up to its `]`) would mask it again with what
/// surrounds it.
fn keep_markers(text: &str, spans: &mut Vec<Span>) {
    let markers: Vec<(usize, usize)> = text
        .match_indices(MARKER)
        .map(|(at, m)| (at, at + m.len()))
        .collect();
    if markers.is_empty() {
        return;
    }
    spans.retain(|s| !markers.iter().any(|&(a, z)| s.start < z && a < s.end));
}

/// Byte classes, for the hot loops: one load instead of a chain of comparisons.
const KEY: u8 = 1;
const LOWER_OR_DIGIT: u8 = 2;
const UPPER_OR_DIGIT: u8 = 4;
/// Not a lowercase letter: a run with none of these is one lowercase word.
const NOT_LOWER: u8 = 8;

// Built at compile time: an index out of range would fail the build, not a run.
#[allow(clippy::indexing_slicing)]
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        let mut k = 0;
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.' {
            k |= KEY;
        }
        if b.is_ascii_lowercase() || b.is_ascii_digit() {
            k |= LOWER_OR_DIGIT;
        }
        if b.is_ascii_uppercase() || b.is_ascii_digit() {
            k |= UPPER_OR_DIGIT;
        }
        if !b.is_ascii_lowercase() {
            k |= NOT_LOWER;
        }
        t[c] = k;
        c += 1;
    }
    t
};

#[inline]
fn class(c: u8) -> u8 {
    CLASS.get(usize::from(c)).copied().unwrap_or(0)
}

/// A filter built at compile time from a word list: which (first letter, last letter, length)
/// and which two-letter endings occur. Most words of a text fail it on a bit test, so the list
/// itself is only searched for the few that pass.
struct WordFilter {
    /// by (first, last) letter: bit n set for a word of length n
    exact: [u32; 27 * 27],
    /// by last letter: bit k set for an ending in letter k then that letter
    endings: [u32; 27],
}

/// A letter's number, 0..=25, or 26 for anything else.
const fn letter(c: u8) -> usize {
    let l = c.to_ascii_lowercase();
    if l.is_ascii_lowercase() {
        (l - b'a') as usize
    } else {
        26
    }
}

// The `const fn`s run at compile time, on the tables; every index is below 27 * 27.
#[allow(clippy::indexing_slicing)]
impl WordFilter {
    const EMPTY: WordFilter = WordFilter {
        exact: [0; 27 * 27],
        endings: [0; 27],
    };

    const fn word(mut self, w: &str) -> WordFilter {
        let b = w.as_bytes();
        if !b.is_empty() && b.len() < 32 {
            self.exact[letter(b[0]) * 27 + letter(b[b.len() - 1])] |= 1 << b.len();
        }
        self
    }

    const fn ending(mut self, w: &str) -> WordFilter {
        let b = w.as_bytes();
        if b.len() >= 2 {
            self.endings[letter(b[b.len() - 1])] |= 1 << letter(b[b.len() - 2]);
        }
        self
    }

    /// Both lists in one filter.
    const fn union(mut self, other: &WordFilter) -> WordFilter {
        let mut i = 0;
        while i < 27 * 27 {
            self.exact[i] |= other.exact[i];
            i += 1;
        }
        let mut i = 0;
        while i < 27 {
            self.endings[i] |= other.endings[i];
            i += 1;
        }
        self
    }

    /// Whether `word` may be in the list.
    #[inline]
    fn may_be(&self, word: &[u8]) -> bool {
        let (Some(&first), Some(&last)) = (word.first(), word.last()) else {
            return false;
        };
        word.len() < 32
            && self
                .exact
                .get(letter(first) * 27 + letter(last))
                .is_some_and(|m| m >> word.len() & 1 == 1)
    }

    /// Whether `word` may end in one of the endings.
    #[inline]
    fn may_end(&self, word: &[u8]) -> bool {
        let n = word.len();
        n >= 2
            && self
                .endings
                .get(letter(at(word, n - 1)))
                .is_some_and(|m| m >> letter(at(word, n - 2)) & 1 == 1)
    }
}

/// Every word the walk's rules start from (key words and their endings, tails, flags, prose
/// triggers): a word that fails this filter is passed over at once.
static GATE: WordFilter = {
    let [heads, tails, flags] = keys::FILTERS;
    heads.union(&tails).union(&flags).union(&prose::FILTER)
};

/// A byte of a key run: `A-Za-z0-9_.-`.
#[inline]
fn key_byte(c: u8) -> bool {
    class(c) & KEY != 0
}

/// The walk: every rule starts at a key run (maximal runs of `A-Za-z0-9_.-`). A key naming a
/// secret, a prose trigger, a vendor token, a URL scheme, `-----BEGIN` and the first field of a
/// `.pgpass` or `data:` line each is, or starts, one run. A run whose last word passes the
/// [`GATE`] filter is offered to the key and prose rules; the others see only runs with the
/// neighbours they need (`:`, `://`, a length of 16).
fn walk(text: &str, spans: &mut Vec<Span>) {
    let b = text.as_bytes();
    // the previous run's last word, for `API key: ...`
    let mut prev: Option<(usize, usize)> = None;
    // keys are looked for from here on (after a value that was consumed)
    let mut keys_from = 0;
    let mut windows = prose::Windows::default();
    let mut pem = pem::Pem::default();
    let mut lines = lines::Lines::default();
    let mut files = files::Files::default();
    let mut i = 0;
    while let Some(k) = b
        .get(i..)
        .and_then(|rest| rest.iter().position(|&c| key_byte(c)))
    {
        let s = i + k;
        // to the end of the run, noting whether it is a single lowercase word
        let mut e = s;
        let mut seen = 0;
        for &c in b.get(s..).unwrap_or_default() {
            let class = class(c);
            if class & KEY == 0 {
                break;
            }
            seen |= class;
            e += 1;
        }
        i = e;
        let run = b.get(s..e).unwrap_or_default();
        let (ls, le) = if seen & NOT_LOWER == 0 {
            (0, run.len())
        } else {
            keys::last_word(run)
        };
        // (a numbered key is its word: `key1`, `password2`)
        let last = keys::numbered(run.get(ls..le).unwrap_or_default());
        let glued_p = at(run, 0) == b'-' && matches!(at(run, 1), b'p' | b'P');
        let cluster = at(run, 0) == b'-' && assignments::cluster(b, s, e);
        if glued_p
            || cluster
            || GATE.may_be(last)
            || (last.len() > 3 && GATE.may_end(last))
            || keys::host_token(run)
        {
            if s >= keys_from {
                let before_word = prev
                    .filter(|&(_, end)| end + 1 == s && at(b, end) == b' ')
                    .and_then(|(ws, we)| b.get(ws..we));
                if let Some(next) = assignments::in_run(text, s, e, last, before_word, spans) {
                    keys_from = next;
                }
            }
            // a trigger is a run of one word (`password`, `password.`), or the last of words
            // joined by dashes (`Client-Secret`)
            let compound = ls > 0 && at(run, ls - 1) == b'-' && at(run, 0).is_ascii_alphabetic();
            let word = run.get(ls..).unwrap_or_default();
            if (ls == 0 || compound) && le + 1 >= run.len() && prose::may_trigger(word) {
                prose::in_run(text, s + ls, e, &mut windows, spans);
            }
        }
        // JDBC's `getConnection(url, "user", "password")`
        if run.ends_with(b"getConnection") {
            assignments::connection_call(text, e, spans);
        }
        // a command that takes a password as an argument (`htpasswd -b file user pw`)
        if commands::FILTER.may_be(run) {
            commands::at_command(text, s, e, spans);
        }
        // a credential file's name, and its lines after it
        if files::may_name(last) {
            files::at_name(text, e, &mut files, spans);
        }
        // `scheme://userinfo@`, or a line `host:port:...` or `data:`
        if at(b, e) == b':' {
            if at(b, e + 1) == b'/' && at(b, e + 2) == b'/' {
                urls::at_scheme(text, e, spans);
            } else {
                lines::line_run(text, s, &mut lines, spans);
                urls::go_dsn(text, s, e, spans);
            }
        }
        // `user/password@host` (sqlplus and the like)
        // (also after a `:`: `jdbc:oracle:thin:scott/pw@//host`)
        if at(b, e) == b'/'
            && matches!(before(b, s), 0 | b' ' | b'\t' | b'\n' | b'"' | b'\'' | b':')
        {
            urls::slash_login(text, s, e, spans);
        }
        // a PEM block (`-----BEGIN`, or `\n-----BEGIN` in a JSON string)
        if run.ends_with(b"-----BEGIN") {
            if let Some(end) = pem::pem_at(text, e - "-----BEGIN".len(), &mut pem, spans) {
                i = i.max(end);
                prev = None;
                continue;
            }
        }
        if let Some(end) = tokens::in_run(text, s, e, spans) {
            // a token's insides are not keys or words
            i = i.max(end);
            prev = None;
            continue;
        }
        // (the value of a `key=` is no qualifier of the key after it: `user=svc-sync token=...`)
        prev = (le > ls && !matches!(before(b, s), b'=' | b':')).then_some((s + ls, s + le));
    }
    if !text.is_ascii() {
        prose::non_ascii(text, &mut windows, spans);
    }
}

/// A run of secret bytes, `start..end`, found by one rule.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: usize,
    end: usize,
    kind: &'static str,
    /// Which label wins when spans overlap: lower is more specific.
    rank: u8,
}

impl Span {
    fn new(start: usize, end: usize, kind: &'static str, rank: u8) -> Span {
        Span {
            start,
            end,
            kind,
            rank,
        }
    }
}

/// The byte at `i`, or 0 past either end.
#[inline]
fn at(b: &[u8], i: usize) -> u8 {
    b.get(i).copied().unwrap_or(0)
}

/// The byte before `i`, or 0 at the start.
#[inline]
fn before(b: &[u8], i: usize) -> u8 {
    i.checked_sub(1).map_or(0, |j| at(b, j))
}

/// Replace the (merged) spans by the marker.
fn replace(text: &str, mut spans: Vec<Span>) -> (Masked, Vec<(usize, usize)>) {
    if spans.is_empty() {
        return (
            Masked {
                text: text.to_owned(),
                found: Vec::new(),
            },
            Vec::new(),
        );
    }
    // Widen every span to character boundaries (they already are; this keeps it so).
    for s in &mut spans {
        s.end = s.end.min(text.len());
        while s.end < text.len() && !text.is_char_boundary(s.end) {
            s.end += 1;
        }
        while s.start > 0 && !text.is_char_boundary(s.start) {
            s.start -= 1;
        }
    }
    spans.retain(|s| s.start < s.end);
    spans.sort_by_key(|s| (s.start, s.rank, std::cmp::Reverse(s.end)));
    let mut merged: Vec<Span> = Vec::with_capacity(spans.len());
    for s in spans {
        match merged.last_mut() {
            // overlapping or touching: one marker for both
            Some(last) if s.start <= last.end => {
                if s.end > last.end {
                    last.end = s.end;
                }
                if s.rank < last.rank && s.start == last.start {
                    last.kind = s.kind;
                    last.rank = s.rank;
                }
            }
            _ => merged.push(s),
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut found = Vec::with_capacity(merged.len());
    let replaced: Vec<(usize, usize)> = merged.iter().map(|s| (s.start, s.end)).collect();
    let mut done = 0;
    for s in merged {
        out.push_str(text.get(done..s.start).unwrap_or_default());
        found.push(Found {
            kind: s.kind,
            at: out.len(),
        });
        out.push_str(MARKER);
        done = s.end;
    }
    out.push_str(text.get(done..).unwrap_or_default());
    (Masked { text: out, found }, replaced)
}
