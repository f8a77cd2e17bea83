//! The password in a URL's userinfo; references and stand-ins in its place stay (the
//! [`urls`] rule).

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::Cases;

#[test]
fn url_credentials() {
    let cases = Cases::default();
    cases.masks(
        "redis://default:Qx7%21mZp2@cache.local:6379/0",
        "redis://default:[secret]@cache.local:6379/0",
    );
    cases.masks(
        "https://x-access-token:Zk4mQ8rT2vX7nB1c@git.example.org/a/b.git",
        "https://x-access-token:[secret]@git.example.org/a/b.git",
    );
    cases.keeps("ssh://git@git.example.org:2222/a/b.git");
    cases.keeps("https://user:${DB_PASSWORD}@db.example.org/app");
    cases.keeps("postgres://user:password@localhost:5432/app");
    cases.keeps("mysql://root:root@127.0.0.1/test");
    cases.keeps("see https://example.org/path?x=1#frag and mailto:ops@example.org");
    cases.report();
}
