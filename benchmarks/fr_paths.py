"""FR paths longer than the fetched hops: lazy fetch rounds versus SPARQL property paths.

Two ways to complete the TR-429 paths of every entity of a graph:

* ``walk``: the build's way. Chunks of 1,000 entities; fetch their triples, walk their FRs in
  memory (:class:`FRWalker`), fetch whatever the walks met but lacked (further hops), walk
  again, until nothing is missing (``DocumentBuilder._process_chunk`` without the documents).
  ``chunks`` times ``_process_chunk`` itself (walks and documents) for scale.
* ``sparql-<granularity>``: :func:`fr_matches` over batches of 1,000 entities of one category
  (categories from ``rdf:type``), one query per FR path, per FR or per category.

Each variant runs from RDF files in process (``-files``) or from ``oxigraph serve`` holding
the same graph (``-endpoint``), in its own process with a time limit, and reports the time
after the graph is loaded (entity list, categories and vocabulary included). The FR targets
of every entity are fingerprinted, and each variant is compared with ``walk-files``: the
documents must not depend on the choice.

Usage::

    python benchmarks/fr_paths.py              # NPG and YCBA, every variant
    python benchmarks/fr_paths.py --quick      # YCBA only
    python benchmarks/fr_paths.py --variants walk-files,sparql-fr-files --cap-minutes 5

Figures are printed and written to ``benchmarks/results/fr_paths.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import pyoxigraph as ox

from llama_index_crm.build.builder import MAX_ROUNDS, DocumentBuilder
from llama_index_crm.build.neighbourhood import Neighbourhood
from llama_index_crm.build.traversal import FRWalker
from llama_index_crm.ontology import Ontology
from llama_index_crm.sources import RdfFileSource, SparqlEndpointSource
from llama_index_crm.sources.base import GraphSource
from llama_index_crm.sources.fr_sparql import (
    FRQueryCompiler,
    Granularity,
    GraphVocabulary,
    endpoint_select,
    fr_matches,
    store_select,
)
from llama_index_crm.sources.oxigraph_server import OxigraphServer

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "datasets"
RESULTS = ROOT / "benchmarks" / "results" / "fr_paths.json"
DATASETS: dict[str, list[Path]] = {
    "npg": sorted((SHARED / "npg").glob("*.n3.zip")),
    "ycba": [SHARED / "ycba" / "ycba_data.n3.zip"],
}
VARIANTS = ("walk-files", "chunks-files", "sparql-path-files", "sparql-fr-files",
            "sparql-category-files", "walk-endpoint", "sparql-path-endpoint",
            "sparql-fr-endpoint")
REFERENCE = "walk-files"
BATCH = 1000
CAP_MINUTES = 15.0
"""Time limit of one variant (after loading)."""
LOAD_GRACE_S = 120.0
"""Extra seconds a variant's process may take to start and load the graph."""
SERVER_STARTUP_S = 60.0
"""How long ``oxigraph serve`` may take to answer its first query."""

Targets = dict[str, set[str]]


def _digest(matches: Targets) -> str:
    """A fingerprint of one entity's FR targets (blank node labels differ across stores)."""
    items = sorted((fr, sorted("_:" if t.startswith("_:") else t for t in targets))
                   for fr, targets in matches.items() if targets)
    return hashlib.blake2b(json.dumps(items).encode(), digest_size=12).hexdigest()


class _Clock:
    """Elapsed time and the variant's deadline."""

    def __init__(self, cap_s: float) -> None:
        self.start = time.perf_counter()
        self.cap_s = cap_s

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def over(self) -> bool:
        return self.elapsed > self.cap_s


# -- the variants (run in a child process) ---------------------------------------------------
def _walk(source: GraphSource, onto: Ontology, clock: _Clock) -> dict[str, Any]:
    """Lazy fetch rounds per chunk, as ``DocumentBuilder._process_chunk``, walks only."""
    walker = FRWalker(onto)
    entities = source.entities()
    digests: dict[str, str] = {}
    done = rounds = targets = incomplete = 0
    for i in range(0, len(entities), BATCH):
        if clock.over():
            break
        chunk = entities[i:i + BATCH]
        nb = Neighbourhood(onto)
        nb.add(source.fetch(chunk, incoming=True), complete=chunk)
        found: dict[str, Targets] = {}
        pending = list(chunk)
        for _ in range(MAX_ROUNDS):
            rounds += 1
            retry: list[str] = []
            for uri in pending:
                category = nb.category(uri)
                if category is None:
                    continue
                nb.missed = False
                found[uri] = {m.fr.id: set(m.targets) for m in walker.walk(nb, uri, category)}
                if nb.missed:
                    retry.append(uri)
            if not nb.has_missing:
                break
            nb.fetch_missing(source)
            pending = retry
        else:
            incomplete += len(pending)
        for uri, matches in found.items():
            if matches:
                digests[uri] = _digest(matches)
                targets += sum(len(t) for t in matches.values())
        done += len(chunk)
    return {"entities": len(entities), "done": done, "fetch_rounds": rounds,
            "targets": targets, "incomplete": incomplete, "digests": digests}


