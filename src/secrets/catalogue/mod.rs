//! Secrets by rules as data: the field's catalogue, gitleaks' `config/gitleaks.toml` (MIT, see
//! `LICENSE` here), vendored unchanged, then Synapse's own rules in its format (`synapse.toml`);
//! `build.rs` writes both out as static tables, with the index of their keywords. Which release,
//! its checksum and how to update it: `docs/secrets.md`.
//!
//! gitleaks' semantics, minus what needs a file or a commit: one pass finds the rules'
//! keywords (case-insensitive, [`keywords`]); only a rule whose keyword is in the text (or that has
//! none) runs its regex, compiled at its first use, so a text pays for the rules it may trigger.
//! A match's secret is its `secretGroup`, else its first non-empty group, else the match; it is
//! dropped if its Shannon entropy is at or under the rule's floor, or if the global allowlist or
//! one of the rule's allows it (regexes on the secret, the match or the line, stopwords in the
//! secret, all criteria under `condition = "AND"`), or if it is a look-alike by Synapse's own
//! judgement ([`strength::excluded`]). Rules that apply to file paths only are left out, and so is
//! an allowlist that needs a path or a commit under `AND`; the generic rule is left to Synapse's
//! own reader (`LEFT_TO_SYNAPSE` in `build.rs`).
//!
//! The rules are Go RE2 patterns; the `regex` crate reads all of v8.30.1's as written, with
//! ASCII classes as in Go (`(?-u)`); `build.rs` stops the build on a rule that does not compile.

use std::sync::OnceLock;

use regex::bytes::Regex;

use super::{line_around, strength, Span};

/// A rule as `build.rs` writes it out: those of gitleaks v8.30.1's `gitleaks.toml` that read
/// text, then `synapse.toml`'s.
struct Rule {
    id: &'static str,
    /// Synapse's own rule (`synapse.toml`): its regex already says what the value is, so only a
    /// placeholder (or a value read by its place that names itself) is kept, not all `excluded`.
    own: bool,
    pattern: &'static str,
    secret_group: usize,
    entropy: f64,
    allowlists: &'static [Allowlist],
}

/// What an allowlist's regexes are matched against. (The rules of v8.30.1 that Synapse runs
/// use `Secret` only; the others are gitleaks' too and an update may bring them.)
#[derive(Clone, Copy)]
#[allow(dead_code)]
enum Target {
    Secret,
    Match,
    Line,
}

struct Allowlist {
    /// Its number in `ALLOWED`, where its regexes are compiled at first use.
    n: usize,
    target: Target,
    /// `condition = "AND"`: regexes and stopwords must both allow (when given).
    all: bool,
    /// Under `AND`, a path or commit criterion no text can meet: the allowlist never applies.
    unmet: bool,
    patterns: &'static [&'static str],
    /// Lowercase: compared without case, as gitleaks does.
    stopwords: &'static [&'static str],
}

// `RULES`, `GLOBAL`, and `KEYWORDS` (by their first two bytes, each with the rules it starts),
// `STARTS` (a bit for each keyword's first two bytes), `ALWAYS` (rules with no keyword),
// `REGEXES` and `ALLOWED` (compiled at first use).
include!(concat!(env!("OUT_DIR"), "/gitleaks.rs"));

/// Two bytes as one number, lowercase.
fn pair(a: u8, b: u8) -> usize {
    usize::from(a.to_ascii_lowercase()) << 8 | usize::from(b.to_ascii_lowercase())
}

/// Calls `hit` with the rules of every keyword in `text`, case-insensitive as gitleaks finds
/// them. `STARTS` sends the pass to the few keywords that start with the two bytes at hand. An
/// Aho-Corasick automaton of the same keywords took 350 to 500 µs to build, which every hook
/// process would pay; this index is built by `build.rs` and scans 4 KB as fast.
fn keywords(text: &[u8], mut hit: impl FnMut(&[usize])) {
    for (i, w) in text.windows(2).enumerate() {
        let [a, b] = w else { continue };
        let s = pair(*a, *b);
        if STARTS
            .get(s / 64)
            .is_none_or(|bits| bits & (1 << (s % 64)) == 0)
        {
            continue;
        }
        let rest = text.get(i..).unwrap_or_default();
        let first = KEYWORDS.partition_point(|(at, _, _)| *at < s);
        for (_, word, rules) in KEYWORDS
            .iter()
            .skip(first)
            .take_while(|(at, _, _)| *at == s)
        {
            if rest
                .get(..word.len())
                .is_some_and(|r| r.eq_ignore_ascii_case(word.as_bytes()))
            {
                hit(rules);
            }
        }
    }
}

