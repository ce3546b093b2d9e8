"""Encoder backends compared on the same texts: speed, peak memory, vectors and retrieval.

The texts are the embedded heads (:func:`~llama_index_crm.embeddings.embedding_text`, 600
characters) of the documents of a YCBA index (all 3,867 by default). Each backend of
:mod:`llama_index_crm.encoders` — ``torch`` (today's fp32 path), ``onnx`` (fp32), ``onnx-int8``
and ``model2vec`` — embeds all of them in its own fresh process, one after the other, through
:func:`~llama_index_crm.embeddings.embed_texts` (no cache, length-sorted batches). Each child
reports the time to load the model, wall and CPU seconds of the embedding (documents/s and
documents per CPU-second: on a shared machine the CPU rate is the steadier one), its peak RSS
(``VmHWM``, the whole process) and whether torch was imported. Model files are made first,
untimed (the ONNX export and the model2vec distillation, cached in ``models_dir()``).

Then:

* **agreement**: cosine of each backend's vectors with torch's, per document (min, mean);
* **batch sizes**: the default backend on the first ``--sweep-docs`` texts with batches of
  16, 32, 64 and 128, one process, alternating;
* **clipping** (item 2 of issue 13): the default backend on whole documents clipped to 256
  word pieces by its tokenizer instead of 600 characters;
* **retrieval** (``--quality``): for each backend an index folder in ``--work`` that links
  every part of the YCBA index but holds that backend's vectors, FAISS index and manifest;
  the 60 dev questions, and the 99 of ``questions/ycba_rephrased.jsonl`` (the same templates
  typed as people type them), go through ``crm-rag query`` and ``shared/eval/score.py`` gives
  R@10, MRR@10 and CtxAR@16k.

Usage::

    nice python benchmarks/embedding.py --quality      # the full comparison (~25 min, 2 cores)
    python benchmarks/embedding.py --quick             # 300 texts, no retrieval
    # untimed: an index folder with BACKEND's vectors (the rest linked), for load.py / query.py
    python benchmarks/embedding.py --index /tmp/bench_idx/nmwa --variant onnx-int8

Writes ``benchmarks/results/embedding.json`` (``--quick``: ``embedding_quick.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from _machine import machine_info  # noqa: E402  (beside this script)

ROOT = Path(__file__).resolve().parents[1]
EVAL = ROOT.parent / "shared" / "eval"
DEV = EVAL / "ycba_dev.jsonl"
SCORER = EVAL / "score.py"
REPHRASED = Path(__file__).resolve().parent / "questions" / "ycba_rephrased.jsonl"
"""The dev templates as people type them (lower case, surnames, typos): 99 questions."""
RESULTS = ROOT / "benchmarks" / "results"
DEFAULT_INDEX = Path("/tmp/bench_idx/ycba")
BACKENDS = ("torch", "onnx", "onnx-int8", "model2vec")
SWEEP = (16, 32, 64, 128)
MARK = "@@RESULT@@"
CHILD_TIMEOUT_S = 3600.0


def rss_peak_mb() -> float:
    """Peak resident memory of this process (``VmHWM``), MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


# -- children --------------------------------------------------------------------------------
def child_embed(backend: str, texts_file: str, out_file: str, batch: int) -> dict[str, Any]:
    """Load ``backend``, embed the texts once untimed (32) and once timed (all)."""
    texts: list[str] = json.loads(Path(texts_file).read_text())
    from llama_index_crm.embeddings import embed_texts, load_embed_model

    started = time.perf_counter()
    model = load_embed_model(backend=backend)
    load_s = time.perf_counter() - started
    embed_texts(model, texts[:32], batch_size=batch)
    wall, cpu = time.perf_counter(), time.process_time()
    vectors = embed_texts(model, texts, batch_size=batch)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    np.save(out_file, vectors)
    return {"backend": backend, "texts": len(texts), "batch_size": batch,
            "load_s": round(load_s, 3), "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
            "docs_per_s": round(len(texts) / wall, 1),
            "docs_per_cpu_s": round(len(texts) / cpu, 1),
            "peak_rss_mb": rss_peak_mb(), "torch_imported": "torch" in sys.modules,
            "dimension": int(vectors.shape[1])}


