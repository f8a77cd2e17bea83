#!/usr/bin/env bash
# What Claude Code's memory files cost the hooks (issue 32), whole process, as Claude Code runs
# them: the command of hooks/hooks.json, launcher included, and the hook binary alone beside it.
#
#   bench/sources.sh                 # 10,000 memories, 40 interleaved runs per condition
#   MEMORIES=2000 RUNS=60 bench/sources.sh
#
# 1. Unchanged files. The repository and store of bench/fixture.sh, SessionStart fed its payload
#    under two homes: one with no Claude Code files, one with 60 source files (the user's
#    CLAUDE.md, 9 user rules, MEMORY.md and 49 topic files in the project's auto-memory folder),
#    all folded once before timing, so every timed run only `stat`s them. The two conditions run
#    alternately (ABBA), so drift in the machine's speed falls on both; medians are compared.
#    The record of what the session was given is cleared before every run, as in hooks.sh.
#    Target: the median with 60 files within 1 ms of the median without.
# 2. First fold. 1,000 topic files folded into an empty store by `synapse sync` (every file, no
#    hook limit), 5 times, each into a fresh data folder; and a hook's first fold of the same
#    folder (bounded to `sources::HOOK`: 64 files). Target: `synapse sync` under 1 s (median).
#
# Exits 1 if a target is missed, 2 if the setup fails.

set -euo pipefail

MEMORIES=${MEMORIES:-10000}
RUNS=${RUNS:-40}
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)

fail() {
    echo "bench/sources.sh: $*" >&2
    exit 2
}

for tool in git sqlite3 jq python3; do
    command -v "$tool" >/dev/null || fail "needs $tool on PATH"
done

. "$ROOT/bench/fixture.sh"

# The client's folder key for the repository (docs/claude-code.md).
KEY=$(printf '%s' "$REPO" | sed 's/[^a-zA-Z0-9]/-/g')

topic() { # FOLDER N: one topic file as the client writes them
    cat >"$1/topic-$2.md" <<EOF
---
name: Topic $2
description: What the team learned about subsystem $2 of the shop backend
metadata:
  type: project
---
Subsystem $2 keeps its settings in config/subsystem-$2.toml and retries at most $(($2 % 7 + 2)) times.
**Why:** incident $2 showed that more retries overload the gateway.
**How to apply:** check the retry budget before changing subsystem $2.
EOF
}

echo "== homes: none, and 60 source files"
NONE=$WORK/home-none
SIXTY=$WORK/home-sixty
mkdir -p "$NONE" "$SIXTY/.claude/rules" "$SIXTY/.claude/projects/$KEY/memory"
printf '# Me\n\n- I prefer small pull requests.\n- Answer in English.\n' >"$SIXTY/.claude/CLAUDE.md"
for n in $(seq 1 9); do
    printf '# Rule %s\n\n- Keep module %s free of global state.\n' "$n" "$n" >"$SIXTY/.claude/rules/rule-$n.md"
done
MEMORY=$SIXTY/.claude/projects/$KEY/memory
: >"$MEMORY/MEMORY.md"
for n in $(seq 1 49); do
    topic "$MEMORY" "$n"
    printf -- '- [Topic %s](topic-%s.md) — subsystem %s\n' "$n" "$n" "$n" >>"$MEMORY/MEMORY.md"
done
files=$(find "$SIXTY/.claude" -name '*.md' | wc -l)
[ "$files" -eq 60 ] || fail "the home holds $files source files, not 60"

KEEP_LOG=".dbconfig no_ckpt_on_close on"
reset() { sqlite3 -cmd "$KEEP_LOG" "$DB" "DELETE FROM injected" >/dev/null; }
# Fold once under each home, and check the hook's output.
for home in "$NONE" "$SIXTY"; do
    reset
    HOME=$home "$BIN/synapse-session-start" <"$WORK/session-start.json" >"$WORK/out.txt"
    grep -q '<synapse-memories>' "$WORK/out.txt" || fail "SessionStart printed no block under $home"
done
[ ! -e "$SYNAPSE_DATA/synapse.log" ] || fail "a hook failed: $(cat "$SYNAPSE_DATA/synapse.log")"
folded=$(sqlite3 "$DB" "SELECT count(*) FROM sources")
[ "$folded" -eq 60 ] || fail "$folded source files folded, not 60"

