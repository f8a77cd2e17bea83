//! Changed values: two memories about one subject where the newer gives a value the older also
//! gives, in the same words, and the values differ ("checkpoints every 60 s" / "the checkpoint
//! interval is 15 s").
//!
//! Nothing here names a setting. Two memories are about one subject when the rare words of the
//! smaller one are mostly in the other, rarity measured within the scope (`Rarity`): a project's
//! vocabulary decides what is specific. A value is a number with its unit (the unit decides
//! what it measures: a duration, a size, a share), a version or a clock time; the words within
//! a few places of it are what it is the value of, and two values are values of one setting
//! when those words share rare ones. A newer value the older memory also holds is history
//! ("from 3 to 5"), not a change; memories set in different environments (staging, prod, CI)
//! describe different things.

use std::collections::BTreeSet;

use foldhash::HashMap;

use crate::text::{is_function_word, WordStemmer};

/// How many describing words on each side of a value say what it is the value of.
const REACH: usize = 5;
/// The fewest words two memories about one subject share: one shared word is a topic at most.
const SHARED_WORDS: usize = 2;
/// The least share of the smaller memory's rarity (sum of its words' IDF) the two must share.
const SAME_SUBJECT: f64 = 0.2;
/// The least rarity the words around two values must share to be the same setting's: about one
/// word found in a third of a project's memories, or two common ones.
const SAME_SETTING: f64 = 1.0;
/// How many describing words before a release may name what it is a release of.
const OWNER_REACH: usize = 3;
/// What two memories must share when each gives one value of a measure, since no word around
/// the values has to tie them: three words (two, as in "mobile client", tie a connect timeout to
/// a poll interval), carrying a third of the smaller memory's rarity, as for replaced things.
const SOLE_SHARED_WORDS: usize = 3;
const SOLE_SUBJECT: f64 = 0.3;

/// Units and what they measure. A number without a unit measures nothing in particular.
const UNITS: &[(&str, &str)] = &[
    ("ms", "time"),
    ("s", "time"),
    ("sec", "time"),
    ("secs", "time"),
    ("second", "time"),
    ("seconds", "time"),
    ("m", "time"),
    ("min", "time"),
    ("mins", "time"),
    ("minute", "time"),
    ("minutes", "time"),
    ("h", "time"),
    ("hr", "time"),
    ("hrs", "time"),
    ("hour", "time"),
    ("hours", "time"),
    ("d", "time"),
    ("day", "time"),
    ("days", "time"),
    ("week", "time"),
    ("weeks", "time"),
    ("kb", "size"),
    ("mb", "size"),
    ("gb", "size"),
    ("tb", "size"),
    ("kib", "size"),
    ("mib", "size"),
    ("gib", "size"),
    ("tib", "size"),
    ("ki", "size"),
    ("mi", "size"),
    ("gi", "size"),
    ("%", "share"),
    ("percent", "share"),
    ("px", "pixels"),
    ("x", "times"),
];

/// Words naming where a setting holds rather than what it is.
const ENVIRONMENTS: &[&str] = &[
    "prod",
    "production",
    "staging",
    "stage",
    "dev",
    "development",
    "local",
    "locally",
    "ci",
    "qa",
    "ios",
    "android",
    "desktop",
    "mobile",
    "preview",
    "sandbox",
    "canary",
];

/// Words that say a value changed or when, not what it is of.
const CHANGE_WORDS: &[&str] = &[
    "now",
    "since",
    "after",
    "before",
    "anymore",
    "instead",
    "longer",
    "currently",
    "today",
    "again",
    "still",
    "was",
    "were",
    "used",
    "moved",
    "changed",
    "switched",
    "bumped",
    "raised",
    "lowered",
    "increased",
    "decreased",
    "set",
];

/// What a value measures.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Measure {
    Version,
    Clock,
    /// A number in a dimension (`time`, `size`, ...), or with a unit no table knows (its name),
    /// or none (`""`).
    Number(String),
}

impl Measure {
    fn comparable(&self, other: &Measure) -> bool {
        match (self, other) {
            (Measure::Number(a), Measure::Number(b)) => a == b || !known(a) && !known(b),
            _ => self == other,
        }
    }
}

