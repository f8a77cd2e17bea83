//! Secrets recognised by their own shape: vendor tokens (a prefix, an alphabet and a length),
//! a few prefix-less shapes (JWTs, Mailchimp, Mailgun and DeepL keys, Telegram bot tokens; their
//! matchers live in [`shapes`]) and password hashes; and ids that announce the secret after them (an AWS key id and its secret
//! key, a Twilio account SID and its auth token).
//!
//! To add a vendor format, add one line to [`RULES`].

#![deny(clippy::string_slice, clippy::indexing_slicing)]

mod shapes;

use std::sync::OnceLock;

use super::{at, before, Span};
use shapes::{base64_pem, deepl, discord, jwt, mailchimp, mailgun, telegram};

/// Which bytes a token body is made of.
#[derive(Clone, Copy, Debug)]
pub(super) enum Alphabet {
    /// `A-Za-z0-9`
    Alnum,
    /// `A-Z0-9`
    Upper,
    /// `0-9a-f`
    Hex,
    /// `0-9a-fA-F`
    AnyHex,
    /// `A-Za-z0-9_-` (base64url)
    Url,
    /// `A-Za-z0-9_-.`
    UrlDot,
    /// `A-Za-z0-9-`
    AlnumDash,
    /// `A-Za-z0-9_`
    Word,
    /// `A-Za-z0-9+/=` (base64)
    Base64,
    /// `A-Za-z0-9+/=_-` (either base64)
    AnyBase64,
    /// `A-Za-z0-9/` (URL path segments)
    Path,
    /// `A-Za-z0-9/_-` (URL path segments)
    UrlPath,
    /// `A-Za-z0-9./$` (crypt(3) hashes)
    Crypt,
    /// `A-Za-z0-9$,=+/.-` (PHC strings: `$argon2id$v=19$m=...`)
    Phc,
}

impl Alphabet {
    fn has(self, b: u8) -> bool {
        let alnum = b.is_ascii_alphanumeric();
        match self {
            Alphabet::Alnum => alnum,
            Alphabet::Upper => b.is_ascii_uppercase() || b.is_ascii_digit(),
            Alphabet::Hex => b.is_ascii_digit() || (b'a'..=b'f').contains(&b),
            Alphabet::AnyHex => b.is_ascii_hexdigit(),
            Alphabet::Url => alnum || b == b'_' || b == b'-',
            Alphabet::UrlDot => alnum || matches!(b, b'_' | b'-' | b'.'),
            Alphabet::AlnumDash => alnum || b == b'-',
            Alphabet::Word => alnum || b == b'_',
            Alphabet::Base64 => alnum || matches!(b, b'+' | b'/' | b'='),
            Alphabet::AnyBase64 => alnum || matches!(b, b'+' | b'/' | b'=' | b'_' | b'-'),
            Alphabet::Path => alnum || b == b'/',
            Alphabet::UrlPath => alnum || matches!(b, b'/' | b'_' | b'-'),
            Alphabet::Crypt => alnum || matches!(b, b'.' | b'/' | b'$'),
            Alphabet::Phc => alnum || matches!(b, b'$' | b',' | b'=' | b'+' | b'/' | b'.' | b'-'),
        }
    }
}

/// How a token continues after its prefix.
#[derive(Clone, Copy)]
pub(super) enum Body {
    /// `min..=max` bytes of the alphabet, and then no letter or digit.
    Chars(Alphabet, usize, usize),
    /// A matcher given the bytes from the token's start: the token's length, if it is one.
    Shape(fn(&[u8]) -> Option<usize>),
}

/// One token format.
#[derive(Clone, Copy)]
pub(super) struct Rule {
    pub kind: &'static str,
    /// Case-sensitive; empty for shapes tried at every word start.
    pub prefix: &'static str,
    pub body: Body,
}

const fn r(kind: &'static str, prefix: &'static str, a: Alphabet, min: usize, max: usize) -> Rule {
    Rule {
        kind,
        prefix,
        body: Body::Chars(a, min, max),
    }
}

