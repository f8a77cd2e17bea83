//! Secrets by rules as data: the field's catalogues, vendored unchanged (gitleaks' TOML, Nosey
//! Parker's and Kingfisher's YAML, each with its license in its folder), and Synapse's own rules
//! in gitleaks' format (`synapse.toml`); `build.rs` writes them out as static tables with one
//! index of their keywords. Sources, checksums, updates: `docs/secrets.md`; the rules not loaded
//! and why: `LEFT_OUT.md`.
//!
//! One pass finds the keywords (case-insensitive, [`keywords`]); only a rule whose keyword is in
//! the text runs its regex, compiled at its first use, so a text pays for the rules it may
//! trigger. A secret is dropped at or under the rule's entropy floor, when gitleaks' allowlists
//! allow it (regexes on the secret, the match or the line; stopwords; all criteria under
//! `condition = "AND"`, where a path or commit criterion is never met), or when Synapse judges it
//! a look-alike ([`Judge`]). Patterns compile with ASCII classes as in Go and Hyperscan (`(?-u)`).

use std::sync::OnceLock;

use regex::bytes::Regex;

use super::{line_around, strength, Span};

/// A rule as `build.rs` writes it out: those of gitleaks v8.30.1's `gitleaks.toml` that read
/// text, then `synapse.toml`'s, then Nosey Parker's and Kingfisher's that `LEFT_OUT.md` does not
/// name.
struct Rule {
    id: &'static str,
    judge: Judge,
    pattern: &'static str,
    secret_group: usize,
    entropy: f64,
    allowlists: &'static [Allowlist],
    /// The vendor of a YAML rule, numbered (0: none).
    vendor: usize,
    /// The id of an id-and-secret pair (a client id, an access key id): masked only in a text
    /// where a rule of its vendor found a secret.
    pair: bool,
    /// Whether the rule needs a keyword of a second part of its pattern too (see `KEYWORDS`).
    both: bool,
}

/// How a rule's finding is read and judged.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Judge {
    /// gitleaks': the `secretGroup`, else the first non-empty group, else the match; kept if
    /// [`strength::excluded`] calls it a look-alike.
    Vendor,
    /// `synapse.toml`'s: as gitleaks', but only a placeholder (or a value read by its place that
    /// names itself) is kept: the regex already says what the value is.
    Own,
    /// Nosey Parker's and Kingfisher's: every group (a client id and its secret; a user, a
    /// password and a host), each kept if `excluded` calls it a look-alike (the user, the host).
    Groups,
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

// `RULES`, `GLOBAL`, and `KEYWORDS` (by their first two bytes, each with the rules it starts,
// numbered twice over: `2 * rule` for a keyword, `2 * rule + 1` for one of its second part),
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

/// Adds a span for every secret a catalogue rule finds in `text`; then, if it found any, the
/// ids of a pair found beside a secret of their vendor.
pub(super) fn scan(text: &str, spans: &mut Vec<Span>) {
    // (bit 1: a keyword of the rule is in the text; bit 2: one of its second part's)
    let mut seen = vec![0u8; RULES.len()];
    let mut start = |rules: &[usize]| {
        for &i in rules {
            seen.get_mut(i / 2)
                .into_iter()
                .for_each(|r| *r |= 1 << (i % 2));
        }
    };
    start(ALWAYS);
    keywords(text.as_bytes(), start);
    let run = RULES
        .iter()
        .zip(&seen)
        .map(|(r, &s)| s == 3 || s == 1 && !r.both);
    let mut vendors = Vec::new();
    for pairs in [false, true] {
        for ((rule, regex), _) in RULES.iter().zip(&REGEXES).zip(run.clone()).filter(|p| p.1) {
            if rule.pair != pairs || pairs && !vendors.contains(&rule.vendor) {
                continue;
            }
            let before = spans.len();
            if let Some(regex) = regex.get_or_init(|| compile(rule.pattern)) {
                find(rule, regex, text, spans);
            }
            if spans.len() > before && rule.vendor > 0 {
                vendors.push(rule.vendor);
            }
        }
        if vendors.is_empty() {
            break;
        }
    }
}

/// Adds a span for every secret `rule` finds in `text`.
fn find(rule: &Rule, regex: &Regex, text: &str, spans: &mut Vec<Span>) {
    let bytes = text.as_bytes();
    for caps in regex.captures_iter(bytes) {
        let Some(whole) = caps.get(0) else { continue };
        // gitleaks trims newlines off a match before it reads the secret in it.
        let m = whole.as_bytes();
        let start = whole.start() + m.iter().take_while(|&&c| c == b'\n').count();
        let end = (whole.end() - m.iter().rev().take_while(|&&c| c == b'\n').count()).max(start);
        let mut groups: Vec<(usize, usize)> = caps
            .iter()
            .enumerate()
            .skip(1)
            .filter(|&(k, _)| rule.secret_group == 0 || k == rule.secret_group)
            .filter_map(|(_, g)| g.filter(|g| rule.secret_group > 0 || !g.is_empty()))
            .map(|g| (g.start(), g.end()))
            .take(if rule.judge == Judge::Groups { 8 } else { 1 })
            .collect();
        if groups.is_empty() {
            groups.push((start, end));
        }
        for &(s, e) in &groups {
            if let Some(span) = judge(rule, text, (s, e), (start, end)) {
                spans.push(span);
            }
        }
    }
}

/// The span of the secret `s..e` in the match `start..end`, unless a filter keeps it.
fn judge(
    rule: &Rule,
    text: &str,
    (s, e): (usize, usize),
    (start, end): (usize, usize),
) -> Option<Span> {
    let bytes = text.as_bytes();
    let (secret, matched) = (bytes.get(s..e)?, bytes.get(start..end)?);
    if secret.is_empty() || (rule.entropy != 0.0 && strength::entropy(secret) <= rule.entropy) {
        return None;
    }
    let (line_start, line_end) = line_around(text, start, end);
    let line = bytes.get(line_start..line_end).unwrap_or_default();
    if std::iter::once(&GLOBAL)
        .chain(rule.allowlists)
        .any(|a| a.allows(secret, matched, line))
    {
        return None;
    }
    let excluded = match rule.judge {
        // (a value a rule reads by its place, not its shape, may name itself:
        // `app:mysecretpassword@`)
        Judge::Own => {
            strength::placeholder(secret)
                || rule.secret_group > 0
                    && std::str::from_utf8(secret).is_ok_and(strength::names_itself)
        }
        _ => std::str::from_utf8(secret).is_ok_and(strength::excluded),
    };
    // (`guest:guest@`, `admin/admin`: a value that repeats the user before it is a default)
    let head = bytes
        .get(..s)
        .and_then(|h| h.strip_suffix(b":").or(h.strip_suffix(b"/")));
    let user = head.and_then(|h| h.len().checked_sub(secret.len()).map(|n| h.split_at(n)));
    let repeats = user.is_some_and(|(before, u)| {
        u.eq_ignore_ascii_case(secret) && !before.last().is_some_and(u8::is_ascii_alphanumeric)
    });
    if excluded || repeats {
        return None;
    }
    // (a token longer than the rule's pattern: the rest of it is the secret's too)
    let tail = bytes.get(e..).unwrap_or_default().iter().take(256);
    let e = e + tail.take_while(|c| c.is_ascii_alphanumeric()).count();
    Some(Span::new(s, e, rule.id, RANK))
}
