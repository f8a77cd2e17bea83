//! The matchers of token shapes without a vendor prefix of their own (see [`super::RULES`]):
//! each is given the bytes from where a token may start and returns its length if it is one.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use crate::secrets::at;

fn run(b: &[u8], from: usize, f: impl Fn(u8) -> bool) -> usize {
    b.get(from..)
        .unwrap_or_default()
        .iter()
        .take_while(|&&c| f(c))
        .count()
}

fn url64(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-'
}

fn lower_hex(c: u8) -> bool {
    c.is_ascii_digit() || (b'a'..=b'f').contains(&c)
}

/// `eyJ<header>.<payload>.<signature>`, base64url parts (a JWE has five).
pub(super) fn jwt(b: &[u8]) -> Option<usize> {
    let header = run(b, 0, url64);
    if header < 10 || at(b, header) != b'.' {
        return None;
    }
    let mut end = header;
    let mut parts = 1;
    while at(b, end) == b'.' && parts < 5 {
        let n = run(b, end + 1, url64);
        if parts == 1 && n < 10 {
            return None;
        }
        if n == 0 && parts >= 3 {
            break;
        }
        end += 1 + n;
        parts += 1;
    }
    (parts >= 3 && !at(b, end).is_ascii_alphanumeric()).then_some(end)
}

/// 32 hex digits, `-us`, a data centre number.
pub(super) fn mailchimp(b: &[u8]) -> Option<usize> {
    if at(b, 32) != b'-' || run(b, 0, lower_hex) != 32 || b.get(32..35) != Some(b"-us") {
        return None;
    }
    let n = run(b, 35, |c| c.is_ascii_digit());
    let end = 35 + n;
    ((1..=2).contains(&n) && !at(b, end).is_ascii_alphanumeric()).then_some(end)
}

/// 32, 8 and 8 hex digits joined by dashes.
pub(super) fn mailgun(b: &[u8]) -> Option<usize> {
    if at(b, 32) != b'-'
        || run(b, 0, lower_hex) != 32
        || at(b, 32) != b'-'
        || run(b, 33, lower_hex) != 8
    {
        return None;
    }
    (at(b, 41) == b'-' && run(b, 42, lower_hex) == 8 && !url64(at(b, 50))).then_some(50)
}

/// A DeepL API key of the free plan: a UUID of lowercase hex digits, then `:fx`.
pub(super) fn deepl(b: &[u8]) -> Option<usize> {
    let mut i = 0;
    for (k, n) in [8, 4, 4, 4, 12].into_iter().enumerate() {
        if k > 0 {
            if at(b, i) != b'-' {
                return None;
            }
            i += 1;
        }
        if run(b, i, lower_hex) != n {
            return None;
        }
        i += n;
    }
    let end = i + 3;
    (b.get(i..end) == Some(b":fx") && !url64(at(b, end))).then_some(end)
}

/// A bot id, a colon, `AA` and about 33 base64url characters.
pub(super) fn telegram(b: &[u8]) -> Option<usize> {
    if !at(b, 8).is_ascii_digit() {
        return None;
    }
    let id = run(b, 0, |c| c.is_ascii_digit());
    if !(8..=10).contains(&id) || at(b, id) != b':' || b.get(id + 1..id + 3) != Some(b"AA") {
        return None;
    }
    let n = run(b, id + 3, url64);
    let end = id + 3 + n;
    ((30..=40).contains(&n) && !at(b, end).is_ascii_alphanumeric()).then_some(end)
}

/// `<bot id in base64>.<6 characters>.<27 to 40 characters>`, base64url parts, the first one
/// decoding to the digits of a Discord id.
pub(super) fn discord(b: &[u8]) -> Option<usize> {
    let id = run(b, 0, url64);
    if !(23..=28).contains(&id) || at(b, id) != b'.' {
        return None;
    }
    let stamp = run(b, id + 1, url64);
    if stamp != 6 || at(b, id + 7) != b'.' {
        return None;
    }
    let mac = run(b, id + 8, url64);
    let end = id + 8 + mac;
    if !(27..=40).contains(&mac) || at(b, end).is_ascii_alphanumeric() || at(b, end) == b'.' {
        return None;
    }
    let digits = decode64(b.get(..id)?, 20)?;
    (digits.len() >= 17 && digits.iter().all(u8::is_ascii_digit)).then_some(end)
}

/// Base64 that decodes to `-----BEGIN ... PRIVATE KEY-----`: the whole run of base64.
pub(super) fn base64_pem(b: &[u8]) -> Option<usize> {
    let base64 = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=');
    // the label first (64 characters), then the run: a run that is not a key is not read
    let head = b.get(..64).filter(|h| h.iter().all(|&c| base64(c)))?;
    let label = decode64(head, 48)?;
    let label = label.get(11..)?;
    let end = label.windows(5).position(|w| w == b"-----")?;
    if !label.get(..end)?.windows(11).any(|w| w == b"PRIVATE KEY") {
        return None;
    }
    Some(run(b, 0, base64))
}

/// The first `max` bytes that `text` (base64, either alphabet, unpadded) decodes to.
fn decode64(text: &[u8], max: usize) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(max);
    let mut acc = 0u32;
    let mut bits = 0;
    for &c in text {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            _ => return None,
        };
        acc = (acc << 6 | u32::from(v)) & 0xff_ffff;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(u8::try_from(acc >> bits & 0xff).unwrap_or(0));
            if out.len() >= max {
                break;
            }
        }
    }
    Some(out)
}
