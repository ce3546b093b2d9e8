"""Latency of :class:`CoherentSubgraphPostprocessor` (adjacency + greedy) on YCBA.

Each pool imitates a retrieval: the documents nearest (breadth-first over the graph,
without expanding hubs) to a random object, two thirds of the pool, plus random others;
scores fall with the distance, with noise; every document has a random 384-d unit vector.
The pool is re-ranked to ``k = 10``. Wall and CPU (``thread_time``) milliseconds are both
reported: on a shared 2-core machine the wall time includes waiting for the CPU.

* ``cold``: a fresh postprocessor per pool (no entity-id cache, no predicate weights yet);
* ``warm``: the same postprocessor on a pool it has seen (what a long-running service
  pays for documents it met before);
* ``adjacency``: the adjacency alone (``pool_adjacency`` + ``normalise``) from each
  document's edges already gathered (``document_edges``).

Usage::

    python benchmarks/coherent.py                       # builds YCBA into a temp dir
    python benchmarks/coherent.py --index /tmp/ycba_index --pools 50

Prints median and p95 milliseconds per pool size and writes
``benchmarks/results/coherent.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

import numpy as np
from llama_index.core.schema import NodeWithScore

from llama_index_crm.postprocessors import CoherentSubgraphPostprocessor
from llama_index_crm.postprocessors.adjacency import (
    PredicateWeights,
    document_edges,
    document_entities,
    normalise,
    pool_adjacency,
)
from llama_index_crm.storage import CrmDocumentStore
from llama_index_crm.storage.triples import TripleStore

ROOT = Path(__file__).resolve().parents[1]
YCBA = ROOT.parent / "shared" / "datasets" / "ycba" / "ycba_data.n3.zip"
RESULTS = ROOT / "benchmarks" / "results" / "coherent.json"
SIZES = (50, 100, 150)
NEAR_SHARE = 2 / 3
"""Share of a pool taken from the neighbourhood of its seed object."""
EXPAND_BELOW = 200
"""The breadth-first walk does not expand nodes with more triples (hubs)."""
DIMENSIONS = 384
TARGET_MS = 20.0
"""Target latency for a pool of 150."""


def build_ycba(out: Path) -> Path:
    """Build the YCBA index folder into ``out`` (about 20 s)."""
    from llama_index_crm.build.folder import build_folder
    from llama_index_crm.sources import open_source

    print(f"building {YCBA.name} into {out} ...", file=sys.stderr)
    source = open_source([str(YCBA)])
    try:
        build_folder(source, out)
    finally:
        source.close()
    return out


def owner_map(store: TripleStore, docs: Sequence[NodeWithScore]) -> dict[int, int]:
    """Term id of every document entity -> the document's position."""
    owners: dict[int, int] = {}
    for pos, node in enumerate(docs):
        meta = node.node.metadata
        for uri in [meta["uri"], *(meta.get("chained_from") or [])]:
            term = store.id_of(uri)
            if term is not None:
                owners.setdefault(term, pos)
    return owners


