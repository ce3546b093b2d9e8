"""(Re)compute and check the gold of the blind set v10 (``v10.jsonl`` beside this script).

Usage (from the repository root; needs ``../shared/datasets`` beside the repository)::

    python benchmarks/questions/battery/make_gold_v10.py --check  # default: recompute, compare
    python benchmarks/questions/battery/make_gold_v10.py --write  # rewrite v10.jsonl with the gold
    python benchmarks/questions/battery/make_gold_v10.py --stats  # composition per graph

With ``V10_STORES=<dir>`` the prebuilt on-disk stores ``<dir>/<dataset>`` are opened read-only
instead of loading the zips.

The graphs and their order (imported from ``make_gold_v9.py``), the column rules (``?anchor``,
``?via``, ``?item``, ``?label``, ``?count``) and the checks (``make_gold_v4.py``) are v9's;
only the id prefix (``v10-<dataset>-NNN``) and the store variable differ. Languages: ``en``,
``el`` (demo), ``fr``, ``de``, ``it``, ``es`` (the v4 set; v9's ``nl`` and ``pt`` are not used).
Exit codes: 0 all equal, 1 a difference or an invalid question, 2 a graph file is missing.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # make_gold_v9.py
from make_gold_v9 import later_set_main  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    return later_set_main("v10", __doc__ or "", argv)


if __name__ == "__main__":
    sys.exit(main())
