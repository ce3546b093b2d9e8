"""Answer quality on the YCBA dev set (ours vs the plain-LlamaIndex baseline) and query latency.

Quality: the 60 dev questions go through :class:`CrmQueryPipeline` exactly as
``crm-rag query --index I --questions ycba_dev.jsonl --out R`` sends them (follow-up turns get
the previous turn's question and top document label as history; no LLM, so the answer is the
structured one built from documents and triples). The results file is scored with
``shared/eval/score.py --json --by hops --by template``; the baseline's per-question results
(``ycba_dev.baseline_hybrid.results.jsonl``) are scored by the same scorer in the same run,
and both are printed next to the figures published in ``shared/eval/README.md``.

Latency: per question, retrieval + context + structured answer (``CrmAnswer.latency_s``, no
LLM), after the pipeline is constructed and warmed with a few questions that are not timed.
Pass 1 is each question's first sight (node and label caches cold for its documents); pass 2
repeats the set. Wall and process-CPU milliseconds are both reported: on a shared 2-core
machine the wall time includes waiting for a core. YCBA uses the dev questions; NMWA and NPG,
which have no question set, use questions generated from the index with a fixed seed
(:func:`generate_questions`), saved next to the results.

Before each timed run the script waits until the 1-minute load average is below 1.2 (polling
every 10 s, for at most ``--max-wait`` seconds) and records the load it ran under.

Usage::

    python benchmarks/query.py                  # indexes in /tmp/bench_idx/{ycba,nmwa,npg}
    python benchmarks/query.py --quick          # YCBA only, one pass, 20 generated questions
    python benchmarks/query.py --datasets ycba,nmwa --build   # build missing indexes first

Writes ``benchmarks/results/query.json`` (``--quick``: ``query_quick.json``), the results
file ``query_ycba_dev.results.jsonl`` and the generated question files
``query_<dataset>_questions.jsonl``.
"""

from __future__ import annotations

import argparse
import cProfile
import glob
import io
import json
import math
import os
import pstats
import random
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from _machine import machine_info, wait_for_quiet  # noqa: E402  (beside this script)

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
EVAL = SHARED / "eval"
RESULTS = ROOT / "benchmarks" / "results"
INDEX_ROOT = Path("/tmp/bench_idx")
DATASET_FILES: dict[str, list[str]] = {
    "ycba": [str(SHARED / "datasets" / "ycba" / "ycba_data.n3.zip")],
    "nmwa": [str(SHARED / "datasets" / "nmwa" / "consolidated_data.n3.zip")],
    "npg": sorted(glob.glob(str(SHARED / "datasets" / "npg" / "*.n3.zip"))),
}
DEV_QUESTIONS = EVAL / "ycba_dev.jsonl"
BASELINE_RESULTS = EVAL / "ycba_dev.baseline_hybrid.results.jsonl"
SCORER = EVAL / "score.py"
LOAD_THRESHOLD = 1.2
POLL_S = 10.0
WARMUP_QUESTIONS = 5
TARGETS_MS: dict[str, dict[str, float]] = {
    "ycba": {"median": 100.0, "p95": 250.0},
    "nmwa": {"median": 100.0, "p95": 250.0},
    "npg": {"median": 300.0},
}
"""Latency targets (wall milliseconds per question)."""

