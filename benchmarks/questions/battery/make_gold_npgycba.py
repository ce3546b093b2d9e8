#!/usr/bin/env python3
"""(Re)compute and check the gold of the npgycba battery: npg.jsonl and ycba.jsonl beside this
script.

Uses the derivation rules of benchmarks/questions/make_gold.py (imported; the dev-set rules, see its
docstring) with the NPG settings of make_gold_npg.py (anchor IRIs, credit lines) and these
path-actor templates (the actor column is a gold URI without a label: it is only the path to a
year, place or nationality): creator_birth_year, creator_death_year, creator_birthplace,
creator_deathplace, creator_nationality, sitter_birth_year.

The graphs are read from ../shared/datasets (beside the repository); exit 2 if they are missing.
They are kept in persistent pyoxigraph stores under the system temp directory
(<tempdir>/llama-index-crm-battery/{npg,ycba}-store); a store is built from the zips on the first
run (NPG: all 14 parts in one store, a few minutes), rebuilt when the zips change, and opened
read-only afterwards. --no-cache loads the graphs in memory instead.

usage (from the repository root):
  python benchmarks/questions/battery/make_gold_npgycba.py --check   # exit 1 if a stored gold
                                                                     # differs from its SPARQL
  python benchmarks/questions/battery/make_gold_npgycba.py --write   # rewrite the files
  python benchmarks/questions/battery/make_gold_npgycba.py --check ycba   # one graph only
Also checked: the fields of the dev format plus expect and lang, unique ids, no question
containing its own answer labels, enumeration answers of at most 15 items, not_found questions
returning no row.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = Path(__file__).resolve().parents[3]
SHARED = REPO.parent / "shared"
DATA = SHARED / "datasets"
CACHE = Path(tempfile.gettempdir()) / "llama-index-crm-battery"
sys.path.insert(0, str(REPO / "benchmarks" / "questions"))  # make_gold.py

import pyoxigraph as ox  # noqa: E402
from make_gold import (  # noqa: E402
    ANCHOR_IRI,
    MUSEUM,
    Dataset,
    Labeler,
    derive,
    dump,
    validate,
)

PATH_ACTOR = frozenset({"creator_nationality", "creator_birth_year", "creator_death_year",
                        "creator_birthplace", "creator_deathplace", "sitter_birth_year"})
ANCH = re.compile(rf"<({ANCHOR_IRI}|http://data\.npg\.si\.edu/(?:object|person-institution)/\d+)>")
NPG = Dataset(data=str(DATA / "npg"), files=(str(HERE / "npg.jsonl"),), anchor_re=ANCH,
              museums=(MUSEUM, "National Portrait Gallery, Smithsonian Institution"),
              path_actor_templates=PATH_ACTOR,
              credit_prefixes=("Gift of ", "gift of ", "Bequest of ", "bequest of "))
YCBA = Dataset(data=str(DATA / "ycba" / "ycba_data.n3.zip"),
               files=(str(HERE / "ycba.jsonl"),), anchor_re=ANCH, museums=(MUSEUM,),
               path_actor_templates=PATH_ACTOR)
GRAPHS = {"npg": NPG, "ycba": YCBA}
LANGS = {"en", "el", "fr", "de", "it", "es"}


def require_data(paths: list[str]) -> None:
    """Exit 2 with a clear message when a graph (under ../shared) is missing."""
    if not SHARED.is_dir():
        print(f"error: {SHARED} is missing: the battery graphs are read from ../shared/datasets "
              "beside the repository", file=sys.stderr)
        sys.exit(2)
    missing = [p for p in paths if not Path(p).exists()]
    if missing:
        print("error: missing graph file(s): " + ", ".join(missing), file=sys.stderr)
        sys.exit(2)


def zips_of(src: str) -> list[Path]:
    p = Path(src)
    return sorted(f for f in p.iterdir() if f.suffix == ".zip") if p.is_dir() else [p]


def load_into(store: ox.Store, zips: list[Path]) -> None:
    for zp in zips:
        with zipfile.ZipFile(zp) as z:
            data = b"".join(z.read(n) for n in sorted(z.namelist()) if not n.endswith("/"))
        store.bulk_load(data, format=ox.RdfFormat.N_TRIPLES)


def open_store(name: str, ds: Dataset, cache: bool) -> ox.Store:
    """The graph's store: in memory, or a persistent store under the temp directory."""
    zips = zips_of(ds.data)
    if not cache:
        store = ox.Store()
        load_into(store, zips)
        return store
    fingerprint = "\n".join(f"{z.name} {z.stat().st_size} {int(z.stat().st_mtime)}"
                            for z in zips) + "\n"
    path = CACHE / f"{name}-store"
    done = path / "DONE"
    if done.exists() and done.read_text(encoding="utf-8") == fingerprint:
        return ox.Store.read_only(str(path))
    print(f"{name}: building the store {path} (first run)")
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f"{name}-build-", dir=CACHE))
    st = ox.Store(str(tmp))
    load_into(st, zips)
    st.flush()
    del st
    (tmp / "DONE").write_text(fingerprint, encoding="utf-8")
    if path.exists():
        shutil.rmtree(path, ignore_errors=True)
    try:
        os.replace(tmp, path)
    except OSError:  # another run finished first: use its store
        shutil.rmtree(tmp, ignore_errors=True)
    return ox.Store.read_only(str(path))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--check", action="store_true", help="compare stored gold (default)")
    g.add_argument("--write", action="store_true", help="write the computed gold into the files")
    ap.add_argument("--no-cache", action="store_true",
                    help="load the graphs in memory instead of a persistent store")
    ap.add_argument("graphs", nargs="*", metavar="GRAPH",
                    help="npg and/or ycba (default: both)")
    args = ap.parse_args()
    unknown = [name for name in args.graphs if name not in GRAPHS]
    if unknown:
        ap.error(f"unknown graph(s) {', '.join(unknown)}: choose from npg, ycba")
    args.graphs = args.graphs or ["npg", "ycba"]
    require_data([GRAPHS[name].data for name in args.graphs])
    bad = 0
    for name in args.graphs:
        ds = GRAPHS[name]
        store = open_store(name, ds, not args.no_cache)
        lab = Labeler(store)
        path = Path(ds.files[0])
        with open(path, encoding="utf-8") as fh:
            qs: list[dict[str, Any]] = [json.loads(line) for line in fh if line.strip()]
        seen: set[Any] = set()
        nbad = 0
        for q in qs:
            errs: list[str] = []
            try:
                uris, labels, count = derive(q, store, lab, ds)
            except Exception as e:  # noqa: BLE001 - report and go on
                errs.append(f"sparql: {e}")
            else:
                if args.write:
                    q["gold_uris"], q["answer_labels"], q["gold_count"] = uris, labels, count
                else:
                    computed: tuple[tuple[str, object], ...] = (
                        ("gold_uris", uris), ("answer_labels", labels), ("gold_count", count))
                    for f, v in computed:
                        if q.get(f) != v:
                            errs.append(f"{f}: stored {q.get(f)!r}, sparql gives {v!r}")
            errs = validate(q, seen, False) + errs
            if q.get("lang") not in LANGS:
                errs.append(f"bad lang {q.get('lang')!r}")
            if q.get("dataset") != name:
                errs.append("dataset field does not match the file")
            if q["type"] == "enumeration" and len(q.get("answer_labels") or []) > 15:
                errs.append(f"enumeration with {len(q['answer_labels'])} labels (> 15)")
            seen.add(q.get("id"))
            if errs:
                nbad += 1
                for err in errs:
                    print(f"{path.name} {q.get('id')}: {err}")
        if args.write:
            with open(path, "w", encoding="utf-8") as fh:
                for q in qs:
                    fh.write(dump(q) + "\n")
        print(f"{path.name}: {len(qs)} questions, {nbad} with problems"
              + (" (written)" if args.write else ""))
        bad += nbad
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
