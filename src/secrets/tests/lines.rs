//! Lines that are credentials by their shape: `.pgpass`, `.netrc`, a Kubernetes Secret's
//! `data:`; MAC addresses and IPv6 stay (the [`lines`](crate::secrets::lines) rule).

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::{keeps, masks};

#[test]
fn credential_lines() {
    masks(
        "~/.pgpass\nreplica-2.lan:6432:orders:reporter:Wq9!plover",
        "~/.pgpass\nreplica-2.lan:6432:orders:reporter:[secret]",
    );
    masks(
        "machine api.example.org login bot password Zk4mQ8rT2vX7nB1c",
        "machine api.example.org login bot password [secret]",
    );
    masks(
        "kind: Secret\ndata:\n  DB_URL: cG9zdGdyZXM6Ly9hOmJAYy9k\n  mode: ZGV2\nother: 1",
        "kind: Secret\ndata:\n  DB_URL: [secret]\n  mode: ZGV2\nother: 1",
    );
    keeps("MAC d2:00:55:3b:69:ca and time 10:12:44");
    keeps("d2:00:55:3b:69:ca  10.0.4.20  build-box\nfe80:0:0:0:1c2b:3a4d:5e6f:7a8b eth0");
    keeps("fe80::1:2:3:4 link-local");
}

#[test]
fn credential_files_and_remarks() {
    masks(
        "db7.lan:5433:*:loader:Quill\\:tern52#   # escaped colon",
        "db7.lan:5433:*:loader:[secret]   # escaped colon",
    );
    masks(
        "cat /srv/rsyncd.secrets\nmirror:Gale88^pond",
        "cat /srv/rsyncd.secrets\nmirror:[secret]",
    );
    masks(
        "# /etc/ppp/pap-secrets\n# client server secret\nalice * \"Fjord#31tide\" *",
        "# /etc/ppp/pap-secrets\n# client server secret\nalice * \"[secret]\" *",
    );
    masks(
        "/etc/ipsec.secrets:\n10.1.0.1 10.2.0.1 : PSK \"k2Vw9QpL7xT4mZ8r\"",
        "/etc/ipsec.secrets:\n10.1.0.1 10.2.0.1 : PSK \"[secret]\"",
    );
    // a file's name without its lines, and lines of no named file
    keeps("edit /etc/rsyncd.secrets and chmod 600 it\n\nbackup:see the wiki");
    keeps("ipsec.secrets\n: RSA server-key.pem");
}
