//! Drift: memories gone stale, contradicted by a newer one, or repeated.
//!
//! Findings point at candidates; nothing here supersedes or deletes anything. Of a conflicting
//! or duplicate pair the newer memory stands and the older is the one a finding is against. The
//! rules, with examples, are in `docs/drift.md`.
//!
//! Each memory is read once (`read`), and a pair is judged by one list of conflict rules over
//! those readings (`RULES`: `conflict`, `value`, `replaced`); `stale` finds named paths that are
//! gone, and `findings` holds what is reported.
//!
//! Two ways in: `audit` checks everything a scope sees, grouping claims by their rarest subject
//! word so no two memories are compared unless they share one (`index`); `check` looks at a few
//! memories (what recall returns, what a hook injects, a new memory) and finds their partners
//! through the word index, so its cost does not grow with the store.

pub mod conflict;
mod findings;
mod index;
mod origin;
mod read;
pub mod replaced;
/// Settling one finding as a person chose: supersede the older, forget one, or dismiss it.
pub mod settle;
pub mod stale;
pub mod value;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::config::Ignore;
use crate::store::write::Remembered;
use crate::store::{Memory, Scope, Store};
use crate::text::{duplicate, words, WordStemmer};
use findings::Inferred;
pub use findings::{
    arrange, chains, leave_out, stale_lines, Arranged, Certainty, FileLine, Finding, Kind, LeftOut,
    Mark, StaleLine,
};
use origin::Origins;
pub use origin::{line_in_piece, line_in_text};
use read::claims::Profile;
use read::values::Rarity;
use read::Reading;

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
/// How many lines of a memory are compared with the pieces of files Claude Code loads
/// (`line_hashes`): a memory that repeats one does so near its start.
const LINES_COMPARED: usize = 24;
/// How much of a memory drift reads at most: the first 2 KiB, where it looks for the paths a
/// memory names and its claims (`claimed`).
pub const READ_BYTES: usize = 2 << 10;

/// A conflict rule: why `newer` contradicts `older`, if it does, given how rare each word is
/// among the memories at hand.
type Rule = fn(&Reading, &Reading, &Rarity) -> Option<String>;

/// The conflict rules, clearest first, each over the one reading of each memory, with how sure
/// a conflict it finds is: claims that disagree (`conflict`), a value changed (`value`), a thing
/// replaced (`replaced`).
///
/// The claims rule ties two notes to one subject by the words of the claims themselves (one
/// subject's words all among the other's), and compares values of one kind or a statement and
/// its negation: `Likely`. The other two tie them by how much of their rarity they share, which
/// unrelated notes of one store also do: `Possible`. Measured on what rules are tuned on
/// (`docs/drift.md`): the claims rule was right for 79 of 81 conflicts it reported, the other two
/// for 58 of 88, nearly all wrong ones between unrelated notes of the whole-store fixtures.
const RULES: [(Rule, Certainty); 3] = [
    (
        |older, newer, _| conflict::disagreement(older.claims(), newer.claims()),
        Certainty::Likely,
    ),
    (
        |older, newer, rarity| value::changed(older.values(), newer.values(), rarity),
        Certainty::Possible,
    ),
    (
        |older, newer, rarity| replaced::replaced(older.values(), newer.values(), rarity),
        Certainty::Possible,
    ),
];

/// Why `newer` contradicts `older`, and how sure that is: what the first of `rules` that finds
/// a conflict says.
fn judge(
    rules: &[(Rule, Certainty)],
    older: &Reading,
    newer: &Reading,
    rarity: &Rarity,
) -> Option<Inferred> {
    rules.iter().find_map(|&(rule, certainty)| {
        rule(older, newer, rarity).map(|why| Inferred { why, certainty })
    })
}

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

/// The folded hashes (`duplicate::hash`) of the lines of `body` that may repeat a whole piece of
/// a file Claude Code loads, then of the whole body, at most `LINES_COMPARED` of them. A line
/// needs 8 letters or digits: shorter ones (a heading, `- [x]`, a lone word) repeat by chance.
/// The hooks' screen and the audit both ask here, so they agree on what a repeat is.
pub fn line_hashes(body: &str) -> impl Iterator<Item = i64> + '_ {
    body.lines()
        .chain(std::iter::once(body))
        .filter(|line| line.chars().filter(|c| c.is_alphanumeric()).count() >= 8)
        .take(LINES_COMPARED)
        .map(duplicate::hash)
}

