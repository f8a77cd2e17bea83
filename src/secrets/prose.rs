//! Secrets in sentences. After a word such as "password" or "secret" (in a few languages),
//! among the next few words of its line: a value that passes [`value::strict`] (it looks
//! generated, or like a human password, which the prose around it does not), or right after
//! `label:`, `is`, `was`, `=` or `/`, one that passes [`value::password_like`]. Failing that,
//! a few words before the trigger with a copula between (`use X as the password`).

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::{at, before, value, Span, WordFilter, MARKER};

/// Words that announce a credential, lowercase, with the kind of what follows.
const TRIGGERS: &[(&str, &str)] = &[
    ("password", "password"),
    ("passwd", "password"),
    ("passphrase", "passphrase"),
    ("passcode", "password"),
    ("pw", "password"),
    ("pwd", "password"),
    ("login", "password"),
    ("credentials", "credentials"),
    ("credential", "credentials"),
    ("creds", "credentials"),
    ("secret", "secret"),
    ("token", "token"),
    ("apikey", "api key"),
    // `API key`, `license key`: only after a qualifier (see `in_run`)
    ("key", "api key"),
    // French `mot de passe`, `mdp`; Spanish `clave`
    ("passe", "password"),
    ("mdp", "password"),
    ("clave", "password"),
    ("passord", "password"),
    ("adgangskode", "password"),
    ("lozinka", "password"),
    ("geslo", "password"),
    ("jelszó", "password"),
    ("parool", "password"),
    ("пароля", "password"),
    ("парола", "password"),
    ("κωδικός", "password"),
    ("סיסמה", "password"),
    ("пароль", "password"),
    ("passwort", "password"),
    ("kennwort", "password"),
    ("contraseña", "password"),
    ("senha", "password"),
    ("wachtwoord", "password"),
    ("lösenord", "password"),
    ("salasana", "password"),
    ("heslo", "password"),
    ("hasło", "password"),
    ("parola", "password"),
    ("şifre", "password"),
    ("密码", "password"),
    ("密碼", "password"),
    ("パスワード", "password"),
    ("비밀번호", "password"),
];

/// Triggers in scripts written without spaces between words (`测试环境的密码是`, `비밀번호는`):
/// found inside a word.
const INSIDE: &[(&str, &str)] = &[
    ("密码", "password"),
    ("密碼", "password"),
    ("口令", "password"),
    ("パスワード", "password"),
    ("暗証番号", "password"),
    ("비밀번호", "password"),
    ("암호", "password"),
    ("トークン", "token"),
    ("令牌", "token"),
];

/// How far after the trigger a value may be: words, and bytes.
const WINDOW_WORDS: usize = 12;
const WINDOW_BYTES: usize = 240;
/// How many words before the trigger a value may be (`use X as the password`).
const WINDOW_BACK: usize = 6;

/// Word separators; a newline also closes a window.
fn space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

/// `s..e` without leading `"'(`[<*` and trailing `"'):;,.]>*`.
fn trim(b: &[u8], mut s: usize, mut e: usize) -> (usize, usize) {
    while s < e && matches!(at(b, s), b'"' | b'\'' | b'(' | b'`' | b'[' | b'<' | b'*') {
        s += 1;
    }
    while e > s
        && matches!(
            at(b, e - 1),
            b'"' | b'\'' | b')' | b':' | b';' | b',' | b'.' | b']' | b'>' | b'*' | b'`'
        )
    {
        e -= 1;
    }
    (s, e)
}

/// The triggers, as a filter (see [`WordFilter`]). Built at compile time: an index out of range
/// would fail the build, not a run.
#[allow(clippy::indexing_slicing)]
pub(super) const FILTER: WordFilter = {
    let mut f = WordFilter::EMPTY;
    let mut i = 0;
    while i < TRIGGERS.len() {
        f = f.word(TRIGGERS[i].0);
        i += 1;
    }
    f
};

/// A quick test: could this run (maybe with a trailing `.` or `-`) be an ASCII trigger?
#[inline]
pub(super) fn may_trigger(run: &[u8]) -> bool {
    let n = run.len() - usize::from(matches!(run.last(), Some(b'.' | b'-')));
    static BUILT: WordFilter = FILTER;
    BUILT.may_be(run.get(..n).unwrap_or_default())
}

fn trigger(word: &str) -> Option<&'static str> {
    static BUILT: WordFilter = FILTER;
    if word.is_empty() || word.len() > 16 || (word.is_ascii() && !BUILT.may_be(word.as_bytes())) {
        return None;
    }
    if word.is_ascii() {
        return TRIGGERS
            .iter()
            .find(|(t, _)| word.eq_ignore_ascii_case(t))
            .map(|&(_, k)| k);
    }
    // first letters first: most words of another script start with none of them
    let first = word
        .chars()
        .next()
        .into_iter()
        .flat_map(char::to_lowercase)
        .next();
    TRIGGERS
        .iter()
        .filter(|(t, _)| t.chars().next() == first)
        .find(|(t, _)| word.chars().flat_map(char::to_lowercase).eq(t.chars()))
        .map(|&(_, k)| k)
}

