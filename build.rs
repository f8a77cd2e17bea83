//! Turns the vendored secret catalogues into static data in `$OUT_DIR/gitleaks.rs`: gitleaks'
//! `gitleaks.toml`, Synapse's own `synapse.toml` in the same format, then Nosey Parker's and
//! Kingfisher's YAML rules (`src/secrets/catalogue/`). Out come the rules Synapse runs, their
//! allowlists and one index of their keywords, ready to use (parsing the files took milliseconds
//! and building the index more, which every hook process would pay). What the fields mean:
//! `src/secrets/catalogue/mod.rs`; which rules are left out and why: `LEFT_OUT.md` beside them.
//!
//! Before anything is read, every vendored file is checked against its catalogue's
//! `SHA256SUMS`, and each `SHA256SUMS` against the digest below: a file changed by hand stops
//! the build, naming it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::Path;

use regex_syntax::hir::{Class, Hir, HirKind};
use serde::Deserialize;
use sha2::{Digest, Sha256};

const DIR: &str = "src/secrets/catalogue";

/// Each vendored catalogue's folder and the SHA-256 of its `SHA256SUMS` (docs/secrets.md
/// records the same digests, the source and the commit).
const VENDORED: [(&str, &str); 3] = [
    (
        "gitleaks",
        "ccfe7268855a25ce24aa9dd4bfaa320d1e53eee01b43f2a4471797fd5f09c187",
    ),
    (
        "noseyparker",
        "087f1370ac60d19dfa141903163ae7ac2d4be1abcbf94a0167227affd3ba0bab",
    ),
    (
        "kingfisher",
        "add123b1ea6cb3a895eb9823f67d819962420a999c88f17219fbf03a3daa2ca6",
    ),
];

/// A keyword the YAML rules are prefiltered by is at least this long, or one shorter if it holds
/// a digit or a mark (`hf_`): a shorter one (`ey`, `sk`, `key`) is in most texts, and would
/// compile its rule's regex in most hook processes.
const MIN_KEYWORD: usize = 4;

/// A YAML rule whose regex the `regex` crate builds larger than this is left out: compiling it
/// at its first use would cost a hook process more than all the others together. (gitleaks'
/// and Synapse's rules are held to the crate's own limit.)
const SIZE_LIMIT: usize = 1 << 20;

#[derive(Deserialize)]
struct TomlFile {
    allowlist: Option<AllowlistFile>,
    rules: Vec<TomlRule>,
}

#[derive(Deserialize)]
struct TomlRule {
    id: String,
    regex: Option<String>,
    path: Option<String>,
    #[serde(rename = "secretGroup", default)]
    secret_group: usize,
    #[serde(default)]
    entropy: f64,
    #[serde(default)]
    keywords: Vec<String>,
    #[serde(default)]
    allowlists: Vec<AllowlistFile>,
}

#[derive(Deserialize, Default)]
struct AllowlistFile {
    #[serde(default)]
    regexes: Vec<String>,
    #[serde(default)]
    stopwords: Vec<String>,
    #[serde(default)]
    paths: Vec<String>,
    #[serde(default)]
    commits: Vec<String>,
    #[serde(rename = "regexTarget")]
    regex_target: Option<String>,
    condition: Option<String>,
}

/// Nosey Parker's and Kingfisher's rule files: the fields Synapse reads.
#[derive(Deserialize)]
struct YamlFile {
    rules: Vec<YamlRule>,
}

#[derive(Deserialize)]
struct YamlRule {
    name: String,
    id: String,
    pattern: String,
    #[serde(default)]
    min_entropy: f64,
    confidence: Option<String>,
    #[serde(default)]
    categories: Vec<String>,
    visible: Option<bool>,
    #[serde(default)]
    examples: Vec<String>,
    #[serde(default)]
    negative_examples: Vec<String>,
    #[serde(default)]
    non_examples: Vec<String>,
}

#[derive(Deserialize)]
struct Rulesets {
    rulesets: Vec<Ruleset>,
}

#[derive(Deserialize)]
struct Ruleset {
    id: String,
    include_rule_ids: Vec<String>,
}

