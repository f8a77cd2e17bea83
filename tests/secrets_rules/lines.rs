//! Lines that are credentials by their shape: `.pgpass`, `.netrc`, a Kubernetes Secret's
//! `data:`; MAC addresses and IPv6 stay (the [`lines`] rule).

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::Cases;

#[test]
fn credential_lines() {
    let cases = Cases::default();
    cases.masks(
        "~/.pgpass\nreplica-2.lan:6432:orders:reporter:Wq9!plover",
        "~/.pgpass\nreplica-2.lan:6432:orders:reporter:[secret]",
    );
    cases.masks(
        "machine api.example.org login bot password Zk4mQ8rT2vX7nB1c",
        "machine api.example.org login bot password [secret]",
    );
    cases.masks(
        "kind: Secret\ndata:\n  DB_URL: cG9zdGdyZXM6Ly9hOmJAYy9k\n  mode: ZGV2\nother: 1",
        "kind: Secret\ndata:\n  DB_URL: [secret]\n  mode: ZGV2\nother: 1",
    );
    cases.keeps("MAC d2:00:55:3b:69:ca and time 10:12:44");
    cases.keeps("d2:00:55:3b:69:ca  10.0.4.20  build-box\nfe80:0:0:0:1c2b:3a4d:5e6f:7a8b eth0");
    cases.keeps("fe80::1:2:3:4 link-local");
    cases.report();
}

#[test]
fn credential_files_and_remarks() {
    let cases = Cases::default();
    cases.masks(
        "db7.lan:5433:*:loader:Quill\\:tern52#   # escaped colon",
        "db7.lan:5433:*:loader:[secret]   # escaped colon",
    );
    cases.masks(
        "cat /srv/rsyncd.secrets\nmirror:Gale88^pond",
        "cat /srv/rsyncd.secrets\nmirror:[secret]",
    );
    cases.masks(
        "# /etc/ppp/pap-secrets\n# client server secret\nalice * \"Fjord#31tide\" *",
        "# /etc/ppp/pap-secrets\n# client server secret\nalice * \"[secret]\" *",
    );
    cases.masks(
        "/etc/ipsec.secrets:\n10.1.0.1 10.2.0.1 : PSK \"k2Vw9QpL7xT4mZ8r\"",
        "/etc/ipsec.secrets:\n10.1.0.1 10.2.0.1 : PSK \"[secret]\"",
    );
    // a file's name without its lines, and lines of no named file
    cases.keeps("edit /etc/rsyncd.secrets and chmod 600 it\n\nbackup:see the wiki");
    cases.keeps("ipsec.secrets\n: RSA server-key.pem");
    cases.report();
}

#[test]
fn a_credential_file_line_quoted_beside_its_name() {
    let cases = Cases::default();
    cases.masks(
        "`mirror:t1mb3r.p0nd.r00st` goes in /etc/rsyncd.secrets, mode 600.",
        "`mirror:[secret]` goes in /etc/rsyncd.secrets, mode 600.",
    );
    cases.masks(
        "Added to /etc/ppp/chap-secrets: `fieldtech  pptpd  Heron-maple-2291  *`.",
        "Added to /etc/ppp/chap-secrets: `fieldtech  pptpd  [secret]  *`.",
    );
    cases.masks(
        "/etc/postfix/sasl_passwd holds `[mail.example.net]:587 relay@example.net:otter_quill_spruce` then run `postmap /etc/postfix/sasl_passwd`.",
        "/etc/postfix/sasl_passwd holds `[mail.example.net]:587 relay@example.net:[secret]` then run `postmap /etc/postfix/sasl_passwd`.",
    );
    cases.keeps("Run `chmod 600 /etc/rsyncd.secrets` and `systemctl restart rsync` after editing.");
    cases.report();
}

#[test]
fn credential_lines_after_a_label_that_names_their_file() {
    let cases = Cases::default();
    cases.masks(
        "In ~/.pgpass: db07:5432:*:etl:Wv8nQz3tKp",
        "In ~/.pgpass: db07:5432:*:etl:[secret]",
    );
    cases.keeps("See ~/.pgpass: the format is host:port:database:user:password");
    cases.report();
}

#[test]
fn an_openvpn_credentials_file_of_two_lines() {
    let cases = Cases::default();
    cases.masks(
        "The client reads auth-user-pass from /etc/openvpn/creds.txt:\n```\nfield-tech\nQuarry.heron.418\n```",
        "The client reads auth-user-pass from /etc/openvpn/creds.txt:\n```\nfield-tech\n[secret]\n```",
    );
    // directives after `auth-user-pass` in a config are no password
    cases.keeps("auth-user-pass\npersist-key\npersist-tun");
    cases.keeps(
        "auth-user-pass /etc/openvpn/creds.txt\nremote vpn.example.net 1194\ncipher AES-256-GCM",
    );
    cases.report();
}