def _chunks(source: GraphSource, onto: Ontology, clock: _Clock) -> dict[str, Any]:
    """``DocumentBuilder._process_chunk`` over every chunk (walks and documents)."""
    with tempfile.TemporaryDirectory() as tmp:
        builder = DocumentBuilder(source, Path(tmp), ontology=onto, chunk_size=BATCH)
        entities = builder.entities()
        done = rounds = documents = 0
        for i in range(0, len(entities), BATCH):
            if clock.over():
                break
            result, _ = builder._process_chunk(entities[i:i + BATCH])
            done += min(BATCH, len(entities) - i)
            rounds += result.rounds
            documents += len(result.documents)
    return {"entities": len(entities), "done": done, "fetch_rounds": rounds,
            "documents": documents}


def _sparql(source: GraphSource, onto: Ontology, clock: _Clock,
            granularity: Granularity) -> dict[str, Any]:
    """:func:`fr_matches` over batches of one category."""
    if isinstance(source, RdfFileSource):
        select = store_select(source.store)
    else:
        select = endpoint_select(cast(SparqlEndpointSource, source))
    entities = source.entities()
    types: dict[str, set[str]] = {}
    for s, c in select("SELECT ?s ?c WHERE { ?s a ?c }", ("s", "c")):
        if isinstance(s, str) and isinstance(c, str):
            types.setdefault(s, set()).add(c)
    by_category: dict[str, list[str]] = {}
    for entity in entities:
        category = onto.category(types.get(entity, ()))
        if category:
            by_category.setdefault(category, []).append(entity)
    compiler = FRQueryCompiler(onto, GraphVocabulary.from_select(select))
    setup = clock.elapsed
    digests: dict[str, str] = {}
    done = queries = targets = 0
    for category, members in by_category.items():
        queries_per_batch = len(compiler.queries(category, granularity))
        for i in range(0, len(members), BATCH):
            if clock.over():
                break
            batch = members[i:i + BATCH]
            found = fr_matches(select, batch, category, onto, compiler=compiler,
                               granularity=granularity)
            for uri, matches in found.items():
                digests[uri] = _digest(matches)
                targets += sum(len(t) for t in matches.values())
            done += len(batch)
            queries += queries_per_batch
    return {"entities": len(entities), "categorised": sum(map(len, by_category.values())),
            "done": done, "queries": queries, "targets": targets,
            "setup_seconds": round(setup, 2), "digests": digests}


def run_child(variant: str, files: Sequence[str], url: str | None, cap_s: float,
              out: Path) -> None:
    """Run one variant and write its figures (and fingerprints) to ``out`` as JSON."""
    onto = Ontology.default()
    started = time.perf_counter()
    source: GraphSource = SparqlEndpointSource(url, timeout=600) if url else RdfFileSource(files)
    load = time.perf_counter() - started
    usage = resource.getrusage(resource.RUSAGE_SELF)
    load_cpu = usage.ru_utime + usage.ru_stime
    clock = _Clock(cap_s)
    kind = variant.rsplit("-", 1)[0]
    if kind == "walk":
        result = _walk(source, onto, clock)
    elif kind == "chunks":
        result = _chunks(source, onto, clock)
    else:
        result = _sparql(source, onto, clock, cast(Granularity, kind.split("-")[1]))
    seconds = clock.elapsed
    finished = result["done"] >= result.get("categorised", result["entities"])
    usage = resource.getrusage(resource.RUSAGE_SELF)
    result.update(
        seconds=round(seconds, 2), load_seconds=round(load, 2),
        cpu_seconds=round(usage.ru_utime + usage.ru_stime - load_cpu, 2),
        load_average=round(os.getloadavg()[0], 1),
        status="ok" if finished else f"did not finish in {cap_s:.0f} s",
        peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1))
    out.write_text(json.dumps(result))


# -- the parent ---------------------------------------------------------------------------
def _dump_graph(files: Sequence[Path], dump: Path) -> None:
    """The graph of ``files`` as the file source reads it, written as N-Quads to ``dump``."""
    with RdfFileSource(files) as source:
        source.store.dump(str(dump), ox.RdfFormat.N_QUADS)


def run_variant(variant: str, files: Sequence[Path], url: str | None, cap_s: float,
                workdir: Path) -> tuple[dict[str, Any], dict[str, str]]:
    """Run one variant in a child process with a hard time limit."""
    out = workdir / f"{variant}.json"
    cmd = [sys.executable, __file__, "--child", variant, "--cap-minutes", str(cap_s / 60),
           "--out", str(out), *(["--url", url] if url else []), *map(str, files)]
    started = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=cap_s + LOAD_GRACE_S)
    except subprocess.TimeoutExpired:
        return {"status": f"did not finish in {cap_s:.0f} s (stopped)",
                "wall_seconds": round(time.perf_counter() - started, 1)}, {}
    if proc.returncode != 0 or not out.exists():
        return {"status": "failed", "stderr": proc.stderr.strip().splitlines()[-5:]}, {}
    result: dict[str, Any] = json.loads(out.read_text())
    digests: dict[str, str] = result.pop("digests", {})
    if digests:
        text = json.dumps(sorted(digests.items())).encode()
        result["fingerprint"] = hashlib.blake2b(text, digest_size=12).hexdigest()
    return result, digests


