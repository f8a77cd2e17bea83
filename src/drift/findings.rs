//! Findings: what drift reports (`Finding`, of a `Kind`, with its `Certainty`), how a finding
//! reads to a person or a model, the chains conflicts link, what a hook leaves out because of
//! them, and how it shows the rest (`arrange`).

use foldhash::{HashMap, HashMapExt};
use serde::Serialize;

/// What kind of drift a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Stale,
    Conflict,
    Duplicate,
}

/// How sure a finding is. Only `Certain` may keep a memory from the model, since a hook that
/// leaves out a valid memory on a guess costs the user more than a note marked as possibly
/// replaced: on memories nobody tuned on, about half the conflicts the rules found were wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Certainty {
    /// Nothing was guessed: the same text once folded, a path that is gone, a repeat of a piece
    /// of a file the client loads.
    Certain,
    /// A rule read the text and inferred a change, by a rule that was right nearly always where
    /// it was measured (`drift::RULES`).
    Likely,
    /// Inferred by a rule that was often wrong there.
    Possible,
}

impl Kind {
    /// The kind as the JSON output and the store's dismissals name it.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Stale => "stale",
            Kind::Conflict => "conflict",
            Kind::Duplicate => "duplicate",
        }
    }
}

impl Certainty {
    pub fn word(self) -> &'static str {
        match self {
            Certainty::Certain => "certain",
            Certainty::Likely => "likely",
            Certainty::Possible => "possible",
        }
    }
}

/// What a conflict rule inferred: why the newer memory contradicts the older, and how sure that
/// is (`Likely` or `Possible`, by the rule that found it).
#[derive(Clone, Debug, PartialEq)]
pub struct Inferred {
    pub why: String,
    pub certainty: Certainty,
}

/// Where in one of Claude Code's files a source memory's text is (`crate::sources`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileLine {
    /// As people name it: relative to the project, or `~/`-relative.
    pub file: String,
    /// 1-based; for a stale finding, the line where the gone path is written.
    pub line: i64,
}

impl std::fmt::Display for FileLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    pub kind: Kind,
    pub certainty: Certainty,
    /// The memory the finding is against: the stale one, or the older of a pair.
    pub id: i64,
    /// Of a pair, the newer memory, which stands.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub newer: Option<i64>,
    /// Why, in a few words: `"retries: 3 vs 5"`, `"src/x.rs is gone from /repo"`; for a stale
    /// memory naming several gone paths, each one's reason, joined by `"; "`.
    pub why: String,
    /// Of a stale finding, every gone path it is about, as the memory writes them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// The newer memory's text, quoted when the reader was not handed that memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub newer_text: Option<String>,
    /// Where `id` is written, when it is a piece of one of Claude Code's files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<FileLine>,
    /// Where `newer` is written, likewise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub newer_source: Option<FileLine>,
    /// Of a pair, when its older and its newer memory were written (`Memory::written`): what
    /// orders a chain's members no finding orders. Not sent.
    #[serde(skip)]
    pub written: Option<[Written; 2]>,
}

impl Finding {
    /// One line for a person or a model, saying how sure it is: "12 is contradicted by newer 31
    /// (retries: 3 vs 5; likely)", "12 (CLAUDE.md:9) is stale (certain): ...".
    pub fn describe(&self) -> String {
        let id = self.named();
        let sure = self.certainty.word();
        let mut line = match (self.kind, self.newer_named()) {
            (Kind::Stale, _) => format!("{id} is stale ({sure}): {}", self.why),
            (Kind::Conflict, Some(newer)) => {
                format!(
                    "{id} is contradicted by newer {newer} ({}; {sure})",
                    self.why
                )
            }
            (Kind::Duplicate, Some(newer)) => format!("{id} is repeated by newer {newer} ({sure})"),
            (_, None) => format!("{id} {:?} ({sure}): {}", self.kind, self.why),
        };
        if let (Some(newer), Some(text)) = (self.newer, &self.newer_text) {
            line.push_str(&format!("\n    {newer} says: {text}"));
        }
        line
    }

    /// `id`, with its file and line when it is a source memory: `12 (CLAUDE.md:9)`.
    pub fn named(&self) -> String {
        with_place(self.id, self.source.as_ref())
    }

    /// `newer` likewise, if the finding has one.
    pub fn newer_named(&self) -> Option<String> {
        self.newer
            .map(|newer| with_place(newer, self.newer_source.as_ref()))
    }
}

