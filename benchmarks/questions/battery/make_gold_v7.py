"""(Re)compute and check the gold of the blind set v7 (``v7.jsonl`` beside this script).

Usage (from the repository root; needs ``../shared/datasets`` beside the repository)::

    python benchmarks/questions/battery/make_gold_v7.py --check  # default: recompute, compare
    python benchmarks/questions/battery/make_gold_v7.py --write  # rewrite v7.jsonl with the gold
    python benchmarks/questions/battery/make_gold_v7.py --stats  # counts per graph/lang/type/expect

Graphs: ``npg`` (National Portrait Gallery, the 14 zips of ``datasets/npg`` in one store, a
minute or two to load), ``ycba``, ``moma`` (MoMA exhibitions 1929-1959, Linked Art), ``demo``
(Troodos churches, ``examples/data/troodos.ttl``) and ``acm`` (Amon Carter Museum).

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

Also checked: fields, ids (``v7-<dataset>-NNN``, unique), type/lang/expect values, that a
specific question does not contain its own answer label (except ``compare_*`` templates,
whose answer is one of the two names asked about), that demo questions carry a
``group`` and that a group's members share template, ``gold_uris``, ``answer_labels`` and
``gold_count``. Stores are built in memory (nothing is written to disk).
Exit codes: 0 all equal, 1 a difference or an invalid question, 2 a graph file is missing.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # gold_runner.py
import gold_runner  # noqa: E402
from gold_runner import run  # noqa: E402
from make_gold_v4 import compute, validator  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
SHARED = REPO.parent / "shared" / "datasets"
QFILE = HERE / "v7.jsonl"
GRAPHS = {
    "npg": SHARED / "npg",
    "ycba": SHARED / "ycba" / "ycba_data.n3.zip",
    "moma": SHARED / "moma" / "moma_1929_1959.nt.zip",
    "demo": REPO / "examples" / "data" / "troodos.ttl",
    "acm": SHARED / "acm" / "consolidated_data.n3.zip",
}
ORDER = ["npg", "ycba", "moma", "demo", "acm"]
validate = validator("v7", ("npg", "ycba", "moma", "demo", "acm"))


def main(argv: list[str] | None = None) -> int:
    return run(argv, doc=__doc__ or "", qfile=QFILE, graphs=GRAPHS, compute=compute,
               validate=validate, order=ORDER, notes=True,
               load=gold_runner.stores_loader(GRAPHS, "V7_STORES"))


if __name__ == "__main__":
    sys.exit(main())
