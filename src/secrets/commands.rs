//! Passwords that commands take as positional arguments, where no flag or key names them: the
//! command's own syntax says which argument is the password (`htpasswd -b file user pw`,
//! `rabbitmqctl change_password user pw`, `net user name pw /add`, `mc alias set name url
//! access-key secret-key`). A table of such commands, each with the words that select the form
//! and the place of the password among the arguments that are not flags, or on its standard
//! input (`echo pw | sudo -S cmd`, `chpasswd <<< user:pw`).

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::assignments::{parse_arg, stdin_value, RUNNERS};
use super::{at, before, value, Span, WordFilter};

/// Which argument is the password.
#[derive(Clone, Copy)]
enum Slot {
    /// The n-th argument that is not a flag, after the subcommand (from 0).
    Nth(usize),
    /// The last argument that is not a flag (a command whose flags may take values first:
    /// `htpasswd -bB -C 12 file user pw`), if there are two or more.
    Last,
    /// The last argument that is not a flag, even alone (Redis's `AUTH [user] pw`).
    Final,
    /// What the command reads on standard input: piped in, or a here-string.
    Stdin,
    /// `user:password` lines on standard input (`chpasswd`).
    StdinPair,
    /// `user:password` as the n-th argument that is not a flag (HAProxy's `stats auth`).
    NthPair(usize),
    /// `user/password` or `user/password@database` as the n-th argument that is not a flag
    /// (Oracle's `sqlplus scott/pw@orcl`, `expdp system/pw`).
    NthSlash(usize),
    /// The value of one of these flags, as the next argument or after `=` (`gh secret set NAME
    /// --body pw`).
    After(&'static [&'static str]),
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
    // OpenConnect's `--passwd-on-stdin`; secret stores that read the value on stdin (`echo pw |
    // wrangler secret put NAME`, `vercel env add NAME production <<< pw`, `docker secret create
    // NAME -`)
    c("openconnect", &[], Some("--passwd-on-stdin"), Slot::Stdin),
    c("wrangler", &["secret", "put"], None, Slot::Stdin),
    c("vercel", &["env", "add"], None, Slot::Stdin),
    c("docker", &["secret", "create"], None, Slot::Stdin),
    c("podman", &["secret", "create"], None, Slot::Stdin),
    // `gh secret set NAME --body pw` (or the value on stdin)
    c("gh", &["secret", "set"], None, Slot::After(&["-b", "--body"])),
    c("gh", &["secret", "set"], None, Slot::Stdin),
    // `aws ssm put-parameter --name x --value pw --type SecureString`
    c("aws", &["ssm", "put-parameter"], Some("SecureString"), Slot::After(&["--value"])),
    // NetworkManager's secrets as properties (`nmcli con modify wifi wifi-sec.psk pw`)
    c("nmcli", &[], None, Slot::After(&["wifi-sec.psk", "802-11-wireless-security.psk",
        "802-1x.password", "wifi-sec.leap-password"])),
    // Windows `net use Z: \\server\share pw /user:name`: the first argument that is neither a
    // drive nor a share
    c("net", &["use"], None, Slot::Nth(0)),
    // Poetry's `poetry config http-basic.repo user pw`
    c("poetry", &["config"], None, Slot::Nth(2)),
    // an SNMP community in Cisco's config (`snmp-server community X RO`)
    c("snmp-server", &["community"], None, Slot::Nth(0)),
    // Redis's `AUTH [user] pw`, at its prompt or given to redis-cli
    c("auth", &[], None, Slot::Final),
    c("redis-cli", &["auth"], None, Slot::Final),
    // LUKS passphrases on stdin (`cryptsetup open dev name <<< pw`)
    c("cryptsetup", &["open"], None, Slot::Stdin),
    c("cryptsetup", &["luksOpen"], None, Slot::Stdin),
    c("cryptsetup", &["luksFormat"], None, Slot::Stdin),
    // rclone's `config create name type key value ...`
    c("rclone", &["config", "create"], None, Slot::After(RCLONE)),
    c("rclone", &["config", "update"], None, Slot::After(RCLONE)),
    // Oracle's tools: `sqlplus scott/pw@orcl`, `expdp system/pw directory=d`, `rman target
    // sys/pw@prod`, and `connect user/pw` at the SQL*Plus prompt
    c("sqlplus", &[], None, Slot::NthSlash(0)),
    c("expdp", &[], None, Slot::NthSlash(0)),
    c("impdp", &[], None, Slot::NthSlash(0)),
    c("exp", &[], None, Slot::NthSlash(0)),
    c("imp", &[], None, Slot::NthSlash(0)),
    c("dgmgrl", &[], None, Slot::NthSlash(0)),
    c("rman", &["target"], None, Slot::NthSlash(0)),
    c("rman", &["catalog"], None, Slot::NthSlash(0)),
    c("connect", &[], None, Slot::NthSlash(0)),
    c("conn", &[], None, Slot::NthSlash(0)),
];

/// rclone's options that hold a secret.
const RCLONE: &[&str] = &[
    "pass",
    "password",
    "secret_access_key",
    "client_secret",
    "key",
    "account_key",
    "token",
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
/// a shell operator (`;`, `|`, `&`, `(`, `` ` ``), a runner (`sudo`, `npx`) or a label (`minio:`).
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
    // (after a command that runs the next one: `sudo`, `npx wrangler ...`)
    if b.get(i..e)
        .is_some_and(|w| RUNNERS.iter().any(|r| w == r.as_bytes()))
    {
        return command_position(b, i);
    }
    // a label of one word at the line's start (`minio: mc alias set ...`)
    c == b':' && labelled(b, s)
}

