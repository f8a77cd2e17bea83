//! Keys on a command line: a cluster of short flags ending in `-u` (`curl -su user:pw`), a
//! Windows switch (`cmdkey /pass:pw`), a shell command that sets a variable (`set -x KEY value`,
//! `setenv`), a value piped or given as a here-string to a `--password-stdin` flag, and
//! PowerShell's `ConvertTo-SecureString "pw" -AsPlainText`, and the commands whose flag of one
//! letter always gives a password (`sshpass -p`, `zip -P`). These are the forms where no `=` or
//! `:` ties the value to its key, so the command's own syntax has to.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::parse::{line_begin, line_start, parse_value, spaces};
use crate::secrets::{at, before, keys, value, Span};

/// Commands that run the command after them (`sudo`, `npx`): what follows is a command too.
pub(in crate::secrets) const RUNNERS: &[&str] =
    &["sudo", "doas", "npx", "bunx", "env", "time", "exec"];

/// A cluster of short flags ending in `-u` (`curl -su user:pw`, `-fsSLu`).
#[inline]
pub(in crate::secrets) fn cluster(b: &[u8], s: usize, e: usize) -> bool {
    (3..=7).contains(&(e - s))
        && at(b, s) == b'-'
        && at(b, e - 1) == b'u'
        && b.get(s + 1..e)
            .is_some_and(|f| f.iter().all(u8::is_ascii_alphabetic))
}

/// A Windows switch: `/pass:value` after a space (`cmdkey /pass:pw`, `/p:pw`).
#[inline]
pub(super) fn switch(b: &[u8], s: usize, e: usize) -> bool {
    s > 0
        && before(b, s) == b'/'
        && matches!(before(b, s - 1), 0 | b' ' | b'\t' | b'\n')
        && at(b, e) == b':'
}

/// Commands that set a variable to the words after it: `set -x NAME value` (fish), `setenv`
/// (csh).
const SET_COMMANDS: &[&str] = &["set", "setenv"];

/// Whether a command that sets a variable (and its short flags) comes before `s`: at the line's
/// start (`set -x NAME value`), or as the subcommand of one or two words that start it (`aws
/// configure set NAME value`, `npm config set NAME value`).
pub(super) fn after_setter(b: &[u8], s: usize) -> bool {
    let mut i = s;
    // flags: `-x`, `-gx` (a few)
    for _ in 0..4 {
        let Some((ws, we)) = word_before(b, i, 16, |c| c.is_ascii_alphanumeric()) else {
            return false;
        };
        let word = b.get(ws..we).unwrap_or_default();
        i = ws;
        if before(b, i) == b'-' && !word.is_empty() {
            i -= 1;
            continue;
        }
        return !word.is_empty()
            && keys::is(word, SET_COMMANDS)
            && (line_start(b, i) || command_words_before(b, i));
    }
    false
}

/// The word of at most `max` bytes of what `accept`s before `i`, past at least one space or tab
/// (`None` when no space comes first), as `start..end`; empty when the spaces follow something
/// else.
fn word_before(
    b: &[u8],
    mut i: usize,
    max: usize,
    accept: impl Fn(u8) -> bool,
) -> Option<(usize, usize)> {
    let e = i;
    while i > 0 && matches!(before(b, i), b' ' | b'\t') {
        i -= 1;
    }
    if i == e {
        return None;
    }
    let we = i;
    while i > 0 && accept(before(b, i)) && we - i < max {
        i -= 1;
    }
    Some((i, we))
}

/// Whether one or two lowercase words (a command and maybe its subcommand) are all there is
/// between the line's start (or a `$ ` prompt) and `i`.
fn command_words_before(b: &[u8], mut i: usize) -> bool {
    let command = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'-' | b'_');
    for _ in 0..2 {
        let Some((ws, _)) = word_before(b, i, 24, command) else {
            return false;
        };
        if !at(b, ws).is_ascii_lowercase() {
            return false;
        }
        i = ws;
        let mut k = i;
        if matches!(before(b, k), b' ') && before(b, k - 1) == b'$' {
            k -= 2;
        }
        if line_start(b, k) {
            return true;
        }
    }
    false
}

/// The file of a key that names one (`--vault-password-file`, ending at `e`) when a process
/// substitution makes it on the line: the value it echoes (`--vault-password-file=<(echo pw)`).
pub(super) fn substituted(
    text: &str,
    e: usize,
    kind: &'static str,
    spans: &mut Vec<Span>,
) -> Option<usize> {
    let b = text.as_bytes();
    let f = if at(b, e) == b'=' {
        e + 1
    } else {
        spaces(b, e)
    };
    let command = [&b"<(echo "[..], b"<(printf '%s' ", b"<(printf \"%s\" "]
        .into_iter()
        .find(|c| b.get(f..f + c.len()) == Some(*c))?;
    let parsed = parse_value(b, spaces(b, f + command.len())).ok()?;
    let v = text.get(parsed.start..parsed.end)?.trim_end_matches(')');
    if value::keyed(v) {
        spans.push(Span::new(parsed.start, parsed.start + v.len(), kind, 3));
    }
    Some(parsed.end)
}

