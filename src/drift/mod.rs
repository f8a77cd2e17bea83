//! Drift: memories gone stale, contradicted by a newer one, or repeated.
//!
//! Findings point at candidates; nothing here supersedes or deletes anything. Of a conflicting
//! or duplicate pair the newer memory stands and the older is the one a finding is against. The
//! rules, with examples, are in `docs/drift.md`.
//!
//! Two ways in: `audit` checks everything a scope sees, grouping claims by their rarest subject
//! word so no two memories are compared unless they share one; `check` looks at a few memories
//! (what recall returns, what a hook injects, a new memory) and finds their partners through the
//! word index, so its cost does not grow with the store.

pub mod conflict;
pub mod replaced;
pub mod stale;
pub mod value;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Serialize;

use crate::config::Ignore;
use crate::store::write::Remembered;
use crate::store::{Memory, Scope, Store};
use crate::text::{duplicate, words, WordStemmer};
use conflict::Profile;

/// What kind of drift a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Stale,
    Conflict,
    Duplicate,
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    pub kind: Kind,
    /// The memory the finding is against: the stale one, or the older of a pair.
    pub id: i64,
    /// Of a pair, the newer memory, which stands.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub newer: Option<i64>,
    /// Why, in a few words: `"retries: 3 vs 5"`, `"src/x.rs is gone from /repo"`.
    pub why: String,
    /// The newer memory's text, quoted when the reader was not handed that memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub newer_text: Option<String>,
}

impl Finding {
    /// One line for a person or a model: "12 is contradicted by newer 31 (retries: 3 vs 5)".
    pub fn describe(&self) -> String {
        let mut line = match (self.kind, self.newer) {
            (Kind::Stale, _) => format!("{} is stale: {}", self.id, self.why),
            (Kind::Conflict, Some(newer)) => {
                format!(
                    "{} is contradicted by newer {newer} ({})",
                    self.id, self.why
                )
            }
            (Kind::Duplicate, Some(newer)) => format!("{} is repeated by newer {newer}", self.id),
            (_, None) => format!("{} {:?}: {}", self.id, self.kind, self.why),
        };
        if let (Some(newer), Some(text)) = (self.newer, &self.newer_text) {
            line.push_str(&format!("\n    {newer} says: {text}"));
        }
        line
    }
}

impl Finding {
    /// One line about a memory just stored (`new`), from its side.
    pub fn about_new(&self, new: i64) -> String {
        match (self.kind, self.newer) {
            (Kind::Conflict, Some(n)) if n == new => format!(
                "it contradicts {} ({}); both are kept: `synapse supersede {} {new}` if it \
                 replaces it",
                self.id, self.why, self.id
            ),
            (Kind::Duplicate, Some(n)) if n == new => format!(
                "it repeats {} (same text once case and punctuation are ignored); \
                 `synapse forget {new}` if one is enough",
                self.id
            ),
            (Kind::Stale, _) if self.id == new => {
                format!("it names a path that does not exist: {}", self.why)
            }
            _ => self.describe(),
        }
    }
}

/// How many memories nearest in storage order, sharing a subject word, `check` compares with each.
const PARTNERS: usize = 12;
/// How many folded repeats of a memory `check` compares with it.
const REPEATS: usize = 8;
/// How many subject words `check` searches for.
const SUBJECT_WORDS: usize = 10;
/// How much of a newer memory a finding quotes.
const QUOTE_CHARS: usize = 300;
/// A memory up to this long is judged whole for conflicts; a longer one by its first line,
/// at most this long. A note states its claims whole; a pasted log or document says in its first
/// line what it is, and comparing the rest claim by claim would cost every check far more than
/// a note does (and find numbers that differ everywhere).
pub const CLAIM_CHARS: usize = 500;
/// How much of a memory drift reads at most: the first 2 KiB, where it looks for the paths a
/// memory names and its claims (`claimed`).
pub const READ_BYTES: usize = 2 << 10;

/// The part of a memory's text drift reads: its first `READ_BYTES`, cut on a character.
fn opening(m: &Memory) -> &str {
    crate::text::cut_bytes(&m.body, READ_BYTES)
}

/// The part of a memory's text whose claims drift compares.
fn claimed(m: &Memory) -> &str {
    let short = crate::text::cut_chars(&m.body, CLAIM_CHARS);
    if short.len() == m.body.len() && m.is_whole() {
        return short;
    }
    let first = m.body.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    crate::text::cut_chars(first, CLAIM_CHARS)
}