def _agreement(reference: dict[str, str], other: dict[str, str]) -> dict[str, Any]:
    keys = set(reference) | set(other)
    differ = sorted(k for k in keys if reference.get(k) != other.get(k))
    return {"entities_with_targets": len(other), "differing_entities": len(differ),
            "examples": differ[:5]}


def run_dataset(name: str, variants: Sequence[str], cap_s: float,
                report: dict[str, Any]) -> dict[str, Any]:
    """Run variants on one dataset into ``report`` (earlier figures of others are kept)."""
    files = DATASETS[name]
    report["files"] = [f.name for f in files]
    report.setdefault("variants", {})
    digests: dict[str, dict[str, str]] = {}
    with tempfile.TemporaryDirectory(prefix="fr_paths_") as tmp:
        workdir = Path(tmp)
        local = [v for v in variants if v.endswith("-files")]
        remote = [v for v in variants if v.endswith("-endpoint")]
        for variant in local:
            report["variants"][variant], digests[variant] = run_variant(
                variant, files, None, cap_s, workdir)
            _print_row(name, variant, report["variants"][variant])
        if remote:
            dump = workdir / "graph.nq"
            try:
                server = OxigraphServer([dump], workdir, startup_timeout_s=SERVER_STARTUP_S)
                _dump_graph(files, dump)
                with server:
                    dump.unlink()
                    report["oxigraph_load_seconds"] = server.load_seconds
                    for variant in remote:
                        report["variants"][variant], digests[variant] = run_variant(
                            variant, files, server.url, cap_s, workdir)
                        _print_row(name, variant, report["variants"][variant])
            except (RuntimeError, subprocess.CalledProcessError) as exc:
                report["endpoint_error"] = str(exc)
    reference = digests.get(REFERENCE)
    kept = report["variants"].get(REFERENCE, {}).get("fingerprint")
    for variant, found in digests.items():
        if not found or variant == REFERENCE:
            continue
        if reference is not None:
            report["variants"][variant]["agreement"] = _agreement(reference, found)
        elif kept:  # the reference ran before: compare the whole-graph fingerprints
            same = report["variants"][variant].get("fingerprint") == kept
            report["variants"][variant]["agreement"] = {"same_fingerprint": same}
    return report


def _print_row(dataset: str, variant: str, r: dict[str, Any]) -> None:
    share = r.get("done", 0) / max(1, r.get("categorised", r.get("entities", 1)))
    rate = share * r.get("entities", 0) / r["seconds"] if r.get("seconds") else 0.0
    extra = (f"{r['queries']} queries" if "queries" in r
             else f"{r.get('fetch_rounds', 0)} fetch rounds")
    print(f"{dataset:5s} {variant:22s} {r.get('status', ''):24s} "
          f"{r.get('seconds', float('nan')):7.1f} s ({r.get('cpu_seconds', 0):6.1f} s CPU)  "
          f"{rate:6.0f} entities/s  "
          f"{extra:>18s}  {r.get('targets', '-')!s:>9s} targets  "
          f"{r.get('peak_rss_mb', 0):7.0f} MB", flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="YCBA only")
    parser.add_argument("--datasets", default="", help="comma-separated: npg,ycba")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--cap-minutes", type=float, default=CAP_MINUTES)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("files", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    cap_s = args.cap_minutes * 60
    if args.child:
        run_child(args.child, args.files, args.url, cap_s, args.out)
        return
    names = args.datasets.split(",") if args.datasets else (
        ["ycba"] if args.quick else ["npg", "ycba"])
    variants = [v for v in args.variants.split(",") if v]
    unknown = set(variants) - set(VARIANTS) | set(names) - set(DATASETS)
    if unknown:
        parser.error(f"unknown variants or datasets: {sorted(unknown)}")
    results: dict[str, Any] = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results.update(machine=f"{platform.machine()}, {platform.python_version()}, "
                           f"pyoxigraph {ox.__version__}", batch=BATCH,
                   cap_seconds=cap_s, generated=time.strftime("%Y-%m-%dT%H:%M:%S"))
    for name in names:
        if not all(f.is_file() for f in DATASETS[name]) or not DATASETS[name]:
            print(f"{name}: files not found under {SHARED}, skipped")
            continue
        previous = results.setdefault("datasets", {}).get(name, {})
        results["datasets"][name] = run_dataset(name, variants, cap_s, previous)
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"written {RESULTS}")


if __name__ == "__main__":
    main()