BASELINE_README: dict[str, dict[str, dict[str, float]]] = {
    "by_type": {
        "specific": {"n": 39, "R@k": 0.859, "R@10": 0.859, "Hit@10": 1.000, "MRR@10": 0.654,
                     "CtxAR": 0.846, "AnsAR": 0.0, "p50": 0.020, "p95": 0.028},
        "enumeration": {"n": 13, "R@k": 0.274, "R@10": 0.231, "Hit@10": 0.846,
                        "MRR@10": 0.494, "CtxAR": 0.814, "AnsAR": 0.0, "p50": 0.026,
                        "p95": 0.035},
        "aggregation": {"n": 8, "R@k": 0.248, "R@10": 0.252, "Hit@10": 1.000,
                        "MRR@10": 0.417, "AnsAR": 0.0, "CountEM": 0.0, "p50": 0.020,
                        "p95": 0.024},
        "ALL": {"n": 60, "R@k": 0.651, "R@10": 0.642, "Hit@10": 0.967, "MRR@10": 0.588,
                "CtxAR": 0.838, "AnsAR": 0.0, "CountEM": 0.0, "p50": 0.020, "p95": 0.028},
    },
    "by_hops": {
        "1": {"n": 8, "R@k": 0.750, "R@10": 0.688, "Hit@10": 0.750, "MRR@10": 0.500,
              "CtxAR": 0.875, "AnsAR": 0.0, "p50": 0.025, "p95": 0.035},
        "2": {"n": 22, "R@k": 0.449, "R@10": 0.449, "Hit@10": 1.000, "MRR@10": 0.636,
              "CtxAR": 0.931, "AnsAR": 0.0, "CountEM": 0.0, "p50": 0.020, "p95": 0.028},
        "3": {"n": 23, "R@k": 0.935, "R@10": 0.935, "Hit@10": 1.000, "MRR@10": 0.652,
              "CtxAR": 0.783, "AnsAR": 0.0, "p50": 0.020, "p95": 0.028},
        "4": {"n": 7, "R@k": 0.237, "R@10": 0.237, "Hit@10": 1.000, "MRR@10": 0.321,
              "CtxAR": 0.688, "AnsAR": 0.0, "CountEM": 0.0, "p50": 0.021, "p95": 0.022},
    },
}
"""The hybrid baseline's dev-set figures as published in shared/eval/README.md."""

COMPARED = ("R@k", "R@10", "Hit@10", "MRR@10", "CtxAR", "CtxAR@16k", "AnsAR", "CountEM")
README_KEYS = {"R@k": "R@k", "R@10": "R@10", "Hit@10": "Hit@10", "MRR@10": "MRR@10",
               "CtxAR": "CtxAR", "AnsAR": "AnsAR", "CountEM": "CountEM"}


# -- machine ---------------------------------------------------------------------------------
class SampledRdfSource:
    """An :class:`RdfFileSource` whose entities are every ``stride``-th of the graph's.

    Neighbourhoods are fetched from the whole graph, so the sampled entities' documents are
    the ones the full build writes (chaining aside); only fewer documents are built. Used to
    measure NPG retrieval on a part of it when the whole would take hours to build.
    """

    def __init__(self, files: Sequence[str], stride: int) -> None:
        from llama_index_crm.sources import RdfFileSource

        self.files = list(files)
        self.stride = stride
        self.inner = RdfFileSource(self.files)

    def describe(self) -> str:
        """The inner source's name, with the sampling."""
        return f"{self.inner.describe()} (every {self.stride}th entity)"

    def entities(self) -> list[str]:
        """Every ``stride``-th entity, in the inner source's (sorted) order."""
        return self.inner.entities()[:: self.stride]

    def fetch(self, nodes: Sequence[str], *, incoming: bool = True) -> list[Any]:
        """Triples from the whole graph."""
        return self.inner.fetch(nodes, incoming=incoming)

    def close(self) -> None:
        """Close the inner source."""
        self.inner.close()

    def factory(self) -> Any:
        """A picklable recipe for worker processes."""
        import functools

        return functools.partial(SampledRdfSource, self.files, self.stride)