const fn shape(kind: &'static str, prefix: &'static str, f: fn(&[u8]) -> Option<usize>) -> Rule {
    Rule {
        kind,
        prefix,
        body: Body::Shape(f),
    }
}

use Alphabet::*;

const ANY: usize = 4096;

/// Vendor tokens: one line per format. Kind, prefix (case-sensitive), alphabet of the body,
/// and its least and greatest length.
#[rustfmt::skip]
pub(super) const RULES: &[Rule] = &[
    // Cloud providers
    r("aws access key", "AKIA", Upper, 16, 16),
    r("aws access key", "ASIA", Upper, 16, 16),
    r("aws access key", "ABIA", Upper, 16, 16),
    r("aws access key", "ACCA", Upper, 16, 16),
    r("aws access key", "AGPA", Upper, 16, 16),
    r("aws access key", "AIDA", Upper, 16, 16),
    r("aws access key", "AIPA", Upper, 16, 16),
    r("aws access key", "ANPA", Upper, 16, 16),
    r("aws access key", "ANVA", Upper, 16, 16),
    r("aws access key", "AROA", Upper, 16, 16),
    r("aws access key", "APKA", Upper, 16, 16),
    r("google api key", "AIza", Url, 35, 35),
    r("google oauth secret", "GOCSPX-", Url, 24, 40),
    r("google oauth token", "ya29.", UrlDot, 20, ANY),
    r("digitalocean token", "dop_v1_", Hex, 64, 64),
    r("digitalocean token", "doo_v1_", Hex, 64, 64),
    r("digitalocean token", "dor_v1_", Hex, 64, 64),
    r("heroku key", "HRKU-", Url, 30, 100),
    r("vault token", "hvs.", Url, 24, ANY),
    r("vault token", "hvb.", Url, 24, ANY),
    r("databricks token", "dapi", Hex, 32, 32),
    r("doppler token", "dp.pt.", Alnum, 40, 60),
    r("tailscale key", "tskey-", AlnumDash, 20, 100),
    r("age secret key", "AGE-SECRET-KEY-1", Upper, 50, 70),
    r("bip32 private key", "xprv", Alnum, 100, 112),
    r("bip32 private key", "yprv", Alnum, 100, 112),
    r("bip32 private key", "zprv", Alnum, 100, 112),
    r("bip32 private key", "tprv", Alnum, 100, 112),
    r("nostr private key", "nsec1", Alnum, 50, 70),
    // Source forges and registries
    r("github token", "ghp_", Alnum, 30, 255),
    r("github token", "gho_", Alnum, 30, 255),
    r("github token", "ghu_", Alnum, 30, 255),
    r("github token", "ghs_", Alnum, 30, 255),
    r("github token", "ghr_", Alnum, 30, 255),
    r("github token", "github_pat_", Word, 40, 255),
    r("gitlab token", "glpat-", Url, 20, 100),
    r("gitlab token", "glrt-", Url, 20, 100),
    r("gitlab token", "glrtr-", Url, 20, 100),
    r("gitlab token", "gldt-", Url, 20, 100),
    r("gitlab token", "glptt-", Url, 20, 100),
    r("gitlab token", "glft-", Url, 20, 100),
    r("gitlab token", "glsoat-", Url, 20, 100),
    r("gitlab token", "glcbt-", Url, 20, 100),
    r("gitlab token", "glimt-", Url, 20, 100),
    r("gitlab token", "GR1348941", Url, 20, 100),
    r("npm token", "npm_", Alnum, 36, 36),
    r("pypi token", "pypi-", Url, 50, ANY),
    r("huggingface token", "hf_", Alnum, 30, 100),
    r("huggingface token", "api_org_", Alnum, 30, 100),
    r("sonar token", "sqp_", Hex, 40, 40),
    r("sonar token", "squ_", Hex, 40, 40),
    r("sonar token", "sqa_", Hex, 40, 40),
    r("postman key", "PMAK-", AlnumDash, 50, 70),
    r("atlassian token", "ATATT3", AnyBase64, 100, ANY),
    r("buildkite token", "bkua_", Hex, 40, 40),
    r("sentry token", "sntrys_", AnyBase64, 50, ANY),
    r("sentry token", "sntryu_", Hex, 64, 64),
    r("new relic key", "NRAK-", Upper, 27, 27),
    r("grafana token", "glsa_", Word, 32, 100),
    r("grafana token", "glc_", AnyBase64, 32, ANY),
    // Payments, messaging, mail
    r("stripe key", "sk_live_", Alnum, 16, 255),
    r("stripe key", "sk_test_", Alnum, 16, 255),
    r("stripe key", "rk_live_", Alnum, 16, 255),
    r("stripe key", "rk_test_", Alnum, 16, 255),
    r("stripe webhook secret", "whsec_", AnyBase64, 24, 100),
    r("square token", "sq0atp-", Url, 22, 100),
    r("square token", "sq0csp-", Url, 40, 100),
    r("shopify token", "shpat_", AnyHex, 32, 32),
    r("shopify token", "shpca_", AnyHex, 32, 32),
    r("shopify token", "shppa_", AnyHex, 32, 32),
    r("shopify token", "shpss_", AnyHex, 32, 32),
    r("slack token", "xoxb-", AlnumDash, 20, 255),
    r("slack token", "xoxp-", AlnumDash, 20, 255),
    r("slack token", "xoxa-", AlnumDash, 20, 255),
    r("slack token", "xoxr-", AlnumDash, 20, 255),
    r("slack token", "xoxs-", AlnumDash, 20, 255),
    r("slack token", "xoxe-", AlnumDash, 20, 255),
    r("slack token", "xoxe.xoxp-", AlnumDash, 20, 255),
    r("slack token", "xapp-", AlnumDash, 20, 255),
    r("slack webhook", "https://hooks.slack.com/services/", Path, 20, 200),
    r("slack webhook", "https://hooks.slack.com/workflows/", Path, 20, 200),
    r("slack webhook", "https://hooks.slack.com/triggers/", Path, 20, 200),
    r("discord webhook", "https://discord.com/api/webhooks/", UrlPath, 40, 200),
    r("discord webhook", "https://discordapp.com/api/webhooks/", UrlPath, 40, 200),
    r("sendgrid key", "SG.", UrlDot, 60, 80),
    r("twilio key", "SK", AnyHex, 32, 32),
    r("mailgun key", "key-", Hex, 32, 32),
    // AI providers
    r("anthropic key", "sk-ant-", Url, 32, ANY),
    r("openai key", "sk-proj-", Url, 40, ANY),
    r("openai key", "sk-svcacct-", Url, 40, ANY),
    r("openai key", "sk-admin-", Url, 40, ANY),
    r("openai key", "sk-", Alnum, 32, 255),
    r("groq key", "gsk_", Alnum, 40, 100),
    r("replicate token", "r8_", Alnum, 30, 100),
    r("perplexity key", "pplx-", Alnum, 40, 100),
    r("xai key", "xai-", Alnum, 40, 120),
    // Productivity and hosting
    r("linear key", "lin_api_", Alnum, 32, 64),
    r("notion token", "ntn_", Alnum, 40, 60),
    r("notion token", "secret_", Alnum, 43, 43),
    r("figma token", "figd_", Url, 30, 100),
    r("netlify token", "nfp_", Alnum, 30, 100),
    r("supabase token", "sbp_", Hex, 40, 40),
    r("planetscale token", "pscale_tkn_", Url, 30, 100),
    r("planetscale password", "pscale_pw_", Url, 30, 100),
    r("fly token", "fo1_", Url, 30, 100),
    r("mapbox secret token", "sk.eyJ", UrlDot, 50, ANY),
    r("dynatrace token", "dt0c01.", UrlDot, 80, 100),
    r("doppler token", "dp.st.", UrlDot, 40, 100),
    r("pulumi token", "pul-", Hex, 40, 40),
    r("docker hub token", "dckr_pat_", Url, 20, 100),
    r("docker swarm token", "SWMTKN-1-", AlnumDash, 60, 120),
    r("rubygems key", "rubygems_", Hex, 48, 48),
    r("brevo key", "xkeysib-", AlnumDash, 70, 100),
    // Password hashes (htpasswd, shadow): crackable, so as sensitive as the password
    r("password hash", "$apr1$", Crypt, 20, 200),
    r("password hash", "$2a$", Crypt, 50, 60),
    r("password hash", "$2b$", Crypt, 50, 60),
    r("password hash", "$2y$", Crypt, 50, 60),
    r("password hash", "$5$", Crypt, 40, 200),
    r("password hash", "$6$", Crypt, 80, 200),
    r("password hash", "$argon2", Phc, 40, 300),
    r("password hash", "$1$", Crypt, 20, 60),
    r("password hash", "$y$", Crypt, 40, 200),
    r("password hash", "$gy$", Crypt, 40, 200),
    // Mosquitto's `$7$<iterations>$<salt>$<hash>` (PBKDF2-SHA512)
    r("password hash", "$7$", Phc, 40, 300),
    r("password hash", "{SSHA}", Base64, 20, 100),
    r("password hash", "{SHA}", Base64, 20, 100),
    // Shapes without a prefix of their own
    shape("jwt", "eyJ", jwt),
    shape("mailchimp key", "", mailchimp),
    shape("mailgun key", "", mailgun),
    shape("telegram bot token", "", telegram),
    shape("deepl key", "", deepl),
    // Discord bot tokens: the bot's id in base64 (its first digit gives the prefix), a
    // timestamp and an HMAC
    shape("discord bot token", "MT", discord),
    shape("discord bot token", "Mj", discord),
    shape("discord bot token", "Mz", discord),
    shape("discord bot token", "ND", discord),
    shape("discord bot token", "NT", discord),
    shape("discord bot token", "Nj", discord),
    shape("discord bot token", "Nz", discord),
    shape("discord bot token", "OD", discord),
    shape("discord bot token", "OT", discord),
    // a PEM private key in base64 (kubeconfig `client-key-data`, Helm values): `-----BEGIN `
    // encodes to `LS0tLS1CRUdJTi`
    shape("private key", "LS0tLS1CRUdJTi", base64_pem),
];