def child_sweep(backend: str, texts_file: str, sizes: Sequence[int]) -> dict[str, Any]:
    """Documents/s of ``backend`` per batch size (two alternating rounds, best kept)."""
    texts: list[str] = json.loads(Path(texts_file).read_text())
    from llama_index_crm.embeddings import embed_texts, load_embed_model

    model = load_embed_model(backend=backend)
    embed_texts(model, texts[:32])
    out: dict[str, Any] = {}
    for r in range(2):
        for size in (sizes if r == 0 else list(sizes)[::-1]):
            wall, cpu = time.perf_counter(), time.process_time()
            embed_texts(model, texts, batch_size=size)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            best = out.setdefault(str(size), {"docs_per_s": 0.0, "docs_per_cpu_s": 0.0})
            best["docs_per_s"] = max(best["docs_per_s"], round(len(texts) / wall, 1))
            best["docs_per_cpu_s"] = max(best["docs_per_cpu_s"], round(len(texts) / cpu, 1))
    return out


def spawn(*args: str) -> dict[str, Any]:
    """Run this script's child mode in a fresh interpreter and return its result."""
    proc = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True,
                          text=True, timeout=CHILD_TIMEOUT_S)
    line = next((x for x in proc.stdout.splitlines() if x.startswith(MARK)), None)
    if line is None:
        raise RuntimeError(f"child {args} failed: {proc.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(line[len(MARK):])
    return result


# -- texts, variants, retrieval --------------------------------------------------------------
def document_texts(folder: Path, n: int | None) -> tuple[list[str], list[str]]:
    """The embedded heads (600 characters) and the whole embedded texts of the documents."""
    from llama_index.core.schema import MetadataMode

    from llama_index_crm.embeddings import embedding_text
    from llama_index_crm.index import CrmGraphIndex

    index = CrmGraphIndex.load(folder)
    chars = int(index.manifest["embedding"].get("embed_chars", 600))
    ids = index.doc_ids if n is None else index.doc_ids[:n]
    whole = [index.node(d).get_content(metadata_mode=MetadataMode.EMBED) for d in ids]
    return [embedding_text(t, chars) for t in whole], whole


def variant_folder(base: Path, work: Path, backend: str, vectors: np.ndarray,
                   label: str) -> Path:
    """A folder linking every part of ``base`` but with ``backend``'s vectors and manifest."""
    import faiss

    from llama_index_crm.embeddings import load_embed_model, model_id
    from llama_index_crm.graph.parts import APPROXIMATE_ABOVE, FAISS_FILE, VECTORS, faiss_index

    out = work / f"{base.name}-{label}"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    for part in base.iterdir():
        if part.name not in ("manifest.json", VECTORS, FAISS_FILE):
            (out / part.name).symlink_to(part.resolve())
    np.save(out / VECTORS, vectors)
    faiss.write_index(faiss_index(vectors, APPROXIMATE_ABOVE), str(out / FAISS_FILE))
    manifest = json.loads((base / "manifest.json").read_text())
    model = load_embed_model(backend=backend)
    manifest["embedding"].update(model=model_id(model), backend=backend,
                                 dimension=int(vectors.shape[1]))
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return out


def retrieval(folder: Path, questions: Path = DEV) -> dict[str, Any]:
    """R@10, MRR@10, CtxAR@16k of a question set through ``crm-rag query``."""
    results = folder / f"{questions.stem}.results.jsonl"
    crm_rag = Path(sys.executable).parent / "crm-rag"
    subprocess.run([str(crm_rag), "query", "--index", str(folder), "--questions",
                    str(questions), "--out", str(results)], check=True, capture_output=True)
    proc = subprocess.run([sys.executable, str(SCORER), str(questions), str(results),
                           "--json"], check=True, capture_output=True, text=True)
    overall = json.loads(proc.stdout)["overall"]
    return {k: overall[k] for k in ("R@10", "MRR@10", "CtxAR@16k", "Hit@10")}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the comparison and write the results."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--index", type=Path, default=DEFAULT_INDEX, help="a YCBA index")
    parser.add_argument("--docs", type=int, default=None, help="texts (default: all)")
    parser.add_argument("--backends", default=",".join(BACKENDS))
    parser.add_argument("--batch", type=int, default=None,
                        help="batch size (default: embeddings.BATCH_SIZE)")
    parser.add_argument("--sweep-docs", type=int, default=800)
    parser.add_argument("--quality", action="store_true",
                        help="also R@10 / MRR@10 / CtxAR@16k per backend (YCBA dev set)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/w13/embedding"),
                        help="texts, vectors and variant index folders")
    parser.add_argument("--quick", action="store_true", help="300 texts, no retrieval")
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--variant", metavar="BACKEND", default=None,
                        help="only write --work/<index>-BACKEND: the index with BACKEND's "
                             "vectors (untimed)")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        mode, *rest = args.child
        if mode == "embed":
            result = child_embed(rest[0], rest[1], rest[2], int(rest[3]))
        else:
            result = child_sweep(rest[0], rest[1], [int(x) for x in rest[2].split(",")])
        print(MARK + json.dumps(result), flush=True)
        return 0

    from llama_index_crm.embeddings import (
        BATCH_SIZE,
        DEFAULT_BACKEND,
        embed_texts,
        load_embed_model,
    )

    if args.variant:
        heads, _ = document_texts(args.index, None)
        vecs = embed_texts(load_embed_model(backend=args.variant), heads)
        folder = variant_folder(args.index.resolve(), args.work, args.variant, vecs,
                                args.variant)
        print(f"wrote {folder}")
        return 0

    batch = args.batch or BATCH_SIZE
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    n_docs = 300 if args.quick else args.docs
    output = args.output or RESULTS / ("embedding_quick.json" if args.quick
                                       else "embedding.json")
    work: Path = args.work
    work.mkdir(parents=True, exist_ok=True)
    heads, whole = document_texts(args.index, n_docs)
    heads_file, whole_file = work / "heads.json", work / "whole.json"
    heads_file.write_text(json.dumps(heads))
    whole_file.write_text(json.dumps(whole))
    (work / "sweep.json").write_text(json.dumps(heads[:args.sweep_docs]))
    for backend in backends:  # model files made once, untimed
        load_embed_model(backend=backend)
    print(f"{len(heads)} texts (mean {np.mean([len(t) for t in heads]):.0f} characters), "
          f"batch {batch}, load {os.getloadavg()[0]:.2f}", file=sys.stderr, flush=True)

    report: dict[str, Any] = {"machine": machine_info(), "index": str(args.index),
                              "texts": len(heads), "batch_size": batch, "backends": {}}
    vectors: dict[str, np.ndarray] = {}
    for backend in backends:
        out_file = work / f"vectors-{backend}.npy"
        res = spawn("embed", backend, str(heads_file), str(out_file), str(batch))
        res["load_1m"] = round(os.getloadavg()[0], 2)
        vectors[backend] = np.load(out_file)
        report["backends"][backend] = res
        print(f"  {backend:<10} {res['docs_per_s']:7.1f} docs/s  {res['docs_per_cpu_s']:7.1f} "
              f"docs/CPU-s  peak {res['peak_rss_mb']:.0f} MB  load {res['load_1m']}",
              file=sys.stderr, flush=True)
    if "torch" in vectors:
        for backend, vecs in vectors.items():
            if vecs.shape == vectors["torch"].shape:
                cos = np.sum(vecs * vectors["torch"], axis=1)
                report["backends"][backend]["cosine_vs_torch"] = {
                    "min": round(float(cos.min()), 5), "mean": round(float(cos.mean()), 5)}
    default = DEFAULT_BACKEND
    if not args.quick:
        report["batch_sweep"] = {"backend": default, "texts": min(args.sweep_docs, len(heads)),
                                 **spawn("sweep", default, str(work / "sweep.json"),
                                         ",".join(map(str, SWEEP)))}
        clip = spawn("embed", default, str(whole_file), str(work / "vectors-whole.npy"),
                     str(batch))
        report["clipping"] = {"backend": default, "600_characters": report["backends"].get(
            default, {}).get("docs_per_s"), "256_word_pieces": clip["docs_per_s"],
            "600_characters_cpu": report["backends"].get(default, {}).get("docs_per_cpu_s"),
            "256_word_pieces_cpu": clip["docs_per_cpu_s"]}
        vectors["whole"] = np.load(work / "vectors-whole.npy")
    if args.quality and not args.quick and n_docs is None:
        for name, vecs in vectors.items():
            backend = default if name == "whole" else name
            folder = variant_folder(args.index, work, backend, vecs,
                                    f"{default}-256wp" if name == "whole" else name)
            scores = retrieval(folder)
            target = report["clipping"] if name == "whole" else report["backends"][name]
            target["retrieval"] = scores
            typed = target["retrieval_rephrased"] = retrieval(folder, REPHRASED)
            print(f"  {name:<10} R@10 {scores['R@10']:.4f}  MRR@10 {scores['MRR@10']:.4f}  "
                  f"CtxAR@16k {scores['CtxAR@16k']:.4f}; rephrased R@10 {typed['R@10']:.4f} "
                  f"MRR@10 {typed['MRR@10']:.4f}", file=sys.stderr, flush=True)
    report["machine_end"] = machine_info()

    base = report["backends"].get("torch", {})
    print(f"\n{len(heads)} YCBA document heads, batch {batch}, each backend in its own "
          "process, one after the other")
    print(f"{'backend':<11}{'docs/s':>8}{'×torch':>8}{'docs/CPU-s':>12}{'×torch':>8}"
          f"{'peak MB':>9}{'load s':>8}{'cos min':>9}{'R@10':>8}{'MRR@10':>8}{'CtxAR16k':>9}"
          f"{'typed R@10':>11}{'MRR@10':>8}")
    for name, res in report["backends"].items():
        ratio = res["docs_per_s"] / base["docs_per_s"] if base else float("nan")
        cpu_ratio = res["docs_per_cpu_s"] / base["docs_per_cpu_s"] if base else float("nan")
        q, t = res.get("retrieval", {}), res.get("retrieval_rephrased", {})
        cos = res.get("cosine_vs_torch", {}).get("min", float("nan"))
        print(f"{name:<11}{res['docs_per_s']:>8.1f}{ratio:>8.2f}{res['docs_per_cpu_s']:>12.1f}"
              f"{cpu_ratio:>8.2f}{res['peak_rss_mb']:>9.0f}{res['load_s']:>8.2f}{cos:>9.4f}"
              f"{q.get('R@10', float('nan')):>8.4f}{q.get('MRR@10', float('nan')):>8.4f}"
              f"{q.get('CtxAR@16k', float('nan')):>9.4f}"
              f"{t.get('R@10', float('nan')):>11.4f}{t.get('MRR@10', float('nan')):>8.4f}")
    if "batch_sweep" in report:
        sweep = report["batch_sweep"]
        print(f"batch sizes ({default}, {sweep['texts']} texts, best of 2): " + ", ".join(
            f"{s}: {sweep[str(s)]['docs_per_s']} docs/s ({sweep[str(s)]['docs_per_cpu_s']}"
            " /CPU-s)" for s in SWEEP))
    if "clipping" in report:
        c = report["clipping"]
        print(f"clipping ({default}): 600 characters {c['600_characters']} docs/s, whole "
              f"documents clipped to 256 word pieces {c['256_word_pieces']} docs/s"
              + (f"; R@10 {c['retrieval']['R@10']}, MRR@10 {c['retrieval']['MRR@10']}, "
                 f"CtxAR@16k {c['retrieval']['CtxAR@16k']}" if "retrieval" in c else ""))
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(report, indent=1) + "\n")
    print(f"wrote {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
