#!/usr/bin/env python3
"""Writes a dense grid of PEP 440 versions in `packaging` order: `RANK<TAB>VERSION` per line.

Usage: gen_version_grid.py OUT_FILE

Every release shape is crossed with every suffix kind (dev-only, pre, pre.post, pre.dev, post,
post.dev) and with local labels that mix numbers, text and digits inside text, which is where
an EVR encoding is most likely to go wrong. Equal versions share a rank.
"""

import sys

from packaging.version import Version

RELEASES = ["0", "0.0.1", "0.1", "1", "1.0.0", "1.1", "1.2", "1.10", "1.9.9", "2", "2.0.1", "10",
            "1!0", "1!1.0", "2!0.5"]
SUFFIXES = ["", ".dev0", ".dev1", ".dev10", "a0", "a1", "a1.dev1", "a1.post1", "a1.post1.dev2",
            "b2", "b2.dev0", "rc1", "rc10", "rc1.dev3", "b1.post2", ".post0", ".post1",
            ".post1.dev1", ".post10"]
LOCALS = ["", "+0", "+1", "+7", "+10", "+1.2", "+1.a", "+a.1", "+a", "+aa", "+ab", "+ab.0",
          "+a9", "+b", "+z", "+cpu", "+cu11", "+cu113", "+cu118", "+cu12.1", "+g1234abc",
          "+2023.01", "+torch2.rocm5"]


def main():
    # Distinct texts, so that equal versions spelled differently (1 and 1.0.0) both appear.
    texts = {r + s + l for r in RELEASES for s in SUFFIXES for l in LOCALS}
    ordered = sorted((Version(t) for t in texts), key=lambda v: (v, str(v)))
    rank = -1
    previous = None
    with open(sys.argv[1], "w", encoding="utf-8") as out:
        for v in ordered:
            if previous is None or v != previous:
                rank += 1
                previous = v
            out.write(f"{rank}\t{v}\n")


if __name__ == "__main__":
    main()
