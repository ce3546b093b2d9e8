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

import io
import os
import re
import sys
import zipfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyoxigraph as ox

sys.path.insert(0, str(Path(__file__).resolve().parent))  # gold_runner.py
import gold_runner  # noqa: E402
from gold_runner import run, value  # noqa: E402

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
_load_file = gold_runner.load_store  # the shared loader (one zip or a Turtle file)


def load_store(path: Path) -> ox.Store:
    """A store of one graph: a folder of zips (NPG, 14 parts), a zip or a Turtle file; with
    ``V7_STORES=<dir>`` an on-disk store ``<dir>/<dataset>`` is opened read-only instead."""
    cached = os.environ.get("V7_STORES")
    if cached:
        for name, p in GRAPHS.items():
            if p == path and (Path(cached) / name).is_dir():
                return ox.Store.read_only(str(Path(cached) / name))
    if path.is_dir():
        store = ox.Store()
        for part in sorted(path.glob("*.zip")):
            with zipfile.ZipFile(part) as zf:
                for name in zf.namelist():
                    if name.endswith((".n3", ".nt")):
                        store.bulk_load(io.BytesIO(zf.read(name)), ox.RdfFormat.N_TRIPLES,
                                        lenient=True)
        return store
    return _load_file(path)
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


def validator(version: str) -> Callable[[list[dict[str, Any]]], list[str]]:
    """The checks of a set whose ids are ``<version>-<dataset>-NNN``."""
    id_re = re.compile(rf"^{version}-(npg|ycba|moma|demo|acm)-\d{{3}}$")

    def check(qs: list[dict[str, Any]]) -> list[str]:
        return _validate(qs, version, id_re)

    return check


def _validate(qs: list[dict[str, Any]], version: str, id_re: re.Pattern[str]) -> list[str]:
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
        if q.get("dataset") not in GRAPHS:
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


validate = validator("v7")


def main(argv: list[str] | None = None) -> int:
    gold_runner.load_store = load_store  # run() loads through the module attribute
    return run(argv, doc=__doc__ or "", qfile=QFILE, graphs=GRAPHS, compute=compute,
               validate=validate, order=ORDER, notes=True)


if __name__ == "__main__":
    sys.exit(main())
