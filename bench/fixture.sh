# Sourced by bench/hooks.sh and bench/big.sh (not run): builds the release binaries as the
# plugin builds them, makes a temporary git repository on a feature branch with changed files, a
# data folder with MEMORIES generated project memories, and one payload per hook. The caller sets
# ROOT, MEMORIES and a `fail` function; this sets BIN, WORK, REPO, SYNAPSE_DATA, DB and the
# payloads $WORK/session-start.json, prompt-submit.json and stop.json.

cd "$ROOT"
# The binaries measured are built as the plugin builds them (bin/synapse-compile: statically
# linked where the platform allows), into target/bench; the memory generator is an example.
# BIN (a folder of the binaries) and GENERATE (the example) name ones already built instead.
if [ -z "${BIN:-}" ]; then
    echo "== building release binaries (bin/synapse-compile)"
    mkdir -p "$ROOT/target/bench"
    CARGO_TARGET_DIR=$ROOT/target/bench/build "$ROOT/bin/synapse-compile" "$ROOT/target/bench/install" \
        >"$ROOT/target/bench/build.log" 2>&1 || fail "the build failed: see target/bench/build.log"
    BIN=$ROOT/target/bench/install/bin
fi
if [ -z "${GENERATE:-}" ]; then
    cargo build --release --example drift --quiet || fail "cargo build failed"
    GENERATE=${CARGO_TARGET_DIR:-$ROOT/target}/release/examples/drift
fi
for b in synapse synapse-session-start synapse-prompt-submit synapse-stop synapse-compact; do
    [ -x "$BIN/$b" ] || fail "missing $BIN/$b"
done
[ -x "$GENERATE" ] || fail "missing $GENERATE"

# The hooks read these; a developer's settings must not change what is measured.
unset SYNAPSE_BUDGET SYNAPSE_SESSION_START SYNAPSE_PROMPT_SUBMIT SYNAPSE_STOP

WORK=$(mktemp -d "${TMPDIR:-/tmp}/synapse-bench.XXXXXX")
WORK=$(cd "$WORK" && pwd -P)
if [ "${KEEP:-0}" = 1 ]; then
    echo "== keeping $WORK (KEEP=1)"
else
    trap 'rm -rf "$WORK"' EXIT
fi

# The hooks read Claude Code's files under HOME (~/.claude): an empty home of the bench's own
# keeps the developer's from changing what is measured (bench/sources.sh times them).
mkdir -p "$WORK/home"
export HOME=$WORK/home

echo "== temporary repository"
REPO=$WORK/repo
mkdir -p "$REPO"
(
    cd "$REPO"
    git init -q -b main
    git config user.email bench@example.com
    git config user.name bench
    git config commit.gpgsign false
    mkdir -p src/webhooks src/payments docs
    printf '# shop\n\nA small shop backend.\n' >README.md
    printf 'pub fn handle() {}\n' >src/payments/handler.rs
    git add -A && git commit -q -m "Start the shop backend"
    printf 'pub fn deliver() {}\n' >src/webhooks/handler.rs
    printf 'pub const ATTEMPTS: u32 = 3;\n' >src/webhooks/retry_policy.rs
    git add -A && git commit -q -m "Deliver webhooks"
    printf '# shop\n\nA small shop backend: payments and webhooks.\n' >README.md
    git add -A && git commit -q -m "Say what the shop does"
    git checkout -q -b feature/webhook-retries
    printf 'pub const ATTEMPTS: u32 = 3;\npub const BACKOFF_MS: u64 = 200;\n' >src/webhooks/retry_policy.rs
    git add -A && git commit -q -m "Back off between webhook attempts"
    # Two changed files (one staged, one not) and one untracked file.
    printf 'pub const ATTEMPTS: u32 = 5;\npub const BACKOFF_MS: u64 = 200;\n' >src/webhooks/retry_policy.rs
    git add src/webhooks/retry_policy.rs
    printf 'pub fn deliver() {}\npub fn retry() {}\n' >src/webhooks/handler.rs
    printf '# Webhook retries\n\nFive attempts, exponential backoff.\n' >docs/webhook-retries.md
)
[ "$(git -C "$REPO" status --porcelain | wc -l)" -eq 3 ] || fail "the repository is not as planned"

echo "== store with $MEMORIES memories"
export SYNAPSE_DATA=$WORK/data
DB=$SYNAPSE_DATA/synapse.db
"$GENERATE" "$MEMORIES" --jsonl "$REPO" >"$WORK/memories.jsonl"
"$BIN/synapse" import "$WORK/memories.jsonl" --project "$REPO"
[ -f "$DB" ] || fail "no store at $DB"
live=$(sqlite3 "$DB" "SELECT count(*) FROM memories WHERE project = '$REPO'")
[ "$live" -eq "$MEMORIES" ] || fail "expected $MEMORIES memories for $REPO, found $live"

SESSION=5b0c3f9e-2d4a-4c1e-9f3a-8e7d6c5b4a39
TRANSCRIPT=$WORK/transcript.jsonl
: >"$TRANSCRIPT"
jq -nc --arg s "$SESSION" --arg c "$REPO" --arg t "$TRANSCRIPT" \
    '{session_id:$s, transcript_path:$t, cwd:$c, hook_event_name:"SessionStart", source:"startup"}' \
    >"$WORK/session-start.json"
jq -nc --arg s "$SESSION" --arg c "$REPO" --arg t "$TRANSCRIPT" \
    '{session_id:$s, transcript_path:$t, cwd:$c, hook_event_name:"UserPromptSubmit",
      permission_mode:"default",
      prompt:"Why do webhooks-12 deliveries give up so early? Check the retry count and the request timeout before we change retry_policy.rs."}' \
    >"$WORK/prompt-submit.json"
jq -nc --arg s "$SESSION" --arg c "$REPO" --arg t "$TRANSCRIPT" \
    '{session_id:$s, transcript_path:$t, cwd:$c, hook_event_name:"Stop", stop_hook_active:false,
      last_assistant_message:"I raised the webhook attempts to 5 and kept the 200 ms backoff.\n\nremember: webhook deliveries retry 5 times with exponential backoff from 200 ms (src/webhooks/retry_policy.rs); the receiving side dedupes by delivery id.\n\nTests pass."}' \
    >"$WORK/stop.json"

