#!/usr/bin/env bash
# Two builds' hooks, old and new, timed as the client runs them (the launcher from each build's
# checkout, through a shell), alternated in rounds in one run, so a busy machine slows both alike.
#
#   OLD=/path/to/old/checkout OLD_BIN=/path/to/old/release NEW_BIN=/path/to/new/release \
#   GENERATE=/path/to/release/examples/drift bench/compare.sh
#   MEMORIES=10000 ROUNDS=6 RUNS=10 ...    # the defaults
#
# Each build gets its own data folder (a newer build migrates a store the older cannot open) with
# MEMORIES generated project memories of one repository (bench/fixture.sh's), and the same
# payloads: SessionStart, UserPromptSubmit, and Stop with a 4 KB lesson holding no secret (the
# detector's cost on ordinary prose). Before each timed run of SessionStart and UserPromptSubmit
# the record of what the session was given is cleared, as bench/hooks.sh does. Prints each hook's
# median per build over all rounds, and its CPU time (user + system: what a busy machine moves
# least), with the load average before and after.

set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
MEMORIES=${MEMORIES:-10000}
ROUNDS=${ROUNDS:-6}
RUNS=${RUNS:-10}

fail() {
    echo "bench/compare.sh: $*" >&2
    exit 2
}
for tool in hyperfine git sqlite3 jq python3; do
    command -v "$tool" >/dev/null || fail "needs $tool on PATH"
done
for v in OLD OLD_BIN NEW_BIN GENERATE; do
    [ -n "${!v:-}" ] || fail "set $v (see the top of this file)"
done
for bin in "$OLD_BIN" "$NEW_BIN"; do
    for b in synapse synapse-session-start synapse-prompt-submit synapse-stop; do
        [ -x "$bin/$b" ] || fail "missing $bin/$b"
    done
done
unset SYNAPSE_BUDGET SYNAPSE_SESSION_START SYNAPSE_PROMPT_SUBMIT SYNAPSE_STOP SYNAPSE_NOTICE

# The repository and payloads of bench/fixture.sh, made once, with the new build's binaries for
# its own store; the old build's store is imported from the same memories below.
BIN=$NEW_BIN
. "$ROOT/bench/fixture.sh"
NEW_DATA=$SYNAPSE_DATA
OLD_DATA=$WORK/data-old
SYNAPSE_DATA=$OLD_DATA "$OLD_BIN/synapse" import "$WORK/memories.jsonl" --project "$REPO" >/dev/null

# A 4 KB lesson of ordinary prose, no secret in it.
lesson=$(python3 -c 'import sys; s = "Webhook deliveries back off exponentially from 200 ms and give up after five attempts; the receiver dedupes by delivery id, so a retry after a timeout is safe. "; sys.stdout.write((s * 40)[:4096].rstrip())')
jq -nc --arg s "$SESSION" --arg c "$REPO" --arg t "$TRANSCRIPT" --arg l "$lesson" \
    '{session_id:$s, transcript_path:$t, cwd:$c, hook_event_name:"Stop", stop_hook_active:false,
      last_assistant_message:("Done.\n\nremember: " + $l + "\n")}' >"$WORK/stop.json"

# One build's hook as the client runs it: its checkout's launcher, its binaries, its data.
command_for() { # CHECKOUT BIN DATA HOOK PAYLOAD
    printf "sh -c 'CLAUDE_PLUGIN_ROOT=%s SYNAPSE_BIN_DIR=%s SYNAPSE_DATA=%s; export CLAUDE_PLUGIN_ROOT SYNAPSE_BIN_DIR SYNAPSE_DATA; exec %s/bin/synapse-hook %s < %s'" \
        "$1" "$2" "$3" "$1" "$4" "$5"
}
reset_for() { printf "sqlite3 %s/synapse.db 'DELETE FROM injected'" "$1"; }

for pair in "old:$OLD:$OLD_BIN:$OLD_DATA" "new:$ROOT:$NEW_BIN:$NEW_DATA"; do
    IFS=: read -r name checkout bin data <<<"$pair"
    for hook in session-start prompt-submit stop; do
        payload=$WORK/${hook}.json
        out=$(CLAUDE_PLUGIN_ROOT=$checkout SYNAPSE_BIN_DIR=$bin SYNAPSE_DATA=$data \
            "$checkout/bin/synapse-hook" "$hook" <"$payload")
        [ -n "$out" ] || fail "$name $hook printed nothing"
    done
    [ ! -e "$data/synapse.log" ] || fail "$name: a hook failed: $(cat "$data/synapse.log")"
    sqlite3 "$data/synapse.db" 'DELETE FROM injected'
done

echo "== load before: $(uptime)"
for round in $(seq "$ROUNDS"); do
    for pair in "old:$OLD:$OLD_BIN:$OLD_DATA" "new:$ROOT:$NEW_BIN:$NEW_DATA"; do
        IFS=: read -r name checkout bin data <<<"$pair"
        hyperfine -N --warmup 2 --runs "$RUNS" --style none --export-json "$WORK/$name-$round.json" \
            --prepare "$(reset_for "$data")" --prepare "$(reset_for "$data")" --prepare true \
            -n SessionStart "$(command_for "$checkout" "$bin" "$data" session-start "$WORK/session-start.json")" \
            -n UserPromptSubmit "$(command_for "$checkout" "$bin" "$data" prompt-submit "$WORK/prompt-submit.json")" \
            -n Stop "$(command_for "$checkout" "$bin" "$data" stop "$WORK/stop.json")" >/dev/null
    done
done
echo "== load after: $(uptime)"
python3 - "$WORK" "$ROUNDS" <<'EOF'
import json, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
times, cpu = {}, {}
for name in ("old", "new"):
    for r in range(1, rounds + 1):
        for res in json.load(open(f"{work}/{name}-{r}.json"))["results"]:
            key = (res["command"], name)
            times.setdefault(key, []).extend(res["times"])
            cpu.setdefault(key, []).append(res["user"] + res["system"])
print(f"{'hook':<18}{'old ms':>9}{'new ms':>9}{'new - old':>11}{'old CPU':>10}{'new CPU':>10}{'new - old':>11}")
for hook in ("SessionStart", "UserPromptSubmit", "Stop"):
    old = statistics.median(times[(hook, "old")]) * 1000
    new = statistics.median(times[(hook, "new")]) * 1000
    old_cpu = statistics.median(cpu[(hook, "old")]) * 1000
    new_cpu = statistics.median(cpu[(hook, "new")]) * 1000
    print(f"{hook:<18}{old:>9.2f}{new:>9.2f}{new - old:>+11.2f}{old_cpu:>10.2f}{new_cpu:>10.2f}{new_cpu - old_cpu:>+11.2f}")
print(f"(wall: medians of every run of {rounds} alternated rounds; CPU: user + system, the median of the rounds' means)")
EOF
