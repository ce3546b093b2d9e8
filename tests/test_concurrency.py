"""Questions at once in one process: 8 threads over one pipeline, ``asyncio.gather`` over
``aquery``, on the demo index. The answers, their sources, scores and paths must be the
serial ones, and memory must stay bounded.

The concurrent runs happen in a child interpreter watched from here: a search that loops
(work arrays shared between searches once did that, growing memory without bound) is
killed when it passes a memory or time cap, and the test fails saying so, instead of taking
the machine down with it.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from llama_index_crm.postprocessors.adjacency import PredicateWeights
from llama_index_crm.postprocessors.source_paths import ScratchPool, cheapest_paths

QUESTIONS = (
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
THREADS = 8
ROUNDS = 3
"""Each question is asked this many times in each concurrent run."""
GROWTH_MB = 400
"""Most the child's resident memory may grow between the serial and the concurrent runs."""
CAP_MB = 4096
"""The child is killed above this (a search that loops grows by gigabytes)."""
DEADLINE_S = 900.0


def _mb_of(pid: int, field: str = "VmRSS") -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _answer_key(answer: Any) -> list[Any]:
    """What must not differ between serial and concurrent runs of a question."""
    return [answer.answer, answer.status, answer.count,
            [[r["uri"], r["score"], r["paths"], r["triples"]] for r in answer.source_records()]]


def _response_key(response: Any) -> list[Any]:
    return [str(response), [[n.node.node_id, round(float(n.score or 0.0), 6),
                             list(n.node.metadata.get("fr_paths", ()))]
                            for n in response.source_nodes]]


def child(folder: str) -> None:
    """Serial, then threaded, then asyncio runs over one loaded index; prints JSON."""
    from llama_index_crm.index import CrmGraphIndex

    index = CrmGraphIndex.load(folder)
    pipeline = index.as_query_pipeline()
    engine = index.as_query_engine()
    serial = [_answer_key(pipeline.run(q)) for q in QUESTIONS]
    serial_engine = [_response_key(engine.query(q)) for q in QUESTIONS]
    serial_peak = _mb_of_self("VmHWM")
    asked = list(QUESTIONS) * ROUNDS
    with ThreadPoolExecutor(THREADS) as pool:
        threaded = list(pool.map(lambda q: _answer_key(pipeline.run(q)), asked))

    async def gather() -> list[Any]:
        return await asyncio.gather(*(engine.aquery(q) for q in asked))

    gathered = [_response_key(r) for r in asyncio.run(gather())]
    print(json.dumps({"serial": serial, "serial_engine": serial_engine,
                      "threaded": threaded, "gathered": gathered,
                      "serial_peak_mb": serial_peak, "peak_mb": _mb_of_self("VmHWM")}))


def _mb_of_self(field: str) -> float:
    import os

    return _mb_of(os.getpid(), field)


def _run_child(folder: Path, work: Path) -> dict[str, Any]:
    out_path, err_path = work / "child.out", work / "child.err"
    with out_path.open("w") as out, err_path.open("w") as err:
        proc = subprocess.Popen([sys.executable, __file__, str(folder)], stdout=out,
                                stderr=err)
        started, peak = time.monotonic(), 0.0
        while proc.poll() is None:
            peak = max(peak, _mb_of(proc.pid))
            if peak > CAP_MB or time.monotonic() - started > DEADLINE_S:
                proc.kill()
                proc.wait()
                raise AssertionError(f"concurrent questions ran away: {peak:.0f} MB resident "
                                     f"after {time.monotonic() - started:.0f} s")
            time.sleep(0.1)
    assert proc.returncode == 0, err_path.read_text()[-3000:]
    return dict(json.loads(out_path.read_text().strip().splitlines()[-1]))


def test_concurrent_questions_answer_as_serial_ones(demo_index: Any, tmp_path: Path) -> None:
    """8 threads over one pipeline and ``asyncio.gather`` over ``aquery``: every answer,
    source, score and source path is the serial one, and memory stays bounded."""
    found = _run_child(Path(demo_index.folder), tmp_path)
    serial, serial_engine = found["serial"], found["serial_engine"]
    assert all(s[0] for s in serial)  # the questions are answered (not empty answers)
    assert any(s[3] and any(r[2] for r in s[3]) for s in serial)  # with source paths
    for i, key in enumerate(found["threaded"]):
        assert key == serial[i % len(QUESTIONS)], QUESTIONS[i % len(QUESTIONS)]
    for i, key in enumerate(found["gathered"]):
        assert key == serial_engine[i % len(QUESTIONS)], QUESTIONS[i % len(QUESTIONS)]
    assert found["peak_mb"] - found["serial_peak_mb"] < GROWTH_MB, found


def test_path_searches_in_threads_find_the_serial_paths(demo_index: Any) -> None:
    """Path searches from many starts at once, sharing one pool: each finds what it finds
    alone, and the pool keeps no more work arrays than searches ran at once."""
    store = demo_index.triples
    weights = PredicateWeights(store, demo_index.ontology)
    nodes = np.flatnonzero(~store.is_literal)
    targets = {int(t): i for i, t in enumerate(nodes.tolist())}
    starts = [nodes[i:i + 1] for i in range(0, len(nodes), max(1, len(nodes) // 48))]
    alone = [cheapest_paths(store, weights, s, targets) for s in starts]
    assert any(len(found) > 10 for found in alone)  # the searches reach far
    pool = ScratchPool(store.terms)
    with ThreadPoolExecutor(THREADS) as threads:
        together = list(threads.map(
            lambda s: cheapest_paths(store, weights, s, targets, pool=pool), starts * 4))
    assert together == alone * 4
    assert 1 <= pool.idle <= THREADS
    with pool.borrow() as one, pool.borrow() as two:
        assert one is not two
        assert np.isinf(one.cost).all() and (one.src == -1).all()  # given back clean


if __name__ == "__main__":
    child(sys.argv[1])
