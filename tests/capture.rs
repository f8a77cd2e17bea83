//! What the Stop hook keeps of a reply, measured on the labeled corpus `tests/fixtures/capture/`
//! (its README says how it was written and split): every reply must give exactly the lessons it
//! lists, in order, with the memories each replaces. The rules were written from the `dev` half;
//! the `test` half is held to the same bar.
//!
//! `cargo test --test integration -- --nocapture capture::` prints how many replies of each half are right.

use rstest::rstest;
use serde::Deserialize;
use synapse::plugin::lessons::{marked, Lesson};

#[derive(Deserialize)]
struct Corpus {
    reply: Vec<Reply>,
}

#[derive(Deserialize)]
struct Reply {
    id: u32,
    about: String,
    text: String,
    keep: Vec<Kept>,
}

/// A lesson as the corpus lists it: its text alone, or its text and what it replaces.
#[derive(Deserialize)]
#[serde(untagged)]
enum Kept {
    Text(String),
    Replacing { text: String, replaces: Vec<i64> },
}

impl From<Kept> for Lesson {
    fn from(kept: Kept) -> Self {
        match kept {
            Kept::Text(text) => Lesson {
                text,
                replaces: Vec::new(),
            },
            Kept::Replacing { text, replaces } => Lesson { text, replaces },
        }
    }
}

#[rstest]
#[case::dev_half("dev")]
#[case::test_half("test")]
fn every_reply_gives_exactly_its_lessons(#[case] half: &str) {
    let path = format!(
        "{}/tests/fixtures/capture/{half}.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let corpus: Corpus = toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let total = corpus.reply.len();
    let mut wrong = Vec::new();
    for reply in corpus.reply {
        let want: Vec<Lesson> = reply.keep.into_iter().map(Lesson::from).collect();
        let got = marked(&reply.text);
        if got != want {
            wrong.push(format!(
                "reply {} ({}):\n  want {want:?}\n  got  {got:?}",
                reply.id, reply.about
            ));
        }
    }
    println!(
        "{half}: {} of {total} replies exactly right",
        total - wrong.len()
    );
    assert!(wrong.is_empty(), "{half}:\n{}", wrong.join("\n"));
}
