"""What the blind sets' gold scripts share (``make_gold_v3.py``, ``make_gold_v4.py``): loading
a graph into pyoxigraph, the ``--check`` / ``--write`` / ``--stats`` command, and the
composition table. Each script keeps its own questions file, graphs, gold rules and checks.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import zipfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pyoxigraph as ox

Question = dict[str, Any]


def load_store(path: Path) -> ox.Store:
    """A store of one graph file (a zip of N-Triples / N3 files, or Turtle)."""
    store = ox.Store()
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as zf:
            for name in zf.namelist():
                if name.endswith((".n3", ".nt")):
                    data = io.BytesIO(zf.read(name))
                    store.bulk_load(data, ox.RdfFormat.N_TRIPLES, lenient=True)
    else:
        store.bulk_load(path=str(path), format=ox.RdfFormat.TURTLE)
    return store


def stores_loader(graphs: Mapping[str, Path], env: str) -> Callable[[Path], ox.Store]:
    """A loader for sets over big graphs (``make_gold_v7.py``, ``make_gold_v8.py``): a folder
    of zips in one store (NPG, 14 parts) besides one zip or a Turtle file; with ``<env>=<dir>``
    the prebuilt on-disk store ``<dir>/<dataset>`` is opened read-only instead."""
    def load(path: Path) -> ox.Store:
        cached = os.environ.get(env)
        if cached:
            for name, p in graphs.items():
                if p == path and (Path(cached) / name).is_dir():
                    return ox.Store.read_only(str(Path(cached) / name))
        if not path.is_dir():
            return load_store(path)
        store = ox.Store()
        for part in sorted(path.glob("*.zip")):
            with zipfile.ZipFile(part) as zf:
                for name in zf.namelist():
                    if name.endswith((".n3", ".nt")):
                        store.bulk_load(io.BytesIO(zf.read(name)), ox.RdfFormat.N_TRIPLES,
                                        lenient=True)
        return store

    return load


def value(term: Any) -> str | None:
    """A result term's lexical value."""
    return None if term is None else str(term.value)


def stats(qs: Sequence[Question], order: Sequence[str], notes: bool = False) -> str:
    """The set's composition as a Markdown table, one column per dataset."""
    lines = ["| | " + " | ".join(order) + " | all |", "|---|" + "---:|" * (len(order) + 1)]

    def line(name: str, keep: Callable[[Question], bool]) -> None:
        cells = [sum(1 for q in qs if q["dataset"] == d and keep(q)) for d in order]
        lines.append(f"| {name} | " + " | ".join(map(str, cells)) + f" | {sum(cells)} |")

    line("questions", lambda q: True)
    for key, values in (("lang", ["en", "el", "fr", "de", "it", "es"]),
                        ("expect", ["answered", "not_found"]),
                        ("type", ["specific", "enumeration", "aggregation"])):
        for v in values:
            line(f"{key} {v}", _equals(key, v))
    if notes:
        line("with a note", lambda q: bool(q.get("note")))
    return "\n".join(lines)


def _equals(key: str, wanted: str) -> Callable[[Question], bool]:
    return lambda q: str(q.get(key)) == wanted


def run(argv: list[str] | None, *, doc: str, qfile: Path, graphs: Mapping[str, Path],
        compute: Callable[[ox.Store, Question], dict[str, Any]],
        validate: Callable[[list[Question]], list[str]], order: Sequence[str],
        notes: bool = False, load: Callable[[Path], ox.Store] | None = None) -> int:
    """``--check`` (re-run every query, compare with the stored gold), ``--write`` (store the
    computed gold) or ``--stats``; 0 when there is no problem, 1 otherwise, 2 without data."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--stats", action="store_true")
    args = ap.parse_args(argv)
    lines = qfile.read_text(encoding="utf-8").splitlines()
    qs = [json.loads(line) for line in lines if line.strip()]
    if args.stats:
        print(stats(qs, order, notes))
        return 0
    used = {q["dataset"] for q in qs}
    missing = [str(p) for d, p in graphs.items() if d in used and not p.exists()]
    if missing:
        print("missing graph file(s): " + ", ".join(missing), file=sys.stderr)
        return 2
    stores: dict[str, ox.Store] = {}
    diffs: list[str] = []
    out: list[Question] = []
    for q in qs:
        d = q["dataset"]
        if d not in stores:
            stores[d] = (load or load_store)(graphs[d])
        gold = compute(stores[d], q)
        nrows = gold.pop("_rows")
        if q["expect"] == "not_found" and nrows:
            diffs.append(f"{q['id']}: not_found query returns {nrows} row(s)")
        if q["expect"] == "answered" and not nrows:
            diffs.append(f"{q['id']}: answered query returns no row")
        for f, v in gold.items():
            if q.get(f) != v:
                diffs.append(f"{q['id']}: {f} {q.get(f)!r} != computed {v!r}")
        out.append({**q, **gold})
    if args.write:
        text = "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in out)
        qfile.write_text(text, encoding="utf-8")
        diffs = [x for x in diffs if "returns" in x]
        qs = out
    errs = validate(qs) + diffs
    for e in errs:
        print(e)
    print(f"{len(qs)} questions, {len(errs)} problem(s)")
    return 1 if errs else 0