/// Rules Synapse leaves to its own reader (`secrets::reader`). gitleaks' `generic-api-key`
/// takes any word with `key`, `auth` or `access` in it for a key, and on the development sets
/// changed 8 look-alikes the reader keeps (publishable and site keys, an idempotency key's UUID,
/// a digest under `DIGEST`, a lockfile hash) while masking no secret the reader missed.
const LEFT_TO_SYNAPSE: &[&str] = &["generic-api-key"];

/// YAML rules Synapse does not load, whatever their data says: (id, why).
const NOT_LOADED: &[(&str, &str)] = &[
    (
        "kingfisher.stripe.1",
        "it finds Stripe's publishable keys too (`pk_live_`), which are public",
    ),
    (
        "np.gitlab.1",
        "gitleaks' `gitlab-rrt` reads the same tokens and keeps its own made-up example, which \
         this rule masks",
    ),
    (
        "kingfisher.gitlab.2",
        "gitleaks' `gitlab-rrt` reads the same tokens (the regex of `np.gitlab.1`)",
    ),
    (
        "np.google.5",
        "gitleaks' `gcp-api-key` reads the same keys with an allowlist of the public and made-up \
         ones, which this rule lacks (gitleaks lists 17 such keys among its harmless examples)",
    ),
];

/// A rule as the generated table holds it.
struct Out {
    id: String,
    judge: &'static str,
    pattern: String,
    secret_group: usize,
    entropy: f64,
    allowlists: String,
    keywords: Vec<String>,
    /// Keywords of another part of the pattern: one of them must be in the text too.
    also: Vec<String>,
    /// The vendor of a YAML rule (`auth0` in `kingfisher.auth0.2`), numbered from 1.
    vendor: usize,
    /// The id of an id-and-secret pair: masked only beside a secret of its vendor.
    pair: bool,
}

/// An allowlist as `catalogue::Allowlist`; `n` numbers its lazily compiled regexes.
fn allowlist(a: &AllowlistFile, n: &mut usize) -> String {
    let all = a.condition.as_deref() == Some("AND");
    let target = match a.regex_target.as_deref() {
        Some("match") => "Match",
        Some("line") => "Line",
        _ => "Secret",
    };
    *n += 1;
    format!(
        "Allowlist {{ n: {}, target: Target::{target}, all: {all}, unmet: {}, patterns: &{:?}, \
         stopwords: &{:?} }}",
        *n - 1,
        all && a.paths.len() + a.commits.len() > 0,
        a.regexes,
        a.stopwords
            .iter()
            .map(|w| w.to_lowercase())
            .collect::<Vec<_>>(),
    )
}

/// Two bytes as one number, lowercase, as `catalogue::pair` computes it.
fn pair(word: &str) -> usize {
    match word.as_bytes() {
        [a, b, ..] => usize::from(*a) << 8 | usize::from(*b),
        _ => 0,
    }
}

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .fold(String::new(), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// Checks every file of a vendored catalogue against its `SHA256SUMS` (as `sha256sum -c`
/// would), and that no file is there that the list does not name.
fn check_vendored(name: &str, digest: &str) {
    let dir = format!("{DIR}/{name}");
    let sums_path = format!("{dir}/SHA256SUMS");
    println!("cargo::rerun-if-changed={dir}");
    let sums = std::fs::read(&sums_path).unwrap_or_else(|e| panic!("{sums_path}: {e}"));
    let got = sha256(&sums);
    assert!(
        got == digest,
        "{sums_path} has SHA-256 {got}, not {digest} (build.rs): the vendored {name} catalogue \
         was changed; take it again from its source unchanged (docs/secrets.md, \"Updating it\")"
    );
    let mut listed = BTreeSet::new();
    for line in String::from_utf8_lossy(&sums).lines() {
        let (want, file) = line
            .split_once("  ")
            .unwrap_or_else(|| panic!("{sums_path}: not a sha256sum line: {line}"));
        let path = format!("{dir}/{file}");
        println!("cargo::rerun-if-changed={path}");
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let got = sha256(&bytes);
        assert!(
            got == want,
            "{path} has SHA-256 {got}, not {want} ({sums_path}): a vendored file was changed; \
             take it again from its source unchanged (docs/secrets.md, \"Updating it\")"
        );
        listed.insert(path);
    }
    for path in files_under(Path::new(&dir)) {
        assert!(
            listed.contains(&path) || path == sums_path,
            "{path} is not in {sums_path}: a vendored catalogue holds only the files it lists"
        );
    }
}

fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("reading a catalogue folder").path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path.to_string_lossy().into_owned());
        }
    }
    out.sort();
    out
}

