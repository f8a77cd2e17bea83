//! Conflicts: two memories about the same subject that disagree.
//!
//! Each memory is read into claims, clause by clause:
//! - a **value claim**: a number with its unit, a version, a port, a time of day or a short
//!   identifier, and its subject (the content words just around it, up to a comma);
//! - a **polarity claim**: the content words of a clause and whether it is negated ("no longer",
//!   "never", "don't", "disabled", ...).
//!
//! Two claims are about the same subject when one's subject words are all among the other's:
//! "webhook retries: 3" and "bumped webhook retries to 5" agree on the subject; "connect timeout
//! 5s" and "read timeout 30s" do not, because each names something the other lacks. Two value
//! claims of the same subject and kind conflict when their values differ (units are compared
//! after conversion, so "30s" equals "30000 ms"). Two polarity claims conflict when one negates
//! what the other states. A third rule catches identifiers no pattern names: two clauses equal
//! word for word except one short, code-like word ("eu cluster" / "us cluster").
//!
//! What is not a conflict: a value a memory gives as the old one ("from 10 to 20", "instead of
//! 3", "no longer 5", "was 5") is history, not a claim; different units measure different things;
//! dates, issue numbers and line numbers are not settings; environment names (prod, staging)
//! tell which thing, not what value.

use std::collections::BTreeSet;

use foldhash::HashSet;
use std::sync::OnceLock;

use crate::text::is_function_word;
use crate::text::{fold, WordStemmer};

/// What a claim says about its subject.
#[derive(Clone, Debug, PartialEq)]
pub enum Said {
    /// A quantity in a dimension ("time", "size", "percent", a counted noun, or "" for a bare
    /// number), as a number in the dimension's base unit; `shown` is how the memory wrote it.
    Quantity {
        dimension: String,
        amount: f64,
        shown: String,
    },
    /// A version, port, time of day or identifier, compared as text.
    Token { kind: &'static str, value: String },
    /// A statement (`false`) or its negation (`true`).
    Polarity { negated: bool },
}

/// One claim of a memory.
#[derive(Clone, Debug)]
pub struct Claim {
    pub said: Said,
    /// Stems of the subject's content words (and code words whole), sorted.
    pub subject: BTreeSet<String>,
    /// The subject as written, for explanations.
    pub words: Vec<String>,
    /// For each subject word, the content word written right before it (its modifier, in
    /// "connect timeout").
    pub before: Vec<(String, String)>,
    /// Environment names anywhere in the clause ("staging", "prod").
    pub environments: BTreeSet<String>,
    /// The code-like words of the subject (`payments-3`, `session.timeout.ms`).
    pub names: BTreeSet<String>,
}

impl Claim {
    /// A claim's identity: everything comparison reads. Equal signatures never conflict.
    pub fn signature(&self) -> String {
        let said = match &self.said {
            Said::Quantity {
                dimension, amount, ..
            } => format!("q{dimension}={amount}"),
            Said::Token { kind, value } => format!("t{kind}={value}"),
            Said::Polarity { negated } => format!("p{negated}"),
        };
        let subject: Vec<&str> = self.subject.iter().map(String::as_str).collect();
        let envs: Vec<&str> = self.environments.iter().map(String::as_str).collect();
        let before: Vec<String> = self
            .before
            .iter()
            .map(|(w, m)| format!("{m}>{w}"))
            .collect();
        format!(
            "{}|{}|{}|{said}",
            subject.join(" "),
            envs.join(" "),
            before.join(" ")
        )
    }
}

/// Everything conflict detection needs from one memory.
#[derive(Clone, Debug, Default)]
pub struct Profile {
    pub claims: Vec<Claim>,
    /// Each clause's words, folded, for the one-word-differs rule.
    pub clauses: Vec<Vec<Word>>,
    /// Code-like words that are not values: the names of what the memory is about
    /// (`payments-3`, `client_max_body_size`, `go vet`).
    pub names: BTreeSet<String>,
}

impl Profile {
    /// Whether each memory names something the other does not: then they are about two
    /// things ("the payments-3 service" and "the refunds-29 service", `session.timeout.ms` and
    /// `max.poll.interval.ms`), whatever their other words share.
    pub fn named_apart(&self, other: &Profile) -> bool {
        !self.names.is_subset(&other.names) && !other.names.is_subset(&self.names)
    }
}

/// A word of a clause.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Word {
    pub text: String,
    /// Written in backticks, or shaped like code (`eu-west-1`, `.env`).
    pub code: bool,
    /// Written in backticks.
    pub ticked: bool,
    /// A comma or dash follows it, or a parenthesis opens after it: the phrase ends here.
    pub pause: bool,
}

