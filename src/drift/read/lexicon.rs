//! The words every drift rule reads from one place: units and the names of places a setting
//! holds in.
//!
//! The claim reader (`claims`) and the value reader (`values`) were tuned apart, on lists that
//! overlap but differ; each row here says how each reader takes its word, so both read one table
//! and neither reads a word it was not tuned with.

use std::sync::OnceLock;

use foldhash::HashMap;

/// A unit: (unit, its dimension and factor in a claim, its dimension in a value reading).
type Unit = (
    &'static str,
    Option<(&'static str, f64)>,
    Option<&'static str>,
);

/// Units written after or glued to a number: (unit, what a claim reads it as: its dimension and
/// the factor to the dimension's base unit, what a value reading reads it as: its dimension). A
/// claim compares amounts after conversion ("30s" equals "30000 ms"); a value reading compares
/// values as written, so it needs no factor. A count ("" in a claim) is a bare number.
const UNITS: &[Unit] = &[
    ("ms", Some(("time", 1.0)), Some("time")),
    ("msec", Some(("time", 1.0)), None),
    ("millisecond", Some(("time", 1.0)), None),
    ("milliseconds", Some(("time", 1.0)), None),
    ("s", Some(("time", 1e3)), Some("time")),
    ("sec", Some(("time", 1e3)), Some("time")),
    ("secs", Some(("time", 1e3)), Some("time")),
    ("second", Some(("time", 1e3)), Some("time")),
    ("seconds", Some(("time", 1e3)), Some("time")),
    ("m", Some(("time", 6e4)), Some("time")),
    ("min", Some(("time", 6e4)), Some("time")),
    ("mins", Some(("time", 6e4)), Some("time")),
    ("minute", Some(("time", 6e4)), Some("time")),
    ("minutes", Some(("time", 6e4)), Some("time")),
    ("h", Some(("time", 3.6e6)), Some("time")),
    ("hr", Some(("time", 3.6e6)), Some("time")),
    ("hrs", Some(("time", 3.6e6)), Some("time")),
    ("hour", Some(("time", 3.6e6)), Some("time")),
    ("hours", Some(("time", 3.6e6)), Some("time")),
    ("d", Some(("time", 8.64e7)), Some("time")),
    ("day", Some(("time", 8.64e7)), Some("time")),
    ("days", Some(("time", 8.64e7)), Some("time")),
    ("week", Some(("time", 6.048e8)), Some("time")),
    ("weeks", Some(("time", 6.048e8)), Some("time")),
    ("b", Some(("size", 1.0)), None),
    ("byte", Some(("size", 1.0)), None),
    ("bytes", Some(("size", 1.0)), None),
    ("kb", Some(("size", 1024.0)), Some("size")),
    ("kib", Some(("size", 1024.0)), Some("size")),
    ("mb", Some(("size", 1048576.0)), Some("size")),
    ("mib", Some(("size", 1048576.0)), Some("size")),
    ("gb", Some(("size", 1073741824.0)), Some("size")),
    ("gib", Some(("size", 1073741824.0)), Some("size")),
    ("tb", Some(("size", 1099511627776.0)), Some("size")),
    ("tib", None, Some("size")),
    ("ki", None, Some("size")),
    ("mi", None, Some("size")),
    ("gi", None, Some("size")),
    ("%", Some(("percent", 1.0)), Some("share")),
    ("percent", Some(("percent", 1.0)), Some("share")),
    ("px", None, Some("pixels")),
    ("x", Some(("", 1.0)), Some("times")),
    ("times", Some(("", 1.0)), None),
    ("attempts", Some(("", 1.0)), None),
    ("tries", Some(("", 1.0)), None),
    ("k", Some(("", 1e3)), None),
];

/// The units by name, built once per process: every word of every memory is looked up, and
/// scanning the one table, longer than either reader's old list, made reading slower.
fn units() -> &'static HashMap<&'static str, Unit> {
    static MAP: OnceLock<HashMap<&'static str, Unit>> = OnceLock::new();
    MAP.get_or_init(|| UNITS.iter().map(|&row| (row.0, row)).collect())
}

/// The units a claim reads.
pub fn claim_units() -> impl Iterator<Item = &'static str> {
    UNITS
        .iter()
        .filter(|(_, claim, _)| claim.is_some())
        .map(|(unit, _, _)| *unit)
}

