#!/usr/bin/env bash
# The soak: memories coming and going under load, as when Synapse folds Claude Code's files while
# sessions run. On a store of 3,000 topic files, it opens with the trial that found the wedge (a
# sync deleting the memory prompt hooks give meanwhile), then for SECS seconds:
#   - HOOKS hook loops run the real hook binaries, fed payloads as Claude Code sends them:
#     SessionStart, UserPromptSubmit with a typed `remember:` line and a question, Stop with a
#     `remember:` lesson in the reply;
#   - a mutator creates, edits and deletes topic files of the auto memory (every BURST s a burst:
#     the whole folder removed and a sync started at once, whose fold holds the write lock long
#     enough for hooks to spool what they give sessions meanwhile, and deletes it; 1,000 new
#     files written as it runs), rewrites the repository's CLAUDE.md, and runs `synapse sync`;
#   - REMEMBERS loops run `synapse remember`.
# Then one more write and `synapse sync`, and the checks: no failed write (a `synapse` command
# that exited non-zero), no lost lesson (every lesson a Stop hook or a typed line was handed is
# stored exactly once), no hook silenced by a store error (a prompt with a typed line that
# printed nothing, or a line in synapse.log saying a hook failed), PRAGMA integrity_check ok,
# and the store equal to the files (the live memories of the files hold exactly the marks the
# files hold, each once). It prints the figures and exits 1 if any check fails.
#
#   bench/soak.sh                          # 30 s, 8 hook loops, 2 remember loops, a burst
#                                          # every 10 s
#   SECS=10 HOOKS=4 BURST=5 bench/soak.sh
#   BIN=/path/to/binaries bench/soak.sh    # measure other binaries (no build)
#   KEEP=1 bench/soak.sh                   # keep the work folder
#
set -euo pipefail

SECS=${SECS:-30}
HOOKS=${HOOKS:-8}
REMEMBERS=${REMEMBERS:-2}
BURST=${BURST:-10}
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)

fail() {
    echo "bench/soak.sh: $*" >&2
    exit 2
}

for tool in jq sqlite3 git; do
    command -v "$tool" >/dev/null || fail "needs $tool"
done
if [ -z "${BIN:-}" ]; then
    echo "== building the release binaries"
    cargo build --release --locked --quiet --manifest-path "$ROOT/Cargo.toml" --bins \
        || fail "the build failed"
    BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release
fi
for b in synapse synapse-session-start synapse-prompt-submit synapse-stop; do
    [ -x "$BIN/$b" ] || fail "missing $BIN/$b"
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/synapse-soak.XXXXXX")
WORK=$(cd "$WORK" && pwd -P)
if [ "${KEEP:-0}" = 1 ]; then
    echo "== keeping $WORK (KEEP=1)"
else
    trap 'rm -rf "$WORK"' EXIT
fi
# The binaries read the data folder and Claude Code's files under HOME from here alone.
unset SYNAPSE_BUDGET SYNAPSE_SESSION_START SYNAPSE_PROMPT_SUBMIT SYNAPSE_STOP SYNAPSE_COMPACT \
    SYNAPSE_NOTICE CLAUDE_CONFIG_DIR CLAUDE_CODE_DISABLE_AUTO_MEMORY
export HOME=$WORK/home SYNAPSE_DATA=$WORK/data
mkdir -p "$HOME" "$WORK/out"

REPO=$WORK/repo
mkdir -p "$REPO/src/webhooks"
(
    cd "$REPO"
    git init -q -b main
    git config user.email soak@example.com
    git config user.name soak
    git config commit.gpgsign false
    printf 'pub fn retry() {}\n' >src/webhooks/retry.rs
    git add -A && git commit -q -m start
    git checkout -q -b feature/webhook-retries
    printf 'pub fn retry() { todo!() }\n' >src/webhooks/retry.rs
)
# The auto-memory folder Claude Code keeps for this repository.
MEMORY=$HOME/.claude/projects/$(printf '%s' "$REPO" | sed 's/[^A-Za-z0-9]/-/g')/memory
mkdir -p "$MEMORY"