fn known(dimension: &str) -> bool {
    UNITS.iter().any(|(_, d)| *d == dimension)
}

#[derive(Clone, Debug)]
pub(super) struct Value {
    measure: Measure,
    /// The value as written, unit left off.
    pub(super) text: String,
    /// The keys of the words around it.
    around: BTreeSet<String>,
    /// Written as a release (`v1.2`, `3.1.x`, `1.29.4`), not a bare decimal (`0.1`).
    release: bool,
    /// The keys of the describing words of three letters or more just before it that are not a
    /// verb's form (`-ed`, `-ing`): what a release may be of.
    owners: Vec<String>,
    /// The names among them (`Terraform`, `max.poll.ms`), lowercased.
    names: BTreeSet<String>,
    /// The describing word nearest before it (after it when none is before): what it is most
    /// directly the value of.
    nearest: Option<String>,
}

/// What this rule reads of one memory.
#[derive(Clone, Debug, Default)]
pub struct Reading {
    /// Stems of its content words.
    pub terms: BTreeSet<String>,
    /// The names anywhere in it.
    names: BTreeSet<String>,
    pub(super) values: Vec<Value>,
    pub(super) environments: BTreeSet<String>,
    /// Every token in order.
    pub(super) words: Vec<Word>,
}

/// One token as the rules read it.
#[derive(Clone, Debug)]
pub(super) struct Word {
    /// The token, lowercased.
    pub(super) lower: String,
    /// Its key (stem) when it describes something.
    pub(super) key: Option<String>,
    /// How it is written, when it is a name or was backticked.
    pub(super) shape: Option<Shape>,
    /// The keys of its parts, when it is a compound that describes something
    /// (`compression.type`: `compress`, `type`).
    pub(super) parts: Vec<String>,
    /// A `:` or `=` stands right before it.
    pub(super) marked: bool,
    /// It opens a sentence.
    pub(super) start: bool,
}

impl Reading {
    /// Whether the memory gives `value` (as written, unit left off) anywhere.
    pub(super) fn gives(&self, value: &Value) -> bool {
        self.values.iter().any(|v| v.text == value.text)
    }

    /// Whether the memory says `token` (lowercased) as a whole token.
    pub(super) fn says(&self, token: &str) -> bool {
        self.words.iter().any(|w| w.lower == token)
    }

    /// Whether one of its tokens has `part` as a part (`spring-boot`: `spring`, `boot`).
    fn says_part(&self, part: &str) -> bool {
        self.words
            .iter()
            .any(|w| w.lower.split(['-', '_', '.', '/']).any(|p| p == part))
    }
}

/// How a name is written, so that a name standing where another of its kind stood is seen:
/// two backticked commands, two `europe-west1`-like regions, two capitalized products.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    /// Written between backticks.
    Quoted,
    /// Shaped like code: runs of letters and digits with what joins them (`a-a9`, `a_a`).
    Code(String),
    /// All capitals (`SQL`, `TTL`).
    Acronym,
    /// Capitals inside (`MinIO`, `PayoutBatchJob`).
    Camel,
    /// Capitalized inside a sentence (`Poetry`).
    Capital,
}

/// How rare each word is among a scope's memories.
#[derive(Clone, Debug, Default)]
pub struct Rarity {
    memories: usize,
    holding: HashMap<String, usize>,
}

impl Rarity {
    /// Count the memories holding each word.
    pub fn of<'a>(readings: impl IntoIterator<Item = &'a Reading>) -> Rarity {
        let mut rarity = Rarity::default();
        for r in readings {
            rarity.memories += 1;
            for t in &r.terms {
                *rarity.holding.entry(t.clone()).or_default() += 1;
            }
        }
        rarity
    }

    /// The word's inverse document frequency (a word no memory holds counts as held by one).
    pub fn idf(&self, term: &str) -> f64 {
        let held = self.holding.get(term).copied().unwrap_or(0).max(1);
        ((self.memories + 1) as f64 / held as f64).ln()
    }

    /// Whether the word is held by at most a tenth of the memories (or by three, in a small
    /// store): it names something in particular, where "use" or "service" name nothing.
    pub fn specific(&self, term: &str) -> bool {
        self.held_by(term) <= (self.memories / 10).max(3)
    }

    /// How many memories hold the word.
    pub fn held_by(&self, term: &str) -> usize {
        self.holding.get(term).copied().unwrap_or(0)
    }
}

