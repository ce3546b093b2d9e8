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

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # make_gold_v12.py
from make_gold_v12 import nl_pt_set_main  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    return nl_pt_set_main("v13", __doc__ or "", argv)


if __name__ == "__main__":
    sys.exit(main())
