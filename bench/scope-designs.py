"""Two designs for statistics within a scope, measured at 100,000 memories over 50 projects.

    python3 bench/scope-designs.py build   # builds three databases in /tmp/scopeproto (about 45 s)
    python3 bench/scope-designs.py         # times them

`shared`: one index, scope checked by joining `memories` (Synapse before schema 7).
`token`: one index with a `scope` column holding one token per scope; a search intersects the
question with the scope's tokens (what Synapse does from schema 7).
`sharded`: a pair of indexes per project plus one for global memories.
Memory text is LoCoMo development lines (../shared/bench, read here, never copied) with three
random filler words; `kestrel` is in 143 memories of proj07 and in every third memory elsewhere.
Timings are Python's sqlite3 (its own SQLite), medians and p95 of 200 runs, in milliseconds: the
designs' relative costs, not Synapse's own figures. See docs/scope.md.
"""
import json, random, sqlite3, time, os, statistics, sys
rng = random.Random(7)
bodies = [json.loads(l)["body"] for l in open(os.path.join(os.path.dirname(__file__), "../../shared/bench/locomo-dev/memories.jsonl"))]
P = 50; N = 100_000
vocab = ["word%d" % i for i in range(3000)]
rows = []
for i in range(N):
    p = None if i % 50 == 0 else "proj%02d" % (i % P)
    b = rng.choice(bodies) + " " + " ".join(rng.choice(vocab) for _ in range(3))
    if p == "proj07":
        if i % 700 == 7: b += " kestrel"                         # rare in proj07
    elif i % 3 == 0: b += " kestrel"                             # common elsewhere
    rows.append((i + 1, p, b))
TOK = "tokenize = 'porter unicode61 remove_diacritics 2'"
def build(path, sharded, token):
    if os.path.exists(path): os.remove(path)
    c = sqlite3.connect(path)
    c.execute("PRAGMA journal_mode=wal")
    c.execute("CREATE TABLE memories(id INTEGER PRIMARY KEY, project TEXT, body TEXT)")
    c.executemany("INSERT INTO memories VALUES (?,?,?)", rows)
    c.execute("CREATE INDEX mp ON memories(project, id)")
    if not sharded:
        cols = "body, scope" if token else "body"
        c.execute(f"CREATE VIRTUAL TABLE memory USING fts5({cols}, {TOK})")
        c.execute(f"CREATE VIRTUAL TABLE memorygram USING fts5(body, tokenize='trigram')")
        if token:
            c.executemany("INSERT INTO memory(rowid, body, scope) VALUES (?,?,?)",
                          [(i, b, "s" + (p or "global")) for i, p, b in rows])
        else:
            c.executemany("INSERT INTO memory(rowid, body) VALUES (?,?)", [(i, b) for i, p, b in rows])
        c.executemany("INSERT INTO memorygram(rowid, body) VALUES (?,?)", [(i, b) for i, p, b in rows])
    else:
        for s in ["global"] + ["proj%02d" % k for k in range(P)]:
            c.execute(f"CREATE VIRTUAL TABLE memory_{s} USING fts5(body, {TOK})")
            c.execute(f"CREATE VIRTUAL TABLE memorygram_{s} USING fts5(body, tokenize='trigram')")
            mine = [(i, b) for i, p, b in rows if (p or "global") == s]
            c.executemany(f"INSERT INTO memory_{s}(rowid, body) VALUES (?,?)", mine)
            c.executemany(f"INSERT INTO memorygram_{s}(rowid, body) VALUES (?,?)", mine)
    c.commit(); c.execute("VACUUM"); c.close()
def med(f, n=200):
    ts = []
    for _ in range(n):
        t = time.perf_counter(); f(); ts.append((time.perf_counter() - t) * 1e3)
    ts.sort(); return round(statistics.median(ts), 3), round(ts[int(len(ts)*.95)], 3)
if "build" in sys.argv:
    build("/tmp/scopeproto/shared.db", False, False)
    build("/tmp/scopeproto/token.db", False, True)
    build("/tmp/scopeproto/sharded.db", True, False)
for name in ["shared", "token", "sharded"]:
    path = f"/tmp/scopeproto/{name}.db"
    t = "memory_proj07" if name == "sharded" else "memory"
    def openq():
        c = sqlite3.connect(path); c.execute(f"SELECT count(*) FROM {t} WHERE {t} MATCH 'zzz'").fetchone(); c.close()
    c = sqlite3.connect(path)
    if name == "shared":
        q = lambda term: c.execute("SELECT m.id, bm25(memory) FROM memory JOIN memories m ON m.id=memory.rowid WHERE memory MATCH ? AND (m.project IS NULL OR m.project='proj07') ORDER BY 2 LIMIT 50", (term,)).fetchall()
        cnt = lambda term: c.execute("SELECT count(*) FROM (SELECT 1 FROM memory JOIN memories m ON m.id=memory.rowid WHERE memory MATCH ? AND (m.project IS NULL OR m.project='proj07') LIMIT 501)", (term,)).fetchone()
    elif name == "token":
        q = lambda term: c.execute("SELECT rowid, bm25(memory) FROM memory WHERE memory MATCH ? ORDER BY 2 LIMIT 50", ("scope:(sproj07 OR sglobal) AND " + term,)).fetchall()
        cnt = lambda term: c.execute("SELECT count(*) FROM (SELECT 1 FROM memory WHERE memory MATCH ? LIMIT 501)", ("scope:(sproj07 OR sglobal) AND " + term,)).fetchone()
    else:
        def q(term):
            a = c.execute("SELECT rowid, bm25(memory_proj07) FROM memory_proj07 WHERE memory_proj07 MATCH ? ORDER BY 2 LIMIT 50", (term,)).fetchall()
            b = c.execute("SELECT rowid, bm25(memory_global) FROM memory_global WHERE memory_global MATCH ? ORDER BY 2 LIMIT 50", (term,)).fetchall()
            return a + b
        def cnt(term):
            a = c.execute("SELECT count(*) FROM (SELECT 1 FROM memory_proj07 WHERE memory_proj07 MATCH ? LIMIT 501)", (term,)).fetchone()
            b = c.execute("SELECT count(*) FROM (SELECT 1 FROM memory_global WHERE memory_global MATCH ? LIMIT 501)", (term,)).fetchone()
            return a, b
    print(name, "size MB", os.path.getsize(path) >> 20, "schema rows", c.execute("select count(*) from sqlite_master").fetchone()[0])
    print("  open+first query ms", med(openq, 100))
    print("  count kestrel (rare here, common elsewhere)", med(lambda: cnt("kestrel")), cnt("kestrel"))
    print("  rank kestrel", med(lambda: q("kestrel")), len(q("kestrel")))
    print("  rank word17 OR word2999", med(lambda: q("(word17 OR word2999)")), len(q("(word17 OR word2999)")))
    print("  count word17", med(lambda: cnt("word17")))
