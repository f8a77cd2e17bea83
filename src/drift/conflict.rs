//! Conflicts: two memories about the same subject that disagree, judged claim by claim (the
//! claims are read in `read::claims`).
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

use super::read::claim_words::{ASSIGNS, GENERIC, NEGATIONS};
use super::read::claims::{is_date, is_old_value, number, Claim, Profile, Said};
use super::read::clauses::Word;
use super::read::lexicon::{claim_place, Place};
use crate::text::is_function_word;

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
    let place = claim_place(t);
    if place == Some(Place::Environment) || NEGATIONS.contains(&t) || GENERIC.contains(&t) {
        return false;
    }
    w.code || place == Some(Place::Region) || t.chars().any(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;
    use crate::drift::read::Reading;
    use crate::text::WordStemmer;

    fn conflict(older: &str, newer: &str) -> Option<String> {
        let s = WordStemmer::default();
        let (o, n) = (Reading::of(older, &s), Reading::of(newer, &s));
        disagreement(o.claims(), n.claims())
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
