//! Replaced things: a newer memory about the same subject that says the older one's tool,
//! name or place is gone ("Netlify was dropped", "moved off Poetry") or puts another name
//! where the older one had its own (`yarn mock` / `yarn dev:mock`, `europe-west1` /
//! `europe-north1`).
//!
//! Where `value` compares numbers, this compares what has no number. It asks more of the
//! subject than `value` does (a third of the smaller memory's rarity, not a fifth), since a
//! name or a change word says less about which setting changed than a unit does. What says the
//! older memory still holds rules a pair out: a newer one that only adds ("also", "besides",
//! "still"), one set in another environment, or one that repeats a value of the older.

use super::conflict::names_the_same;
use super::read::values::{Rarity, Shape, Values, Word};
use super::value::subject;

/// The least share of the smaller memory's rarity the two must share.
const SAME_SUBJECT: f64 = 0.3;
/// How many describing words before and after a change word may hold the subject it is
/// aimed at.
const AIM: usize = 5;

/// How many memories must hold each of two names for them to be subjects, not values.
const SUBJECT_HELD_BY: usize = 2;

/// Words saying that something the older memory named is no longer so: the change markers any
/// writer uses, not words met in one note (`gone`, `retired`, `uninstalled` were tried and cost
/// one `dev` pair between them).
const REPLACING: &[&str] = &[
    "anymore",
    "longer",
    "dropped",
    "replaced",
    "replaces",
    "replacing",
    "moved",
    "switched",
    "migrated",
    "instead",
    "removed",
    "deprecated",
    "renamed",
    "skip",
    "skips",
    "skipped",
];

/// Words saying the older memory still holds beside the newer one.
const CONTINUING: &[&str] = &[
    "also",
    "besides",
    "too",
    "still",
    "stays",
    "unchanged",
    "additionally",
    "kept",
    "remains",
];

/// Whether `r` says something still holds beside it: a word of `CONTINUING`, "too" only at the
/// end of a sentence ("we run B too", not "lz4 cost too much").
fn continues(r: &Values) -> bool {
    let words = &r.words;
    words.iter().enumerate().any(|(i, w)| {
        CONTINUING.contains(&w.lower.as_str())
            && (w.lower != "too" || words.get(i + 1).is_none_or(|next| next.start))
    })
}

/// Why `newer` replaces what `older` says, if it does.
pub fn replaced(older: &Values, newer: &Values, rarity: &Rarity) -> Option<String> {
    if older.environments != newer.environments {
        return None;
    }
    if older.terms.intersection(&newer.terms).count() < 2
        || subject(older, newer, rarity) < SAME_SUBJECT
    {
        return None;
    }
    if continues(newer) {
        return None;
    }
    if older.values.iter().any(|o| newer.gives(o)) {
        return None;
    }
    aimed_change(older, newer, rarity)
        .or_else(|| substituted(older, newer, rarity))
        .or_else(|| reassigned(older, newer))
}

/// One setting a memory assigns: the keys of the words it is said of, the value's place, and
/// whether a `:` or `=` assigns it (not "is").
struct Slot {
    keys: Vec<String>,
    at: usize,
    marked: bool,
}

/// The settings `r` assigns a word or name to: "compression is zstd", "topic: `dlq`",
/// "compression.type=lz4". Numbers are `value`'s.
fn slots(r: &Values) -> Vec<Slot> {
    let words = &r.words;
    let mut out = Vec::new();
    for (j, w) in words.iter().enumerate().skip(1) {
        let worded = w.key.is_some() || w.shape.is_some();
        if !worded || w.lower.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let copula = matches!(words[j - 1].lower.as_str(), "is" | "are") && !w.start;
        let end = if copula { j - 1 } else { j };
        // After `:` or `=` the value is all there is ("compression.type=lz4", "branch: main."),
        // not the first word of a sentence a label opens ("Sam: Hey, how was the trip").
        let settled = words.get(j + 1).is_none_or(|next| next.start);
        if !(w.marked && settled || copula) {
            continue;
        }
        let mut keys = Vec::new();
        for n in (0..end).rev().take(2) {
            // A `:` or `=` after it: the word is another setting's value.
            if n + 1 < end && words[n + 1].marked {
                break;
            }
            let Some(key) = &words[n].key else { break };
            keys.push(key.clone());
            keys.extend(words[n].parts.iter().cloned());
            if words[n].start {
                break;
            }
        }
        if !keys.is_empty() {
            out.push(Slot {
                keys,
                at: j,
                marked: w.marked,
            });
        }
    }
    out
}

