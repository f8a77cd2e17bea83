#!/usr/bin/env python3
"""Split the drift corpus into its dev and test halves, once, by a fixed seed.

The corpus was written as two made-up projects of each of eight kinds (web frontend, backend
service, data pipeline, infrastructure, mobile, ML, developer tooling, personal preferences), one
TOML file each, named KIND-1.toml and KIND-2.toml. Each kind sends one project to `dev` and the
other to `test`, chosen by a generator with a fixed seed, so both halves cover every kind and a
project's memories never straddle the halves (its memories are judged against each other).

    python3 bench/drift-corpus-split.py SOURCE_FOLDER

writes tests/fixtures/drift/dev/ and tests/fixtures/drift/test/. The drift rules are tuned on
`dev` only; `test` is measured once, for the report.
"""

import pathlib
import random
import shutil
import sys

SEED = 20261201
KINDS = [
    "web-frontend",
    "backend-service",
    "data-pipeline",
    "infrastructure",
    "mobile",
    "ml",
    "developer-tooling",
    "personal-preferences",
]


def main() -> None:
    source = pathlib.Path(sys.argv[1])
    root = pathlib.Path(__file__).resolve().parent.parent / "tests/fixtures/drift"
    rng = random.Random(SEED)
    for kind in KINDS:
        pair = [source / f"{kind}-1.toml", source / f"{kind}-2.toml"]
        rng.shuffle(pair)
        for half, path in zip(["dev", "test"], pair):
            (root / half).mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, root / half / f"{kind}.toml")


if __name__ == "__main__":
    main()