/// A value piped into a command whose flag says it reads it from standard input
/// (`echo 'pw' | docker login --password-stdin`, `... --password-stdin <<< 'pw'`).
pub(super) fn piped(
    text: &str,
    s: usize,
    e: usize,
    kind: &'static str,
    spans: &mut Vec<Span>,
) -> Option<usize> {
    let (vs, ve, here) = stdin_value(text.as_bytes(), s, e)?;
    let v = text.get(vs..ve)?;
    if value::keyed(v) {
        spans.push(Span::new(vs, ve, kind, 3));
    }
    here.then_some(ve)
}

/// What a command reads on standard input, given on its line: a here-string at `after` (past
/// spaces), or the value of an `echo value |` or `printf '%s' value |` before `s` on the line.
/// Returns the value's range and whether it was a here-string.
pub(in crate::secrets) fn stdin_value(
    b: &[u8],
    s: usize,
    after: usize,
) -> Option<(usize, usize, bool)> {
    let h = spaces(b, after);
    if b.get(h..h + 3) == Some(b"<<<") {
        let parsed = parse_value(b, spaces(b, h + 3)).ok()?;
        return Some((parsed.start, parsed.end, true));
    }
    let line = line_begin(b, s, 512);
    let mut i = line;
    while i < s {
        let word_start = i == line || matches!(before(b, i), b' ' | b'\t' | b';' | b'(' | b'&');
        let echo = if !word_start {
            None
        } else if b.get(i..i + 5) == Some(b"echo ") {
            Some(i + 5)
        } else if b.get(i..i + 7) == Some(b"printf ") {
            Some(i + 7)
        } else {
            None
        };
        let Some(mut p) = echo else {
            i += 1;
            continue;
        };
        p = spaces(b, p);
        // `-n`, `-e`, and printf's format
        while at(b, p) == b'-' && at(b, p + 1).is_ascii_alphabetic() && at(b, p + 2) == b' ' {
            p = spaces(b, p + 3);
        }
        if let Some(f) = b.get(p..p + 6) {
            if f.contains(&b'%') && matches!(at(b, p), b'\'' | b'"') {
                if let Ok(fmt) = parse_value(b, p) {
                    p = spaces(b, fmt.end + 1);
                }
            }
        }
        let parsed = parse_value(b, p).ok()?;
        let close = parsed.end + usize::from(parsed.start > p);
        if at(b, spaces(b, close)) != b'|' || close > s {
            return None;
        }
        return Some((parsed.start, parsed.end, false));
    }
    None
}

/// PowerShell's `-AsPlainText` (`ConvertTo-SecureString "pw" -AsPlainText -Force`): the quoted
/// string just before it on the line, or just after it.
pub(super) fn plain_text(text: &str, s: usize, e: usize, spans: &mut Vec<Span>) -> Option<usize> {
    let b = text.as_bytes();
    let mut q = s;
    while q > 0 && matches!(before(b, q), b' ' | b'\t') {
        q -= 1;
    }
    let quote = before(b, q);
    let (vs, ve) = if matches!(quote, b'"' | b'\'') {
        let ve = q - 1;
        let mut vs = ve;
        while vs > 0 && ve - vs <= 256 && !matches!(before(b, vs), b'\n') && before(b, vs) != quote
        {
            vs -= 1;
        }
        if before(b, vs) != quote || vs == ve {
            return None;
        }
        (vs, ve)
    } else {
        let parsed = parse_value(b, spaces(b, e)).ok()?;
        if parsed.start == spaces(b, e) {
            return None;
        }
        (parsed.start, parsed.end)
    };
    let v = text.get(vs..ve)?;
    if value::keyed(v) {
        spans.push(Span::new(vs, ve, "password", 3));
    }
    None
}

