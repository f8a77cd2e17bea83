"""Write words.tsv: the 10,000 commonest English words and how common each is.

Run from this folder after `pip install wordfreq==3.1.1`:

    python3 make.py

Each line is a folded word (lowercase ASCII letters and digits, an apostrophe inside a
contraction), a tab, and its Zipf frequency: log10 of how many times it occurs in a billion words
of running English, to two decimals. Lines are sorted by byte so `text::english` can binary-search
the file as it is. The figures come from wordfreq's English list (see NOTICE).
"""

import re

from wordfreq import top_n_list, zipf_frequency

WORDS = 10_000
SHAPE = re.compile(r"[a-z0-9]+('[a-z]+)?")

kept = []
for word in top_n_list("en", 3 * WORDS):
    if SHAPE.fullmatch(word):
        kept.append((word, zipf_frequency(word, "en")))
    if len(kept) == WORDS:
        break

with open("words.tsv", "w", encoding="ascii", newline="\n") as out:
    for word, zipf in sorted(kept):
        out.write(f"{word}\t{zipf:.2f}\n")