/// A pattern as `catalogue::compile` builds it: with Go's ASCII classes if it compiles so,
/// else with Unicode ones; the builder's error otherwise.
fn compile(pattern: &str, limit: usize) -> Result<(String, regex::bytes::Regex), String> {
    let pattern = &without_comments(pattern);
    let build = |p: &str| regex::bytes::RegexBuilder::new(p).size_limit(limit).build();
    let ascii = format!("(?-u){pattern}");
    match build(&ascii) {
        Ok(r) => Ok((ascii, r)),
        Err(_) => build(pattern)
            .map(|r| (pattern.to_owned(), r))
            .map_err(|e| {
                let e = e.to_string();
                if e.contains("exceeds size limit") {
                    format!("compiles larger than {limit} bytes")
                } else if e.contains("look-around") {
                    "look-around, which the regex crate does not have".into()
                } else if e.contains("backreferences") {
                    "a backreference, which the regex crate does not have".into()
                } else {
                    let last = e.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("");
                    format!("does not compile: {}", last.trim())
                }
            }),
    }
}

/// `pattern` without PCRE's `(?#...)` comments, which Hyperscan reads and the `regex` crate does
/// not (a comment ends at the first `)`, as in PCRE).
fn without_comments(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut rest = pattern;
    while let Some(k) = rest.find("(?#") {
        // (not an escaped `\(?#`)
        let escaped = rest[..k].chars().rev().take_while(|&c| c == '\\').count() % 2 == 1;
        out.push_str(&rest[..k + if escaped { 3 } else { 0 }]);
        rest = match (escaped, rest[k..].find(')')) {
            (true, _) => &rest[k + 3..],
            (false, Some(e)) => &rest[k + e + 1..],
            (false, None) => "",
        };
    }
    out.push_str(rest);
    out
}

/// The bytes a match may have here, lowercase (a class folded by case), if they are few: a
/// literal byte, `(?i)k`, `[baprs]`.
fn few_bytes(h: &Hir) -> Option<BTreeSet<u8>> {
    // (17 code points are enough to tell a class too big)
    let first = |points: &mut dyn Iterator<Item = u32>| points.take(17).collect::<Vec<u32>>();
    let all: Vec<u32> = match h.kind() {
        HirKind::Literal(l) if l.0.len() == 1 => l.0.iter().map(|&b| u32::from(b)).collect(),
        HirKind::Class(Class::Bytes(b)) => first(
            &mut b
                .ranges()
                .iter()
                .flat_map(|r| (r.start()..=r.end()).map(u32::from)),
        ),
        HirKind::Class(Class::Unicode(u)) => first(
            &mut u
                .ranges()
                .iter()
                .flat_map(|r| (r.start()..=r.end()).map(u32::from)),
        ),
        _ => return None,
    };
    let folded: BTreeSet<u8> = all
        .iter()
        .map(|&c| u8::try_from(c).ok().filter(u8::is_ascii))
        .collect::<Option<Vec<u8>>>()?
        .iter()
        .map(u8::to_ascii_lowercase)
        .collect();
    (all.len() <= 16 && folded.len() <= 8).then_some(folded)
}

/// Of sets of literals, the one whose shortest literal is longest (then the smallest).
fn best(sets: Vec<Vec<Vec<u8>>>) -> Option<Vec<Vec<u8>>> {
    let short = |s: &Vec<Vec<u8>>| s.iter().map(Vec::len).min().unwrap_or(0);
    sets.into_iter()
        .filter(|s| short(s) > 0)
        .max_by_key(|s| (short(s), usize::MAX - s.len()))
}