/// Which words have been tested already: windows overlap, words are tested once.
#[derive(Default)]
pub(super) struct Windows {
    tested_until: usize,
}

/// The key run `s..e` (see [`super::walk`]): if it is an ASCII trigger standing as a word of its
/// own (`password:`, `"secret"`, not `DB_PASSWORD` or `/auth/token`), look through its window.
#[inline(never)]
pub(super) fn in_run(text: &str, s: usize, e: usize, windows: &mut Windows, spans: &mut Vec<Span>) {
    let b = text.as_bytes();
    let opens =
        |c: u8| space(c) || matches!(c, 0 | b'"' | b'\'' | b'(' | b'`' | b'[' | b'<' | b'*');
    let closes = |c: u8| {
        space(c)
            || matches!(
                c,
                0 | b'"' | b'\'' | b')' | b':' | b';' | b',' | b'.' | b']' | b'>' | b'*' | b'`'
            )
    };
    let (ts, te) = trim(b, s, e);
    // (the marker's own word is not a trigger)
    let marker = s
        .checked_sub(1)
        .and_then(|m| b.get(m..))
        .is_some_and(|r| r.starts_with(MARKER.as_bytes()));
    if marker || !opens(before(b, s)) || !closes(at(b, e)) {
        return;
    }
    let Some(kind) = text.get(ts..te).and_then(trigger) else {
        return;
    };
    // `key` counts after a qualifier only (`API key for X is ...`, not `the key is rotated`)
    if kind == "api key" && te - ts == 3 && !qualified(b, ts) {
        return;
    }
    window(text, s, e, kind, windows, spans);
}

/// Whether the word before `s` (one space between) is a qualifier of `key` (`API`,
/// `license`, `access`).
fn qualified(b: &[u8], s: usize) -> bool {
    if s < 2 || before(b, s) != b' ' {
        return false;
    }
    let e = s - 1;
    let mut i = e;
    while i > 0 && before(b, i).is_ascii_alphabetic() && e - i < 16 {
        i -= 1;
    }
    let word = b.get(i..e).unwrap_or_default();
    !word.is_empty() && super::keys::is(word, super::keys::KEY_QUALIFIERS)
}

/// Triggers in other scripts (`пароль`, `密码`): a walk over the words that are not ASCII.
pub(super) fn non_ascii(text: &str, windows: &mut Windows, spans: &mut Vec<Span>) {
    let b = text.as_bytes();
    let mut i = 0;
    while let Some(k) = b
        .get(i..)
        .and_then(|rest| rest.iter().position(|&c| c >= 0x80))
    {
        // back to the start of the word
        let mut s = i + k;
        while s > i && !space(before(b, s)) {
            s -= 1;
        }
        let rest = b.get(s..).unwrap_or_default();
        let end = s + rest.iter().position(|&c| space(c)).unwrap_or(rest.len());
        i = end.max(i + k + 1);
        let (ts, te) = trim(b, s, end);
        let word = text
            .get(ts..te)
            .filter(|w| !w.is_ascii())
            .unwrap_or_default();
        if let Some(kind) = trigger(word) {
            window(text, s, end, kind, windows, spans);
        } else if let Some((k, t, kind)) = INSIDE
            .iter()
            .find_map(|&(t, kind)| word.find(t).map(|k| (k, t, kind)))
        {
            // the value may follow a colon in the same word (`密码：X`)
            let after = ts + k + t.len();
            let rest = text.get(after..te).unwrap_or_default();
            let from = rest.find(['：', ':']).map_or(end, |c| {
                after
                    + c
                    + rest
                        .get(c..)
                        .map_or(1, |r| r.chars().next().map_or(1, char::len_utf8))
            });
            window(text, s, from.min(end), kind, windows, spans);
        }
    }
}

/// Punctuation of scripts without spaces, which ends a value (`X，别外传`).
fn wide_punctuation(c: char) -> bool {
    matches!(c, '\u{3000}'..='\u{303f}' | '\u{ff01}'..='\u{ff0f}' | '\u{ff1a}'..='\u{ff20}' | '\u{ff3b}'..='\u{ff40}' | '\u{ff5b}'..='\u{ff65}')
}

/// `vs..ve` without wide punctuation at its start, and cut at the first inside it.
fn cut_wide(text: &str, vs: usize, ve: usize) -> (usize, usize) {
    let Some(word) = text.get(vs..ve) else {
        return (vs, ve);
    };
    if word.is_ascii() {
        return (vs, ve);
    }
    let lead: usize = word
        .chars()
        .take_while(|&c| wide_punctuation(c))
        .map(char::len_utf8)
        .sum();
    let rest = word.get(lead..).unwrap_or_default();
    let cut = rest.find(wide_punctuation).unwrap_or(rest.len());
    (vs + lead, vs + lead + cut)
}

