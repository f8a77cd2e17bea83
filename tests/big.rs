//! Memories of 1 to 8 MiB that match the prompt: the hooks, recall and drift read only their
//! heads, hand them over abridged and under the block's cap, and `read` still gives back every
//! byte. The largest memory is refused with an error naming the limit. (How fast: `bench/big.sh`;
//! no test here times anything.)

use crate::common;
use common::place::Place;

use serde_json::json;

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

#[test]
fn memories_of_many_mebibytes_are_handed_over_abridged_and_read_back_whole() {
    let place = Place::new("deploy-canary");
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
    let place = Place::new("deploy-canary");
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

/// A pasted webhook delivery log of about `bytes` bytes whose opening line says what it is, in
/// the words of the notes about webhook retries (`bench/big-memories.py` writes the same kind).
fn webhook_log(n: usize, bytes: usize) -> String {
    let mut text = String::from(
        "Webhook delivery log pasted from the staging workers: deliveries give up after the \
         retry count runs out; the request timeout is 30s (see retry_policy.rs).\n",
    );
    let events = [
        "delivered",
        "timed out after 30s",
        "retry scheduled",
        "gave up",
        "queued",
    ];
    let mut i = n * 7_919;
    while text.len() < bytes {
        text.push_str(&format!(
            "2026-03-{:02}T{:02}:{:02}Z worker-{} webhooks-{} delivery {} attempt {} {}\n",
            i % 28 + 1,
            i % 24,
            i % 60,
            i % 12,
            i % 40,
            10_000 + i * 31 % 90_000,
            i % 5 + 1,
            events[i % events.len()]
        ));
        i += 1;
    }
    text.truncate(bytes);
    text
}

/// A project's ordinary notes, none about webhooks: what the store's statistics come from.
fn other_notes() -> String {
    let things = [
        "cache",
        "search index",
        "billing export",
        "login page",
        "image resizer",
    ];
    let facts = [
        "is deployed from the release branch on Tuesdays",
        "reads its settings from config/app.toml",
        "is owned by the platform team; ask in their channel",
        "logs at info level in production",
        "has its integration tests behind the slow feature flag",
        "keeps its data for 30 days",
    ];
    let mut lines = String::new();
    for (i, thing) in things.iter().cycle().take(240).enumerate() {
        let fact = facts[(i / things.len()) % facts.len()];
        let body = format!("The {thing} service {fact} (note {i}).");
        lines.push_str(&json!({"body": body}).to_string());
        lines.push('\n');
    }
    lines
}

/// Two pasted 5 MB logs hold every word of a question about webhook retries, most of them only
/// because they are long: they must not take the places of the short notes that answer it as
/// well (one says what a log's opening line says), nor raise the bar those notes are held to.
/// A log is still reachable, after them.
#[test]
fn a_pasted_log_wins_no_place_over_a_short_note_that_matches_as_well() {
    let place = Place::new("deploy-canary");
    let file = place.repo.join("../notes.jsonl");
    std::fs::write(&file, other_notes()).unwrap();
    place.json(&["import", file.to_str().unwrap()], b"");
    let remember = |text: &str| place.json(&["remember", text], b"")["id"].as_i64().unwrap();
    let retries = remember(
        "Webhook deliveries give up after 3 retries: the retry count lives in retry_policy.rs.",
    );
    let as_well = remember(
        "Webhook deliveries from the staging workers give up when the retry count runs out; \
         the request timeout is 30s (retry_policy.rs).",
    );
    let notes = [retries, as_well];
    let mut logs = Vec::new();
    for n in 0..2 {
        let stored = place.json(&["remember", "-"], webhook_log(n, 5_000_000).as_bytes());
        logs.push(stored["id"].as_i64().unwrap());
    }
    // The notes come first wherever a log is shown at all.
    let notes_first = |shown: &[i64], what: &str| {
        let last_note = shown.iter().rposition(|id| notes.contains(id));
        let first_log = shown.iter().position(|id| logs.contains(id));
        assert!(last_note.is_some(), "{what}: no note in {shown:?}");
        assert!(
            first_log.is_none_or(|l| Some(l) > last_note),
            "{what}: a log before a note: {shown:?}"
        );
    };
    let shown = |block: &str| -> Vec<i64> {
        block
            .lines()
            .filter_map(|l| l.strip_prefix('[')?.split(']').next()?.parse().ok())
            .collect()
    };

    let prompt = json!({"session_id": "s", "cwd": place.repo,
        "prompt": "Why do webhooks-12 deliveries give up so early? Check the retry count and the \
                   request timeout before we change retry_policy.rs."});
    let block = place.hook("synapse-prompt-submit", &prompt);
    notes_first(&shown(&block), &block);
    assert!(
        !block.contains(
            "Webhook delivery log pasted from the staging workers: deliveries give \
                         up after the retry count runs out; the request timeout is 30s"
        ),
        "a log's opening is injected whole: {block}"
    );

    // A session on a branch about webhook retries, with the retry policy changed, and the lean
    // budget's four places.
    common::git(
        &place.repo,
        &["checkout", "-q", "-b", "fix/webhook-retries"],
    );
    std::fs::create_dir_all(place.repo.join("src/webhooks")).unwrap();
    std::fs::write(place.repo.join("src/webhooks/retry_policy.rs"), "// 5\n").unwrap();
    let start = json!({"session_id": "t", "cwd": place.repo, "source": "startup"});
    let out = common::run_hook(
        "synapse-session-start",
        &place.data,
        start.to_string().as_bytes(),
        &[("SYNAPSE_BUDGET", "lean")],
    );
    let block = common::context_of(&String::from_utf8(out.stdout).unwrap());
    notes_first(&shown(&block), &block);

    // Asked, recall ranks the notes first and still finds a log.
    let found = place.json(
        &[
            "recall",
            "webhook",
            "deliveries",
            "retry",
            "count",
            "timeout",
        ],
        b"",
    );
    let ids = common::result_ids(&found);
    notes_first(&ids, "recall");
    assert!(ids.iter().any(|id| logs.contains(id)), "{ids:?}");
}
