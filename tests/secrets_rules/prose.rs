//! A password near a word such as "password" in a sentence, its signals and look-back, and
//! other languages and scripts (the [`prose`] rule).

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::{keeps, masks};

#[test]
fn prose() {
    masks(
        "The admin password was reset to Sn0w#Finch-22 yesterday.",
        "The admin password was reset to [secret] yesterday.",
    );
    masks(
        "Logged in with login ops / Harbor!Lamp77.",
        "Logged in with login ops / [secret].",
    );
    masks(
        "Kennwort für den Server: Kiefer7!Zapfen",
        "Kennwort für den Server: [secret]",
    );
    keeps("The password must be rotated every 90 days per policy SEC-2041.");
    keeps("Refresh the token before calling v2.3.1-beta+build.77 endpoints.");
    keeps("A secret is stored in Vault at kv/data/app; see docs/Secrets2024.md.");
}

#[test]
fn prose_signals_and_look_back() {
    masks(
        "pw for the lab router is coral&58reef",
        "pw for the lab router is [secret]",
    );
    masks(
        "use Tide7!Lantern as the password for the kiosk",
        "use [secret] as the password for the kiosk",
    );
    masks(
        "nas creds: ops / Tide7!Lantern",
        "nas creds: ops / [secret]",
    );
    keeps("x86_64+avx2 token throughput is 1.2k/s");
    keeps("token handling moved to TokenCache3 in v4");
    keeps("The token is base64-encoded and signed.");
    keeps("password hashing moved from PBKDF2-SHA256 to Argon2id in 4.2");
    keeps("the secret rotation job runs on node-7f3a2 at 02:00");
}

#[test]
fn prose_in_more_languages() {
    masks(
        "le mot de passe du wifi est Indigo1445&raven#",
        "le mot de passe du wifi est [secret]",
    );
    masks("la clave es Kiefer7!Zapfen", "la clave es [secret]");
    masks(
        "测试环境的密码是 meadow_Glacier3791=，别外传。",
        "测试环境的密码是 [secret]，别外传。",
    );
    masks("数据库密码：Kiefer7!Zapfen", "数据库密码：[secret]");
    masks(
        "공유기 비밀번호는 canyon5620%Copper 입니다",
        "공유기 비밀번호는 [secret] 입니다",
    );
    masks(
        "пароль от админки — 2823Amber=?",
        "пароль от админки — [secret]",
    );
    masks(
        "API key for the geocoder is Ibe2CgW0uW1ROKzTJxuHLUKWVPT7N6SO (free tier)",
        "API key for the geocoder is [secret] (free tier)",
    );
    // masking twice changes nothing: a window stops at a marker
    masks(
        "the client secret is BNpXtUPYgmDfeiJEY0pmeRwDckfUUYT_GD_2ZYmg (client id 0oaLrPY1MZg1XQgI5Nwo)",
        "the client secret is [secret] (client id 0oaLrPY1MZg1XQgI5Nwo)",
    );
    keeps("le mot de passe doit contenir 12 caractères");
    keeps("la clave debe tener 12 caracteres y un símbolo");
    keeps("密码长度至少12位，需包含数字。");
    keeps("the API key rotation job runs nightly at 02:00 on node-7f3a2");
    keeps("the key is rotated by mode=fast Runner2024x jobs");
}

#[test]
fn prose_announced_shapes() {
    masks(
        "the vault passphrase is heron-quartz-mallow-fig",
        "the vault passphrase is [secret]",
    );
    masks(
        "Le jeton du webhook est 4be1c07d9a2f63e8b5d0a7c14f9e2b36",
        "Le jeton du webhook est [secret]",
    );
    masks(
        "la password del nas è Cobble.Wren.4417",
        "la password del nas è [secret]",
    );
    masks("lösenordet är Tarn77!moss", "lösenordet är [secret]");
    masks(
        "管理员密码是Quill#fen2024，别外传",
        "管理员密码是[secret]，别外传",
    );
    masks(
        "Webhook-Secret for the relay: Xk7pQ2mZ9vR4tL8wN3bF6hJ1",
        "Webhook-Secret for the relay: [secret]",
    );
    keeps("the passphrase is made of four-random-dictionary words");
    keeps("we will pass the token-refresh-logic review on to them");
    keeps("the password of l'utente is stored elsewhere");
}

#[test]
fn a_word_that_says_when_keeps_the_value_announced() {
    masks(
        "the kiosk password is now Marten42, tell the night shift",
        "the kiosk password is now [secret], tell the night shift",
    );
    masks(
        "I changed the lab pass to Bramble-Otter-3 this morning",
        "I changed the lab pass to [secret] this morning",
    );
    // what follows the connective must still look like a password
    keeps("the password is now required for every admin login");
    keeps("I set the admin pass to expire after 30 days");
    keeps("the token is now refreshed by the Auth-Worker-2 job");
}

#[test]
fn capitalized_words_and_a_digit_are_a_password_where_one_is_announced() {
    masks(
        "das Kennwort lautet Tanne-Nebel-5",
        "das Kennwort lautet [secret]",
    );
    // one word of three letters or more, or a lowercase word: one digit is not enough
    keeps("das Kennwort lautet Lab-5G");
}