# A topic file holds one mark (`topicN` `vV`), a CLAUDE.md item one (`claudeK` `vV`): a memory of
# a file is found by its mark, and the files' marks are what the store must hold after sync.
# Written with shell builtins only: the mutator must keep pace with the hooks.
topic() { # N V
    printf -- '---\nname: Webhook retries %s\ndescription: webhook retry note %s\nmetadata:\n  type: project\n---\nWebhook retries of queue %s: mark topic%sv%s, at most %s attempts.\n' \
        "$1" "$1" "$1" "$1" "$2" "$(($2 % 9 + 2))" >"$MEMORY/retry-$1.md"
}
# Date the files FILES... AGE_DAYS days back, as files written over past sessions are.
age() { # AGE_DAYS FILES...
    local days=$1
    shift
    [ $# -eq 0 ] || touch -d "@$((NOW - days * 86400))" "$@"
}
claude_md() { # V
    {
        printf '# Project\n\n'
        local k
        for ((k = 1; k <= RANDOM % 6 + 1; k++)); do
            printf -- '- Webhook retry rule: mark claude%sv%s, retries wait %s seconds.\n' "$k" "$1" "$((k * 5))"
        done
    } >"$REPO/CLAUDE.md"
}

echo "== seeding: 3,000 topic files, CLAUDE.md, one sync"
NOW=$(date +%s)
for n in $(seq 1 3000); do topic "$n" 1; done
age 12 "$MEMORY"/retry-*.md
claude_md 1
(cd "$REPO" && "$BIN/synapse" sync >/dev/null) || fail "the first sync failed"

# The opening move, the trial of the issue that found the wedge: a prompt hook gives a session
# a topic file's memory; the file is removed with two thousand others and a sync starts; prompt
# hooks run while it holds the lock, give the same memory and leave that in the spool; the sync
# deletes it. Every write after that drains the spool first.
echo "== a sync deleting what prompt hooks give meanwhile"
prompt() { # SESSION
    jq -nc --arg s "$1" --arg c "$REPO" \
        '{session_id:$s, transcript_path:"/dev/null", cwd:$c, hook_event_name:"UserPromptSubmit",
          permission_mode:"default", prompt:"how many times do webhook retries happen?"}' \
        | "$BIN/synapse-prompt-submit" 2>/dev/null
}
given=$(prompt opening-0 | grep -o '\[[0-9]*\]' | head -1 | tr -d '[]' || true)
[ -n "$given" ] || fail "the opening prompt was given no memory"
file=$(cd "$REPO" && "$BIN/synapse" list --json \
    | jq -r --argjson id "$given" '.memories[] | select(.id == $id) | .source' | sed 's#^memory/##; s# .*##')
[ -f "$MEMORY/$file" ] || fail "memory $given is no topic file ($file)"
rm -f "$MEMORY/$file" "$MEMORY"/retry-[12]*.md
(cd "$REPO" && "$BIN/synapse" sync >/dev/null 2>&1) &
opening=$!
sleep 0.2
for s in 1 2 3; do prompt "opening-$s" >/dev/null; done
wait "$opening" || true

