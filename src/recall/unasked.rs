//! What the hooks offer without being asked: the memories the task signal (SessionStart) or a
//! prompt (UserPromptSubmit) points at, in the order they are worth their tokens, screened for
//! drift and for what the session was given before. The hooks only frame what `offer` returns.

use std::cmp::Reverse;
use std::collections::{HashMap, HashSet};

use anyhow::Result;

use super::fuse::Matcher;
use super::terms::Terms;
use super::{recall_except, Hit, Options, Recalled};
use crate::config::{Budget, Ignore};
use crate::drift::{self, Arranged, Certainty, Finding, LeftOut, Mark};
use crate::signal::Signal;
use crate::store::{Scope, Store};
use crate::text::WordStemmer;

/// A term matching more memories than this is common in the hooks' recall (`Options::common`):
/// half of `lanes::COMMON_DF`, which ranks half as many memories per lane and stops counting
/// each term's matches sooner; a prompt's common words rarely decide what is worth injecting
/// unasked.
const HOOK_COMMON: i64 = 250;
/// The most prompt text recall looks at.
const MAX_PROMPT: usize = 2_000;
/// The most memories UserPromptSubmit injects: one whole at most (only recall's best can be, see
/// `for_prompt`), the others as pointers (id, age, first line), cheap enough that an answer
/// ranked below the best is still named.
pub const PROMPT_MEMORIES: usize = 4;
/// The fewest of the prompt's terms the memory injected whole must hold (`strong`).
const WHOLE_TERMS: usize = 3;

/// SessionStart's hits for the task signal, within `budget`'s count twice over (what drift
/// leaves out frees places for the next ones), those naming a file being changed first: they
/// are about the work at hand. The memories `loaded` (what the client shows the model itself)
/// are not searched.
pub fn for_session(
    store: &Store,
    scope: &Scope,
    signal: &Signal,
    budget: Budget,
    loaded: &HashSet<i64>,
) -> Result<Vec<Hit>> {
    let options = Options {
        budget,
        spare: budget.max_results(),
        unasked: true,
        drift: false,
        substrings: false,
        common: HOOK_COMMON,
        ..Options::default()
    };
    let found = recall_except(store, scope, &signal.query(), &options, loaded)?;
    let (mut first, rest): (Vec<Hit>, Vec<Hit>) = found
        .results
        .into_iter()
        .partition(|h| names_a_changed_file(h, &signal.files));
    first.extend(rest);
    Ok(first)
}

/// What UserPromptSubmit may offer for a prompt (`for_prompt`).
#[derive(Debug)]
pub struct Prompted {
    /// Recall's answer for the prompt alone.
    pub found: Recalled,
    /// The hits over the floor, best first, the one to inject whole (if any) first.
    pub hits: Vec<Hit>,
    /// The hits with the evidence to be injected whole; the others are only pointed at.
    pub whole: HashSet<i64>,
}

/// What UserPromptSubmit may offer for `prompt`: recall for the prompt's own words, the hits
/// that hold `prompt_floor` of its terms, those holding more of its terms first (each counted at
/// the memory's length, `Hit::coverage_at_length`: a long text holds words by chance), and among
/// hits holding as many, the ones the task signal points at first (naming a changed file, then
/// holding a word of the branch or a changed file's name).
/// The signal may order, never admit: on a feature branch nearly every memory shares a word with
/// its name or files, and a memory is worth its tokens on this turn only when the prompt asks
/// about it. Nor may it put a memory holding fewer of the prompt's words before one holding more:
/// with the signal first, replayed prompts on a feature branch lost their answer to memories
/// about the branch (see docs/relevance.md). The memories `loaded` are not searched (see
/// `for_session`).
///
/// Only recall's best hit may be injected whole, and only when it holds every one of the
/// prompt's terms (two at least), or the rarest of those the store knows and all of them but one
/// (`strong`); the rest over the floor are pointers. A whole memory costs hundreds of characters and the full frame, and on the dev
/// halves of the labeled sets prompts that no memory answers often reached one over the floor
/// alone; with this bar they reach fewer, at no cost in answers (docs/relevance.md).
pub fn for_prompt(
    store: &Store,
    scope: &Scope,
    prompt: &str,
    signal: &Signal,
    loaded: &HashSet<i64>,
) -> Result<Prompted> {
    let options = prompt_options();
    let found = recall_except(store, scope, prompt_start(prompt), &options, loaded)?;
    // Recall was asked the prompt alone, so a hit's coverage counts the prompt's terms.
    // Held terms are counted at each memory's length: a long text holds words by chance.
    let need = prompt_floor(found.terms.kept.len()) as f64;
    let mut hits: Vec<Hit> = found
        .results
        .iter()
        .filter(|h| h.coverage_at_length >= need)
        .cloned()
        .collect();
    let stemmer = WordStemmer::default();
    let whole: HashSet<i64> = match found.results.first() {
        Some(best) if hits.iter().any(|h| h.id == best.id) && strong(&found, best) => {
            HashSet::from([best.id])
        }
        _ => HashSet::new(),
    };
    let task = Terms::parse(&signal.query(), &stemmer).kept;
    let mut on_task = Matcher::new(&task);
    // Stable: recall's order stands among hits that tie. (A count at length is never negative,
    // and the bits of non-negative floats order as the floats do.)
    hits.sort_by_cached_key(|h| {
        (
            !whole.contains(&h.id),
            Reverse(h.coverage_at_length.to_bits()),
            !names_a_changed_file(h, &signal.files),
            on_task.held(&h.body, &stemmer).is_empty(),
        )
    });
    Ok(Prompted { found, hits, whole })
}

