"""(Re)compute and check the gold of the blind set v12 (``v12.jsonl`` beside this script).

Usage (from the repository root; needs ``../shared/datasets`` beside the repository)::

    python benchmarks/questions/battery/make_gold_v12.py --check  # default: recompute, compare
    python benchmarks/questions/battery/make_gold_v12.py --write  # rewrite v12.jsonl with the gold
    python benchmarks/questions/battery/make_gold_v12.py --stats  # composition per graph

With ``V12_STORES=<dir>`` the prebuilt on-disk stores ``<dir>/<dataset>`` are opened read-only
instead of loading the zips.

The graphs and their order (imported from ``make_gold_v9.py``), the column rules (``?anchor``,
``?via``, ``?item``, ``?label``, ``?count``) and the checks (``make_gold_v4.py``) are v9's to
v11's; only the id prefix (``v12-<dataset>-NNN``) and the store variable differ. v12's theme is
phrasing as real users type it (preambles, politeness, indirect and imperative questions,
nominal fragments, passive/inverted order, lower-case or accent-less names, "Surname, First"),
with about a fifth of the museum questions in French, German, Italian, Spanish, Dutch or
Portuguese. Superlative queries return every tied row; a question that names two facts
("who made it and when?") has the gold of the one its ``note`` names. Languages: ``en``,
``el`` (demo), ``fr``, ``de``, ``it``, ``es``, ``nl``, ``pt`` (Dutch and Portuguese accepted
as in ``make_gold_v9.py``).
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


def nl_pt_set_main(name: str, doc: str, argv: list[str] | None = None) -> int:
    """``main`` of a set over v9's graphs with v4's checks and Dutch and Portuguese
    accepted as languages (``<name>.jsonl`` beside this script, stores from
    ``<NAME>_STORES``); ``make_gold_v13.py`` uses it too."""
    qfile = HERE / f"{name}.jsonl"
    checks = validator(name, tuple(ORDER))

    def validate(qs: list[dict[str, Any]]) -> list[str]:
        ok = {f"{q.get('id')}: lang {lang}" for q in qs for lang in EXTRA_LANGS
              if q.get("lang") == lang}
        return [e for e in checks(qs) if e not in ok]

    args = sys.argv[1:] if argv is None else argv
    if "--stats" in args:
        lines = qfile.read_text(encoding="utf-8").splitlines()
        print(stats([json.loads(line) for line in lines if line.strip()]))
        return 0
    return gold_runner.run(args, doc=doc, qfile=qfile, graphs=GRAPHS, compute=compute,
                           validate=validate, order=ORDER, notes=True,
                           load=gold_runner.stores_loader(GRAPHS, f"{name.upper()}_STORES"))


def main(argv: list[str] | None = None) -> int:
    return nl_pt_set_main("v12", __doc__ or "", argv)


if __name__ == "__main__":
    sys.exit(main())
