"""(Re)compute and check the gold of the blind set v13 (``v13.jsonl`` beside this script).

Usage (from the repository root; needs ``../shared/datasets`` beside the repository)::

    python benchmarks/questions/battery/make_gold_v13.py --check  # default: recompute, compare
    python benchmarks/questions/battery/make_gold_v13.py --write  # rewrite v13.jsonl with the gold
    python benchmarks/questions/battery/make_gold_v13.py --stats  # composition per graph

With ``V13_STORES=<dir>`` the prebuilt on-disk stores ``<dir>/<dataset>`` are opened read-only
instead of loading the zips.

The graphs and their order (imported from ``make_gold_v9.py``), the column rules (``?anchor``,
``?via``, ``?item``, ``?label``, ``?count``) and the checks (``make_gold_v4.py``) are v9's to
v12's; only the id prefix (``v13-<dataset>-NNN``) and the store variable differ. v13's theme is
WHEN and WHERE, and ORDER: birth and death places and years, works made in a place or a time
range (between two years, before/after a year, a decade, a century), extremes (earliest,
latest, largest, first exhibition; every tied row is returned), comparisons of two people
("who was born first, A or B?": the gold is the person that answers, ``compare_*`` templates)
and counts over ranges, some of them 0. Phrasing is mixed (full questions, keyword fragments,
commands, lower case, missing accents, typos, "Surname, First", initials), with about a fifth
of the museum questions in French, German, Italian, Spanish, Dutch or Portuguese. Languages:
``en``, ``el`` (demo), ``fr``, ``de``, ``it``, ``es``, ``nl``, ``pt`` (Dutch and Portuguese
accepted as in ``make_gold_v9.py``).
Exit codes: 0 all equal, 1 a difference or an invalid question, 2 a graph file is missing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # make_gold_v9.py
import gold_runner  # noqa: E402
from make_gold_v4 import compute, validator  # noqa: E402
from make_gold_v9 import EXTRA_LANGS, GRAPHS, HERE, ORDER, stats  # noqa: E402

NAME = "v13"
QFILE = HERE / f"{NAME}.jsonl"
_validate_v4 = validator(NAME, tuple(ORDER))


def validate(qs: list[dict[str, Any]]) -> list[str]:
    """The v4 checks, with Dutch and Portuguese accepted as languages."""
    ok = {f"{q.get('id')}: lang {lang}" for q in qs for lang in EXTRA_LANGS
          if q.get("lang") == lang}
    return [e for e in _validate_v4(qs) if e not in ok]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if "--stats" in args:
        lines = QFILE.read_text(encoding="utf-8").splitlines()
        print(stats([json.loads(line) for line in lines if line.strip()]))
        return 0
    return gold_runner.run(args, doc=__doc__ or "", qfile=QFILE, graphs=GRAPHS,
                           compute=compute, validate=validate, order=ORDER, notes=True,
                           load=gold_runner.stores_loader(GRAPHS, f"{NAME.upper()}_STORES"))


if __name__ == "__main__":
    sys.exit(main())