/// Commands whose short flag (or Windows switch) of this letter gives a password, whatever the
/// letter means to other commands (`-p` is a port to `ssh`, a parent to `mkdir`): its value
/// then needs only to be a value ([`value::keyed`]) or a passphrase.
#[rustfmt::skip]
const PASSWORD_FLAGS: &[(&str, u8)] = &[
    ("mysql", b'p'), ("mysqladmin", b'p'), ("mysqldump", b'p'), ("mysqlimport", b'p'),
    ("mysqlcheck", b'p'), ("mysqlshow", b'p'), ("mariadb", b'p'), ("mariadb-dump", b'p'),
    ("mariadb-admin", b'p'), ("sshpass", b'p'), ("7z", b'p'), ("7za", b'p'), ("7zz", b'p'),
    ("rar", b'p'), ("unrar", b'p'), ("zip", b'P'), ("unzip", b'P'), ("zipcloak", b'P'),
    ("ldapsearch", b'w'), ("ldapadd", b'w'), ("ldapmodify", b'w'), ("ldapdelete", b'w'),
    ("ldappasswd", b'w'), ("ldapwhoami", b'w'), ("ldapmodrdn", b'w'), ("redis-cli", b'a'),
    ("sqlcmd", b'P'), ("bcp", b'P'), ("ipmitool", b'P'), ("mosquitto_pub", b'P'),
    ("mosquitto_sub", b'P'), ("cqlsh", b'p'), ("mongo", b'p'), ("mongosh", b'p'),
    ("mongodump", b'p'), ("mongorestore", b'p'), ("mongoexport", b'p'), ("mongoimport", b'p'),
    ("psexec", b'p'), ("rdesktop", b'p'), ("xfreerdp", b'p'), ("ncftp", b'p'), ("racadm", b'p'),
    ("cypher-shell", b'p'), ("rabbitmqadmin", b'p'), ("oc", b'p'), ("smbpasswd", b'w'),
    ("openssl", b'k'), ("ccrypt", b'K'), ("snmpwalk", b'X'), ("snmpget", b'X'),
    ("snmpgetnext", b'X'), ("snmpset", b'X'), ("snmpbulkwalk", b'X'), ("snmpbulkget", b'X'),
    ("snmptable", b'X'), ("snmptrap", b'X'), ("ssh-keygen", b'N'), ("ssh-keygen", b'P'),
    ("osql", b'P'),
];

/// Whether the command of the segment `s` stands in (after `sudo` or `VAR=value` words) takes a
/// password by the flag `letter` ([`PASSWORD_FLAGS`]).
pub(super) fn password_flag(b: &[u8], s: usize, letter: u8) -> bool {
    password_command(b, s, letter).is_some()
}

/// Commands of [`PASSWORD_FLAGS`] whose password is glued to its flag (`mysql -ppw`, `7z
/// -ppw`): a word after a space is something else (mysql's database, 7z's archive).
const GLUED_ONLY: &[&str] = &[
    "mysql",
    "mysqladmin",
    "mysqldump",
    "mysqlimport",
    "mysqlcheck",
    "mysqlshow",
    "mariadb",
    "mariadb-dump",
    "mariadb-admin",
    "7z",
    "7za",
    "7zz",
    "rar",
    "unrar",
];

/// Whether `command`'s password is glued to its flag ([`GLUED_ONLY`]); for the others, any
/// value after a space or `=` is the password (`ldapsearch -w Sage:2733`).
pub(super) fn glued_only(command: &str) -> bool {
    GLUED_ONLY.contains(&command)
}

/// The command of [`PASSWORD_FLAGS`] that the segment `s` stands in, if its flag `letter`
/// gives a password.
pub(super) fn password_command(b: &[u8], s: usize, letter: u8) -> Option<&'static str> {
    let line = line_begin(b, s, 512);
    let mut i = s;
    while i > line && !matches!(before(b, i), b'|' | b';' | b'&' | b'(' | b'`') {
        i -= 1;
    }
    let mut p = spaces(b, i);
    // past a prompt, a runner (`sudo`, `env`) and assignments before the command
    for _ in 0..4 {
        let n = b
            .get(p..s)
            .unwrap_or_default()
            .iter()
            .take_while(|c| !c.is_ascii_whitespace())
            .count();
        let word = b.get(p..p + n).unwrap_or_default();
        // (and a label: `backup: 7z a -ppw ...`)
        let label = word.ends_with(b":") && p == spaces(b, line) && word.len() > 1;
        let runner = RUNNERS.iter().any(|r| word == r.as_bytes());
        if matches!(word, b"$" | b"#" | b">") || runner || word.contains(&b'=') || label {
            p = spaces(b, p + n);
            continue;
        }
        let name = word.rsplit(|&c| c == b'/').next().unwrap_or_default();
        return PASSWORD_FLAGS
            .iter()
            .find(|&&(c, l)| l == letter && name == c.as_bytes())
            .map(|&(c, _)| c);
    }
    None
}

/// Flags that give a user name (`mysql -u admin`, `psql -U app`, `--username admin`).
const USER_FLAGS: &[&str] = &["-u", "-U", "--user", "--username"];

/// Whether a flag giving a user name stands before `s` in the same command (not before a
/// `|`, `;` or `&`): a `-p` after it gives that user's password (`mongo -u admin -p pw`).
pub(super) fn user_before(b: &[u8], s: usize) -> bool {
    let line = line_begin(b, s, 512);
    let mut i = s;
    while i > line {
        // back over one word
        while i > line && matches!(before(b, i), b' ' | b'\t') {
            i -= 1;
        }
        let e = i;
        while i > line && !matches!(before(b, i), b' ' | b'\t') {
            i -= 1;
        }
        let word = b.get(i..e).unwrap_or_default();
        if word.iter().any(|c| matches!(c, b'|' | b';' | b'&')) {
            return false;
        }
        if USER_FLAGS.iter().any(|f| word == f.as_bytes()) {
            // the flag's value is the word after it, which must not be another flag
            return at(b, spaces(b, e)) != b'-';
        }
    }
    false
}
