"""The build loop: chunks of entities → neighbourhoods → documents and archived triples.

For each chunk of (by default) 1,000 entities the builder fetches the entities' triples,
walks their FRs and writes their documents; whatever a walk or a name needs that is not
fetched yet (hop-one intermediates, the places of a production, the appellation of a
target) is fetched in further batched rounds, so FR paths of any length complete and memory
stays proportional to the chunk. Each finished chunk is checkpointed in the work folder
(documents and triples as small Parquet parts, and ``progress.json``), so that an
interrupted build can resume. :meth:`DocumentBuilder.finish` merges the triple parts into
one deduplicated ``triples.parquet``, chains thin documents and returns the final list.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal as TypingLiteral
from typing import Protocol

import pyarrow as pa
import pyarrow.parquet as pq

from llama_index_crm.build.chaining import CHAIN_THRESHOLD, plan_in_store
from llama_index_crm.build.documents import DocumentWriter, EntityDocument, KnownFRs
from llama_index_crm.build.labels import Labeller, local_words
from llama_index_crm.build.memory import (
    peak_rss_mb,
    process_peak,
    release_freed_memory,
    use_lean_arrow_pool,
)
from llama_index_crm.build.neighbourhood import Neighbourhood
from llama_index_crm.build.parts import (
    FR_EDGES_FILE,
    LABELS_FILE,
    TRIPLE_COLUMNS,
    TRIPLES_FILE,
    UNCHAINED_FILE,
    FinalDocuments,
    _best_labels,
    _fr_edge_rows,
    _merge_fr_edges,
    document_lengths,
    document_table,
    load_store,
    merge_triples,
    read_table_parts,
    write_document_table,
    write_labels,
)
from llama_index_crm.build.source_server import SourceServer, serves_workers
from llama_index_crm.build.traversal import FRWalker
from llama_index_crm.errors import CrmError, EmptyGraphError, WorkerError
from llama_index_crm.ontology import Ontology
from llama_index_crm.rdf import Literal, encode_object
from llama_index_crm.sources._sparql_terms import safe_iris
from llama_index_crm.sources.base import GraphSource, source_factory
from llama_index_crm.sources.fr_sparql import (
    Closures,
    FRQueryCompiler,
    GraphVocabulary,
    Select,
    fr_matches,
)
from llama_index_crm.storage.triple_writer import HashSet, triple_hash

logger = logging.getLogger(__name__)

CHUNK_SIZE = 1000
UPDATE_CHUNK_SIZE = 25_000
"""Entities per chunk of an update's documents. An update fetches each node from the
archive when first asked for, so a chunk's cost is the nodes it reads: with one chunk a hub
(a type with 16,847 users) is read once, not once per chunk. NPG's 1 % delta (23,939
entities): documents 34 s with 5,000 a chunk, 24 s with one chunk, 2.2 → 2.6 GB peak."""
FRPaths = TypingLiteral["auto", "sparql", "walk"]
DEFAULT_FR_PATHS: FRPaths = "auto"
"""SPARQL property paths, measured faster on every dataset from files and ``oxigraph serve``
(``benchmarks/build.py``), unless the server's profile prefers the walk (Virtuoso);
documents are the same."""
SHOWN_FRS = 5
"""FRs named in the warning about rejected FR path queries."""
MAX_ROUNDS = 10
"""Fetch rounds per chunk; paths longer than this many hops are cut (none in TR-429 are)."""
_PARTS = "parts"
_PROGRESS = "progress.json"
@dataclass(slots=True)
class BuildStats:
    """Figures of one build, printed by ``crm-rag build`` and stored in the manifest."""

    entities: int = 0
    documents: int = 0
    satellites_absorbed: int = 0
    uncategorised: int = 0
    documents_chained: int = 0
    triples_archived: int = 0
    fetch_rounds: int = 0
    seconds: float = 0.0
    peak_rss_mb: float = 0.0
    chunks: int = 0
    rejected_statements: int = 0
    """Statements of the files that could not be parsed and were skipped (``rejected.nt``)."""

    def as_dict(self) -> dict[str, float | int]:
        """The figures as a JSON-ready dict."""
        return asdict(self)


@dataclass(slots=True)
class _ChunkResult:
    documents: list[EntityDocument] = field(default_factory=list)
    satellites: int = 0
    uncategorised: int = 0
    rounds: int = 0


@dataclass(frozen=True, slots=True)
class _ChunkCounts:
    documents: int
    satellites: int
    uncategorised: int
    rounds: int
    rejected_frs: tuple[tuple[str, str], ...] = ()
    """(FR id, the server's error) of FR queries the server rejected so far (walked)."""


class ChunkEngine(Protocol):
    """Another way to run a build's chunks (:mod:`llama_index_crm.build.ray_engine`):
    beside this process (``workers=1``) and its process pool (``workers>1``)."""

    def run_chunks(self, builder: DocumentBuilder, todo: list[int], chunks: list[list[str]]
                   ) -> Iterator[tuple[int, _ChunkCounts]]:
        """Build ``chunks`` (numbered ``todo``) as ``builder`` would, checkpoint each with
        :meth:`DocumentBuilder.write_parts` and yield (number, counts) in the order given."""
        ...


_WORKER: DocumentBuilder | None = None
_WORKER_ERROR: CrmError | None = None


def _init_worker(factory: Callable[[], GraphSource], work_dir: Path, lang: str,
                 config_dir: Path | None, fr_paths: FRPaths) -> None:
    global _WORKER, _WORKER_ERROR
    try:
        onto = Ontology.from_config_dir(config_dir) if config_dir else Ontology.default()
        _WORKER = DocumentBuilder(factory(), work_dir, ontology=onto, lang=lang,
                                  fr_paths=fr_paths)
    except CrmError as exc:  # raised from the first chunk: an initializer error breaks the pool
        _WORKER_ERROR = exc


def _worker_chunk(index: int, chunk: list[str]) -> tuple[int, _ChunkCounts]:
    if _WORKER_ERROR is not None:
        raise _WORKER_ERROR
    assert _WORKER is not None, "worker not initialised"
    return _WORKER.run_chunk(index, chunk)


def _preferred_fr_paths(source: GraphSource) -> FRPaths:
    """How ``source`` wants FR targets found: its ``preferred_fr_paths``, else SPARQL."""
    preferred = getattr(source, "preferred_fr_paths", None)
    if preferred is None:
        return "sparql"
    mode, reason = preferred
    if mode == "walk":
        logger.warning("%s: FR targets are walked through fetched neighbourhoods, not queried "
                       "(%s; same documents; --fr-paths sparql queries anyway).",
                       source.describe(), reason)
    return "walk" if mode == "walk" else "sparql"


def _surviving(results: Iterator[tuple[int, _ChunkCounts]]
               ) -> Iterator[tuple[int, _ChunkCounts]]:
    """``results``, with the death of a worker process said as a :class:`WorkerError`.

    A worker's own errors (a :class:`CrmError`) arrive unpickled and pass through as they
    are, so that the user reads the same message whatever the number of workers.
    """
    try:
        yield from results
    except BrokenProcessPool as exc:
        raise WorkerError(
            "A build worker process died without an error of its own (killed, or out of "
            "memory?). Run the same command again with --resume to continue, with fewer "
            "--workers if memory is short."
        ) from exc


def _warn_walked(rejected: Iterable[tuple[str, str]], warned: set[str]) -> None:
    """One warning, the first time the server rejects FR path queries; the FRs rejected
    later are logged at INFO (``-v``)."""
    new = {fr: reason for fr, reason in rejected if fr not in warned}
    if not new:
        return
    first = not warned
    warned.update(new)
    names = sorted(new)
    shown = ", ".join(names[:SHOWN_FRS]) + (
        f" and {len(names) - SHOWN_FRS} more" if len(names) > SHOWN_FRS else "")
    if first:
        logger.warning(
            "The server rejected the FR path queries of %s (first error: %s); these FRs, and "
            "any it rejects later, are walked through fetched neighbourhoods instead (slower, "
            "same documents).", shown, next(iter(new.values())))
    else:
        logger.info("The server rejected the FR path queries of %s too; walked.", shown)


def default_workers() -> int:
    """Worker processes for a build: one per core, at most 4."""
    return max(1, min(4, os.cpu_count() or 1))


class DocumentBuilder:
    """Builds entity documents and the triple archive from a graph source.

    Args:
        source: where the graph is read from.
        work_dir: folder for checkpoints and ``triples.parquet`` (created if needed).
        ontology: CRM vocabulary; the packaged one by default.
        chunk_size: entities per chunk.
        lang: preferred language of names.
        chain_threshold: documents shorter than this are chained into a neighbour.
        fr_paths: how FR targets are found: ``"sparql"`` runs the FR paths compiled into
            SPARQL property paths over each chunk (sources offering ``select``), ``"walk"``
            walks them through the fetched neighbourhood, fetching intermediates hop by
            hop; ``"auto"`` takes what the source prefers (``preferred_fr_paths``: the
            walk on Virtuoso), else SPARQL. All give the same documents; see
            ``docs/benchmarks.md`` for the timings.
    """

    def __init__(
        self,
        source: GraphSource,
        work_dir: Path,
        ontology: Ontology | None = None,
        chunk_size: int = CHUNK_SIZE,
        lang: str = "en",
        chain_threshold: int = CHAIN_THRESHOLD,
        fr_paths: FRPaths = DEFAULT_FR_PATHS,
    ) -> None:
        if fr_paths not in ("auto", "sparql", "walk"):
            raise ValueError(f"fr_paths must be 'auto', 'sparql' or 'walk', not {fr_paths!r}")
        if fr_paths == "auto":
            fr_paths = _preferred_fr_paths(source)
        self.source = source
        self.work_dir = Path(work_dir)
        self.ontology = ontology or Ontology.default()
        self.chunk_size = chunk_size
        self.lang = lang
        self.chain_threshold = chain_threshold
        self.walker = FRWalker(self.ontology)
        self.writer = DocumentWriter(self.ontology, self.walker, lang)
        self.fr_paths: FRPaths = fr_paths
        select = getattr(source, "select", None)
        self._select: Select | None = select if fr_paths == "sparql" and callable(select) \
            else None
        self._compiler: FRQueryCompiler | None = None
        self._rejected_frs: dict[str, str] = {}
        self.stats = BuildStats()
        self._entities: list[str] | None = None
        self._written = HashSet()

    # -- entities ------------------------------------------------------------------------
    def entities(self) -> list[str]:
        """The entity IRIs of the source (cached)."""
        if self._entities is None:
            self._entities = self.source.entities()
            if not self._entities:
                raise EmptyGraphError(
                    f"{self.source.describe()} holds no entities (no IRI is the subject of "
                    "a triple outside the ontology namespaces). Check that the files or the "
                    "endpoint hold CIDOC-CRM instance data, not only the ontology."
                )
        return self._entities

    # -- one chunk -----------------------------------------------------------------------
    def _sparql_targets(self, nb: Neighbourhood, chunk: list[str]
                        ) -> dict[str, tuple[dict[str, set[str]], dict[str, set[str]]]] | None:
        """The chunk's FR targets and direct targets by SPARQL property paths, or None to
        walk them.

        Entities the queries cannot name (an IRI :func:`safe_iris` rejects) are left out
        of the answer and walked instead.
        """
        select = self._select
        if select is None:
            return None
        if self._compiler is None:
            closures: Closures = getattr(self.source, "fr_closures", "inline")
            self._compiler = FRQueryCompiler(self.ontology, GraphVocabulary.from_select(select),
                                             closures=closures)
        by_category: dict[str, list[str]] = {}
        for uri in chunk:
            category = nb.category(uri)
            if category is not None and not self.writer.is_satellite(nb, uri):
                by_category.setdefault(category, []).append(uri)
        found: dict[str, tuple[dict[str, set[str]], dict[str, set[str]]]] = {}
        for category, uris in by_category.items():
            hits = fr_matches(select, uris, category, self.ontology, compiler=self._compiler,
                              rejected=self._rejected_frs)
            direct = fr_matches(select, uris, category, self.ontology, compiler=self._compiler,
                                rejected=self._rejected_frs, drop_specialised=False,
                                direct=True)
            for uri in safe_iris(uris):
                found[uri] = (hits.get(uri, {}), direct.get(uri, {}))
        return found

    def _process_chunk(self, chunk: list[str], on_demand: bool = False,
                       known: Mapping[str, KnownFRs] | None = None
                       ) -> tuple[_ChunkResult, Neighbourhood]:
        """The documents of ``chunk``. ``on_demand``: the source is in process and each
        node is fetched when first asked for (:class:`Neighbourhood`'s ``source``), so
        every document is written once, not again after each fetch round. ``known``: FR
        edges of entities as an earlier write gave them (``DocumentWriter.write``)."""
        nb = Neighbourhood(self.ontology, self.source if on_demand else None)
        nb.add(self.source.fetch(chunk, incoming=True), complete=chunk)
        lab = Labeller(nb, self.lang)
        result = _ChunkResult()
        docs: dict[str, EntityDocument | None] = {}
        targets = self._sparql_targets(nb, chunk)
        if targets:  # every document names its targets: fetch them before writing any
            for frs, _ in targets.values():
                for found in frs.values():
                    for target in found:
                        nb.require_described(target)
            nb.fetch_missing(self.source)
        pending = list(chunk)
        for round_no in range(1, MAX_ROUNDS + 1):
            result.rounds = round_no
            retry: list[str] = []
            for uri in pending:
                nb.missed = False
                given = targets.get(uri) if targets is not None else None
                docs[uri] = self.writer.write(nb, lab, uri, given, self._rejected_frs,
                                              known.get(uri) if known else None)
                if nb.missed:
                    retry.append(uri)
            if not nb.has_missing:
                break
            nb.fetch_missing(self.source)
            lab.forget_missing()
            pending = retry
        for uri in chunk:
            doc = docs.get(uri)
            if doc is not None:
                result.documents.append(doc)
            elif self.writer.is_folded(nb, uri):
                result.satellites += 1
            else:
                result.uncategorised += 1
        return result, nb

    def _label_rows(self, nb: Neighbourhood) -> pa.Table:
        """(term, label, rank) of every node this chunk described: the label candidates."""
        lab = Labeller(nb, self.lang)
        terms = sorted(nb.described)
        resolved = [lab.resolve(t) for t in terms]
        return pa.table({
            "term": pa.array(terms, pa.string()),
            "label": pa.array([name for name, _ in resolved], pa.string()),
            "rank": pa.array([1 if real else 2 for _, real in resolved], pa.int8()),
        })

    def _triple_rows(self, nb: Neighbourhood) -> pa.Table:
        lab = Labeller(nb, self.lang)
        names: dict[str, str] = {}

        def name(node: str) -> str:
            got = names.get(node)
            if got is None:
                got = lab.name(node) if node in nb.described else ""
                names[node] = got
            return got

        p_labels: dict[str, str] = {}
        cols: dict[str, list[str]] = {c: [] for c in TRIPLE_COLUMNS}
        # triples this process already checkpointed (a hub's links arrive in every chunk)
        encoded = [encode_object(o) for _, _, o in nb.raw]
        fresh = self._written.add_new(
            [triple_hash(s, p, e) for (s, p, _), e in zip(nb.raw, encoded, strict=True)])
        for (s, p, o), new in zip(nb.raw, fresh, strict=True):
            if not new:
                continue
            pl = p_labels.get(p)
            if pl is None:
                key = nb.predicate_key(p)
                pl = self.ontology.label(key) if key != p else local_words(p)
                p_labels[p] = pl
            cols["s"].append(s)
            cols["s_label"].append(name(s))
            cols["p"].append(p)
            cols["p_label"].append(pl)
            if isinstance(o, Literal):
                cols["o"].append(encode_object(o))
                cols["o_label"].append(o.value)
            else:
                cols["o"].append(o)
                cols["o_label"].append(name(o))
        return pa.table({c: pa.array(v, pa.string()) for c, v in cols.items()})

    # -- the loop ------------------------------------------------------------------------
    def _progress(self) -> dict[str, object]:
        path = self.work_dir / _PROGRESS
        if path.exists():
            data: dict[str, object] = json.loads(path.read_text())
            return data
        return {"chunks_done": 0}

    def run(self, *, resume: bool = False, workers: int = 1,
            on_chunk: Callable[[int, int], None] | None = None,
            engine: ChunkEngine | None = None) -> Iterator[int]:
        """Process every chunk not yet checkpointed; yield the number of entities done.

        Args:
            resume: continue after the chunks already checkpointed in ``work_dir``.
            workers: processes working on chunks at once (1 works in this process). An
                in-process source (RDF files) is served to them from this process, so
                the graph is parsed and held once; an endpoint is opened again by each.
            on_chunk: called with (entities done, entities total) after each chunk.
            engine: runs the chunks instead (``workers`` is then the engine's business):
                :class:`~llama_index_crm.build.ray_engine.RayEngine`; same documents.
        """
        start = time.perf_counter()
        entities = self.entities()
        self.stats.entities = len(entities)
        (self.work_dir / _PARTS).mkdir(parents=True, exist_ok=True)
        progress = self._progress() if resume else {}
        saved_size = progress.get("chunk_size")
        if isinstance(saved_size, int) and saved_size != self.chunk_size:
            logger.warning("Resuming with the chunk size of the interrupted build (%d, not %d)",
                           saved_size, self.chunk_size)
            self.chunk_size = saved_size
        if progress.get("entities") not in (None, len(entities)):
            raise CrmError(
                f"Cannot resume: the source now lists {len(entities):,} entities, the "
                f"interrupted build {progress.get('entities'):,}. Build from the start "
                "(without --resume)."
            )
        done = {int(i) for i in progress.get("done", [])}  # type: ignore[attr-defined]
        saved = progress.get("stats")
        if done and isinstance(saved, dict):
            for key, value in saved.items():
                if hasattr(self.stats, key):
                    setattr(self.stats, key, value)
        size = self.chunk_size
        todo = [i for i in range((len(entities) + size - 1) // size) if i not in done]
        chunks = [entities[i * size : (i + 1) * size] for i in todo]
        process_peak()  # sample this process and its workers from now on
        server: SourceServer | None = None
        factory: Callable[[], GraphSource] | None = None
        if engine is None and workers > 1 and len(todo) > 1:
            if serves_workers(self.source):  # one parsed graph: the workers ask it
                server = SourceServer(self.source).start()
                factory = server.recipe()
            else:
                factory = source_factory(self.source, workers)
        if factory is not None:
            pool = ProcessPoolExecutor(
                max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=_init_worker,
                initargs=(factory, self.work_dir, self.lang, self.ontology.config_dir,
                          self.fr_paths),
            )
            results: Iterator[tuple[int, _ChunkCounts]] = pool.map(_worker_chunk, todo, chunks)
        elif engine is not None:
            pool = None
            results = engine.run_chunks(self, todo, chunks)
        else:
            pool = None
            results = (self.run_chunk(i, c) for i, c in zip(todo, chunks, strict=True))
        walked: set[str] = set()
        try:
            for index, counts in _surviving(results):
                _warn_walked(counts.rejected_frs, walked)
                self.stats.satellites_absorbed += counts.satellites
                self.stats.uncategorised += counts.uncategorised
                self.stats.documents += counts.documents
                self.stats.fetch_rounds += counts.rounds
                self.stats.chunks += 1
                self.stats.seconds = round(self.stats.seconds + time.perf_counter() - start, 3)
                start = time.perf_counter()
                done.add(index)
                tmp = self.work_dir / (_PROGRESS + ".tmp")
                tmp.write_text(json.dumps({
                    "done": sorted(done), "chunk_size": size, "entities": len(entities),
                    "stats": self.stats.as_dict()}))
                tmp.replace(self.work_dir / _PROGRESS)
                finished = min(len(entities), len(done) * size)
                if on_chunk:
                    on_chunk(finished, len(entities))
                yield finished
        finally:
            if pool is not None:
                pool.shutdown(cancel_futures=True)
            if engine is not None and isinstance(results, Generator):
                results.close()  # the engine's own clean-up (its actors)
            if server is not None:
                server.close()

    def run_chunk(self, index: int, chunk: list[str]) -> tuple[int, _ChunkCounts]:
        """Build one chunk and checkpoint its documents and triples as Parquet parts."""
        counts, parts = self.chunk_parts(chunk)
        self.write_parts(index, parts)
        return index, counts

    def chunk_parts(self, chunk: list[str]) -> tuple[_ChunkCounts, dict[str, pa.Table]]:
        """Build one chunk: its figures and its parts (documents, triples, labels, FR
        edges) as tables, unwritten (a worker on another machine sends them back)."""
        result, nb = self._process_chunk(chunk)
        docs = result.documents
        parts = {"docs": document_table(docs), "triples": self._triple_rows(nb),
                 "labels": self._label_rows(nb), "fredges": _fr_edge_rows(docs)}
        return _ChunkCounts(
            len(docs), result.satellites, result.uncategorised, result.rounds,
            tuple(self._rejected_frs.items()),
        ), parts

    def write_parts(self, index: int, parts: dict[str, pa.Table]) -> None:
        """Checkpoint chunk ``index``'s parts in the work folder (each file atomically)."""
        folder = self.work_dir / _PARTS
        for name, tbl in parts.items():
            final = folder / f"{name}-{index:06d}.parquet"
            tmp = final.with_suffix(".tmp")
            pq.write_table(tbl, tmp)
            tmp.replace(final)

    def finish(self) -> FinalDocuments:
        """Merge triple parts into ``triples.parquet``, chain thin documents, return them.

        The documents come back as a sequence made from their rows when read
        (:class:`~llama_index_crm.build.parts.FinalDocuments`, a slice at a time by its
        ``batches``): nothing here holds a Python object per document or per triple."""
        start = time.perf_counter()
        use_lean_arrow_pool()  # from here on, what the finish frees goes back
        parts = self.work_dir / _PARTS
        triples_path = self.work_dir / TRIPLES_FILE
        docs = read_table_parts(sorted(parts.glob("docs-*.parquet")))
        if not docs.num_rows:
            raise EmptyGraphError(
                f"{self.source.describe()}: none of its {self.stats.entities:,} subjects is "
                "typed with a CIDOC-CRM class that has a fundamental category (Thing, Actor, "
                "Place, Event, Concept), so there is nothing to build documents from. Check "
                "the rdf:type statements and the namespace (CIDOC-CRM, Erlangen CRM and "
                "5.x/6.x names are recognised)."
            )
        triple_parts = sorted(parts.glob("triples-*.parquet"))
        terms, labels, ranks = _best_labels(sorted(parts.glob("labels-*.parquet")), docs)
        write_labels(self.work_dir / LABELS_FILE, terms, labels, ranks)
        write_document_table(self.work_dir / UNCHAINED_FILE, docs)
        self.stats.triples_archived = merge_triples(triples_path, triple_parts, terms, labels)
        del terms, labels, ranks
        release_freed_memory()  # the archive-wide labels, before the store is read
        _merge_fr_edges(self.work_dir / FR_EDGES_FILE, sorted(parts.glob("fredges-*.parquet")))
        store = load_store(triples_path)  # a row group at a time
        release_freed_memory()
        store.write_encoding()  # what loads and updates read instead of encoding it again
        plan = plan_in_store(docs.column("uri").to_pylist(), document_lengths(docs),
                             docs.column("category").to_pylist(), store, self.chain_threshold)
        final = FinalDocuments(docs, plan)
        self.stats.documents = len(final)
        self.stats.documents_chained = docs.num_rows - len(final)
        self.stats.seconds = round(self.stats.seconds + time.perf_counter() - start, 3)
        self.stats.peak_rss_mb = round(peak_rss_mb(), 1)
        for part in parts.glob("*.parquet"):
            part.unlink()
        parts.rmdir()
        (self.work_dir / _PROGRESS).unlink(missing_ok=True)
        self.triple_store = store
        return final
