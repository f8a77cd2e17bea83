#!/usr/bin/env bash
# The MCP server's speed, whole process (examples/mcp.rs), with the binary built as the plugin
# builds it (bin/synapse-compile, statically linked where the platform allows).
#
#   bench/mcp.sh                   # 10,000 memories, 30 runs of each measurement
#   MEMORIES=50000 RUNS=50 bench/mcp.sh
#
# Targets (medians): spawn to the `initialize` answer <= 10 ms; a `tools/call recall` round trip
# on 10,000 memories <= 5 ms (a term in every thousandth memory, and a term in every memory).
# Exits 1 if one is missed, 2 if the setup fails.

set -euo pipefail

MEMORIES=${MEMORIES:-10000}
RUNS=${RUNS:-30}
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
OUT=${OUT:-$ROOT/target/bench/mcp.json}

fail() {
    echo "bench/mcp.sh: $*" >&2
    exit 2
}
command -v jq >/dev/null || fail "needs jq on PATH"

cd "$ROOT"
echo "== building release binaries (bin/synapse-compile)"
mkdir -p "$ROOT/target/bench"
CARGO_TARGET_DIR=$ROOT/target/bench/build "$ROOT/bin/synapse-compile" "$ROOT/target/bench/install" \
    >"$ROOT/target/bench/build.log" 2>&1 || fail "the build failed: see target/bench/build.log"
SYNAPSE_MCP=$ROOT/target/bench/install/bin/synapse-mcp
[ -x "$SYNAPSE_MCP" ] || fail "missing $SYNAPSE_MCP"
cargo build --release --example mcp --quiet || fail "cargo build failed"

echo "== $MEMORIES memories, $RUNS runs each"
SYNAPSE_MCP=$SYNAPSE_MCP "$ROOT/target/release/examples/mcp" "$MEMORIES" "$RUNS" >"$OUT" ||
    fail "the measurement failed"
jq -r '
  (["measurement", "p50_ms", "p95_ms", "max_ms", "response_bytes"] | @tsv),
  (.measurements[] | [.name, (.p50_ms * 100 | round / 100), (.p95_ms * 100 | round / 100),
                      (.max_ms * 100 | round / 100), .response_bytes] | @tsv)
' "$OUT" | column -t -s $'\t'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"

missed=$(jq '
  (.measurements | map({key: .name, value: .p50_ms}) | from_entries) as $m
  | [["spawn_to_initialize", 10], ["recall_selective", 5], ["recall_common", 5]]
  | map(. as [$name, $target] | select($m[$name] > $target)) | length
' "$OUT")
echo
echo "results: $OUT"
if [ "$missed" -ne 0 ]; then
    echo "$missed target(s) missed (spawn_to_initialize <= 10 ms, recall <= 5 ms)" >&2
    exit 1
fi
echo "all targets met"