/// One word or number of a text.
struct Token {
    text: String,
    lower: String,
    /// It opens a sentence (or a line, or follows a colon): a capital there names nothing.
    start: bool,
    /// It was written between backticks.
    quoted: bool,
    /// A `:` or `=` stands right before it: it is the value of what precedes.
    marked: bool,
}

/// Split `text` into words and numbers: a backticked span is one token, otherwise a run of
/// letters, digits and `._-/:%` with sentence punctuation trimmed from its end.
fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut start = true;
    let mut marked = false;
    while let Some(c) = rest.chars().next() {
        if let Some(inner) = rest.strip_prefix('`') {
            let (span, after) = inner.split_once('`').unwrap_or((inner, ""));
            push(&mut out, span, &mut start, &mut marked);
            if let Some(t) = out.last_mut().filter(|t| t.text == span) {
                t.quoted = true;
            }
            rest = after;
            continue;
        }
        if c.is_alphanumeric() {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || "._-/:%".contains(c)))
                .unwrap_or(rest.len());
            let (whole, after) = rest.split_at_checked(end).unwrap_or((rest, ""));
            let run = whole.trim_end_matches(['.', ':', '-', '/']);
            let stop = whole
                .strip_prefix(run)
                .is_some_and(|t| t.contains(['.', ':']));
            // `localhost:8081`, `fleet-gw:9443`: a name and its port.
            match run.rsplit_once(':') {
                Some((host, port))
                    if host.starts_with(|c: char| c.is_alphabetic())
                        && !port.is_empty()
                        && port.chars().all(|c| c.is_ascii_digit()) =>
                {
                    push(&mut out, host, &mut start, &mut marked);
                    push(&mut out, port, &mut start, &mut marked);
                }
                _ => push(&mut out, run, &mut start, &mut marked),
            }
            start = stop;
            marked = whole.ends_with(':');
            rest = after;
            continue;
        }
        if c == '%' {
            push(&mut out, "%", &mut start, &mut marked);
        }
        if ".!?:;\n".contains(c) {
            start = true;
        }
        if ":=".contains(c) {
            marked = true;
        } else if !c.is_whitespace() {
            marked = false;
        }
        let mut chars = rest.chars();
        chars.next();
        rest = chars.as_str();
    }
    out
}

fn push(out: &mut Vec<Token>, text: &str, start: &mut bool, marked: &mut bool) {
    if !text.is_empty() {
        out.push(Token {
            text: text.to_owned(),
            lower: text.to_lowercase(),
            start: *start,
            quoted: false,
            marked: *marked,
        });
        *start = false;
        *marked = false;
    }
}

fn unit(word: &str) -> Option<&'static str> {
    UNITS.iter().find(|(u, _)| *u == word).map(|(_, d)| *d)
}

/// The value a token writes, if it is one, and whether the next token is its unit.
fn value_of(token: &str, next: Option<&str>) -> Option<(Measure, String, bool)> {
    let digits_end = token
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ':'))
        .unwrap_or(token.len());
    let (number, suffix) = token.split_at(digits_end);
    let number = number.trim_end_matches(['.', ':']);
    if number.is_empty() || !number.starts_with(|c: char| c.is_ascii_digit()) {
        let version = token
            .strip_prefix(['v', 'V'])
            .filter(|v| v.contains('.') && v.chars().all(|c| c.is_ascii_digit() || c == '.'));
        return version.map(|v| (Measure::Version, v.to_owned(), false));
    }
    if number.contains(':') {
        let clock = number.len() <= 5 && number.split(':').count() == 2;
        return clock.then(|| (Measure::Clock, number.to_owned(), false));
    }
    let suffix = suffix.to_lowercase();
    let written = token.strip_prefix(number).unwrap_or("");
    if number.contains('.') && written.starts_with(".x") {
        // `3.1.x`: a version line.
        return Some((Measure::Version, number.to_owned(), false));
    }
    if !suffix.is_empty() && !suffix.chars().all(|c| c.is_alphabetic() || c == '%') {
        return None;
    }
    let (dimension, joined) = match (suffix.as_str(), next.and_then(unit)) {
        ("", Some(d)) => (d.to_owned(), true),
        ("", None) => (String::new(), false),
        (s, _) => (unit(s).map_or_else(|| s.to_owned(), str::to_owned), false),
    };
    if number.contains('.') && dimension.is_empty() {
        return Some((Measure::Version, number.to_owned(), false));
    }
    Some((Measure::Number(dimension), number.to_owned(), joined))
}