/// Words that carry no subject in a statement of a setting: verbs of setting and changing,
/// quantity nouns, and time adverbs. "The pool limit is now 20" is about "pool".
const GENERIC: &[&str] = &[
    "about",
    "again",
    "all",
    "also",
    "always",
    "anymore",
    "approx",
    "approximately",
    "around",
    "bump",
    "bumped",
    "cap",
    "capped",
    "change",
    "changed",
    "count",
    "currently",
    "default",
    "each",
    "enable",
    "enabled",
    "every",
    "just",
    "keep",
    "kept",
    "least",
    "longer",
    "lower",
    "lowered",
    "max",
    "maximum",
    "min",
    "minimum",
    "most",
    "must",
    "need",
    "needs",
    "new",
    "now",
    "number",
    "only",
    "per",
    "raise",
    "raised",
    "reduce",
    "reduced",
    "roughly",
    "set",
    "should",
    "still",
    "switch",
    "switched",
    "today",
    "total",
    "up",
    "upped",
    "use",
    "used",
    "uses",
    "using",
    "value",
    "increase",
    "increased",
    "decrease",
    "decreased",
    "moved",
    "make",
    "made",
    "run",
    "runs",
    "go",
    "goes",
    "went",
    "get",
    "gets",
    "got",
    "later",
    "since",
    "then",
    "there",
    "yes",
    "true",
    "on",
    "limit",
    "limited",
    "upto",
    "instead",
];

/// Words that negate their clause.
const NEGATIONS: &[&str] = &[
    "not",
    "no",
    "never",
    "don't",
    "doesn't",
    "didn't",
    "isn't",
    "aren't",
    "wasn't",
    "weren't",
    "won't",
    "can't",
    "cannot",
    "shouldn't",
    "mustn't",
    "nor",
    "stop",
    "stopped",
    "avoid",
    "disable",
    "disabled",
    "removed",
    "dropped",
    "deprecated",
    "off",
    "false",
    "dont",
    "doesnt",
    "didnt",
    "isnt",
    "arent",
    "wont",
    "cant",
    "shouldnt",
    "retired",
];

/// Words right before a value that make it the old one, or not a setting at all.
const NOT_A_SETTING_BEFORE: &[&str] = &[
    "from",
    "was",
    "were",
    "previously",
    "formerly",
    "not",
    "no",
    "line",
    "lines",
    "issue",
    "pr",
    "ticket",
    "adr",
    "rfc",
    "step",
    "page",
    "section",
    "chapter",
    "since",
    "until",
    "than",
    "vs",
    "versus",
    "instead",
    "note",
    "item",
    "case",
    "example",
    "figure",
    "table",
    "phase",
    "part",
];

/// Words before a name that make it a setting's value ("is `main`", "moved to us-east-2",
/// "managed with uv"); a name after any other word is an object ("run `go vet`").
const ASSIGNS: &[&str] = &[
    "is", "are", "=", "to", "at", "in", "on", "with", "use", "uses", "using", "via", "by", "be",
    "from", "into", "onto", "of", "default", "the", "a", "an",
];

/// Prepositions that place a statement ("in shipping-28", "for eu-west-1")...
const PLACING: &[&str] = &[
    "in", "for", "on", "of", "from", "at", "within", "inside", "under",
];
/// ...unless a verb of being comes first ("is in eu-west-1").
const COPULAS: &[&str] = &[
    "is", "are", "was", "were", "be", "runs", "lives", "moved", "now",
];

/// Names of environments: they say which deployment a value belongs to, never a value.
const ENVIRONMENTS: &[&str] = &[
    "prod",
    "production",
    "staging",
    "stg",
    "dev",
    "development",
    "qa",
    "uat",
    "preview",
    "sandbox",
];

/// Names of regions: like environments they say which deployment a value belongs to, but a
/// region can also be the value itself ("deploy to the eu cluster").
const REGIONS: &[&str] = &["eu", "us", "uk", "apac", "emea", "latam", "europe", "asia"];

/// Words that only relate others in a statement of a setting (beyond the recall function words).
const RELATING: &[&str] = &[
    "after", "before", "against", "into", "onto", "within", "without", "via", "if", "when",
    "while", "below", "above", "over", "under", "let", "lets", "its", "their", "our", "this",
    "that", "these", "those", "which", "so", "because",
];

