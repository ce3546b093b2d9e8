"""Gold for the v4 blind battery (``v4.jsonl``), computed from each question's SPARQL.

Usage (from the repository root; needs ``../shared/datasets`` beside the repository)::

    python benchmarks/questions/battery/make_gold_v4.py --check  # default: recompute, compare
    python benchmarks/questions/battery/make_gold_v4.py --write  # rewrite v4.jsonl with the gold
    python benchmarks/questions/battery/make_gold_v4.py --stats  # counts per graph/lang/type/expect

Graphs: ``moma`` (MoMA exhibitions 1929-1959, Linked Art), ``demo`` (Troodos churches,
``examples/data/troodos.ttl``), ``nmwa`` and ``acm`` (American Art Collaborative dumps).

How the result columns of a question's query are read (the rules of ``make_gold_v3.py``
plus ``?via``):

* ``?anchor``: the entity named in the question (exhibition, person, work, artist, place,
  church); it goes first in ``gold_uris``.
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
no row (it searches every literal of the graph for fragments of the invented name); its gold
is ``[]``, ``[]``, ``null``. An ``answered`` question's query must return a row.

Also checked: fields, ids (``v4-<dataset>-NNN``, unique), type/lang/expect values, that a
specific question does not contain its own answer label, that demo questions carry a
``group`` and that a group's members share template, ``gold_uris``, ``answer_labels`` and
``gold_count``. Stores are built in memory (nothing is written to disk).
Exit codes: 0 all equal, 1 a difference or an invalid question, 2 a graph file is missing.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyoxigraph as ox

sys.path.insert(0, str(Path(__file__).resolve().parent))  # gold_runner.py
from gold_runner import run, value  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
SHARED = REPO.parent / "shared" / "datasets"
QFILE = HERE / "v4.jsonl"
GRAPHS = {
    "moma": SHARED / "moma" / "moma_1929_1959.nt.zip",
    "demo": REPO / "examples" / "data" / "troodos.ttl",
    "nmwa": SHARED / "nmwa" / "consolidated_data.n3.zip",
    "acm": SHARED / "acm" / "consolidated_data.n3.zip",
}
FIELDS = [
    "id",
    "dataset",
    "question",
    "type",
    "hops",
    "template",
    "gold_uris",
    "answer_labels",
    "gold_count",
    "sparql",
    "turn_of",
    "expect",
    "lang",
]
TYPES = {"specific", "enumeration", "aggregation"}
LANGS = {"en", "el", "fr", "de", "it", "es"}
MAX_LABELS = 15


def compute(store: ox.Store, q: dict[str, Any]) -> dict[str, Any]:
    result = store.query(q["sparql"])
    names = [v.value for v in result.variables]  # type: ignore[union-attr]
    uris: list[str] = []
    labels: list[str] = []
    items: list[str] = []
    count: int | None = None
    nrows = 0
    rows = [{n: value(row[n]) for n in names} for row in result]  # type: ignore[union-attr]
    nrows = len(rows)
    for key in ("anchor", "via", "item"):
        for rec in rows:
            v = rec.get(key)
            if v is not None and v not in uris:
                uris.append(v)
            if key == "item" and v is not None and v not in items:
                items.append(v)
    for rec in rows:
        lab = rec.get("label")
        if lab is not None:
            lab = " ".join(lab.split())
            if lab not in labels:
                labels.append(lab)
        if rec.get("count") is not None:
            count = int(rec["count"])  # type: ignore[arg-type]
    if q["expect"] == "not_found":
        return {"gold_uris": [], "answer_labels": [], "gold_count": None, "_rows": nrows}
    gold_count: int | None = None
    if q["type"] == "aggregation":
        gold_count = count
        if not labels and count is not None:
            labels = [str(count)]
    elif q["type"] == "enumeration":
        gold_count = len(items) if items else len(labels)
        labels = labels[:MAX_LABELS]
    return {"gold_uris": uris, "answer_labels": labels, "gold_count": gold_count, "_rows": nrows}


def validator(version: str, datasets: tuple[str, ...] = ("moma", "demo", "nmwa", "acm")
              ) -> Callable[[list[dict[str, Any]]], list[str]]:
    """The checks of a set whose ids are ``<version>-<dataset>-NNN`` (v4 to v7)."""
    id_re = re.compile(rf"^{version}-({'|'.join(datasets)})-\d{{3}}$")

    def check(qs: list[dict[str, Any]]) -> list[str]:
        return _validate(qs, version, id_re, datasets)

    return check


def _validate(qs: list[dict[str, Any]], version: str, id_re: re.Pattern[str],
              datasets: tuple[str, ...] = tuple(GRAPHS)) -> list[str]:
    errs: list[str] = []
    ids = Counter(q.get("id") for q in qs)
    errs += [f"duplicate id {i}" for i, n in ids.items() if n > 1]
    for q in qs:
        qid = q.get("id")
        for f in FIELDS:
            if f not in q:
                errs.append(f"{qid}: missing {f}")
        if not id_re.match(str(qid)) or not str(qid).startswith(
                f"{version}-{q.get('dataset')}-"):
            errs.append(f"{qid}: id does not follow {version}-<dataset>-NNN")
        if q.get("type") not in TYPES:
            errs.append(f"{qid}: type {q.get('type')}")
        if q.get("lang") not in LANGS:
            errs.append(f"{qid}: lang {q.get('lang')}")
        if q.get("expect") not in {"answered", "not_found"}:
            errs.append(f"{qid}: expect {q.get('expect')}")
        if q.get("dataset") not in datasets:
            errs.append(f"{qid}: dataset {q.get('dataset')}")
        if q.get("turn_of") is not None:
            errs.append(f"{qid}: turn_of is set")
        if q.get("dataset") == "demo" and not q.get("group"):
            errs.append(f"{qid}: demo question without group")
        if q.get("expect") == "answered" and not q.get("answer_labels"):
            errs.append(f"{qid}: answered question without answer labels")
        if q.get("type") == "enumeration" and len(q.get("answer_labels", [])) > MAX_LABELS:
            errs.append(f"{qid}: more than {MAX_LABELS} labels")
        text = str(q.get("question", "")).lower()
        for lab in q.get("answer_labels", []):
            if (q.get("type") == "specific" and len(lab) > 3 and lab.lower() in text
                    and not str(q.get("template", "")).startswith("compare_")):
                errs.append(f"{qid}: question contains its answer {lab!r}")
    groups: dict[str, list[dict[str, Any]]] = {}
    for q in qs:
        if q.get("group"):
            groups.setdefault(q["group"], []).append(q)
    for g, members in groups.items():
        first = members[0]
        for m in members[1:]:
            for f in ("gold_uris", "answer_labels", "gold_count", "template", "sparql"):
                if m.get(f) != first.get(f):
                    errs.append(f"group {g}: {m['id']} differs from {first['id']} in {f}")
    return errs


validate = validator("v4")


def main(argv: list[str] | None = None) -> int:
    return run(argv, doc=__doc__ or "", qfile=QFILE, graphs=GRAPHS, compute=compute,
               validate=validate, order=["moma", "demo", "nmwa", "acm"], notes=True)


if __name__ == "__main__":
    sys.exit(main())
