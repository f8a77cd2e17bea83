//! Passwords that commands take as positional arguments, where no flag or key names them: the
//! command's own syntax says which argument is the password (`htpasswd -b file user pw`,
//! `rabbitmqctl change_password user pw`, `net user name pw /add`, `mc alias set name url
//! access-key secret-key`). A table of such commands, each with the words that select the form
//! and the place of the password among the arguments that are not flags, or on its standard
//! input (`echo pw | sudo -S cmd`, `chpasswd <<< user:pw`).

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::assignments::{parse_arg, stdin_value};
use super::{at, before, value, Span, WordFilter};

/// Which argument is the password.
#[derive(Clone, Copy)]
enum Slot {
    /// The n-th argument that is not a flag, after the subcommand (from 0).
    Nth(usize),
    /// The last argument that is not a flag (a command whose flags may take values first:
    /// `htpasswd -bB -C 12 file user pw`).
    Last,
    /// What the command reads on standard input: piped in, or a here-string.
    Stdin,
    /// `user:password` lines on standard input (`chpasswd`).
    StdinPair,
    /// `user:password` as the n-th argument that is not a flag (HAProxy's `stats auth`).
    NthPair(usize),
}

struct Command {
    name: &'static str,
    /// Words that must follow the name (a subcommand).
    sub: &'static [&'static str],
    /// A flag the form needs: one letter is a short flag, alone or in a cluster (`b` in
    /// `-nb`: take the password from the command line); more is a long flag (`--stdin`).
    flag: Option<&'static str>,
    slot: Slot,
}

const fn c(
    name: &'static str,
    sub: &'static [&'static str],
    flag: Option<&'static str>,
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
    c("htpasswd", &[], Some("b"), Slot::Last),
    c("mosquitto_passwd", &[], Some("b"), Slot::Last),
    // `rabbitmqctl add_user user password`
    c("rabbitmqctl", &["add_user"], None, Slot::Nth(1)),
    c("rabbitmqctl", &["change_password"], None, Slot::Nth(1)),
    c("rabbitmqctl", &["authenticate_user"], None, Slot::Nth(1)),
    // Windows `net user name password /add`
    c("net", &["user"], None, Slot::Nth(1)),
    // MinIO client: `mc alias set name url access-key secret-key`
    c("mc", &["alias", "set"], None, Slot::Nth(3)),
    c("mc", &["config", "host", "add"], None, Slot::Nth(3)),
    // Redis Sentinel's `sentinel auth-pass master-name password`
    c("sentinel", &["auth-pass"], None, Slot::Nth(1)),
    // HAProxy's `stats auth user:password`
    c("stats", &["auth"], None, Slot::NthPair(0)),
    // `wpa_passphrase ssid passphrase`
    c("wpa_passphrase", &[], None, Slot::Nth(1)),
    // unixODBC `isql DSN user password`
    c("isql", &[], None, Slot::Nth(2)),
    // `db2 connect to DB user NAME using password`
    c("db2", &["connect", "to"], None, Slot::Nth(4)),
    // `echo pw | sudo -S cmd`, `echo pw | passwd --stdin user`, `vncpasswd -f <<< pw`
    c("sudo", &[], Some("S"), Slot::Stdin),
    c("passwd", &[], Some("--stdin"), Slot::Stdin),
    c("vncpasswd", &[], Some("f"), Slot::Stdin),
    // `echo token | gh auth login --with-token`
    c("gh", &["auth", "login"], Some("--with-token"), Slot::Stdin),
    // `echo 'user:pw' | chpasswd`
    c("chpasswd", &[], None, Slot::StdinPair),
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
        if let Some(f) = form.flag.map(str::as_bytes) {
            let given = |a: &[u8]| match f {
                [letter] => {
                    a.get(1) != Some(&b'-') && a.get(1..).is_some_and(|r| r.contains(letter))
                }
                long => a == long,
            };
            if !flags().any(given) {
                continue;
            }
        }
        if matches!(form.slot, Slot::Stdin | Slot::StdinPair) {
            stdin(text, s, p, form.slot, spans);
            return;
        }
        let positional: Vec<usize> = (n..args.len())
            .filter(|&k| {
                let a = arg(k);
                a.first() != Some(&b'-') && !switch(a)
            })
            .collect();
        let slot = match form.slot {
            Slot::Nth(k) | Slot::NthPair(k) => positional.get(k),
            Slot::Last if positional.len() >= 2 => positional.last(),
            Slot::Last | Slot::Stdin | Slot::StdinPair => None,
        };
        let Some(&(mut vs, ve)) = slot.and_then(|&k| args.get(k)) else {
            continue;
        };
        if matches!(form.slot, Slot::NthPair(_)) {
            let Some(colon) = text.get(vs..ve).and_then(|a| a.find(':')) else {
                continue;
            };
            vs += colon + 1;
        }
        if text
            .get(vs..ve)
            .is_some_and(|v| value::keyed(v) || value::passphrase(v))
        {
            spans.push(Span::new(vs, ve, "password", 3));
            return;
        }
    }
}

/// The password a command reads on standard input (see [`stdin_value`]), from the command at
/// `s` whose arguments end at `end`: the whole value, or the part after `user:`.
fn stdin(text: &str, s: usize, end: usize, slot: Slot, spans: &mut Vec<Span>) {
    let Some((vs, ve, _)) = stdin_value(text.as_bytes(), s, end) else {
        return;
    };
    let Some(v) = text.get(vs..ve) else {
        return;
    };
    let (vs, v) = match (slot, v.split_once(':')) {
        (Slot::StdinPair, Some((user, pass))) => (vs + user.len() + 1, pass),
        (Slot::StdinPair, None) => return,
        _ => (vs, v),
    };
    if value::keyed(v) {
        spans.push(Span::new(vs, vs + v.len(), "password", 3));
    }
}
