//! Passwords that commands take as positional arguments, where no flag or key names them: the
//! command's own syntax says which argument is the password (`htpasswd -b file user pw`,
//! `rabbitmqctl change_password user pw`, `net user name pw /add`, `mc alias set name url
//! access-key secret-key`). A table of such commands, each with the words that select the form
//! and the place of the password among the arguments that are not flags.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::assignments::parse_arg;
use super::{at, before, value, Span, WordFilter};

/// Which argument is the password.
#[derive(Clone, Copy)]
enum Slot {
    /// The n-th argument that is not a flag, after the subcommand (from 0).
    Nth(usize),
    /// The last argument that is not a flag (a command whose flags may take values first:
    /// `htpasswd -bB -C 12 file user pw`).
    Last,
}

struct Command {
    name: &'static str,
    /// Words that must follow the name (a subcommand).
    sub: &'static [&'static str],
    /// A short flag the form needs (`-b`: take the password from the command line).
    flag: Option<u8>,
    slot: Slot,
}

const fn c(
    name: &'static str,
    sub: &'static [&'static str],
    flag: Option<u8>,
    slot: Slot,
) -> Command {
    Command {
        name,
        sub,
        flag,
        slot,
    }
}

/// Commands with a password among their arguments, one line per form.
#[rustfmt::skip]
const COMMANDS: &[Command] = &[
    // `htpasswd -b[B] file user password`, `htpasswd -nb user password`
    c("htpasswd", &[], Some(b'b'), Slot::Last),
    c("mosquitto_passwd", &[], Some(b'b'), Slot::Last),
    // `rabbitmqctl add_user user password`
    c("rabbitmqctl", &["add_user"], None, Slot::Nth(1)),
    c("rabbitmqctl", &["change_password"], None, Slot::Nth(1)),
    c("rabbitmqctl", &["authenticate_user"], None, Slot::Nth(1)),
    // Windows `net user name password /add`
    c("net", &["user"], None, Slot::Nth(1)),
    // MinIO client: `mc alias set name url access-key secret-key`
    c("mc", &["alias", "set"], None, Slot::Nth(3)),
    c("mc", &["config", "host", "add"], None, Slot::Nth(3)),
    // `wpa_passphrase ssid passphrase`
    c("wpa_passphrase", &[], None, Slot::Nth(1)),
];

/// The command names, as a filter (see [`WordFilter`]). Built at compile time: an index out of
/// range would fail the build, not a run.
#[allow(clippy::indexing_slicing)]
pub(super) const FILTER: WordFilter = {
    let mut f = WordFilter::EMPTY;
    let mut i = 0;
    while i < COMMANDS.len() {
        f = f.word(COMMANDS[i].name);
        i += 1;
    }
    f
};

/// The most arguments read after a command.
const MAX_ARGS: usize = 16;

/// Whether `s` is where a command starts: the line's start, or after a prompt (`$`, `#`, `>`),
/// a shell operator (`;`, `|`, `&`, `(`, `` ` ``) or `sudo`.
fn command_position(b: &[u8], s: usize) -> bool {
    let mut i = s;
    while i > 0 && matches!(before(b, i), b' ' | b'\t') {
        i -= 1;
    }
    let c = before(b, i);
    if matches!(
        c,
        0 | b'\n' | b'$' | b'#' | b'>' | b';' | b'|' | b'&' | b'(' | b'`'
    ) {
        return true;
    }
    let e = i;
    while i > 0 && before(b, i).is_ascii_alphabetic() && e - i < 8 {
        i -= 1;
    }
    b.get(i..e) == Some(b"sudo") && command_position(b, i)
}

/// A Windows switch (`/add`, `/domain`, `/active:yes`), not a path (`/etc/nginx/.htpasswd`).
fn switch(arg: &[u8]) -> bool {
    arg.first() == Some(&b'/')
        && arg
            .get(1..)
            .is_some_and(|r| !r.is_empty() && !r.contains(&b'/'))
}

/// The key run `s..e` (see [`super::walk`]): if it names a command of the table where a command
/// starts, the password among its arguments.
pub(super) fn at_command(text: &str, s: usize, e: usize, spans: &mut Vec<Span>) {
    let b = text.as_bytes();
    let name = b.get(s..e).unwrap_or_default();
    let forms = || {
        COMMANDS
            .iter()
            .filter(|c| name.eq_ignore_ascii_case(c.name.as_bytes()))
    };
    if forms().next().is_none() || !command_position(b, s) {
        return;
    }
    // the arguments, up to the end of the command
    let mut args: Vec<(usize, usize)> = Vec::new();
    let mut p = e;
    while args.len() < MAX_ARGS {
        let q = p;
        while matches!(at(b, p), b' ' | b'\t') {
            p += 1;
        }
        if p == q || matches!(at(b, p), 0 | b'\n' | b'\r' | b';' | b'|' | b'&' | b'#') {
            break;
        }
        let Some((start, end, next)) = parse_arg(b, p) else {
            break;
        };
        args.push((start, end));
        p = next;
    }
    let arg = |k: usize| {
        args.get(k)
            .and_then(|&(a, z)| b.get(a..z))
            .unwrap_or_default()
    };
    for form in forms() {
        let n = form.sub.len();
        if (0..n).any(|k| !arg(k).eq_ignore_ascii_case(form.sub.get(k).unwrap_or(&"").as_bytes())) {
            continue;
        }
        let flags = || {
            (n..args.len())
                .map(arg)
                .filter(|a| a.first() == Some(&b'-') || switch(a))
        };
        if let Some(f) = form.flag {
            let short =
                |a: &[u8]| a.get(1) != Some(&b'-') && a.get(1..).is_some_and(|r| r.contains(&f));
            if !flags().any(short) {
                continue;
            }
        }
        let positional: Vec<usize> = (n..args.len())
            .filter(|&k| {
                let a = arg(k);
                a.first() != Some(&b'-') && !switch(a)
            })
            .collect();
        let slot = match form.slot {
            Slot::Nth(k) => positional.get(k),
            Slot::Last if positional.len() >= 2 => positional.last(),
            Slot::Last => None,
        };
        let Some(&(vs, ve)) = slot.and_then(|&k| args.get(k)) else {
            continue;
        };
        if text.get(vs..ve).is_some_and(value::keyed) {
            spans.push(Span::new(vs, ve, "password", 3));
            return;
        }
    }
}
