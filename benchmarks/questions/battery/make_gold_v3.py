"""Gold for the v3 blind battery (``v3.jsonl``), computed from each question's SPARQL.

Usage (from the repository root; needs ``../shared/datasets`` beside the repository)::

    python benchmarks/questions/battery/make_gold_v3.py --check  # default: recompute, compare
    python benchmarks/questions/battery/make_gold_v3.py --write  # rewrite v3.jsonl with the gold
    python benchmarks/questions/battery/make_gold_v3.py --stats  # counts per graph/lang/expect

How the result columns of a question's query are read:

* ``?anchor``: the entity named in the question (work, artist, place, church); it goes
  first in ``gold_uris``.
* ``?item``: an answer entity; ``gold_uris`` = anchors, then items, each once, in row order.
* ``?label``: an answer label (a name, a title, or a year as 4 digits); ``answer_labels`` =
  distinct labels in row order, at most 15 kept for enumerations.
* ``?count``: for aggregations; ``answer_labels`` = [str(count)], ``gold_count`` = count.

``gold_count``: the count for aggregations; the number of distinct items (or labels) for
enumerations; ``null`` for specific questions. A ``not_found`` question's query must return
no row; its gold is ``[]``, ``[]``, ``null``. An ``answered`` question's query must return
a row.

The NMWA, ACM and YCBA dumps are N-Triples (named ``.n3``); the ACM one carries an IRI with
``]`` and is read leniently. Stores are built in memory (nothing is written to disk).
Exit codes: 0 all equal, 1 a difference or an invalid question, 2 a graph file is missing.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pyoxigraph as ox

sys.path.insert(0, str(Path(__file__).resolve().parent))  # gold_runner.py
from gold_runner import run, value  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
SHARED = REPO.parent / "shared" / "datasets"
QFILE = HERE / "v3.jsonl"
GRAPHS = {
    "nmwa": SHARED / "nmwa" / "consolidated_data.n3.zip",
    "acm": SHARED / "acm" / "consolidated_data.n3.zip",
    "ycba": SHARED / "ycba" / "ycba_data.n3.zip",
    "demo": REPO / "examples" / "data" / "troodos.ttl",
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
    for row in result:  # type: ignore[union-attr]
        nrows += 1
        rec = {n: value(row[n]) for n in names}
        for key in ("anchor", "item"):
            v = rec.get(key)
            if v is not None and v not in uris:
                uris.append(v)
            if key == "item" and v is not None and v not in items:
                items.append(v)
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


def validate(qs: list[dict[str, Any]]) -> list[str]:
    errs: list[str] = []
    ids = Counter(q["id"] for q in qs)
    errs += [f"duplicate id {i}" for i, n in ids.items() if n > 1]
    for q in qs:
        for f in FIELDS:
            if f not in q:
                errs.append(f"{q.get('id')}: missing {f}")
        if q.get("type") not in TYPES:
            errs.append(f"{q['id']}: type {q.get('type')}")
        if q.get("lang") not in LANGS:
            errs.append(f"{q['id']}: lang {q.get('lang')}")
        if q.get("expect") not in {"answered", "not_found"}:
            errs.append(f"{q['id']}: expect {q.get('expect')}")
        if q.get("dataset") not in GRAPHS:
            errs.append(f"{q['id']}: dataset {q.get('dataset')}")
        if not q["id"].startswith(f"v3-{q['dataset']}-"):
            errs.append(f"{q['id']}: id does not name its dataset")
        if q["dataset"] == "demo" and not q.get("group"):
            errs.append(f"{q['id']}: demo question without group")
        text = q["question"].lower()
        for lab in q.get("answer_labels", []):
            if q.get("type") == "specific" and len(lab) > 3 and lab.lower() in text:
                errs.append(f"{q['id']}: question contains its answer {lab!r}")
    groups: dict[str, list[dict[str, Any]]] = {}
    for q in qs:
        if q.get("group"):
            groups.setdefault(q["group"], []).append(q)
    for g, members in groups.items():
        first = members[0]
        for m in members[1:]:
            for f in ("gold_uris", "answer_labels", "gold_count", "template"):
                if m[f] != first[f]:
                    errs.append(f"group {g}: {m['id']} differs from {first['id']} in {f}")
    return errs


def main(argv: list[str] | None = None) -> int:
    return run(argv, doc=__doc__ or "", qfile=QFILE, graphs=GRAPHS, compute=compute,
               validate=validate, order=["nmwa", "acm", "demo", "ycba"])


if __name__ == "__main__":
    sys.exit(main())