/// Every finding among the live memories `scope` sees, grouped by kind, then by id; a path
/// `ignore` matches (the settings' `[drift] ignore`) is never stale.
pub fn audit(store: &Store, scope: &Scope, ignore: &Ignore) -> Result<Vec<Finding>> {
    let memories = store.live_heads(scope)?;
    let home = home();
    let origins = Origins::all(store, scope)?;
    let mut findings = Vec::new();
    for m in &memories {
        let gone = gone_in(m, home.as_deref(), ignore);
        if !gone.is_empty() {
            findings.extend(origins.stale(m, gone, home.as_deref()));
        }
    }

    let mut pairs: HashMap<(usize, usize), Finding> = HashMap::new();
    let mut by_hash: HashMap<i64, Vec<usize>> = HashMap::new();
    for (i, m) in memories.iter().enumerate() {
        by_hash.entry(m.folded).or_default().push(i);
    }
    for group in by_hash.values().filter(|g| g.len() > 1) {
        // Newest first: each memory repeats the newest one it matches.
        let mut group = group.clone();
        group.sort_by_key(|&i| std::cmp::Reverse(memories[i].written()));
        for (n, &i) in group.iter().enumerate().skip(1) {
            let newer = group[..n]
                .iter()
                .find(|&&j| repeats(&memories[i], &memories[j]));
            if let Some(&newest) = newer {
                pairs.insert(key(i, newest), repeat(&memories[i], &memories[newest]));
            }
        }
    }

    // A memory that repeats a piece the client loads is reported as that, whatever else pairs
    // them: the piece is what the model reads anyway.
    for (i, j, finding) in origins.repeats_of_loaded(store, &memories)? {
        pairs.insert(key(i, j), finding);
    }

    let stemmer = WordStemmer::default();
    let readings: Vec<Reading> = memories
        .iter()
        .map(|m| Reading::of(claimed(m), &stemmer))
        .collect();
    // The first rule, the claims', runs through an index of claims over all pairs at once; the
    // others judge each pair that shares a word few memories hold.
    let best = index::conflicts_among(&memories, &readings, &pairs);
    for ((i, j), (_, why)) in best {
        let (older, newer) = oldest_first(&memories[i], &memories[j]);
        let certainty = RULES[0].1;
        pairs.insert((i, j), conflict(older, newer, Inferred { why, certainty }));
    }
    let rarity = Rarity::of(readings.iter().map(Reading::values));
    for (i, j) in index::candidates(&readings, &rarity) {
        if pairs.contains_key(&(i, j)) {
            continue;
        }
        let (older, newer) = if memories[i].written() < memories[j].written() {
            (i, j)
        } else {
            (j, i)
        };
        let inferred = judge(&RULES[1..], &readings[older], &readings[newer], &rarity);
        if let Some(inferred) = inferred {
            let finding = conflict(&memories[older], &memories[newer], inferred);
            pairs.insert((i, j), finding);
        }
    }
    findings.extend(pairs.into_values());
    origins.annotate(&mut findings);
    drop_dismissed(store, scope, &mut findings)?;
    findings.sort_by_key(|f| (f.kind, f.id, f.newer));
    Ok(findings)
}

/// Take out of `findings` those a person dismissed (`store::dismissed`): the same kind, memories
/// and reason. Nothing is asked of the store when there is nothing to take out.
fn drop_dismissed(store: &Store, scope: &Scope, findings: &mut Vec<Finding>) -> Result<()> {
    if findings.is_empty() {
        return Ok(());
    }
    let dismissed = store.dismissals(scope)?;
    if dismissed.is_empty() {
        return Ok(());
    }
    findings.retain(|f| {
        !dismissed.iter().any(|d| {
            d.kind == f.kind.as_str() && d.id == f.id && d.newer == f.newer && d.why == f.why
        })
    });
    Ok(())
}

/// Which memories `check` pairs a memory with, by when they were written (`Memory::written`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Partners {
    /// Memories written after it: what may have replaced it (recall, the hooks).
    Newer,
    /// Memories written before it: what a new memory may contradict or repeat (remember).
    Older,
    /// As `Newer`, for memories a hook may offer: one drift is certain is stale leaves the offer
    /// whatever it pairs with, so it is not paired (nor weighed among the others), and a hook
    /// whose matches have all gone stale pays for stat calls, not for a search per memory.
    Offered,
}