/// A setting both memories assign, one of them with a `:` or `=`, where `newer` assigns a word
/// `older` never says: "old vs new". Two sentences that only say what things are ("my favourite
/// is X" / "my favourite is Y") are about two things as often as one: conversations are full of
/// them.
fn reassigned(older: &Values, newer: &Values) -> Option<String> {
    let theirs = slots(newer);
    slots(older).into_iter().find_map(|o| {
        let old = &older.words[o.at].lower;
        theirs.iter().find_map(|n| {
            let new = &newer.words[n.at].lower;
            let same_key = (o.marked || n.marked) && o.keys.iter().any(|k| n.keys.contains(k));
            let fresh = !older.says(new) && !names_the_same(old, new);
            (same_key && fresh).then(|| format!("{old} vs {new}"))
        })
    })
}

/// A change word in `newer` within `AIM` describing words of a specific word both memories
/// hold (`Rarity::specific`): "`subject`:
/// `change word`".
fn aimed_change(older: &Values, newer: &Values, rarity: &Rarity) -> Option<String> {
    let words = &newer.words;
    words.iter().enumerate().find_map(|(i, word)| {
        let w = &word.lower;
        // A change the older memory already tells is not news.
        if !REPLACING.contains(&w.as_str()) || older.says(w) {
            return None;
        }
        let aimed = near(newer, i).find(|key| {
            key.chars().count() > 2 && older.terms.contains(*key) && rarity.specific(key)
        })?;
        Some(format!("{aimed}: {w}"))
    })
}

/// A name of `older` that `newer` never says, where `newer` has a name of the same shape that
/// `older` never says, each within `AIM` describing words of one word both memories hold:
/// "old vs new".
/// Paths are left to `stale`: a memory naming another file is rarely about the same slot.
fn substituted(older: &Values, newer: &Values, rarity: &Rarity) -> Option<String> {
    let theirs = own_names(newer, older);
    own_names(older, newer).into_iter().find_map(|(i, shape)| {
        let around: Vec<&String> = near(older, i)
            .filter(|k| newer.terms.contains(*k))
            .collect();
        let name = &older.words[i].lower;
        let (j, _) = theirs.iter().find(|(j, s)| {
            *s == shape
                && !numbered_alike(name, &newer.words[*j].lower)
                && !both_subjects(older, i, newer, *j, rarity)
                && near(newer, *j).any(|k| around.contains(&k))
        })?;
        Some(format!("{name} vs {}", newer.words[*j].lower))
    })
}

/// Whether both names are held by several memories each: things the project keeps talking
/// about (`billing-3`, `search-35`), so two notes saying the same of each are about two
/// subjects, where a value one memory sets (`europe-west1`) is seldom repeated.
fn both_subjects(a: &Values, i: usize, b: &Values, j: usize, rarity: &Rarity) -> bool {
    let held = |r: &Values, i: usize| r.words[i].key.as_ref().map_or(0, |k| rarity.held_by(k));
    held(a, i).min(held(b, j)) >= SUBJECT_HELD_BY
}

/// Whether two names differ only in their digits (`billing-3`, `billing-4`): numbered
/// instances of one thing, each its own subject, not one put in the other's place.
fn numbered_alike(a: &str, b: &str) -> bool {
    let letters = |s: &str| {
        s.chars()
            .filter(|c| !c.is_ascii_digit())
            .collect::<String>()
    };
    letters(a) == letters(b)
}

/// The places and shapes of the names of `r` that `other` never says, paths left out.
fn own_names<'a>(r: &'a Values, other: &Values) -> Vec<(usize, &'a Shape)> {
    r.words
        .iter()
        .enumerate()
        .filter_map(|(i, w)| {
            let shape = w.shape.as_ref()?;
            let path = matches!(shape, Shape::Code(s) if s.contains('/'));
            (!path && !other.says(&w.lower)).then_some((i, shape))
        })
        .collect()
}