/// Units written after or glued to a number: (unit, dimension, factor to the base unit).
const UNITS: &[(&str, &str, f64)] = &[
    ("ms", "time", 1.0),
    ("msec", "time", 1.0),
    ("millisecond", "time", 1.0),
    ("milliseconds", "time", 1.0),
    ("s", "time", 1e3),
    ("sec", "time", 1e3),
    ("secs", "time", 1e3),
    ("second", "time", 1e3),
    ("seconds", "time", 1e3),
    ("m", "time", 6e4),
    ("min", "time", 6e4),
    ("mins", "time", 6e4),
    ("minute", "time", 6e4),
    ("minutes", "time", 6e4),
    ("h", "time", 3.6e6),
    ("hr", "time", 3.6e6),
    ("hrs", "time", 3.6e6),
    ("hour", "time", 3.6e6),
    ("hours", "time", 3.6e6),
    ("d", "time", 8.64e7),
    ("day", "time", 8.64e7),
    ("days", "time", 8.64e7),
    ("week", "time", 6.048e8),
    ("weeks", "time", 6.048e8),
    ("b", "size", 1.0),
    ("byte", "size", 1.0),
    ("bytes", "size", 1.0),
    ("kb", "size", 1024.0),
    ("kib", "size", 1024.0),
    ("mb", "size", 1048576.0),
    ("mib", "size", 1048576.0),
    ("gb", "size", 1073741824.0),
    ("gib", "size", 1073741824.0),
    ("tb", "size", 1099511627776.0),
    ("%", "percent", 1.0),
    ("percent", "percent", 1.0),
    ("x", "", 1.0),
    ("times", "", 1.0),
    ("attempts", "", 1.0),
    ("tries", "", 1.0),
    ("k", "", 1e3),
];

impl Profile {
    /// Read `text` into claims.
    pub fn of(text: &str, stemmer: &WordStemmer) -> Profile {
        let mut profile = Profile::default();
        for clause in clauses(text) {
            if clause.is_empty() {
                continue;
            }
            profile.read_clause(&clause, stemmer);
            profile.clauses.push(clause);
        }
        profile
    }

    fn read_clause(&mut self, clause: &[Word], stemmer: &WordStemmer) {
        let environments: BTreeSet<String> = clause
            .iter()
            .filter(|w| {
                ENVIRONMENTS.contains(&w.text.as_str()) || REGIONS.contains(&w.text.as_str())
            })
            .map(|w| w.text.clone())
            .collect();
        let mut taken = vec![false; clause.len()];
        for i in 0..clause.len() {
            if taken[i] {
                continue;
            }
            let Some((said, width)) = value_at(clause, i) else {
                if clause[i].code && number(&clause[i].text).is_none() {
                    self.names.insert(clause[i].text.clone());
                }
                continue;
            };
            for t in taken.iter_mut().skip(i).take(width) {
                *t = true;
            }
            if is_old_value(clause, i) {
                continue;
            }
            let (mut subject, words, before) = subject_around(clause, i, width, stemmer);
            if clause[i].text.contains(':') && matches!(said, Said::Quantity { .. }) {
                // "localhost:5432" says "port 5432".
                subject.insert("port".to_owned());
            }
            if subject.is_empty() {
                continue;
            }
            self.claims.push(Claim {
                said,
                names: code_words(&subject),
                subject,
                words,
                before,
                environments: environments.clone(),
            });
        }
        let negated = clause.iter().any(|w| NEGATIONS.contains(&w.text.as_str()))
            || clause
                .windows(2)
                .any(|p| p[0].text == "no" && p[1].text == "longer");
        // A clause stating values is compared by its values ("dropped the limit from 100 to 25"
        // negates nothing).
        if taken.iter().any(|&t| t) {
            return;
        }
        let (subject, words, before) = content(clause, 0..clause.len(), stemmer);
        if !subject.is_empty() {
            self.claims.push(Claim {
                said: Said::Polarity { negated },
                names: code_words(&subject),
                subject,
                words,
                before,
                environments,
            });
        }
    }
}

/// Why `older` and `newer` conflict, if they do: the clearest disagreement between them.
pub fn disagreement(older: &Profile, newer: &Profile) -> Option<String> {
    if older.named_apart(newer) {
        return None;
    }
    let mut best: Option<(usize, String)> = None;
    for a in &older.claims {
        for b in &newer.claims {
            if let Some((extra, why)) = claims_conflict(a, b) {
                if best.as_ref().is_none_or(|(e, _)| extra < *e) {
                    best = Some((extra, why));
                }
            }
        }
    }
    if let Some((_, why)) = best {
        return Some(why);
    }
    older
        .clauses
        .iter()
        .flat_map(|a| newer.clauses.iter().map(move |b| (a, b)))
        .find_map(|(a, b)| clauses_conflict(a, b))
}

