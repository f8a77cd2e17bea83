//! How the secret detector's time grows with the text: `cargo run --release --example mask`
//! masks 0.5 MiB and 1 MiB of each input below (a rule's trigger repeated, the worst case for
//! that rule) three times each and prints the median times and their ratio. Linear work doubles
//! (ratio about 2); a scan that grows with the square of the text shows a ratio near 4.
//!
//! Then its throughput on ordinary text: 16 MiB each of this crate's prose (the README), code
//! and a synthetic log, in MB/s, beside a bare pass over the same text's words as a yardstick for
//! the machine.

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
    // rules of synapse.toml and places of the reader
    "redis-cli AUTH ",
    "{\\\"password\\\":\\\"",
    "name=\"api-key\" content=\"",
    "kind: Secret\ndata:\n  a: b\n",
    // the catalogues' YAML rules and the ids of a pair
    "client_secret=Zk4mQ8rT2vX7nB1c client_id=a1b2c3d4e5f6 ",
    "secret_id=",
    "line secret ",
    "github key ",
    "auth0_client_id ",
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

/// Prose, code and a log, each repeated to 16 MiB: text with few secrets, as most notes are.
fn ordinary_texts() -> [(&'static str, String); 3] {
    let root = env!("CARGO_MANIFEST_DIR");
    let read = |path: &str| {
        std::fs::read_to_string(format!("{root}/{path}"))
            .unwrap_or_else(|e| panic!("{root}/{path}: {e}"))
    };
    let code: String = [
        "src/store/mod.rs",
        "src/recall/mod.rs",
        "src/plugin/hook.rs",
    ]
    .iter()
    .map(|p| read(p))
    .collect();
    let log = [
        "2025-03-04T10:12:44Z INFO request id=6f1c2e9a-7b3d-4c5e-8f90-a1b2c3d4e5f6 path=/v1/items status=200 took=12ms\n",
        "2025-03-04T10:12:45Z WARN cache miss key=user:4821 region=eu-west-1 retry=2 upstream=10.0.4.12:8080\n",
        "2025-03-04T10:12:46Z INFO commit 3f9a2b7c1d4e5f60718293a4b5c6d7e8f9012345 deployed by ci (build 8472)\n",
    ]
    .concat();
    let sixteen_mib = |sample: &str| sample.repeat((16 << 20) / sample.len() + 1);
    [
        ("prose", sixteen_mib(&read("README.md"))),
        ("code", sixteen_mib(&code)),
        ("log", sixteen_mib(&log)),
    ]
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

    println!();
    for (name, text) in ordinary_texts() {
        let mb = text.len() as f64 / 1e6;
        let start = Instant::now();
        let words = std::hint::black_box(text.split_ascii_whitespace().count());
        let bare = start.elapsed();
        let start = Instant::now();
        let out = mask(&text);
        let took = start.elapsed();
        println!(
            "{name:6} {mb:.1} MB in {:.1} ms: {:.0} MB/s ({} masked; split_ascii_whitespace over \
             {words} words: {:.0} MB/s)",
            took.as_secs_f64() * 1e3,
            mb / took.as_secs_f64(),
            out.found.len(),
            mb / bare.as_secs_f64(),
        );
    }
}
