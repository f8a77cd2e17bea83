//! PEM private key blocks, plain, escaped in JSON, indented in YAML and cut short; public keys
//! and certificates stay (the [`pem`] rule).

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::{keeps, masks};

#[test]
fn pem_blocks() {
    let key = "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\nKUpRKfFLfRYC9AIKjbJTWit+CqvjWYzvQwECAwEAAQ==\n-----END RSA PRIVATE KEY-----";
    masks(
        &format!("the key:\n{key}\nthanks"),
        "the key:\n[secret]\nthanks",
    );
    let escaped = key.replace('\n', "\\n");
    masks(
        &format!("{{\"private_key\": \"{escaped}\\n\", \"id\": 1}}"),
        "{\"private_key\": \"[secret]\\n\", \"id\": 1}",
    );
    let indented = key.replace('\n', "\n    ");
    masks(
        &format!("key: |\n    {indented}\nnext: 1"),
        "key: |\n    [secret]\nnext: 1",
    );
    // cut short: the base64 lines go, the prose after stays
    masks(
        "-----BEGIN OPENSSH PRIVATE KEY-----\nQk9HVVMta2V5LWJvZHktZm9yLWEtdGVzdC1vbmx5\nAAAAAAAAAAEAAAAz\n\nthat is all I have",
        "[secret]\n\nthat is all I have",
    );
    keeps("-----BEGIN PUBLIC KEY-----\nQk9HVVMtcHVibGljLWtleS1ib2R5Lg==\n-----END PUBLIC KEY-----");
    keeps("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----");
}
