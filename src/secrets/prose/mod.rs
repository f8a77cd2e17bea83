//! Secrets in sentences. After a word such as "password" or "secret" (in a few languages, also
//! inflected or last in a compound: `lösenordet`, `Client-Secret`), among the next few words of
//! its line: a value that passes [`value::strict`] (it looks generated, or like a human
//! password, which the prose around it does not), or right after the trigger, `label:` or a
//! copula (`is`, `est`, `è`, `lautet`), one that is [`announced`]: shaped like a password, a
//! random key or a passphrase. Failing that, the reply on the next line when the trigger's line
//! asks a question (`what's the pw?` then `tomas: X`), or a few words before the trigger with a
//! copula between (`use X as the password`). Triggers in other scripts live in [`scripts`]. Two
//! kinds admit only a shape of their own, where announced: a PIN or passcode (four to eight
//! digits) and a word for key with no qualifier before or after it (an API key's shape).

#![deny(clippy::string_slice, clippy::indexing_slicing)]

mod scripts;

pub(super) use scripts::non_ascii;

use super::{at, before, value, Span, WordFilter, MARKER};
use scripts::cut_wide;

/// Words that announce a credential, lowercase, with the kind of what follows.
const TRIGGERS: &[(&str, &str)] = &[
    ("password", "password"),
    ("passwd", "password"),
    ("passphrase", "passphrase"),
    ("passcode", "pin"),
    ("pin", "pin"),
    ("pw", "password"),
    ("pwd", "password"),
    ("login", "password"),
    ("credentials", "credentials"),
    ("credential", "credentials"),
    ("creds", "credentials"),
    ("secret", "secret"),
    ("token", "token"),
    // (`pass` alone is a verb too: `pass X` needs a value as strict as any other)
    ("pass", "password"),
    ("apikey", "api key"),
    ("authtoken", "token"),
    ("psk", "pre-shared key"),
    // `API key`, `license key`: only after a qualifier (see `in_run`)
    ("key", "api key"),
    // French `mot de passe`, `mdp`; Spanish `clave`
    ("passe", "password"),
    ("mdp", "password"),
    ("clave", "password"),
    ("jeton", "token"),
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
    ("токен", "token"),
    ("토큰", "token"),
    // "key" in other languages: like `key`, only with a qualifier (`API-Schlüssel`, `clé API`)
    ("schlüssel", "api key"),
    ("ключ", "api key"),
    ("clé", "api key"),
    ("chave", "api key"),
    ("chiave", "api key"),
    ("sleutel", "api key"),
    ("klucz", "api key"),
    ("anahtar", "api key"),
    ("키", "api key"),
];

/// How far after the trigger a value may be: words, and bytes.
const WINDOW_WORDS: usize = 12;
const WINDOW_BYTES: usize = 240;
/// How many words before the trigger a value may be (`use X as the password`).
const WINDOW_BACK: usize = 6;

/// Words that say the value comes next (`is`, a dash, and the same in other languages).
#[rustfmt::skip]
const COPULAS: &[&str] = &[
    "is", "was", "are", "=", "/", "—", "–", "-", "->", "=>", "→", "est", "était", "es", "era",
    "è", "é", "ist", "war", "lautet", "är", "er", "jest", "je", "it's", "it’s",
];

/// Words between an announcing word and the value that keep it announced: `the password is
/// now X`, `I set the pass to X`, `pw was changed to X`; "now" in other languages too (`ist
/// jetzt X`, `est maintenant X`).
#[rustfmt::skip]
const CONNECTIVES: &[&str] = &[
    "now", "still", "currently", "temporarily", "just", "set", "reset", "changed", "to", "it",
    "jetzt", "nun", "maintenant", "désormais", "ahora", "agora", "ora", "adesso", "nu", "teraz",
    "теперь", "сейчас", "şimdi",
];

/// Verbs that announce a new value later in a trigger's sentence, even after an old one: `the
/// pw was X; I reset it to Y`, `rotated to Y`.
const CHANGED: &[&str] = &["reset", "changed", "set", "rotated", "updated"];

/// Word separators; a newline also closes a window.
fn space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

