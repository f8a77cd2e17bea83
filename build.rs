//! Turns the vendored gitleaks catalogue (`src/secrets/catalogue/gitleaks.toml`), then
//! Synapse's own rules in the same format (`synapse.toml` beside it), into static data in
//! `$OUT_DIR/gitleaks.rs`, field for field: parsing the 150 KB file took 1.4 ms, which every
//! hook process would pay. What the fields mean: `src/secrets/catalogue/mod.rs`.

use std::fmt::Write;

use serde::Deserialize;

const CATALOGUES: [&str; 2] = [
    "src/secrets/catalogue/gitleaks.toml",
    "src/secrets/catalogue/synapse.toml",
];

#[derive(Deserialize)]
struct CatalogueFile {
    allowlist: Option<AllowlistFile>,
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

fn allowlist(a: &AllowlistFile) -> String {
    format!(
        "AllowlistData {{ regexes: &{:?}, stopwords: &{:?}, paths: {}, commits: {}, \
         regex_target: {:?}, condition: {:?} }}",
        a.regexes,
        a.stopwords,
        a.paths.len(),
        a.commits.len(),
        a.regex_target.as_deref().unwrap_or("secret"),
        a.condition.as_deref().unwrap_or("OR"),
    )
}

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let files: Vec<CatalogueFile> = CATALOGUES
        .iter()
        .map(|path| {
            println!("cargo::rerun-if-changed={path}");
            let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
            toml::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
        })
        .collect();
    let mut out = String::from("static RULES: &[RuleData] = &[\n");
    for (own, r) in files
        .iter()
        .enumerate()
        .flat_map(|(k, f)| f.rules.iter().map(move |r| (k > 0, r)))
    {
        // Every rule Synapse runs compiles as `catalogue::compile` reads it, or the build stops
        // naming it: an update of the catalogue shows what it broke.
        if let (Some(pattern), None) = (&r.regex, &r.path) {
            regex::bytes::Regex::new(&format!("(?-u){pattern}"))
                .or_else(|_| regex::bytes::Regex::new(pattern))
                .unwrap_or_else(|e| panic!("rule {}: {e}", r.id));
        }
        let allowlists: Vec<String> = r.allowlists.iter().map(allowlist).collect();
        writeln!(
            out,
            "RuleData {{ id: {:?}, own: {own}, regex: {:?}, path: {}, secret_group: {}, \
             entropy: {:?}, keywords: &{:?}, allowlists: &[{}] }},",
            r.id,
            r.regex,
            r.path.is_some(),
            r.secret_group,
            r.entropy,
            r.keywords,
            allowlists.join(", "),
        )
        .expect("writing to a String");
    }
    out.push_str("];\n");
    writeln!(
        out,
        "static GLOBAL: AllowlistData = {};",
        allowlist(
            files
                .first()
                .and_then(|f| f.allowlist.as_ref())
                .unwrap_or(&AllowlistFile::default())
        )
    )
    .expect("writing to a String");
    let dest = format!(
        "{}/gitleaks.rs",
        std::env::var("OUT_DIR").expect("OUT_DIR is set")
    );
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("{dest}: {e}"));
}
