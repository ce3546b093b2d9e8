"""The blind battery: held-out questions written without reading the planner, scored on what
a user gets (the whole pipeline, no LLM: the exact answer, or the retrieval answer).

Per question set (``benchmarks/questions/battery/<dataset>.jsonl``):

* AnsAR: the share of ``answer_labels`` found in the answer text (``shared/eval/score.py``);
* CountEM: aggregation questions whose ``count`` equals ``gold_count`` (a retrieval answer
  has no count, so it misses);
* false absence: answerable questions (``expect: answered`` with labels or a count above 0)
  answered ``not_found``, with a count of 0, or with "records no" / "not in this graph";
* absent: ``expect: not_found`` questions answered ``not_found``;
* statuses, and the same figures per language and per template.

Usage::

    python benchmarks/battery.py --index demo=/tmp/idx_demo --index nmwa=/tmp/bench_idx/nmwa
    python benchmarks/battery.py --index demo=DIR --label first-run --out results/battery.json
    python benchmarks/battery.py --set questions/battery/v3.jsonl --index nmwa=DIR --index acm=DIR

Writes ``benchmarks/results/battery-<label>.json`` (scores) and ``…-rows.jsonl`` (answers).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from exact import _scorer as exact_scorer  # noqa: E402

REPO = HERE.parent
BATTERY = HERE / "questions" / "battery"
ABSENCE = re.compile(r"records no|not in this graph|no [\w ]+ named|there are no|nothing found",
                     re.IGNORECASE)
"""Words of an answer that state an absence."""


def _scorer() -> tuple[Callable[[Any], str], Callable[[str, str], bool]]:
    """``normalize`` and ``found`` of ``shared/eval/score.py`` (exit without ``shared``)."""
    found = exact_scorer()
    if found is None:
        sys.exit("needs ../shared/eval/score.py")
    return found


def _load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def answerable(q: dict[str, Any]) -> bool:
    """Whether the graph holds an answer (labels to find or a count above 0)."""
    return q.get("expect", "answered") == "answered" and bool(
        q.get("answer_labels") or (q.get("gold_count") or 0) > 0)


def false_absence(q: dict[str, Any], row: dict[str, Any]) -> bool:
    """An answerable question answered as if the graph held nothing."""
    if not answerable(q):
        return False
    if row["status"] == "not_found":
        return True
    if row["count"] == 0 and (q.get("gold_count") or 0) > 0:
        return True
    return row["status"] == "answered" and bool(ABSENCE.search(row["answer"])) and not any(
        row["found"])


def answered_wrong(row: dict[str, Any]) -> bool:
    """An answerable question answered as certain with none of its gold (a count: not the
    gold count): what a user would believe and should not (gold may be disputed: read them)."""
    q = row["q"]
    if row["status"] != "answered" or row["false_absence"]:
        return False
    if q.get("type") == "aggregation" and q.get("gold_count") is not None:
        return row["count"] is not None and row["count"] != q["gold_count"]
    return bool(row["found"]) and not any(row["found"])


def score(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of a group of answered questions."""
    n = len(rows)
    if not n:
        return {"n": 0}
    agg = [r for r in rows if r["q"].get("type") == "aggregation"
           and r["q"].get("gold_count") is not None and r["q"].get("expect") != "not_found"]
    with_labels = [r for r in rows if r["q"].get("answer_labels")]
    able = [r for r in rows if answerable(r["q"])]
    absent = [r for r in rows if r["q"].get("expect") == "not_found"]
    return {
        "n": n,
        "AnsAR": round(sum(r["ans"] for r in with_labels) / len(with_labels), 3)
        if with_labels else None,
        "CountEM": round(sum(r["count"] == r["q"]["gold_count"] for r in agg) / len(agg), 3)
        if agg else None,
        "aggregation": len(agg),
        "answerable": len(able),
        "false_absence": sum(r["false_absence"] for r in able),
        "false_absence_rate": round(sum(r["false_absence"] for r in able) / len(able), 3)
        if able else None,
        "answered_wrong": sum(answered_wrong(r) for r in able),
        "absent": len(absent),
        "absent_not_found": sum(r["status"] == "not_found" for r in absent),
        "statuses": {s: sum(r["status"] == s for r in rows)
                     for s in ("answered", "not_found", "ambiguous", "retrieval_only")},
    }