/// `s..e` without leading `"'(`[<*:` and trailing `"'):;,.]>*`.
fn trim(b: &[u8], mut s: usize, mut e: usize) -> (usize, usize) {
    while s < e
        && matches!(
            at(b, s),
            b'"' | b'\'' | b'(' | b'`' | b'[' | b'<' | b'*' | b':'
        )
    {
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
    // (inflected: `lösenordet`, `şifresi`: the trigger and an ending of up to three letters)
    let lower: String = word.chars().flat_map(char::to_lowercase).collect();
    TRIGGERS
        .iter()
        .filter(|(t, _)| t.chars().next() == first)
        .find(|(t, _)| {
            lower.strip_prefix(t).is_some_and(|ending| {
                ending.chars().count() <= 3 && ending.chars().all(char::is_alphabetic)
            })
        })
        .map(|&(_, k)| k)
}

/// Which words have been tested already: windows overlap, words are tested once.
#[derive(Default)]
pub(super) struct Windows {
    tested_until: usize,
}

/// The key run `s..e` (see [`super::walk`]): if it is an ASCII trigger standing as a word of its
/// own (`password:`, `"secret"`, not `DB_PASSWORD` or `/auth/token`), or the last of words
/// joined by dashes (`Client-Secret`), look through its window.
#[inline(never)]
pub(super) fn in_run(text: &str, s: usize, e: usize, windows: &mut Windows, spans: &mut Vec<Span>) {
    let b = text.as_bytes();
    let opens = |c: u8| {
        space(c)
            || matches!(
                c,
                0 | b'"' | b'\'' | b'(' | b'`' | b'[' | b'<' | b'*' | b'-'
            )
    };
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
    // `key` counts as a credential's after a qualifier (`API key for X is ...`); without one,
    // only an API key's shape counts (`uses key <32 hex>`, not `the key is rotated`)
    let kind = if needs_qualifier(kind, text.get(ts..te).unwrap_or_default())
        && !qualified(b, ts)
        && !qualified_after(text, te)
    {
        if not_secret_before(b, ts) {
            return;
        }
        "key"
    } else {
        kind
    };
    let trigger = Trigger::new(kind, text.get(ts..te).unwrap_or_default());
    window(text, s, e, trigger, windows, spans);
}

/// Whether `to` is a copula after this trigger: the word for password in Polish, Czech, Slovak
/// and Slovenian, whose sentences say "the password, that is X" (`hasło to X`).
fn to_is(word: &str) -> bool {
    ["hasło", "heslo", "geslo"]
        .iter()
        .any(|t| word.to_lowercase().starts_with(t))
}

/// English words for a password (see [`Firm`]).
const ENGLISH: &[&str] = &["password", "passwd", "passphrase", "pw", "pwd"];

/// Where, after a word that names nothing but a password (not `pass`, a verb too, or
/// `login`), a word with two digits or more is a password if it could be one after a key.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Firm {
    No,
    /// An English word (see [`ENGLISH`]): only where nothing but copulas and words of time or
    /// change stand between (`password to X`, `password is now X`). The key rules read
    /// `password is X`; a sentence that goes on (`the password field is S3Bucket2`) needs a
    /// password's shape.
    English,
    /// A word in another language: right after it, or after a copula of letters, a dash or a
    /// label's colon (`şifresi X`, `Passwort ... lautet X`, `Пароль для стенда — X`).
    Foreign,
}

/// Copulas of letters in languages whose word for "is" is not in [`COPULAS`] (Finnish and
/// Estonian `on`), counted only after a [`Firm::Foreign`] trigger.
const FOREIGN_COPULAS: &[&str] = &["on", "—", "–"];

/// What a trigger announces.
#[derive(Clone, Copy)]
pub(super) struct Trigger {
    pub kind: &'static str,
    pub firm: Firm,
    /// `to` is a copula after it (see [`to_is`]).
    pub to_is: bool,
}

impl Trigger {
    /// The trigger `word`, announcing `kind`.
    pub(super) fn new(kind: &'static str, word: &str) -> Trigger {
        let is = |list: &[&str]| list.iter().any(|w| word.eq_ignore_ascii_case(w));
        let firm = if kind != "password" || is(&["pass", "login"]) {
            Firm::No
        } else if is(ENGLISH) {
            Firm::English
        } else {
            Firm::Foreign
        };
        Trigger {
            kind,
            firm,
            to_is: to_is(word),
        }
    }
}

/// Kinds whose value only an announcement and a shape of their own admit (see [`announced`]):
/// nothing strict in the window counts by itself.
fn narrow(kind: &str) -> bool {
    matches!(kind, "pin" | "key")
}