echo "== interleaved: $RUNS runs per condition"
python3 - "$RUNS" "$BIN" "$ROOT" "$WORK/session-start.json" "$DB" "$NONE" "$SIXTY" <<'EOF' >"$WORK/unchanged.json"
import json, os, statistics, subprocess, sys, time
runs, bin_dir, root, payload, db, none, sixty = sys.argv[1:]
runs = int(runs)
hook = f'"{root}/bin/synapse-hook" session-start'  # hooks/hooks.json, with the plugin root
commands = {
    "launcher": ["sh", "-c", f"exec {hook} < {payload}"],
    "binary": ["sh", "-c", f"exec {bin_dir}/synapse-session-start < {payload}"],
}
env = dict(os.environ, SYNAPSE_BIN_DIR=bin_dir, CLAUDE_PLUGIN_ROOT=root)
times = {(c, h): [] for c in commands for h in ("none", "sixty")}
homes = {"none": none, "sixty": sixty}
for i in range(runs):
    order = ["none", "sixty", "sixty", "none"] if i % 2 == 0 else ["sixty", "none", "none", "sixty"]
    for name in order:
        for command, argv in commands.items():
            subprocess.run(["sqlite3", "-cmd", ".dbconfig no_ckpt_on_close on", db,
                            "DELETE FROM injected"], check=True, stdout=subprocess.DEVNULL)
            start = time.perf_counter_ns()
            subprocess.run(argv, env=dict(env, HOME=homes[name]), check=True,
                           stdout=subprocess.DEVNULL)
            times[(command, name)].append((time.perf_counter_ns() - start) / 1e6)
out = {f"{c}/{h}": {"median_ms": round(statistics.median(v), 3), "runs": len(v)}
       for (c, h), v in times.items()}
print(json.dumps(out))
EOF
[ ! -e "$SYNAPSE_DATA/synapse.log" ] || fail "a hook failed while timed: $(cat "$SYNAPSE_DATA/synapse.log")"

echo "== first fold of 1,000 topic files"
THOUSAND=$WORK/home-thousand
TMEM=$THOUSAND/.claude/projects/$KEY/memory
mkdir -p "$TMEM"
for n in $(seq 1 1000); do topic "$TMEM" "$n"; done
python3 - "$BIN" "$REPO" "$THOUSAND" "$WORK" "$WORK/session-start.json" <<'EOF' >"$WORK/first.json"
import json, os, statistics, subprocess, sys, time
bin_dir, repo, home, work, payload = sys.argv[1:]
def fresh(n):
    data = f"{work}/fold-data-{n}"
    return dict(os.environ, HOME=home, SYNAPSE_DATA=data)
sync, hook = [], []
for n in range(5):
    env = fresh(f"sync-{n}")
    start = time.perf_counter_ns()
    out = subprocess.run([f"{bin_dir}/synapse", "sync", "--json"], cwd=repo, env=env,
                         check=True, capture_output=True)
    sync.append((time.perf_counter_ns() - start) / 1e6)
    report = json.loads(out.stdout)["sources"]
    assert report["added"] == 1000, report
    env = fresh(f"hook-{n}")
    with open(payload, "rb") as stdin:
        start = time.perf_counter_ns()
        subprocess.run([f"{bin_dir}/synapse-session-start"], cwd=repo, env=env, check=True,
                       stdin=stdin, stdout=subprocess.DEVNULL)
        hook.append((time.perf_counter_ns() - start) / 1e6)
print(json.dumps({"sync_1000_median_ms": round(statistics.median(sync), 1),
                  "hook_first_fold_median_ms": round(statistics.median(hook), 1)}))
EOF

jq -s -r '
  .[0] as $u | .[1] as $f
  | ($u["launcher/sixty"].median_ms - $u["launcher/none"].median_ms) as $dl
  | ($u["binary/sixty"].median_ms - $u["binary/none"].median_ms) as $db
  | "SessionStart median, hooks.json command (launcher): none \($u["launcher/none"].median_ms) ms, 60 files \($u["launcher/sixty"].median_ms) ms, difference \($dl * 1000 | round / 1000) ms",
    "SessionStart median, hook binary alone:               none \($u["binary/none"].median_ms) ms, 60 files \($u["binary/sixty"].median_ms) ms, difference \($db * 1000 | round / 1000) ms",
    "first fold of 1,000 topic files: synapse sync \($f.sync_1000_median_ms) ms (median of 5); a hook folding its first 64: \($f.hook_first_fold_median_ms) ms",
    (if ($dl <= 1 and $db <= 1 and $f.sync_1000_median_ms < 1000) then "targets: met" else "targets: MISSED" end)
' "$WORK/unchanged.json" "$WORK/first.json" | tee "$WORK/summary.txt"
grep -q 'targets: met' "$WORK/summary.txt" || exit 1
