//! The index `audit` finds pairs through among many memories, so it never compares every pair:
//! claims meet through their rarest subject words and equal claims are compared once, clauses
//! through keys with one word blanked out, and readings through words few memories hold.

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use super::read::claims::Claim;
use super::read::clauses::Word;
use super::read::values::Rarity;
use super::read::Reading;
use super::{conflict, key, Finding};
use crate::store::Memory;

/// The clearest conflict of each pair of memories (by index), as (closeness, why). Identical
/// claims are compared once: a store where a thousand notes end "check the lock first" costs
/// one comparison for that clause, not half a million.
pub(super) fn conflicts_among<'a>(
    memories: &[Memory],
    readings: &'a [Reading],
    skip: &HashMap<(usize, usize), Finding>,
) -> HashMap<(usize, usize), (usize, String)> {
    let mut best: HashMap<(usize, usize), (usize, String)> = HashMap::new();
    let mut offer = |i: usize, j: usize, found: Option<(usize, String)>| {
        let Some((closeness, why)) = found else {
            return;
        };
        if i == j
            || skip.contains_key(&key(i, j))
            || readings[i].claims().named_apart(readings[j].claims())
        {
            return;
        }
        let slot = best.entry(key(i, j)).or_insert((usize::MAX, String::new()));
        if closeness < slot.0 {
            *slot = (closeness, why);
        }
    };
    let older = |i: usize, j: usize| memories[i].written() < memories[j].written();

    // Claims, each distinct one with the memories that make it.
    let mut claims: Vec<(&'a Claim, Vec<usize>)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (i, p) in readings.iter().map(Reading::claims).enumerate() {
        for claim in &p.claims {
            let n = *index.entry(claim.signature()).or_insert_with(|| {
                claims.push((claim, Vec::new()));
                claims.len() - 1
            });
            claims[n].1.push(i);
        }
    }
    let mut buckets: HashMap<&str, Vec<usize>> = HashMap::new();
    for (n, (claim, _)) in claims.iter().enumerate() {
        for stem in &claim.subject {
            buckets.entry(stem.as_str()).or_default().push(n);
        }
    }
    // Subjects as sorted numbers, to rule most pairs out before comparing words.
    let mut numbers: HashMap<&str, u32> = HashMap::new();
    let mut number = |words: &'a std::collections::BTreeSet<String>| -> Vec<u32> {
        let mut out: Vec<u32> = words
            .iter()
            .map(|w| {
                let next = numbers.len() as u32;
                *numbers.entry(w.as_str()).or_insert(next)
            })
            .collect();
        out.sort_unstable();
        out
    };
    let quick: Vec<(Vec<u32>, Vec<u32>)> = claims
        .iter()
        .map(|(c, _)| (number(&c.subject), number(&c.names)))
        .collect();
    // Which claim last looked at each claim: a pair may be looked at from both sides, but
    // never twice from one.
    let mut seen_by: Vec<usize> = vec![usize::MAX; claims.len()];
    for (n, (claim, holders)) in claims.iter().enumerate() {
        // Two claims on the same subject share all but a quarter of the smaller one's words,
        // so one of its rarest n/4 + 1 words is always shared.
        let mut stems: Vec<&str> = claim.subject.iter().map(String::as_str).collect();
        stems.sort_by_key(|s| buckets[s].len());
        stems.truncate(stems.len() / 4 + 1);
        for stem in stems {
            for &m in &buckets[stem] {
                if m == n || seen_by[m] == n {
                    continue;
                }
                seen_by[m] = n;
                if !may_share_subject(&quick[n], &quick[m]) {
                    continue;
                }
                let (other, others) = &claims[m];
                let forward = conflict::claims_conflict(claim, other);
                if forward.is_none() {
                    continue;
                }
                let backward = conflict::claims_conflict(other, claim);
                for &i in holders {
                    for &j in others {
                        let found = if older(i, j) { &forward } else { &backward };
                        offer(i, j, found.clone());
                    }
                }
            }
        }
    }

    // Clauses equal but for one word, each distinct clause once.
    let mut clauses: Vec<(&[Word], Vec<usize>)> = Vec::new();
    let mut index: HashMap<&[Word], usize> = HashMap::new();
    for (i, p) in readings.iter().map(Reading::claims).enumerate() {
        for clause in &p.clauses {
            let n = *index.entry(clause.as_slice()).or_insert_with(|| {
                clauses.push((clause.as_slice(), Vec::new()));
                clauses.len() - 1
            });
            clauses[n].1.push(i);
        }
    }
    let mut groups: HashMap<String, Vec<usize>> = HashMap::new();
    for (n, (clause, _)) in clauses.iter().enumerate() {
        for k in conflict::clause_keys(clause) {
            groups.entry(k).or_default().push(n);
        }
    }
    for group in groups.values().filter(|g| g.len() > 1) {
        for (x, &a) in group.iter().enumerate() {
            for &b in &group[x + 1..] {
                let (ca, cb) = (clauses[a].0, clauses[b].0);
                let forward = conflict::clauses_conflict(ca, cb);
                if forward.is_none() {
                    continue;
                }
                let backward = conflict::clauses_conflict(cb, ca);
                for &i in &clauses[a].1 {
                    for &j in &clauses[b].1 {
                        let found = if older(i, j) { &forward } else { &backward };
                        offer(i, j, found.clone().map(|why| (usize::MAX - 1, why)));
                    }
                }
            }
        }
    }
    best
}

/// The most memories one word may be held by for the pairs sharing it to be compared: a word
/// that common says little about a subject, and pairs sharing only such words fall short of
/// the subject share `value` and `replaced` ask for anyway.
const BUCKET: usize = 64;

/// Pairs of memories (by index, lower first) that share a word held by at most `BUCKET`
/// memories: the only pairs `value::changed` or `replaced::replaced` may find a change in.
pub(super) fn candidates(readings: &[Reading], rarity: &Rarity) -> Vec<(usize, usize)> {
    let mut buckets: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, r) in readings.iter().enumerate() {
        for t in r
            .values()
            .terms
            .iter()
            .filter(|t| rarity.held_by(t) <= BUCKET)
        {
            buckets.entry(t.as_str()).or_default().push(i);
        }
    }
    let mut seen: HashSet<(usize, usize)> = HashSet::new();
    for bucket in buckets.values() {
        for (x, &i) in bucket.iter().enumerate() {
            for &j in &bucket[x + 1..] {
                seen.insert((i.min(j), i.max(j)));
            }
        }
    }
    let mut pairs: Vec<(usize, usize)> = seen.into_iter().collect();
    pairs.sort_unstable();
    pairs
}

/// A cheap necessary condition of `conflict::same_subject` on numbered subjects and names.
fn may_share_subject(a: &(Vec<u32>, Vec<u32>), b: &(Vec<u32>, Vec<u32>)) -> bool {
    let common = shared(&a.0, &b.0);
    let small = a.0.len().min(b.0.len());
    let names = shared(&a.1, &b.1);
    let named_apart = names < a.1.len() && names < b.1.len();
    common > 0 && !named_apart && (common == small || (common >= 2 && 4 * common >= 3 * small))
}

/// How many numbers two sorted lists share.
fn shared(a: &[u32], b: &[u32]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}
