//! How the secret detector's time grows with the text: `cargo run --release --example mask`
//! masks 0.5 MiB and 1 MiB of each input below (a rule's trigger repeated, the worst case for
//! that rule) three times each and prints the median times and their ratio. Linear work doubles
//! (ratio about 2); a scan that grows with the square of the text shows a ratio near 4.

use std::time::{Duration, Instant};

use synapse::secrets::mask;

/// Triggers of the rules, each repeated to fill the text.
const INPUTS: &[&str] = &[
    "password=",
    "password is \"a b ",
    "token is ",
    "clé ",
    "key ",
    "auth-user-pass\n",
    "In .pgpass: a:",
    "echo x | sudo -S ",
    "sshpass -p ",
    "${DB_PASSWORD:-",
    "lftp -u a,",
    "`a:b` /etc/rsyncd.secrets ",
    "| password | x |\n",
    "://a:b@",
    "a: mc alias set ",
    "net use \\\\a\\b ",
    "sqlplus a/",
    "gh secret set a --body ",
    "enable secret 0 ",
    "key1 ",
    "Şifresi ",
    "Twilio 4be0c1d97a35f8e26b10d9c4a7e3f582 ",
];

fn median_time(text: &str) -> Duration {
    let mut times: Vec<Duration> = (0..3)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(mask(text));
            start.elapsed()
        })
        .collect();
    times.sort();
    times[1]
}

fn main() {
    println!(
        "{:<30} {:>10} {:>10} {:>6}",
        "input", "0.5 MiB", "1 MiB", "ratio"
    );
    for unit in INPUTS {
        let half = median_time(&unit.repeat((1 << 19) / unit.len()));
        let whole = median_time(&unit.repeat((1 << 20) / unit.len()));
        println!(
            "{:<30} {:>8.1}ms {:>8.1}ms {:>6.2}",
            format!("{unit:?}"),
            half.as_secs_f64() * 1e3,
            whole.as_secs_f64() * 1e3,
            whole.as_secs_f64() / half.as_secs_f64()
        );
    }
}
