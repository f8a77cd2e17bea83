//! The value reader: what the value rules (`value`, `replaced`) read of a memory's tokens
//! (`tokens`): its describing words and their stems, the names among them, its values (a number
//! with its unit, a version or a clock time, with the words around each) and its environments;
//! and how rare each word is among a scope's memories (`Rarity`).

use std::collections::BTreeSet;

use foldhash::HashMap;

use super::lexicon::{value_dimension, value_environment, value_unit};
use super::tokens::Token;
use crate::text::{is_function_word, WordStemmer};

/// How many describing words on each side of a value say what it is the value of.
const REACH: usize = 5;
/// How many describing words before a release may name what it is a release of.
const OWNER_REACH: usize = 3;

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
pub(crate) enum Measure {
    Version,
    Clock,
    /// A number in a dimension (`time`, `size`, ...), or with a unit no table knows (its name),
    /// or none (`""`).
    Number(String),
}

impl Measure {
    pub(crate) fn comparable(&self, other: &Measure) -> bool {
        match (self, other) {
            (Measure::Number(a), Measure::Number(b)) => {
                a == b || !value_dimension(a) && !value_dimension(b)
            }
            _ => self == other,
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Value {
    pub(crate) measure: Measure,
    /// The value as written, unit left off.
    pub(crate) text: String,
    /// The keys of the words around it.
    pub(crate) around: BTreeSet<String>,
    /// Written as a release (`v1.2`, `3.1.x`, `1.29.4`), not a bare decimal (`0.1`).
    pub(crate) release: bool,
    /// The keys of the describing words of three letters or more just before it that are not a
    /// verb's form (`-ed`, `-ing`): what a release may be of.
    pub(crate) owners: Vec<String>,
    /// The names among them (`Terraform`, `max.poll.ms`), lowercased.
    pub(crate) names: BTreeSet<String>,
    /// The describing word nearest before it (after it when none is before): what it is most
    /// directly the value of.
    pub(crate) nearest: Option<String>,
}

/// What the value rules read of one memory.
#[derive(Clone, Debug, Default)]
pub struct Values {
    /// Stems of its content words.
    pub terms: BTreeSet<String>,
    /// The names anywhere in it.
    pub(crate) names: BTreeSet<String>,
    pub(crate) values: Vec<Value>,
    pub(crate) environments: BTreeSet<String>,
    /// Every token in order.
    pub(crate) words: Vec<Word>,
}

/// One token as the rules read it.
#[derive(Clone, Debug)]
pub(crate) struct Word {
    /// The token, lowercased.
    pub(crate) lower: String,
    /// Its key (stem) when it describes something.
    pub(crate) key: Option<String>,
    /// How it is written, when it is a name or was backticked.
    pub(crate) shape: Option<Shape>,
    /// The keys of its parts, when it is a compound that describes something
    /// (`compression.type`: `compress`, `type`).
    pub(crate) parts: Vec<String>,
    /// A `:` or `=` stands right before it.
    pub(crate) marked: bool,
    /// It opens a sentence.
    pub(crate) start: bool,
}

impl Values {
    /// Whether the memory gives `value` (as written, unit left off) anywhere.
    pub(crate) fn gives(&self, value: &Value) -> bool {
        self.values.iter().any(|v| v.text == value.text)
    }

    /// Whether the memory says `token` (lowercased) as a whole token.
    pub(crate) fn says(&self, token: &str) -> bool {
        self.words.iter().any(|w| w.lower == token)
    }

    /// Whether one of its tokens has `part` as a part (`spring-boot`: `spring`, `boot`).
    pub(crate) fn says_part(&self, part: &str) -> bool {
        self.words
            .iter()
            .any(|w| w.lower.split(['-', '_', '.', '/']).any(|p| p == part))
    }
}

/// How a name is written, so that a name standing where another of its kind stood is seen:
/// two backticked commands, two `europe-west1`-like regions, two capitalized products.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
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
    pub fn of<'a>(readings: impl IntoIterator<Item = &'a Values>) -> Rarity {
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

/// The value a token writes, if it is one (its unit may be the `next` token).
fn value_of(token: &str, next: Option<&str>) -> Option<(Measure, String)> {
    let digits_end = token
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ':'))
        .unwrap_or(token.len());
    let (number, suffix) = token.split_at(digits_end);
    let number = number.trim_end_matches(['.', ':']);
    if number.is_empty() || !number.starts_with(|c: char| c.is_ascii_digit()) {
        let version = token
            .strip_prefix(['v', 'V'])
            .filter(|v| v.contains('.') && v.chars().all(|c| c.is_ascii_digit() || c == '.'));
        return version.map(|v| (Measure::Version, v.to_owned()));
    }
    if number.contains(':') {
        let clock = number.len() <= 5 && number.split(':').count() == 2;
        return clock.then(|| (Measure::Clock, number.to_owned()));
    }
    let suffix = suffix.to_lowercase();
    let written = token.strip_prefix(number).unwrap_or("");
    if number.contains('.') && written.starts_with(".x") {
        // `3.1.x`: a version line.
        return Some((Measure::Version, number.to_owned()));
    }
    if !suffix.is_empty() && !suffix.chars().all(|c| c.is_alphabetic() || c == '%') {
        return None;
    }
    let dimension = match (suffix.as_str(), next.and_then(value_unit)) {
        ("", Some(d)) => d.to_owned(),
        ("", None) => String::new(),
        (s, _) => value_unit(s).map_or_else(|| s.to_owned(), str::to_owned),
    };
    if number.contains('.') && dimension.is_empty() {
        return Some((Measure::Version, number.to_owned()));
    }
    Some((Measure::Number(dimension), number.to_owned()))
}

/// Whether a token says what a value is of: a content word, not a number, unit or environment.
fn describes(t: &Token) -> bool {
    t.lower.chars().count() > 1
        && !t.lower.starts_with(|c: char| c.is_ascii_digit())
        && !is_function_word(&t.lower)
        && value_unit(&t.lower).is_none()
        && !value_environment(&t.lower)
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

/// Read a memory's tokens for the value rules.
pub(super) fn read(tokens: Vec<Token>, stemmer: &WordStemmer) -> Values {
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
    let mut reading = Values {
        terms: keys.iter().flatten().cloned().collect(),
        ..Values::default()
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
        .filter(|t| value_environment(&t.lower))
        .map(|t| t.lower.clone())
        .collect();
    for (i, t) in tokens.iter().enumerate() {
        let next = tokens.get(i + 1).map(|n| n.lower.as_str());
        let Some((measure, value)) = value_of(&t.text, next) else {
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