# Every write a loop makes is a line in its ledger: `ok ...` when acknowledged, `failed ...`
# (with the error) when not.
hook_loop() { # H
    local h=$1 n=0 session out ledger=$WORK/out/hook-$1
    : >"$ledger"
    while [ "$(date +%s)" -lt "$UNTIL" ]; do
        n=$((n + 1))
        session="soak-$h-$((n / 3))"
        case $((n % 3)) in
            0)
                out=$(jq -nc --arg s "$session" --arg c "$REPO" \
                    '{session_id:$s, transcript_path:"/dev/null", cwd:$c,
                      hook_event_name:"SessionStart", source:"startup"}' \
                    | "$BIN/synapse-session-start" 2>&1) || echo "failed session-start exit" >>"$ledger"
                echo "run session-start" >>"$ledger"
                ;;
            1)
                local typed="typed lesson $h-$n: release notes list every migration"
                # A question about one queue, whose topic file the hook then gives the session
                # (the mutator may be deleting it as it does).
                local queue
                queue=$(ls "$MEMORY" | shuf -n 1 | tr -dc '0-9')
                out=$(jq -nc --arg s "$session" --arg c "$REPO" --arg t "$typed" --arg q "$queue" \
                    '{session_id:$s, transcript_path:"/dev/null", cwd:$c,
                      hook_event_name:"UserPromptSubmit", permission_mode:"default",
                      prompt:("remember: " + $t + "\nhow many attempts do webhook retries of queue " + $q + " get?")}' \
                    | "$BIN/synapse-prompt-submit" 2>/dev/null) || true
                echo "run prompt-submit" >>"$ledger"
                echo "lesson $typed" >>"$ledger"
                # A typed line is always answered: nothing printed means the hook gave up.
                [ -n "$out" ] || echo "silenced prompt-submit" >>"$ledger"
                ;;
            2)
                local lesson="stop lesson $h-$n: deploys wait for the canary stage"
                jq -nc --arg s "$session" --arg c "$REPO" --arg l "$lesson" \
                    '{session_id:$s, transcript_path:"/dev/null", cwd:$c, hook_event_name:"Stop",
                      stop_hook_active:false, last_assistant_message:("Done.\nremember: " + $l)}' \
                    | "$BIN/synapse-stop" >/dev/null 2>&1 || echo "failed stop exit" >>"$ledger"
                echo "run stop" >>"$ledger"
                echo "lesson $lesson" >>"$ledger"
                ;;
        esac
    done
}

remember_loop() { # R
    local r=$1 n=0 out ledger=$WORK/out/remember-$1
    : >"$ledger"
    while [ "$(date +%s)" -lt "$UNTIL" ]; do
        n=$((n + 1))
        local text="remember loop $r note $n: the staging database runs Postgres 16"
        if out=$(cd "$REPO" && "$BIN/synapse" remember --json -- "$text" 2>&1); then
            echo "ok $(printf '%s' "$out" | jq -r .id) $text" >>"$ledger"
        else
            echo "failed remember: $out" | head -1 >>"$ledger"
        fi
    done
}

mutator() {
    local ledger=$WORK/out/mutator v=1 next=3001 n k files out op burst=$START
    : >"$ledger"
    while [ "$(date +%s)" -lt "$UNTIL" ]; do
        v=$((v + 1))
        NOW=$(date +%s)
        files=()
        # A burst every BURST seconds (from the start), other changes in between.
        op=$((RANDOM % 7 + 1))
        [ "$NOW" -ge "$burst" ] && op=0 && burst=$((NOW + BURST))
        case $op in
            1 | 2) # a few new files
                for ((k = RANDOM % 5 + 1; k > 0; k--)); do
                    topic "$next" "$v"; files+=("$MEMORY/retry-$next.md"); next=$((next + 1))
                done
                echo "created ${#files[@]}" >>"$ledger"
                ;;
            0) # a burst: the whole folder removed and a sync started at once, whose fold holds
                # the lock while it deletes the memories the hooks are giving sessions meanwhile;
                # 1,000 new files written as it runs
                local old=("$MEMORY"/retry-*.md)
                rm -f "${old[@]}"
                (cd "$REPO" && "$BIN/synapse" sync >/dev/null 2>"$WORK/out/burst-sync") &
                local syncing=$!
                for ((k = 1000; k > 0; k--)); do
                    topic "$next" "$v"; files+=("$MEMORY/retry-$next.md"); next=$((next + 1))
                done
                if wait "$syncing"; then
                    echo "ok sync" >>"$ledger"
                else
                    echo "failed sync: $(head -1 "$WORK/out/burst-sync")" >>"$ledger"
                fi
                echo "deleted ${#old[@]}" >>"$ledger"
                echo "created ${#files[@]}" >>"$ledger"
                ;;
            3 | 4) # edits
                for n in $(ls "$MEMORY" | shuf -n $((RANDOM % 8 + 1))); do
                    n=${n#retry-}; topic "${n%.md}" "$v"; files+=("$MEMORY/retry-$n")
                done
                echo "edited ${#files[@]}" >>"$ledger"
                ;;
            5 | 6) # deletions, a third of the folder now and then
                k=$((RANDOM % 8 + 1))
                [ $((RANDOM % 3)) -eq 0 ] && k=$(($(ls "$MEMORY" | wc -l) / 3))
                ls "$MEMORY" | shuf -n "$k" | while read -r f; do rm -f "$MEMORY/$f"; done
                echo "deleted $k" >>"$ledger"
                ;;
            7) # CLAUDE.md rewritten
                claude_md "$v"
                echo "claude-md" >>"$ledger"
                ;;
        esac
        age $((RANDOM % 30)) "${files[@]}"
        # Half the time a sync folds it all at once; otherwise the hooks fold it as they run.
        if [ $((RANDOM % 2)) -eq 0 ]; then
            if out=$(cd "$REPO" && "$BIN/synapse" sync 2>&1); then
                echo "ok sync" >>"$ledger"
            else
                echo "failed sync: $out" | head -1 >>"$ledger"
            fi
        fi
    done
}