/// The findings that involve `memories`: stale ones among them, and the pairs each forms with
/// live memories `scope` sees on the side `partners` says. A newer memory that the caller was
/// not handed is quoted in its finding. A path `ignore` matches is never stale.
pub fn check(
    store: &Store,
    scope: &Scope,
    memories: &[Memory],
    side: Partners,
    ignore: &Ignore,
) -> Result<Vec<Finding>> {
    let home = home();
    let stemmer = WordStemmer::default();
    let handed: HashSet<i64> = memories.iter().map(|m| m.id).collect();
    let mut findings = Vec::new();
    let mut seen: HashSet<(i64, i64)> = HashSet::new();
    let mut readings: HashMap<i64, Reading> = HashMap::new();
    let mut all_partners = Vec::with_capacity(memories.len());
    // The stale findings first: for memories on offer they say which ones drift leaves out
    // for certain, which are then not paired.
    let (mut stale, stale_origins) =
        stale_findings(store, scope, memories, home.as_deref(), ignore)?;
    let left_out: HashSet<i64> = match side {
        Partners::Offered => stale.iter().map(|f| f.id).collect(),
        Partners::Newer | Partners::Older => HashSet::new(),
    };
    for m in memories {
        if left_out.contains(&m.id) {
            all_partners.push(Vec::new());
            continue;
        }
        let reading = readings
            .entry(m.id)
            .or_insert_with(|| Reading::of(claimed(m), &stemmer));
        all_partners.push(partners(store, scope, m, reading.claims(), side)?);
    }
    // Rarity among what is at hand: the memories that have a partner, and their partners, each
    // counted once (a memory with no partner is in no pair and decides nothing, and its values
    // are never read).
    let mut at_hand: HashSet<i64> = HashSet::new();
    for (m, partners) in memories.iter().zip(&all_partners) {
        if partners.iter().all(|p| p.id == m.id) {
            continue;
        }
        for x in std::iter::once(m).chain(partners) {
            at_hand.insert(x.id);
            readings
                .entry(x.id)
                .or_insert_with(|| Reading::of(claimed(x), &stemmer));
        }
    }
    let rarity = Rarity::of(at_hand.iter().map(|id| readings[id].values()));
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
                let (o, n) = (&readings[&older.id], &readings[&newer.id]);
                judge(&RULES, o, n, &rarity).map(|inferred| conflict(older, newer, inferred))
            };
            if let Some(mut f) = finding {
                if !handed.contains(&newer.id) {
                    f.newer_text = Some(quote(&newer.body));
                }
                findings.push(f);
            }
        }
    }
    // Where the memories of the pairs are written, looked up once for the batch.
    let mut ids: Vec<i64> = findings
        .iter()
        .flat_map(|f| [f.id].into_iter().chain(f.newer))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    Origins::of(store, &ids)?.annotate(&mut findings);
    drop_dismissed(store, scope, &mut findings)?;
    stale_origins.annotate(&mut stale);
    findings.extend(stale);
    findings.sort_by_key(|f| (f.kind, f.id, f.newer));
    Ok(findings)
}

/// The stale findings on `memories` alone (a path each names that is gone), a piece of one of
/// Claude Code's files at the line that names the path, as `check` finds them, without looking
/// for pairs: what a session is told of the files the client loads into it.
pub fn stale_among(
    store: &Store,
    scope: &Scope,
    memories: &[Memory],
    ignore: &Ignore,
) -> Result<Vec<Finding>> {
    Ok(stale_findings(store, scope, memories, home().as_deref(), ignore)?.0)
}

/// The stale findings on `memories` (the paths each names that are gone) that no person
/// dismissed, and where the memories with one are written.
fn stale_findings(
    store: &Store,
    scope: &Scope,
    memories: &[Memory],
    home: Option<&Path>,
    ignore: &Ignore,
) -> Result<(Vec<Finding>, Origins)> {
    let gone: Vec<(&Memory, Vec<Gone>)> = memories
        .iter()
        .map(|m| (m, gone_in(m, home, ignore)))
        .filter(|(_, gone)| !gone.is_empty())
        .collect();
    if gone.is_empty() {
        return Ok((Vec::new(), Origins::default()));
    }
    let ids: Vec<i64> = gone.iter().map(|(m, _)| m.id).collect();
    let origins = Origins::of(store, &ids)?;
    let mut findings = Vec::new();
    for (m, named) in gone {
        findings.extend(origins.stale(m, named, home));
    }
    drop_dismissed(store, scope, &mut findings)?;
    Ok((findings, origins))
}

