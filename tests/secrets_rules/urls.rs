//! The password in a URL's userinfo; references and stand-ins in its place stay (the
//! [`urls`] rule).

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::{keeps, masks};

#[test]
fn url_credentials() {
    masks(
        "redis://default:Qx7%21mZp2@cache.local:6379/0",
        "redis://default:[secret]@cache.local:6379/0",
    );
    masks(
        "https://x-access-token:Zk4mQ8rT2vX7nB1c@git.example.org/a/b.git",
        "https://x-access-token:[secret]@git.example.org/a/b.git",
    );
    keeps("ssh://git@git.example.org:2222/a/b.git");
    keeps("https://user:${DB_PASSWORD}@db.example.org/app");
    keeps("postgres://user:password@localhost:5432/app");
    keeps("mysql://root:root@127.0.0.1/test");
    keeps("see https://example.org/path?x=1#frag and mailto:ops@example.org");
}
