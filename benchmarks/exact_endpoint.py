"""Exact plans on the user's endpoint: the SPARQL backend against the index's triples.

Every question of a set (default: the NMWA held-out set of ``benchmarks/questions/``) is
answered by the exact layer twice over one loaded index: with the default backend (the
index's triples, ``parquet``) and with ``--exact-backend sparql`` on a real endpoint
holding the same graph (an ``oxigraph serve`` of ``--graph`` started here, or ``--endpoint
URL``). Follow-ups get their conversation. Recorded per question: each status, which backend
computed the SPARQL side's answer (``sparql``, or ``parquet`` with the reason it did not
compile), whether the answers are equal (status, count, total and members in order; and the
sentence), and the warmed wall milliseconds of each (every question asked once untimed
first).

Usage::

    python benchmarks/exact_endpoint.py --index /work/idx/nmwa \\
        --graph ../shared/datasets/nmwa/consolidated_data.n3.zip [--server virtuoso]

Writes ``benchmarks/results/exact_endpoint.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from _machine import machine_info  # noqa: E402
from exact import _percentile  # noqa: E402  # the exact-layer benchmark's percentile

QUESTIONS = HERE / "questions" / "nmwa_heldout.jsonl"
GRAPH = REPO.parent / "shared" / "datasets" / "nmwa" / "consolidated_data.n3.zip"
NOTE = "computed over the index's triples, not on the endpoint: "
GRAPH_IRI = "https://example.org/benchmark/graph"
"""The named graph Virtuoso holds the graph in."""


def _shape(answer: Any) -> tuple[Any, ...]:
    """Status, count, total, the members with their values, and the groups, in order."""
    groups = answer.result.groups if answer.result is not None else []
    return answer.status, answer.count, answer.total, [
        (i["uri"], i["label"], [(v["relation"], v["text"], v["years"]) for v in i["values"]])
        for i in answer.items], [(g.key, [i.uri for i in g.items]) for g in groups]


def _without_note(text: str, why: str) -> str:
    """A sentence without the note saying it was computed over the index."""
    if not why:
        return text
    return text.replace(f" ({NOTE}{why})", "").replace(f"; {NOTE}{why}", "")


def _answers(answerer: Any, questions: list[dict[str, Any]]) -> tuple[list[Any], list[float]]:
    """Each question answered once untimed, then once timed (ms), in conversation."""
    for timed in (False, True):
        histories: dict[str, list[tuple[str, str]]] = {}
        answers, times = [], []
        for q in questions:
            history = histories.get(q.get("turn_of") or "", [])
            started = time.perf_counter()
            answer = answerer.answer(q["question"], history)
            times.append((time.perf_counter() - started) * 1000)
            histories[q["id"]] = [*history, (q["question"], answer.text)]
            answers.append(answer)
        if timed:
            return answers, times
    raise AssertionError("unreachable")


def _stats(times: list[float]) -> dict[str, float | None]:
    if not times:
        return {"p50_ms": None, "p95_ms": None, "mean_ms": None}
    return {"p50_ms": round(statistics.median(times), 2),
            "p95_ms": round(_percentile(times, 95), 2),
            "mean_ms": round(statistics.fmean(times), 2)}


def compare(index: Path, url: str, questions: list[dict[str, Any]],
            graphs: list[str] | None = None) -> dict[str, Any]:
    """Both backends over ``questions``: the per-question rows and the summary."""
    from llama_index_crm.exact.answerer import ExactAnswerer
    from llama_index_crm.exact.endpoint import PlanEndpoint
    from llama_index_crm.graph.data import GraphData

    data = GraphData.load(index)
    local = ExactAnswerer(data)
    remote = ExactAnswerer(data, endpoint=PlanEndpoint(url, graphs=graphs))
    here, here_ms = _answers(local, questions)
    there, there_ms = _answers(remote, questions)
    rows = []
    for q, a, b, ta, tb in zip(questions, here, there, here_ms, there_ms, strict=True):
        why = next((n[len(NOTE):] for n in (b.result.notes if b.result else [])
                    if n.startswith(NOTE)), "")
        rows.append({"id": q["id"], "question": q["question"], "status": a.status,
                     "sparql_status": b.status, "backend": b.backend or None,
                     "operation": a.plan.operation if a.plan is not None else None,
                     "why_not_compiled": why or None, "equal": _shape(a) == _shape(b),
                     "same_sentence": a.text == _without_note(b.text, why),
                     "parquet_ms": round(ta, 2), "sparql_ms": round(tb, 2)})
        if not rows[-1]["same_sentence"]:
            rows[-1]["sentences"] = [a.text, b.text]
        if a.status != b.status:
            rows[-1]["sparql_plan_text"] = b.plan_text
    compiled = [r for r in rows if r["backend"] == "sparql"]
    answered = [r for r in rows if r["status"] == "answered"]
    summary = {
        "questions": len(rows), "answered": len(answered),
        "equal": sum(r["equal"] for r in rows),
        "compiled": len(compiled), "compiled_equal": sum(r["equal"] for r in compiled),
        "compiled_same_sentence": sum(r["same_sentence"] for r in compiled),
        "on_the_index": sum(r["backend"] == "parquet" for r in rows),
        "why_not_compiled": dict(Counter(r["why_not_compiled"] for r in rows
                                         if r["why_not_compiled"]).most_common()),
        "parquet_all": _stats([r["parquet_ms"] for r in rows]),
        "sparql_all": _stats([r["sparql_ms"] for r in rows]),
        "parquet_compiled": _stats([r["parquet_ms"] for r in compiled]),
        "sparql_compiled": _stats([r["sparql_ms"] for r in compiled]),
    }
    return {"summary": summary, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", type=Path, default=Path("/tmp/bench_idx/nmwa"))
    parser.add_argument("--graph", type=Path, default=GRAPH,
                        help="served by a local oxigraph serve (unless --endpoint)")
    parser.add_argument("--endpoint", default=None, help="an endpoint already holding the graph")
    parser.add_argument("--graph-iri", action="append", default=None, metavar="IRI",
                        help="with --endpoint: read these named graphs (default-graph-uri)")
    parser.add_argument("--server", choices=("oxigraph", "virtuoso"), default="oxigraph",
                        help="the server started over --graph (virtuoso: the Debian package)")
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--json", type=Path, default=HERE / "results" / "exact_endpoint.json")
    args = parser.parse_args(argv)

    questions = [json.loads(line) for line in args.questions.read_text().splitlines()
                 if line.strip()]
    report: dict[str, Any] = {"machine": machine_info(), "index": str(args.index),
                              "questions": str(args.questions)}
    if args.endpoint:
        report["endpoint"] = "given"
        report.update(compare(args.index, args.endpoint, questions, args.graph_iri))
    elif args.server == "virtuoso":
        from llama_index_crm.sources.virtuoso_server import VirtuosoServer

        with tempfile.TemporaryDirectory() as work, \
                VirtuosoServer([args.graph], Path(work), GRAPH_IRI) as virtuoso:
            report["endpoint"] = f"virtuoso-t of {args.graph.name}"
            report["load_s"] = virtuoso.load_seconds
            report.update(compare(args.index, virtuoso.url, questions, [GRAPH_IRI]))
    else:
        from llama_index_crm.sources.oxigraph_server import OxigraphServer

        with tempfile.TemporaryDirectory() as work, \
                OxigraphServer([args.graph], Path(work)) as server:
            report["endpoint"] = f"oxigraph serve of {args.graph.name}"
            report["load_s"] = server.load_seconds
            report.update(compare(args.index, server.url, questions))
    summary = report["summary"]
    print(json.dumps(summary, indent=1, ensure_ascii=False))
    for row in report["rows"]:
        if not row["equal"]:
            print(f"DIFFERENT {row['id']}: {row['question']}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