/// Whether an older and a newer claim conflict: how closely their subjects match (0 is exact;
/// lower is clearer) and why.
pub fn claims_conflict(a: &Claim, b: &Claim) -> Option<(usize, String)> {
    let extra = match (&a.said, &b.said) {
        (Said::Polarity { .. }, Said::Polarity { .. }) => polar_subjects_match(a, b)?,
        _ => same_subject(a, b)?,
    };
    let subject = if a.words.len() <= b.words.len() {
        &a.words
    } else {
        &b.words
    };
    let subject = subject.join(" ");
    match (&a.said, &b.said) {
        (
            Said::Quantity {
                dimension: da,
                amount: xa,
                shown: sa,
            },
            Said::Quantity {
                dimension: db,
                amount: xb,
                shown: sb,
            },
        ) if da == db && (xa - xb).abs() > 1e-9 * xa.abs().max(xb.abs()) => {
            Some((extra, format!("{subject}: {sa} vs {sb}")))
        }
        (
            Said::Token {
                kind: ka,
                value: va,
            },
            Said::Token {
                kind: kb,
                value: vb,
            },
        ) if ka == kb && !names_the_same(va, vb) => {
            Some((extra, format!("{subject}: {va} vs {vb}")))
        }
        (Said::Polarity { negated: na }, Said::Polarity { negated: nb }) if na != nb => {
            let (was, now) = if *na { ("no", "yes") } else { ("yes", "no") };
            Some((extra + 1, format!("{subject}: {was} vs {now}")))
        }
        _ => None,
    }
}

/// Whether two names are the same or one is part of the other once punctuation is dropped
/// ("HMAC-SHA256" and "SHA-256"): a refinement, not a change.
pub(super) fn names_the_same(a: &str, b: &str) -> bool {
    let bare = |t: &str| -> String { t.chars().filter(|c| c.is_alphanumeric()).collect() };
    let (a, b) = (bare(a), bare(b));
    a.contains(&b) || b.contains(&a)
}

/// Keys under which two clauses that differ in one word meet: the clause with each word in
/// turn blanked out. Clauses too short or too long for the rule have none.
pub fn clause_keys(clause: &[Word]) -> Vec<String> {
    if !(3..=24).contains(&clause.len()) {
        return Vec::new();
    }
    (0..clause.len())
        .filter(|&i| valueish(&clause[i]))
        .map(|i| {
            let mut key = String::new();
            for (j, w) in clause.iter().enumerate() {
                key.push_str(if i == j { "\u{1}" } else { &w.text });
                key.push('\u{0}');
            }
            key
        })
        .collect()
}

/// Whether two claims are about the same subject, and if so how far apart their subjects are
/// (0 when equal; lower is clearer). The same subject: one's words all among the other's (two
/// or more shared, or both the same single word), or at least three quarters of the smaller one
/// shared with at least two words, unless each qualifies a shared word differently. Never when
/// their clauses name different environments ("staging port" and "production port" are two
/// settings) or each names a code word the other lacks (`payments-3` and `refunds-29`).
pub fn same_subject(a: &Claim, b: &Claim) -> Option<usize> {
    let (small, large) = if a.subject.len() <= b.subject.len() {
        (&a.subject, &b.subject)
    } else {
        (&b.subject, &a.subject)
    };
    let common = small.intersection(large).count();
    let named_apart = !a.names.is_subset(&b.names) && !b.names.is_subset(&a.names);
    if common == 0 || a.environments != b.environments || named_apart {
        return None;
    }
    let apart = small.len() + large.len() - 2 * common;
    let subset = common == small.len() && (common >= 2 || small.len() == large.len());
    let mostly = common >= 2 && 4 * common >= 3 * small.len() && !modified_apart(a, b);
    (subset || mostly).then_some(apart)
}

/// Whether each claim puts a word of its own right before the same shared word: "connect
/// timeout" and "read timeout", "Postgres connection pool" and "Redis connection pool" name two
/// things.
fn modified_apart(a: &Claim, b: &Claim) -> bool {
    a.before.iter().any(|(word, modifier)| {
        !b.subject.contains(modifier)
            && b.before
                .iter()
                .any(|(w, m)| w == word && m != modifier && !a.subject.contains(m))
    })
}

