//! Changed values: two memories about one subject where the newer gives a value the older also
//! gives, in the same words, and the values differ ("checkpoints every 60 s" / "the checkpoint
//! interval is 15 s").
//!
//! Nothing here names a setting. Two memories are about one subject when the rare words of the
//! smaller one are mostly in the other, rarity measured within the scope
//! (`read::values::Rarity`): a project's vocabulary decides what is specific. A value (read in
//! `read::values`) is a number with its unit (the unit decides what it measures: a duration, a
//! size, a share), a version or a clock time; the words within a few places of it are what it
//! is the value of, and two values are values of one setting when those words share rare ones.
//! A newer value the older memory also holds is history ("from 3 to 5"), not a change; memories
//! set in different environments (staging, prod, CI) describe different things.

use std::collections::BTreeSet;

use super::read::lexicon::value_dimension;
use super::read::values::{Measure, Rarity, Value, Values};

/// The fewest words two memories about one subject share: one shared word is a topic at most.
const SHARED_WORDS: usize = 2;
/// The least share of the smaller memory's rarity (sum of its words' IDF) the two must share.
const SAME_SUBJECT: f64 = 0.2;
/// The least rarity the words around two values must share to be the same setting's: about one
/// word found in a third of a project's memories, or two common ones.
const SAME_SETTING: f64 = 1.0;
/// What two memories must share when each gives one value of a measure, since no word around
/// the values has to tie them: three words (two, as in "mobile client", tie a connect timeout to
/// a poll interval), carrying a third of the smaller memory's rarity, as for replaced things.
const SOLE_SHARED_WORDS: usize = 3;
const SOLE_SUBJECT: f64 = 0.3;

/// How much of the smaller memory's rarity the two share, from 0 to 1.
pub fn subject(a: &Values, b: &Values, rarity: &Rarity) -> f64 {
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
pub fn changed(older: &Values, newer: &Values, rarity: &Rarity) -> Option<String> {
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
            let unitless = matches!(&o.measure, Measure::Number(d) if !value_dimension(d));
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
            let rarest = written(older, rarest);
            best = Some((weight, format!("{rarest}: {} vs {}", o.text, n.text)));
        }
    }
    let sole = shared >= SOLE_SHARED_WORDS && share >= SOLE_SUBJECT;
    best.map(|(_, why)| why)
        .or_else(|| sole.then(|| sole_values(older, newer)).flatten())
}

/// How `values`' text writes the word whose key (stem) is `key`: the word itself, or the
/// compound (a path, `max.poll.ms`) one of whose parts it is. A reason names what a person can
/// find in the memory, never a stem cut mid-name (`src/webhooks/retry.r`).
fn written<'a>(values: &'a Values, key: &'a str) -> &'a str {
    let of_key = values.words.iter().find(|w| w.key.as_deref() == Some(key));
    let of_part = || {
        values
            .words
            .iter()
            .find(|w| w.parts.iter().any(|p| p == key))
    };
    of_key.or_else(of_part).map_or(key, |w| w.lower.as_str())
}

/// The one value of its measure on each side, for two memories that share three words and a
/// third of their rarity (the caller checks): a memory giving one duration, one size or one
/// release is about that value, whatever words stand next to it ("upload links expire after 10
/// min" / "the upload link lifetime is 30 minutes now"). Bare numbers and decimals are left out:
/// without a unit, one count is as likely another's, and `0.1` as likely a ratio as a release.
fn sole_values(older: &Values, newer: &Values) -> Option<String> {
    let of_measure =
        |r: &'_ Values, m: &Measure| r.values.iter().filter(|v| v.measure.comparable(m)).count();
    older.values.iter().find_map(|o| {
        let unitless = matches!(&o.measure, Measure::Number(d) if !value_dimension(d));
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
fn released(older: &Values, newer: &Values, rarity: &Rarity) -> Option<String> {
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
fn foreign(names: &BTreeSet<String>, other: &Values) -> bool {
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
fn named_apart(o: &Value, n: &Value, older: &Values, newer: &Values) -> bool {
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
    use crate::drift::read::Reading;
    use crate::text::WordStemmer;

    /// Two memories read, with the rarity of their words among them and `others`.
    pub(in crate::drift) fn read_pair(
        older: &str,
        newer: &str,
        others: &[&str],
    ) -> (Values, Values, Rarity) {
        let stemmer = WordStemmer::default();
        let read = |text: &str| Reading::of(text, &stemmer).values().clone();
        let (o, n) = (read(older), read(newer));
        let rest: Vec<Values> = others.iter().map(|t| read(t)).collect();
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

    /// The word a reason names the setting by is written as the memories write it: a path or a
    /// word whole, never its stem cut mid-name (`src/webhooks/retry.r`).
    #[rstest]
    #[case::a_path("See src/webhooks/retry.rs: 8", "See src/webhooks/retry.rs: 10")]
    #[case::a_backticked_path(
        "`src/webhooks/retry.rs` sets MAX_ATTEMPTS = 8",
        "`src/webhooks/retry.rs` sets MAX_ATTEMPTS = 10"
    )]
    fn a_reason_names_a_path_whole(#[case] older: &str, #[case] newer: &str) {
        let why = judge(older, newer, OTHERS).expect("a changed value");
        assert_eq!(why, "src/webhooks/retry.rs: 8 vs 10");
    }
}