echo "== $HOOKS hook loops, $REMEMBERS remember loops and a mutator for $SECS s"
START=$(date +%s)
UNTIL=$((START + SECS))
pids=()
for h in $(seq 1 "$HOOKS"); do hook_loop "$h" & pids+=($!); done
for r in $(seq 1 "$REMEMBERS"); do remember_loop "$r" & pids+=($!); done
mutator & pids+=($!)
wait "${pids[@]}"

echo "== the last write and a sync"
final=0
(cd "$REPO" && "$BIN/synapse" remember -- "the last write of the soak" >/dev/null 2>&1) || final=$((final + 1))
(cd "$REPO" && "$BIN/synapse" sync >/dev/null 2>&1) || final=$((final + 1))

# The store is read with sqlite3, not `synapse list`, which a wedged store would refuse.
DB=$SYNAPSE_DATA/synapse.db
LIST=$WORK/list.json
sqlite3 -json "$DB" 'SELECT id, body FROM memories' | jq '{memories: .}' >"$LIST" \
    || fail "could not read $DB"
problems=()

# Failed writes: `synapse` commands that exited non-zero.
failed_writes=$(( $(cat "$WORK"/out/remember-* "$WORK/out/mutator" | grep -c '^failed' || true) + final ))
acked=$(cat "$WORK"/out/remember-* | grep -c '^ok' || true)
syncs=$(grep -c '^ok sync' "$WORK/out/mutator" || true)
[ "$failed_writes" -eq 0 ] || problems+=("$failed_writes failed writes, e.g. $(cat "$WORK"/out/remember-* "$WORK/out/mutator" | grep -m1 '^failed' || echo 'the final write or sync')")

# Every acknowledged `remember` holds its text under its id.
wrong=0
while read -r _ id text; do
    body=$(jq -r --argjson id "$id" '.memories[] | select(.id == $id) | .body' "$LIST")
    [ "$body" = "$text" ] || wrong=$((wrong + 1))
done < <(cat "$WORK"/out/remember-* | grep '^ok')
[ "$wrong" -eq 0 ] || problems+=("$wrong acknowledged remembers not stored as written")

# Lessons: each stored exactly once.
jq -r '[.memories[].body | gsub("\n"; " ")] | group_by(.) | .[] | "\(length)\t\(.[0])"' "$LIST" \
    >"$WORK/counts"
cat "$WORK"/out/hook-* | sed -n 's/^lesson //p' >"$WORK/lessons"
lessons=$(wc -l <"$WORK/lessons")
lost=$(awk -F'\t' 'NR == FNR { n[$2] = $1; next } n[$0] != 1 { lost++ } END { print lost + 0 }' \
    "$WORK/counts" "$WORK/lessons")
