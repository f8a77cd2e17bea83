//! gitleaks' own examples through `mask`.

use synapse::secrets::mask;

/// At least this share of the examples' secrets found, and at most this share of their harmless
/// strings changed (percent); the figures are in `docs/secrets.md`. (The harmless strings changed
/// are harmless to gitleaks, such as `password = "..."` with a made-up value, which Synapse's
/// reader masks on purpose.)
const FOUND_PERCENT: usize = 92;
const CHANGED_PERCENT: usize = 10;

#[derive(serde::Deserialize)]
struct Cases {
    case: Vec<Case>,
}

#[derive(serde::Deserialize)]
struct Case {
    kind: String,
    text: String,
}

/// The catalogue's own examples (the plain literals of gitleaks' rule tests,
/// `tests/fixtures/gitleaks/cases.toml`): how many secrets `mask` finds something in, and
/// how many harmless strings it changes. Bars at the figures measured when the catalogue came in.
#[test]
fn the_catalogues_own_examples() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/gitleaks/cases.toml"
    );
    let cases: Cases = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let (mut secrets, mut found, mut harmless, mut changed) = (0, 0, 0, 0);
    for c in &cases.case {
        let out = mask(&c.text);
        if c.kind == "secret" {
            secrets += 1;
            found += usize::from(!out.found.is_empty());
        } else {
            harmless += 1;
            changed += usize::from(out.text != c.text);
        }
    }
    println!("gitleaks' examples: secrets found {found}/{secrets}, harmless changed {changed}/{harmless}");
    assert!(found * 100 >= secrets * FOUND_PERCENT, "{found}/{secrets}");
    assert!(
        changed * 100 <= harmless * CHANGED_PERCENT,
        "{changed}/{harmless}"
    );
}

/// Tokens of vendors the hand rules have no row for, in the assignment form each rule reads:
/// masked, and found under the catalogue rule's id.
#[rstest::rstest]
#[case::asana(
    "asana-client-secret",
    "ASANA_CLIENT_SECRET=",
    "f6cx27g3sy12jdf0e8sx1xc7n60eaa6x"
)]
#[case::discord(
    "discord-api-token",
    "discord_bot_key: ",
    "270ab50069791986f4681ee30872e4ab0342579f0594635d0b82175cea262916"
)]
#[case::sonar(
    "sonar-api-token",
    "sonar.login=",
    "squ_ekgr4ogbhx9akv48e8esozpd05rk7b38nejp532x"
)]
#[case::dropbox("dropbox-short-lived-api-token", "dropbox_token = ", "sl.pkhjaq4vkji4cfb7ic7pqq9po5swz55z66e6ou5w9h71ek51zxsj3po12jsgy6dohftdcrpc5qywd9jfzku3mw3w7qm840w7wejz8757hkal6laon49esj35lak37u2tkh7i9y5")]
fn vendor_tokens_the_catalogue_knows(#[case] rule: &str, #[case] key: &str, #[case] value: &str) {
    let out = mask(&format!("note for the deploy job\n{key}{value}\n"));
    assert!(!out.text.contains(value), "{}", out.text);
    assert!(out.found.iter().any(|f| f.kind == rule), "{:?}", out.found);
}

/// gitleaks' filters (its allowlists, the entropy floor) and Synapse's exclusions keep these.
#[test]
fn the_catalogue_keeps_its_filters() {
    for kept in [
        "token ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
        "curl -u ${USER}:${PASS} https://example.com",
    ] {
        assert_eq!(mask(kept).text, kept);
    }
}

mod yaml {
    //! The loaded Nosey Parker and Kingfisher rules' own examples, written out by `build.rs`:
    //! (id, pattern, whether it is the id of a pair, examples, negative examples).
    #![allow(clippy::type_complexity)]
    include!(concat!(env!("OUT_DIR"), "/catalogue_examples.rs"));
}

/// Whether `mask` leaves the secret of `rule`'s every match in `example`: its one group (or
/// the match), or, for a rule of several groups (a user, a password, a host), all of them.
fn rule_secret_left(pattern: &str, example: &str, masked: &str) -> bool {
    let regex = regex::bytes::Regex::new(&format!("(?-u){pattern}"))
        .or_else(|_| regex::bytes::Regex::new(pattern))
        .unwrap();
    let count = |text: &str, piece: &[u8]| {
        let piece = String::from_utf8_lossy(piece);
        text.matches(piece.as_ref()).count()
    };
    let left = regex.captures_iter(example.as_bytes()).any(|caps| {
        let groups: Vec<&[u8]> = caps
            .iter()
            .skip(1)
            .flatten()
            .map(|g| g.as_bytes())
            .collect();
        let groups = if groups.is_empty() {
            vec![caps.get(0).map_or(&b""[..], |m| m.as_bytes())]
        } else {
            groups
        };
        groups
            .iter()
            .filter(|g| !g.is_empty())
            .all(|g| count(masked, g) >= count(example, g))
    });
    left
}

/// The vendor part of a rule's id: `auth0` in `kingfisher.auth0.2`.
fn vendor(id: &str) -> &str {
    id.split('.').nth(1).unwrap_or(id)
}

/// Every example of every loaded Nosey Parker and Kingfisher rule: each positive masked (the
/// rule's secret no longer stands in it; an id of a pair beside the first example of a secret
/// of its vendor, as it is masked only there), and each negative kept by its rule (the rule
/// reports nothing in it: another rule may still mask it, as a Slack bot token is a negative of
/// the Slack webhook rule). One case per example, and one report of every case that fails.
#[test]
fn every_loaded_yaml_rule_passes_its_own_examples() {
    let mut failures = Vec::new();
    let (mut positives, mut negatives) = (0, 0);
    for &(id, pattern, pair, examples, negative) in yaml::EXAMPLES {
        let secret = yaml::EXAMPLES
            .iter()
            .find(|r| !r.2 && vendor(r.0) == vendor(id))
            .and_then(|r| r.3.first());
        for example in examples {
            positives += 1;
            let text = match (pair, secret) {
                (true, Some(secret)) => format!("{example}\n{secret}"),
                _ => example.to_string(),
            };
            let out = mask(&text);
            if out.found.is_empty() || rule_secret_left(pattern, example, &out.text) {
                failures.push(format!(
                    "{id}: positive not masked: {text:?} -> {:?}",
                    out.text
                ));
            }
        }
        for example in negative {
            negatives += 1;
            let out = mask(example);
            if out.found.iter().any(|f| f.kind == id) {
                failures.push(format!(
                    "{id}: negative found: {example:?} -> {:?}",
                    out.text
                ));
            }
        }
    }
    println!(
        "{} rules, {positives} positive and {negatives} negative examples, {} failing",
        yaml::EXAMPLES.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
