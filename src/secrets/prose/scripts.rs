//! Triggers in scripts other than Latin (`пароль`, `密码`), and in scripts written without
//! spaces between words, where a trigger and its value may share one word
//! (`VPNのパスワードは「X」です`, `密码是X，...`): the walk over the words that are not ASCII,
//! and the wide punctuation that ends a value there.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::{
    announced, needs_qualifier, qualified, qualified_after, space, trigger, trim, window, Trigger,
    Windows,
};
use crate::secrets::{at, before, Span};

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
    ("密钥", "api key"),
    ("密鑰", "api key"),
    ("秘钥", "api key"),
    ("金鑰", "api key"),
    ("APIキー", "api key"),
    ("シークレット", "secret"),
];

/// Triggers in other scripts (`пароль`, `密码`): a walk over the words that are not ASCII.
pub(in crate::secrets) fn non_ascii(text: &str, windows: &mut Windows, spans: &mut Vec<Span>) {
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
        // (the last of words joined by dashes: `API-Schlüssel`)
        let (head, tail) = word.rsplit_once('-').unwrap_or(("", word));
        if let Some(kind) = trigger(tail) {
            let qualified = || {
                crate::secrets::keys::is(head.as_bytes(), crate::secrets::keys::KEY_QUALIFIERS)
                    || qualified(b, ts)
                    || qualified_after(text, te)
            };
            // (a word for key with no qualifier: only an API key's shape, see `announced`)
            let kind = if needs_qualifier(kind, tail) && !qualified() {
                "key"
            } else {
                kind
            };
            window(text, s, end, Trigger::new(kind, tail), windows, spans);
        } else if let Some((k, t, kind)) = INSIDE
            .iter()
            .find_map(|&(t, kind)| word.find(t).map(|k| (k, t, kind)))
        {
            let after = ts + k + t.len();
            if in_word(text, after, te, kind, spans) {
                continue;
            }
            // the value may follow a colon in the same word (`密码：X`)
            let rest = text.get(after..te).unwrap_or_default();
            let from = rest.find(['：', ':']).map_or(end, |c| {
                after
                    + c
                    + rest
                        .get(c..)
                        .map_or(1, |r| r.chars().next().map_or(1, char::len_utf8))
            });
            let trigger = Trigger::new(kind, t);
            window(text, s, from.min(end), trigger, windows, spans);
        }
    }
}

/// The value in the same word as its trigger, after it (`は「Slate.Poplar#67」です`,
/// `是Hazel*tidal1254?，`, `：Inlet.Harbor_72`): the first run of ASCII letters, digits and
/// punctuation in `from..to`, if it is a value the trigger announces. Whether one was found.
fn in_word(text: &str, from: usize, to: usize, kind: &'static str, spans: &mut Vec<Span>) -> bool {
    let b = text.as_bytes();
    // (only ASCII bytes are stopped at, and each is a character of its own)
    let mut i = from;
    while i < to && !at(b, i).is_ascii_graphic() {
        i += 1;
    }
    let s = i;
    while i < to && at(b, i).is_ascii_graphic() {
        i += 1;
    }
    let (vs, ve) = trim(b, s, i);
    let found = ve > vs && text.get(vs..ve).is_some_and(|v| announced(v, kind));
    if found {
        spans.push(Span::new(vs, ve, kind, 4));
    }
    found
}

/// Punctuation of scripts without spaces, which ends a value (`X，别外传`).
fn wide_punctuation(c: char) -> bool {
    matches!(c, '\u{3000}'..='\u{303f}' | '\u{ff01}'..='\u{ff0f}' | '\u{ff1a}'..='\u{ff20}' | '\u{ff3b}'..='\u{ff40}' | '\u{ff5b}'..='\u{ff65}')
}

/// `vs..ve` without wide punctuation at its start, and cut at the first inside it.
pub(super) fn cut_wide(text: &str, vs: usize, ve: usize) -> (usize, usize) {
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