/// The keys of the `AIM` describing words on each side of place `i` in `r`.
fn near(r: &Values, i: usize) -> impl Iterator<Item = &String> {
    let before = r.words[..i].iter().rev().filter_map(key).take(AIM);
    let after = r
        .words
        .get(i + 1..)
        .unwrap_or(&[])
        .iter()
        .filter_map(key)
        .take(AIM);
    before.chain(after)
}

fn key(word: &Word) -> Option<&String> {
    word.key.as_ref()
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;
    use crate::drift::value::tests::read_pair;

    fn judge(older: &str, newer: &str) -> Option<String> {
        let (o, n, rarity) = read_pair(older, newer, OTHERS);
        replaced(&o, &n, &rarity)
    }

    const OTHERS: &[&str] = &[
        "The deploy job runs on every merge to main.",
        "Use the shared linter config; do not add local overrides.",
        "Release notes are written by the person who cuts the release.",
        "Dashboards live in the observability folder.",
        "Screenshots in bug reports help the triage rotation.",
    ];

    #[rstest]
    #[case::a_tool_dropped(
        "Static sites are deployed with Netlify from the docs branch.",
        "Netlify was dropped; static sites deploy from the docs branch through Pages."
    )]
    #[case::a_tool_replaced(
        "Feature flags: flipper, toggled from the admin console.",
        "LaunchDarkly replaced flipper for feature flags."
    )]
    #[case::a_region_substituted(
        "The image bucket sits in region ap-south1 for the uploads service.",
        "uploads service image bucket: region ap-east2"
    )]
    #[case::a_command_renamed(
        "Seed the fixtures database with `just seed` before the integration suite.",
        "The integration suite expects the fixtures database seeded by `just db-seed`."
    )]
    // No change word: the same setting says another word, the old one named only as history
    // ("too" inside a sentence is not "as well").
    #[case::a_setting_reassigned(
        "Thumbnails for static sites are encoded as format=webp.",
        "Static sites thumbnail format is avif; webp was too slow to decode on old phones."
    )]
    fn a_replacement_is_found(#[case] older: &str, #[case] newer: &str) {
        assert!(judge(older, newer).is_some(), "{older} / {newer}");
    }

    #[rstest]
    #[case::an_addition(
        "Static sites are deployed with Netlify from the docs branch.",
        "Preview builds of the static sites also go to Pages; the docs branch is unchanged."
    )]
    #[case::another_environment(
        "The image bucket sits in region ap-south1 for the uploads service.",
        "In staging the uploads service image bucket is in region ap-east2."
    )]
    #[case::another_numbered_instance(
        "When billing-3 deploys fail, check the migration lock first.",
        "When billing-4 deploys fail, check the migration lock first."
    )]
    #[case::another_file_named(
        "The uploads service reads its limits from config/uploads.toml at start.",
        "The uploads service reads its secrets from config/vault.toml at start."
    )]
    #[case::a_different_subject(
        "Static sites are deployed with Netlify from the docs branch.",
        "The triage rotation was moved to Thursdays."
    )]
    // A speaker's label opens each line of a conversation: what follows is a sentence, not the
    // label's value.
    #[case::two_lines_of_one_speaker(
        "Priya: static sites thumbnail run finished, webp everywhere now",
        "Priya: avif thumbnails for the static sites look sharper to me"
    )]
    // "is" on both sides says what things are; conversations are full of it.
    #[case::two_descriptions(
        "my favourite thumbnail format for static sites is webp",
        "her favourite thumbnail format for static sites is avif"
    )]
    #[case::the_same_setting_added_to(
        "Thumbnails for static sites are encoded as format=webp.",
        "Static sites thumbnail format is avif for the hero images, webp too."
    )]
    fn no_replacement_where_the_older_still_holds(#[case] older: &str, #[case] newer: &str) {
        assert_eq!(judge(older, newer), None, "{older} / {newer}");
    }
}