[ "$lost" -eq 0 ] || problems+=("$lost of $lessons lessons not stored exactly once")

# Hooks silenced: a typed line answered with nothing, or a hook's failure in the log. A fold a
# busy store put off is logged and the hook goes on with what was folded before: not a store
# error, and counted apart.
hook_runs=$(cat "$WORK"/out/hook-* | grep -c '^run' || true)
silenced_out=$(cat "$WORK"/out/hook-* | grep -c '^silenced\|^failed' || true)
LOG=$SYNAPSE_DATA/synapse.log
touch "$LOG"
failures() {
    grep -E '(SessionStart|UserPromptSubmit|Stop) failed' "$LOG" | grep -v 'could not fold.* is busy'
}
silenced_log=$(failures | grep -c . || true)
put_off=$(grep -c 'could not fold.* is busy' "$LOG" || true)
dropped=$(grep -c ' spool: .*no longer stored\| spool: .*was dropped' "$LOG" || true)
silenced=$((silenced_out + silenced_log))
[ "$silenced" -eq 0 ] || problems+=("$silenced_out hooks silenced and $silenced_log hook failures logged, e.g. $(failures | head -1 | cut -c1-240)")

integrity=$(sqlite3 "$DB" 'PRAGMA integrity_check' | head -1)
[ "$integrity" = ok ] || problems+=("integrity_check: $integrity")
spooled=$(sqlite3 "$DB" 'SELECT count(*) FROM drained')

# The store equals the files: the marks of the live memories read from files, each once, are
# the marks the files hold.
grep -oh 'mark topic[0-9]*v[0-9]*' "$MEMORY"/*.md 2>/dev/null | sort >"$WORK/files-marks" || true
grep -oh 'mark claude[0-9]*v[0-9]*' "$REPO/CLAUDE.md" | sort >>"$WORK/files-marks"
sort -o "$WORK/files-marks" "$WORK/files-marks"
sqlite3 "$DB" "SELECT m.body FROM memories m JOIN sourced s ON s.memory_id = m.id \
    WHERE m.superseded_by IS NULL AND m.forgotten_at IS NULL" \
    | grep -o 'mark \(topic\|claude\)[0-9]*v[0-9]*' | sort >"$WORK/store-marks" || true
files_now=$(ls "$MEMORY" | wc -l)
equal=yes
if ! diff -q "$WORK/files-marks" "$WORK/store-marks" >/dev/null; then
    equal=no
    differ=$(diff "$WORK/files-marks" "$WORK/store-marks" | grep -c '^[<>]' || true)
    problems+=("the store differs from the files after sync: $differ marks")
fi

mutations=$(grep -vc '^ok sync\|^failed' "$WORK/out/mutator" || true)
created=$(awk '$1 == "created" { n += $2 } END { print n + 0 }' "$WORK/out/mutator")
edited=$(awk '$1 == "edited" { n += $2 } END { print n + 0 }' "$WORK/out/mutator")
deleted=$(awk '$1 == "deleted" { n += $2 } END { print n + 0 }' "$WORK/out/mutator")
rewrites=$(grep -c '^claude-md' "$WORK/out/mutator" || true)
echo "processes: $HOOKS hook loops, $REMEMBERS remember loops, 1 mutator, for $SECS s"
echo "hook runs: $hook_runs; silenced (a typed line answered with nothing): $silenced_out; hook failures in the log: $silenced_log; folds put off by a busy store: $put_off"
echo "writes: $acked remembers and $syncs syncs acknowledged, $failed_writes failed"
echo "lessons: $lessons handed over, $lost lost; spool lines drained: $spooled, dropped as no longer applying: $dropped"
echo "files: $mutations changes ($created topic files created, $edited edited, $deleted deleted, CLAUDE.md rewritten $rewrites times), $files_now topic files at the end"
echo "store equal to the files after sync: $equal"
echo "integrity_check: $integrity"
if [ ${#problems[@]} -gt 0 ]; then
    printf 'FAILED: %s\n' "${problems[@]}"
    exit 1
fi
echo "ok"