/// Ids that announce a secret: the value a word or two after one on the same line is its
/// secret (`AKIA... <secret key>`, `Client("AC...", "<auth token>")`). The id itself is masked
/// only if [`RULES`] say so (an AWS key id is; a Twilio account SID is not).
#[rustfmt::skip]
const ANNOUNCERS: &[(Rule, &str)] = &[
    (r("", "AKIA", Upper, 16, 16), "aws secret key"),
    (r("", "ASIA", Upper, 16, 16), "aws secret key"),
    (r("", "AC", Hex, 32, 32), "twilio auth token"),
    (r("", "SK", AnyHex, 32, 32), "twilio api secret"),
];

/// How far before a value `Twilio` may name it.
const TWILIO_BEFORE: usize = 160;

/// Whether the word `twilio` (any case) comes before `s` on its line, at most
/// [`TWILIO_BEFORE`] bytes back.
fn twilio_before(b: &[u8], s: usize) -> bool {
    let from = s.saturating_sub(TWILIO_BEFORE);
    let line = b.get(from..s).unwrap_or_default();
    let line = match line.iter().rposition(|&c| c == b'\n') {
        Some(n) => line.get(n + 1..).unwrap_or_default(),
        None => line,
    };
    line.windows(6).any(|w| w.eq_ignore_ascii_case(b"twilio"))
}