def make_pool(store: TripleStore, docs: Sequence[NodeWithScore], owners: dict[int, int],
              seed_doc: int, size: int, rng: random.Random) -> list[NodeWithScore]:
    """Documents near ``seed_doc`` (breadth first) plus random ones, with scores."""
    start = store.id_of(docs[seed_doc].node.metadata["uri"])
    assert start is not None
    near: dict[int, int] = {}
    queue, seen = deque([(start, 0)]), {start}
    while queue and len(near) < size * NEAR_SHARE:
        term, dist = queue.popleft()
        if term in owners:
            near.setdefault(owners[term], dist)
        if term != start and store.degree(store.term(term)) > EXPAND_BELOW:
            continue
        for nbr in store.neighbour_ids(term).tolist():
            if nbr not in seen:
                seen.add(nbr)
                queue.append((nbr, dist + 1))
    chosen = dict(near)
    while len(chosen) < size:
        chosen.setdefault(rng.randrange(len(docs)), 6)
    return [NodeWithScore(node=docs[i].node, score=1.0 / (1 + d) + rng.random() * 0.3)
            for i, d in chosen.items()]


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0-1) of ``values``, nearest rank."""
    ranked = sorted(values)
    return ranked[min(len(ranked) - 1, round(q * (len(ranked) - 1)))]


def timed(fn: Callable[[], object]) -> tuple[float, float]:
    """Wall and CPU (this thread) milliseconds of one call."""
    wall, cpu = time.perf_counter(), time.thread_time()
    fn()
    return (time.perf_counter() - wall) * 1000.0, (time.thread_time() - cpu) * 1000.0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and write the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--index", type=Path, default=None,
                        help="a YCBA index folder (built there if absent; default: a temp dir)")
    parser.add_argument("--pools", type=int, default=40, help="pools per size")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args(argv)

    if args.index is not None and (args.index / "documents.parquet").is_file():
        return run(args.index, args)
    with tempfile.TemporaryDirectory(prefix="crm-coherent-") as tmp:
        return run(build_ycba(args.index or Path(tmp) / "ycba"), args)


def run(folder: Path, args: argparse.Namespace) -> int:
    """Time the pools of every size over the index in ``folder``; write the results."""
    docstore = CrmDocumentStore.from_persist_dir(folder)
    store = docstore.triples
    docs = [NodeWithScore(node=n) for n in docstore.docs.values()]
    owners = owner_map(store, docs)
    objects = [i for i, n in enumerate(docs) if "/id/object/" in n.node.metadata["uri"]
               and n.node.metadata["category"] == "Thing"]
    rng = random.Random(args.seed)
    vectors = np.random.default_rng(args.seed).standard_normal((len(docs), DIMENSIONS))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    lookup = {n.node.node_id: vectors[i].astype(np.float32) for i, n in enumerate(docs)}

    results: dict[str, object] = {
        "dataset": "ycba", "documents": len(docs), "triples": len(store),
        "pools_per_size": args.pools, "k": 10, "machine": platform.platform(),
        "python": platform.python_version(), "sizes": {},
    }
    print(f"{'pool':>5} {'cold med':>9} {'cold p95':>9} {'cold cpu':>9} {'warm med':>9} "
          f"{'warm p95':>9} {'warm cpu':>9} {'adj med':>8} {'edges':>6} {'entities':>8}")
    for size in SIZES:
        cold: list[float] = []
        warm: list[float] = []
        cold_cpu: list[float] = []
        warm_cpu: list[float] = []
        adjacency: list[float] = []
        edges_count: list[int] = []
        entity_count: list[int] = []
        weights = PredicateWeights(store)
        for _ in range(args.pools):
            pool = make_pool(store, docs, owners, rng.choice(objects), size, rng)
            fresh = CoherentSubgraphPostprocessor.from_components(store, vectors=lookup,
                                                                  top_n=10)
            for walls, cpus in ((cold, cold_cpu), (warm, warm_cpu)):
                wall, cpu = timed(partial(fresh.postprocess_nodes, pool, query_str="q"))
                walls.append(wall)
                cpus.append(cpu)
            entities = [document_entities(store, n.node.metadata["uri"],
                                          n.node.metadata["chained_from"])[1] for n in pool]
            edges = [document_edges(ids, store, weights) for ids in entities]
            started = time.perf_counter()
            raw = pool_adjacency(entities, store, weights, edges=edges)
            normalise(raw)
            adjacency.append((time.perf_counter() - started) * 1000.0)
            edges_count.append(int(np.count_nonzero(raw)) // 2)
            entity_count.append(sum(len(ids) for ids in entities))
        row = {
            "cold_median_ms": statistics.median(cold), "cold_p95_ms": percentile(cold, 0.95),
            "warm_median_ms": statistics.median(warm), "warm_p95_ms": percentile(warm, 0.95),
            "cold_cpu_median_ms": statistics.median(cold_cpu),
            "warm_cpu_median_ms": statistics.median(warm_cpu),
            "adjacency_median_ms": statistics.median(adjacency),
            "edges_median": statistics.median(edges_count),
            "entities_median": statistics.median(entity_count),
        }
        results["sizes"][str(size)] = row  # type: ignore[index]
        print(f"{size:>5} {row['cold_median_ms']:>9.2f} {row['cold_p95_ms']:>9.2f} "
              f"{row['cold_cpu_median_ms']:>9.2f} {row['warm_median_ms']:>9.2f} "
              f"{row['warm_p95_ms']:>9.2f} {row['warm_cpu_median_ms']:>9.2f} "
              f"{row['adjacency_median_ms']:>8.2f} {row['edges_median']:>6.0f} "
              f"{row['entities_median']:>8.0f}")
    results["target_ms_pool_150"] = TARGET_MS
    results["load_average"] = list(os.getloadavg())
    results["cpu_count"] = os.cpu_count()
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=1) + "\n")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