fn with_place(id: i64, place: Option<&FileLine>) -> String {
    match place {
        Some(place) => format!("{id} ({place})"),
        None => id.to_string(),
    }
}

impl Finding {
    /// One line about a memory just stored (`new`), from its side.
    pub fn about_new(&self, new: i64) -> String {
        match (self.kind, self.newer) {
            (Kind::Conflict, Some(n)) if n == new => format!(
                "it contradicts {} ({}; {}); both are kept: `synapse supersede {} {new}` if it \
                 replaces it",
                self.id,
                self.why,
                self.certainty.word(),
                self.id
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

/// The chains among conflict findings: three or more memories linked by conflicts over one
/// subject (the same value updated again and again), each as ids newest first. A memory in no
/// chain is in none of the lists.
///
/// Only the claims rule's conflicts (`Certainty::Likely`) link a chain: it ties two notes to one
/// subject by the words of their claims, so two of its conflicts through one memory are about
/// the same thing. The other rules tie notes by rare words they share, which unrelated notes of
/// one project also do: linked through them, a note on where retries are queued, paired by such
/// a rule with the newest retry count, was named among the count's earlier versions. Their
/// conflicts stay pairs, shown side by side.
pub fn chains(findings: &[Finding]) -> Vec<Vec<i64>> {
    let linking: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.kind == Kind::Conflict && f.certainty == Certainty::Likely)
        .collect();
    let links: Vec<(i64, i64)> = linking
        .iter()
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
    let mut written: HashMap<i64, Written> = HashMap::new();
    for f in &linking {
        if let (Some(newer), Some([older_at, newer_at])) = (f.newer, f.written) {
            written.insert(f.id, older_at);
            written.insert(newer, newer_at);
        }
    }
    let mut out: Vec<Vec<i64>> = members
        .into_values()
        .filter(|m| m.len() >= 3)
        .map(|m| newest_first(&m, &links, &written))
        .collect();
    out.sort();
    out
}

/// When a memory was written (`Memory::written`).
pub type Written = (crate::store::Stamp, i64);

/// `members` ordered so that each comes before every memory it contradicts (the newer first);
/// of members no finding orders, the one written later first.
fn newest_first(
    members: &[i64],
    links: &[(i64, i64)],
    written: &HashMap<i64, Written>,
) -> Vec<i64> {
    let mut left: Vec<i64> = members.to_vec();
    left.sort_unstable_by_key(|id| std::cmp::Reverse(written.get(id).copied()));
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

/// A line of one of Claude Code's files that names paths drift is certain are gone: how a
/// session is told of an instruction it was given that points nowhere (`stale_lines`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaleLine {
    pub place: FileLine,
    /// The gone paths, as the line writes them.
    pub paths: Vec<String>,
}

/// The stale findings among `findings` that are about a line of a file, one `StaleLine` per
/// line (a line naming two gone paths is one), by file and line.
pub fn stale_lines(findings: &[Finding]) -> Vec<StaleLine> {
    let mut lines: Vec<StaleLine> = Vec::new();
    for f in findings.iter().filter(|f| f.kind == Kind::Stale) {
        let Some(place) = &f.source else {
            continue;
        };
        match lines.iter_mut().find(|l| l.place == *place) {
            Some(line) => line.paths.extend(f.paths.iter().cloned()),
            None => lines.push(StaleLine {
                place: place.clone(),
                paths: f.paths.clone(),
            }),
        }
    }
    for line in &mut lines {
        // Several findings may name one path: keep its first mention, in order.
        let mut seen = std::collections::HashSet::new();
        line.paths.retain(|p| seen.insert(p.clone()));
    }
    lines.sort_by(|a, b| (&a.place.file, a.place.line).cmp(&(&b.place.file, b.place.line)));
    lines
}

/// What a hook leaves out of the memories it is about to inject, and why.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LeftOut {
    pub ids: Vec<i64>,
    /// One reason a memory: "12 is stale (...)", "3 is contradicted by newer 7 (...)".
    pub reasons: Vec<String>,
    /// Of each reason, in a word, for the person's line: "stale", "replaced", "repeated".
    pub kinds: Vec<&'static str>,
}

impl LeftOut {
    /// Leave out `id` (none: a memory that was never a candidate, named only) for `reason`, a
    /// `kind` of reason in a word.
    pub fn add(&mut self, id: Option<i64>, reason: String, kind: &'static str) {
        self.ids.extend(id);
        self.reasons.push(reason);
        self.kinds.push(kind);
    }

    /// How many were left out, by kind, most first: "1 stale, 1 replaced"; `None` if none.
    pub fn counts(&self) -> Option<String> {
        let mut counts: Vec<(&str, usize)> = Vec::new();
        for kind in &self.kinds {
            match counts.iter_mut().find(|(k, _)| k == kind) {
                Some((_, n)) => *n += 1,
                None => counts.push((kind, 1)),
            }
        }
        counts.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
        let parts: Vec<String> = counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
        (!parts.is_empty()).then(|| parts.join(", "))
    }

    /// The one line the block shows: "Left out: REASON; REASON.", if anything was left out.
    pub fn line(&self) -> Option<String> {
        (!self.reasons.is_empty()).then(|| format!("Left out: {}.", self.reasons.join("; ")))
    }
}

/// Of the memories `offered` (ids, in order), which to leave out given `findings`: those with a
/// certain finding (stale, or the older of a duplicate pair). A finding a rule inferred leaves
/// nothing out: `arrange` shows both sides.
pub fn leave_out(findings: &[Finding], offered: &[i64]) -> LeftOut {
    let mut left = LeftOut::default();
    for &id in offered {
        let Some(f) = findings
            .iter()
            .find(|f| f.id == id && f.certainty == Certainty::Certain)
        else {
            continue;
        };
        let newer = f.newer.map_or("another".to_owned(), |n| n.to_string());
        let (reason, kind) = match f.kind {
            Kind::Stale => (format!("{id} is stale ({})", f.why), "stale"),
            Kind::Conflict => (
                format!("{id} is replaced by newer {newer} ({})", f.why),
                "replaced",
            ),
            Kind::Duplicate => (format!("{id} repeats {newer}"), "repeated"),
        };
        left.add(Some(id), reason, kind);
    }
    left
}

/// What a hook says of a memory it shows, beside its id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mark {
    /// The older of a conflict a rule inferred: `newer` may replace it.
    Older { newer: i64 },
    /// The newest of a chain of versions; the `earlier` ones are named, their text left out.
    Newest { earlier: Vec<i64> },
}

/// The memories a hook shows, in order, and what it says of some of them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Arranged {
    pub ids: Vec<i64>,
    pub marks: Vec<(i64, Mark)>,
}

