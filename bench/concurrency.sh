#!/usr/bin/env bash
# The full concurrency run of issue 10: writers and hook processes on one store at once.
#
#   bench/concurrency.sh                       # 8 writers + 8 hook processes for 30 s
#   SECS=60 WRITERS=12 HOOKS=12 bench/concurrency.sh
#
# It is tests/concurrency.rs with its long settings, in a release build: 8 threads each run
# `synapse remember` / `forget` / `supersede` in a loop, 8 more each run the SessionStart,
# UserPromptSubmit and Stop hooks (Stop with a `remember:` lesson) in a loop, all on one store,
# for SECS seconds. Then it checks that every acknowledged write and every lesson is in the store
# (each lesson exactly once), that no hook logged a failure, and PRAGMA integrity_check. The last
# line printed before the test result gives the counts.
set -euo pipefail
cd "$(dirname "$0")/.."
SYNAPSE_STRESS_SECS=${SECS:-30} \
SYNAPSE_STRESS_WRITERS=${WRITERS:-8} \
SYNAPSE_STRESS_HOOKS=${HOOKS:-8} \
    cargo test --release --locked --test integration -- --nocapture concurrency::
