#!/usr/bin/env bash
# Hooks and recall beside very long memories: the bench/hooks.sh store, and the same store with
# twenty 4 MiB memories that match the prompt.
#
#   bench/big.sh                          # 10,000 memories; 20 big ones of 4 MiB; 30 runs
#   BIG=20 BIG_BYTES=8388608 RUNS=50 bench/big.sh
#
# It builds the binaries, the repository, the store and the payloads as bench/hooks.sh does
# (bench/fixture.sh), copies the store, and imports BIG generated memories of BIG_BYTES bytes
# into the copy (bench/big-memories.py: pasted webhook delivery logs that open with the prompt's
# words). Then, in one hyperfine invocation, it times each hook on both stores ("base" and
# "big"), then `synapse recall` of the prompt's question on the big store, and `synapse recall -`
# of a 1 MiB question (a pasted log) on it.
#
# Targets (issue 10): each hook's median on the big store within 2 ms of its median on the base
# store; `synapse recall` p95 <= 50 ms; the 1 MiB question's median <= 100 ms. Times are whole
# processes as the hooks run them (hyperfine -N, `sh -c 'exec ...'`); the shell is in both sides
# of each difference. Exits 1 if a target is missed, 2 if the setup fails.

set -euo pipefail

MEMORIES=${MEMORIES:-10000}
RUNS=${RUNS:-30}
WARMUP=${WARMUP:-3}
BIG=${BIG:-20}
BIG_BYTES=${BIG_BYTES:-4194304}
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
OUT=${OUT:-$ROOT/target/bench/big.json}

fail() {
    echo "bench/big.sh: $*" >&2
    exit 2
}

for tool in hyperfine git sqlite3 jq python3; do
    command -v "$tool" >/dev/null || fail "needs $tool on PATH"
done

. "$ROOT/bench/fixture.sh"

echo "== a copy of the store with $BIG memories of $BIG_BYTES bytes"
BASE=$SYNAPSE_DATA
HUGE=$WORK/data-big
mkdir -p "$HUGE"
chmod 700 "$HUGE"
sqlite3 "$BASE/synapse.db" ".backup '$HUGE/synapse.db'"
python3 "$ROOT/bench/big-memories.py" "$BIG" "$BIG_BYTES" "$REPO" >"$WORK/big.jsonl"
SYNAPSE_DATA=$HUGE "$BIN/synapse" import "$WORK/big.jsonl" --project "$REPO"
big=$(sqlite3 "$HUGE/synapse.db" "SELECT count(*) FROM memories WHERE length(CAST(body AS BLOB)) >= $BIG_BYTES")
[ "$big" -eq "$BIG" ] || fail "expected $BIG big memories, found $big"

QUESTION=$(jq -r .prompt "$WORK/prompt-submit.json")
python3 - "$WORK/question-1mib.txt" <<'PY'
import sys
# A 1 MiB question: a pasted log of distinct lines, as a user might paste one into a search.
lines, size, i = [], 0, 0
while size < 1 << 20:
    line = f"2026-04-{i % 28 + 1:02d} worker-{i % 13} webhook delivery {i * 7919 % 100003} attempt {i % 5 + 1} timed out after 30s id={i * 2654435761 % 2**40:010x}"
    lines.append(line); size += len(line) + 1; i += 1
open(sys.argv[1], "w").write("\n".join(lines)[: 1 << 20])
PY

echo "== checking what each hook does on the big store"
KEEP_LOG=".dbconfig no_ckpt_on_close on"
for data in "$BASE" "$HUGE"; do
    sqlite3 -cmd "$KEEP_LOG" "$data/synapse.db" "DELETE FROM injected" >/dev/null
    SYNAPSE_DATA=$data "$BIN/synapse-prompt-submit" <"$WORK/prompt-submit.json" >"$WORK/out.txt"
    [ ! -e "$data/synapse.log" ] || fail "a hook failed: $(cat "$data/synapse.log")"
    grep -q '<synapse-memories>' "$WORK/out.txt" || fail "UserPromptSubmit printed no block on $data"
    [ "$(wc -c <"$WORK/out.txt")" -lt 9000 ] || fail "the block is too long"
done
grep -q 'abridged' "$WORK/out.txt" || fail "the big memories were not offered (abridged)"

reset_cmd() { echo "sqlite3 -cmd '$KEEP_LOG' $1/synapse.db 'DELETE FROM injected'"; }
hook_cmd() { echo "sh -c 'SYNAPSE_DATA=$1 exec $BIN/synapse-$2 < $WORK/$2.json'"; }

echo "== hyperfine: $WARMUP warmups, $RUNS runs"
mkdir -p "$(dirname "$OUT")"
args=()
for hook in session-start prompt-submit stop; do
    for side in base big; do
        data=$BASE
        [ "$side" = big ] && data=$HUGE
        args+=(--prepare "$(reset_cmd "$data")" -n "$hook $side" "$(hook_cmd "$data" "$hook")")
    done
done
args+=(--prepare true -n "recall big" \
    "sh -c 'cd $REPO && SYNAPSE_DATA=$HUGE exec $BIN/synapse recall \"\$0\" >/dev/null' '$QUESTION'")
args+=(--prepare true -n "recall 1 MiB question big" \
    "sh -c 'cd $REPO && SYNAPSE_DATA=$HUGE exec $BIN/synapse recall - < $WORK/question-1mib.txt >/dev/null'")
hyperfine -N --warmup "$WARMUP" --runs "$RUNS" --export-json "$OUT" --style basic "${args[@]}"
for data in "$BASE" "$HUGE"; do
    [ ! -e "$data/synapse.log" ] || fail "a hook failed while timed: $(cat "$data/synapse.log")"
done

echo
echo "== medians (ms), and the big store's extra cost"
jq -r '
  def ms: . * 1000 | . * 100 | round / 100;
  (.results | map({key: .command, value: .}) | from_entries) as $r
  | (["hook", "base", "big", "extra", "target", "ok"] | @tsv),
    (["session-start", "prompt-submit", "stop"][] as $h
      | ($r["\($h) base"].median | ms) as $b | ($r["\($h) big"].median | ms) as $g
      | [$h, $b, $g, (($g - $b) * 100 | round / 100), "<=2ms",
         (if $g - $b <= 2 then "yes" else "MISSED" end)] | @tsv),
    ($r["recall big"].times | sort | .[(length * 0.95 | floor)] | ms) as $p95
    | (["recall p95", "", $p95, "", "<=50ms", (if $p95 <= 50 then "yes" else "MISSED" end)] | @tsv),
    ($r["recall 1 MiB question big"].median | ms) as $q
    | (["1 MiB question", "", $q, "", "<=100ms", (if $q <= 100 then "yes" else "MISSED" end)] | @tsv)
' "$OUT" | column -t -s $'\t'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"

missed=$(jq '
  (.results | map({key: .command, value: .}) | from_entries) as $r
  | [(["session-start", "prompt-submit", "stop"][]
        | select($r["\(.) big"].median - $r["\(.) base"].median > 0.002)),
     ($r["recall big"].times | sort | .[(length * 0.95 | floor)] | select(. > 0.05)),
     ($r["recall 1 MiB question big"].median | select(. > 0.1))] | length
' "$OUT")
echo
echo "hyperfine results: $OUT"
if [ "$missed" -ne 0 ]; then
    echo "$missed target(s) missed" >&2
    exit 1
fi
echo "all targets met"