/// Whether a token says what a value is of: a content word, not a number, unit or environment.
fn describes(t: &Token) -> bool {
    t.lower.chars().count() > 1
        && !t.lower.starts_with(|c: char| c.is_ascii_digit())
        && !is_function_word(&t.lower)
        && unit(&t.lower).is_none()
        && !ENVIRONMENTS.contains(&t.lower.as_str())
        && !CHANGE_WORDS.contains(&t.lower.as_str())
}

/// Whether a describing token is a name: capitalized inside a sentence, or shaped like code.
fn looks_like_name(t: &Token) -> bool {
    let capital = t.text.starts_with(|c: char| c.is_uppercase()) && !t.start;
    let code = t.text.contains(['_', '.', '-']) && t.text.chars().any(char::is_alphabetic);
    let camel = t
        .text
        .chars()
        .zip(t.text.chars().skip(1))
        .any(|(a, b)| a.is_lowercase() && b.is_uppercase());
    capital || code || camel
}

/// The shape of a name token.
fn shape(t: &Token) -> Shape {
    if t.quoted {
        return Shape::Quoted;
    }
    if !t.text.contains(['_', '.', '-', '/', ':', '@']) {
        let mut letters = t.text.chars().filter(|c| c.is_alphabetic());
        let first = letters.next();
        let rest: Vec<char> = letters.collect();
        return if rest.iter().all(|c| c.is_uppercase()) {
            Shape::Acronym
        } else if rest.iter().any(|c| c.is_uppercase()) || first.is_some_and(char::is_lowercase) {
            Shape::Camel
        } else {
            Shape::Capital
        };
    }
    let mut shape = String::new();
    for c in t.text.chars() {
        let class = if c.is_alphabetic() {
            'a'
        } else if c.is_ascii_digit() {
            '9'
        } else {
            c
        };
        if !shape.ends_with(class) || !class.is_alphanumeric() {
            shape.push(class);
        }
    }
    Shape::Code(shape)
}

/// Read `text` for this rule.
pub fn read(text: &str, stemmer: &WordStemmer) -> Reading {
    let tokens = tokens(text);
    // Each token is judged once: the loops below ask again and again.
    let described: Vec<bool> = tokens.iter().map(describes).collect();
    let named: Vec<bool> = tokens
        .iter()
        .zip(&described)
        .map(|(t, &d)| d && looks_like_name(t))
        .collect();
    let keys: Vec<Option<String>> = tokens
        .iter()
        .zip(&described)
        .map(|(t, &d)| d.then(|| stemmer.stem(&t.lower)))
        .collect();
    let mut reading = Reading {
        terms: keys.iter().flatten().cloned().collect(),
        ..Reading::default()
    };
    reading.names = tokens
        .iter()
        .zip(&named)
        .filter(|(_, &n)| n)
        .map(|(t, _)| t.lower.clone())
        .collect();
    // The parts of a compound name count too: `idempotency-key` is about idempotency keys.
    let parts: Vec<Vec<String>> = tokens
        .iter()
        .zip(&described)
        .map(|(t, &d)| {
            if !d || !t.lower.contains(['-', '_', '.', '/']) {
                return Vec::new();
            }
            t.lower
                .split(['-', '_', '.', '/'])
                .filter(|p| p.len() > 1 && !is_function_word(p))
                .map(|p| stemmer.stem(p))
                .collect()
        })
        .collect();
    reading.terms.extend(parts.iter().flatten().cloned());
    reading.environments = tokens
        .iter()
        .filter(|t| ENVIRONMENTS.contains(&t.lower.as_str()))
        .map(|t| t.lower.clone())
        .collect();
    for (i, t) in tokens.iter().enumerate() {
        let next = tokens.get(i + 1).map(|n| n.lower.as_str());
        let Some((measure, value, _)) = value_of(&t.text, next) else {
            continue;
        };
        let before = keys[..i].iter().rev().flatten().take(REACH);
        let after = keys[i + 1..].iter().flatten().take(REACH);
        let nearest = before.clone().chain(after.clone()).next().cloned();
        let release = measure == Measure::Version
            && (t.text.starts_with(['v', 'V']) || t.text.matches('.').count() >= 2);
        let owners = (0..i)
            .rev()
            .filter_map(|j| keys[j].as_ref().map(|k| (k, &tokens[j].lower)))
            .take(OWNER_REACH)
            .filter(|(k, w)| k.chars().count() > 2 && !w.ends_with("ed") && !w.ends_with("ing"))
            .map(|(k, _)| k.clone())
            .collect();
        let around = before.chain(after).cloned().collect();
        let from = i.saturating_sub(REACH);
        let names = (from..(i + REACH + 1).min(tokens.len()))
            .filter(|&j| named[j])
            .map(|j| tokens[j].lower.clone())
            .collect();
        reading.values.push(Value {
            measure,
            text: value,
            around,
            release,
            owners,
            names,
            nearest,
        });
    }
    reading.words = tokens
        .into_iter()
        .zip(keys)
        .zip(named)
        .zip(parts)
        .map(|(((t, key), named), parts)| Word {
            shape: (t.quoted || named).then(|| shape(&t)),
            lower: t.lower,
            key,
            parts,
            marked: t.marked,
            start: t.start,
        })
        .collect();
    reading
}