/// The secret after an announcing id: among the next few words on the line, the first that
/// passes [`super::value::keyed`] and is at least 16 characters.
fn companion(text: &str, from: usize, kind: &'static str, spans: &mut Vec<Span>) {
    let b = text.as_bytes();
    let gap = |c: u8| {
        matches!(
            c,
            b' ' | b'\t' | b'"' | b'\'' | b',' | b'/' | b'`' | b':' | b'('
        )
    };
    let end = |c: u8| {
        matches!(
            c,
            0 | b' ' | b'\t' | b'\n' | b'\r' | b'"' | b'\'' | b',' | b')' | b'`'
        )
    };
    let mut i = from;
    for _ in 0..3 {
        while gap(at(b, i)) {
            i += 1;
        }
        let s = i;
        while !end(at(b, i)) && i - s <= 256 {
            i += 1;
        }
        if i == s {
            return;
        }
        if let Some(v) = text.get(s..i) {
            if v.chars().count() >= 16 && super::value::keyed(v) {
                spans.push(Span::new(s, i, kind, 1));
                return;
            }
        }
    }
}

/// Rules by the first byte of their prefix (prefix-less shapes under every byte), and which
/// first two bytes can start any token at all.
struct Index {
    by_byte: Vec<Vec<u8>>,
    /// 65536 bits: the first two bytes of a prefix (any two lowercase hex digits for shapes).
    pairs: Vec<u64>,
}

