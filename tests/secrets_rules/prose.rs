//! A password near a word such as "password" in a sentence, its signals and look-back, and
//! other languages and scripts (the [`prose`] rule).

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::Cases;

#[test]
fn prose() {
    let cases = Cases::default();
    cases.masks(
        "The admin password was reset to Sn0w#Finch-22 yesterday.",
        "The admin password was reset to [secret] yesterday.",
    );
    cases.masks(
        "Logged in with login ops / Harbor!Lamp77.",
        "Logged in with login ops / [secret].",
    );
    cases.masks(
        "Kennwort für den Server: Kiefer7!Zapfen",
        "Kennwort für den Server: [secret]",
    );
    cases.keeps("The password must be rotated every 90 days per policy SEC-2041.");
    cases.keeps("Refresh the token before calling v2.3.1-beta+build.77 endpoints.");
    cases.keeps("A secret is stored in Vault at kv/data/app; see docs/Secrets2024.md.");
    cases.report();
}

#[test]
fn prose_signals_and_look_back() {
    let cases = Cases::default();
    cases.masks(
        "pw for the lab router is coral&58reef",
        "pw for the lab router is [secret]",
    );
    cases.masks(
        "use Tide7!Lantern as the password for the kiosk",
        "use [secret] as the password for the kiosk",
    );
    cases.masks(
        "nas creds: ops / Tide7!Lantern",
        "nas creds: ops / [secret]",
    );
    cases.keeps("x86_64+avx2 token throughput is 1.2k/s");
    cases.keeps("token handling moved to TokenCache3 in v4");
    cases.keeps("The token is base64-encoded and signed.");
    cases.keeps("password hashing moved from PBKDF2-SHA256 to Argon2id in 4.2");
    cases.keeps("the secret rotation job runs on node-7f3a2 at 02:00");
    cases.report();
}

#[test]
fn prose_in_more_languages() {
    let cases = Cases::default();
    cases.masks(
        "le mot de passe du wifi est Indigo1445&raven#",
        "le mot de passe du wifi est [secret]",
    );
    cases.masks("la clave es Kiefer7!Zapfen", "la clave es [secret]");
    cases.masks(
        "测试环境的密码是 meadow_Glacier3791=，别外传。",
        "测试环境的密码是 [secret]，别外传。",
    );
    cases.masks("数据库密码：Kiefer7!Zapfen", "数据库密码：[secret]");
    cases.masks(
        "공유기 비밀번호는 canyon5620%Copper 입니다",
        "공유기 비밀번호는 [secret] 입니다",
    );
    cases.masks(
        "пароль от админки — 2823Amber=?",
        "пароль от админки — [secret]",
    );
    cases.masks(
        "API key for the geocoder is Ibe2CgW0uW1ROKzTJxuHLUKWVPT7N6SO (free tier)",
        "API key for the geocoder is [secret] (free tier)",
    );
    // masking twice changes nothing: a window stops at a marker
    cases.masks(
        "the client secret is BNpXtUPYgmDfeiJEY0pmeRwDckfUUYT_GD_2ZYmg (client id 0oaLrPY1MZg1XQgI5Nwo)",
        "the client secret is [secret] (client id 0oaLrPY1MZg1XQgI5Nwo)",
    );
    cases.keeps("le mot de passe doit contenir 12 caractères");
    cases.keeps("la clave debe tener 12 caracteres y un símbolo");
    cases.keeps("密码长度至少12位，需包含数字。");
    cases.keeps("the API key rotation job runs nightly at 02:00 on node-7f3a2");
    cases.keeps("the key is rotated by mode=fast Runner2024x jobs");
    cases.report();
}

