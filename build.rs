//! Turns the vendored gitleaks catalogue (`src/secrets/catalogue/gitleaks.toml`) into static
//! data in `$OUT_DIR/gitleaks.rs`: the rules Synapse runs, their allowlists and the index of their
//! keywords, ready to use (parsing the 150 KB file took 1.4 ms and building the index more,
//! which every hook process would pay). What the fields mean: `src/secrets/catalogue/mod.rs`.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Deserialize;

const CATALOGUE: &str = "src/secrets/catalogue/gitleaks.toml";

#[derive(Deserialize)]
struct CatalogueFile {
    allowlist: AllowlistFile,
    rules: Vec<RuleFile>,
}

#[derive(Deserialize)]
struct RuleFile {
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

#[derive(Deserialize)]
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

/// Rules Synapse leaves to its own reader (`secrets::keys`, `assignments`, `value`). gitleaks'
/// `generic-api-key` takes any word with `key`, `auth` or `access` in it for a key, and on the
/// development sets changed 8 look-alikes the reader keeps (publishable and site keys, an
/// idempotency key's UUID, a digest under `DIGEST`, a lockfile hash) while masking no secret the
/// reader missed.
const LEFT_TO_SYNAPSE: &[&str] = &["generic-api-key"];

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

/// A lowercase keyword's first two bytes as one number, as `catalogue::pair` computes it.
fn pair(word: &str) -> usize {
    match word.as_bytes() {
        [a, b, ..] => usize::from(*a) << 8 | usize::from(*b),
        _ => 0,
    }
}

fn main() {
    println!("cargo::rerun-if-changed={CATALOGUE}");
    println!("cargo::rerun-if-changed=build.rs");
    let text = std::fs::read_to_string(CATALOGUE).unwrap_or_else(|e| panic!("{CATALOGUE}: {e}"));
    let file: CatalogueFile = toml::from_str(&text).unwrap_or_else(|e| panic!("{CATALOGUE}: {e}"));
    // A rule with a path applies to files of that name only; Synapse stores text, not files.
    let rules: Vec<(&RuleFile, &str)> = file
        .rules
        .iter()
        .filter(|r| r.path.is_none() && !LEFT_TO_SYNAPSE.contains(&r.id.as_str()))
        .filter_map(|r| Some((r, r.regex.as_deref()?)))
        .collect();
    let mut out = String::from("static RULES: &[Rule] = &[\n");
    let mut allowlists = 0;
    let mut keywords: BTreeMap<(usize, String), Vec<usize>> = BTreeMap::new();
    let mut always = Vec::new();
    for (k, &(r, pattern)) in rules.iter().enumerate() {
        // Every rule compiles as `catalogue::compile` reads it, or the build stops naming it:
        // an update of the catalogue shows what it broke.
        regex::bytes::Regex::new(&format!("(?-u){pattern}"))
            .or_else(|_| regex::bytes::Regex::new(pattern))
            .unwrap_or_else(|e| panic!("rule {}: {e}", r.id));
        let lists: Vec<String> = r
            .allowlists
            .iter()
            .map(|a| allowlist(a, &mut allowlists))
            .collect();
        writeln!(
            out,
            "Rule {{ id: {:?}, pattern: {pattern:?}, secret_group: {}, \
             entropy: {:?}, allowlists: &[{}] }},",
            r.id,
            r.secret_group,
            r.entropy,
            lists.join(", "),
        )
        .expect("writing to a String");
        if r.keywords.is_empty() {
            always.push(k);
        }
        for w in &r.keywords {
            let w = w.to_lowercase();
            assert!(
                w.len() >= 2,
                "rule {}: keyword {w:?} is shorter than 2 bytes",
                r.id
            );
            keywords.entry((pair(&w), w)).or_default().push(k);
        }
    }
    out.push_str("];\n");
    let global = allowlist(&file.allowlist, &mut allowlists);
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
