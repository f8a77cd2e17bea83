#!/usr/bin/env bash
# What Claude Code's memory files cost the hooks, whole process, as the client runs them: the
# command of hooks/hooks.json, launcher included, timed with hyperfine.
#
#   bench/sources.sh                        # 10,000 memories in the store; 1,000 and 10,000 topic files
#   ROUNDS=20 RUNS=3 bench/sources.sh
#   TOPICS="1000 10000 30000" bench/sources.sh
#   BIN=DIR bench/sources.sh                # binaries already built (else bin/synapse-compile builds them)
#   BASE_BIN=DIR bench/sources.sh           # also another build's binaries (say main's), in the same rounds
#   KEEP=1 bench/sources.sh                 # keep the temporary folders
#
# The repository and store of bench/fixture.sh (10,000 memories, a feature branch with changed
# files); SessionStart and UserPromptSubmit fed their payloads. One condition per home: "none"
# (no Claude Code files), and one per count in TOPICS (that many topic files in the project's
# auto-memory folder, as the client writes them, dated a minute apart, and a MEMORY.md indexing
# the first 150). Each condition has its own copy of the store (and, with BASE_BIN, each of the
# base build's conditions its own too: a store is written by one schema).
#
# 1. Steady state. Every home's files folded first (`synapse sync`), then ROUNDS rounds of one
#    hyperfine invocation each, RUNS runs per command (after a warmup), the conditions in
#    alternating order from one round to the next, so drift in the machine's speed falls on all of
#    them; every run's time is kept and the medians over all rounds compared. The record of what a
#    session was given is cleared before every run (as in bench/hooks.sh), so each run does the
#    whole path. Target: each hook's median with topic files within 1.5x of its median with none.
# 2. The first hook. SessionStart into a fresh copy of the store (nothing of the files folded
#    yet), RUNS_FIRST times. Target: median under 50 ms. Then the hooks after it, one after
#    another, until every topic file is folded: how many, their median and the slowest.
# 3. `synapse sync` folding each count of topic files into a fresh store (median of 3).
#
# Exits 1 if a target is missed, 2 if the setup fails.

set -euo pipefail

MEMORIES=${MEMORIES:-10000}
TOPICS=${TOPICS:-1000 10000}
ROUNDS=${ROUNDS:-10}
RUNS=${RUNS:-4}
RUNS_FIRST=${RUNS_FIRST:-10}
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)

fail() {
    echo "bench/sources.sh: $*" >&2
    exit 2
}

for tool in git sqlite3 jq python3 hyperfine; do
    command -v "$tool" >/dev/null || fail "needs $tool on PATH (hyperfine: cargo install hyperfine --locked)"