#[test]
fn prose_announced_shapes() {
    let cases = Cases::default();
    cases.masks(
        "the vault passphrase is heron-quartz-mallow-fig",
        "the vault passphrase is [secret]",
    );
    cases.masks(
        "Le jeton du webhook est 4be1c07d9a2f63e8b5d0a7c14f9e2b36",
        "Le jeton du webhook est [secret]",
    );
    cases.masks(
        "la password del nas è Cobble.Wren.4417",
        "la password del nas è [secret]",
    );
    cases.masks("lösenordet är Tarn77!moss", "lösenordet är [secret]");
    cases.masks(
        "管理员密码是Quill#fen2024，别外传",
        "管理员密码是[secret]，别外传",
    );
    cases.masks(
        "Webhook-Secret for the relay: Xk7pQ2mZ9vR4tL8wN3bF6hJ1",
        "Webhook-Secret for the relay: [secret]",
    );
    cases.keeps("the passphrase is made of four-random-dictionary words");
    cases.keeps("we will pass the token-refresh-logic review on to them");
    cases.keeps("the password of l'utente is stored elsewhere");
    cases.report();
}

#[test]
fn a_word_that_says_when_keeps_the_value_announced() {
    let cases = Cases::default();
    cases.masks(
        "the kiosk password is now Marten42, tell the night shift",
        "the kiosk password is now [secret], tell the night shift",
    );
    cases.masks(
        "I changed the lab pass to Bramble-Otter-3 this morning",
        "I changed the lab pass to [secret] this morning",
    );
    // what follows the connective must still look like a password
    cases.keeps("the password is now required for every admin login");
    cases.keeps("I set the admin pass to expire after 30 days");
    cases.keeps("the token is now refreshed by the Auth-Worker-2 job");
    cases.report();
}

#[test]
fn capitalized_words_and_a_digit_are_a_password_where_one_is_announced() {
    let cases = Cases::default();
    cases.masks(
        "das Kennwort lautet Tanne-Nebel-5",
        "das Kennwort lautet [secret]",
    );
    // one word of three letters or more, or a lowercase word: one digit is not enough
    cases.keeps("das Kennwort lautet Lab-5G");
    cases.report();
}

