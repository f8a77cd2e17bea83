//! Passwords known by where they stand, with no key before them: what `echo` pipes into a
//! command that reads a password on standard input, and the lines of a credential file named
//! just before them (`/etc/rsyncd.secrets`, an OpenVPN `auth.txt`), and `user/password@host`
//! logins. Commands that take a password by position are rules in `catalogue/synapse.toml`.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::reader::names_secret;
use super::strength::{names_itself, placeholder, score, KEYED, PASSWORD};
use super::{ahead, at, behind, line_around, Span};

/// The shell words of `line` from `from`: (start, end) without their quotes.
fn words(line: &str, from: usize) -> Vec<(usize, usize)> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = from;
    while i < b.len() && out.len() < 16 {
        while b
            .get(i)
            .is_some_and(|c| c.is_ascii_whitespace() || *c == b'`')
        {
            i += 1;
        }
        let q = b.get(i).copied().filter(|c| matches!(c, b'"' | b'\''));
        let s = i + usize::from(q.is_some());
        let mut e = s;
        while b.get(e).is_some_and(|&c| match q {
            Some(q) => c != q,
            None => !c.is_ascii_whitespace() && !matches!(c, b'`' | b')' | b';' | b'|' | b'&'),
        }) {
            e += 1;
        }
        if e == s && q.is_none() {
            break;
        }
        out.push((s, e));
        i = e + usize::from(q.is_some());
    }
    out
}

fn push(line: &str, at: usize, (s, e): (usize, usize), need: u8, spans: &mut Vec<Span>) {
    let v = line.get(s..e).unwrap_or_default();
    let v = v.strip_suffix("\\n").unwrap_or(v);
    if score(v, true) >= need {
        spans.push(Span::new(at + s, at + s + v.len(), "password", 3));
    }
}

/// Every password `echo` or `printf` pipes into a command that reads one on standard input.
pub(super) fn scan(text: &str, spans: &mut Vec<Span>) {
    // `echo X | docker login --password-stdin`, `printf 'X\n' | sudo -S`, `<(echo X)`
    for (at, echo) in text
        .match_indices("echo ")
        .chain(text.match_indices("printf "))
    {
        let (start, line) = line_at(text, at);
        let (head, tail) = line.split_at_checked(at - start).unwrap_or_default();
        // (a command after the pipe that reads a secret: `--password-stdin`, `chpasswd`,
        // `--with-token`, `secret put`, `sudo -S`)
        let piped = tail.split_once('|').is_some_and(|(_, after)| {
            ["stdin", "passw", "token", "secret", "sudo -S"]
                .iter()
                .any(|w| after.contains(w))
        });
        let flag = head
            .trim_end_matches(['=', '<', '(', ' '])
            .rsplit(' ')
            .next()
            .unwrap_or_default();
        let fed = head.ends_with("<(") && names_secret(flag.as_bytes());
        if piped || fed {
            let args = words(line, at - start + echo.len());
            // (not a flag or `printf`'s format; `user:password` for chpasswd)
            let value = args.iter().find(|&&(s, e)| {
                e > s && !line.get(s..e).is_some_and(|w| w.starts_with(['-', '%']))
            });
            if let Some(&(s, e)) = value {
                let user = line
                    .get(s..e)
                    .and_then(|w| w.find(':'))
                    .map_or(0, |c| c + 1);
                push(line, start, (s + user, e), KEYED, spans);
            }
        }
    }
}

/// The line around byte `k` (see `line_around`): where it starts, and its text.
fn line_at(text: &str, k: usize) -> (usize, &str) {
    let (start, end) = line_around(text, k, k);
    (start, text.get(start..end).unwrap_or_default())
}

