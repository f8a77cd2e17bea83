//! The SHA-256 of each released migration's SQL, as it shipped (sqlx records the same of each
//! migration it applies, and atuin's stores refuse one that changed). A store at version N has
//! run migrations 1 to N as they were then, so an edit to one of them reaches new stores only,
//! and the two kinds of store part ways silently; this test stops such an edit instead.
//!
//! Recording a new migration's checksum is part of releasing it: the test names the line to add.

use sha2::{Digest, Sha256};

use super::MIGRATIONS;

/// Migration N's checksum is `RELEASED[N - 1]`.
const RELEASED: &[&str] = &[
    // 1
    "e1a0ba9b1df493e2947382ee024718c4e6f80d89a82ded1bdbd1f2d78c04442f",
    // 2
    "7f8de55353afbf176a3a1809029959c65b5780aa4d8a76311b942485acff1d9a",
    // 3
    "e424bb686868e62f5220f09902a8d03f2548a233dce8082559db1cc84b2a65b7",
    // 4
    "dd6980e5024da1dabfe74bb0733b796b0e236d5a60078a4febc6f3bab58e0499",
    // 5
    "e7b71736058389715d0e369eee4e1c84be00bb8be19f9705b2e0aa4d829c2720",
    // 6
    "2b9657c6a6097b3300ec6358bb6c020400d812113b799f8fe99d29f6375daf1a",
    // 7
    "b427f8035e2c512c7b79962e21effbbf0150a57764ccdf71a0816f487423355a",
    // 8
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    // 9
    "011376a9be30886fbca246136fad92a7c60a1882e41dd21ee1552d6dfdb67aed",
    // 10
    "22a568f603fbc18654e111f49763109f5b66c707cb85ca2db171ef2f1be1cc35",
    // 11
    "692055d9c3c910d11444c23de3d256883ad78a6da9ef062b0dbf0eb8854c7fb1",
    // 12
    "ef229381bbf3ba3ac92f8cb865286fac80cf228913ab6ac3e66eeabfcf4cbb31",
    // 13
    "4ad95c17f9ce7497ceae71c663c8aa68cd3df0cf8a95b654f8e2e6758da25a17",
    // 14
    "c978a928985c5a0fb45d5285d68630b984b44c5bf36f875d31a9e8bc668126ff",
    // 15
    "e6902f1edaddad049e338102e6b2480a289cac7dd0d255fadbe2395a96a129ba",
];

fn sha256(sql: &str) -> String {
    Sha256::digest(sql.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn released_migrations_are_unchanged() {
    let mut wrong = Vec::new();
    for (n, sql) in (1..).zip(MIGRATIONS) {
        let sum = sha256(sql);
        match RELEASED.get(n - 1) {
            Some(&recorded) if recorded == sum => {}
            Some(&recorded) => wrong.push(format!(
                "migration {n} was edited (its SQL's SHA-256 is {sum}, released as {recorded}): \
                 released migrations are frozen, since stores that already ran it keep what it \
                 did then; undo the edit, and make the change a new migration at the end of \
                 MIGRATIONS"
            )),
            None => wrong.push(format!(
                "migration {n} has no recorded checksum: when it is released, add \
                 \"{sum}\" to RELEASED in src/store/schema/released.rs"
            )),
        }
    }
    if RELEASED.len() > MIGRATIONS.len() {
        wrong.push(format!(
            "RELEASED records {} migrations and MIGRATIONS holds {}: a released migration was \
             removed, and stores that ran it are newer than this build",
            RELEASED.len(),
            MIGRATIONS.len()
        ));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