/// Whether the word before `s` makes `key` something else (`cache key`, `sort key`; see
/// [`NOT_SECRET`](super::keys::NOT_SECRET)).
fn not_secret_before(b: &[u8], s: usize) -> bool {
    word_before(b, s, b"-_ ").is_some_and(|w| super::keys::is(w, super::keys::NOT_SECRET))
}

/// The word of letters (at most 16) before `s`, with one of `joiners` between.
fn word_before<'a>(b: &'a [u8], s: usize, joiners: &[u8]) -> Option<&'a [u8]> {
    if s < 2 || !joiners.contains(&before(b, s)) {
        return None;
    }
    let e = s - 1;
    let mut i = e;
    while i > 0 && before(b, i).is_ascii_alphabetic() && e - i < 16 {
        i -= 1;
    }
    b.get(i..e).filter(|w| !w.is_empty())
}

/// Whether a trigger is a word for "key", which names a secret only with a qualifier.
fn needs_qualifier(kind: &str, word: &str) -> bool {
    kind == "api key" && !word.eq_ignore_ascii_case("apikey")
}

/// Words after a word for "key" that make it a credential (`clé API`, `chave secreta`), with
/// `de`/`da`/`d'` between when a language puts one there (`chave da API`).
#[rustfmt::skip]
const QUALIFIERS_AFTER: &[&str] = &[
    "api", "secrète", "secreta", "secreto", "segreta", "segreto", "privée", "privada", "privata",
    "secret", "d'api", "d’api",
];

/// Whether a qualifier of `key` follows `e` (see [`QUALIFIERS_AFTER`]).
fn qualified_after(text: &str, e: usize) -> bool {
    // (two words: 64 bytes are enough, and keep the look bounded)
    let rest = text.get(e..).unwrap_or_default();
    let end = (0..=rest.len().min(64))
        .rev()
        .find(|&i| rest.is_char_boundary(i))
        .unwrap_or(0);
    let rest = rest.get(..end).unwrap_or_default();
    let mut words = rest
        .split_whitespace()
        .take(2)
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’'));
    let is = |w: &str| QUALIFIERS_AFTER.iter().any(|q| w.to_lowercase() == *q);
    match words.next() {
        Some("de" | "da" | "do" | "del" | "di") => words.next().is_some_and(is),
        Some(w) => is(w),
        None => false,
    }
}

/// Whether the word before `s` (one space or dash between) is a qualifier of `key` (`API`,
/// `license`, `access`, the header `X-Api-Key`).
fn qualified(b: &[u8], s: usize) -> bool {
    word_before(b, s, b" -").is_some_and(|w| super::keys::is(w, super::keys::KEY_QUALIFIERS))
}

/// A word that may be the value: not another `key=value` (the assignment rules read those),
/// and strict.
fn candidate(word: &str) -> bool {
    word.len() <= 256 && !value::assignment_like(word) && value::strict(word)
}

/// A word the sentence announces as the value (right after the trigger, `label:`, a copula, a
/// reply): strict, or shaped like a password ([`value::password_like`], words and a number),
/// like a random key (a hex key too), or, for a password, like a passphrase of dashed words.
fn announced(word: &str, kind: &str) -> bool {
    // a PIN or a passcode is four to eight digits (`pin` names pins of a board and of code
    // too, so nothing else counts: `#[pin] field: Type<T>`)
    if kind == "pin" {
        return (4..=8).contains(&word.len()) && word.bytes().all(|c| c.is_ascii_digit());
    }
    // a `key` with no qualifier: only an API key's shape
    if kind == "key" {
        return value::long_key(word);
    }
    word.len() <= 256
        && !value::assignment_like(word)
        && (value::strict(word)
            || value::password_like(word)
            || value::word_password(word)
            || value::random_key(word)
            || value::passphrase_for(kind, word))
}

/// The first strict value among the next few words of the line after a trigger at
/// `start..from`, or else among the few words before it in the same sentence (`use X as the
/// password`).
fn window(
    text: &str,
    start: usize,
    from: usize,
    trigger: Trigger,
    windows: &mut Windows,
    spans: &mut Vec<Span>,
) {
    let kind = trigger.kind;
    if !after(text, from, trigger, windows, spans) && !reply(text, from, kind, spans) {
        before_trigger(text, start, kind, spans);
    }
}