/// A Go RE2 pattern as the `regex` crate reads it, with Go's ASCII classes (or with Unicode
/// ones, which a class naming a non-ASCII character needs); `None` if it does not compile.
fn compile(pattern: &str) -> Option<Regex> {
    Regex::new(&format!("(?-u){pattern}"))
        .or_else(|_| Regex::new(pattern))
        .ok()
}

impl Allowlist {
    /// Whether this allowlist lets a finding through as harmless.
    fn allows(&self, secret: &[u8], whole: &[u8], line: &[u8]) -> bool {
        if self.unmet {
            return false;
        }
        let target = match self.target {
            Target::Secret => secret,
            Target::Match => whole,
            Target::Line => line,
        };
        let Some(regexes) = ALLOWED.get(self.n) else {
            return false;
        };
        let regexes =
            regexes.get_or_init(|| self.patterns.iter().filter_map(|p| compile(p)).collect());
        let by_regex = !regexes.is_empty() && regexes.iter().any(|r| r.is_match(target));
        let lower = String::from_utf8_lossy(secret).to_lowercase();
        let by_word = self.stopwords.iter().any(|w| lower.contains(w));
        if self.all {
            (regexes.is_empty() || by_regex) && (self.stopwords.is_empty() || by_word)
        } else {
            by_regex || by_word
        }
    }
}

/// Rank of the catalogue's spans: below (more specific than) a key's value, as a vendor's rule
/// names the vendor.
const RANK: u8 = 1;

/// Adds a span for every secret a catalogue rule finds in `text`.
pub(super) fn scan(text: &str, spans: &mut Vec<Span>) {
    let bytes = text.as_bytes();
    let mut run = vec![false; RULES.len()];
    let mut start = |rules: &[usize]| {
        for &i in rules {
            run.get_mut(i).into_iter().for_each(|r| *r = true);
        }
    };
    start(ALWAYS);
    keywords(bytes, start);
    for ((rule, regex), _) in RULES.iter().zip(&REGEXES).zip(&run).filter(|(_, &on)| on) {
        let Some(regex) = regex.get_or_init(|| compile(rule.pattern)) else {
            continue;
        };
        for caps in regex.captures_iter(bytes) {
            let Some(whole) = caps.get(0) else { continue };
            // gitleaks trims newlines off a match before it reads the secret in it.
            let (mut start, mut end) = (whole.start(), whole.end());
            while start < end && bytes.get(start) == Some(&b'\n') {
                start += 1;
            }
            while end > start && bytes.get(end - 1) == Some(&b'\n') {
                end -= 1;
            }
            let group = if rule.secret_group > 0 {
                caps.get(rule.secret_group)
            } else {
                caps.iter().skip(1).flatten().find(|g| !g.is_empty())
            };
            let (s, e) = group.map_or((start, end), |g| (g.start(), g.end()));
            let (Some(secret), Some(matched)) = (bytes.get(s..e), bytes.get(start..end)) else {
                continue;
            };
            if secret.is_empty()
                || (rule.entropy != 0.0 && strength::entropy(secret) <= rule.entropy)
            {
                continue;
            }
            let (line_start, line_end) = line_around(text, start, end);
            let line = bytes.get(line_start..line_end).unwrap_or_default();
            if std::iter::once(&GLOBAL)
                .chain(rule.allowlists)
                .any(|a| a.allows(secret, matched, line))
            {
                continue;
            }
            let excluded = match rule.own {
                // (a value a rule reads by its place, not its shape, may name itself:
                // `app:mysecretpassword@`)
                true => {
                    strength::placeholder(secret)
                        || rule.secret_group > 0
                            && std::str::from_utf8(secret).is_ok_and(strength::names_itself)
                }
                false => std::str::from_utf8(secret).is_ok_and(strength::excluded),
            };
            // (`guest:guest@`, `admin/admin`: a value that repeats the user before it is a
            // default, not a secret)
            let user = bytes
                .get(..s)
                .and_then(|h| h.strip_suffix(b":").or(h.strip_suffix(b"/")));
            let repeats = user.is_some_and(|h| {
                h.len() >= secret.len()
                    && h.get(h.len() - secret.len()..)
                        .is_some_and(|u| u.eq_ignore_ascii_case(secret))
                    && !h
                        .get(..h.len() - secret.len())
                        .and_then(|r| r.last())
                        .is_some_and(u8::is_ascii_alphanumeric)
            });
            if excluded || repeats {
                continue;
            }
            // (a token longer than the rule's pattern: the rest of it is the secret's too)
            let tail = bytes.get(e..).unwrap_or_default().iter().take(256);
            let e = e + tail.take_while(|c| c.is_ascii_alphanumeric()).count();
            spans.push(Span::new(s, e, rule.id, RANK));
        }
    }
}