/// Whether a label of one word and its colon (`minio:`, `- prod:`) are all that comes before
/// `s` on its line, with a space after the colon.
fn labelled(b: &[u8], s: usize) -> bool {
    let mut i = s;
    while i > 0 && matches!(before(b, i), b' ' | b'\t') {
        i -= 1;
    }
    if i == s || before(b, i) != b':' {
        return false;
    }
    i -= 1;
    let e = i;
    while i > 0
        && e - i <= 24
        && (before(b, i).is_ascii_alphanumeric() || matches!(before(b, i), b'-' | b'_' | b'.'))
    {
        i -= 1;
    }
    let w = i;
    while i > 0 && w - i < 16 && matches!(before(b, i), b' ' | b'\t' | b'-' | b'*') {
        i -= 1;
    }
    i < e && matches!(before(b, i), 0 | b'\n')
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
        // (a share `\\server\team` is one word, whatever escapes it seems to hold)
        let share = at(b, p) == b'\\' && at(b, p + 1) == b'\\';
        let word = || {
            let n = b
                .get(p..)?
                .iter()
                .take(256)
                .take_while(|c| !c.is_ascii_whitespace())
                .count();
            Some((p, p + n, p + n))
        };
        let Some((start, end, mut next)) = (if share { word() } else { parse_arg(b, p) }) else {
            break;
        };
        // (past what a bare argument's end leaves off: the colon of a drive `Z:`)
        while matches!(at(b, next), b'.' | b':' | b',') {
            next += 1;
        }
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
            let given = match f {
                [letter] => flags().any(|a| {
                    a.get(1) != Some(&b'-') && a.get(1..).is_some_and(|r| r.contains(letter))
                }),
                // a long flag, or a word the form needs (`--type SecureString`)
                long => (n..args.len()).any(|k| arg(k) == long),
            };
            if !given {
                continue;
            }
        }
        if matches!(form.slot, Slot::Stdin | Slot::StdinPair) {
            stdin(text, s, p, form.slot, spans);
            return;
        }
        if let Slot::After(names) = form.slot {
            if let Some((vs, ve)) = flag_value(text, &args, n, names) {
                spans.push(Span::new(vs, ve, "password", 3));
                return;
            }
            continue;
        }
        // (a drive `Z:` and a share `\\server\share` are no passwords: `net use`)
        let drive = |k: usize| {
            args.get(k)
                .is_some_and(|&(a, z)| z == a + 1 && at(b, z) == b':')
        };
        let positional: Vec<usize> = (n..args.len())
            .filter(|&k| {
                let a = arg(k);
                a.first() != Some(&b'-') && !switch(a) && !a.starts_with(b"\\\\") && !drive(k)
            })
            .collect();
        let slot = match form.slot {
            Slot::Nth(k) | Slot::NthPair(k) | Slot::NthSlash(k) => positional.get(k),
            Slot::Last if positional.len() >= 2 => positional.last(),
            Slot::Final => positional.last(),
            _ => None,
        };
        let Some(&(mut vs, mut ve)) = slot.and_then(|&k| args.get(k)) else {
            continue;
        };
        match form.slot {
            Slot::NthPair(_) => {
                let Some(colon) = text.get(vs..ve).and_then(|a| a.find(':')) else {
                    continue;
                };
                vs += colon + 1;
            }
            Slot::NthSlash(_) => {
                let Some((ps, pe)) = slash_password(text, vs, ve) else {
                    continue;
                };
                (vs, ve) = (ps, pe);
            }
            _ => {}
        }
        if text
            .get(vs..ve)
            .is_some_and(|v| value::keyed(v) || value::phrase_password(v, true))
        {
            spans.push(Span::new(vs, ve, "password", 3));
            return;
        }
    }
}

/// The value of the flag named by one of `names` among the arguments after the `n`-th: the
/// argument after it, or what follows its `=`, if it is [`value::keyed`] or a passphrase.
fn flag_value(
    text: &str,
    args: &[(usize, usize)],
    n: usize,
    names: &[&str],
) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    let arg = |k: usize| -> &[u8] {
        args.get(k)
            .and_then(|&(a, z)| b.get(a..z))
            .unwrap_or_default()
    };
    let (vs, ve) = (n..args.len()).find_map(|k| {
        let a = arg(k);
        let (start, _) = *args.get(k)?;
        names.iter().find_map(|name| {
            let name = name.as_bytes();
            if a == name {
                args.get(k + 1).copied()
            } else if a.starts_with(name) && a.get(name.len()) == Some(&b'=') {
                Some((start + name.len() + 1, start + a.len()))
            } else {
                None
            }
        })
    })?;
    let v = text.get(vs..ve)?;
    (value::keyed(v) || value::phrase_password(v, true)).then_some((vs, ve))
}

/// The password of a `user/password` or `user/password@database` argument at `vs..ve`
/// (quoted or not: `"sys/pw as sysdba"`, `system/"pw"@db`), as a range.
fn slash_password(text: &str, vs: usize, ve: usize) -> Option<(usize, usize)> {
    let a = text.get(vs..ve)?;
    let (user, rest) = a.split_once('/')?;
    if user.is_empty() || !user.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') {
        return None;
    }
    let ps = vs + user.len() + 1;
    if let Some(quoted) = rest.strip_prefix('"') {
        let close = quoted.find('"')?;
        return Some((ps + 1, ps + 1 + close));
    }
    let len = rest.find(['@', ' ']).unwrap_or(rest.len());
    (len > 0).then_some((ps, ps + len))
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