/// How a hook shows `kept` (ids it may show, best first) given the `findings` on them, when a
/// rule's guess may be wrong and the model reading both notes can judge: the two sides of an
/// inferred conflict next to each other, newer first (so when places run out the newer stands),
/// at the place of the better of the two, the older marked; a chain of versions as its newest
/// alone, naming the earlier ones. The newer side may be a memory `kept` lacks: drift found it
/// as a partner of one that is kept. A memory with a certain finding is never brought in.
pub fn arrange(kept: &[i64], findings: &[Finding]) -> Arranged {
    let inferred: Vec<Finding> = findings
        .iter()
        .filter(|f| f.kind == Kind::Conflict && f.certainty != Certainty::Certain)
        .cloned()
        .collect();
    let out_for_certain = |id: i64| {
        findings
            .iter()
            .any(|f| f.id == id && f.certainty == Certainty::Certain)
    };
    let chains = chains(&inferred);
    let mut arranged = Arranged::default();
    let mut placed: Vec<i64> = Vec::new();
    for &id in kept {
        if placed.contains(&id) {
            continue;
        }
        if let Some(chain) = chains.iter().find(|c| c.contains(&id)) {
            placed.extend(chain);
            arranged.ids.push(chain[0]);
            arranged.marks.push((
                chain[0],
                Mark::Newest {
                    earlier: chain[1..].to_vec(),
                },
            ));
            continue;
        }
        // Its first inferred pair whose other side is not shown yet; a memory may be in several
        // (a note contradicted by two newer ones that are no versions of one thing).
        let pair = inferred.iter().find(|f| {
            f.newer.is_some_and(|newer| {
                (f.id == id && !out_for_certain(newer) && !placed.contains(&newer))
                    || (newer == id && kept.contains(&f.id) && !placed.contains(&f.id))
            })
        });
        match pair.and_then(|f| Some((f.id, f.newer?))) {
            Some((older, newer)) => {
                placed.extend([newer, older]);
                arranged.ids.extend([newer, older]);
                arranged.marks.push((older, Mark::Older { newer }));
            }
            None => {
                placed.push(id);
                arranged.ids.push(id);
                // Older than a memory shown already: marked so, beside no second copy of it.
                let shown_newer = inferred.iter().find_map(|f| {
                    f.newer
                        .filter(|newer| f.id == id && placed.contains(newer))
                        .filter(|&newer| !out_for_certain(newer))
                });
                if let Some(newer) = shown_newer {
                    arranged.marks.push((id, Mark::Older { newer }));
                }
            }
        }
    }
    arranged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conflict(id: i64, newer: i64) -> Finding {
        Finding {
            kind: Kind::Conflict,
            certainty: Certainty::Likely,
            id,
            newer: Some(newer),
            why: String::new(),
            paths: Vec::new(),
            newer_text: None,
            source: None,
            newer_source: None,
            written: None,
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

    /// Versions of a retry count, and a note on where retries are queued that a rule of shared
    /// rare words paired with the newest count: the note is no earlier version of the count, but
    /// a pair of its own, shown and marked older.
    #[test]
    fn a_note_paired_by_shared_words_is_no_earlier_version() {
        let (five, queued, eight, six) = (1, 2, 3, 4);
        let guessed = Finding {
            certainty: Certainty::Possible,
            ..conflict(queued, six)
        };
        let findings = vec![
            conflict(five, eight),
            conflict(five, six),
            conflict(eight, six),
            guessed,
        ];
        assert_eq!(chains(&findings), vec![vec![six, eight, five]]);
        let arranged = arrange(&[six, queued, five], &findings);
        assert_eq!(arranged.ids, [six, queued]);
        assert_eq!(
            arranged.marks,
            [
                (
                    six,
                    Mark::Newest {
                        earlier: vec![eight, five]
                    }
                ),
                (queued, Mark::Older { newer: six })
            ]
        );
    }

    /// Members no finding orders (two newest versions nobody compared) are ordered by when they
    /// were written, not by id.
    #[test]
    fn a_chain_s_members_no_finding_orders_go_by_time() {
        let at = |seconds: i64, id: i64| (crate::store::Stamp::from_seconds(seconds), id);
        let timed = |older: i64, newer: i64, times: [i64; 2]| Finding {
            written: Some([at(times[0], older), at(times[1], newer)]),
            ..conflict(older, newer)
        };
        // 9 was written after 3, though its id is larger only by chance: 3 and 9 were never
        // compared; both replace 5.
        let findings = vec![timed(5, 9, [100, 300]), timed(5, 3, [100, 200])];
        assert_eq!(chains(&findings), vec![vec![9, 3, 5]]);
        let findings = vec![timed(5, 9, [100, 200]), timed(5, 3, [100, 300])];
        assert_eq!(chains(&findings), vec![vec![3, 9, 5]]);
    }

    /// Two pieces written on one line of a file (a list item and its continuation, say) may name
    /// the same gone path among others: the line names each once.
    #[test]
    fn a_stale_line_names_each_gone_path_once() {
        let at = |id: i64, paths: &[&str]| Finding {
            kind: Kind::Stale,
            certainty: Certainty::Certain,
            newer: None,
            paths: paths.iter().map(|p| (*p).to_owned()).collect(),
            source: Some(FileLine {
                file: "CLAUDE.md".into(),
                line: 6,
            }),
            ..conflict(id, 0)
        };
        let lines = stale_lines(&[at(1, &["a.md", "b.md"]), at(2, &["c.md", "a.md"])]);
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].paths, ["a.md", "b.md", "c.md"]);
    }

    #[test]
    fn an_inferred_pair_is_shown_newer_first_and_a_chain_as_its_newest() {
        let stale = Finding {
            kind: Kind::Stale,
            certainty: Certainty::Certain,
            newer: None,
            ..conflict(5, 0)
        };
        // 1 conflicts with 8, which no hit is; 7 <- 3 <- 9 is a chain; 2 conflicts with 5,
        // which is stale, so 2 stands alone; 4 has no finding.
        let findings = vec![
            conflict(1, 8),
            conflict(7, 3),
            conflict(3, 9),
            conflict(2, 5),
            stale,
        ];
        let arranged = arrange(&[4, 1, 3, 7, 2], &findings);
        assert_eq!(arranged.ids, [4, 8, 1, 9, 2]);
        assert_eq!(
            arranged.marks,
            [
                (1, Mark::Older { newer: 8 }),
                (
                    9,
                    Mark::Newest {
                        earlier: vec![3, 7]
                    }
                )
            ]
        );
        assert_eq!(leave_out(&findings, &[4, 1, 3, 5, 7, 2]).ids, [5]);
    }

    #[test]
    fn a_pair_is_placed_where_its_better_side_is() {
        let findings = vec![conflict(2, 6)];
        assert_eq!(arrange(&[6, 4, 2], &findings).ids, [6, 2, 4]);
    }
}