/// A negation contradicts a statement only when it is about the same thing, not a word of it:
/// at least two shared words and three quarters of the shorter clause's, however long the
/// other (a retraction is often short: "the importer doesn't call the geocoder anymore"), the
/// same environments, no name of its own on each side, and no word of its own before a shared
/// one on each side ("debug builds" and "release builds"). How far apart the two are, if so.
fn polar_subjects_match(a: &Claim, b: &Claim) -> Option<usize> {
    let common = a.subject.intersection(&b.subject).count();
    let small = a.subject.len().min(b.subject.len());
    let named_apart = !a.names.is_subset(&b.names) && !b.names.is_subset(&a.names);
    let same = common >= 2 && 4 * common >= 3 * small;
    (same && a.environments == b.environments && !named_apart && !modified_apart(a, b))
        .then(|| a.subject.len() + b.subject.len() - 2 * common)
}

/// Two clauses equal word for word but for one short, code-like word at the same place.
pub fn clauses_conflict(a: &[Word], b: &[Word]) -> Option<String> {
    if a.len() != b.len() || a.len() < 3 {
        return None;
    }
    let mut differ = a
        .iter()
        .zip(b)
        .enumerate()
        .filter(|(_, (x, y))| x.text != y.text);
    let (at, (x, y)) = differ.next()?;
    if differ.next().is_some()
        || !valueish(x)
        || !valueish(y)
        || is_old_value(a, at)
        || is_old_value(b, at)
        || is_date(&x.text)
        || is_date(&y.text)
    {
        return None;
    }
    // Code after a verb is its object ("run `go vet`", "index on created_at"), not a value.
    let numeric = |w: &Word| number(&w.text).is_some();
    let cued = at > 0 && ASSIGNS.contains(&a[at - 1].text.as_str()) && a[at - 1].text != "on";
    if (x.code || y.code) && !(numeric(x) && numeric(y)) && !cued {
        return None;
    }
    let context: Vec<&str> = a
        .iter()
        .enumerate()
        .filter(|(i, w)| *i != at && !is_function_word(&w.text))
        .map(|(_, w)| w.text.as_str())
        .take(3)
        .collect();
    Some(format!("{}: {} vs {}", context.join(" "), x.text, y.text))
}

/// A word that can be a setting's value: code, a number or a region. Plain words are not: "hey"
/// and "yep" after the same name are chat, not settings.
fn valueish(w: &Word) -> bool {
    let t = w.text.as_str();
    if ENVIRONMENTS.contains(&t) || NEGATIONS.contains(&t) || GENERIC.contains(&t) {
        return false;
    }
    w.code || REGIONS.contains(&t) || t.chars().any(|c| c.is_ascii_digit())
}

/// Split text into clauses of words: at line ends, semicolons, and sentence ends.
fn clauses(text: &str) -> Vec<Vec<Word>> {
    let mut out = vec![Vec::new()];
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            break;
        }
        if let Some(body) = rest.strip_prefix('`') {
            if let Some((inner, after)) = body.split_once('`') {
                let inner = fold(inner.trim());
                let pause = after.starts_with(',') || after.trim_start().starts_with('(');
                if !inner.is_empty() {
                    out.last_mut().expect("one clause").push(Word {
                        text: inner,
                        code: true,
                        ticked: true,
                        pause,
                    });
                }
                if after.starts_with(['.', ';', '!', '?']) {
                    out.push(Vec::new());
                }
                rest = after.trim_start_matches([',', ':', '.', ';', '!', '?']);
                continue;
            }
        }
        // A backtick with no partner is a word of its own: ending the word before it would
        // leave `rest` where it was, forever.
        let end = match rest.find(|c: char| c.is_whitespace() || c == '`') {
            Some(0) => 1,
            Some(end) => end,
            None => rest.len(),
        };
        let (raw, tail) = rest.split_at_checked(end).unwrap_or((rest, ""));
        let newline_after = tail.starts_with(['\n', '\r']);
        rest = tail;
        let trimmed = raw.trim_end_matches(['"', '\'', ')', ']', '}', '>', '*', '!', '?']);
        let ends_sentence = trimmed.ends_with(['.', ';', '!', '?'])
            || raw.ends_with(['!', '?'])
            || trimmed.ends_with(".)")
            || newline_after;
        let pause = trimmed.ends_with(',')
            || raw.ends_with(['—', '–'])
            || rest.trim_start().starts_with('(');
        let text = trimmed
            .trim_end_matches(['.', ';', ',', ':', '!', '?', ')', '"', '\''])
            .trim_start_matches(['(', '[', '{', '<', '"', '\'', '*']);
        let folded = fold(text);
        let plain_compound = folded.contains('-')
            && folded
                .split('-')
                .all(|p| !p.is_empty() && p.chars().all(char::is_alphabetic));
        if plain_compound {
            // "session-store" and "session store" name the same thing.
            let parts: Vec<&str> = folded.split('-').collect();
            let last = parts.len() - 1;
            for (n, part) in parts.into_iter().enumerate() {
                out.last_mut().expect("one clause").push(Word {
                    text: part.to_owned(),
                    code: false,
                    ticked: false,
                    pause: n == last && pause,
                });
            }
        } else if folded.chars().any(char::is_alphanumeric)
            || ["%", "=", "->", "→", "=>"].contains(&folded.as_str())
        {
            let code = (folded.contains(['.', '/', '_', '-', ':', '=', '@'])
                || folded.starts_with('#'))
                && folded.chars().any(char::is_alphabetic);
            out.last_mut().expect("one clause").push(Word {
                text: folded,
                code,
                ticked: false,
                pause,
            });
        }
        if ends_sentence {
            out.push(Vec::new());
        }
    }
    out.retain(|c| !c.is_empty());
    out
}