/// What a memory just remembered finds among the older ones `visible` sees (what it
/// contradicts or repeats, paths it names that are gone): nothing for a repeat, which stored
/// nothing. Every write path that reports on a new memory (CLI, slash command, MCP) asks here.
pub fn of_remembered(
    store: &Store,
    visible: &Scope,
    outcome: &Remembered,
    ignore: &Ignore,
) -> Result<Vec<Finding>> {
    if outcome.duplicate {
        return Ok(Vec::new());
    }
    let stored = store.head(outcome.id, visible)?;
    check(store, visible, &[stored], Partners::Older, ignore)
}

/// Live memories visible from `scope`, written on `side` of `m`, that may pair with it: the
/// nearest ones sharing a word of its claims' subjects (the word index is walked from `m` and
/// stops at a fixed count, `Store::neighbours`), and its folded duplicates (one lookup of the
/// stored hash). The cost does not grow with the store.
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
        let newer = side != Partners::Older;
        ids = store.neighbours(&within, &any, m, newer, PARTNERS)?;
    }
    for id in store.repeats(m, scope, REPEATS)? {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    // Drift reads no more than the opening of a memory.
    let mut found = store.live_openings_by_ids(&ids, scope, READ_BYTES)?;
    // The repeats were found on both sides.
    found.retain(|p| match side {
        Partners::Newer | Partners::Offered => p.written() > m.written(),
        Partners::Older => p.written() < m.written(),
    });
    Ok(found)
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

/// A path a memory names that is gone, and why it is.
struct Gone {
    named: stale::Named,
    /// The project top it is gone from; `None` for an absolute path that does not exist.
    from: Option<std::path::PathBuf>,
}

impl Gone {
    /// Why it is gone: "src/a.rs is gone from /repo", "/etc/x does not exist".
    fn why(&self) -> String {
        Gone::why_all(std::slice::from_ref(self))
    }

    /// One reason for several gone paths of one memory, each folder named once:
    /// "src/a.rs and src/b.rs are gone from /repo; /etc/x does not exist".
    fn why_all(gone: &[Gone]) -> String {
        let mut groups: Vec<(Option<&Path>, Vec<&str>)> = Vec::new();
        for g in gone {
            let from = g.from.as_deref();
            match groups.iter_mut().find(|(f, _)| *f == from) {
                Some((_, paths)) => paths.push(&g.named.written),
                None => groups.push((from, vec![&g.named.written])),
            }
        }
        let listed = |paths: &[&str]| match paths {
            [one] => (*one).to_owned(),
            [init @ .., last] => format!("{} and {last}", init.join(", ")),
            [] => String::new(),
        };
        groups
            .iter()
            .map(|(from, paths)| match (from, paths.len()) {
                (Some(root), 1) => format!("{} is gone from {}", listed(paths), root.display()),
                (Some(root), _) => format!("{} are gone from {}", listed(paths), root.display()),
                (None, 1) => format!("{} does not exist", listed(paths)),
                (None, _) => format!("{} do not exist", listed(paths)),
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// The paths `m` names that are gone from its project's top (or, absolute, from the machine),
/// unless `[drift] ignore` in config.toml matches them (below the checkout).
fn gone_in(m: &Memory, home: Option<&Path>, ignore: &Ignore) -> Vec<Gone> {
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
            let from = match (named.absolute, checkout) {
                (false, Some(root)) => Some(root.to_path_buf()),
                _ => None,
            };
            Some(Gone { named, from })
        })
        .collect()
}

/// Two memories with the same folded text: nothing guessed.
fn repeat(older: &Memory, newer: &Memory) -> Finding {
    pair(
        Kind::Duplicate,
        Certainty::Certain,
        older,
        newer,
        "same text".into(),
    )
}

/// A conflict a rule inferred, as sure as the rule's outcome.
fn conflict(older: &Memory, newer: &Memory, inferred: Inferred) -> Finding {
    pair(
        Kind::Conflict,
        inferred.certainty,
        older,
        newer,
        inferred.why,
    )
}

fn pair(kind: Kind, certainty: Certainty, older: &Memory, newer: &Memory, why: String) -> Finding {
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
        certainty,
        id: older.id,
        newer: Some(newer.id),
        why,
        paths: Vec::new(),
        newer_text: None,
        source: None,
        newer_source: None,
        written: Some([older.written(), newer.written()]),
    }
}

fn oldest_first<'a>(a: &'a Memory, b: &'a Memory) -> (&'a Memory, &'a Memory) {
    if a.written() < b.written() {
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