/// How long a line with a question and the label before a reply may be.
const QUESTION_LINE: usize = 512;
const SPEAKER: usize = 32;

/// When the trigger's line is a question (`what's the pw for the test tenant?`), the first word
/// of the next line, after a speaker's `name:` (`tomas: X`), if it is [`announced`].
fn reply(text: &str, from: usize, kind: &'static str, spans: &mut Vec<Span>) -> bool {
    let b = text.as_bytes();
    let rest = b.get(from..).unwrap_or_default();
    let Some(n) = rest.iter().take(QUESTION_LINE).position(|&c| c == b'\n') else {
        return false;
    };
    let line = rest.get(..n).unwrap_or_default().trim_ascii_end();
    if line.last() != Some(&b'?') {
        return false;
    }
    let mut i = from + n + 1;
    while matches!(at(b, i), b' ' | b'\t') {
        i += 1;
    }
    // the speaker: one word ending in `:`
    let w = b
        .get(i..)
        .unwrap_or_default()
        .iter()
        .take(SPEAKER)
        .take_while(|&&c| !space(c))
        .count();
    if w > 1 && at(b, i + w - 1) == b':' {
        i += w;
        while matches!(at(b, i), b' ' | b'\t') {
            i += 1;
        }
    }
    let e = i + b
        .get(i..)
        .unwrap_or_default()
        .iter()
        .take(257)
        .take_while(|&&c| !space(c))
        .count();
    let (vs, ve) = trim(b, i, e);
    let found = ve > vs && text.get(vs..ve).is_some_and(|v| announced(v, kind));
    if found {
        spans.push(Span::new(vs, ve, kind, 4));
    }
    found
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
        let shaped = !narrow(kind) && (candidate(word) || value::password_like(word));
        if copula && (shaped || announced(word, kind)) {
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
    trigger: Trigger,
    windows: &mut Windows,
    spans: &mut Vec<Span>,
) -> bool {
    let kind = trigger.kind;
    let b = text.as_bytes();
    let mut i = from;
    // the next word comes right after the trigger or a copula
    let mut copula_next = true;
    // only copulas and words of time or change since the trigger, and one of them at least
    let mut chain = true;
    let mut linked = false;
    let mut words = 0;
    // the word right after the trigger is announced by it (`password X`, `şifresi X`), as is
    // one after a `:` (`password: X`)
    let mut announcing = true;
    // a value was found; the window goes on for a new one (`... I reset it to Y`)
    let mut found = false;
    while words < WINDOW_WORDS && i < b.len() && i - from < WINDOW_BYTES {
        let c = at(b, i);
        if c == b'\n' {
            return found;
        }
        if space(c) {
            i += 1;
            continue;
        }
        let s = i;
        // a quoted passphrase, spaces and all (`pwd is "copper mango 71"`)
        if announcing && s >= windows.tested_until {
            if let Some((ps, pe)) = quoted_phrase(text, s, kind) {
                spans.push(Span::new(ps, pe, kind, 4));
                windows.tested_until = pe;
                i = pe;
                found = true;
                announcing = false;
                continue;
            }
        }
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
        let signalled = announcing;
        // (a word of its own, not code: `password: &str) -> Result<...>`, `<password>@host`)
        let placed = match trigger.firm {
            Firm::No => false,
            Firm::English => chain && linked,
            Firm::Foreign => copula_next,
        };
        let firm = placed
            && space(before(b, s))
            && !word.contains(['(', ')', '[', ']', '{', '}', '<', '>']);
        let copula = COPULAS.contains(&word) || (trigger.to_is && word == "to");
        let link = copula || CONNECTIVES.contains(&word) || CHANGED.contains(&word);
        chain &= link;
        linked |= link;
        // (what counts only after a foreign trigger: see `Firm::Foreign`)
        copula_next = (copula && word.starts_with(char::is_alphabetic))
            || FOREIGN_COPULAS.contains(&word)
            || before(b, i) == b':';
        // the next word is announced by `label:` or a copula, and still after a word that
        // only says when or how (`is now`, `was reset to`); a verb of change announces the
        // new value even after an old one
        announcing = before(b, i) == b':'
            || copula
            || CHANGED.contains(&word)
            || (signalled && CONNECTIVES.contains(&word));
        if s < windows.tested_until {
            continue;
        }
        windows.tested_until = i;
        if found && !signalled {
            continue;
        }
        // (a word that ends in a colon is a label, not a value: `max_login_attempts: 5`)
        if before(b, i) == b':' {
            continue;
        }
        // (a PIN or a bare key only where announced: see `announced`)
        if (!narrow(kind) && candidate(word))
            || (signalled && announced(word, kind))
            || (firm
                && word.bytes().filter(u8::is_ascii_digit).count() >= 2
                && value::keyed(word)
                && !value::assignment_like(word))
        {
            spans.push(Span::new(vs, ve, kind, 4));
            found = true;
            continue;
        }
        // `admin/X`, `user:X` where credentials are announced: the part after the user
        if signalled && credentials(text, vs, ve, kind, spans) {
            found = true;
            continue;
        }
        // a sentence ends
        if matches!(before(b, i), b'.' | b';' | b'?') && i - s > 1 {
            return found;
        }
    }
    found
}

/// Quotes that may hold a passphrase with spaces, opening and closing.
const QUOTES: &[(&str, &str)] = &[("\"", "\""), ("'", "'"), ("“", "”"), ("«", "»"), ("„", "“")];

/// A quoted phrase with a space at `s`, on its line and at most 128 bytes, that is a
/// passphrase: its inside (without spaces at its ends).
fn quoted_phrase(text: &str, s: usize, kind: &str) -> Option<(usize, usize)> {
    let rest = text.get(s..)?;
    let &(open, close) = QUOTES.iter().find(|(o, _)| rest.starts_with(o))?;
    let inside = rest.get(open.len()..)?;
    // (the closing quote within 128 bytes: the search is bounded whatever the text)
    let near = inside
        .as_bytes()
        .get(..inside.len().min(128 + close.len()))?;
    let n = near
        .windows(close.len())
        .position(|w| w == close.as_bytes())?;
    let phrase = inside.get(..n)?;
    let trimmed = phrase.trim_matches(' ');
    let lead = phrase.len() - phrase.trim_start_matches(' ').len();
    let ps = s + open.len() + lead;
    (!phrase.contains('\n') && trimmed.contains(' ') && value::passphrase_for(kind, trimmed))
        .then_some((ps, ps + trimmed.len()))
}

/// `user/password` or `user:password` at `vs..ve` where a sentence announces credentials or a
/// password (`creds are admin/X`): the password, if it passes [`value::keyed`], as after a key
/// (the pair's shape says as much), or after a word for credentials, if it is [`announced`] (a
/// passphrase; after "pass", `cargo:rustc-link-lib` is none). Whether it was found.
fn credentials(
    text: &str,
    vs: usize,
    ve: usize,
    kind: &'static str,
    spans: &mut Vec<Span>,
) -> bool {
    if !matches!(kind, "credentials" | "password") {
        return false;
    }
    let Some((user, pass)) = text.get(vs..ve).and_then(|w| w.split_once(['/', ':'])) else {
        return false;
    };
    let user_ok = user.len() <= 32
        && super::assignments::user_like(user)
        && user.bytes().any(|c| c.is_ascii_alphabetic());
    let found = user_ok
        && !pass.contains(['/', ':'])
        && (value::keyed(pass) || (kind == "credentials" && announced(pass, "password")));
    if found {
        let ps = vs + user.len() + 1;
        spans.push(Span::new(ps, ps + pass.len(), kind, 4));
    }
    found
}

/// The longest text [`bare`] reads word by word.
const BARE_TEXT: usize = 1 << 20;

/// A human password standing with no word to announce it (`logged in as deploy with X`): a word
/// of 8 to 64 characters that is a [`value::policy_password`] (no path, URL, address, code or
/// placeholder either).
pub(super) fn bare(text: &str, spans: &mut Vec<Span>) {
    let b = text.as_bytes();
    let mut i = 0;
    let end = b.len().min(BARE_TEXT);
    while i < end {
        if space(at(b, i)) {
            i += 1;
            continue;
        }
        let s = i;
        while i < end && !space(at(b, i)) {
            i += 1;
        }
        if i - s < 8 || i - s > 64 {
            continue;
        }
        let (vs, ve) = trim(b, s, i);
        let Some(word) = text.get(vs..ve) else {
            continue;
        };
        if word.contains(MARKER) {
            continue;
        }
        if value::policy_password(word) {
            spans.push(Span::new(vs, ve, "password", 5));
        }
    }
}