/// Whether `hit` holds every one of the prompt's terms, two at least (a two-word prompt a memory
/// answers in its own words), or the rarest of the prompt's terms the store knows (fewest
/// matching memories, as recall counted them; ties all count) and all the known terms but one,
/// at least `WHOLE_TERMS`. The first adds no character to the prompts no memory answers on the
/// dev halves (docs/relevance.md).
fn strong(found: &Recalled, hit: &Hit) -> bool {
    let df = &found.df;
    let known = df.iter().filter(|&&n| n > 0).count();
    let Some(fewest) = df.iter().copied().filter(|&n| n > 0).min() else {
        return false;
    };
    let stemmer = WordStemmer::default();
    let text = format!("{}\n{}", hit.body, hit.source);
    let held = Matcher::new(&found.terms.kept).held(&text, &stemmer);
    let every = found.terms.kept.len();
    if every >= 2 && held.len() >= every {
        return true;
    }
    if hit.coverage < WHOLE_TERMS {
        return false;
    }
    held.len() + 1 >= known && held.iter().any(|&i| df.get(i) == Some(&fewest))
}

/// The part of a prompt recall looks at: its first `MAX_PROMPT` characters.
pub fn prompt_start(prompt: &str) -> &str {
    crate::text::cut_chars(prompt, MAX_PROMPT)
}

/// How UserPromptSubmit recalls: the lean budget, twice `PROMPT_MEMORIES` (what drift leaves out
/// frees places for the next ones), no substring search (see `Options::substrings`), fewer
/// ranked memories (`HOOK_COMMON`), and drift checked later, on what is offered (`offer`).
pub fn prompt_options() -> Options {
    Options {
        budget: Budget::Lean,
        limit: Some(PROMPT_MEMORIES),
        spare: PROMPT_MEMORIES,
        unasked: true,
        drift: false,
        substrings: false,
        common: HOOK_COMMON,
        ..Options::default()
    }
}

/// How many distinct words of the prompt a memory must hold to be injected
/// unasked: one for a one-word prompt, two up to eight words, three beyond. Injecting costs the
/// session context, so a memory sharing one word with a long prompt stays out.
pub fn prompt_floor(terms: usize) -> usize {
    match terms {
        0 | 1 => 1,
        2..=8 => 2,
        _ => 3,
    }
}

fn names_a_changed_file(hit: &Hit, files: &[String]) -> bool {
    files.iter().any(|f| hit.body.contains(f.as_str()))
}

/// What a hook may show: the memories to frame, in order, and what was left out.
#[derive(Debug)]
pub struct Offer {
    /// In the order to show them; the older side of an inferred conflict and the newest of a
    /// chain carry a `mark`.
    pub hits: Vec<Hit>,
    /// The offered memories left out, with the line that says why.
    pub left: LeftOut,
    /// The drift findings on the memories offered.
    pub findings: Vec<Finding>,
    /// The two sides (older, newer) of each conflict a rule inferred among `hits`: shown
    /// together, in the same form (a block that shows one whole shows the other whole too).
    pub pairs: Vec<(i64, i64)>,
}

impl Offer {
    /// The memories a prompt block shows whole: those of `whole`, and with each the other side
    /// of a guessed conflict it is part of, so the two are read side by side in the same form.
    pub fn whole_with_pairs(&self, mut whole: HashSet<i64>) -> HashSet<i64> {
        for &(older, newer) in &self.pairs {
            if whole.contains(&older) || whole.contains(&newer) {
                whole.extend([older, newer]);
            }
        }
        whole
    }
}

