"""(Re)compute and check the gold of the blind set v9 (``v9.jsonl`` beside this script).

Usage (from the repository root; needs ``../shared/datasets`` beside the repository)::

    python benchmarks/questions/battery/make_gold_v9.py --check  # default: recompute, compare
    python benchmarks/questions/battery/make_gold_v9.py --write  # rewrite v9.jsonl with the gold
    python benchmarks/questions/battery/make_gold_v9.py --stats  # counts per graph/lang/type/expect

With ``V9_STORES=<dir>`` the prebuilt on-disk stores ``<dir>/<dataset>`` are opened read-only
instead of loading the zips (NPG, 14 parts, takes a minute or two otherwise).

Graphs: ``ycba`` (Yale Center for British Art), ``nmwa`` (National Museum of Wildlife Art),
``acm`` (Amon Carter Museum), ``npg`` (National Portrait Gallery), ``moma`` (MoMA exhibitions
1929-1959, Linked Art) and ``demo`` (Troodos churches, ``examples/data/troodos.ttl``).

How the result columns of a question's query are read (as in ``make_gold_v4.py``):

* ``?anchor``: the entity named in the question; it goes first in ``gold_uris``.
* ``?via``: a first-class entity between the anchor and the answer (the maker of the work
  named in the question); it follows the anchor in ``gold_uris``.
* ``?item``: an answer entity; ``gold_uris`` = anchors, vias, then items, each once, in row
  order.
* ``?label``: an answer label (a name, a title, a statement text, or a year as 4 digits);
  ``answer_labels`` = distinct labels (whitespace collapsed) in row order, at most 15 kept for
  enumerations.
* ``?count``: for aggregations; ``answer_labels`` = [str(count)], ``gold_count`` = count.

``gold_count``: the count for aggregations; the number of distinct items (or labels) for
enumerations; ``null`` for specific questions. A ``not_found`` question's query must return
no row (it searches the graph's literals for fragments of the absent name); its gold is ``[]``,
``[]``, ``null``. An ``answered`` question's query must return a row.

Languages: ``en``, ``el`` (demo), ``fr``, ``de``, ``it``, ``es``, and, new in v9, ``nl`` and
``pt``. Also checked (the checks of ``make_gold_v4.py``): fields, ids
(``v9-<dataset>-NNN``, unique), type/lang/expect values, that a specific question does not
contain its own answer label (except ``compare_*`` templates, whose answer is one of the two
names asked about), that demo questions carry a ``group`` and that a group's members share
template, ``gold_uris``, ``answer_labels`` and ``gold_count``.
Exit codes: 0 all equal, 1 a difference or an invalid question, 2 a graph file is missing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # gold_runner.py
import gold_runner  # noqa: E402
from gold_runner import run  # noqa: E402
from make_gold_v4 import compute, validator  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
SHARED = REPO.parent / "shared" / "datasets"
QFILE = HERE / "v9.jsonl"
GRAPHS = {
    "ycba": SHARED / "ycba" / "ycba_data.n3.zip",
    "nmwa": SHARED / "nmwa" / "consolidated_data.n3.zip",
    "acm": SHARED / "acm" / "consolidated_data.n3.zip",
    "demo": REPO / "examples" / "data" / "troodos.ttl",
    "npg": SHARED / "npg",
    "moma": SHARED / "moma" / "moma_1929_1959.nt.zip",
}
ORDER = ["ycba", "nmwa", "acm", "npg", "moma", "demo"]
EXTRA_LANGS = ("nl", "pt")
_validate_v4 = validator("v9", tuple(ORDER))


def validate(qs: list[dict[str, Any]]) -> list[str]:
    """The v4 checks, with Dutch and Portuguese accepted as languages."""
    ok = {f"{q.get('id')}: lang {lang}" for q in qs for lang in EXTRA_LANGS
          if q.get("lang") == lang}
    return [e for e in _validate_v4(qs) if e not in ok]


def stats(qs: list[dict[str, Any]]) -> str:
    """The composition table of ``gold_runner.stats`` plus rows for nl and pt."""
    table = gold_runner.stats(qs, ORDER, notes=True).splitlines()
    at = next(i for i, line in enumerate(table) if line.startswith("| lang es")) + 1
    for lang in EXTRA_LANGS:
        cells = [sum(1 for q in qs if q["dataset"] == d and q.get("lang") == lang)
                 for d in ORDER]
        table.insert(at, f"| lang {lang} | " + " | ".join(map(str, cells)) + f" | {sum(cells)} |")
        at += 1
    return "\n".join(table)


def later_set_main(name: str, doc: str, argv: list[str] | None = None) -> int:
    """``main`` of a later set over these six graphs with v4's checks (``<name>.jsonl`` beside
    this script, ids ``<name>-<dataset>-NNN``, stores from ``<NAME>_STORES``)."""
    return run(argv, doc=doc, qfile=HERE / f"{name}.jsonl", graphs=GRAPHS, compute=compute,
               validate=validator(name, tuple(ORDER)), order=ORDER, notes=True,
               load=gold_runner.stores_loader(GRAPHS, f"{name.upper()}_STORES"))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if "--stats" in args:
        lines = QFILE.read_text(encoding="utf-8").splitlines()
        print(stats([json.loads(line) for line in lines if line.strip()]))
        return 0
    return run(args, doc=__doc__ or "", qfile=QFILE, graphs=GRAPHS, compute=compute,
               validate=validate, order=ORDER, notes=True,
               load=gold_runner.stores_loader(GRAPHS, "V9_STORES"))


if __name__ == "__main__":
    sys.exit(main())
