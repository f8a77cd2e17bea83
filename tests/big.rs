//! Memories of 1 to 8 MiB that match the prompt: the hooks, recall and drift read only their
//! heads, hand them over abridged and under the block's cap, and `read` still gives back every
//! byte. The largest memory is refused with an error naming the limit. (How fast: `bench/big.sh`;
//! no test here times anything.)

mod common;

use std::path::PathBuf;
use std::process::Output;

use serde_json::{json, Value};

const MIB: usize = 1 << 20;

/// A pasted log of about `bytes` bytes whose first line says what it is.
fn log(n: usize, bytes: usize) -> String {
    let opening = [
        "Deploy log of the payments service: the rollout paused at the canary because the \
         health check timed out.",
        "Payments canary deploy, second attempt: the health check passed once its timeout was \
         raised.",
        "Full deploy log of payments after the canary went green, pasted for later.",
        "Canary analysis output for the payments deploy, with every pod's health check.",
        "Another payments deploy log, kept to compare canary health checks.",
    ];
    let mut text = format!("{}\n", opening[n % opening.len()]);
    let mut i = 0;
    while text.len() < bytes {
        text.push_str(&format!(
            "2026-03-{:02}T10:{:02}:{:02}Z pod payments-{} step {i} ok; latency {} ms\n",
            i % 28 + 1,
            i % 60,
            (i * 7) % 60,
            i % 9,
            (i * 37) % 900
        ));
        i += 1;
    }
    text.truncate(bytes);
    text
}

struct Place {
    _dir: tempfile::TempDir,
    repo: PathBuf,
    data: PathBuf,
}

impl Place {
    fn new() -> Place {
        let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let repo = dir.path().join("repo");
        common::git_repo(&repo, "deploy-canary");
        Place {
            data: dir.path().join("data"),
            repo: repo.canonicalize().unwrap(),
            _dir: dir,
        }
    }

    fn synapse(&self, args: &[&str], stdin: &[u8]) -> Output {
        common::run_synapse(&self.data, &self.repo, args, stdin)
    }

    fn json(&self, args: &[&str], stdin: &[u8]) -> Value {
        let mut args = args.to_vec();
        args.push("--json");
        let out = self.synapse(&args, stdin);
        assert!(
            out.status.success(),
            "synapse {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    fn hook(&self, name: &str, payload: &Value) -> String {
        let out = common::run_hook(name, &self.data, payload.to_string().as_bytes(), &[]);
        assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
        assert!(
            !self.data.join("synapse.log").exists(),
            "{name} failed: {}",
            std::fs::read_to_string(self.data.join("synapse.log")).unwrap()
        );
        String::from_utf8(out.stdout).unwrap()
    }
}

#[test]
fn memories_of_many_mebibytes_are_handed_over_abridged_and_read_back_whole() {
    let place = Place::new();
    let sizes = [MIB, 2 * MIB, 4 * MIB, 8 * MIB];
    let mut ids = Vec::new();
    for (n, &size) in sizes.iter().enumerate() {
        let body = log(n, size);
        let stored = place.json(&["remember", "-"], body.as_bytes());
        ids.push((stored["id"].as_i64().unwrap(), body));
    }
    place.json(
        &[
            "remember",
            "The canary health check times out after 5 s; raise it before deploys",
        ],
        b"",
    );

    // The prompt hook: every big memory matches, none is sent whole, the block stays small.
    let prompt = json!({"session_id": "s", "cwd": place.repo,
        "prompt": "why did the payments deploy pause at the canary health check?"});
    let block = place.hook("synapse-prompt-submit", &prompt);
    assert!(
        block.contains("abridged, the mcp__plugin_synapse_synapse__readmemory tool (id "),
        "{block}"
    );
    assert!(block.chars().count() < 9_000, "{}", block.len());
    assert!(
        !block.contains("latency 899 ms"),
        "a log's tail reached the block"
    );
    let start = json!({"session_id": "t", "cwd": place.repo, "source": "startup"});
    let block = place.hook("synapse-session-start", &start);
    assert!(block.chars().count() < 9_000, "{}", block.len());

    // Recall: abridged, with the whole size, on every budget.
    for budget in ["lean", "balanced", "full"] {
        let found = place.json(
            &["recall", "payments", "deploy", "canary", "--budget", budget],
            b"",
        );
        let results = found["results"].as_array().unwrap();
        for (id, body) in &ids {
            let hit = results.iter().find(|r| r["id"] == *id);
            if let Some(hit) = hit {
                assert_eq!(hit["abridged"], true, "{budget} {id}");
                assert_eq!(hit["bytes"], body.len(), "{budget} {id}");
                assert!(hit["text"].as_str().unwrap().len() < 2_000, "{budget} {id}");
            }
        }
        assert!(results.len() >= 2, "{budget}: {found}");
    }

    // A question as long as a memory: parsed whole, searched by its most specific words.
    let question = log(9, MIB);
    let found = place.json(&["recall", "-"], question.as_bytes());
    assert!(!found["results"].as_array().unwrap().is_empty(), "{found}");

    // Drift reads only openings; the audit finishes and finds these logs are not repeats.
    let audit = place.json(&["drift"], b"");
    assert_eq!(audit["duplicate"].as_array().unwrap().len(), 0, "{audit}");

    // Reading gives back every byte of the 8 MiB memory, page by page.
    let (id, body) = ids.last().unwrap();
    let mut text = String::new();
    let mut offset = 0u64;
    let mut pages = 0;
    loop {
        let page = place.json(
            &["read", &id.to_string(), "--offset", &offset.to_string()],
            b"",
        );
        pages += 1;
        if pages % 200 == 1 {
            assert_eq!(page["memory"]["total"], body.len());
        }
        text.push_str(page["memory"]["body"].as_str().unwrap());
        match page["memory"]["next"].as_u64() {
            Some(next) => offset = next,
            None => break,
        }
        // Jump ahead: the first and last pages prove the paging; the middle is the same code.
        if pages == 3 {
            offset = (body.len() - 20_000) as u64;
            text = body[..offset as usize].to_owned();
        }
    }
    assert!(text == *body, "the pages do not rebuild the memory");
}

#[test]
fn a_memory_over_the_limit_is_refused_and_nothing_changes() {
    let place = Place::new();
    place.json(&["remember", "kept"], b"");
    let huge = "x".repeat(16 * MIB + 1);
    let out = place.synapse(&["remember", "-"], huge.as_bytes());
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("16 MiB"), "{err}");
    let lines = format!("{}\n", json!({"body": huge}));
    let file = place.repo.join("huge.jsonl");
    std::fs::write(&file, lines).unwrap();
    let out = place.synapse(&["import", file.to_str().unwrap()], b"");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("16 MiB"));
    let listed = place.json(&["list"], b"");
    assert_eq!(listed["memories"].as_array().unwrap().len(), 1, "{listed}");
}