/// The sets of literals that the parts of `h` require, if it is a sequence (`(?i)line.{0,32}
/// (?:secret|key)` requires `line` and one of `secret`, `key`); else what [`needs`] finds.
fn candidates(h: &Hir) -> Vec<Vec<Vec<u8>>> {
    let parts = match h.kind() {
        HirKind::Concat(parts) => parts,
        HirKind::Capture(c) => return candidates(&c.sub),
        _ => return needs(h).into_iter().collect(),
    };
    let mut out = Vec::new();
    // (runs of literals and small classes, spelled out: `xox[bp]-` is `xoxb-`, `xoxp-`)
    let mut runs: Vec<Vec<u8>> = vec![Vec::new()];
    for part in parts {
        let next: Option<Vec<Vec<u8>>> = match part.kind() {
            HirKind::Literal(l) => Some(
                runs.iter()
                    .map(|r| [r.as_slice(), &l.0.to_ascii_lowercase()].concat())
                    .collect(),
            ),
            _ => few_bytes(part)
                .filter(|b| b.len() * runs.len() <= 32)
                .map(|b| {
                    runs.iter()
                        .flat_map(|r| b.iter().map(move |c| [r.as_slice(), &[*c]].concat()))
                        .collect()
                }),
        };
        match next {
            Some(longer) => runs = longer,
            None => {
                out.push(std::mem::replace(&mut runs, vec![Vec::new()]));
                out.extend(needs(part));
            }
        }
    }
    out.push(runs);
    out
}

/// Literals (lowercase) one of which every match of `h` holds, if there are such; of the
/// choices, the set whose shortest literal is longest.
fn needs(h: &Hir) -> Option<Vec<Vec<u8>>> {
    match h.kind() {
        HirKind::Literal(l) => Some(vec![l.0.to_ascii_lowercase()]),
        HirKind::Capture(c) => needs(&c.sub),
        HirKind::Repetition(r) if r.min >= 1 => needs(&r.sub),
        HirKind::Concat(_) => best(candidates(h)),
        HirKind::Alternation(branches) => {
            let mut all = BTreeSet::new();
            for b in branches {
                all.extend(needs(b)?);
            }
            (all.len() <= 32).then(|| all.into_iter().collect())
        }
        HirKind::Class(_) => few_bytes(h).map(|b| b.into_iter().map(|c| vec![c]).collect()),
        _ => None,
    }
}

/// The keywords of a YAML rule's pattern (as compiled), or why it has none fit for the index;
/// and, where another part of the pattern requires literals too, those (a rule runs only in a
/// text that holds one of each: `line` alone is in most texts, `line` and `token` in fewer).
fn keywords_of(compiled: &str) -> Result<(Vec<String>, Vec<String>), String> {
    let hir = regex_syntax::ParserBuilder::new()
        .utf8(false)
        .build()
        .parse(compiled)
        .map_err(|e| e.to_string())?;
    let mut sets = candidates(&hir);
    let set = best(sets.clone()).ok_or("no literal that every match holds")?;
    sets.retain(|s| *s != set && s.iter().all(|w| w.len() >= 2 && w.is_ascii()));
    let strings = |set: Vec<Vec<u8>>| -> Vec<String> {
        set.iter()
            .map(|w| String::from_utf8_lossy(w).into_owned())
            .collect()
    };
    let also = best(sets).map(strings).unwrap_or_default();
    let words = strings(set);
    // (a keyword of letters only is a word or in one: `key`, `app`, `box` in `inbox`)
    let weak = |w: &String| {
        w.len() < MIN_KEYWORD - usize::from(!w.bytes().all(|c| c.is_ascii_alphabetic()))
    };
    match words.iter().find(|w| weak(w) || !w.is_ascii()) {
        Some(short) => Err(format!(
            "its literal `{short}` is too short a keyword ({MIN_KEYWORD} letters, or 3 bytes with \
             a digit or a mark): it would run the rule on most texts"
        )),
        None => Ok((words, also)),
    }
}

/// The vendor part of a YAML rule's id: `auth0` in `kingfisher.auth0.2` and `np.auth0.1`.
fn vendor_of(id: &str) -> &str {
    id.split('.').nth(1).unwrap_or(id)
}

/// Why a YAML rule is not loaded, by what the catalogue itself says of it.
fn by_its_data(r: &YamlRule, default: Option<&BTreeSet<String>>) -> Option<String> {
    let name = r.name.to_lowercase();
    if default.is_some_and(|d| !d.contains(&r.id)) {
        return Some("not in Nosey Parker's default ruleset (identifiers, hashes, assets)".into());
    }
    if r.categories.iter().any(|c| c == "generic") || r.confidence.as_deref() == Some("low") {
        return Some(
            "a generic rule (category `generic` or confidence `low`): left to Synapse's reader"
                .into(),
        );
    }
    if name.contains("public") {
        return Some("its name says public: not a secret".into());
    }
    let words: Vec<&str> = name.split(|c: char| !c.is_alphanumeric()).collect();
    if r.visible == Some(false)
        && ["domain", "host", "url", "email", "username", "name", "org"]
            .iter()
            .any(|w| words.contains(w))
    {
        return Some(
            "a host, URL, address or name that a secret's check uses: not a secret".into(),
        );
    }
    None
}

