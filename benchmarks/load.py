"""Opening a persisted index: load time, peak memory, time to the first answer, and refusals.

Each run is a fresh Python process (so nothing is cached in memory) that

1. imports :mod:`llama_index_crm.index` (timed apart),
2. times ``CrmGraphIndex.load(folder)`` and reads its peak RSS (``VmHWM``),
3. constructs :class:`CrmQueryPipeline` (which warms the index: triple store, look-up tables,
   embedding model) and answers one question, timing each step and reading the peak RSS.

"Time to first answer" = load + pipeline construction + first query (imports excluded; the
process's whole wall time from spawn is reported too). ``--runs`` runs, medians reported.

Then copies of the folder's manifest are tampered with (the rest of the folder is linked, not
copied) and loaded, each in a fresh process: another package version, another embedding
model name, another embedding model id, another encoder backend than the model id's; and the
untouched folder is loaded with an explicit embedding model, and an explicit encoder backend,
other than the ones it was built with. Each must be refused with
``IndexFormatError`` and a message that says how to rebuild; the messages are printed. Where a
load is accepted, the child goes on to answer a question (``HF_HUB_OFFLINE=1``: no network)
and records what happens.

Before the timed runs the script waits until the 1-minute load average is below 1.2
(polling every 10 s, at most ``--max-wait`` seconds) and records the load.

Usage::

    python benchmarks/load.py                     # index in /tmp/bench_idx/nmwa
    python benchmarks/load.py --quick             # 2 runs
    # the default (onnx-int8) backend: an NMWA folder with its vectors, made by
    python benchmarks/embedding.py --index /tmp/bench_idx/nmwa --variant onnx-int8
    python benchmarks/load.py --index /tmp/w13/embedding/nmwa-onnx-int8

Each child also records its encoder backend and whether torch was imported.

Writes ``benchmarks/results/load.json`` (``--quick``: ``load_quick.json``).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from _machine import machine_info, wait_for_quiet  # noqa: E402  (beside this script)

ROOT = Path(__file__).resolve().parents[1]
NMWA = ROOT.parent / "shared" / "datasets" / "nmwa" / "consolidated_data.n3.zip"
RESULTS = ROOT / "benchmarks" / "results"
DEFAULT_INDEX = Path("/tmp/bench_idx/nmwa")
QUESTIONS_FILE = RESULTS / "query_nmwa_questions.jsonl"
LOAD_THRESHOLD = 1.2
POLL_S = 10.0
TARGET_LOAD_S = 2.0
TARGET_RSS_MB = 1024.0
TARGET_FIRST_ANSWER_S = 1.5
"""Load + pipeline + first query with the default encoder backend (issue 13)."""
CHILD_TIMEOUT_S = 600.0
MARK = "@@RESULT@@"


def rss_mb() -> tuple[float, float]:
    """(current, peak) resident memory of this process in MB (``VmRSS``, ``VmHWM``)."""
    values = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(("VmRSS:", "VmHWM:")):
            values[line.split(":")[0]] = int(line.split()[1]) / 1024
    return round(values.get("VmRSS", 0.0), 1), round(values.get("VmHWM", 0.0), 1)


# -- the child process -----------------------------------------------------------------------
def child(folder: str, question: str, mode: str) -> dict[str, Any]:
    """One fresh-process measurement (``mode``: ``time`` or ``refusal``)."""
    out: dict[str, Any] = {}
    started = time.perf_counter()
    from llama_index_crm.errors import IndexFormatError
    from llama_index_crm.index import CrmGraphIndex

    out["import_s"] = round(time.perf_counter() - started, 3)
    out["rss_after_import_mb"] = rss_mb()[0]
    embed_model: Any = None
    embed_backend: str | None = None
    if mode == "other-model":
        from llama_index.core.embeddings import MockEmbedding

        embed_model = MockEmbedding(embed_dim=384)
    elif mode.startswith("backend:"):
        embed_backend = mode.split(":", 1)[1]
    started = time.perf_counter()
    try:
        index = CrmGraphIndex.load(folder, embed_model=embed_model, embed_backend=embed_backend)
    except IndexFormatError as exc:
        out.update(outcome="refused", error="IndexFormatError", message=str(exc),
                   says_rebuild="crm-rag build" in str(exc))
        return out
    except Exception as exc:  # anything else is a finding, not a crash of the benchmark
        out.update(outcome="failed", error=type(exc).__name__, message=str(exc)[:500])
        return out
    out["load_s"] = round(time.perf_counter() - started, 3)
    out["rss_after_load_mb"], out["peak_rss_after_load_mb"] = rss_mb()
    out["documents"] = len(index.doc_ids)
    try:
        started = time.perf_counter()
        _ = index.triples
        out["warm_triples_s"] = round(time.perf_counter() - started, 3)
        started = time.perf_counter()
        _ = index.embed_model
        out["warm_embed_model_s"] = round(time.perf_counter() - started, 3)
        started = time.perf_counter()
        pipeline = index.as_query_pipeline()
        out["pipeline_rest_s"] = round(time.perf_counter() - started, 3)
        out["pipeline_s"] = round(out["warm_triples_s"] + out["warm_embed_model_s"]
                                  + out["pipeline_rest_s"], 3)
        started = time.perf_counter()
        answer = pipeline.run(question)
        out["first_query_s"] = round(time.perf_counter() - started, 3)
        out["answer_head"] = answer.answer[:160]
        out["retrieved"] = len(answer.nodes)
    except Exception as exc:
        out.update(outcome="accepted, then failed at query time", error=type(exc).__name__,
                   message=str(exc)[:500])
        return out
    out["rss_end_mb"], out["peak_rss_mb"] = rss_mb()
    out["backend"] = index.embed_backend
    out["torch_imported"] = "torch" in sys.modules
    out["outcome"] = "accepted"
    out["first_answer_s"] = round(out["load_s"] + out["pipeline_s"] + out["first_query_s"], 3)
    return out


def spawn(folder: Path, question: str, mode: str, offline: bool = False) -> dict[str, Any]:
    """Run :func:`child` in a fresh interpreter; its result and the process wall time."""
    env = dict(os.environ)
    if offline:
        env["HF_HUB_OFFLINE"] = "1"
        env["TRANSFORMERS_OFFLINE"] = "1"
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, __file__, "--child", mode, str(folder), question],
                          capture_output=True, text=True, timeout=CHILD_TIMEOUT_S, env=env)
    wall = time.perf_counter() - started
    line = next((x for x in proc.stdout.splitlines() if x.startswith(MARK)), None)
    if line is None:
        return {"outcome": "crashed", "returncode": proc.returncode,
                "stderr_tail": proc.stderr[-1500:], "process_wall_s": round(wall, 3)}
    result: dict[str, Any] = json.loads(line[len(MARK):])
    result["process_wall_s"] = round(wall, 3)
    return result


# -- tampering -------------------------------------------------------------------------------
def tampered_copy(folder: Path, work: Path, name: str, edit: dict[str, Any]) -> Path:
    """A folder that links every part of ``folder`` but holds an edited ``manifest.json``."""
    out = work / name
    out.mkdir()
    for part in folder.iterdir():
        if part.name != "manifest.json":
            (out / part.name).symlink_to(part.resolve())
    manifest = json.loads((folder / "manifest.json").read_text())
    changed = copy.deepcopy(manifest)
    for dotted, value in edit.items():
        node = changed
        keys = dotted.split(".")
        for key in keys[:-1]:
            node = node[key]
        node[keys[-1]] = value
    (out / "manifest.json").write_text(json.dumps(changed, indent=1))
    return out


OTHER_MODEL = "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2"
TAMPERS: dict[str, dict[str, Any]] = {
    "other package version": {"package_version": "0.0.1"},
    "other embedding model name": {"embedding.model_name": OTHER_MODEL,
                                   "embedding.model": f"HuggingFaceEmbedding:{OTHER_MODEL}"},
    "other embedding model id only": {"embedding.model": f"HuggingFaceEmbedding:{OTHER_MODEL}"},
    "other backend than the model id's": {"embedding.backend": "model2vec"},
}


def first_question(folder: Path) -> str:
    """The first generated NMWA question (``query.py``), else one about the first actor."""
    if QUESTIONS_FILE.is_file():
        line = QUESTIONS_FILE.read_text(encoding="utf-8").splitlines()[0]
        question: str = json.loads(line)["question"]
        return question
    import pyarrow.parquet as pq

    table = pq.read_table(folder / "doc_meta.parquet", columns=["label", "category"])
    for label, cat in zip(table.column("label").to_pylist(),
                          table.column("category").to_pylist(), strict=True):
        if cat == "Actor":
            return f"Which works by {label} are in the collection?"
    return "Tell me about the collection."


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and write the results."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--index", type=Path, default=DEFAULT_INDEX,
                        help="an NMWA index folder (built there if absent)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--max-wait", type=float, default=900.0,
                        help="seconds to wait for the load to fall before the timed runs")
    parser.add_argument("--quick", action="store_true", help="2 runs")
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--child", nargs=3, metavar=("MODE", "FOLDER", "QUESTION"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        mode, child_folder, question = args.child
        print(MARK + json.dumps(child(child_folder, question, mode)), flush=True)
        return 0
    runs = 2 if args.quick else args.runs
    output = args.output or RESULTS / ("load_quick.json" if args.quick else "load.json")
    folder: Path = args.index.resolve()
    if not (folder / "manifest.json").is_file():
        from llama_index_crm.index import CrmGraphIndex
        from llama_index_crm.sources import RdfFileSource

        print(f"building NMWA into {folder} (untimed) ...", file=sys.stderr, flush=True)
        CrmGraphIndex.build(RdfFileSource([str(NMWA)]), folder, workers=2)
    question = first_question(folder)

    quiet = wait_for_quiet(min(args.max_wait, 60.0) if args.quick else args.max_wait)
    timed_runs = []
    for r in range(runs):
        res = spawn(folder, question, "time")
        res["load_1m"] = round(os.getloadavg()[0], 2)
        timed_runs.append(res)
        print(f"  run {r + 1}: load {res.get('load_s')} s, first answer "
              f"{res.get('first_answer_s')} s, peak RSS {res.get('peak_rss_mb')} MB",
              file=sys.stderr, flush=True)
    ok = [r for r in timed_runs if r.get("outcome") == "accepted"]
    if not ok:
        print(json.dumps(timed_runs, indent=1), file=sys.stderr)
        return 1

    def med(key: str) -> float:
        return round(statistics.median(float(r[key]) for r in ok), 3)

    medians = {k: med(k) for k in ("import_s", "load_s", "peak_rss_after_load_mb",
                                   "rss_after_load_mb", "warm_triples_s",
                                   "warm_embed_model_s", "pipeline_rest_s", "pipeline_s",
                                   "first_query_s",
                                   "first_answer_s", "peak_rss_mb", "process_wall_s")}

    refusals: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="crm-load-") as tmp:
        for name, edit in TAMPERS.items():
            bad = tampered_copy(folder, Path(tmp), name.replace(" ", "_"), edit)
            refusals[name] = {"edit": edit, **spawn(bad, question, "time", offline=True)}
    refusals["explicit embed_model other than the index's (MockEmbedding)"] = {
        "edit": {}, **spawn(folder, question, "other-model", offline=True)}
    other = "torch" if ok[0].get("backend") != "torch" else "onnx-int8"
    refusals[f"explicit embed_backend other than the index's ({other})"] = {
        "edit": {}, **spawn(folder, question, f"backend:{other}", offline=True)}

    report: dict[str, Any] = {
        "machine": machine_info(),
        "quick": args.quick,
        "index": str(folder),
        "documents": ok[0].get("documents"),
        "question": question,
        "runs": timed_runs,
        "load_before": quiet,
        "median": medians,
        "backend": ok[0].get("backend"),
        "torch_imported": ok[0].get("torch_imported"),
        "targets": {"load_s": TARGET_LOAD_S, "rss_mb": TARGET_RSS_MB,
                    "first_answer_s": TARGET_FIRST_ANSWER_S},
        "met": {"load_s": medians["load_s"] < TARGET_LOAD_S,
                "first_answer_s": medians["first_answer_s"] < TARGET_FIRST_ANSWER_S,
                "rss_after_load_mb": medians["peak_rss_after_load_mb"] < TARGET_RSS_MB,
                "rss_first_answer_mb": medians["peak_rss_mb"] < TARGET_RSS_MB},
        "refusals": refusals,
        "all_refused_with_rebuild_hint": all(
            r.get("outcome") == "refused" and r.get("says_rebuild") for r in refusals.values()),
    }
    print(f"\nLoading {folder} ({report['documents']:,} documents), {len(ok)} fresh processes, "
          f"load {quiet['load_1m']} before the runs (medians)")
    rows = [("import llama_index_crm.index", f"{medians['import_s']:.2f} s", ""),
            ("CrmGraphIndex.load", f"{medians['load_s']:.2f} s",
             f"target < {TARGET_LOAD_S:.0f} s: "
             f"{'met' if report['met']['load_s'] else 'MISSED'}"),
            ("peak RSS after load", f"{medians['peak_rss_after_load_mb']:.0f} MB",
             f"target < {TARGET_RSS_MB:.0f} MB: "
             f"{'met' if report['met']['rss_after_load_mb'] else 'MISSED'}"),
            ("pipeline construction", f"{medians['pipeline_s']:.2f} s", "sum of the next 3"),
            ("  triple store", f"{medians['warm_triples_s']:.2f} s", ""),
            ("  embedding model", f"{medians['warm_embed_model_s']:.2f} s", ""),
            ("  analyzer, retrievers, warm", f"{medians['pipeline_rest_s']:.2f} s", ""),
            ("first query", f"{medians['first_query_s']:.2f} s", ""),
            ("time to first answer", f"{medians['first_answer_s']:.2f} s",
             f"load + pipeline + first query; target < {TARGET_FIRST_ANSWER_S} s: "
             f"{'met' if report['met']['first_answer_s'] else 'MISSED'}"),
            ("peak RSS at first answer", f"{medians['peak_rss_mb']:.0f} MB",
             f"{'met' if report['met']['rss_first_answer_mb'] else 'MISSED'} (< 1 GB)"),
            ("process wall (spawn → answer)", f"{medians['process_wall_s']:.2f} s", ""),
            ("encoder backend", str(ok[0].get("backend")),
             f"torch imported: {ok[0].get('torch_imported')}")]
    for label, value, note in rows:
        print(f"  {label:<32}{value:>10}  {note}")
    print("\nTampered folders (fresh process each):")
    for name, res in refusals.items():
        print(f"  {name}: {res.get('outcome')} {res.get('error', '')}")
        if res.get("message"):
            print(f"    message: {res['message']}")
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