/// The first `most` of `hits` not among those `given` to the session before, as drift arranges them
/// (`drift::arrange`): only a certain finding leaves a memory out; the two sides of a conflict a
/// rule inferred are shown next to each other, the older marked, so the model reading both
/// judges; a chain of versions costs one place, its newest, which names the others.
///
/// Each hit is checked for drift once, and only when it could be shown: the hits are checked
/// `most` places at a time, fewer as places fill, so a session without drift pays for `most`
/// checks (each costs an index search), and drift's rarity is judged among the memories checked
/// together, as it always was. A path `ignore` matches (the settings' `[drift] ignore`) is never
/// stale.
pub fn offer(
    store: &Store,
    scope: &Scope,
    given: &foldhash::HashSet<i64>,
    hits: Vec<Hit>,
    most: usize,
    ignore: &Ignore,
) -> Result<Offer> {
    store.read(|| {
        let mut fresh = hits.into_iter().filter(|h| !given.contains(&h.id));
        let (mut kept, mut findings, mut offered) = (Vec::new(), Vec::new(), Vec::new());
        let mut arranged = Arranged::default();
        let places =
            |arranged: &Arranged| arranged.ids.iter().filter(|id| !given.contains(id)).count();
        while places(&arranged) < most {
            let batch: Vec<Hit> = fresh
                .by_ref()
                .filter(|h| !arranged.ids.contains(&h.id))
                .take(most - places(&arranged))
                .collect();
            if batch.is_empty() {
                break;
            }
            let ids: Vec<i64> = batch.iter().map(|h| h.id).collect();
            let memories = store.live_openings_by_ids(&ids, scope, drift::READ_BYTES)?;
            let found = drift::check(store, scope, &memories, drift::Partners::Offered, ignore)?;
            let certain = |h: &Hit| {
                found
                    .iter()
                    .any(|f| f.id == h.id && f.certainty == Certainty::Certain)
            };
            kept.extend(batch.into_iter().filter(|h| !certain(h)));
            offered.extend(ids);
            findings.extend(found);
            let kept_ids: Vec<i64> = kept.iter().map(|h| h.id).collect();
            arranged = drift::arrange(&kept_ids, &findings);
        }
        let shown: Vec<i64> = arranged
            .ids
            .iter()
            .copied()
            .filter(|id| !given.contains(id))
            .take(most)
            .collect();
        // The newer side of a pair drift found beside a hit, read as far as drift reads; and
        // for a mark, when it was written.
        let mut wanted: Vec<i64> = shown.clone();
        wanted.extend(arranged.marks.iter().filter_map(|(_, mark)| match mark {
            Mark::Older { newer } => Some(*newer),
            Mark::Newest { .. } => None,
        }));
        wanted.retain(|id| !kept.iter().any(|h| h.id == *id));
        let partners = store.live_openings_by_ids(&wanted, scope, drift::READ_BYTES)?;
        let mut by_id: HashMap<i64, Hit> = kept
            .into_iter()
            .chain(partners.into_iter().map(Hit::of_memory))
            .map(|h| (h.id, h))
            .collect();
        let written: HashMap<i64, i64> = by_id
            .values()
            .map(|h| (h.id, h.created_at.seconds()))
            .collect();
        for (id, mark) in &arranged.marks {
            if let Some(hit) = by_id.get_mut(id) {
                hit.mark = Some(say(mark, written[id], &written));
            }
        }
        let hits: Vec<Hit> = shown.iter().filter_map(|id| by_id.remove(id)).collect();
        let pairs = arranged
            .marks
            .iter()
            .filter_map(|(older, mark)| match mark {
                Mark::Older { newer } => Some((*older, *newer)),
                Mark::Newest { .. } => None,
            })
            .filter(|(older, newer)| {
                [older, newer]
                    .iter()
                    .all(|id| hits.iter().any(|h| h.id == **id))
            })
            .collect();
        let left = drift::leave_out(&findings, &offered);
        Ok(Offer {
            hits,
            left,
            findings,
            pairs,
        })
    })
}

/// What a block says of a marked memory written at `at`, on its header line:
/// "older; #15, written 3 days later, may replace it", "earlier versions: #3, #7 (...)".
fn say(mark: &Mark, at: i64, written: &HashMap<i64, i64>) -> String {
    match mark {
        Mark::Older { newer } => match written.get(newer) {
            Some(then) => format!(
                "older; #{newer}, written {}, may replace it",
                later(then - at)
            ),
            None => format!("older; #{newer}, written later, may replace it"),
        },
        Mark::Newest { earlier } => {
            let named: Vec<String> = earlier.iter().map(|id| format!("#{id}")).collect();
            format!(
                "earlier versions: {} (/synapse:read ID shows one)",
                named.join(", ")
            )
        }
    }
}

/// How much later one memory was written than another, in the block's words: "the same day",
/// "a day later", "3 days later", "2 months later".
fn later(seconds: i64) -> String {
    match seconds.max(0) / 86_400 {
        0 => "the same day".into(),
        1 => "a day later".into(),
        days @ 2..=59 => format!("{days} days later"),
        days @ 60..=729 => format!("{} months later", days / 30),
        days => format!("{} years later", days / 365),
    }
}
