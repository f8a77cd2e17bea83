//! Vendor secrets by the field's rule catalogue: gitleaks' `config/gitleaks.toml` (MIT, see
//! `LICENSE` here), vendored as data; `build.rs` writes it out as static tables, read here at
//! first use. Which release, its checksum and how to update it: `docs/secrets.md`.
//!
//! gitleaks' semantics, minus what needs a file or a commit: one pass finds the rules'
//! keywords (case-insensitive, [`Keywords`]); only a rule whose keyword is in the text (or that has
//! none) runs its regex, compiled at its first use, so a text pays for the rules it may trigger.
//! A match's secret is its `secretGroup`, else its first non-empty group, else the match; it is
//! dropped if its Shannon entropy is at or under the rule's floor, or if the global allowlist or
//! one of the rule's allows it (regexes on the secret, the match or the line, stopwords in the
//! secret, all criteria under `condition = "AND"`), or if it is a look-alike by Synapse's own
//! judgement ([`strength::excluded`]). Rules that apply to file paths only are left out, and so is
//! an allowlist that needs a path or a commit under `AND`; the generic rule is left to Synapse's
//! own reader ([`LEFT_TO_SYNAPSE`]).
//!
//! The rules are Go RE2 patterns; the `regex` crate reads all of v8.30.1's as written, with
//! ASCII classes as in Go (`(?-u)`); `build.rs` stops the build on a rule that does not compile.

use std::collections::HashMap;
use std::sync::OnceLock;

use regex::bytes::Regex;

use super::{strength, Span};

/// A rule of gitleaks v8.30.1's `config/gitleaks.toml`, as `build.rs` writes it out.
struct RuleData {
    id: &'static str,
    /// Synapse's own rule (`synapse.toml`): its shapes are judged already, so only a
    /// placeholder is let through, not what `excluded` rules out.
    own: bool,
    regex: Option<&'static str>,
    /// Whether the rule names the files it applies to.
    path: bool,
    secret_group: usize,
    entropy: f64,
    keywords: &'static [&'static str],
    allowlists: &'static [AllowlistData],
}

struct AllowlistData {
    regexes: &'static [&'static str],
    stopwords: &'static [&'static str],
    /// How many path and commit criteria it has (no text meets one).
    paths: usize,
    commits: usize,
    /// `secret`, `match` or `line`.
    regex_target: &'static str,
    /// `OR` or `AND`.
    condition: &'static str,
}

// `RULES` and `GLOBAL`, from `src/secrets/catalogue/gitleaks.toml`.
include!(concat!(env!("OUT_DIR"), "/gitleaks.rs"));

/// What an allowlist's regexes are matched against.
#[derive(Clone, Copy)]
enum Target {
    Secret,
    Match,
    Line,
}

struct Allowlist {
    target: Target,
    /// `condition = "AND"`: regexes and stopwords must both allow (when given).
    all: bool,
    /// Under `AND`, a path or commit criterion no text can meet: the allowlist never applies.
    unmet: bool,
    patterns: &'static [&'static str],
    regexes: OnceLock<Vec<Regex>>,
    /// Compared without case, as gitleaks lowercases both sides.
    stopwords: &'static [&'static str],
}

struct Rule {
    id: &'static str,
    own: bool,
    pattern: &'static str,
    regex: OnceLock<Option<Regex>>,
    secret_group: usize,
    entropy: f64,
    allowlists: Vec<Allowlist>,
}

struct Catalogue {
    rules: Vec<Rule>,
    /// The rules each keyword (by its number in `keywords`) starts.
    by_keyword: Vec<Vec<usize>>,
    keywords: Keywords,
    /// Rules with no keyword: they always run.
    always: Vec<usize>,
    global: Allowlist,
}

/// The rules' keywords, found in one pass over a text, case-insensitive as gitleaks finds them.
///
/// Every keyword has two bytes or more: a bit for each keyword's first two (lowercase) bytes
/// sends the pass to the few keywords that start there. An Aho-Corasick automaton of the same
/// keywords took 350 to 500 µs to build, which every hook process would pay; this index takes
/// a few microseconds and scans 4 KB in as many as the automaton did.
struct Keywords {
    /// Bit `a << 8 | b` set when a keyword starts with the bytes `a`, `b`.
    starts: Vec<u64>,
    /// The keywords (lowercase) by their first two bytes, with their numbers.
    sorted: Vec<(usize, String, usize)>,
}

/// Two bytes as one number, lowercase.
fn pair(a: u8, b: u8) -> usize {
    usize::from(a.to_ascii_lowercase()) << 8 | usize::from(b.to_ascii_lowercase())
}

/// A keyword's first two bytes as one number.
fn start(word: &str) -> usize {
    match word.as_bytes() {
        [a, b, ..] => pair(*a, *b),
        _ => 0,
    }
}

impl Keywords {
    fn new(words: &[String]) -> Keywords {
        let mut starts = vec![0u64; 1024];
        let mut sorted: Vec<(usize, String, usize)> = words
            .iter()
            .zip(0..)
            .map(|(w, k)| (start(w), w.clone(), k))
            .collect();
        sorted.sort();
        for (s, _, _) in &sorted {
            starts
                .get_mut(s / 64)
                .into_iter()
                .for_each(|b| *b |= 1 << (s % 64));
        }
        Keywords { starts, sorted }
    }