def open_index(name: str, folder: Path, build: bool, stride: int = 1) -> Any:
    """Load the index of dataset ``name`` from ``folder``.

    With ``build``, a missing or outdated folder is (re)built first, untimed (``stride``:
    only every ``stride``-th entity, see :class:`SampledRdfSource`).
    """
    from llama_index_crm.errors import IndexFormatError
    from llama_index_crm.index import CrmGraphIndex

    try:
        return CrmGraphIndex.load(folder)
    except IndexFormatError as exc:
        if not build:
            raise SystemExit(f"{exc} (or pass --build)") from exc
    from llama_index_crm.sources import RdfFileSource

    print(f"building {name} into {folder} (untimed) ...", file=sys.stderr, flush=True)
    source: Any = SampledRdfSource(DATASET_FILES[name], stride) if stride > 1 else \
        RdfFileSource(DATASET_FILES[name])
    try:
        started = time.perf_counter()
        last = [started]

        def progress(done: int, total: int) -> None:
            now = time.perf_counter()
            if now - last[0] > 60 or done == total:
                last[0] = now
                print(f"  [{now - started:.0f} s] {done:,}/{total:,}", file=sys.stderr,
                      flush=True)

        index = CrmGraphIndex.build(source, folder, workers=2, on_chunk=progress,
                                    on_embedded=progress)
    finally:
        source.close()
    print(f"built {name}: {len(index.doc_ids):,} documents in "
          f"{time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    return index


# -- questions -------------------------------------------------------------------------------
def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The objects of a JSONL file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def write_jsonl(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    """Write ``rows`` as JSONL."""
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")


_USABLE = re.compile(r"^[^\n\"…]{3,90}$")
GENERIC_TITLES = frozenset({"untitled", "unknown", "no title", "[untitled]", "untitled."})


def generate_questions(index: Any, dataset: str, n: int, seed: int) -> list[dict[str, Any]]:
    """``n`` questions about random documents of ``index`` with a unique label (fixed seed).

    Three fifths are about objects (Thing documents of a ``…Object`` class, or any
    non-metadata Thing when there are too few): "Who made …?", "When was … made?",
    "Tell me about ….". Two fifths are about actors linked to at least one work by the FR
    graph: "Which works by … are in the collection?", "How many works by … are in the
    collection?".
    """
    from llama_index_crm.index import METADATA_CLASSES

    meta = index.meta
    counts: dict[str, int] = {}
    for label in meta.labels:
        key = label.casefold().strip()
        counts[key] = counts.get(key, 0) + 1

    def unique(row: int) -> bool:
        label = meta.labels[row].strip()
        key = label.casefold()
        return (counts.get(key) == 1 and key not in GENERIC_TITLES
                and _USABLE.match(label) is not None and not label.startswith("http"))

    things = [r for r, (cat, classes) in enumerate(zip(meta.categories, meta.classes,
                                                       strict=True))
              if cat == "Thing" and any(c.endswith("Object") and c not in METADATA_CLASSES
                                        for c in classes) and unique(r)]
    if len(things) < n:
        things = [r for r, (cat, classes) in enumerate(zip(meta.categories, meta.classes,
                                                           strict=True))
                  if cat == "Thing" and not set(classes) & METADATA_CLASSES and unique(r)]
    actors = [r for r, cat in enumerate(meta.categories) if cat == "Actor" and unique(r)]
    rng = random.Random(seed)
    rng.shuffle(things)
    rng.shuffle(actors)
    n_actor = n * 2 // 5
    chosen_actors: list[int] = []
    for row in actors:  # only actors with works: the questions should have answers
        if len(chosen_actors) == n_actor:
            break
        if index.fr_links(index.doc_ids[row]):
            chosen_actors.append(row)
    chosen_things = things[: n - len(chosen_actors)]
    thing_templates = ("Who made \"{}\"?", "When was \"{}\" made?", "Tell me about \"{}\".")
    actor_templates = ("Which works by {} are in the collection?",
                       "How many works by {} are in the collection?")
    names = ("creator", "production_year", "about_object")
    questions: list[dict[str, Any]] = []
    for i, row in enumerate(chosen_things):
        questions.append({"template": names[i % 3], "type": "specific",
                          "question": thing_templates[i % 3].format(meta.labels[row].strip()),
                          "anchor": index.doc_ids[row]})
    for i, row in enumerate(chosen_actors):
        questions.append({"template": ("works_by_artist", "count_works_by_artist")[i % 2],
                          "type": ("enumeration", "aggregation")[i % 2],
                          "question": actor_templates[i % 2].format(meta.labels[row].strip()),
                          "anchor": index.doc_ids[row]})
    rng.shuffle(questions)
    return [{"id": f"{dataset}-gen-{i + 1:03d}", "dataset": dataset, **q, "turn_of": None}
            for i, q in enumerate(questions)]


def warmup_questions(index: Any, dataset: str, timed: Sequence[dict[str, Any]], seed: int
                     ) -> list[dict[str, Any]]:
    """A few generated questions about entities none of the ``timed`` questions names."""
    texts = " ".join(q["question"].casefold() for q in timed)
    anchors = {q.get("anchor") for q in timed}
    pool = generate_questions(index, dataset, WARMUP_QUESTIONS * 6, seed)
    fresh = [q for q in pool if q["anchor"] not in anchors
             and index.meta.labels[index.row_of[q["anchor"]]].casefold().strip() not in texts]
    return fresh[:WARMUP_QUESTIONS]


# -- running ---------------------------------------------------------------------------------
def run_questions(pipeline: Any, questions: Sequence[dict[str, Any]]
                  ) -> tuple[list[dict[str, Any]], list[float], list[float]]:
    """Answer every question as ``crm-rag query`` does; results, wall ms and CPU ms."""
    histories: dict[str, list[tuple[str, str]]] = {}
    rows: list[dict[str, Any]] = []
    walls: list[float] = []
    cpus: list[float] = []
    for q in questions:
        history = histories.get(q["turn_of"], []) if q.get("turn_of") else []
        cpu = time.process_time()
        answer = pipeline.run(q["question"], history)
        cpus.append((time.process_time() - cpu) * 1000.0)
        walls.append(answer.latency_s * 1000.0)
        top = answer.nodes[0].node.metadata.get("label", "") if answer.nodes else ""
        histories[q["id"]] = [*history, (q["question"], str(top))]
        rows.append({"id": q["id"], "retrieved": answer.retrieved(), "context": answer.context,
                     "answer": answer.answer, "count": answer.count,
                     "latency_s": round(answer.latency_s, 4)})
    return rows, walls, cpus


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0–100) of ``values``, nearest rank (as ``score.py`` computes it)."""
    ranked = sorted(values)
    idx = max(0, min(len(ranked) - 1, math.ceil(q / 100.0 * len(ranked)) - 1))
    return ranked[idx]


def summary(walls: Sequence[float], cpus: Sequence[float]) -> dict[str, float]:
    """Median / p95 / max of wall and CPU milliseconds."""
    return {"n": len(walls), "median_ms": round(statistics.median(walls), 1),
            "p95_ms": round(percentile(walls, 95), 1), "max_ms": round(max(walls), 1),
            "cpu_median_ms": round(statistics.median(cpus), 1),
            "cpu_p95_ms": round(percentile(cpus, 95), 1)}


def profile_questions(pipeline: Any, questions: Sequence[dict[str, Any]], top: int = 20
                      ) -> dict[str, str]:
    """cProfile of answering ``questions``: the ``top`` lines by cumulative and own time."""
    profiler = cProfile.Profile()
    profiler.enable()
    run_questions(pipeline, questions)
    profiler.disable()
    out: dict[str, str] = {}
    for key in ("cumulative", "tottime"):
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats(key).print_stats(top)
        out[key] = text.getvalue()
    return out


def stage_times(pipeline: Any, questions: Sequence[dict[str, Any]]
                ) -> dict[str, dict[str, float]]:
    """Median wall and CPU milliseconds of each stage: plan (by an analyzer without a plan
    cache), query embedding, pool (including the embedding), coherent subgraph, triple
    context, structured answer."""
    from llama_index.core.schema import MetadataMode, QueryBundle

    from llama_index_crm.query.analysis import RuleBasedAnalyzer
    from llama_index_crm.query.answer import structured_answer

    uncached = RuleBasedAnalyzer.for_index(pipeline.index, cache_size=0)
    names = ("plan", "embed_query", "pool", "coherent", "context", "answer")
    wall: dict[str, list[float]] = {k: [] for k in names}
    cpu: dict[str, list[float]] = {k: [] for k in names}

    def clock() -> tuple[float, float]:
        return time.perf_counter(), time.process_time()

    for q in questions:
        if q.get("turn_of"):
            continue
        marks = [clock()]
        uncached.analyze(q["question"], [])  # the pipeline's analyzer has the plan cached
        marks.append(clock())
        plan = pipeline.plan(q["question"], [])
        pipeline.index.embed_query(plan.query)
        marks.append(clock())
        bundle = QueryBundle(query_str=plan.query)
        pool = pipeline.retriever.retrieve(bundle)
        marks.append(clock())
        selected = pipeline.coherent.postprocess_nodes(pool, query_bundle=bundle)
        marks.append(clock())
        nodes = pipeline.context_builder.postprocess_nodes(selected, query_bundle=bundle)
        "\n\n".join(n.node.get_content(metadata_mode=MetadataMode.LLM) for n in nodes)
        marks.append(clock())
        structured_answer(plan, nodes, pipeline.index.fr_links, pipeline.describe)
        marks.append(clock())
        for i, key in enumerate(names):
            wall[key].append((marks[i + 1][0] - marks[i][0]) * 1000.0)
            cpu[key].append((marks[i + 1][1] - marks[i][1]) * 1000.0)
    return {"wall": {k: round(statistics.median(v), 1) for k, v in wall.items() if v},
            "cpu": {k: round(statistics.median(v), 1) for k, v in cpu.items() if v}}


def latency_run(name: str, index: Any, questions: Sequence[dict[str, Any]],
                warmup: Sequence[dict[str, Any]], passes: int, max_wait: float
                ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Construct and warm the pipeline, then time ``passes`` passes over ``questions``."""
    from llama_index_crm.query.engine import CrmQueryPipeline

    started = time.perf_counter()
    pipeline = CrmQueryPipeline(index)
    construct_s = time.perf_counter() - started
    run_questions(pipeline, warmup)
    out: dict[str, Any] = {"documents": len(index.doc_ids), "questions": len(questions),
                           "pipeline_construct_s": round(construct_s, 2),
                           "warmup_questions": len(warmup), "passes": []}
    first_rows: list[dict[str, Any]] = []
    for p in range(passes):  # the passes follow each other: one wait per dataset
        quiet = wait_for_quiet(max_wait if p == 0 else 0.0)
        rows, walls, cpus = run_questions(pipeline, questions)
        if p == 0:
            first_rows = rows
        entry = {"pass": p + 1, **summary(walls, cpus), "load_before": quiet,
                 "load_after_1m": round(os.getloadavg()[0], 2)}
        by_type: dict[str, dict[str, float]] = {}
        for kind in sorted({str(q.get("type")) for q in questions}):
            sel = [i for i, q in enumerate(questions) if str(q.get("type")) == kind]
            by_type[kind] = summary([walls[i] for i in sel], [cpus[i] for i in sel])
        entry["by_type"] = by_type
        out["passes"].append(entry)
        print(f"  {name} pass {p + 1}: median {entry['median_ms']:.1f} ms, p95 "
              f"{entry['p95_ms']:.1f} ms, max {entry['max_ms']:.1f} ms (cpu median "
              f"{entry['cpu_median_ms']:.1f} ms) under load {quiet['load_1m']}",
              file=sys.stderr, flush=True)
    out["stage_median_ms"] = stage_times(pipeline, questions)
    target = TARGETS_MS.get(name, {})
    first = out["passes"][0]
    out["targets_ms"] = target
    out["met"] = {k: bool(first[f"{k}_ms"] < v) for k, v in target.items()}
    if not all(out["met"].values()):
        out["profile_top"] = profile_questions(pipeline, questions)
    return out, first_rows


# -- scoring ---------------------------------------------------------------------------------
def score(questions: Path, results: Path) -> dict[str, Any]:
    """``score.py --json --by hops --by template`` of a results file."""
    proc = subprocess.run([sys.executable, str(SCORER), str(questions), str(results), "--json",
                           "--by", "hops", "--by", "template"],
                          check=True, capture_output=True, text=True)
    report: dict[str, Any] = json.loads(proc.stdout)
    return report


def fmt(v: Any) -> str:
    """A metric for a table cell."""
    return "-" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)