/// The lines of a credential file named just before them: the code span after its name, the
/// rest of its line after a `:`, or the lines below (to a blank line). Each field that reads
/// as a password there is masked (after a `user:`).
pub(super) fn files(text: &str, spans: &mut Vec<Span>) {
    let b = text.as_bytes();
    let mut i = 0;
    while let Some(k) = b
        .get(i..)
        .and_then(|r| r.iter().position(|&c| c == b'/' || c == b'.'))
    {
        let dot = i + k;
        let e = dot
            + ahead(b, dot, |c| {
                c.is_ascii_alphanumeric() || b"./_-".contains(&c)
            });
        i = e.max(dot + 1);
        let name = b
            .get(..e)
            .unwrap_or_default()
            .rsplit(|c| !(c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-')))
            .next()
            .unwrap_or_default();
        let name = name.strip_suffix(b"s").unwrap_or(name);
        if !name
            .split(|c| matches!(c, b'.' | b'_' | b'-'))
            .any(|w| names_secret(w) || w.eq_ignore_ascii_case(b"auth"))
        {
            continue;
        }
        let rest = text.get(e..).unwrap_or_default();
        let line_end = line_around(text, e, e).1 - e;
        let same = rest.get(..line_end).unwrap_or_default();
        let region = if let Some(open) = same
            .find('`')
            .filter(|&o| same.get(..o).is_some_and(|h| !h.contains('`')))
        {
            let inner = same.get(open + 1..).unwrap_or_default();
            let close = inner.find('`').unwrap_or(inner.len());
            (e + open + 1, e + open + 1 + close)
        } else if same.trim_start().starts_with(':') && same.trim().len() > 1 {
            (e + same.find(':').unwrap_or(0) + 1, e + line_end)
        } else if same.trim_end().ends_with(':') {
            let below = rest.get(line_end..).unwrap_or_default();
            let para = below.trim_start_matches('\n');
            let len = para.find("\n\n").unwrap_or(para.len()).min(512);
            let s = e + line_end + (below.len() - para.len());
            (s, s + len)
        } else {
            continue;
        };
        let (rs, re) = region;
        // (the first field, or the first line below, is the user's, unless `user:password`)
        let mut at = rs;
        let mut first = true;
        for line in text.get(rs..re).unwrap_or_default().split('\n') {
            if !line.starts_with("```") {
                for (s, e) in words(line, 0) {
                    let w = line.get(s..e).unwrap_or_default();
                    let user = w.rfind(':').filter(|_| !w.contains("://")).map(|c| c + 1);
                    if !std::mem::replace(&mut first, false) || user.is_some() {
                        push(line, at, (s + user.unwrap_or(0), e), PASSWORD, spans);
                    }
                }
            }
            at += line.len() + 1;
        }
        i = i.max(re);
    }
}

/// `user/password@host` (`sqlplus scott/pw@//db:1521/x`, `rman target sys/pw@prod`): the
/// password, if it looks like one (a path or a package, `actions/checkout@v4`, does not); after
/// `@//`, Oracle's connect string, whatever it is.
pub(super) fn logins(text: &str, spans: &mut Vec<Span>) {
    let b = text.as_bytes();
    for (k, _) in text.match_indices('/') {
        let s = k - behind(b, k, |c| c.is_ascii_alphanumeric() || b"_$#".contains(&c));
        if s == k
            || k - s > 64
            || !matches!(
                s.checked_sub(1).map(|p| at(b, p)),
                None | Some(b' ' | b'\t' | b'\n' | b'"' | b'\'' | b':')
            )
        {
            continue;
        }
        let n = ahead(b.get(..k + 130).unwrap_or(b), k + 1, |c| {
            !c.is_ascii_whitespace() && !b"/@\"'`".contains(&c)
        });
        let (user, pass) = (
            text.get(s..k).unwrap_or_default(),
            text.get(k + 1..k + 1 + n),
        );
        let host = at(b, k + 2 + n);
        if n == 0
            || n > 128
            || at(b, k + 1 + n) != b'@'
            || !(host.is_ascii_alphanumeric() || host == b'/')
        {
            continue;
        }
        let connect = host == b'/' && at(b, k + 3 + n) == b'/';
        if let Some(pass) = pass {
            let plain = !pass.starts_with(['$', '<', '{', '[']) && !placeholder(pass.as_bytes());
            if score(pass, false) >= PASSWORD
                || connect && plain && !names_itself(pass) && !pass.eq_ignore_ascii_case(user)
            {
                spans.push(Span::new(k + 1, k + 1 + n, "password", 2));
            }
        }
    }
}
