"""The build on Ray against the build in one process (issue 24, item 4): time and sameness.

Builds one graph several ways with ``crm-rag build``, each in its own process, one after the
other in the same run, ``--rounds`` times in turn (so that a change of load falls on every
mode alike): ``single`` (``--workers 1``), ``procs`` (``--workers N``, local processes) and
``ray`` (``--ray --workers N``, a local Ray cluster of N CPUs started by the build, its start
counted); ``--modes`` picks among them (``single`` always runs first: the reference).
Structural builds (``--no-embed``) by default; ``--embed`` builds whole indexes, each with
an empty embedding cache of its own, so that every vector is computed. Recorded per build:
wall seconds, the CLI's structural seconds and the peak memory of its process tree (Ray's
actors included: they are the cluster's children), and the load average; then whether each
build's ``documents.parquet`` (and ``unchained``, ``labels``, ``fr_edges``) equals the
single-process one byte for byte, its triples as a set, and with ``--embed`` the largest
difference of a vector component.

Usage::

    nice -n 10 python benchmarks/ray_build.py --dataset nmwa --workers 2 --rounds 2 \\
        --json benchmarks/results/ray_nmwa.json
    nice -n 10 python benchmarks/ray_build.py --dataset nmwa --workers 2 --embed \\
        --modes single ray --json benchmarks/results/ray_nmwa_embed.json
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
from _machine import machine_info  # noqa: E402  (beside this script)

from llama_index_crm.encoders import CACHE_ENV_VAR, models_dir

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"
DATASETS = {"nmwa": SHARED / "nmwa" / "consolidated_data.n3.zip",
            "ycba": SHARED / "ycba" / "ycba_data.n3.zip",
            "demo": Path(__file__).resolve().parents[1] / "examples" / "data" / "troodos.ttl"}
SAME_BYTES = ("documents.parquet", "unchained.parquet", "labels.parquet", "fr_edges.parquet")


def _build(source: Path, out: Path, mode: str, workers: int, embed: bool) -> dict[str, Any]:
    args = [sys.executable, "-m", "llama_index_crm.cli", "build", str(source), "--out", str(out),
            "-q", "--workers", "1" if mode == "single" else str(workers)]
    if mode == "ray":
        args.append("--ray")
    env = dict(os.environ)
    if embed:  # an empty embedding cache; the model files made once are shared
        cache = Path(tempfile.mkdtemp(prefix=f"cache-{mode}-", dir=out.parent))
        (cache / "models").symlink_to(models_dir())
        env[CACHE_ENV_VAR] = str(cache)
    else:
        args.append("--no-embed")
    load = os.getloadavg()[0]
    started = time.perf_counter()
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{mode} failed:\n{done.stderr[-3000:]}")
    figures = dict(re.findall(r"^\s+([a-z ()A-Z]+?)\s{2,}([\d,.]+)$", done.stdout, re.M))
    return {"mode": mode, "wall_s": round(wall, 1), "seconds": float(figures["seconds"]),
            "peak_mb": float(figures["peak memory (MB)"].replace(",", "")),
            "documents": int(figures["documents"].replace(",", "")),
            "load_before": round(load, 2), "load_after": round(os.getloadavg()[0], 2),
            **_phases(out)}


def _phases(out: Path) -> dict[str, Any]:
    """The manifest's structural seconds, and with embeddings the embedding's."""
    manifest = json.loads((out / "manifest.json").read_text())
    embedding = manifest.get("embedding") or {}
    return {"structure_s": manifest["stats"]["seconds"], "embed_s": embedding.get("seconds")}


def _compare(reference: Path, other: Path, embed: bool) -> dict[str, Any]:
    same = {name: (reference / name).read_bytes() == (other / name).read_bytes()
            for name in SAME_BYTES}
    rows = [sorted(map(str, pq.read_table(f / "triples.parquet").to_pylist()))
            for f in (reference, other)]
    result: dict[str, Any] = {"same_bytes": same, "same_triples": rows[0] == rows[1]}
    if embed:
        a, b = np.load(reference / "vectors.npy"), np.load(other / "vectors.npy")
        result["same_doc_ids"] = (reference / "doc_ids.json").read_text() == \
            (other / "doc_ids.json").read_text()
        result["max_vector_diff"] = float(np.abs(a - b).max()) if a.shape == b.shape else None
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", choices=sorted(DATASETS), default="nmwa")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--embed", action="store_true", help="whole indexes, not --no-embed")
    parser.add_argument("--modes", nargs="+", choices=("single", "procs", "ray"),
                        default=["single", "procs", "ray"], help="single comes first")
    parser.add_argument("--json", type=Path, required=True)
    parser.add_argument("--work", type=Path, default=None, help="folder for the builds")
    args = parser.parse_args()
    source = DATASETS[args.dataset]
    if not source.exists():
        raise SystemExit(f"{source} not present")
    work = args.work or Path(tempfile.mkdtemp(prefix="ray-build-"))
    work.mkdir(parents=True, exist_ok=True)
    modes = ["single", *(m for m in args.modes if m != "single")]
    runs: list[dict[str, Any]] = []
    for round_no in range(1, args.rounds + 1):
        for mode in modes:
            out = work / f"{mode}-{round_no}"
            run = _build(source, out, mode, args.workers, args.embed)
            run["round"] = round_no
            if mode != "single":
                run.update(_compare(work / f"single-{round_no}", out, args.embed))
            runs.append(run)
            print(json.dumps(run), flush=True)
    best = {m: min(r["wall_s"] for r in runs if r["mode"] == m) for m in modes}
    report = {"dataset": args.dataset, "workers": args.workers, "embed": args.embed,
              "machine": machine_info(), "runs": runs, "best_wall_s": best,
              "speedup_vs_single": {m: round(best["single"] / best[m], 2) for m in modes}}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps({"best_wall_s": best, "speedup": report["speedup_vs_single"]}))


if __name__ == "__main__":
    main()
