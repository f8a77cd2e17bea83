"""bench/big-memories.py N SIZE PROJECT: print N import lines, each a memory of SIZE bytes.

Each is a pasted webhook delivery log (deterministic, seed 7; the logs differ, their opening line
does not) whose opening line says what it is,
in the words the benchmark's prompt about webhook retries uses, so that every one of them
matches that prompt. Used by bench/big.sh."""
import json, random, sys
n, size, project = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(7)
events = ["delivered", "timed out after 30s", "got 503 from receiver", "retry scheduled",
          "gave up after 3 attempts", "signature verified", "queued", "connection reset"]
for i in range(n):
    # The same opening line for all: opening lines that differ only by a number would read to
    # drift as one setting with two values, and the hooks would leave the older logs out.
    lines = ["Webhook delivery log pasted from the staging workers: deliveries give up after "
             "the retry count runs out; the request timeout is 30s (see retry_policy.rs)."]
    total = len(lines[0])
    while total < size:
        line = (f"2026-03-{rng.randint(1,28):02d}T{rng.randint(0,23):02d}:{rng.randint(0,59):02d}:"
                f"{rng.randint(0,59):02d}Z worker-{rng.randint(1,12)} webhooks-{rng.randint(1,40)} "
                f"delivery {rng.randint(10000,99999)} attempt {rng.randint(1,5)} "
                f"{rng.choice(events)} id={rng.getrandbits(48):012x}")
        lines.append(line); total += len(line) + 1
    body = "\n".join(lines)[:size]
    print(json.dumps({"body": body, "project": project, "source": "pasted log"}))