done
case "$ROOT" in *[[:space:]\'\"]*) fail "the checkout's path holds a space or quote: bench it from another folder" ;; esac
[ "$(jq -r '.hooks.SessionStart[0].hooks[0].args[0]' "$ROOT/hooks/hooks.json")" = session-start ] ||
    fail "hooks/hooks.json no longer runs bin/synapse-hook session-start"

. "$ROOT/bench/fixture.sh"
FIXTURE=$WORK/data-fixture
cp -a "$SYNAPSE_DATA" "$FIXTURE"
if [ -n "${BASE_BIN:-}" ]; then
    [ -x "$BASE_BIN/synapse-session-start" ] || fail "BASE_BIN=$BASE_BIN holds no hook binaries"
    # The base build's own copy of the fixture store, migrated (or not) by its own binary.
    BASE_FIXTURE=$WORK/data-base-fixture
    cp -a "$SYNAPSE_DATA" "$BASE_FIXTURE"
fi

# The client's folder key for the repository (docs/claude-code.md).
KEY=$(printf '%s' "$REPO" | sed 's/[^a-zA-Z0-9]/-/g')
KEEP_LOG=".dbconfig no_ckpt_on_close on"

make_home() { # COUNT: a home whose auto-memory folder holds COUNT topic files
    local home=$WORK/home-$1
    mkdir -p "$home/.claude/projects/$KEY/memory"
    python3 - "$home/.claude/projects/$KEY/memory" "$1" <<'EOF'
import os, sys
folder, count = sys.argv[1], int(sys.argv[2])
index = []
for n in range(count):
    with open(f"{folder}/topic-{n}.md", "w") as f:
        f.write(f"""---
name: Topic {n}
description: What the team learned about subsystem {n} of the shop backend
metadata:
  type: project
---
Subsystem {n} keeps its settings in config/subsystem-{n}.toml and retries at most {n % 7 + 2} times.
**Why:** incident {n} showed that more retries overload the gateway.
**How to apply:** check the retry budget before changing subsystem {n}.
""")
    # Older files first, a minute apart, as a folder written over time.
    os.utime(f"{folder}/topic-{n}.md", (1_700_000_000 + n * 60,) * 2)
    if n < 150:
        index.append(f"- [Topic {n}](topic-{n}.md) — subsystem {n}\n")
with open(f"{folder}/MEMORY.md", "w") as f:
    f.write("".join(index))
EOF
}

texts_jsonl() { # COUNT: the topic files' texts as Synapse memories of the repository, no files
    python3 - "$REPO" "$1" <<'EOF' >"$WORK/texts-$1.jsonl"
import datetime, json, sys
repo, count = sys.argv[1], int(sys.argv[2])
for n in range(count):
    at = datetime.datetime.fromtimestamp(1_700_000_000 + n * 60, datetime.timezone.utc)
    body = (f"What the team learned about subsystem {n} of the shop backend\n\n"
            f"Subsystem {n} keeps its settings in config/subsystem-{n}.toml and retries at most {n % 7 + 2} times.\n"
            f"**Why:** incident {n} showed that more retries overload the gateway.\n"
            f"**How to apply:** check the retry budget before changing subsystem {n}.")
    print(json.dumps({"body": body, "project": repo, "source": f"topic {n}",
                      "created_at": at.strftime("%Y-%m-%dT%H:%M:%SZ")}))
EOF
}

# A condition: NAME -> its home, store and binaries. "none" and each count, and "base-" of each
# with BASE_BIN.
declare -A HOMES DATAS BINS
CONDITIONS=""
mkdir -p "$WORK/home-none"
for count in none $TOPICS; do
    [ "$count" = none ] || make_home "$count"
    for build in new ${BASE_BIN:+base}; do
        name=$count
        [ "$build" = new ] || name=base-$count
        HOMES[$name]=$WORK/home-$count
        DATAS[$name]=$WORK/data-$name
        if [ "$build" = new ]; then BINS[$name]=$BIN; else BINS[$name]=$BASE_BIN; fi
        CONDITIONS="$CONDITIONS $name"
    done
    # The control: the same texts stored as Synapse memories, and no files (this build only),
    # which tells what the files cost from what the memories they become cost.
    if [ "$count" != none ]; then
        texts_jsonl "$count"
        HOMES[texts-$count]=$WORK/home-none
        DATAS[texts-$count]=$WORK/data-texts-$count
        BINS[texts-$count]=$BIN
        CONDITIONS="$CONDITIONS texts-$count"
    fi
done

echo "== folding each home's files into its store: $CONDITIONS"
for c in $CONDITIONS; do
    if [ "${BINS[$c]}" = "$BIN" ]; then cp -a "$FIXTURE" "${DATAS[$c]}"; else cp -a "$BASE_FIXTURE" "${DATAS[$c]}"; fi
    case "$c" in texts-*)
        SYNAPSE_DATA=${DATAS[$c]} "$BIN/synapse" import "$WORK/$c.jsonl" --project "$REPO" >/dev/null ||
            fail "importing the texts of $c failed" ;;
    esac
    (cd "$REPO" && HOME=${HOMES[$c]} SYNAPSE_DATA=${DATAS[$c]} "${BINS[$c]}/synapse" sync) >"$WORK/sync-$c.txt" ||
        fail "synapse sync failed under $c"
done

# A hook as hooks/hooks.json runs it (exec form: the launcher with its argument, the client
# starting it), fed PAYLOAD, under condition C.
client_command() { # C EVENT-ARG PAYLOAD
    printf "sh -c 'CLAUDE_PLUGIN_ROOT=%s SYNAPSE_BIN_DIR=%s HOME=%s SYNAPSE_DATA=%s; export CLAUDE_PLUGIN_ROOT SYNAPSE_BIN_DIR HOME SYNAPSE_DATA; exec \"%s/bin/synapse-hook\" %s < %s'" \
        "$ROOT" "${BINS[$1]}" "${HOMES[$1]}" "${DATAS[$1]}" "$ROOT" "$2" "$3"
}
reset_command() { # C
    printf "sqlite3 -cmd '%s' %s 'DELETE FROM injected'" "$KEEP_LOG" "${DATAS[$1]}/synapse.db"
}

echo "== checking each hook under each condition"
for c in $CONDITIONS; do
    for hook in session-start prompt-submit; do
        eval "$(reset_command "$c")" >/dev/null
        eval "$(client_command "$c" "$hook" "$WORK/$hook.json")" >"$WORK/out-$c-$hook.txt"
        grep -q 'synapse-memories' "$WORK/out-$c-$hook.txt" || fail "$hook printed no block under $c"
    done
    [ ! -e "${DATAS[$c]}/synapse.log" ] || fail "a hook failed under $c: $(cat "${DATAS[$c]}/synapse.log")"
