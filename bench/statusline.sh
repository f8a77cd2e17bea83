#!/usr/bin/env bash
# Whole-process latency of `synapse statusline` on a store of MEMORIES memories, with hyperfine.
#
#   bench/statusline.sh            # 10,000 memories, 3 warmups, 50 runs
#   MEMORIES=50000 RUNS=100 bench/statusline.sh
#
# It builds the store, repository and payloads as bench/hooks.sh does (bench/fixture.sh), runs
# SessionStart once so the session has memories handed to it (the line checks which of those
# were replaced since), writes the client's status-line input for that session, and times the
# verb fed it, beside `sh -c true` (the feeding shell, as in bench/hooks.sh; "net" is the verb
# minus the shell). Target: net median under 5 ms (issue 36). Exits 1 if missed, 2 if the setup
# fails.

set -euo pipefail

MEMORIES=${MEMORIES:-10000}
RUNS=${RUNS:-50}
WARMUP=${WARMUP:-3}
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
OUT=${OUT:-$ROOT/target/bench/statusline.json}

fail() {
    echo "bench/statusline.sh: $*" >&2
    exit 2
}

for tool in hyperfine git sqlite3 jq; do
    command -v "$tool" >/dev/null || fail "needs $tool on PATH"
done

. "$ROOT/bench/fixture.sh"

"$BIN/synapse-session-start" <"$WORK/session-start.json" >/dev/null
jq -nc --arg s "$SESSION" --arg c "$REPO" --arg t "$TRANSCRIPT" \
    '{session_id:$s, transcript_path:$t, cwd:$c, model:{id:"claude-opus-4-1", display_name:"Opus"},
      workspace:{current_dir:$c, project_dir:$c, added_dirs:[]}, version:"2.1.332"}' \
    >"$WORK/statusline.json"

echo "== checking the line"
line=$("$BIN/synapse" statusline <"$WORK/statusline.json")
[ ! -e "$SYNAPSE_DATA/synapse.log" ] || fail "the status line failed: $(cat "$SYNAPSE_DATA/synapse.log")"
case $line in
"Synapse · 999+ memories"*) echo "   $line" ;; # counting stops at 999 (COUNT_CAP)
*) fail "unexpected line: $line" ;;
esac

echo "== timing ($RUNS runs)"
mkdir -p "$(dirname "$OUT")"
hyperfine -N --warmup "$WARMUP" --runs "$RUNS" --export-json "$OUT" \
    -n statusline "sh -c 'exec $BIN/synapse statusline < $WORK/statusline.json'" \
    -n shell "sh -c true" >/dev/null
ms() { jq -r --arg n "$1" '.results[] | select(.command == $n) | .median * 1000' "$OUT"; }
status=$(ms statusline)
shell=$(ms shell)
net=$(echo "$status - $shell" | bc -l)
printf '   median: statusline %.2f ms, shell %.2f ms, net %.2f ms (target < 5 ms)\n' "$status" "$shell" "$net"
[ "$(echo "$net < 5" | bc -l)" = 1 ] || exit 1
