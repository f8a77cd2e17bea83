#!/usr/bin/env bash
# Team memory (`synapse share`/`sync`): what a shared file costs the SessionStart hook, and how
# long folding a teammate's 1,000 new events takes.
#
#   bench/team.sh                  # 10,000 memories, 1,000 events, 30 runs
#   EVENTS=5000 RUNS=50 bench/team.sh
#
# Uses bench/fixture.sh's repository, store and payloads. EVENTS share events (generated, each a
# distinct lesson with its own id) are written to the repository's `.synapse/memories.jsonl`,
# kept out of the task signal (`.git/info/exclude`) so both sides of the comparison see the same
# branch and changed files.
#
# 1. Folding: `synapse sync` on a copy of the store that has not seen the file, RUNS times
#    (hyperfine --prepare restores the copy), median reported. Target: < 200 ms for 1,000.
# 2. SessionStart with the file already folded (one `stat` and one lookup find it unchanged)
#    against SessionStart with no file: three hyperfine rounds of both, medians over all runs.
#    Target: no slower (within 2%, the rounds' own spread).
# Exits 1 if a target is missed, 2 if the setup fails.

set -euo pipefail

MEMORIES=${MEMORIES:-10000}
EVENTS=${EVENTS:-1000}
RUNS=${RUNS:-30}
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)

fail() {
    echo "bench/team.sh: $*" >&2
    exit 2
}

for tool in hyperfine git sqlite3 jq python3; do
    command -v "$tool" >/dev/null || fail "needs $tool on PATH"
done

. "$ROOT/bench/fixture.sh"

echo ".synapse/" >>"$REPO/.git/info/exclude"
mkdir -p "$WORK/team"
python3 - "$EVENTS" >"$WORK/team/memories.jsonl" <<'PY'
import json, sys, uuid
topics = ["deploys", "the test suite", "the staging database", "release notes", "the CDN",
          "feature flags", "the queue workers", "code review", "the search index", "logging"]
for n in range(int(sys.argv[1])):
    t = topics[n % len(topics)]
    body = f"team lesson {n}: for {t}, check step {n % 17} of the runbook before changing setting {n}"
    print(json.dumps({"event": "share", "id": str(uuid.UUID(int=n + 1, version=4)),
                      "at": f"2026-11-{1 + n % 28:02d}T10:{n % 60:02d}:00Z",
                      "author": "Bench Teammate <bench@example.com>", "body": body}))
PY
KEEP_LOG=".dbconfig no_ckpt_on_close on"
sqlite3 "$DB" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
cp "$DB" "$WORK/team/unfolded.db"
RESTORE="sh -c 'cp $WORK/team/unfolded.db $DB && rm -f $DB-wal $DB-shm'"
SHARED="$REPO/.synapse/memories.jsonl"
mkdir -p "$REPO/.synapse"
cp "$WORK/team/memories.jsonl" "$SHARED"

echo "== folding $EVENTS new events: synapse sync, $RUNS runs"
hyperfine -N --runs "$RUNS" --style basic --export-json "$WORK/team/fold.json" \
    --prepare "$RESTORE" -n sync "sh -c 'cd $REPO && exec $BIN/synapse sync'"
folded=$(sqlite3 "$DB" "SELECT count(*) FROM memories WHERE source = 'shared by Bench Teammate'")
[ "$folded" -eq "$EVENTS" ] || fail "sync folded $folded of $EVENTS events"
fold_ms=$(jq '.results[0].median * 1000 * 100 | round / 100' "$WORK/team/fold.json")

echo "== SessionStart: the file folded already, against no file"
RESET_CMD="sqlite3 -cmd '$KEEP_LOG' $DB \"DELETE FROM injected\""
# Each command's --prepare resets the session's marks and puts the file in place or moves it away.
WITH_PREP="sh -c '$RESET_CMD; [ ! -e $SHARED.off ] || mv $SHARED.off $SHARED'"
WITHOUT_PREP="sh -c '$RESET_CMD; [ ! -e $SHARED ] || mv $SHARED $SHARED.off'"
START="sh -c 'exec $BIN/synapse-session-start < $WORK/session-start.json'"
"$BIN/synapse-session-start" <"$WORK/session-start.json" >"$WORK/team/out.txt"
grep -q '<synapse-memories>' "$WORK/team/out.txt" || fail "SessionStart printed no block"
[ ! -e "$SYNAPSE_DATA/synapse.log" ] || fail "a hook failed: $(cat "$SYNAPSE_DATA/synapse.log")"
for round in 1 2 3; do
    hyperfine -N --warmup 3 --runs "$RUNS" --style basic \
        --export-json "$WORK/team/start-$round.json" \
        --prepare "$WITH_PREP" -n "with the file" "$START" \
        --prepare "$WITHOUT_PREP" -n "without the file" "$START"
done
[ ! -e "$SYNAPSE_DATA/synapse.log" ] || fail "a hook failed: $(cat "$SYNAPSE_DATA/synapse.log")"
# The median over the three rounds' runs of each.
jq -s '[.[].results[]] | group_by(.command)
        | map({command: .[0].command, times: (map(.times) | add)})
        | map(.median = (.times | sort | .[length / 2 | floor]))
        | {results: .}' "$WORK/team"/start-*.json >"$WORK/team/start.json"

echo
jq -r --argjson fold "$fold_ms" '
  def fmt: (. * 1000 * 100 | round / 100 | tostring);
  (.results | map({key: .command, value: .median}) | from_entries) as $m
  | ["fold \(env.EVENTS // "1000") events (median)", "\($fold) ms", "target < 200 ms",
     (if $fold < 200 then "yes" else "MISSED" end)],
    ["SessionStart, file folded (median)", ($m["with the file"] | fmt) + " ms", "", ""],
    ["SessionStart, no file (median)", ($m["without the file"] | fmt) + " ms", "",
     (if $m["with the file"] <= $m["without the file"] * 1.02 then "no slower" else "SLOWER" end)]
  | @tsv' "$WORK/team/start.json" | column -t -s $'\t'
jq -e --argjson fold "$fold_ms" '
  (.results | map({key: .command, value: .median}) | from_entries) as $m
  | $fold < 200 and $m["with the file"] <= $m["without the file"] * 1.02' \
    "$WORK/team/start.json" >/dev/null || exit 1