impl Index {
    fn pair(&self, a: u8, b: u8) -> bool {
        let k = usize::from(a) << 8 | usize::from(b);
        self.pairs
            .get(k >> 6)
            .is_some_and(|w| w >> (k & 63) & 1 == 1)
    }

    fn set(&mut self, a: u8, b: u8) {
        let k = usize::from(a) << 8 | usize::from(b);
        if let Some(w) = self.pairs.get_mut(k >> 6) {
            *w |= 1 << (k & 63);
        }
    }
}

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut index = Index {
            by_byte: vec![Vec::new(); 256],
            pairs: vec![0; 1024],
        };
        let hex = b"0123456789abcdef";
        for (i, rule) in RULES.iter().enumerate() {
            let i = u8::try_from(i).unwrap_or(u8::MAX);
            match *rule.prefix.as_bytes() {
                [a, b, ..] => {
                    index.set(a, b);
                    if let Some(list) = index.by_byte.get_mut(usize::from(a)) {
                        list.push(i);
                    }
                }
                _ => {
                    for &a in hex {
                        for &b in hex {
                            index.set(a, b);
                        }
                        if let Some(list) = index.by_byte.get_mut(usize::from(a)) {
                            list.push(i);
                        }
                    }
                }
            }
        }
        index
    })
}

/// The length of the token at the start of `rest` under `rule`, if it is one.
fn matches(rule: &Rule, rest: &[u8]) -> Option<usize> {
    let prefix = rule.prefix.as_bytes();
    // (byte by byte: prefixes are short, and most differ at the second byte)
    if rest.len() < prefix.len() || prefix.iter().zip(rest).any(|(p, r)| p != r) {
        return None;
    }
    match rule.body {
        Body::Shape(f) => f(rest),
        Body::Chars(alphabet, min, max) => {
            let body = rest.get(prefix.len()..).unwrap_or_default();
            let n = body
                .iter()
                .take(max.saturating_add(1))
                .take_while(|&&b| alphabet.has(b))
                .count();
            let end = at(body, n);
            if n < min || n > max || end.is_ascii_alphanumeric() {
                return None;
            }
            // a placeholder (`ghp_xxxx...`, `sk_test_0000...`) is not a token
            let taken = body.get(..n).unwrap_or_default();
            if super::value::entropy(taken) < 2.5 || super::value::placeholder(taken) {
                return None;
            }
            Some(prefix.len() + n)
        }
    }
}

