//! What must hold for any text: UTF-8 edges and random bytes do not panic, masking stays
//! idempotent, every repetition tried runs in linear time (`examples/mask.rs` measures the
//! times, and the throughput on ordinary text).

#![deny(clippy::string_slice)]
// Noise is built by indexing a fixed alphabet; the detector itself never indexes.
#![allow(clippy::indexing_slicing)]

use rstest::rstest;

use super::assert_markers;
use synapse::secrets::mask;

#[rstest]
#[case::a_quoted_password_with_a_tilde("password=\"ñu-2024\"")]
#[case::a_one_letter_password("password=ñ")]
#[case::a_password_of_one_repeated_letter("password=ñññññññññ")]
#[case::a_japanese_token("token: 日本語のトークン")]
#[case::emoji_after_secret("secret 🦀🦀🦀🦀🦀🦀🦀🦀🦀")]
#[case::a_russian_password("пароль: Ёлка2031!Жук")]
#[case::a_github_prefix_and_a_letter("ghp_ñ")]
#[case::a_pem_opening_and_a_letter("-----BEGIN PRIVATE KEY-----ñ")]
#[case::an_unfinished_pem_block("-----BEGIN PRIVATE KEY-----\nñññ\n-----END")]
#[case::a_url_of_single_letters("https://ñ:ñ@ñ")]
#[case::a_pgpass_shape("a:1:b:c:ñ")]
#[case::a_yaml_value("data:\n  k: ñññññññ=")]
#[case::a_bare_key("password")]
#[case::a_key_and_nothing("password=")]
#[case::an_equals_sign("=")]
#[case::empty("")]
#[case::one_letter("ñ")]
#[case::bearer_and_nothing("Bearer ")]
#[case::a_bare_password_flag("-p")]
#[case::a_jwt_prefix("eyJ")]
#[case::half_a_jwt("eyJabcdefghijk.eyJ")]
// Found by fuzzing (fuzz/fuzz_targets/secrets.rs): masked twice, it changed again.
#[case::found_by_fuzzing_pgpass_like("pw,1/?\np:5:p:p:p<pw/")]
#[case::found_by_fuzzing_tabs_and_backslashes("-pw:Q-pw:Qw:Q=w= \\\t\t\t\t\tpw\t\t\tp\\pw:220")]
fn utf8_edges_do_not_panic(#[case] text: &str) {
    let out = mask(text);
    assert_eq!(mask(&out.text).text, out.text, "{text}");
    assert_markers(&out.text, &out.found);
}

#[test]
fn a_password_of_multibyte_characters_is_masked() {
    let out = mask("password=\"ñu-2024\" and token: «Zk4mQ8rT2vX7nB1c»");
    assert!(
        out.text.starts_with("password=\"[secret]\""),
        "{}",
        out.text
    );
}

/// A small xorshift generator: deterministic noise without a crate.
fn noise(len: usize, mut seed: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        out.extend_from_slice(&seed.to_le_bytes());
    }
    out.truncate(len);
    out
}

#[test]
fn random_bytes_do_not_panic() {
    let bytes = noise(1 << 20, 0x9E37_79B9_7F4A_7C15);
    let text = String::from_utf8_lossy(&bytes);
    let out = mask(&text);
    assert_markers(&out.text, &out.found);
    // printable noise with the characters secrets are made of, and key words sprinkled in
    let alphabet = b"abcXYZ019=:-_./+ \"'\n@$!#%&ghp_AKIA";
    let mut s = String::new();
    for (i, b) in noise(1 << 20, 7).iter().enumerate() {
        s.push(char::from(alphabet[usize::from(*b) % alphabet.len()]));
        if i % 997 == 0 {
            s.push_str(" password=");
        }
        if i % 1499 == 0 {
            s.push_str("ñ-----BEGIN PRIVATE KEY-----");
        }
    }
    let out = mask(&s);
    assert_markers(&out.text, &out.found);
    assert!(mask(&out.text).text == out.text, "not idempotent on noise");
}