def slices(report: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(group, slice name, aggregate) rows: by type, ALL, by hops."""
    rows = [("by_type", t, a) for t, a in report["by_type"].items()]
    rows.append(("by_type", "ALL", report["overall"]))
    rows += [("by_hops", h, a) for h, a in report.get("by_hops", {}).items()]
    return rows


def comparison_table(ours: dict[str, Any], base: dict[str, Any]) -> list[str]:
    """Markdown rows: each metric as ours / baseline (rescored here) per slice."""
    head = ["slice", "n", *COMPARED, "ctx kch", "p50 s", "p95 s"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    base_rows = {(g, s): a for g, s, a in slices(base)}
    for group, name, agg in slices(ours):
        b = base_rows.get((group, name), {})
        label = name if group == "by_type" else f"hops={name}"
        cells = [label, str(agg["n"])]
        cells += [f"**{fmt(agg.get(m))}** / {fmt(b.get(m))}" for m in COMPARED]
        cells += [f"**{fmt(agg.get(k))}** / {fmt(b.get(k))}"
                  for k in ("ctx_kchars_p50", "latency_p50_s", "latency_p95_s")]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def readme_check(base: dict[str, Any]) -> list[dict[str, Any]]:
    """Differences between the rescored baseline and the figures in the README (> 0.001)."""
    diffs = []
    rescored = {(g, s): a for g, s, a in slices(base)}
    for group, rows in BASELINE_README.items():
        for name, figures in rows.items():
            agg = rescored.get((group, name), {})
            for key, readme_key in README_KEYS.items():
                if readme_key in figures and agg.get(key) is not None \
                        and abs(float(agg[key]) - figures[readme_key]) > 0.001:
                    diffs.append({"slice": f"{group}:{name}", "metric": key,
                                  "readme": figures[readme_key], "rescored": agg[key]})
    return diffs


def print_quality(ours: dict[str, Any], base: dict[str, Any]) -> None:
    """The side-by-side table on stdout."""
    print("\nYCBA dev set: ours / hybrid baseline (same scorer, same run)")
    head = f"{'slice':<12}{'n':>4}" + "".join(f"{m:>17}" for m in COMPARED) + \
        f"{'ctx kch':>15}"
    print(head)
    base_rows = {(g, s): a for g, s, a in slices(base)}
    for group, name, agg in slices(ours):
        b = base_rows.get((group, name), {})
        label = name if group == "by_type" else f"hops={name}"
        cells = "".join(f"{fmt(agg.get(m)) + ' / ' + fmt(b.get(m)):>17}" for m in COMPARED)
        ctx = f"{fmt(agg.get('ctx_kchars_p50'))} / {fmt(b.get('ctx_kchars_p50'))}"
        print(f"{label:<12}{agg['n']:>4}{cells}{ctx:>15}")


def print_latency(latency: dict[str, Any]) -> None:
    """The latency table on stdout."""
    print("\nLatency per question (ms, wall; cpu = process CPU), pipeline warmed")
    print(f"{'dataset':<8}{'docs':>9}{'qs':>5}{'pass':>5}{'median':>9}{'p95':>9}{'max':>9}"
          f"{'cpu med':>9}{'load':>7}  target")
    for name, res in latency.items():
        if "passes" not in res:
            print(f"{name:<8}  {res.get('skipped', '')}")
            continue
        for p in res["passes"]:
            target = ", ".join(f"{k} < {v:.0f}" for k, v in res["targets_ms"].items())
            met = "" if p["pass"] > 1 else \
                ("met" if all(res["met"].values()) else "MISSED") + f" ({target})"
            print(f"{name:<8}{res['documents']:>9,}{res['questions']:>5}{p['pass']:>5}"
                  f"{p['median_ms']:>9.1f}{p['p95_ms']:>9.1f}{p['max_ms']:>9.1f}"
                  f"{p['cpu_median_ms']:>9.1f}{p['load_before']['load_1m']:>7.2f}  {met}")
        for kind in ("wall", "cpu"):
            stages = ", ".join(f"{k} {v:.1f}" for k, v in res["stage_median_ms"][kind].items())
            print(f"{'':<8}stage medians, {kind} ms: {stages}")


# -- main ------------------------------------------------------------------------------------
def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and write the results."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--datasets", default="ycba,nmwa,npg",
                        help="comma-separated: ycba (quality + latency), nmwa, npg (latency)")
    for name in DATASET_FILES:
        parser.add_argument(f"--{name}-index", type=Path, default=INDEX_ROOT / name,
                            help=f"the {name.upper()} index folder")
    parser.add_argument("--build", action="store_true",
                        help="build missing or outdated indexes first (untimed)")
    parser.add_argument("--npg-stride", type=int, default=1,
                        help="build NPG from every n-th entity only (the whole takes hours)")
    parser.add_argument("--prepare-only", action="store_true",
                        help="build/check the indexes and stop")
    parser.add_argument("--questions", type=int, default=60,
                        help="generated questions per dataset without a question set")
    parser.add_argument("--passes", type=int, default=2, help="timed passes over each set")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--max-wait", type=float, default=900.0,
                        help="seconds to wait for the load to fall before each timed run")
    parser.add_argument("--quick", action="store_true",
                        help="YCBA only, one pass, no load wait beyond 60 s")
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args(argv)
    datasets = ["ycba"] if args.quick else [d.strip() for d in args.datasets.split(",") if d]
    passes = 1 if args.quick else args.passes
    max_wait = min(args.max_wait, 60.0) if args.quick else args.max_wait
    output = args.output or RESULTS / ("query_quick.json" if args.quick else "query.json")
    RESULTS.mkdir(parents=True, exist_ok=True)

    report: dict[str, Any] = {"machine": machine_info(), "quick": args.quick,
                              "seed": args.seed, "commands": {}, "latency": {}}
    for name in datasets:
        folder: Path = getattr(args, f"{name}_index")
        try:
            index = open_index(name, folder, args.build,
                               args.npg_stride if name == "npg" else 1)
        except Exception as exc:  # report the dataset as skipped, run the others
            report["latency"][name] = {"skipped": f"{type(exc).__name__}: {exc}"}
            print(f"{name}: skipped ({exc})", file=sys.stderr)
            continue
        if args.prepare_only:
            print(f"{name}: {len(index.doc_ids):,} documents in {folder}", file=sys.stderr)
            continue
        generated = generate_questions(index, name, args.questions, args.seed)
        gen_file = RESULTS / f"query_{name}_questions.jsonl"
        if not args.quick and name != "ycba":  # YCBA is timed on its dev questions
            write_jsonl(gen_file, generated)
        questions = read_jsonl(DEV_QUESTIONS) if name == "ycba" else generated
        warmup = warmup_questions(index, name, questions, args.seed + 1)
        print(f"{name}: {len(index.doc_ids):,} documents, {len(questions)} questions",
              file=sys.stderr, flush=True)
        lat, rows = latency_run(name, index, questions, warmup, passes, max_wait)
        lat["question_file"] = str(DEV_QUESTIONS if name == "ycba" else gen_file)
        lat["manifest_counts"] = index.manifest.get("counts", {})
        report["latency"][name] = lat
        if name == "ycba":
            results_file = RESULTS / ("query_ycba_dev.results.jsonl" if not args.quick
                                      else "query_quick_ycba_dev.results.jsonl")
            write_jsonl(results_file, rows)
            ours = score(DEV_QUESTIONS, results_file)
            base = score(DEV_QUESTIONS, BASELINE_RESULTS)
            report["quality"] = {
                "results_file": str(results_file), "ours": ours, "baseline_rescored": base,
                "baseline_readme": BASELINE_README,
                "baseline_rescored_vs_readme": readme_check(base),
                "table_markdown": comparison_table(ours, base),
            }
            report["commands"]["quality"] = (
                f"crm-rag query --index {folder} --questions {DEV_QUESTIONS} "
                f"--out {results_file}; python {SCORER} {DEV_QUESTIONS} {results_file} "
                "--json --by hops --by template")
            print_quality(ours, base)
        del index
    if args.prepare_only:
        return 0
    report["machine_end"] = machine_info()
    print_latency(report["latency"])
    output.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    print(f"\nwrote {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
