"""Do the RRF channel weights earn their place? The YCBA dev set with and without them.

Runs the 60 dev questions through :class:`CrmQueryPipeline` as ``benchmarks/query.py`` does
(no LLM, follow-ups with the previous question and top label as history), once per variant
in one process on one loaded index, and scores each results file with
``shared/eval/score.py``. Variants change only the weights :func:`rrf` is given:

* ``default``: the weights as configured (pool: category 0.7; category channel: PageRank
  0.3, period 2.0; everything else 1.0);
* ``uniform``: every weight 1.0 (the weights ignored);
* ``<name>=1``: one non-unit weight set to 1.0, the others as configured.

Usage::

    python benchmarks/rrf_weights.py            # /tmp/bench_idx/ycba → results/rrf_weights.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from query import DEV_QUESTIONS, INDEX_ROOT, RESULTS, read_jsonl, run_questions, score, write_jsonl

VARIANTS: dict[str, dict[str, float] | None] = {
    "default": {},
    "uniform": None,
    "category=1": {"category": 1.0},
    "period=1": {"period": 1.0},
    "pagerank=1": {"pagerank": 1.0},
    "category=1,pagerank=1": {"category": 1.0, "pagerank": 1.0},
}
"""Variant → weight overrides by channel name (``None``: every weight 1.0)."""
METRICS = ("R@10", "MRR@10", "Hit@10", "CtxAR@16k", "AnsAR", "CountEM")


def patch_rrf(overrides: dict[str, float] | None) -> None:
    """Make every caller of :func:`rrf` fuse with ``overrides`` laid over its weights."""
    from llama_index_crm.graph import channels
    from llama_index_crm.retrievers import category, hybrid, pool

    original = channels.rrf

    def fused(rankings: Mapping[str, Sequence[int]], weights: Mapping[str, float],
              k: int = channels.RRF_K) -> dict[int, float]:
        if overrides is None:
            return original(rankings, dict.fromkeys(rankings, 1.0), k)
        return original(rankings, {**weights, **overrides}, k)

    for module in (hybrid, category, pool):
        module.rrf = fused  # type: ignore[attr-defined]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", type=Path, default=INDEX_ROOT / "ycba")
    parser.add_argument("--output", type=Path, default=RESULTS / "rrf_weights.json")
    args = parser.parse_args(argv)
    from llama_index_crm.index import CrmGraphIndex

    index = CrmGraphIndex.load(args.index)
    questions = read_jsonl(DEV_QUESTIONS)
    report: dict[str, Any] = {"index": str(args.index), "questions": str(DEV_QUESTIONS),
                              "variants": {}}
    for name, overrides in VARIANTS.items():
        patch_rrf(overrides)
        pipeline = index.as_query_pipeline()
        rows, _, _ = run_questions(pipeline, questions)
        results = RESULTS / f"rrf_{name.replace('=', '_').replace(',', '-')}.results.jsonl"
        write_jsonl(results, rows)
        scored = score(DEV_QUESTIONS, results)
        results.unlink()
        overall = scored.get("overall", scored)
        report["variants"][name] = {"overrides": overrides, "overall": overall,
                                    "by_type": scored.get("by_type")}
        print(f"{name:12} " + "  ".join(f"{m} {overall.get(m, float('nan')):.3f}"
                                        for m in METRICS if isinstance(overall.get(m), float)),
              flush=True)
    args.output.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