/// Each text below, a unit repeated to `mib` MiB, is masked, with every marker found: a scan
/// that grew with the square of the text would not finish. No time is asserted (4 MiB for the
/// two worst cases, 1 MiB for the others, to keep debug runs short; `examples/mask.rs` prints
/// the times).
#[rstest]
#[case("a=", 4)]
#[case("| password | x |\n", 1)]
#[case("| password ", 1)]
#[case("| Password |\n|---|\n| Qx7!mZp2Lk |\n", 1)]
#[case("name: password ", 1)]
#[case("- name: TOKEN\n", 1)]
#[case("echo x | a --password-stdin ", 1)]
#[case("a/b1!c@", 1)]
#[case("x -AsPlainText ", 1)]
#[case("bot1234567890:", 1)]
#[case("LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQ", 1)]
#[case("password: >-\n", 1)]
#[case("set -x -x -x ", 1)]
#[case("password=", 4)]
#[case("password ", 1)]
#[case("password: \"", 1)]
#[case("token is ", 1)]
#[case("-----BEGIN PRIVATE KEY-----", 1)]
#[case("://a:b@", 1)]
#[case("eyJhbGciOiJIUzI1NiJ9.", 1)]
#[case("secret x ", 1)]
#[case("a:1:b:c:", 1)]
#[case("ghp_", 1)]
#[case("&", 1)]
#[case("-u a:", 1)]
#[case("token=Zk4mQ8rT2vX7nB1c Zk4mQ8rT2vX7nB1 ", 1)]
// shapes tried inside one long run, and base64 read past a run
#[case("eyJ-", 1)]
#[case("MT-", 1)]
#[case("LS0tLS1CRUdJTi+", 1)]
// rules of the seventh set's passes: quoted phrases, qualifiers after a key, credential
// files and labels, stdin, command flags, expansions
#[case("password is \"a b ", 1)]
#[case("clé ", 1)]
#[case("key ", 1)]
#[case("auth-user-pass\n", 1)]
#[case("In .pgpass: a:", 1)]
#[case("echo x | sudo -S ", 1)]
#[case("sshpass -p ", 1)]
#[case("${DB_PASSWORD:-", 1)]
#[case("lftp -u a,", 1)]
#[case("`a:b` /etc/rsyncd.secrets ", 1)]
// the eighth set's pass: commands and their slots, labels, numbered keys, Cisco types,
// code spans, words after a copula in other languages, Twilio's name before a token
#[case("a: mc alias set ", 1)]
#[case("net use \\\\a\\b ", 1)]
#[case("sqlplus a/", 1)]
#[case("gh secret set a --body ", 1)]
#[case("enable secret 0 ", 1)]
#[case("key1 ", 1)]
#[case("`requirepass ", 1)]
#[case("Şifresi ", 1)]
#[case("Hasło to ", 1)]
#[case("Twilio 4be0c1d97a35f8e26b10d9c4a7e3f582 ", 1)]
#[case("userlist.txt: ", 1)]
#[case("Пароль — ", 1)]
#[case("password to ", 1)]
#[case("a:b@tcp(", 1)]
#[case("getConnection(a, ", 1)]
#[case("AUTH ", 1)]
#[case("a ||= ", 1)]
#[case("<Password><Value>", 1)]
#[case("PASSWORD=a_b_c ", 1)]
#[case("contrasena: ", 1)]
// many places on one long line, each once reading the line around it
#[case("echo x | sudo -S ", 1)]
#[case("redis-cli AUTH ", 1)]
#[case("{\\\"password\\\":\\\"", 1)]
#[case("name=\"api-key\" content=\"", 1)]
#[case("kind: Secret\ndata:\n  a: b\n", 1)]
fn nothing_quadratic(#[case] unit: &str, #[case] mib: usize) {
    let text = unit.repeat((mib << 20) / unit.len());
    let out = mask(&text);
    assert_markers(&out.text, &out.found);
}
