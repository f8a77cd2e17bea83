//! PEM private key blocks, plain, escaped in JSON, indented in YAML and cut short; public keys
//! and certificates stay (the [`pem`] rule).

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::Cases;

#[test]
fn pem_blocks() {
    let cases = Cases::default();
    let key = "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\nKUpRKfFLfRYC9AIKjbJTWit+CqvjWYzvQwECAwEAAQ==\n-----END RSA PRIVATE KEY-----";
    cases.masks(
        &format!("the key:\n{key}\nthanks"),
        "the key:\n[secret]\nthanks",
    );
    let escaped = key.replace('\n', "\\n");
    cases.masks(
        &format!("{{\"private_key\": \"{escaped}\\n\", \"id\": 1}}"),
        "{\"private_key\": \"[secret]\\n\", \"id\": 1}",
    );
    let indented = key.replace('\n', "\n    ");
    cases.masks(
        &format!("key: |\n    {indented}\nnext: 1"),
        "key: |\n    [secret]\nnext: 1",
    );
    // cut short: the base64 lines go, the prose after stays
    cases.masks(
        "-----BEGIN OPENSSH PRIVATE KEY-----\nQk9HVVMta2V5LWJvZHktZm9yLWEtdGVzdC1vbmx5\nAAAAAAAAAAEAAAAz\n\nthat is all I have",
        "[secret]\n\nthat is all I have",
    );
    cases.keeps(
        "-----BEGIN PUBLIC KEY-----\nQk9HVVMtcHVibGljLWtleS1ib2R5Lg==\n-----END PUBLIC KEY-----",
    );
    cases.keeps("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----");
    cases.report();
}
