"""Exact answers: quality on the question sets, and latency on YCBA, NMWA and the whole NPG.

Quality, per question set (the YCBA dev set, the three harder YCBA sets and the NMWA and
NPG held-out sets of ``benchmarks/questions/``), answered by the exact layer alone
(:class:`ExactAnswerer`, no retrieval, no LLM; follow-ups get their conversation):

* AnsAR: the fraction of ``answer_labels`` found in the answer (``shared/eval/score.py``'s
  matching: NFKC, entities, case, whole tokens);
* CountEM: aggregation questions whose ``count`` equals ``gold_count``;
* status: the answer's status is the question's ``expect`` (``answered`` unless given);
  for absent sets, the share answered ``not_found`` and the answers with a count above 0;
* exact: the share of questions with every label found, the right count and status.

Latency: the wall milliseconds of ``ExactAnswerer.answer`` per question, warmed (the
answerer is built and every question asked once untimed), over the YCBA sets, the NMWA set
and NPG questions (``results/query_npg_questions.jsonl``, generated from the whole NPG
index). Building the answerer (the name index, first use) is timed apart.

Usage::

    python benchmarks/exact.py                 # indexes in /tmp/bench_idx/{ycba,nmwa,npg}
    python benchmarks/exact.py --datasets ycba --no-wait

Writes ``benchmarks/results/exact.json``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from _machine import machine_info, wait_for_quiet  # noqa: E402

SHARED = REPO.parent / "shared"
QUESTIONS = HERE / "questions"
SETS: dict[str, list[Path]] = {
    "ycba": [SHARED / "eval" / "ycba_dev.jsonl", QUESTIONS / "ycba_rephrased.jsonl",
             QUESTIONS / "ycba_absent.jsonl", QUESTIONS / "ycba_superlatives.jsonl"],
    "nmwa": [QUESTIONS / "nmwa_heldout.jsonl"],
    "npg": [QUESTIONS / "npg_heldout.jsonl", HERE / "results" / "query_npg_questions.jsonl"],
}
INDEXES = Path("/tmp/bench_idx")


def _scorer() -> tuple[Callable[[Any], str], Callable[[str, str], bool]] | None:
    """``normalize`` and ``found`` of ``shared/eval/score.py`` (None without ``shared``)."""
    path = SHARED / "eval" / "score.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location("crm_eval_score", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.normalize, module.found


def _load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def _percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    k = max(0, min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def run_set(answerer: Any, questions: list[dict[str, Any]],
            scorer: tuple[Callable[[Any], str], Callable[[str, str], bool]] | None
            ) -> tuple[dict[str, Any], list[float], list[dict[str, Any]]]:
    """Answer a set twice (first untimed); the scores, timings and per-question rows."""
    histories: dict[str, list[tuple[str, str]]] = {}
    for q in questions:  # warm: every question once, untimed
        history = histories.get(q.get("turn_of") or "", [])
        answer = answerer.answer(q["question"], history)
        histories[q["id"]] = [*history, (q["question"], answer.text)]
    times: list[float] = []
    rows: list[dict[str, Any]] = []
    histories = {}
    for q in questions:
        history = histories.get(q.get("turn_of") or "", [])
        started = time.perf_counter()
        answer = answerer.answer(q["question"], history)
        times.append((time.perf_counter() - started) * 1000)
        histories[q["id"]] = [*history, (q["question"], answer.text)]
        rows.append({"id": q["id"], "status": answer.status, "count": answer.count,
                     "answer": answer.text, "ms": round(times[-1], 2)})
    scores: dict[str, Any] = {"n": len(questions)}
    if scorer is not None and any("answer_labels" in q for q in questions):
        normalize, found = scorer
        ans, exact, agg, count_ok, status_ok, absent, absent_nf, absent_count = \
            0.0, 0, 0, 0, 0, 0, 0, 0
        for q, row in zip(questions, rows, strict=True):
            labels = q.get("answer_labels") or []
            text = normalize(row["answer"])
            hit = sum(found(label, text) for label in labels) / len(labels) if labels else 1.0
            ans += hit
            expect = q.get("expect", "answered")
            status = row["status"] == expect
            status_ok += status
            counted = True
            if q.get("type") == "aggregation" and q.get("gold_count") is not None:
                agg += 1
                counted = row["count"] == q["gold_count"]
                count_ok += counted
            if expect == "not_found":
                absent += 1
                absent_nf += row["status"] == "not_found"
                absent_count += (row["count"] or 0) > 0
            exact += hit == 1.0 and status and counted
        scores.update({
            "AnsAR": round(ans / len(rows), 3), "exact": round(exact / len(rows), 3),
            "CountEM": round(count_ok / agg, 3) if agg else None, "aggregation": agg,
            "status_ok": round(status_ok / len(rows), 3),
            "absent": absent, "absent_not_found": absent_nf, "absent_count_above_0":
                absent_count})
    scores["statuses"] = {s: sum(r["status"] == s for r in rows)
                          for s in ("answered", "not_found", "ambiguous", "retrieval_only")}
    return scores, times, rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default="ycba,nmwa,npg")
    parser.add_argument("--indexes", type=Path, default=INDEXES)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "exact.json")
    parser.add_argument("--no-wait", action="store_true", help="do not wait for a quiet machine")
    parser.add_argument("--max-wait", type=float, default=600.0)
    args = parser.parse_args(argv)

    from llama_index_crm.exact.answerer import ExactAnswerer
    from llama_index_crm.graph.data import GraphData

    scorer = _scorer()
    report: dict[str, Any] = {"machine": machine_info(), "datasets": {}}
    for name in args.datasets.split(","):
        folder = args.indexes / name
        if not (folder / "manifest.json").exists():
            print(f"{name}: no index in {folder}; build it with crm-rag build", file=sys.stderr)
            continue
        data = GraphData.load(folder)
        started = time.perf_counter()
        answerer = ExactAnswerer(data)
        build_s = time.perf_counter() - started
        load = None if args.no_wait else wait_for_quiet(args.max_wait)
        result: dict[str, Any] = {"answerer_build_s": round(build_s, 2), "load": load,
                                  "names": len(answerer.names.rows),
                                  "triples": len(data.triples), "sets": {}}
        all_times: list[float] = []
        for path in SETS[name]:
            if not path.exists():
                continue
            scores, times, rows = run_set(answerer, _load(path), scorer)
            all_times += times
            scores["p50_ms"] = round(statistics.median(times), 2)
            scores["p95_ms"] = round(_percentile(times, 95), 2)
            result["sets"][path.stem] = scores
            print(f"{name:5} {path.stem:26} {json.dumps(scores)}")
            bad = [r for r in rows if r["status"] == "retrieval_only"]
            if bad:
                print(f"      retrieval_only: {[r['id'] for r in bad][:10]}")
        result["p50_ms"] = round(statistics.median(all_times), 2) if all_times else None
        result["p95_ms"] = round(_percentile(all_times, 95), 2) if all_times else None
        print(f"{name:5} all: p50 {result['p50_ms']} ms, p95 {result['p95_ms']} ms, answerer "
              f"built in {result['answerer_build_s']} s ({result['names']:,} names)")
        report["datasets"][name] = result
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