/// The value starting at word `i`, and how many words it spans (a number and its unit word).
fn value_at(clause: &[Word], i: usize) -> Option<(Said, usize)> {
    let w = &clause[i];
    let t = w.text.as_str();
    let reference = t
        .strip_prefix('#')
        .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()));
    if is_date(t) || reference {
        return None;
    }
    if let Some(version) = version(t) {
        return Some((
            Said::Token {
                kind: "version",
                value: version,
            },
            1,
        ));
    }
    if let Some((host, port)) = t.rsplit_once(':') {
        let digits = port.len() >= 2 && port.chars().all(|c| c.is_ascii_digit());
        if digits && host.chars().all(|c| c.is_ascii_digit()) && host.len() <= 2 {
            return Some((
                Said::Token {
                    kind: "time of day",
                    value: t.to_owned(),
                },
                1,
            ));
        }
        if digits
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
        {
            return Some((port_number(port), 1));
        }
    }
    if let Some((amount, unit)) = number(t) {
        if unit.is_empty() && i > 0 && clause[i - 1].text == "port" {
            return Some((port_number(t), 1));
        }
        let next = clause.get(i + 1).filter(|_| unit.is_empty() && !w.pause);
        let (unit, width) = match next {
            Some(next) if unit_of(&next.text).is_some() => (next.text.as_str(), 2),
            _ => (unit, 1),
        };
        let (dimension, factor) = match unit_of(unit) {
            Some((d, f)) => (d.to_owned(), f),
            // A number of things counts those things: "12 partitions" is no replication factor.
            None if unit.is_empty() => match next.filter(|n| counted_noun(n)) {
                Some(noun) => (WordStemmer::default().stem(&noun.text), 1.0),
                None => (String::new(), 1.0),
            },
            None if unit.chars().all(|c| c.is_ascii_alphabetic()) => (unit.to_owned(), 1.0),
            None => return None,
        };
        let shown = if width == 2 {
            format!("{} {}", clause[i].text, clause[i + 1].text)
        } else {
            t.to_owned()
        };
        return Some((
            Said::Quantity {
                dimension,
                amount: amount * factor,
                shown,
            },
            width,
        ));
    }
    // A name, not a setting's key: in backticks after "is", "to", "the" and the like, or shaped
    // like `eu-west-1`, `t3.medium` or `#incidents` and not qualifying the noun after it ("the
    // payments-3 service" names which service). Plain snake_case words are keys themselves.
    let mixed = t.chars().any(|c| c.is_ascii_digit()) && t.chars().any(|c| c.is_ascii_alphabetic());
    let shaped = t.starts_with('#') || (mixed && !t.contains('_'));
    let assigned = i > 0 && ASSIGNS.contains(&clause[i - 1].text.as_str());
    let qualifies = !w.pause && clause.get(i + 1).is_some_and(|n| is_content(n) && !n.code);
    // "for job queues in shipping-28" says where, not what; "is in eu-west-1" says what.
    let placed = i > 0
        && PLACING.contains(&clause[i - 1].text.as_str())
        && !(i > 1 && COPULAS.contains(&clause[i - 2].text.as_str()));
    let named = ((w.ticked && assigned) || (shaped && !qualifies && !placed))
        && !t.contains('/')
        && t.len() <= 40;
    if named {
        return Some((
            Said::Token {
                kind: "identifier",
                value: t.to_owned(),
            },
            1,
        ));
    }
    None
}

