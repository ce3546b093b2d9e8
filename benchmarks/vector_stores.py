"""Benchmark of the dense channel over LanceDB and Qdrant (local mode) against FAISS.

The YCBA graph is built once with FAISS (the reference), then again with each store
(``CrmGraphIndex.build(..., vector_store="lancedb" | "qdrant")``, the store inside the index
folder), all with one embedding cache, so that the store builds re-use the reference's
vectors (the embedding is timed apart). Or ``--index DIR`` reuses a built FAISS index: its
vectors are written into each store (a copy of the folder, without ``faiss.index``).

For each YCBA dev question (``../shared/eval/ycba_dev.jsonl``), each store's index is loaded
fresh (``CrmGraphIndex.load``) and asked for

* the dense channel's top 10 (unrestricted search: FAISS or the store), compared with FAISS's
  top 10: the same rows in the same order (``same_top10``), the same set (``same_set``);
* the whole candidate pool (``as_retriever().retrieve``), compared with FAISS's.

Times: the build (whole, and its vector part alone: FAISS index or the store filled), the
first search (the store opened), and the dense search per question (the query vector is
embedded once, outside the timing).

Usage::

    nice -n 10 python benchmarks/vector_stores.py \\
        --index-src ../shared/datasets/ycba/ycba_data.n3.zip
    nice -n 10 python benchmarks/vector_stores.py --index /path/to/built/ycba

Writes ``benchmarks/results/vector_stores_ycba.json``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

from _machine import machine_info, wait_for_quiet  # noqa: E402

from llama_index_crm.graph.parts import FAISS_FILE, VECTORS, faiss_index  # noqa: E402
from llama_index_crm.graph.vector_stores import StoreSpec, write_store  # noqa: E402
from llama_index_crm.index import CrmGraphIndex  # noqa: E402

QUESTIONS = REPO.parent / "shared" / "eval" / "ycba_dev.jsonl"
STORES = {"lancedb": ("lancedb", "pandas", "llama_index.vector_stores.lancedb"),
          "qdrant": ("qdrant_client", "llama_index.vector_stores.qdrant")}
K = 10


def _build(src: Path, out: Path, cache: Path, store: str | None) -> dict[str, float]:
    started = time.perf_counter()
    index = CrmGraphIndex.build([str(src)], out, cache_dir=cache, vector_store=store,
                                workers=2)
    seconds = time.perf_counter() - started
    index.close()
    return {"build_s": round(seconds, 2),
            "embed_s": float(index.manifest["embedding"]["seconds"])}


def _vector_part(folder: Path, store: str | None, scratch: Path) -> float:
    """Seconds to make the vector part alone from the folder's vectors: a FAISS index
    written, or a fresh store filled."""
    vectors = np.load(folder / VECTORS)
    doc_ids = json.loads((folder / "doc_ids.json").read_text())
    started = time.perf_counter()
    if store is None:
        import faiss

        faiss.write_index(faiss_index(vectors, 200_000), str(scratch / "faiss.index"))
    else:
        spec = StoreSpec.parse(f"{store}:{scratch / store}")
        write_store(spec, scratch, scratch, doc_ids, vectors)
    return round(time.perf_counter() - started, 3)


def _from_index(index_dir: Path, out: Path, store: str) -> None:
    """A copy of a built FAISS index whose vectors are in ``store`` instead."""
    shutil.copytree(index_dir, out, ignore=shutil.ignore_patterns(FAISS_FILE))
    manifest = json.loads((out / "manifest.json").read_text())
    entry = write_store(StoreSpec(store, str(out / "vector_store")), out, out,
                        json.loads((out / "doc_ids.json").read_text()),
                        np.load(out / VECTORS))
    manifest.pop("faiss", None)
    manifest["vector_store"] = entry
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))


def _measure(folder: Path, questions: list[str], vectors: list[np.ndarray]
             ) -> tuple[dict[str, Any], list[list[int]], list[list[str]]]:
    index = CrmGraphIndex.load(folder)
    started = time.perf_counter()
    index.dense.search(vectors[0], K)  # opens the store
    first = time.perf_counter() - started
    tops, times = [], []
    for q in vectors:
        started = time.perf_counter()
        hits = index.dense.search(q, K)
        times.append(time.perf_counter() - started)
        tops.append([r for r, _ in hits])
    pools = [[n.node.node_id for n in index.as_retriever().retrieve(q)] for q in questions]
    index.close()
    return {"first_search_ms": round(first * 1000, 2),
            "dense_ms_median": round(statistics.median(times) * 1000, 3),
            "dense_ms_p95": round(float(np.percentile(times, 95)) * 1000, 3)}, tops, pools


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--index-src", type=Path, help="RDF file(s) of the graph to build")
    where.add_argument("--index", type=Path, help="a built FAISS index to reuse")
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--work", type=Path, default=None, help="scratch folder (default: tmp)")
    parser.add_argument("--out", type=Path,
                        default=REPO / "benchmarks" / "results" / "vector_stores_ycba.json")
    parser.add_argument("--max-wait", type=float, default=120.0)
    args = parser.parse_args()
    stores = [s for s, mods in STORES.items()
              if all(importlib.util.find_spec(m) is not None for m in mods)]
    skipped = sorted(set(STORES) - set(stores))
    questions = [json.loads(line)["question"] for line in
                 args.questions.read_text().splitlines() if line.strip()]
    quiet = wait_for_quiet(args.max_wait)
    work = args.work or Path(tempfile.mkdtemp(prefix="vector-stores-"))
    work.mkdir(parents=True, exist_ok=True)
    cache = work / "cache"
    builds: dict[str, dict[str, Any]] = {}
    folders: dict[str, Path] = {}
    if args.index_src is not None:
        _build(args.index_src, work / "warm", cache, None)  # the embedding cache, warmed
        shutil.rmtree(work / "warm")
        for name in ["faiss", *stores]:
            folders[name] = work / name
            builds[name] = _build(args.index_src, folders[name], cache,
                                  None if name == "faiss" else name)
    else:
        folders["faiss"] = args.index
        for name in stores:
            folders[name] = work / name
            shutil.rmtree(folders[name], ignore_errors=True)
            _from_index(args.index, folders[name], name)
    for name in ["faiss", *stores]:
        scratch = work / f"scratch-{name}"
        scratch.mkdir(exist_ok=True)
        builds.setdefault(name, {})["vector_part_s"] = _vector_part(
            folders["faiss"], None if name == "faiss" else name, scratch)
        shutil.rmtree(scratch)
    reference = CrmGraphIndex.load(folders["faiss"])
    vectors = [reference.embed_query(q) for q in questions]
    results: dict[str, Any] = {}
    ref_timing, ref_tops, ref_pools = _measure(folders["faiss"], questions, vectors)
    results["faiss"] = {**builds["faiss"], **ref_timing}
    for name in stores:
        timing, tops, pools = _measure(folders[name], questions, vectors)
        same = [a == b for a, b in zip(tops, ref_tops, strict=True)]
        same_set = [set(a) == set(b) for a, b in zip(tops, ref_tops, strict=True)]
        same_pool = [a == b for a, b in zip(pools, ref_pools, strict=True)]
        results[name] = {
            **builds[name], **timing,
            "same_top10": round(sum(same) / len(same), 4),
            "same_top10_set": round(sum(same_set) / len(same_set), 4),
            "same_pool": round(sum(same_pool) / len(same_pool), 4),
            "differing_questions": [q for q, s in zip(questions, same, strict=True) if not s],
        }
    report = {
        "benchmark": "vector_stores", "dataset": "ycba",
        "source": str(args.index_src or args.index), "questions": len(questions),
        "documents": len(reference.doc_ids), "k": K, "stores_skipped": skipped,
        "machine": machine_info(), "quiet": quiet, "results": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps(results, indent=1))
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
