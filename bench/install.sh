#!/usr/bin/env bash
# From plugin install to the first injected memory on a machine without Rust, in both Claude Code
# clients: tests/e2e_install.rs's first test (a copy of the plugin's files, a fresh HOME, a PATH
# without cargo or rustc, the release archive served on 127.0.0.1), timed from the first session's
# start to the later session that injects. Target: under 60 s. RUNS (default 3) runs per client;
# prints each figure and the median per client; exits 1 if a median misses the target.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
cd "$ROOT"
RUNS=${RUNS:-3}
for client in pinned newest; do
    figures=()
    for _ in $(seq "$RUNS"); do
        out=$(cargo test --quiet --test integration -- --ignored --nocapture --exact \
            "e2e_install::the_first_session_downloads_and_a_later_one_injects::case_$([ $client = pinned ] && echo 1_pinned || echo 2_newest)" 2>&1) ||
            { echo "$out" >&2; echo "bench/install.sh: the test failed" >&2; exit 2; }
        figure=$(sed -n 's/^install to the first injected memory: \([0-9.]*\) s$/\1/p' <<<"$out")
        [ -n "$figure" ] || { echo "$out" >&2; echo "bench/install.sh: no figure printed" >&2; exit 2; }
        figures+=("$figure")
    done
    median=$(printf '%s\n' "${figures[@]}" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')
    echo "$client: ${figures[*]} s; median $median s (target < 60 s)"
    awk -v m="$median" 'BEGIN {exit !(m < 60)}' || { echo "$client: target missed" >&2; exit 1; }
done