done

echo "== steady state: $ROUNDS rounds of hyperfine, $RUNS runs per command, order alternating"
: >"$WORK/commands.tsv"
for c in $CONDITIONS; do
    for hook in session-start prompt-submit; do
        printf '%s/%s\t%s\t%s\n' "$c" "$hook" "$(client_command "$c" "$hook" "$WORK/$hook.json")" \
            "$(reset_command "$c")" >>"$WORK/commands.tsv"
    done
done
python3 - "$ROUNDS" "$RUNS" "$WORK" <<'EOF' >"$WORK/steady.json"
import json, statistics, subprocess, sys
rounds, runs, work = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
commands = [line.split("\t") for line in open(f"{work}/commands.tsv").read().splitlines()]
times = {name: [] for name, _, _ in commands}
cpu = {name: [] for name, _, _ in commands}
for r in range(rounds):
    order = commands if r % 2 == 0 else commands[::-1]
    argv = ["hyperfine", "-N", "--runs", str(runs), "--warmup", "1", "--style", "none",
            "--export-json", f"{work}/round.json"]
    for _, _, reset in order:
        argv += ["--prepare", reset]
    for name, command, _ in order:
        argv += ["-n", name, command]
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    for result in json.load(open(f"{work}/round.json"))["results"]:
        times[result["command"]].extend(t * 1000 for t in result["times"])
        cpu[result["command"]].append((result["user"] + result["system"]) * 1000)
print(json.dumps({name: {"median_ms": round(statistics.median(v), 2), "runs": len(v),
                         "cpu_ms": round(statistics.mean(cpu[name]), 2)}
                  for name, v in times.items()}))
EOF
for c in $CONDITIONS; do
    [ ! -e "${DATAS[$c]}/synapse.log" ] || fail "a hook failed while timed under $c: $(cat "${DATAS[$c]}/synapse.log")"
done

echo "== the first hook into a store with nothing folded ($RUNS_FIRST runs), and the hooks after it"
FIRST=$WORK/data-first
: >"$WORK/first.tsv"
for c in $CONDITIONS; do
    case "$c" in none | base-none | texts-*) continue ;; esac
    fixture=$FIXTURE
    [ "${BINS[$c]}" = "$BIN" ] || fixture=$BASE_FIXTURE
    command="sh -c 'CLAUDE_PLUGIN_ROOT=$ROOT SYNAPSE_BIN_DIR=${BINS[$c]} HOME=${HOMES[$c]} SYNAPSE_DATA=$FIRST; export CLAUDE_PLUGIN_ROOT SYNAPSE_BIN_DIR HOME SYNAPSE_DATA; exec \"$ROOT/bin/synapse-hook\" session-start < $WORK/session-start.json'"
    hyperfine -N --runs "$RUNS_FIRST" --style none --export-json "$WORK/first-$c.json" \
        --prepare "sh -c 'rm -rf $FIRST && cp -a $fixture $FIRST'" "$command" >/dev/null
    [ ! -e "$FIRST/synapse.log" ] || fail "the first hook failed under $c: $(cat "$FIRST/synapse.log")"
    rm -rf "$FIRST" && cp -a "$fixture" "$FIRST"
    python3 - "$ROOT" "${BINS[$c]}" "${HOMES[$c]}" "$FIRST" "$WORK/session-start.json" "$c" <<'EOF' >>"$WORK/first.tsv"
import json, os, sqlite3, statistics, subprocess, sys, time
root, bin_dir, home, data, payload, name = sys.argv[1:]
count = int(name.removeprefix("base-"))
env = dict(os.environ, CLAUDE_PLUGIN_ROOT=root, SYNAPSE_BIN_DIR=bin_dir, HOME=home, SYNAPSE_DATA=data)
times, folded = [], 0
# A build that never folds them all (a cap it does not lift) stops after this many hooks.
for hook in range(count // 60 + 20):
    with open(payload, "rb") as stdin:
        start = time.perf_counter_ns()
        subprocess.run([f"{root}/bin/synapse-hook", "session-start"], env=env, stdin=stdin,
                       stdout=subprocess.DEVNULL, check=True)
        times.append((time.perf_counter_ns() - start) / 1e6)
    db = sqlite3.connect(f"{data}/synapse.db")
    folded, = db.execute("SELECT count(*) FROM sources WHERE kind = 'topic' AND size >= 0").fetchone()
    db.close()
    if folded == count:
        break
later = times[1:] or [0.0]
print(json.dumps({"name": name, "hooks": len(times), "folded": folded, "count": count,
                  "later_median_ms": round(statistics.median(later), 1),
                  "later_max_ms": round(max(later), 1)}))
EOF
done

echo "== synapse sync folding the topic files into a fresh store (median of 3)"
: >"$WORK/sync.tsv"
for c in $CONDITIONS; do
    case "$c" in none | base-none | texts-*) continue ;; esac
    fixture=$FIXTURE
    [ "${BINS[$c]}" = "$BIN" ] || fixture=$BASE_FIXTURE
    python3 - "${BINS[$c]}" "$REPO" "${HOMES[$c]}" "$fixture" "$WORK" "$c" <<'EOF' >>"$WORK/sync.tsv"
