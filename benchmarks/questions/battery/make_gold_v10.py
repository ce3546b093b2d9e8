"""(Re)compute and check the gold of the blind set v10 (``v10.jsonl`` beside this script).

Usage (from the repository root; needs ``../shared/datasets`` beside the repository)::

    python benchmarks/questions/battery/make_gold_v10.py --check  # default: recompute, compare
    python benchmarks/questions/battery/make_gold_v10.py --write  # rewrite v10.jsonl with the gold
    python benchmarks/questions/battery/make_gold_v10.py --stats  # composition per graph

With ``V10_STORES=<dir>`` the prebuilt on-disk stores ``<dir>/<dataset>`` are opened read-only
instead of loading the zips.

The graphs, their order, the column rules (``?anchor``, ``?via``, ``?item``, ``?label``,
``?count``) and the checks are those of ``make_gold_v9.py`` (itself ``make_gold_v4.py``'s rules);
only the id prefix (``v10-<dataset>-NNN``) and the store variable differ. Languages: ``en``,
``el`` (demo), ``fr``, ``de``, ``it``, ``es`` (``nl`` and ``pt`` are still accepted).
Exit codes: 0 all equal, 1 a difference or an invalid question, 2 a graph file is missing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # gold_runner.py, make_gold_v9.py
import gold_runner  # noqa: E402
from gold_runner import run  # noqa: E402
from make_gold_v4 import compute, validator  # noqa: E402
from make_gold_v9 import EXTRA_LANGS, GRAPHS, ORDER, stats  # noqa: E402

QFILE = Path(__file__).resolve().parent / "v10.jsonl"
_validate_v4 = validator("v10", tuple(ORDER))


def validate(qs: list[dict[str, Any]]) -> list[str]:
    """The v4 checks with v10 ids (nl and pt accepted as in v9)."""
    ok = {f"{q.get('id')}: lang {lang}" for q in qs for lang in EXTRA_LANGS
          if q.get("lang") == lang}
    return [e for e in _validate_v4(qs) if e not in ok]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if "--stats" in args:
        lines = QFILE.read_text(encoding="utf-8").splitlines()
        print(stats([json.loads(line) for line in lines if line.strip()]))
        return 0
    return run(args, doc=__doc__ or "", qfile=QFILE, graphs=GRAPHS, compute=compute,
               validate=validate, order=ORDER, notes=True,
               load=gold_runner.stores_loader(GRAPHS, "V10_STORES"))


if __name__ == "__main__":
    sys.exit(main())
