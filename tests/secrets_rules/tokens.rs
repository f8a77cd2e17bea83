//! Vendor tokens by their own shape, JWTs, and ids that announce the secret after them (the
//! [`tokens`] rule).

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use rstest::rstest;

use super::Cases;
use synapse::secrets::mask;

#[rstest]
#[case::aws_access_key("aws-access-key", "key AKIAQ3TQ7NB5Z9KD2RXM for the bot")]
#[case::github_token("github-pat", "use ghp_Zq8LmN3vB7xK2pR5tY9wE4uI6oA1sD0fG2hJ now")]
#[case::github_fine_grained_token(
    "github-token",
    "github_pat_11AQ7ZKXY0Vb3nR8tWm2_Lp5sJ9dHc4gF6kTq1xEz7uNa3oYr8iBv2wMe5hGj0l"
)]
#[case::gitlab_token("gitlab-pat", "glpat-Rk3xW9qZ2mN7bV5cT1yL")]
#[case::slack_token(
    "slack-bot-token",
    "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
)]
#[case::stripe_key("stripe-access-token", "sk_live_4eC39HqLyjWDarjtT1zdp7dc")]
#[case::google_api_key("gcp-api-key", "AIzaSyD3kLmN0pQrStUvWxYz1234567890abcde")]
#[case::openai_key(
    "openai-key",
    "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3iJk6"
)]
#[case::anthropic_key(
    "anthropic-key",
    "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa-AbCdEf"
)]
#[case::npm_token("npm-access-token", "npm_Ab3De6Gh9Jk2Mn5Pq8St1Vw4Yz7Bc0Ef3Hi6")]
#[case::sendgrid_key(
    "sendgrid-api-token",
    "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"
)]
#[case::twilio_key("twilio-api-key", "SK0123456789abcdef0123456789abcdef")]
#[case::huggingface_token("huggingface-token", "hf_Ab3De6Gh9Jk2Mn5Pq8St1Vw4Yz7Bc0Ef3")]
#[case::telegram_bot_token("telegram-bot-token", "123456789:AAHk3_Lm9Np2Qr5St8Vw1Yz4Bc7Ef0Hi3Kl")]
#[case::password_hash("password-hash", "alice:$apr1$Xk3j9Lm2$Qr5St8Vw1Yz4Bc7Ef0Hi3K")]
fn a_vendor_token_is_found_as_its_kind(#[case] kind: &str, #[case] text: &str) {
    let out = mask(text);
    assert!(
        out.found.iter().any(|f| f.kind == kind),
        "{kind}: {text} -> {} {:?}",
        out.text,
        out.found
    );
}

#[test]
fn vendor_tokens() {
    let cases = Cases::default();
    cases.masks(
        "token=ghp_Zq8LmN3vB7xK2pR5tY9wE4uI6oA1sD0fG2hJ;",
        "token=[secret];",
    );
    // prefixes without a body, placeholders and lookalikes stay
    cases.keeps("tokens look like ghp_ or glpat- or sk_live_ followed by letters");
    cases.keeps("ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx is a placeholder");
    cases.keeps("the docs use AKIAIOSFODNN7EXAMPLE as the sample key id");
    cases.keeps("npm_config_registry=https://registry.example.org");
    cases.keeps("customer cus_Ab3De6Gh9Jk2Mn and price price_1Ab3De6Gh9Jk2Mn");
    cases.report();
}

#[test]
fn jwts() {
    let cases = Cases::default();
    let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSIsImlhdCI6MTcwMDAwMDAwMH0.c2lnbmF0dXJlLWJ5dGVzLWhlcmU";
    cases.masks(
        &format!("cookie: s={jwt}; Path=/"),
        "cookie: s=[secret]; Path=/",
    );
    cases.masks(&format!("{jwt}."), "[secret].");
    cases.keeps("eyJhbGciOiJIUzI1NiJ9 alone is just a header");
    cases.report();
}

#[test]
fn ids_announce_their_secret() {
    let cases = Cases::default();
    // an AWS key id and its secret key; a Twilio account SID (not itself a secret) and its token
    cases.masks(
        "keys: AKIAQ3TQ7NB5Z9KD2RXM Zk4mQ8rT2vX7nB1c/Wq9+plDartZk4mQ8rT2vX7ab",
        "keys: [secret] [secret]",
    );
    cases.masks(
        "client = Client('AC0f3a9c5e7b1d2468ace00f3a9c5e7b1d', '9b8a7f6e5d4c3b2a19f8e7d6c5b4a3f2')",
        "client = Client('AC0f3a9c5e7b1d2468ace00f3a9c5e7b1d', '[secret]')",
    );
    cases.masks("AKIAQ3TQ7NB5Z9KD2RXM us-east-1", "[secret] us-east-1");
    cases.report();
}
