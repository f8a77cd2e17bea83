#!/usr/bin/env bash
# Run every fuzz target for SECONDS each (default 60) with libFuzzer on the stable toolchain
# (cargo fuzz, no sanitizer: the stable compiler has none), and print executions per target.
# Needs cargo-fuzz (`cargo install cargo-fuzz`). A crash leaves its input in artifacts/TARGET/ and
# stops this script; every crash found becomes a regression test.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-60}
for target in $(cargo fuzz list); do
  log=$(mktemp)
  cargo fuzz run --sanitizer none -O "$target" -- -max_total_time="$seconds" >"$log" 2>&1 || {
    tail -40 "$log"; echo "fuzz target $target failed" >&2; exit 1; }
  echo "$target: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$log")"
  rm -f "$log"
done
