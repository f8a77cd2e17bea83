//! The claim reader: a memory's clauses (`clauses`) read into claims. A **value claim** is a
//! number with its unit, a version, a port, a time of day or a short identifier, with its
//! subject (the content words just around it, up to a comma); a **polarity claim** is the
//! content words of a clause and whether it is negated ("no longer", "never", "don't",
//! "disabled", ...). A value given as the old one ("from 10 to 20", "instead of 3", "was 5") or
//! as a reference (a date, an issue, a line) is no claim. The conflict rule compares claims.

use std::collections::BTreeSet;

use foldhash::HashSet;
use std::sync::OnceLock;

use super::claim_words::{
    ASSIGNS, COPULAS, GENERIC, NEGATIONS, NOT_A_SETTING_BEFORE, PLACING, RELATING,
};
use super::clauses::Word;
use super::lexicon::{claim_place, claim_unit, claim_units};
use crate::text::{is_function_word, WordStemmer};

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

impl Profile {
    /// Read a memory's clauses into claims.
    pub fn of(clauses: Vec<Vec<Word>>, stemmer: &WordStemmer) -> Profile {
        let mut profile = Profile::default();
        for clause in clauses {
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
            .filter(|w| claim_place(&w.text).is_some())
            .map(|w| w.text.clone())
            .collect();
        let mut taken = vec![false; clause.len()];
        for i in 0..clause.len() {
            if taken[i] {
                continue;
            }
            let Some((said, width)) = value_at(clause, i, stemmer) else {
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

/// The value starting at word `i`, and how many words it spans (a number and its unit word).
fn value_at(clause: &[Word], i: usize, stemmer: &WordStemmer) -> Option<(Said, usize)> {
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
            Some(next) if claim_unit(&next.text).is_some() => (next.text.as_str(), 2),
            _ => (unit, 1),
        };
        let (dimension, factor) = match claim_unit(unit) {
            Some((d, f)) => (d.to_owned(), f),
            // A number of things counts those things: "12 partitions" is no replication factor.
            None if unit.is_empty() => match next.filter(|n| counted_noun(n)) {
                Some(noun) => (stemmer.stem(&noun.text), 1.0),
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
pub(crate) fn number(t: &str) -> Option<(f64, &str)> {
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
pub(crate) fn is_date(t: &str) -> bool {
    let parts: Vec<&str> = t.split(['-', '/']).collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
        && parts.iter().any(|p| p.len() == 4)
}

/// Whether the value at `i` is given as history or as a reference, not as a current setting:
/// "from 10 (to 20)", "was 5", "instead of 3", "line 42", "10 -> 20".
pub(crate) fn is_old_value(clause: &[Word], i: usize) -> bool {
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
    let picked =
        (start..end).filter(|&j| (j < at || j > last) && value_at(clause, j, stemmer).is_none());
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
            .chain(claim_units())
            .collect()
    })
}