/// An id that goes with a secret: one of Kingfisher's hidden rules (kept for checking the secret
/// beside it), or a rule named as an id.
fn names_an_id(r: &YamlRule) -> bool {
    let name = r.name.to_lowercase();
    r.visible == Some(false)
        || name.ends_with(" id")
        || name.ends_with(" identifier")
        || name.contains(" id ")
}

/// Synapse's own reader's word lists (`src/secrets/words.toml`) as constants, each named as its
/// key in capitals: a list of words, of (word, kind) or of (word, kind, strong).
fn write_words() {
    let path = "src/secrets/words.toml";
    println!("cargo::rerun-if-changed={path}");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let lists: BTreeMap<String, Vec<toml::Value>> =
        toml::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut out = String::new();
    for (name, items) in &lists {
        let row = |v: &toml::Value| match v {
            toml::Value::String(w) => format!("{w:?}"),
            toml::Value::Array(parts) => {
                let parts: Vec<String> = parts.iter().map(|p| p.to_string()).collect();
                format!("({})", parts.join(", "))
            }
            other => panic!("{path}: {name}: {other} is not a word or a row"),
        };
        let ty = match items.first() {
            Some(toml::Value::Array(parts)) if parts.len() == 3 => "(&str, &str, bool)",
            Some(toml::Value::Array(_)) => "(&str, &str)",
            _ => "&str",
        };
        let rows: Vec<String> = items.iter().map(row).collect();
        // (the ASCII triggers are searched by halves)
        assert!(
            name != "ascii_triggers" || rows.windows(2).all(|w| w[0] < w[1]),
            "{path}: {name} must be sorted"
        );
        let _ = writeln!(
            out,
            "pub(super) const {}: &[{ty}] = &[{}];",
            name.to_uppercase(),
            rows.join(", ")
        );
    }
    let dest = format!(
        "{}/words.rs",
        std::env::var("OUT_DIR").expect("OUT_DIR is set")
    );
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("{dest}: {e}"));
}

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    write_words();
    for (name, digest) in VENDORED {
        check_vendored(name, digest);
    }
    let toml_files: Vec<TomlFile> = ["gitleaks/gitleaks.toml", "synapse.toml"]
        .iter()
        .map(|file| {
            let path = format!("{DIR}/{file}");
            println!("cargo::rerun-if-changed={path}");
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
            toml::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
        })
        .collect();
    let mut allowlists = 0;
    let mut rules: Vec<Out> = Vec::new();
    let mut left_out: Vec<(String, String)> = Vec::new();
    // The regexes loaded so far, as parsed: a rule the same as one before it is left out.
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    let mut same_as = |id: &str, compiled: &str| -> Option<String> {
        let hir = regex_syntax::ParserBuilder::new()
            .utf8(false)
            .build()
            .parse(compiled)
            .ok()?;
        let key = format!("{hir:?}");
        match seen.get(&key) {
            Some(first) => Some(first.clone()),
            None => {
                seen.insert(key, id.to_owned());
                None
            }
        }
    };
    // A rule with a path applies to files of that name only; Synapse stores text, not files.
    for (k, file) in toml_files.iter().enumerate() {
        for r in &file.rules {
            let Some(pattern) = r.regex.as_deref() else {
                continue;
            };
            if r.path.is_some() || LEFT_TO_SYNAPSE.contains(&r.id.as_str()) {
                continue;
            }
            // Every rule compiles as `catalogue::compile` reads it, or the build stops naming
            // it: an update of the catalogue shows what it broke.
            let (compiled, _) =
                compile(pattern, usize::MAX).unwrap_or_else(|e| panic!("rule {}: {e}", r.id));
            same_as(&r.id, &compiled);
            let lists: Vec<String> = r
                .allowlists
                .iter()
                .map(|a| allowlist(a, &mut allowlists))
                .collect();
            let keywords: Vec<String> = r.keywords.iter().map(|w| w.to_lowercase()).collect();
            for w in &keywords {
                assert!(
                    w.len() >= 2,
                    "rule {}: keyword {w:?} is shorter than 2 bytes",
                    r.id
                );
            }
            rules.push(Out {
                id: r.id.clone(),
                judge: if k == 0 { "Vendor" } else { "Own" },
                pattern: pattern.to_owned(),
                secret_group: r.secret_group,
                entropy: r.entropy,
                allowlists: lists.join(", "),
                keywords,
                also: Vec::new(),
                vendor: 0,
                pair: false,
            });
        }
    }
    // Nosey Parker's default ruleset names the rules of its that find secrets.
    let ruleset_path = format!("{DIR}/noseyparker/rulesets/default.yml");
    let ruleset: Rulesets = serde_yaml_ng::from_str(
        &std::fs::read_to_string(&ruleset_path).unwrap_or_else(|e| panic!("{ruleset_path}: {e}")),
    )
    .unwrap_or_else(|e| panic!("{ruleset_path}: {e}"));
    let default: BTreeSet<String> = ruleset
        .rulesets
        .iter()
        .filter(|r| r.id == "default")
        .flat_map(|r| r.include_rule_ids.iter().cloned())
        .collect();
    let kept_path = format!("{DIR}/examples-kept.txt");
    println!("cargo::rerun-if-changed={kept_path}");
    let kept_text =
        std::fs::read_to_string(&kept_path).unwrap_or_else(|e| panic!("{kept_path}: {e}"));
    let kept: BTreeSet<&str> = kept_text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .collect();
    let mut vendors: BTreeMap<String, usize> = BTreeMap::new();
    // The loaded YAML rules' own examples, for `tests/secrets_rules/catalogue.rs`: (id, pattern,
    // whether it is the id of a pair, examples, negative examples).
    let mut examples =
        String::from("pub static EXAMPLES: &[(&str, &str, bool, &[&str], &[&str])] = &[\n");
    let mut counts = Vec::new();
    for (catalogue, folder) in [("noseyparker", "rules"), ("kingfisher", "rules")] {
        let (before, before_out) = (rules.len(), left_out.len());
        for path in files_under(Path::new(&format!("{DIR}/{catalogue}/{folder}"))) {
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
            let file: YamlFile =
                serde_yaml_ng::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
            for r in file.rules {
                let np = catalogue == "noseyparker";
                let public = NOT_LOADED
                    .iter()
                    .find(|p| p.0 == r.id)
                    .map(|p| p.1.to_owned());
                let loaded = match public.or_else(|| by_its_data(&r, np.then_some(&default))) {
                    Some(reason) => Err(reason),
                    None if kept.contains(r.id.as_str()) => Err(
                        "Synapse keeps one of its own examples (`examples-kept.txt`)".to_owned(),
                    ),
                    None => {
                        compile(&r.pattern, SIZE_LIMIT).and_then(|(compiled, _)| {
                            match same_as(&r.id, &compiled) {
                                Some(first) => Err(format!("the same regex as `{first}`")),
                                None => keywords_of(&compiled),
                            }
                        })
                    }
                };
                let (keywords, also) = match loaded {
                    Ok(keywords) => keywords,
                    Err(reason) => {
                        left_out.push((r.id.clone(), reason));
                        continue;
                    }
                };
                let next = vendors.len() + 1;
                let vendor = *vendors.entry(vendor_of(&r.id).to_owned()).or_insert(next);
                let _ = writeln!(
                    examples,
                    "({:?}, {:?}, {}, &{:?}, &{:?}),",
                    r.id,
                    without_comments(&r.pattern),
                    names_an_id(&r),
                    r.examples,
                    [r.negative_examples.as_slice(), &r.non_examples].concat(),
                );
                rules.push(Out {
                    id: r.id.clone(),
                    judge: "Groups",
                    pattern: without_comments(&r.pattern),
                    secret_group: 0,
                    entropy: r.min_entropy,
                    allowlists: String::new(),
                    keywords,
                    also,
                    vendor,
                    pair: names_an_id(&r),
                });
            }
        }
        counts.push((catalogue, rules.len() - before, left_out.len() - before_out));
    }
    examples.push_str("];\n");
    let out_dir = std::env::var("OUT_DIR").expect("OUT_DIR is set");
    let dest = format!("{out_dir}/catalogue_examples.rs");
    std::fs::write(&dest, examples).unwrap_or_else(|e| panic!("{dest}: {e}"));
    write_tables(&rules, &toml_files, allowlists);
    write_left_out(&left_out, &counts);
}