/// The longest vendor token starting at `i`, if any.
fn token_at(b: &[u8], i: usize) -> Option<(usize, &'static str)> {
    let index = index();
    let c = at(b, i);
    if !index.pair(c, at(b, i + 1)) {
        return None;
    }
    let rest = b.get(i..)?;
    let mut best: Option<(usize, &'static str)> = None;
    for &r in index
        .by_byte
        .get(usize::from(c))
        .map_or(&[][..], Vec::as_slice)
    {
        let Some(rule) = RULES.get(usize::from(r)) else {
            continue;
        };
        if rule
            .prefix
            .as_bytes()
            .get(1)
            .is_some_and(|&p| p != at(b, i + 1))
        {
            continue;
        }
        if let Some(n) = matches(rule, rest) {
            if best.is_none_or(|(m, _)| n > m) {
                best = Some((n, rule.kind));
            }
        }
    }
    best
}

/// How many word starts inside one run are tried as tokens.
const INNER_TRIES: usize = 16;

/// Vendor tokens and shaped secrets starting in the run `s..e` (see [`super::walk`]): at its
/// start, after a `$` or `{` before it (password hashes), and at each word start inside it
/// (after `-` or `.`). Every token is at least 20 bytes, so a shorter run is only looked at
/// when the token may go on past it (`https:`, `123:AA...`, base64 with `+/=`). Returns the
/// end of a token found, which the walk skips.
#[inline]
pub(super) fn in_run(text: &str, s: usize, e: usize, spans: &mut Vec<Span>) -> Option<usize> {
    let b = text.as_bytes();
    let long = e - s >= 16;
    if !long
        && !matches!(before(b, s), b'$' | b'{')
        && !matches!(at(b, e), b':' | b'+' | b'/' | b'=' | b'$')
    {
        return None;
    }
    tokens_in_run(text, s, e, spans)
}

#[inline(never)]
fn tokens_in_run(text: &str, s: usize, e: usize, spans: &mut Vec<Span>) -> Option<usize> {
    let b = text.as_bytes();
    let long = e - s >= 16;
    let mut found = None;
    if matches!(before(b, s), b'$' | b'{') {
        found = token_at(b, s - 1).map(|(n, kind)| (s - 1, n, kind));
    }
    if found.is_none() && (long || matches!(at(b, e), b':' | b'+' | b'/' | b'=' | b'$')) {
        found = token_at(b, s).map(|(n, kind)| (s, n, kind));
    }
    // a Telegram token in the Bot API's path: `/bot123456789:AA...`
    if found.is_none() && b.get(s..s + 3) == Some(b"bot") && at(b, s + 3).is_ascii_digit() {
        found = token_at(b, s + 3).map(|(n, kind)| (s + 3, n, kind));
    }
    if found.is_none() && long {
        let run = b.get(s..e)?;
        let index = index();
        // (a few word starts that may begin a token: each try may read to the end of the run,
        // so a run of many, `eyJ-eyJ-...`, is not read again and again)
        found = run
            .iter()
            .enumerate()
            .filter(|&(k, &c)| {
                k > 0
                    && c.is_ascii_alphanumeric()
                    && matches!(at(run, k - 1), b'-' | b'.')
                    && index.pair(c, at(run, k + 1))
            })
            .take(INNER_TRIES)
            .find_map(|(k, _)| token_at(b, s + k).map(|(n, kind)| (s + k, n, kind)));
    }
    // a Twilio auth token is 32 hex digits; `Twilio` before it on its line names it
    // (`Twilio.init(ACCOUNT_SID, "<hex>")`)
    if found.is_none() && e - s == 32 && twilio_before(b, s) {
        let hex = b.get(s..e)?;
        if hex
            .iter()
            .all(|c| c.is_ascii_digit() || matches!(c, b'a'..=b'f'))
        {
            found = Some((s, 32, "twilio auth token"));
        }
    }
    let rest = b.get(s..).unwrap_or_default();
    for (rule, kind) in ANNOUNCERS {
        if let Some(n) = matches(rule, rest) {
            companion(text, s + n, kind, spans);
        }
    }
    let (start, n, kind) = found?;
    spans.push(Span::new(start, start + n, kind, 0));
    Some(start + n)
}