/// A port is a number like any other, so "port 5432" and "listens on 5433" compare.
fn port_number(port: &str) -> Said {
    Said::Quantity {
        dimension: String::new(),
        amount: port.parse().unwrap_or(0.0),
        shown: port.to_owned(),
    }
}

/// A plural noun right after a number: what it counts ("12 partitions", "10 threads").
fn counted_noun(w: &Word) -> bool {
    is_content(w) && !w.code && w.text.len() > 3 && w.text.ends_with('s') && !w.text.ends_with("ss")
}

fn unit_of(word: &str) -> Option<(&'static str, f64)> {
    UNITS
        .iter()
        .find(|(u, _, _)| *u == word)
        .map(|&(_, d, f)| (d, f))
}

/// `1.82.0`, `v20`, `v3.11`: a version (without its `v`). Two-part numbers such as `1.82` are
/// read as numbers, which compare the same way.
fn version(t: &str) -> Option<String> {
    let bare = t.strip_prefix('v').unwrap_or(t);
    let parts: Vec<&str> = bare.split('.').collect();
    let numeric = parts
        .iter()
        .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()));
    (numeric && (parts.len() >= 3 || (t.starts_with('v') && !bare.is_empty())))
        .then(|| bare.to_owned())
}

/// `30`, `1.5`, `30s`, `512mb`, `80%`: the amount and the glued unit.
fn number(t: &str) -> Option<(f64, &str)> {
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    if digits.is_empty() || !digits.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let amount: f64 = digits.replace(',', "").trim_end_matches('.').parse().ok()?;
    Some((amount, unit))
}

/// `2024-03-01`, `2024/03/01`, `03/01/2024`.
fn is_date(t: &str) -> bool {
    let parts: Vec<&str> = t.split(['-', '/']).collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
        && parts.iter().any(|p| p.len() == 4)
}

/// Whether the value at `i` is given as history or as a reference, not as a current setting:
/// "from 10 (to 20)", "was 5", "instead of 3", "line 42", "10 -> 20".
fn is_old_value(clause: &[Word], i: usize) -> bool {
    let before = i.checked_sub(1).map(|j| clause[j].text.as_str());
    if before.is_some_and(|b| NOT_A_SETTING_BEFORE.contains(&b)) {
        return true;
    }
    if i >= 2 {
        let pair = (clause[i - 2].text.as_str(), clause[i - 1].text.as_str());
        if matches!(pair, ("no", "longer") | ("instead", "of") | ("used", "to")) {
            return true;
        }
    }
    let next = clause.get(i + 1).map(|w| w.text.as_str());
    matches!(next, Some("->" | "→" | "=>"))
}

/// The subject of the value spanning `width` words at `at`: the content words of its phrase
/// (the clause up to the nearest commas), other values left out. Word order does not matter:
/// "Grafana listens on port 3000" and "on the monitoring host Grafana is served on port 3300".
fn subject_around(
    clause: &[Word],
    at: usize,
    width: usize,
    stemmer: &WordStemmer,
) -> (BTreeSet<String>, Vec<String>, Vec<(String, String)>) {
    let start = clause[..at]
        .iter()
        .rposition(|w| w.pause)
        .map_or(0, |p| p + 1);
    let last = at + width - 1;
    let end = clause[last..]
        .iter()
        .position(|w| w.pause)
        .map_or(clause.len(), |p| last + p + 1);
    let picked = (start..end).filter(|&j| (j < at || j > last) && value_at(clause, j).is_none());
    content(clause, picked, stemmer)
}

/// A subject: the keys (stems; code words whole) of the content words at `picked` in `clause`,
/// how they were written, and the word before each.
fn content(
    clause: &[Word],
    picked: impl Iterator<Item = usize>,
    stemmer: &WordStemmer,
) -> (BTreeSet<String>, Vec<String>, Vec<(String, String)>) {
    let mut subject = BTreeSet::new();
    let mut shown = Vec::new();
    let mut before = Vec::new();
    for j in picked {
        let w = &clause[j];
        if !is_content(w) || number(&w.text).is_some() {
            continue;
        }
        let key = key_of(w, stemmer);
        if subject.insert(key.clone()) {
            shown.push(w.text.clone());
            let modifier = j.checked_sub(1).map(|i| &clause[i]);
            if let Some(m) = modifier.filter(|m| is_content(m) && number(&m.text).is_none()) {
                before.push((key, key_of(m, stemmer)));
            }
        }
    }
    (subject, shown, before)
}