/// How much of the smaller memory's rarity the two share, from 0 to 1.
pub fn subject(a: &Reading, b: &Reading, rarity: &Rarity) -> f64 {
    let sum =
        |terms: &mut dyn Iterator<Item = &String>| -> f64 { terms.map(|t| rarity.idf(t)).sum() };
    let shared = sum(&mut a.terms.intersection(&b.terms));
    let smaller = sum(&mut a.terms.iter()).min(sum(&mut b.terms.iter()));
    if smaller > 0.0 {
        shared / smaller
    } else {
        0.0
    }
}

/// Why `newer` changes a value `older` gives ("interval: 60 vs 15"), if it does.
pub fn changed(older: &Reading, newer: &Reading, rarity: &Rarity) -> Option<String> {
    if older.values.is_empty() || newer.values.is_empty() {
        return None;
    }
    let both = !older.environments.is_empty() && !newer.environments.is_empty();
    if both && older.environments.is_disjoint(&newer.environments) {
        return None;
    }
    let shared = older.terms.intersection(&newer.terms).count();
    let share = subject(older, newer, rarity);
    if shared < SHARED_WORDS || share < SAME_SUBJECT {
        return released(older, newer, rarity);
    }
    // Each names something the other never says: two things, whatever else they share; unless
    // they also share a name, which says what the thing is (`cache-proxy` on 8080 with gRPC,
    // then on 8081 and a word on Kafka).
    let share_a_name = !older.names.is_disjoint(&newer.names);
    if !share_a_name && foreign(&older.names, newer) && foreign(&newer.names, older) {
        return None;
    }
    let mut best: Option<(f64, String)> = None;
    for o in &older.values {
        for n in &newer.values {
            if o.text == n.text || older.gives(n) || !o.measure.comparable(&n.measure) {
                continue;
            }
            if named_apart(o, n, older, newer) {
                continue;
            }
            let unitless = matches!(&o.measure, Measure::Number(d) if !known(d));
            if unitless && magnitudes_apart(&o.text, &n.text) {
                continue;
            }
            let shared: Vec<&String> = o.around.intersection(&n.around).collect();
            let weight: f64 = shared.iter().map(|t| rarity.idf(t)).sum();
            if weight < SAME_SETTING || best.as_ref().is_some_and(|(w, _)| *w >= weight) {
                continue;
            }
            let rarest = shared
                .iter()
                .max_by(|a, b| rarity.idf(a).total_cmp(&rarity.idf(b)))
                .map_or("", |t| t.as_str());
            best = Some((weight, format!("{rarest}: {} vs {}", o.text, n.text)));
        }
    }
    let sole = shared >= SOLE_SHARED_WORDS && share >= SOLE_SUBJECT;
    best.map(|(_, why)| why)
        .or_else(|| sole.then(|| sole_values(older, newer)).flatten())
}