/// What a claim reads `word` as, if it is a unit: its dimension and the factor to its base unit.
pub fn claim_unit(word: &str) -> Option<(&'static str, f64)> {
    units().get(word).and_then(|&(_, claim, _)| claim)
}

/// What a value reading reads `word` as, if it is a unit: what it measures.
pub fn value_unit(word: &str) -> Option<&'static str> {
    units().get(word).and_then(|&(_, _, value)| value)
}

/// Whether a value reading has a unit measuring `dimension`.
pub fn value_dimension(dimension: &str) -> bool {
    UNITS.iter().any(|(_, _, value)| *value == Some(dimension))
}

/// How a claim reads the name of a place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// A deployment: it says which one a value belongs to, never a value.
    Environment,
    /// A region: like an environment it says which deployment a value belongs to, but it can
    /// also be the value itself ("deploy to the eu cluster").
    Region,
}

/// Names of where a setting holds rather than what it is: (word, what a claim reads it as,
/// whether a value reading reads it as an environment).
const PLACES: &[(&str, Option<Place>, bool)] = &[
    ("prod", Some(Place::Environment), true),
    ("production", Some(Place::Environment), true),
    ("staging", Some(Place::Environment), true),
    ("stg", Some(Place::Environment), false),
    ("stage", None, true),
    ("dev", Some(Place::Environment), true),
    ("development", Some(Place::Environment), true),
    ("local", None, true),
    ("locally", None, true),
    ("ci", None, true),
    ("qa", Some(Place::Environment), true),
    ("uat", Some(Place::Environment), false),
    ("ios", None, true),
    ("android", None, true),
    ("desktop", None, true),
    ("mobile", None, true),
    ("preview", Some(Place::Environment), true),
    ("sandbox", Some(Place::Environment), true),
    ("canary", None, true),
    ("eu", Some(Place::Region), false),
    ("us", Some(Place::Region), false),
    ("uk", Some(Place::Region), false),
    ("apac", Some(Place::Region), false),
    ("emea", Some(Place::Region), false),
    ("latam", Some(Place::Region), false),
    ("europe", Some(Place::Region), false),
    ("asia", Some(Place::Region), false),
];

/// The places by name, built once per process (as `units`).
fn places() -> &'static HashMap<&'static str, (Option<Place>, bool)> {
    static MAP: OnceLock<HashMap<&'static str, (Option<Place>, bool)>> = OnceLock::new();
    MAP.get_or_init(|| {
        PLACES
            .iter()
            .map(|&(name, claim, value)| (name, (claim, value)))
            .collect()
    })
}

/// What a claim reads `word` as, if it names a place.
pub fn claim_place(word: &str) -> Option<Place> {
    places().get(word).and_then(|&(claim, _)| claim)
}

/// Whether a value reading takes `word` for an environment.
pub fn value_environment(word: &str) -> bool {
    places()
        .get(word)
        .is_some_and(|&(_, environment)| environment)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each word has one row: the lookups keep one row a word.
    #[test]
    fn each_word_has_one_row() {
        let mut units: Vec<&str> = UNITS.iter().map(|(u, _, _)| *u).collect();
        let mut places: Vec<&str> = PLACES.iter().map(|(p, _, _)| *p).collect();
        let (n, m) = (units.len(), places.len());
        units.sort_unstable();
        units.dedup();
        places.sort_unstable();
        places.dedup();
        assert_eq!((units.len(), places.len()), (n, m));
    }

    #[test]
    fn each_reader_keeps_its_own_reading() {
        assert_eq!(claim_unit("x"), Some(("", 1.0)));
        assert_eq!(value_unit("x"), Some("times"));
        assert_eq!(claim_unit("px"), None);
        assert_eq!(value_unit("msec"), None);
        assert!(value_dimension("pixels") && !value_dimension("percent"));
        assert_eq!(claim_place("eu"), Some(Place::Region));
        assert!(!value_environment("eu") && value_environment("ci"));
        assert_eq!(claim_place("ci"), None);
    }
}