/// The keys of a subject that are code words (stems never hold punctuation).
fn code_words(subject: &BTreeSet<String>) -> BTreeSet<String> {
    subject
        .iter()
        .filter(|k| k.contains(|c: char| !c.is_alphanumeric()))
        .cloned()
        .collect()
}

fn key_of(w: &Word, stemmer: &WordStemmer) -> String {
    if w.code {
        w.text.clone()
    } else {
        stemmer.stem(&w.text)
    }
}

fn is_content(w: &Word) -> bool {
    let t = w.text.as_str();
    !(is_function_word(t) || not_content().contains(t) || t.len() < 2 && !w.code)
}

/// The generic, relating and negating words and the units, in one set: `is_content` asks for
/// every word of every clause, and scanning the lists one by one was most of a profile's cost.
/// foldhash: the set is built once per process, and SipHash doubled what that cost a hook.
fn not_content() -> &'static HashSet<&'static str> {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| {
        GENERIC
            .iter()
            .chain(RELATING)
            .chain(NEGATIONS)
            .copied()
            .chain(UNITS.iter().map(|(unit, _, _)| *unit))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    fn conflict(older: &str, newer: &str) -> Option<String> {
        let s = WordStemmer::default();
        disagreement(&Profile::of(older, &s), &Profile::of(newer, &s))
    }

    /// A backtick without a partner once kept the clause splitter where it was, forever: every
    /// recall and hook that checked such a memory for drift hung.
    #[rstest]
    #[case::alone("`")]
    #[case::between_words("a ` b")]
    #[case::opening_code("run `cargo test")]
    #[case::two("``")]
    #[case::after_a_word("x`")]
    #[case::after_a_pair("`é` `")]
    #[case::at_the_end("end with `")]
    fn an_unmatched_backtick_ends(#[case] text: &str) {
        let s = WordStemmer::default();
        let profile = Profile::of(text, &s);
        assert!(profile.claims.len() <= text.len() + 1, "{text:?}");
    }

    #[test]
    fn changed_numbers_conflict_and_say_why() {
        assert_eq!(
            conflict("Webhook retries: 3 times", "We now retry webhooks 5 times").as_deref(),
            Some("webhook retries: 3 times vs 5 times")
        );
        assert!(conflict("API timeout 30s", "api timeout is 45 seconds").is_some());
        assert!(conflict("The API listens on localhost:8080", "API port 9090").is_some());
        assert!(conflict("Rust toolchain pinned to 1.79", "rust toolchain: 1.82").is_some());
    }

    #[test]
    fn negation_conflicts() {
        assert!(conflict(
            "We use Redis for sessions",
            "We no longer use Redis for sessions"
        )
        .is_some());
        assert!(conflict("Deploy to the eu cluster", "Deploy to the us cluster").is_some());
        // A short retraction of a longer statement: most of its words are the older one's.
        assert!(conflict(
            "The importer resolves every street address through the geocoder and stores lat/lon",
            "The importer doesn't call the geocoder for street addresses anymore"
        )
        .is_some());
    }

    #[rstest]
    #[case::different_timeouts("connect timeout 5s", "read timeout 30s")]
    #[case::different_pools("postgres pool size 20", "redis pool size 50")]
    #[case::a_change_then_its_result("raised the db pool from 10 to 20", "db pool is 20")]
    #[case::different_units("cache TTL 60 seconds", "cache allows 60 requests")]
    #[case::different_environments("staging uses port 5433", "production uses port 5432")]
    #[case::the_same_time_in_other_units("API timeout 30s", "api timeout is 30000 ms")]
    #[case::a_file_and_its_example("never commit .env", "commit .env.example with placeholders")]
    #[case::line_numbers("See line 42 of the parser", "See line 97 of the parser")]
    #[case::a_negation_about_something_else(
        "The importer resolves every street address through the geocoder",
        "The geocoder never sees customer names"
    )]
    fn lookalikes_do_not_conflict(#[case] a: &str, #[case] b: &str) {
        assert_eq!(conflict(a, b), None, "{a} / {b}");
    }
}