/// The one value of its measure on each side, for two memories that share three words and a
/// third of their rarity (the caller checks): a memory giving one duration, one size or one
/// release is about that value, whatever words stand next to it ("upload links expire after 10
/// min" / "the upload link lifetime is 30 minutes now"). Bare numbers and decimals are left out:
/// without a unit, one count is as likely another's, and `0.1` as likely a ratio as a release.
fn sole_values(older: &Reading, newer: &Reading) -> Option<String> {
    let of_measure =
        |r: &'_ Reading, m: &Measure| r.values.iter().filter(|v| v.measure.comparable(m)).count();
    older.values.iter().find_map(|o| {
        let unitless = matches!(&o.measure, Measure::Number(d) if !known(d));
        let bare_decimal = o.measure == Measure::Version && !o.release;
        if unitless
            || bare_decimal
            || of_measure(older, &o.measure) != 1
            || of_measure(newer, &o.measure) != 1
        {
            return None;
        }
        let n = newer
            .values
            .iter()
            .find(|v| v.measure.comparable(&o.measure))?;
        let apart = foreign(&o.names, newer) && foreign(&n.names, older);
        (!older.gives(n) && !apart).then(|| format!("{} vs {}", o.text, n.text))
    })
}

/// Two releases of one thing, named right before them: "vue pinned to 3.3.x" / "package.json: vue
/// 3.5.13". A release number says what it is of by the word before it, so nothing else of the
/// two memories needs to be shared. The word must be held by few memories and be the nearest
/// before one of the two releases; a verb's form ("pinned", "upgrading") names no thing.
fn released(older: &Reading, newer: &Reading, rarity: &Rarity) -> Option<String> {
    older.values.iter().filter(|o| o.release).find_map(|o| {
        let n = newer.values.iter().find(|n| {
            n.release
                && !older.gives(n)
                && o.owners.iter().any(|k| {
                    n.owners.contains(k)
                        && rarity.specific(k)
                        && (o.nearest.as_ref() == Some(k) || n.nearest.as_ref() == Some(k))
                })
        })?;
        Some(format!("{} vs {}", o.text, n.text))
    })
}

/// Whether two bare numbers differ a hundredfold or more: a port and a count ("listener
/// 9090", "64 streams"), not one setting changed.
fn magnitudes_apart(a: &str, b: &str) -> bool {
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(a), Ok(b)) if a > 0.0 && b > 0.0 => a.max(b) / a.min(b) >= 100.0,
        _ => false,
    }
}

/// Whether one of `names` is a name `other` never says, in whole or in part (`spring-boot` says
/// `boot`).
///
/// A file path names where something is written, not what it is, so it is never foreign.
fn foreign(names: &BTreeSet<String>, other: &Reading) -> bool {
    names.iter().filter(|name| !name.contains('/')).any(|name| {
        !other.says(name)
            && name
                .split(['-', '_', '.', '/'])
                .all(|part| !other.says_part(part))
    })
}

/// Whether two quantities are most directly of two different things, each named where the
/// other memory never says it: "subject line: 50 characters" and "body wrapped at 72
/// characters".
fn named_apart(o: &Value, n: &Value, older: &Reading, newer: &Reading) -> bool {
    // Each next to a name the other memory never says: two things ("Rust 1.75", "Terraform
    // 1.5.7").
    if foreign(&o.names, newer) && foreign(&n.names, older) {
        return true;
    }
    // Versions, clock times and ports are seldom of two settings at once; quantities are.
    if !matches!(o.measure, Measure::Number(_)) {
        return false;
    }
    match (&o.nearest, &n.nearest) {
        (Some(a), Some(b)) => a != b && !newer.terms.contains(a) && !older.terms.contains(b),
        _ => false,
    }
}

#[cfg(test)]
pub(super) mod tests {
    use rstest::rstest;

    use super::*;