/// A password made to a policy needs no word to announce it; code that mixes the same classes
/// (found by masking 1.7 million lines of the crates this project builds with) stays as it is.
#[test]
fn a_policy_password_with_no_word_before_it() {
    masks(
        "I logged in as deploy with Zq8#Lm3vRt and it worked.",
        "I logged in as deploy with [secret] and it worked.",
    );
    masks(
        "reset the jenkins admin to Fern&Quarry61 this morning",
        "reset the jenkins admin to [secret] this morning",
    );
    keeps(r#"        link_name = "write$UNIX2003""#);
    keeps("/// [`from_utf8`]: struct.String.html#method.from_utf8");
    keeps("* @DIvkov575 made their first contribution");
    keeps(r#"let df = dt.format("%Y-%m-%d %H:%M:%S%.9f");"#);
    keeps(r#"assert_eq!(encoded, "foo%20bar%3F");"#);
    keeps("x-amz-checksum-sha256: Xq7+Lm2/Kp9Rt4Vw8Yz1Bn5Cd3Ef6Gh9Jk0Lm2Qp7=");
    keeps("Driver={ODBC Driver 18 for SQL Server};Trusted_Connection=yes;");
}

#[test]
fn leet_passphrases_new_values_and_pairs_in_sentences() {
    masks(
        "Guest wifi password for the offsite: m4pl3.c0rn3r.b1rd (ask at the desk).",
        "Guest wifi password for the offsite: [secret] (ask at the desk).",
    );
    masks(
        "The router pw was Gale1988!; we reset it to fennel-otter-quartz yesterday.",
        "The router pw was [secret]; we reset it to [secret] yesterday.",
    );
    masks(
        "Creds for the lab Kibana are viewer/sprucemoth_44 until Friday.",
        "Creds for the lab Kibana are viewer/[secret] until Friday.",
    );
    masks(
        "Das Passwort für das NAS ist jetzt k3lp.f1nch.m0ss.",
        "Das Passwort für das NAS ist jetzt [secret].",
    );
    // a name with a number, a path or a phrase after a word of change is no new value
    keeps("The password was reset to default after the audit.");
    keeps("Extract the name to pass to cargo:rustc-link-lib from the file name.");
    keeps("nodes are node1.rack2.dc3 and node2.rack2.dc3 in the password vault.");
}

#[test]
fn words_for_key_and_token_in_other_languages() {
    masks(
        "Der API-Schlüssel für das Wetter-Widget lautet 4f9c2e7a81b3d6f05e2a9c7d3b1f8e64.",
        "Der API-Schlüssel für das Wetter-Widget lautet [secret].",
    );
    masks(
        "La clé API du service de cartes est 7b2e9f4c1a8d3e6f0b5c2a9e7d4f1c83.",
        "La clé API du service de cartes est [secret].",
    );
    masks(
        "地图服务的 API 密钥：9d3f7b1e5a2c8f4d6b0e3a7c9f1d5b28（生产环境）",
        "地图服务的 API 密钥：[secret]（生产环境）",
    );
    masks(
        "Токен для деплоя: Hq7TzW2mXk9LbV4rNc8pYs3dFg6jRa1u, хранится в vault.",
        "Токен для деплоя: [secret], хранится в vault.",
    );
    // a key with no qualifier is a key of a map, a lock or a keyboard
    keeps("Der Schlüssel liegt beim Empfang, Raum 4f9c2e7a81b3d6f05e2a9c7d3b1f8e64.");
}

#[test]
fn pins_quoted_phrases_and_short_random_passwords() {
    masks(
        "The alarm panel PIN is 604218.",
        "The alarm panel PIN is [secret].",
    );
    masks(
        "passcode for the lab door: 73310",
        "passcode for the lab door: [secret]",
    );
    masks(
        "wifi password is \"Lichen harbor 58\" on the guest SSID",
        "wifi password is \"[secret]\" on the guest SSID",
    );
    masks(
        "The switch login is admin / Rz4-qk8W for now.",
        "The switch login is admin / [secret] for now.",
    );
    masks(
        "contraseña del router: naranja.lince.64",
        "contraseña del router: [secret]",
    );
    masks(
        "NAS admin password -> Gk2p-Wt7x",
        "NAS admin password -> [secret]",
    );
    masks(
        "Mailchimp API key — 3c9e1f7a5b2d8c4e6f0a9b3d7e1c5f28",
        "Mailchimp API key — [secret]",
    );
    // a pin of a board or of code, a year, or a name with numbers in it stays
    keeps("Connect the sensor to GPIO pin 17 and ground to pin 6.");
    keeps("#[pin] inner: Pin<Box<dyn Future<Output = T>>>,");
    keeps("The PIN policy changed in 2024.");
    keeps("The password field is S3Bucket2 in the old schema.");
    keeps("We pass env vars through to test-bench-http in CI.");
}

#[test]
fn a_key_without_a_qualifier_counts_only_with_an_api_keys_shape() {
    masks(
        "The geocoder uses key 5e8d2c7f1a9b4e3d6c0f8a2b7e5d1c94 for now.",
        "The geocoder uses key [secret] for now.",
    );
    masks(
        "developer key Rk4mT9vLx2ZpQ7wNc3bHd8fGs1jKa6eY",
        "developer key [secret]",
    );
    masks(
        "Der Schlüssel für die Karten-API ist 5e8d2c7f1a9b4e3d6c0f8a2b7e5d1c94.",
        "Der Schlüssel für die Karten-API ist [secret].",
    );
    masks(
        "API 키: Rk4mT9vLx2ZpQ7wNc3bHd8fGs1jKa6eY",
        "API 키: [secret]",
    );
    keeps("The cache key is 5d41402abc4b2a76b9719d911017c592.");
    keeps("the key is rotated every 90 days by Rk4mT9vLx2ZpQ7wN policy");
    keeps("Press the key labelled Fn2 twice.");
}