/// A word that may be the value: not another `key=value` (the assignment rules read those),
/// and strict.
fn candidate(word: &str) -> bool {
    word.len() <= 256 && !assignment(word) && value::strict(word)
}

/// `key=value`: a word before the `=` (`mode=fast`), not a password with an `=` in it
/// (`2823Amber=?`).
fn assignment(word: &str) -> bool {
    word.trim_end_matches('=')
        .split_once('=')
        .is_some_and(|(key, _)| value::identifier_like(key))
}

/// The first strict value among the next few words of the line after a trigger at
/// `start..from`, or else among the few words before it in the same sentence (`use X as the
/// password`).
fn window(
    text: &str,
    start: usize,
    from: usize,
    kind: &'static str,
    windows: &mut Windows,
    spans: &mut Vec<Span>,
) {
    if !after(text, from, kind, windows, spans) {
        before_trigger(text, start, kind, spans);
    }
}

/// Words that may stand between a value and a trigger before it: `X is the (new) password`,
/// `use X as the password`.
const BETWEEN: &[&str] = &[
    "the",
    "a",
    "an",
    "my",
    "our",
    "your",
    "their",
    "his",
    "her",
    "new",
    "old",
    "current",
    "default",
    "temporary",
    "initial",
    "same",
];

/// The words before the trigger, back to the start of the line or of the sentence: a value
/// with a copula between it and the trigger, and little else (`X is the root password`, not
/// `X is required for every secret request`).
fn before_trigger(text: &str, start: usize, kind: &'static str, spans: &mut Vec<Span>) {
    let b = text.as_bytes();
    let mut i = start;
    let mut copula = false;
    // words between that are neither a copula nor in `BETWEEN`
    let mut other = 0;
    for _ in 0..WINDOW_BACK {
        while i > 0 && matches!(before(b, i), b' ' | b'\t') {
            i -= 1;
        }
        let e = i;
        while i > 0 && !space(before(b, i)) && e - i <= 256 {
            i -= 1;
        }
        if i == e || matches!(before(b, e), b'.' | b';' | b'?' | b'!' | b':') {
            return;
        }
        let (vs, ve) = trim(b, i, e);
        let word = text.get(vs..ve).unwrap_or_default();
        if text.get(i..e).is_some_and(|w| w.contains(MARKER)) {
            return;
        }
        if matches!(word, "is" | "as" | "was" | "are" | "=") {
            copula = true;
            continue;
        }
        if copula && (candidate(word) || value::password_like(word)) {
            spans.push(Span::new(vs, ve, kind, 4));
            return;
        }
        if !BETWEEN.iter().any(|w| word.eq_ignore_ascii_case(w)) {
            other += 1;
            if other > 1 || copula {
                return;
            }
        }
    }
}

/// The words after the trigger; whether a value was found.
fn after(
    text: &str,
    from: usize,
    kind: &'static str,
    windows: &mut Windows,
    spans: &mut Vec<Span>,
) -> bool {
    let b = text.as_bytes();
    let mut i = from;
    let mut words = 0;
    // the trigger itself may end in `:` (`password: X`)
    let mut announced = before(b, from) == b':' || at(b, from) == b':';
    while words < WINDOW_WORDS && i < b.len() && i - from < WINDOW_BYTES {
        let c = at(b, i);
        if c == b'\n' {
            return false;
        }
        if space(c) {
            i += 1;
            continue;
        }
        let s = i;
        let rest = b.get(s..).unwrap_or_default();
        i = s + rest
            .iter()
            .take(257)
            .position(|&c| space(c))
            .unwrap_or(rest.len().min(257));
        words += 1;
        let (vs, ve) = trim(b, s, i);
        let (vs, ve) = cut_wide(text, vs, ve);
        let word = text.get(vs..ve).unwrap_or_default();
        // a value masked already: this window is done (so that masking twice changes nothing)
        if text.get(s..i).is_some_and(|w| w.contains(MARKER)) {
            return true;
        }
        let signalled = announced;
        // the next word is announced by `label:`, `is`, `was`, `=` or `/`
        announced = before(b, i) == b':' || matches!(word, "is" | "was" | "=" | "/");
        if s < windows.tested_until {
            continue;
        }
        windows.tested_until = i;
        if candidate(word) || (signalled && word.len() <= 256 && value::password_like(word)) {
            spans.push(Span::new(vs, ve, kind, 4));
            return true;
        }
        // a sentence ends
        if matches!(before(b, i), b'.' | b';' | b'?') && i - s > 1 {
            return false;
        }
    }
    false
}