    /// Calls `hit` with the number of every keyword in `text` (once per occurrence).
    fn find(&self, text: &[u8], mut hit: impl FnMut(usize)) {
        for (i, w) in text.windows(2).enumerate() {
            let [a, b] = w else { continue };
            let s = pair(*a, *b);
            if self
                .starts
                .get(s / 64)
                .is_none_or(|bits| bits & (1 << (s % 64)) == 0)
            {
                continue;
            }
            let rest = text.get(i..).unwrap_or_default();
            let first = self.sorted.partition_point(|(at, _, _)| *at < s);
            for (_, word, k) in self
                .sorted
                .get(first..)
                .unwrap_or_default()
                .iter()
                .take_while(|(at, _, _)| *at == s)
            {
                if rest
                    .get(..word.len())
                    .is_some_and(|r| r.eq_ignore_ascii_case(word.as_bytes()))
                {
                    hit(*k);
                }
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
    fn new(data: &'static AllowlistData) -> Allowlist {
        let all = data.condition == "AND";
        Allowlist {
            target: match data.regex_target {
                "match" => Target::Match,
                "line" => Target::Line,
                _ => Target::Secret,
            },
            all,
            unmet: all && data.paths + data.commits > 0,
            patterns: data.regexes,
            regexes: OnceLock::new(),
            stopwords: data.stopwords,
        }
    }

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
        let regexes = self
            .regexes
            .get_or_init(|| self.patterns.iter().filter_map(|p| compile(p)).collect());
        let by_regex = !regexes.is_empty() && regexes.iter().any(|r| r.is_match(target));
        let lower = String::from_utf8_lossy(secret).to_lowercase();
        // Lowered here, not at load: only a finding pays, not every process.
        let by_word = self
            .stopwords
            .iter()
            .any(|w| lower.contains(w.to_lowercase().as_str()));
        if self.all {
            (regexes.is_empty() || by_regex) && (self.stopwords.is_empty() || by_word)
        } else {
            by_regex || by_word
        }
    }
}

fn load() -> Catalogue {
    let mut rules = Vec::new();
    // Each keyword once, with the rules it starts.
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut words: Vec<String> = Vec::new();
    let mut by_keyword: Vec<Vec<usize>> = Vec::new();
    let mut always = Vec::new();
    for r in RULES {
        // A rule with a path applies to files of that name only; Synapse stores text, not files.
        let (Some(pattern), false) = (r.regex, r.path) else {
            continue;
        };
        if LEFT_TO_SYNAPSE.contains(&r.id) {
            continue;
        }
        let at = rules.len();
        if r.keywords.is_empty() {
            always.push(at);
        }
        for k in r.keywords {
            let i = *index.entry(k.to_lowercase()).or_insert_with(|| {
                words.push(k.to_lowercase());
                by_keyword.push(Vec::new());
                words.len() - 1
            });
            by_keyword.get_mut(i).into_iter().for_each(|v| v.push(at));
        }
        rules.push(Rule {
            id: r.id,
            own: r.own,
            pattern,
            regex: OnceLock::new(),
            secret_group: r.secret_group,
            entropy: r.entropy,
            allowlists: r.allowlists.iter().map(Allowlist::new).collect(),
        });
    }
    let keywords = Keywords::new(&words);
    Catalogue {
        rules,
        by_keyword,
        keywords,
        always,
        global: Allowlist::new(&GLOBAL),
    }
}

fn catalogue() -> &'static Catalogue {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUE.get_or_init(load)
}

/// Rank of the catalogue's spans: below (more specific than) a key's value, as a vendor's rule
/// names the vendor.
const RANK: u8 = 1;

/// Rules Synapse leaves to its own reader (`reader`, `strength`). gitleaks'
/// `generic-api-key` takes any word with `key`, `auth` or `access` in it for a key, and on the
/// development sets changed 8 look-alikes the reader keeps (publishable and site keys, an
/// idempotency key's UUID, a digest under `DIGEST`, a lockfile hash) while masking no secret the
/// reader missed.
const LEFT_TO_SYNAPSE: &[&str] = &["generic-api-key"];

/// Adds a span for every secret a catalogue rule finds in `text`.
pub(super) fn scan(text: &str, spans: &mut Vec<Span>) {
    let cat = catalogue();
    let bytes = text.as_bytes();
    let mut run = vec![false; cat.rules.len()];
    for i in &cat.always {
        run.get_mut(*i).into_iter().for_each(|r| *r = true);
    }
    cat.keywords.find(bytes, |k| {
        for i in cat.by_keyword.get(k).into_iter().flatten() {
            run.get_mut(*i).into_iter().for_each(|r| *r = true);
        }
    });
    for (rule, _) in cat.rules.iter().zip(&run).filter(|(_, &on)| on) {
        let Some(regex) = rule.regex.get_or_init(|| compile(rule.pattern)) else {
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
            let line_start = bytes
                .get(..start)
                .and_then(|b| b.iter().rposition(|&c| c == b'\n'))
                .map_or(0, |p| p + 1);
            let line_end = bytes
                .get(end..)
                .and_then(|b| b.iter().position(|&c| c == b'\n'))
                .map_or(bytes.len(), |p| end + p);
            let line = bytes.get(line_start..line_end).unwrap_or_default();
            if std::iter::once(&cat.global)
                .chain(&rule.allowlists)
                .any(|a| a.allows(secret, matched, line))
            {
                continue;
            }
            let excluded = match rule.own {
                true => strength::placeholder(secret),
                false => std::str::from_utf8(secret).is_ok_and(strength::excluded),
            };
            if excluded {
                continue;
            }
            // (a token longer than the rule's pattern: the rest of it is the secret's too)
            let tail = bytes.get(e..).unwrap_or_default().iter().take(256);
            let e = e + tail.take_while(|c| c.is_ascii_alphanumeric()).count();
            spans.push(Span::new(s, e, rule.id, RANK));
        }
    }
}