    /// Two memories read, with the rarity of their words among them and `others`.
    pub(in crate::drift) fn read_pair(
        older: &str,
        newer: &str,
        others: &[&str],
    ) -> (Reading, Reading, Rarity) {
        let stemmer = WordStemmer::default();
        let (o, n) = (read(older, &stemmer), read(newer, &stemmer));
        let rest: Vec<Reading> = others.iter().map(|t| read(t, &stemmer)).collect();
        let rarity = Rarity::of(rest.iter().chain([&o, &n]));
        (o, n, rarity)
    }

    fn judge(older: &str, newer: &str, others: &[&str]) -> Option<String> {
        let (o, n, rarity) = read_pair(older, newer, others);
        changed(&o, &n, &rarity)
    }

    const OTHERS: &[&str] = &[
        "The deploy job runs on every merge to main.",
        "Use the shared linter config; do not add local overrides.",
        "Release notes are written by the person who cuts the release.",
        "Dashboards live in the observability folder.",
    ];

    #[rstest]
    #[case::a_duration_reworded(
        "The nightly export job has a timeout of 20 minutes.",
        "Export job timeout: 45 minutes since the table grew."
    )]
    #[case::a_count_without_a_shared_unit(
        "The thumbnail queue runs 3 consumers.",
        "thumbnail queue consumers: 8"
    )]
    #[case::a_version_said_two_ways(
        "We pin the protobuf compiler to 3.21 in the toolchain file.",
        "toolchain file now says protobuf compiler 25.1"
    )]
    #[case::a_clock_time(
        "The cache warmer starts at 04:00 UTC.",
        "cache warmer start moved to 06:30 UTC"
    )]
    #[case::the_one_duration_of_each(
        "Signed upload links expire after 10 min.",
        "The signed upload link lifetime is 30 minutes now; mobile users kept hitting the limit."
    )]
    #[case::a_shared_name_with_other_names_beside(
        "The `cache-proxy` container serves gRPC on localhost:8080.",
        "`cache-proxy` is on 8081 now; the old port clashed with the local Kafka broker."
    )]
    #[case::a_release_of_the_thing_named_before_it(
        "echarts pinned to 5.4.x because the legend overflow regressed",
        "package.json: echarts 5.5.1, dark theme ok to use"
    )]
    fn a_changed_value_is_found(#[case] older: &str, #[case] newer: &str) {
        assert!(judge(older, newer, OTHERS).is_some(), "{older} / {newer}");
    }

    #[rstest]
    #[case::other_environments(
        "On staging the export job times out after 20 minutes.",
        "In prod the export job times out after 45 minutes."
    )]
    #[case::the_new_value_was_already_there(
        "thumbnail queue consumers went from 3 to 8, see the runbook",
        "The thumbnail queue runs 8 consumers."
    )]
    #[case::same_value(
        "The thumbnail queue runs 3 consumers.",
        "3 consumers on the thumbnail queue, as before"
    )]
    #[case::different_measures(
        "The thumbnail queue keeps messages for 3 days.",
        "The thumbnail queue holds at most 500 MB."
    )]
    #[case::another_subject(
        "The thumbnail queue runs 3 consumers.",
        "The billing cron runs 5 workers at night."
    )]
    #[case::a_port_and_a_count(
        "The search gateway listener takes 9200 behind the proxy.",
        "search gateway listener takes 16 behind the proxy now"
    )]
    #[case::one_duration_each_of_a_thin_subject(
        "Upload links expire after 10 min.",
        "The billing export runs for 30 minutes on the links host."
    )]
    #[case::one_duration_each_and_two_shared_words(
        "Sync client connect timeout: 5 seconds.",
        "Sync client poll interval: 30 s."
    )]
    #[case::releases_after_one_verb(
        "Upgraded echarts to 5.4.2 for the legend fix.",
        "Upgraded the tooltip plugin to 1.2.3 as well."
    )]
    fn an_unchanged_value_is_not(#[case] older: &str, #[case] newer: &str) {
        assert_eq!(judge(older, newer, OTHERS), None, "{older} / {newer}");
    }

    #[test]
    fn tokens_keep_code_and_trim_punctuation() {
        let t: Vec<String> = tokens("Set `max.poll.ms` to 30s, then v1.2.3.")
            .into_iter()
            .map(|t| t.text)
            .collect();
        assert_eq!(t, ["Set", "max.poll.ms", "to", "30s", "then", "v1.2.3"]);
    }
}
