//! Lessons the assistant marks in a reply, and masking the secrets they may carry.
//!
//! A lesson is a line starting `remember:` (any case, after optional list markers) or the text
//! of a `<remember>...</remember>` block. Before one is stored, anything that looks like a
//! secret is replaced by `[secret]`: private key blocks, bearer headers, well-known token shapes
//! (`ghp_`, `github_pat_`, `sk-`, `xox?-`, `AKIA`, JWTs), and the values of assignments whose
//! name says secret (`DB_PASSWORD=...`, `api_key: ...`).

/// The lessons marked in `message`, in order, trimmed, empty ones dropped.
pub fn marked(message: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = message;
    while let Some(start) = rest.find("<remember>") {
        let after = &rest[start + "<remember>".len()..];
        let Some(end) = after.find("</remember>") else {
            break;
        };
        found.push(after[..end].trim().to_owned());
        rest = &after[end + "</remember>".len()..];
    }
    for line in message.lines() {
        let line = line.trim_start_matches(|c: char| c.is_whitespace() || "-*>".contains(c));
        let lower = line.get(..9).map(str::to_ascii_lowercase);
        if lower.as_deref() == Some("remember:") {
            found.push(line[9..].trim().to_owned());
        }
    }
    found.retain(|l| !l.is_empty());
    found
}

const MASK: &str = "[secret]";
/// Token shapes that are secrets whatever surrounds them.
const TOKEN_PREFIXES: &[&str] = &[
    "ghp_",
    "gho_",
    "ghs_",
    "ghu_",
    "github_pat_",
    "sk-",
    "sk_live_",
    "rk_live_",
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "glpat-",
    "AKIA",
    "ASIA",
    "AIza",
];
/// Names whose assigned value is a secret.
const SECRET_NAMES: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "secret",
    "token",
    "api_key",
    "apikey",
    "private_key",
    "access_key",
    "auth",
];

/// `text` with secrets replaced by `[secret]`.
pub fn mask_secrets(text: &str) -> String {
    let text = mask_key_blocks(text);
    let mut out = String::with_capacity(text.len());
    let mut mask_next = false;
    for piece in text.split_inclusive(char::is_whitespace) {
        let word = piece.trim_end();
        let gap = &piece[word.len()..];
        let bare = word.trim_matches(|c: char| "\"'`,;()".contains(c));
        let scheme = bare.eq_ignore_ascii_case("bearer") || bare.eq_ignore_ascii_case("basic");
        if mask_next && !bare.is_empty() && !scheme {
            out.push_str(MASK);
            out.push_str(gap);
            mask_next = false;
            continue;
        }
        if scheme {
            out.push_str(piece);
            mask_next = true;
            continue;
        }
        match assignment(bare) {
            Some((name, value)) if secret_name(name) => {
                if value.is_empty() {
                    out.push_str(piece);
                    mask_next = true;
                } else {
                    out.push_str(&word[..word.len() - value.len()]);
                    out.push_str(MASK);
                    out.push_str(gap);
                }
                continue;
            }
            _ => {}
        }
        if looks_like_token(bare) {
            out.push_str(MASK);
            out.push_str(gap);
        } else {
            out.push_str(piece);
        }
    }
    out
}

/// `NAME=value`, `NAME: value` (value may be empty when it is the next word).
fn assignment(word: &str) -> Option<(&str, &str)> {
    let at = word.find(['=', ':'])?;
    let (name, value) = (&word[..at], &word[at + 1..]);
    let value = value.trim_matches(|c: char| "\"'".contains(c));
    (!name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-'))
    .then_some((name, value))
}

fn secret_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    SECRET_NAMES.iter().any(|s| lower.contains(s))
}

fn looks_like_token(word: &str) -> bool {
    let prefixed = TOKEN_PREFIXES
        .iter()
        .any(|p| word.starts_with(p) && word.len() >= p.len() + 12);
    let jwt = word.starts_with("eyJ") && word.matches('.').count() == 2 && word.len() > 30;
    prefixed || jwt
}

/// Replace `-----BEGIN ... PRIVATE KEY----- ... -----END ... PRIVATE KEY-----`.
fn mask_key_blocks(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("-----BEGIN") {
        let header_end = rest[start..]
            .find("-----\n")
            .or(rest[start + 10..].find("-----").map(|e| e + 10));
        let is_key = rest[start..]
            .lines()
            .next()
            .is_some_and(|l| l.contains("PRIVATE KEY"));
        let Some(_) = header_end.filter(|_| is_key) else {
            out.push_str(&rest[..start + 10]);
            rest = &rest[start + 10..];
            continue;
        };
        out.push_str(&rest[..start]);
        out.push_str(MASK);
        match rest[start..].find("-----END") {
            Some(end) => {
                let tail = &rest[start + end..];
                let close = tail[8..].find("-----").map_or(tail.len(), |c| c + 13);
                rest = &tail[close..];
            }
            None => rest = "",
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_marked_lessons() {
        let reply = "Done.\nremember: Run migrations with `make migrate`\n- Remember: pool is 20\n\
                     <remember>Staging deploys\nneed approval</remember>\nnot remember: this";
        assert_eq!(
            marked(reply),
            [
                "Staging deploys\nneed approval",
                "Run migrations with `make migrate`",
                "pool is 20"
            ]
        );
    }

    #[test]
    fn masks_secrets() {
        let text = "DB_PASSWORD=hunter2 and api_key: abc123 header Authorization: Bearer \
                    abcdef.ghijk token ghp_0123456789abcdefghij ok";
        let masked = mask_secrets(text);
        for secret in [
            "hunter2",
            "abc123",
            "abcdef.ghijk",
            "ghp_0123456789abcdefghij",
        ] {
            assert!(!masked.contains(secret), "{masked}");
        }
        assert!(masked.contains("DB_PASSWORD=[secret]") && masked.contains("ok"));
        let key = "key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----\ndone";
        let masked = mask_secrets(key);
        assert!(
            !masked.contains("b3BlbnNzaC1rZXk") && masked.contains("done"),
            "{masked}"
        );
        assert_eq!(mask_secrets("pool size is 20"), "pool size is 20");
    }
}