/// Whether two memories repeat each other: the same folded text (`duplicate::key`). The hash of
/// it stored with each memory rules out nearly every pair at once; the keys themselves are
/// compared only for whole bodies (a memory longer than its head was hashed whole when stored).
fn repeats(a: &Memory, b: &Memory) -> bool {
    a.folded == b.folded
        && if a.is_whole() && b.is_whole() {
            duplicate::key(&a.body) == duplicate::key(&b.body)
        } else {
            a.bytes == b.bytes
        }
}

/// Every finding among the live memories `scope` sees, grouped by kind, then by id.
pub fn audit(store: &Store, scope: &Scope) -> Result<Vec<Finding>> {
    let memories = store.live_heads(scope)?;
    let home = home();
    let ignore = &store.settings()?.drift.ignore;
    let mut findings = Vec::new();
    for m in &memories {
        findings.extend(stale_in(m, home.as_deref(), ignore));
    }

    let mut pairs: HashMap<(usize, usize), Finding> = HashMap::new();
    let mut by_hash: HashMap<i64, Vec<usize>> = HashMap::new();
    for (i, m) in memories.iter().enumerate() {
        by_hash.entry(m.folded).or_default().push(i);
    }
    for group in by_hash.values().filter(|g| g.len() > 1) {
        // Newest first: each memory repeats the newest one it matches.
        let mut group = group.clone();
        group.sort_by_key(|&i| std::cmp::Reverse(order(&memories[i])));
        for (n, &i) in group.iter().enumerate().skip(1) {
            let newer = group[..n]
                .iter()
                .find(|&&j| repeats(&memories[i], &memories[j]));
            if let Some(&newest) = newer {
                pairs.insert(key(i, newest), repeat(&memories[i], &memories[newest]));
            }
        }
    }

    let stemmer = WordStemmer::default();
    let profiles: Vec<Profile> = memories
        .iter()
        .map(|m| Profile::of(claimed(m), &stemmer))
        .collect();
    let best = conflicts_among(&memories, &profiles, &pairs);
    for ((i, j), (_, why)) in best {
        let (older, newer) = oldest_first(&memories[i], &memories[j]);
        pairs.insert((i, j), pair(Kind::Conflict, older, newer, why));
    }
    let readings: Vec<value::Reading> = memories
        .iter()
        .map(|m| value::read(claimed(m), &stemmer))
        .collect();
    let rarity = value::Rarity::of(&readings);
    for (i, j) in candidates(&readings, &rarity) {
        if pairs.contains_key(&(i, j)) {
            continue;
        }
        let (older, newer) = if order(&memories[i]) < order(&memories[j]) {
            (i, j)
        } else {
            (j, i)
        };
        let (o, n) = (&readings[older], &readings[newer]);
        let changed = value::changed(o, n, &rarity).or_else(|| replaced::replaced(o, n, &rarity));
        if let Some(why) = changed {
            let finding = pair(Kind::Conflict, &memories[older], &memories[newer], why);
            pairs.insert((i, j), finding);
        }
    }
    findings.extend(pairs.into_values());
    findings.sort_by_key(|f| (f.kind, f.id, f.newer));
    Ok(findings)
}

