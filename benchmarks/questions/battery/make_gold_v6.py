"""Gold for the v6 blind battery (``v6.jsonl``), computed from each question's SPARQL by the
rules of ``make_gold_v4.py`` (the same graphs, columns and checks; ids ``v6-<dataset>-NNN``).

Usage (from the repository root; needs ``../shared/datasets`` beside the repository)::

    python benchmarks/questions/battery/make_gold_v6.py --check  # default: recompute, compare
    python benchmarks/questions/battery/make_gold_v6.py --write  # rewrite v6.jsonl with the gold
    python benchmarks/questions/battery/make_gold_v6.py --stats  # counts per graph/lang/type/expect
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # gold_runner.py, make_gold_v4.py
from gold_runner import run  # noqa: E402
from make_gold_v4 import GRAPHS, compute, validator  # noqa: E402

QFILE = Path(__file__).resolve().parent / "v6.jsonl"


def main(argv: list[str] | None = None) -> int:
    return run(argv, doc=__doc__ or "", qfile=QFILE, graphs=GRAPHS, compute=compute,
               validate=validator("v6"), order=["moma", "demo", "nmwa", "acm"], notes=True)


if __name__ == "__main__":
    sys.exit(main())
