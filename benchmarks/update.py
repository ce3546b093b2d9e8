"""Benchmark of incremental updates against full builds, in the same run.

For one dataset (files in ``../shared/datasets``):

1. ``base``: a full build of the graph (``CrmGraphIndex.build``, 2 workers), with its own
   embedding cache (cold).
2. ``one-label``: the rdfs:label of one work (a typical record, named in a few documents)
   changed, applied with ``CrmGraphIndex.update``.
3. ``1%``: one literal of 1 % of the entities changed (their label, else their first
   literal; among the entities with a literal of their own), applied the same way to the
   base index.
4. ``full-1%``: a full build of the graph after the 1 % change, with the same (now warm)
   embedding cache: the rebuild an update replaces, sparing the unchanged vectors as well.

The updated index is then compared with the full build file by file
(``tests/update_support.py: compare_folders``). Every timing is wall time in this process;
the ratio is update / full build of the same change.

Usage::

    nice -n 10 python benchmarks/update.py --dataset nmwa
    nice -n 10 python benchmarks/update.py --dataset npg   # ~20 min a full build

Writes ``benchmarks/results/update_<dataset>.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "benchmarks"))

from _machine import machine_info  # noqa: E402
from update_support import (  # noqa: E402
    RDFS_LABEL,
    compare_folders,
    graph_triples,
    write_nt,
)

from llama_index_crm.index import CrmGraphIndex  # noqa: E402
from llama_index_crm.rdf import Literal, Triple  # noqa: E402

SHARED = REPO.parent / "shared" / "datasets"
FILES = {"ycba": "ycba/ycba_data.n3.zip", "nmwa": "nmwa/consolidated_data.n3.zip",
         "npg": "npg", "acm": "acm", "moma": "moma"}


def _changed_literal(t: Triple, tag: str) -> Triple:
    lit = t.o
    assert isinstance(lit, Literal)
    return Triple(t.s, t.p, Literal(f"{lit.value} [{tag}]", lit.lang, lit.datatype))


def one_label(triples: list[Triple], docs: set[str]) -> tuple[list[Triple], list[Triple]]:
    """The label of one document's entity, changed (the median-linked labelled entity)."""
    linked: dict[str, int] = {}
    for t in triples:
        if isinstance(t.o, str):
            linked[t.o] = linked.get(t.o, 0) + 1
    labels = sorted((t for t in triples if t.p == RDFS_LABEL and t.s in docs
                     and isinstance(t.o, Literal)), key=lambda t: (linked.get(t.s, 0), t.s))
    old = labels[len(labels) // 2]
    return [_changed_literal(old, "renamed")], [old]


def one_percent(triples: list[Triple], entities: int, seed: int = 20
                ) -> tuple[list[Triple], list[Triple], int]:
    """One literal (the label first) of 1 % of the entities changed, among the entities
    with a literal of their own: (added, removed, entities changed)."""
    literals: dict[str, list[Triple]] = {}
    for t in triples:
        if isinstance(t.o, Literal) and not t.s.startswith("_:"):
            literals.setdefault(t.s, []).append(t)
    chosen = sorted(literals)
    random.Random(seed).shuffle(chosen)
    chosen = sorted(chosen[: max(1, entities // 100)])
    added: list[Triple] = []
    removed: list[Triple] = []
    for s in chosen:
        first = sorted(literals[s], key=lambda t: (t.p != RDFS_LABEL, t.p, t.o))[0]
        removed.append(first)
        added.append(_changed_literal(first, "1%"))
    return added, removed, len(chosen)


def timed(label: str, fn: Any) -> float:
    started = time.perf_counter()
    fn()
    seconds = time.perf_counter() - started
    print(f"{label:>12}: {seconds:8.1f} s", flush=True)
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="nmwa", choices=sorted(FILES))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--keep", type=Path, default=None,
                        help="work in this folder and keep it (default: a temporary one)")
    args = parser.parse_args()
    source = SHARED / FILES[args.dataset]
    if not source.exists():
        print(f"{source} is not here (../shared); nothing to measure", file=sys.stderr)
        return 1
    root = args.keep or Path(tempfile.mkdtemp(prefix="crm-update-"))
    root.mkdir(parents=True, exist_ok=True)
    cache = root / "cache"
    figures: dict[str, Any] = {"dataset": args.dataset, "machine": machine_info()}
    try:
        triples = graph_triples([source])
        figures["triples"] = len(triples)
        base = root / "base"
        figures["build_s"] = timed("base build", lambda: CrmGraphIndex.build(
            [str(source)], base, cache_dir=cache, workers=args.workers))
        docs = set(json.loads((base / "doc_ids.json").read_text()))
        figures["documents"] = len(docs)
        entities = json.loads((base / "manifest.json").read_text())["stats"]["entities"]
        figures["entities"] = entities
        percent = one_percent(triples, entities)
        results: dict[str, Any] = {}
        for name, (added, removed) in (
                ("one-label", one_label(triples, docs)),
                ("1%", percent[:2])):
            target = root / name
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(base, target)
            add = write_nt(root / f"{name}.add.nt", added)
            rem = write_nt(root / f"{name}.remove.nt", removed)
            seconds = timed(name, lambda t=target, a=add, r=rem: CrmGraphIndex.update(
                t, add=[a], remove=[r], cache_dir=cache, load=False))
            entry = json.loads((target / "manifest.json").read_text())["updates"][-1]
            results[name] = {"seconds": round(seconds, 2), "triples_added": len(added),
                             "triples_removed": len(removed), **entry}
        # the full build the 1 % update replaces, with the embedding cache as warm as it is
        gone = set(percent[1])
        added = percent[0]
        changed = write_nt(root / "changed.nt", [t for t in triples if t not in gone] + added)
        full = root / "full"
        figures["full_build_1pct_s"] = timed("full 1%", lambda: CrmGraphIndex.build(
            [str(changed)], full, cache_dir=cache, workers=args.workers))
        results["1%"]["ratio_to_full_build"] = round(
            results["1%"]["seconds"] / figures["full_build_1pct_s"], 4)
        results["1%"]["equal_to_full_build"] = compare_folders(root / "1%", full) == []
        figures["updates"] = results
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    out = REPO / "benchmarks" / "results" / f"update_{args.dataset}.json"
    out.write_text(json.dumps(figures, indent=1))
    print(json.dumps(figures["updates"], indent=1))
    print(f"ratio 1% update / full build: {figures['updates']['1%']['ratio_to_full_build']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
