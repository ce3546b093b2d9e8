#!/usr/bin/env python3
"""(Re)compute and check the gold of the blind battery "aac" (nmwa.jsonl, acm.jsonl) from the
questions' own `sparql` fields.

Uses the derivation rules of benchmarks/questions/make_gold.py (imported; they are the dev set's
rules: result columns object/actor/uri -> entity + label, place -> E53 IRI + first comma-part of
its label, begin/year -> 4-digit year, type -> singular classification label, group -> label,
count -> number; ORDER BY keeps row order, otherwise sorted; not_found questions must return no
row), with two per-graph settings (a `Dataset` each):
  * NMWA (National Museum of Wildlife Art, dataset "nmwa"): as make_gold_nmwa.py.
  * ACM (Amon Carter Museum of American Art, dataset "acm"): anchors
    <http://data.cartermuseum.org/object/SLUG> and <http://data.cartermuseum.org/artist/N>.
  In both, creator_nationality / creator_birth_year / creator_death_year / creator_birthplace use
  the actor column only as the path (gold URI, no label).
The ACM dump has some dirty lines: graphs are loaded with pyoxigraph's lenient bulk load, and if a
file still does not parse, line by line, skipping the lines that do not parse (reported).

usage (from the repository root):
  python benchmarks/questions/battery/make_gold_aac.py          # --check (default): exit 1 if a
                                                                # stored gold differs
  python benchmarks/questions/battery/make_gold_aac.py --write  # rewrite the files
  python benchmarks/questions/battery/make_gold_aac.py FILE ... # default: nmwa.jsonl, acm.jsonl
                                                                # beside this script
The graphs are read from ../shared/datasets (beside the repository); exit 2 if they are missing.
Each graph is loaded once (in memory); the file's questions say which graph ("dataset").
Only dependency: pyoxigraph.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import zipfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = Path(__file__).resolve().parents[3]
SHARED = REPO.parent / "shared"
DATA = SHARED / "datasets"
sys.path.insert(0, str(REPO / "benchmarks" / "questions"))  # make_gold.py

import pyoxigraph as ox  # noqa: E402
from make_gold import ANCHOR_IRI, Dataset, Labeler, derive, dump, validate  # noqa: E402

PATH_ACTOR = frozenset({"creator_nationality", "creator_birth_year", "creator_death_year",
                        "creator_birthplace"})
LANGS = {"en", "el", "fr", "de", "it", "es"}

DATASETS = {
    "nmwa": Dataset(
        data=str(DATA / "nmwa" / "consolidated_data.n3.zip"),
        files=(str(HERE / "nmwa.jsonl"),),
        anchor_re=re.compile(
            rf"<({ANCHOR_IRI}|http://data\.wildlifeart\.org/(?:object/\d+|constituent/[A-Za-z0-9_]+))>"),
        museums=("National Museum of Wildlife Art",),
        trailing_museum_re=re.compile(
            r"[,;]?\s*(?:The\s+)?National\s+Muse?um\s+of\s+Wildlife\s+Art\.?$", re.I),
        path_actor_templates=PATH_ACTOR,
        place_column=True,
    ),
    "acm": Dataset(
        data=str(DATA / "acm" / "consolidated_data.n3.zip"),
        files=(str(HERE / "acm.jsonl"),),
        anchor_re=re.compile(
            r"<(http://data\.cartermuseum\.org/(?:object/[A-Za-z0-9_]+|artist/\d+))>"),
        museums=("Amon Carter Museum of American Art",),
        trailing_museum_re=re.compile(
            r"[,;]?\s*(?:at\s+the\s+)?Amon\s+Carter\s+Museum(?:\s+of\s+American\s+Art)?"
            r"(?:,\s*Fort\s+Worth,\s*Texas)?\.?$", re.I),
        path_actor_templates=PATH_ACTOR,
        place_column=True,
    ),
}


def require_data(paths: list[str]) -> None:
    """Exit 2 with a clear message when a graph file (under ../shared) is missing."""
    if not SHARED.is_dir():
        print(f"error: {SHARED} is missing: the battery graphs are read from ../shared/datasets "
              "beside the repository", file=sys.stderr)
        sys.exit(2)
    missing = [p for p in paths if not Path(p).exists()]
    if missing:
        print("error: missing graph file(s): " + ", ".join(missing), file=sys.stderr)
        sys.exit(2)


def load_lenient(zpath: str) -> tuple[ox.Store, int]:
    """Load a zip of N-Triples; returns the store and the number of skipped lines."""
    with zipfile.ZipFile(zpath) as z:
        data = b"".join(z.read(n) for n in sorted(z.namelist()) if not n.endswith("/"))
    store = ox.Store()
    try:
        store.bulk_load(data, format=ox.RdfFormat.N_TRIPLES, lenient=True)
        return store, 0
    except SyntaxError:
        store = ox.Store()
    good: list[bytes] = []
    skipped = 0
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        try:
            list(ox.parse(line, format=ox.RdfFormat.N_TRIPLES, lenient=True))
            good.append(line)
        except SyntaxError:
            skipped += 1
    store.bulk_load(b"\n".join(good) + b"\n", format=ox.RdfFormat.N_TRIPLES, lenient=True)
    return store, skipped


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--check", action="store_true", help="compare stored gold (default)")
    g.add_argument("--write", action="store_true", help="write the computed gold into the files")
    args = ap.parse_args()
    files = args.files or [str(HERE / "nmwa.jsonl"), str(HERE / "acm.jsonl")]
    questions: dict[str, list[dict[str, Any]]] = {}
    for path in files:
        with open(path, encoding="utf-8") as fh:
            questions[path] = [json.loads(line) for line in fh if line.strip()]
    needed = {q.get("dataset") for qs in questions.values() for q in qs}
    require_data([DATASETS[n].data for n in sorted(n for n in needed if n in DATASETS)])
    stores: dict[str, tuple[ox.Store, Labeler]] = {}
    bad = 0
    for path, qs in questions.items():
        name_of_file = Path(path).name
        seen: set[Any] = set()
        nbad = 0
        for q in qs:
            name = q.get("dataset")
            ds = DATASETS.get(name) if isinstance(name, str) else None
            errs: list[str] = []
            if ds is None or not isinstance(name, str):
                errs.append(f"unknown dataset {name!r}")
            else:
                if name not in stores:
                    st, skipped = load_lenient(ds.data)
                    print(f"{name}: {len(st)} triples loaded, {skipped} bad lines skipped")
                    stores[name] = (st, Labeler(st))
                st, lab = stores[name]
                try:
                    uris, labels, count = derive(q, st, lab, ds)
                except Exception as e:  # noqa: BLE001 - report and go on
                    errs.append(f"sparql: {e}")
                else:
                    if args.write:
                        q["gold_uris"], q["answer_labels"], q["gold_count"] = uris, labels, count
                    else:
                        computed: tuple[tuple[str, object], ...] = (
                            ("gold_uris", uris), ("answer_labels", labels), ("gold_count", count))
                        for field, v in computed:
                            if q.get(field) != v:
                                errs.append(f"{field}: stored {q.get(field)!r}, sparql gives {v!r}")
            if q.get("lang") not in LANGS:
                errs.append(f"bad lang {q.get('lang')!r}")
            errs = validate(q, seen, False) + errs
            seen.add(q.get("id"))
            if errs:
                nbad += 1
                for err in errs:
                    print(f"{name_of_file} {q.get('id')}: {err}")
        if args.write:
            with open(path, "w", encoding="utf-8") as fh:
                for q in qs:
                    fh.write(dump(q) + "\n")
        print(f"{name_of_file}: {len(qs)} questions, {nbad} with problems"
              f"{' (written)' if args.write else ''}")
        bad += nbad
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
