"""Questions at once in one process: throughput with 1, 2, 4 and 8 threads, and memory.

One loaded index, one :class:`CrmQueryPipeline` shared by every thread (what a web server
or a notebook does); and the most threads asking a :class:`ProcessPipeline` of
``--processes`` worker processes (each with its own loaded index), which goes past the GIL.
The questions (YCBA's 60 dev questions, each asked alone, or the demo
graph's when ``--index`` is the demo) are first answered serially, untimed, to warm the
caches and to record the serial answers. Then, per thread count, the whole set ``--rounds``
times through a thread pool: questions per second (wall), the resident memory of the
process sampled every 50 ms (its peak during that run), and whether every answer, source,
score and source path equals the serial one. Last, the same set through
``asyncio.gather`` over the LlamaIndex query engine's ``aquery``.

The ratio that matters is the throughput of 8 threads over that of 1, measured in the same
run (the machine is shared: absolute rates move with its load, recorded before each run).

Usage::

    python benchmarks/concurrency.py --index <folder>          # an index built already
    python benchmarks/concurrency.py --build ycba --work-dir W # build YCBA (../shared) into W
    python benchmarks/concurrency.py                           # the demo graph, built in a temp dir

Writes ``benchmarks/results/concurrency.json`` (``--output`` to change).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from _machine import machine_info, wait_for_quiet  # noqa: E402  (beside this script)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared"
RESULTS = ROOT / "benchmarks" / "results"
DATASETS = {"ycba": SHARED / "datasets" / "ycba" / "ycba_data.n3.zip"}
DEV = {"ycba": SHARED / "eval" / "ycba_dev.jsonl"}
DEMO = ROOT / "examples" / "data" / "troodos.ttl"
DEMO_QUESTIONS = (
    "Who founded the church at Asinou?",
    "When were the wall paintings of Panagia tou Araka made?",
    "Which churches were painted by Philippos Goul?",
    "How many churches are in Nicosia District?",
    "Which churches are in the Troodos mountains?",
    "Who painted the frescoes of Panagia tou Araka?",
    "Where is Panagia Podithou?",
    "Which churches were painted in the 15th century?",
    "How do visitors reach the church at Asinou?",
    "Which monasteries have frescoes?",
    "Which villages have churches?",
    "Which churches in Nicosia District were built in the 12th century?",
)


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _key(answer: Any) -> list[Any]:
    return [answer.answer, answer.status, answer.count,
            [[r["uri"], r["score"], r["paths"]] for r in answer.source_records()]]


def _response_key(response: Any) -> list[Any]:
    return [str(response), [[n.node.node_id, round(float(n.score or 0.0), 6),
                             list(n.node.metadata.get("fr_paths", ()))]
                            for n in response.source_nodes]]


class _Sampler:
    """The largest resident memory of this process while the block runs (every 50 ms)."""

    def __enter__(self) -> _Sampler:
        import threading

        self.peak = _rss_mb()
        self._stop = threading.Event()

        def run() -> None:
            while not self._stop.wait(0.05):
                self.peak = max(self.peak, _rss_mb())

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _rss_mb())


def questions_for(dataset: str | None) -> list[str]:
    if dataset in DEV and DEV[dataset].is_file():
        rows = [json.loads(line) for line in DEV[dataset].read_text().splitlines() if line]
        return [r["question"] for r in rows]
    return list(DEMO_QUESTIONS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", type=Path, help="an index folder built already")
    parser.add_argument("--build", choices=sorted(DATASETS), help="build this dataset first")
    parser.add_argument("--work-dir", type=Path, help="where --build writes its index")
    parser.add_argument("--dataset", help="whose questions to ask (default: from --build, "
                        "else ycba when the index folder is named so, else the demo's)")
    parser.add_argument("--threads", default="1,2,4,8")
    parser.add_argument("--rounds", type=int, default=3, help="times the set is asked per run")
    parser.add_argument("--processes", type=int, default=2,
                        help="also ask the set from the most threads through a "
                        "ProcessPipeline of this many worker processes, each with the index "
                        "loaded (0: not)")
    parser.add_argument("--max-wait", type=float, default=120.0,
                        help="seconds to wait for a quiet machine before each run")
    parser.add_argument("--output", type=Path, default=RESULTS / "concurrency.json")
    args = parser.parse_args(argv)

    from llama_index_crm.index import CrmGraphIndex

    folder = args.index
    dataset = args.dataset or args.build
    if folder is None:
        if args.build:
            work = args.work_dir or Path(tempfile.mkdtemp(prefix="crm-concurrency-"))
            folder = work / args.build
            if not (folder / "manifest.json").is_file():
                print(f"building {args.build} into {folder}", file=sys.stderr)
                CrmGraphIndex.build([str(DATASETS[args.build])], folder)
        else:
            folder = Path(tempfile.mkdtemp(prefix="crm-concurrency-")) / "troodos"
            CrmGraphIndex.build([str(DEMO)], folder)
            dataset = "demo"
    if dataset is None:
        dataset = "ycba" if "ycba" in folder.name else "demo"
    questions = questions_for(dataset)
    started = time.perf_counter()
    index = CrmGraphIndex.load(folder)
    pipeline = index.as_query_pipeline()
    engine = index.as_query_engine()
    load_s = time.perf_counter() - started
    rss_loaded = _rss_mb()
    serial = [_key(pipeline.run(q)) for q in questions]  # warm-up, untimed
    serial_engine = [_response_key(engine.query(q)) for q in questions]
    rss_warm = _rss_mb()
    asked = questions * args.rounds
    runs: list[dict[str, Any]] = []
    for threads in (int(t) for t in args.threads.split(",")):
        quiet = wait_for_quiet(args.max_wait)
        cpu0, wall0 = time.process_time(), time.perf_counter()
        with _Sampler() as memory, ThreadPoolExecutor(threads) as pool:
            keys = list(pool.map(lambda q: _key(pipeline.run(q)), asked))
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        differ = sum(k != serial[i % len(questions)] for i, k in enumerate(keys))
        runs.append({"threads": threads, "questions": len(asked), "wall_s": round(wall, 3),
                     "questions_per_s": round(len(asked) / wall, 2),
                     "cpu_s": round(cpu, 3), "peak_rss_mb": round(memory.peak),
                     "answers_differing_from_serial": differ, **quiet})
        print(f"{threads} thread(s): {len(asked) / wall:6.2f} questions/s, "
              f"cpu {cpu / wall:4.2f} cores, peak {memory.peak:.0f} MB, "
              f"{differ} differ from serial (load {quiet['load_1m']})", flush=True)

    processes: dict[str, Any] | None = None
    if args.processes > 0:
        most = max(int(t) for t in args.threads.split(","))
        processes = _process_run(folder, questions, asked, serial, args, most)
        print(f"{most} threads, {args.processes} processes: "
              f"{processes['questions_per_s']:6.2f} questions/s, cpu "
              f"{processes['workers_cpu_s'] / processes['wall_s']:4.2f} cores (workers) + "
              f"{processes['caller_cpu_s'] / processes['wall_s']:4.2f} (caller), "
              f"{processes['answers_differing_from_serial']} differ from serial "
              f"(load {processes['load_1m']})", flush=True)

    async def gather() -> list[Any]:
        return await asyncio.gather(*(engine.aquery(q) for q in asked))

    quiet = wait_for_quiet(args.max_wait)
    wall0 = time.perf_counter()
    with _Sampler() as memory:
        responses = asyncio.run(gather())
    wall = time.perf_counter() - wall0
    differ = sum(_response_key(r) != serial_engine[i % len(questions)]
                 for i, r in enumerate(responses))
    gathered = {"questions": len(asked), "wall_s": round(wall, 3),
                "questions_per_s": round(len(asked) / wall, 2),
                "peak_rss_mb": round(memory.peak), "answers_differing_from_serial": differ,
                **quiet}
    print(f"asyncio.gather(aquery): {len(asked) / wall:6.2f} questions/s, peak "
          f"{memory.peak:.0f} MB, {differ} differ from serial", flush=True)
    by_threads = {r["threads"]: r["questions_per_s"] for r in runs}
    speedup = {f"{t}/1": round(by_threads[t] / by_threads[1], 2)
               for t in by_threads if 1 in by_threads and t != 1}
    if processes is not None and 1 in by_threads:
        speedup[f"{processes['threads']} threads, {args.processes} processes/1 thread"] = \
            round(processes["questions_per_s"] / by_threads[1], 2)
    print("speed-up over 1 thread:", speedup)
    result = {"machine": machine_info(), "index": folder.name, "dataset": dataset,
              "questions": len(questions), "rounds": args.rounds,
              "load_s": round(load_s, 2), "rss_loaded_mb": round(rss_loaded),
              "rss_warm_mb": round(rss_warm), "threads": runs, "speedup": speedup,
              "asyncio_gather": gathered, "processes": processes, "command": " ".join(
                  ["python", "benchmarks/concurrency.py",
                   *("<index>" if a == str(args.index) else a for a in argv or sys.argv[1:])])}
    args.output.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.output.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(result, indent=1) + "\n")
    os.replace(tmp, args.output)
    print(f"wrote {args.output}")
    return 0 if all(r["answers_differing_from_serial"] == 0 for r in runs) and not differ \
        and not (processes or {}).get("answers_differing_from_serial") else 1


def _process_run(folder: Path, questions: list[str], asked: list[str],
                 serial: list[list[Any]], args: argparse.Namespace,
                 threads: int) -> dict[str, Any]:
    """The same questions from ``threads`` threads through a :class:`ProcessPipeline` of
    ``args.processes`` workers (what a server's thread pool would do), each worker with its
    own loaded index, warmed by the whole set once; timed once all are ready."""
    from llama_index_crm.query.processes import ProcessPipeline

    loading = time.perf_counter()
    with ProcessPipeline(folder, processes=args.processes, warm=questions) as pipeline:
        ready_s = time.perf_counter() - loading
        quiet = wait_for_quiet(args.max_wait)
        workers0 = sum(_cpu_of(pid) for pid in pipeline.pids)
        cpu0, wall0 = time.process_time(), time.perf_counter()
        with _Sampler() as memory, ThreadPoolExecutor(threads) as pool:
            keys = list(pool.map(lambda q: _key(pipeline.run(q)), asked))
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        workers_cpu = sum(_cpu_of(pid) for pid in pipeline.pids) - workers0
        rss = sum(_rss_of(pid) for pid in pipeline.pids)
    differ = sum(k != serial[i % len(questions)] for i, k in enumerate(keys))
    return {"processes": args.processes, "threads": threads, "questions": len(asked),
            "wall_s": round(wall, 3), "questions_per_s": round(len(asked) / wall, 2),
            "caller_cpu_s": round(cpu, 3), "workers_cpu_s": round(workers_cpu, 3),
            "start_and_warm_s": round(ready_s, 1), "workers_rss_mb": round(rss),
            "caller_peak_rss_mb": round(memory.peak),
            "answers_differing_from_serial": differ, **quiet}


def _cpu_of(pid: int) -> float:
    """CPU seconds (user and system) process ``pid`` has used."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_of(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


if __name__ == "__main__":
    raise SystemExit(main())