/// The clearest conflict of each pair of memories (by index), as (closeness, why). Identical
/// claims are compared once: a store where a thousand notes end "check the lock first" costs
/// one comparison for that clause, not half a million.
fn conflicts_among<'a>(
    memories: &[Memory],
    profiles: &'a [Profile],
    skip: &HashMap<(usize, usize), Finding>,
) -> HashMap<(usize, usize), (usize, String)> {
    let mut best: HashMap<(usize, usize), (usize, String)> = HashMap::new();
    let mut offer = |i: usize, j: usize, found: Option<(usize, String)>| {
        let Some((closeness, why)) = found else {
            return;
        };
        if i == j || skip.contains_key(&key(i, j)) || profiles[i].named_apart(&profiles[j]) {
            return;
        }
        let slot = best.entry(key(i, j)).or_insert((usize::MAX, String::new()));
        if closeness < slot.0 {
            *slot = (closeness, why);
        }
    };
    let older = |i: usize, j: usize| order(&memories[i]) < order(&memories[j]);

    // Claims, each distinct one with the memories that make it.
    let mut claims: Vec<(&'a conflict::Claim, Vec<usize>)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (i, p) in profiles.iter().enumerate() {
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
    let mut clauses: Vec<(&[conflict::Word], Vec<usize>)> = Vec::new();
    let mut index: HashMap<&[conflict::Word], usize> = HashMap::new();
    for (i, p) in profiles.iter().enumerate() {
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
fn candidates(readings: &[value::Reading], rarity: &value::Rarity) -> Vec<(usize, usize)> {
    let mut buckets: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, r) in readings.iter().enumerate() {
        for t in r.terms.iter().filter(|t| rarity.held_by(t) <= BUCKET) {
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

/// Which memories `check` pairs a memory with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Partners {
    /// Memories stored after it: what may have replaced it (recall, the hooks).
    Newer,
    /// Memories stored before it: what a new memory may contradict or repeat (remember).
    Older,
}

/// The findings that involve `memories`: stale ones among them, and the pairs each forms with
/// live memories `scope` sees on the side `partners` says. A newer memory that the caller was
/// not handed is quoted in its finding.
pub fn check(
    store: &Store,
    scope: &Scope,
    memories: &[Memory],
    side: Partners,
) -> Result<Vec<Finding>> {
    let home = home();
    let ignore = &store.settings()?.drift.ignore;
    let stemmer = WordStemmer::default();
    let handed: HashSet<i64> = memories.iter().map(|m| m.id).collect();
    let mut findings = Vec::new();
    let mut seen: HashSet<(i64, i64)> = HashSet::new();
    let mut profiles: HashMap<i64, Profile> = HashMap::new();
    let mut all_partners = Vec::with_capacity(memories.len());
    for m in memories {
        findings.extend(stale_in(m, home.as_deref(), ignore));
        let profile = profiles
            .entry(m.id)
            .or_insert_with(|| Profile::of(claimed(m), &stemmer));
        all_partners.push(partners(store, scope, m, profile, side)?);
    }
    // Rarity among what is at hand: the memories that have a partner, and their partners, each
    // read once (a memory with no partner is in no pair and decides nothing).
    let mut readings: HashMap<i64, value::Reading> = HashMap::new();
    for (m, partners) in memories.iter().zip(&all_partners) {
        if partners.iter().all(|p| p.id == m.id) {
            continue;
        }
        for x in std::iter::once(m).chain(partners) {
            readings
                .entry(x.id)
                .or_insert_with(|| value::read(claimed(x), &stemmer));
        }
    }
    let rarity = value::Rarity::of(readings.values());
    for (m, partners) in memories.iter().zip(&all_partners) {
        for p in partners.iter().filter(|p| p.id != m.id) {
            let ids = (m.id.min(p.id), m.id.max(p.id));
            if !seen.insert(ids) {
                continue;
            }
            let (older, newer) = oldest_first(m, p);
            let finding = if repeats(older, newer) {
                Some(repeat(older, newer))
            } else {
                for x in [older, newer] {
                    profiles
                        .entry(x.id)
                        .or_insert_with(|| Profile::of(claimed(x), &stemmer));
                }
                let (o, n) = (&readings[&older.id], &readings[&newer.id]);
                conflict::disagreement(&profiles[&older.id], &profiles[&newer.id])
                    .or_else(|| value::changed(o, n, &rarity))
                    .or_else(|| replaced::replaced(o, n, &rarity))
                    .map(|why| pair(Kind::Conflict, older, newer, why))
            };
            if let Some(mut f) = finding {
                if !handed.contains(&newer.id) {
                    f.newer_text = Some(quote(&newer.body));
                }
                findings.push(f);
            }
        }
    }
    findings.sort_by_key(|f| (f.kind, f.id, f.newer));
    Ok(findings)
}

/// What a memory just remembered finds among the older ones `visible` sees (what it
/// contradicts or repeats, paths it names that are gone): nothing for a repeat, which stored
/// nothing. Every write path that reports on a new memory (CLI, slash command, MCP) asks here.
pub fn of_remembered(store: &Store, visible: &Scope, outcome: &Remembered) -> Result<Vec<Finding>> {
    if outcome.duplicate {
        return Ok(Vec::new());
    }
    let stored = store.head(outcome.id, visible)?;
    check(store, visible, &[stored], Partners::Older)
}

/// The chains among conflict findings: three or more memories linked by conflicts (the same
/// value updated again and again), each as ids newest first. A memory in no chain is in none
/// of the lists.
pub fn chains(findings: &[Finding]) -> Vec<Vec<i64>> {
    let links: Vec<(i64, i64)> = findings
        .iter()
        .filter(|f| f.kind == Kind::Conflict)
        .filter_map(|f| f.newer.map(|n| (f.id, n)))
        .collect();
    let mut group: HashMap<i64, i64> = HashMap::new();
    fn root(group: &mut HashMap<i64, i64>, id: i64) -> i64 {
        let up = *group.entry(id).or_insert(id);
        if up == id {
            return id;
        }
        let top = root(group, up);
        group.insert(id, top);
        top
    }
    for &(a, b) in &links {
        let (ra, rb) = (root(&mut group, a), root(&mut group, b));
        group.insert(ra.max(rb), ra.min(rb));
    }
    let ids: Vec<i64> = group.keys().copied().collect();
    let mut members: HashMap<i64, Vec<i64>> = HashMap::new();
    for id in ids {
        let r = root(&mut group, id);
        members.entry(r).or_default().push(id);
    }
    let mut out: Vec<Vec<i64>> = members
        .into_values()
        .filter(|m| m.len() >= 3)
        .map(|m| newest_first(&m, &links))
        .collect();
    out.sort();
    out
}

/// `members` ordered so that each comes before every memory it contradicts (the newer first);
/// ties by id, larger first.
fn newest_first(members: &[i64], links: &[(i64, i64)]) -> Vec<i64> {
    let mut left: Vec<i64> = members.to_vec();
    left.sort_unstable_by(|a, b| b.cmp(a));
    let mut out = Vec::with_capacity(left.len());
    while !left.is_empty() {
        // The newest remaining: no remaining member is newer than it.
        let at = left
            .iter()
            .position(|&m| !links.iter().any(|&(o, n)| o == m && left.contains(&n)))
            .unwrap_or(0);
        out.push(left.remove(at));
    }
    out
}

/// What a hook leaves out of the memories it is about to inject, and why.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LeftOut {
    pub ids: Vec<i64>,
    /// One reason a memory: "12 is stale (...)", "3 is contradicted by newer 7 (...)".
    pub reasons: Vec<String>,
}

impl LeftOut {
    /// The one line the block shows: "Left out: REASON; REASON.", if anything was left out.
    pub fn line(&self) -> Option<String> {
        (!self.reasons.is_empty()).then(|| format!("Left out: {}.", self.reasons.join("; ")))
    }
}

/// Of the memories `offered` (ids, in order), which to leave out given `findings`: stale ones,
/// and the older of a conflicting or duplicate pair.
pub fn leave_out(findings: &[Finding], offered: &[i64]) -> LeftOut {
    let mut ids = Vec::new();
    let mut reasons = Vec::new();
    for &id in offered {
        let Some(f) = findings.iter().find(|f| f.id == id) else {
            continue;
        };
        ids.push(id);
        reasons.push(match (f.kind, f.newer) {
            (Kind::Stale, _) => format!("{id} is stale ({})", f.why),
            (Kind::Conflict, Some(newer)) => {
                format!("{id} is contradicted by newer {newer} ({})", f.why)
            }
            (_, newer) => format!(
                "{id} repeats {}",
                newer.map_or("another".to_owned(), |n| n.to_string())
            ),
        });
    }
    LeftOut { ids, reasons }
}

/// Live memories visible from `scope`, stored on `side` of `m`, that may pair with it: the
/// nearest ones sharing a word of its claims' subjects (the word index is walked from `m` and
/// stops at a fixed count), and its folded duplicates (one lookup of the stored hash). The cost
/// does not grow with the store.
fn partners(
    store: &Store,
    scope: &Scope,
    m: &Memory,
    profile: &Profile,
    side: Partners,
) -> Result<Vec<Memory>> {
    let mut subject: Vec<&str> = Vec::new();
    for claim in &profile.claims {
        for word in &claim.words {
            if !subject.contains(&word.as_str()) && subject.len() < SUBJECT_WORDS {
                subject.push(word);
            }
        }
    }
    let mut ids: Vec<i64> = Vec::new();
    if !subject.is_empty() {
        let within = store.within(scope)?;
        let any = quoted_any(&subject);
        let any: Vec<&str> = any.iter().map(String::as_str).collect();
        let newer = side == Partners::Newer;
        ids = store.neighbours(&within, &any, m.id, newer, PARTNERS)?;
    }
    for id in store.repeats(m, scope, REPEATS)? {
        let on_side = match side {
            Partners::Newer => id > m.id,
            Partners::Older => id < m.id,
        };
        if on_side && !ids.contains(&id) {
            ids.push(id);
        }
    }
    // Drift reads no more than the opening of a memory.
    store.live_openings_by_ids(&ids, scope, READ_BYTES)
}

/// `"a"`, `"b"`: the quoted phrases for words that are plain words (code words are searched by their parts).
fn quoted_any(words_: &[&str]) -> Vec<String> {
    let mut parts: Vec<String> = Vec::new();
    for w in words_ {
        for part in words(w) {
            let quoted = format!("\"{part}\"");
            if !parts.contains(&quoted) {
                parts.push(quoted);
            }
        }
    }
    parts
}

/// The stale findings of one memory: each path it names that is gone, unless `[drift] ignore`
/// in config.toml matches it (below the checkout).
fn stale_in(m: &Memory, home: Option<&Path>, ignore: &Ignore) -> Vec<Finding> {
    let checkout = m
        .project
        .as_deref()
        .map(Path::new)
        .filter(|p| p.is_absolute() && p.is_dir());
    let roots: Vec<&Path> = checkout.into_iter().chain(home).collect();
    stale::named(opening(m), &roots)
        .into_iter()
        .filter_map(|named| {
            let place = stale::locate(&named, checkout, home)?;
            let below = checkout.and_then(|c| place.strip_prefix(c).ok());
            if below.is_some_and(|p| ignore.matches(&p.to_string_lossy())) {
                return None;
            }
            if !stale::gone(&named, &place) {
                return None;
            }
            let why = match (named.absolute, checkout) {
                (false, Some(root)) => format!("{} is gone from {}", named.written, root.display()),
                _ => format!("{} does not exist", named.written),
            };
            Some(Finding {
                kind: Kind::Stale,
                id: m.id,
                newer: None,
                why,
                newer_text: None,
            })
        })
        .take(1)
        .collect()
}

fn repeat(older: &Memory, newer: &Memory) -> Finding {
    pair(Kind::Duplicate, older, newer, "same text".into())
}

fn pair(kind: Kind, older: &Memory, newer: &Memory, why: String) -> Finding {
    // A teammate's newer memory (folded in from the shared file) says whose it is.
    let why = match newer
        .source
        .strip_prefix(crate::store::shared::SOURCE_PREFIX)
    {
        Some(name) => format!("{why}, {}{name}", crate::store::shared::SOURCE_PREFIX),
        None => why,
    };
    Finding {
        kind,
        id: older.id,
        newer: Some(newer.id),
        why,
        newer_text: None,
    }
}

fn order(m: &Memory) -> (crate::store::Stamp, i64) {
    (m.created_at, m.id)
}

fn oldest_first<'a>(a: &'a Memory, b: &'a Memory) -> (&'a Memory, &'a Memory) {
    if order(a) < order(b) {
        (a, b)
    } else {
        (b, a)
    }
}

fn key(i: usize, j: usize) -> (usize, usize) {
    (i.min(j), i.max(j))
}

fn quote(body: &str) -> String {
    let cut = crate::text::cut_chars(body, QUOTE_CHARS);
    if cut.len() < body.len() {
        format!("{cut}…")
    } else {
        cut.to_owned()
    }
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conflict(id: i64, newer: i64) -> Finding {
        Finding {
            kind: Kind::Conflict,
            id,
            newer: Some(newer),
            why: String::new(),
            newer_text: None,
        }
    }

    #[test]
    fn chains_are_three_or_more_linked_newest_first() {
        // 7 <- 3 <- 9 (ids out of time order), a lone pair 20 <- 21, and a duplicate.
        let mut findings = vec![conflict(7, 3), conflict(3, 9), conflict(7, 9)];
        findings.push(conflict(20, 21));
        findings.push(Finding {
            kind: Kind::Duplicate,
            ..conflict(30, 31)
        });
        assert_eq!(chains(&findings), vec![vec![9, 3, 7]]);
    }
}
