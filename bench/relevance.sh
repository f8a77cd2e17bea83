#!/usr/bin/env bash
# Relevance on every labeled set, Synapse beside plain bm25 in the same run (`synapse eval
# --compare`): each set loaded into a store of its own, balanced budget, each half scored apart.
#
#   bench/relevance.sh              # the dev halves (what tuning may look at)
#   HALF=test bench/relevance.sh    # the test halves: report them, do not tune on them
#   HALF=all bench/relevance.sh     # every case
#
# Sets: eval/coding, eval/platform and, when present, LoCoMo dev ($LOCOMO, default
# ../shared/bench/locomo-dev, never copied into the project). Builds the release binary first.
# Exits 2 if the setup fails.

set -euo pipefail

HALF=${HALF:-dev}
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
LOCOMO=${LOCOMO:-$ROOT/../shared/bench/locomo-dev}

fail() {
    echo "bench/relevance.sh: $*" >&2
    exit 2
}

cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" || fail "the build failed"
SYNAPSE=${CARGO_TARGET_DIR:-$ROOT/target}/release/synapse
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

sets=("$ROOT/eval/coding" "$ROOT/eval/platform")
if [[ -f $LOCOMO/cases.toml ]]; then
    sets+=("$LOCOMO")
else
    echo "bench/relevance.sh: no LoCoMo dev at $LOCOMO; scoring the project's sets only" >&2
fi

half=()
[[ $HALF == all ]] || half=(--half "$HALF")
for set in "${sets[@]}"; do
    name=$(basename "$set")
    export SYNAPSE_DATA=$WORK/$name
    "$SYNAPSE" import "$set/memories.jsonl" >/dev/null 2>&1 || fail "could not import $set"
    echo "== $name ($HALF)"
    "$SYNAPSE" eval --compare "${half[@]}" "$set/cases.toml"
done