/// A password made to a policy needs no word to announce it; code that mixes the same classes
/// (found by masking 1.7 million lines of the crates this project builds with) stays as it is.
#[test]
fn a_policy_password_with_no_word_before_it() {
    let cases = Cases::default();
    cases.masks(
        "I logged in as deploy with Zq8#Lm3vRt and it worked.",
        "I logged in as deploy with [secret] and it worked.",
    );
    cases.masks(
        "reset the jenkins admin to Fern&Quarry61 this morning",
        "reset the jenkins admin to [secret] this morning",
    );
    cases.keeps(r#"        link_name = "write$UNIX2003""#);
    cases.keeps("/// [`from_utf8`]: struct.String.html#method.from_utf8");
    cases.keeps("* @DIvkov575 made their first contribution");
    cases.keeps(r#"let df = dt.format("%Y-%m-%d %H:%M:%S%.9f");"#);
    cases.keeps(r#"assert_eq!(encoded, "foo%20bar%3F");"#);
    cases.keeps("x-amz-checksum-sha256: Xq7+Lm2/Kp9Rt4Vw8Yz1Bn5Cd3Ef6Gh9Jk0Lm2Qp7=");
    cases.keeps("Driver={ODBC Driver 18 for SQL Server};Trusted_Connection=yes;");
    cases.report();
}

#[test]
fn leet_passphrases_new_values_and_pairs_in_sentences() {
    let cases = Cases::default();
    cases.masks(
        "Guest wifi password for the offsite: m4pl3.c0rn3r.b1rd (ask at the desk).",
        "Guest wifi password for the offsite: [secret] (ask at the desk).",
    );
    cases.masks(
        "The router pw was Gale1988!; we reset it to fennel-otter-quartz yesterday.",
        "The router pw was [secret]; we reset it to [secret] yesterday.",
    );
    cases.masks(
        "Creds for the lab Kibana are viewer/sprucemoth_44 until Friday.",
        "Creds for the lab Kibana are viewer/[secret] until Friday.",
    );
    cases.masks(
        "Das Passwort für das NAS ist jetzt k3lp.f1nch.m0ss.",
        "Das Passwort für das NAS ist jetzt [secret].",
    );
    // a name with a number, a path or a phrase after a word of change is no new value
    cases.keeps("The password was reset to default after the audit.");
    cases.keeps("Extract the name to pass to cargo:rustc-link-lib from the file name.");
    cases.keeps("nodes are node1.rack2.dc3 and node2.rack2.dc3 in the password vault.");
    cases.report();
}

#[test]
fn words_for_key_and_token_in_other_languages() {
    let cases = Cases::default();
    cases.masks(
        "Der API-Schlüssel für das Wetter-Widget lautet 4f9c2e7a81b3d6f05e2a9c7d3b1f8e64.",
        "Der API-Schlüssel für das Wetter-Widget lautet [secret].",
    );
    cases.masks(
        "La clé API du service de cartes est 7b2e9f4c1a8d3e6f0b5c2a9e7d4f1c83.",
        "La clé API du service de cartes est [secret].",
    );
    cases.masks(
        "地图服务的 API 密钥：9d3f7b1e5a2c8f4d6b0e3a7c9f1d5b28（生产环境）",
        "地图服务的 API 密钥：[secret]（生产环境）",
    );
    cases.masks(
        "Токен для деплоя: Hq7TzW2mXk9LbV4rNc8pYs3dFg6jRa1u, хранится в vault.",
        "Токен для деплоя: [secret], хранится в vault.",
    );
    // a key with no qualifier is a key of a map, a lock or a keyboard
    cases.keeps("Der Schlüssel liegt beim Empfang, Raum 4f9c2e7a81b3d6f05e2a9c7d3b1f8e64.");
    cases.report();
}

#[test]
fn pins_quoted_phrases_and_short_random_passwords() {
    let cases = Cases::default();
    cases.masks(
        "The alarm panel PIN is 604218.",
        "The alarm panel PIN is [secret].",
    );
    cases.masks(
        "passcode for the lab door: 73310",
        "passcode for the lab door: [secret]",
    );
    cases.masks(
        "wifi password is \"Lichen harbor 58\" on the guest SSID",
        "wifi password is \"[secret]\" on the guest SSID",
    );
    cases.masks(
        "The switch login is admin / Rz4-qk8W for now.",
        "The switch login is admin / [secret] for now.",
    );
    cases.masks(
        "contraseña del router: naranja.lince.64",
        "contraseña del router: [secret]",
    );
    cases.masks(
        "NAS admin password -> Gk2p-Wt7x",
        "NAS admin password -> [secret]",
    );
    cases.masks(
        "Mailchimp API key — 3c9e1f7a5b2d8c4e6f0a9b3d7e1c5f28",
        "Mailchimp API key — [secret]",
    );
    // a pin of a board or of code, a year, or a name with numbers in it stays
    cases.keeps("Connect the sensor to GPIO pin 17 and ground to pin 6.");
    cases.keeps("#[pin] inner: Pin<Box<dyn Future<Output = T>>>,");
    cases.keeps("The PIN policy changed in 2024.");
    cases.keeps("The password field is S3Bucket2 in the old schema.");
    cases.keeps("We pass env vars through to test-bench-http in CI.");
    cases.report();
}

#[test]
fn a_key_without_a_qualifier_counts_only_with_an_api_keys_shape() {
    let cases = Cases::default();
    cases.masks(
        "The geocoder uses key 5e8d2c7f1a9b4e3d6c0f8a2b7e5d1c94 for now.",
        "The geocoder uses key [secret] for now.",
    );
    cases.masks(
        "developer key Rk4mT9vLx2ZpQ7wNc3bHd8fGs1jKa6eY",
        "developer key [secret]",
    );
    cases.masks(
        "Der Schlüssel für die Karten-API ist 5e8d2c7f1a9b4e3d6c0f8a2b7e5d1c94.",
        "Der Schlüssel für die Karten-API ist [secret].",
    );
    cases.masks(
        "API 키: Rk4mT9vLx2ZpQ7wNc3bHd8fGs1jKa6eY",
        "API 키: [secret]",
    );
    cases.keeps("The cache key is 5d41402abc4b2a76b9719d911017c592.");
    cases.keeps("the key is rotated every 90 days by Rk4mT9vLx2ZpQ7wN policy");
    cases.keeps("Press the key labelled Fn2 twice.");
    cases.report();
}