import json, os, shutil, statistics, subprocess, sys, time
bin_dir, repo, home, fixture, work, name = sys.argv[1:]
times = []
for n in range(3):
    data = f"{work}/data-sync"
    shutil.rmtree(data, ignore_errors=True)
    shutil.copytree(fixture, data)
    env = dict(os.environ, HOME=home, SYNAPSE_DATA=data)
    start = time.perf_counter_ns()
    subprocess.run([f"{bin_dir}/synapse", "sync"], cwd=repo, env=env, check=True,
                   stdout=subprocess.DEVNULL)
    times.append((time.perf_counter_ns() - start) / 1e6)
print(json.dumps({"name": name, "median_ms": round(statistics.median(times))}))
EOF
done

echo
echo "== medians (ms), the hooks.json command, launcher included"
python3 - "$WORK" "$TOPICS" <<'EOF' | tee "$WORK/summary.txt"
import json, sys
work, counts = sys.argv[1], sys.argv[2].split()
steady = json.load(open(f"{work}/steady.json"))
first = [json.loads(line) for line in open(f"{work}/first.tsv").read().splitlines()]
sync = [json.loads(line) for line in open(f"{work}/sync.tsv").read().splitlines()]
builds = [("", "this build")] + ([("base-", "base build")] if "base-none/session-start" in steady else [])
missed = 0
for prefix, label in builds:
    print(f"{label}:")
    print(f"  {'hook':<15}{'none':>8}" + "".join(f"{c + ' topic files':>20}{'ratio':>7}" for c in counts))
    for hook in ["session-start", "prompt-submit"]:
        none = steady[f"{prefix}none/{hook}"]["median_ms"]
        row = f"  {hook:<15}{none:>8.2f}"
        for c in counts:
            with_files = steady[f"{prefix}{c}/{hook}"]["median_ms"]
            ratio = with_files / none
            if not prefix:
                missed += ratio > 1.5
            row += f"{with_files:>20.2f}{ratio:>7.2f}"
        print(row)
        cpu = lambda c: steady[f"{prefix}{c}/{hook}"]["cpu_ms"]
        print(f"  {'  cpu (mean)':<15}{cpu('none'):>8.2f}"
              + "".join(f"{cpu(c):>20.2f}{cpu(c) / cpu('none'):>7.2f}" for c in counts))
        if not prefix:
            texts = lambda c: steady[f"texts-{c}/{hook}"]
            print(f"  {'  the texts':<15}{'':>8}"
                  + "".join(f"{texts(c)['median_ms']:>20.2f}{steady[f'{c}/{hook}']['median_ms'] / texts(c)['median_ms']:>7.2f}" for c in counts))
print("(the texts: the same texts stored as Synapse memories with no files; its ratio is the files'"
      " median over it, what the files cost beside the memories they become)")
print(f"({steady['none/session-start']['runs']} runs per cell over the rounds; target for this build: ratio <= 1.5)")
for f in first:
    result = json.load(open(f"{work}/first-{f['name']}.json"))["results"][0]
    median = result["median"] * 1000
    cpu = (result["user"] + result["system"]) * 1000
    base = f["name"].startswith("base-")
    if not base:
        missed += median >= 50
    label = "base build" if base else "this build"
    print(f"{label}, first hook with {f['count']} topic files: {median:.1f} ms ({cpu:.1f} ms cpu)"
          f"{'' if base else ' (target < 50)'}; then {f['folded']} of {f['count']} folded after "
          f"{f['hooks']} hooks in all, the later ones {f['later_median_ms']} ms median, "
          f"{f['later_max_ms']} ms the slowest")
for s in sync:
    label = "base build" if s["name"].startswith("base-") else "this build"
    print(f"{label}, synapse sync folding {s['name'].removeprefix('base-')} topic files into a fresh store: {s['median_ms']} ms")
print("load average:", " ".join(open("/proc/loadavg").read().split()[:3]))
print("targets: met" if missed == 0 else f"targets: MISSED ({missed})")
EOF
grep -q 'targets: met' "$WORK/summary.txt" || exit 1