fn write_left_out(left_out: &[(String, String)], counts: &[(&str, usize, usize)]) {
    let mut md = String::from(
        "# Rules of the vendored catalogues that Synapse does not load\n\n\
         Written by `build.rs` (the build stops if this file differs from what it computes; \
         it leaves the new list in `$OUT_DIR/LEFT_OUT.md`). One line per rule: its id and why.\n\n",
    );
    for (catalogue, loaded, out) in counts {
        let _ = writeln!(md, "- {catalogue}: {loaded} loaded, {out} left out");
    }
    md.push('\n');
    for (id, reason) in left_out {
        let _ = writeln!(md, "- `{id}`: {reason}");
    }
    let out_dir = std::env::var("OUT_DIR").expect("OUT_DIR is set");
    let fresh = format!("{out_dir}/LEFT_OUT.md");
    std::fs::write(&fresh, &md).unwrap_or_else(|e| panic!("{fresh}: {e}"));
    let path = format!("{DIR}/LEFT_OUT.md");
    println!("cargo::rerun-if-changed={path}");
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == md,
        "{path} is not the list of rules left out that build.rs computes: copy {fresh} over it"
    );
}

fn write_tables(rules: &[Out], toml_files: &[TomlFile], mut allowlists: usize) {
    let mut out = String::from("static RULES: &[Rule] = &[\n");
    let mut keywords: BTreeMap<(usize, String), Vec<usize>> = BTreeMap::new();
    let mut always = Vec::new();
    for (k, r) in rules.iter().enumerate() {
        writeln!(
            out,
            "Rule {{ id: {:?}, judge: Judge::{}, pattern: {:?}, secret_group: {}, \
             entropy: {:?}, allowlists: &[{}], vendor: {}, pair: {}, both: {} }},",
            r.id,
            r.judge,
            r.pattern,
            r.secret_group,
            r.entropy,
            r.allowlists,
            r.vendor,
            r.pair,
            !r.also.is_empty(),
        )
        .expect("writing to a String");
        if r.keywords.is_empty() {
            always.push(2 * k);
        }
        // (each entry is a rule's number, doubled, and 1 for a keyword of `also`)
        for (w, part) in r
            .keywords
            .iter()
            .map(|w| (w, 0))
            .chain(r.also.iter().map(|w| (w, 1)))
        {
            keywords
                .entry((pair(w), w.clone()))
                .or_default()
                .push(2 * k + part);
        }
    }
    out.push_str("];\n");
    let global = toml_files.first().and_then(|f| f.allowlist.as_ref());
    let global = allowlist(global.unwrap_or(&AllowlistFile::default()), &mut allowlists);
    let mut starts = vec![0u64; 1024];
    for (p, _) in keywords.keys() {
        if let Some(bits) = starts.get_mut(p / 64) {
            *bits |= 1 << (p % 64);
        }
    }
    let keywords: Vec<String> = keywords
        .iter()
        .map(|((p, w), rules)| format!("({p}, {w:?}, &{rules:?})"))
        .collect();
    writeln!(
        out,
        "static GLOBAL: Allowlist = {global};\n\
         static KEYWORDS: &[(usize, &str, &[usize])] = &[{}];\n\
         static STARTS: [u64; 1024] = {starts:?};\n\
         static ALWAYS: &[usize] = &{always:?};\n\
         static REGEXES: [OnceLock<Option<Regex>>; {}] = [const {{ OnceLock::new() }}; {}];\n\
         static ALLOWED: [OnceLock<Vec<Regex>>; {allowlists}] = \
         [const {{ OnceLock::new() }}; {allowlists}];",
        keywords.join(", "),
        rules.len(),
        rules.len(),
    )
    .expect("writing to a String");
    let dest = format!(
        "{}/gitleaks.rs",
        std::env::var("OUT_DIR").expect("OUT_DIR is set")
    );
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("{dest}: {e}"));
}