def run(index_dir: Path, questions: list[dict[str, Any]],
        scorer: tuple[Callable[[Any], str], Callable[[str, str], bool]]
        ) -> list[dict[str, Any]]:
    """Every question through the pipeline (follow-ups with their conversation)."""
    from llama_index_crm.index import CrmGraphIndex
    from llama_index_crm.query.engine import CrmQueryPipeline

    normalize, found = scorer
    pipeline = CrmQueryPipeline(CrmGraphIndex.load(index_dir))
    histories: dict[str, list[tuple[str, str]]] = {}
    rows = []
    for q in questions:
        history = histories.get(q.get("turn_of") or "", [])
        started = time.perf_counter()
        answer = pipeline.run(q["question"], history)
        ms = (time.perf_counter() - started) * 1000
        histories[q["id"]] = [*history, (q["question"], answer.answer)]
        text = normalize(answer.answer)
        labels = q.get("answer_labels") or []
        hits = [found(label, text) for label in labels]
        row = {"id": q["id"], "q": q, "status": answer.status, "count": answer.count,
               "answer": answer.answer, "found": hits,
               "ans": sum(hits) / len(hits) if hits else 1.0, "ms": round(ms, 1),
               "why": answer.exact.plan_text.split("\n")[0]
               if answer.exact is not None and answer.status == "retrieval_only" else ""}
        row["false_absence"] = false_absence(q, row)
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", action="append", default=[], metavar="DATASET=DIR",
                        help="an index per battery file (repeat)")
    parser.add_argument("--battery", type=Path, default=BATTERY)
    parser.add_argument("--set", type=Path, default=None, metavar="FILE",
                        help="one question file over several graphs (v3.jsonl): each "
                        "question goes to the --index of its `dataset`")
    parser.add_argument("--label", default="run")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    scorer = _scorer()
    report: dict[str, Any] = {"label": args.label, "sets": {}}
    all_rows: list[dict[str, Any]] = []
    for spec in args.index:
        name, _, folder = spec.partition("=")
        path = args.set or args.battery / f"{name}.jsonl"
        if not path.exists() or not (Path(folder) / "manifest.json").exists():
            print(f"{name}: no battery file {path} or no index in {folder}", file=sys.stderr)
            continue
        questions = _load(path)
        if args.set is not None:
            questions = [q for q in questions if q.get("dataset") == name]
        rows = run(Path(folder), questions, scorer)
        all_rows += rows
        by_lang: dict[str, list[dict[str, Any]]] = defaultdict(list)
        by_template: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in rows:
            by_lang[r["q"].get("lang", "en")].append(r)
            by_template[r["q"].get("template", "?")].append(r)
        report["sets"][name] = {
            "all": score(rows),
            "by_lang": {k: score(v) for k, v in sorted(by_lang.items())},
            "by_template": {k: score(v) for k, v in sorted(by_template.items())},
            "p50_ms": sorted(r["ms"] for r in rows)[len(rows) // 2] if rows else None}
        s = report["sets"][name]["all"]
        print(f"{name:5} n={s['n']:3} AnsAR={s['AnsAR']} CountEM={s['CountEM']} "
              f"false_absence={s['false_absence']}/{s['answerable']} "
              f"wrong={s['answered_wrong']} "
              f"absent={s['absent_not_found']}/{s['absent']} {s['statuses']}")
        for lang, sc in report["sets"][name]["by_lang"].items():
            print(f"      {lang}: n={sc['n']} AnsAR={sc['AnsAR']} "
                  f"false_absence={sc['false_absence']}/{sc['answerable']}")
    report["all"] = score(all_rows)
    s = report["all"]
    print(f"ALL   n={s['n']} AnsAR={s['AnsAR']} CountEM={s['CountEM']} "
          f"false_absence={s['false_absence']}/{s['answerable']} "
          f"wrong={s['answered_wrong']} "
          f"absent={s['absent_not_found']}/{s['absent']}")
    out = args.out or HERE / "results" / f"battery-{args.label}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    with out.with_name(out.stem + "-rows.jsonl").open("w", encoding="utf-8") as f:
        for r in all_rows:
            r = {k: v for k, v in r.items() if k != "q"} | {
                "question": r["q"]["question"], "expect": r["q"].get("expect"),
                "labels": r["q"].get("answer_labels"), "gold_count": r["q"].get("gold_count")}
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
