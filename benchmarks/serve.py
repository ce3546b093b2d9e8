"""Serving overhead: the same questions answered in process and over HTTP, in one run.

In process: :meth:`CrmQueryPipeline.run` on a loaded index (what ``crm-rag ask`` and
``CrmGraphIndex.ask`` do). Over HTTP: ``POST /api/ask`` to ``crm-rag serve --preload`` in a
separate process on 127.0.0.1, through one kept-alive connection, timed from the request
written to the JSON read. Each round asks every question both ways, alternately, after one
untimed warm-up round; the two answers are checked to be the same. The difference of the
medians (p50) is the cost of serving: HTTP, JSON, the thread pool, the answer's view
(labels of the source triples, the subgraph). The route's own time (its ``Server-Timing``
header: answer, view and JSON) splits the rest into the server's work and the round trip
(HTTP, the event loop, the thread pool). A last pass sends the questions from 20 chat
sessions at once and reports their latencies and the wall time.

Before the timed runs the script waits until the 1-minute load average is below 1.2
(polling every 10 s, at most ``--max-wait`` seconds) and records the load.

Usage::

    python benchmarks/serve.py                 # the demo index (indexes/troodos, built if missing)
    python benchmarks/serve.py --index /tmp/bench_idx/ycba --questions Q.txt

Writes ``benchmarks/results/serve.json``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from _machine import machine_info, wait_for_quiet  # noqa: E402  (beside this script)

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
DEMO_GRAPH = ROOT / "examples" / "data" / "troodos.ttl"
DEMO_INDEX = ROOT / "indexes" / "troodos"
DEMO_QUESTIONS = (
    "Who founded the church at Asinou?",
    "When were the wall paintings of Panagia tou Araka made?",
    "Which churches were painted by Philippos Goul?",
    "How many churches are in Nicosia District?",
    "how many churches did picasso paint",
    "what is the oldest church",
    "when was asinou built",
    "who is the most prolific painter",
    "Tell me about Panagia Phorbiottissa (Asinou)",
    "Where is Agios Nikolaos tis Stegis?",
)
CONCURRENT_SESSIONS = 20


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _post(conn: http.client.HTTPConnection, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """The JSON answer, with ``_route_s``: the route's own time (``Server-Timing``)."""
    conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    response = conn.getresponse()
    data: dict[str, Any] = json.loads(response.read())
    if response.status != 200:
        raise RuntimeError(f"{path}: {response.status} {data}")
    timing = response.getheader("Server-Timing", "answer;dur=nan")
    data["_route_s"] = float(timing.split("dur=")[1]) / 1000
    return data


def _ms(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)


def start_server(index: Path, port: int) -> subprocess.Popen[bytes]:
    """``crm-rag serve --preload`` on ``port``, returned once it answers ``/api/health``."""
    server = subprocess.Popen(
        [sys.executable, "-m", "llama_index_crm.cli", "serve", "--index", f"bench={index}",
         "--port", str(port), "--preload"], stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/api/health")
            if conn.getresponse().status == 200:
                conn.close()
                return server
        except OSError:
            if server.poll() is not None:
                raise RuntimeError("crm-rag serve exited") from None
            time.sleep(0.2)
    server.terminate()
    raise RuntimeError("crm-rag serve did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", default=str(DEMO_INDEX))
    parser.add_argument("--questions", default=None, help="a text file, one question a line")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--max-wait", type=float, default=300)
    parser.add_argument("--out", default=str(RESULTS / "serve.json"))
    args = parser.parse_args()

    from llama_index_crm.index import CrmGraphIndex
    from llama_index_crm.query.engine import CrmQueryPipeline

    index_dir = Path(args.index).resolve()
    if not (index_dir / "manifest.json").exists():
        if index_dir != DEMO_INDEX.resolve():
            raise SystemExit(f"{index_dir} is not a built index")
        print(f"building the demo index into {index_dir}", file=sys.stderr)
        CrmGraphIndex.build([str(DEMO_GRAPH)], index_dir)
    questions = (list(DEMO_QUESTIONS) if args.questions is None else
                 [q.strip() for q in Path(args.questions).read_text().splitlines() if q.strip()])

    pipeline = CrmQueryPipeline(CrmGraphIndex.load(index_dir))
    port = _free_port()
    server = start_server(index_dir, port)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        for q in questions:  # warm-up: caches of both processes
            pipeline.run(q)
            _post(conn, "/api/ask", {"question": q})
        conn.close()
        quiet = wait_for_quiet(args.max_wait)
        # a new connection: the server closes idle ones after 5 s
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        _post(conn, "/api/ask", {"question": questions[0]})
        inproc: list[float] = []
        over_http: list[float] = []
        in_route: list[float] = []
        health: list[float] = []
        mismatches: list[str] = []
        for _ in range(args.rounds):
            for q in questions:
                started = time.perf_counter()
                answer = pipeline.run(q)
                inproc.append(time.perf_counter() - started)
                started = time.perf_counter()
                data = _post(conn, "/api/ask", {"question": q})
                over_http.append(time.perf_counter() - started)
                in_route.append(data["_route_s"])
                if (data["answer"], data["status"], data["count"]) != (
                        answer.answer, answer.status, answer.count):
                    mismatches.append(q)
                started = time.perf_counter()
                conn.request("GET", "/api/health")
                conn.getresponse().read()
                health.append(time.perf_counter() - started)
        conn.close()

        def session(i: int) -> list[float]:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
            times = []
            for q in questions:
                started = time.perf_counter()
                _post(c, "/api/chat", {"session": f"bench-session-{i:03d}", "message": q})
                times.append(time.perf_counter() - started)
            c.close()
            return times

        started = time.perf_counter()
        with ThreadPoolExecutor(CONCURRENT_SESSIONS) as pool:
            per_session = list(pool.map(session, range(CONCURRENT_SESSIONS)))
        concurrent_wall = time.perf_counter() - started
    finally:
        server.terminate()
        server.wait(30)

    together = [t for times in per_session for t in times]
    result = {
        "index": index_dir.name, "questions": len(questions), "rounds": args.rounds,
        "in_process_ms": {"p50": _ms(inproc, 0.5), "p90": _ms(inproc, 0.9)},
        "http_ms": {"p50": _ms(over_http, 0.5), "p90": _ms(over_http, 0.9)},
        "http_minus_in_process_p50_ms": round(
            1000 * (statistics.median(over_http) - statistics.median(inproc)), 2),
        "median_of_paired_differences_ms": round(1000 * statistics.median(
            h - i for h, i in zip(over_http, inproc, strict=True)), 2),
        "server_route_ms": {"p50": _ms(in_route, 0.5), "p90": _ms(in_route, 0.9)},
        "http_minus_route_p50_ms": round(1000 * statistics.median(
            h - r for h, r in zip(over_http, in_route, strict=True)), 2),
        "health_ms": {"p50": _ms(health, 0.5)},
        "answers_differ": mismatches,
        "concurrent": {"sessions": CONCURRENT_SESSIONS, "requests": len(together),
                       "wall_s": round(concurrent_wall, 2),
                       "latency_ms": {"p50": _ms(together, 0.5), "p90": _ms(together, 0.9)},
                       "requests_per_s": round(len(together) / concurrent_wall, 1)},
        "quiet": quiet, "machine": machine_info(),
    }
    print(json.dumps(result, indent=1))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(result, indent=1) + "\n")
    tmp.replace(out)


if __name__ == "__main__":
    main()
