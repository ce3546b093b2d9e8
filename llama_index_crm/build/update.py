"""The structural part of an incremental update: documents, triples, labels, FR edges.

:func:`update_structure` reads a built folder, finds the entities a delta touches
(:mod:`llama_index_crm.build.affected`), writes their documents again over the archive with
the delta laid on it (:class:`~llama_index_crm.build.delta.DeltaSource`, FR targets
walked), keeps every other document as it was written, and then does what a build's
``finish()`` does: one label per term (the stored labels merged with the rewritten
documents'), the labelled triple archive (only rows whose terms changed label labelled
again), its store (renumbered from the stored one, its encoding written beside it),
chaining of thin documents. The result is what a full build of the changed graph writes.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
from collections.abc import Callable, Container
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from llama_index_crm.build.affected import Affected, ReverseWalker, affected_entities
from llama_index_crm.build.builder import UPDATE_CHUNK_SIZE, BuildStats, DocumentBuilder
from llama_index_crm.build.chaining import CHAIN_THRESHOLD, chain_in_store
from llama_index_crm.build.delta import DeltaSource, GraphDelta
from llama_index_crm.build.documents import EntityDocument, KnownFRs
from llama_index_crm.build.labels import Labeller, local_words
from llama_index_crm.build.neighbourhood import Neighbourhood
from llama_index_crm.build.parts import (
    FR_EDGES_FILE,
    LABELS_FILE,
    TRIPLE_COLUMNS,
    TRIPLES_FILE,
    UNCHAINED_FILE,
    _relabel,
    fr_edge_rows,
    read_documents,
    reduce_labels,
    write_documents,
    write_labels,
)
from llama_index_crm.build.reader import to_document
from llama_index_crm.errors import IndexFormatError
from llama_index_crm.ontology import Ontology
from llama_index_crm.rdf import RDF_TYPE, decode_object
from llama_index_crm.sources._filters import select_entities
from llama_index_crm.storage import CrmDocumentStore, TripleStore
from llama_index_crm.storage.docstore import DOCUMENTS_FILE
from llama_index_crm.storage.documents import (
    DOCUMENT_SCHEMA,
    DOCUMENTS_FORMAT,
    FIELDS,
    DocumentRecord,
    DocumentTable,
)
from llama_index_crm.storage.manifest import MANIFEST
from llama_index_crm.storage.names import name_dependents
from llama_index_crm.storage.triple_writer import FORMAT_KEY, TRIPLE_SCHEMA

logger = logging.getLogger(__name__)


@dataclass(slots=True)
class UpdateResult:
    """What :func:`update_structure` did."""

    documents: list[EntityDocument]
    docstore: CrmDocumentStore
    stats: BuildStats
    delta: GraphDelta
    affected: Affected
    removed_documents: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    names_changed: set[str] = field(default_factory=set)
    """The nodes whose rows of the name table the change may touch."""
    fr_edges_changed: bool = True
    """False when ``fr_edges.parquet`` is written as it was (same rows, same order): what
    is computed from it alone (PageRank) is then what it was."""
    old_texts: dict[str, str] = field(default_factory=dict)
    """The text of every document of the index before the update, by id."""
    changes: dict[str, int] = field(default_factory=dict)
    """Documents ``changed``, ``added`` and ``removed`` (by id and text)."""
    meta_changed: set[str] = field(default_factory=set)
    """Documents whose row of ``doc_meta.parquet`` may differ from the earlier one: a new
    docstore row, or ``named`` changed."""
    term_map: np.ndarray | None = None
    """When the FR edges are written as they were: the id in the new triple store of each
    term id of the earlier one (-1: gone)."""


def _classify(source: DeltaSource, nodes: list[str], ontology: Ontology) -> tuple[int, int]:
    """(satellites, uncategorised) among ``nodes``, entities without a document."""
    from llama_index_crm.build.documents import DocumentWriter

    if not nodes:
        return 0, 0
    nb = Neighbourhood(ontology)
    nb.add(source.fetch(nodes, incoming=False), described=nodes)
    satellites = sum(1 for n in nodes if DocumentWriter.is_satellite(nb, n))
    uncategorised = sum(1 for n in nodes if nb.category(n) is None
                        and not DocumentWriter.is_satellite(nb, n))
    return satellites, uncategorised


def _added_rows(delta: GraphDelta, schema: pa.Schema, ontology: Ontology) -> pa.Table:
    """The rows ``delta`` adds, unlabelled but for their predicates and literals."""
    rows = sorted(delta.added)
    nb = Neighbourhood(ontology)
    p_labels = {}
    for _, p, _ in rows:
        if p not in p_labels:
            key = nb.predicate_key(p)
            p_labels[p] = ontology.label(key) if key != p else local_words(p)
    o_labels = []
    for _, _, o in rows:
        value = decode_object(o)
        o_labels.append(value if isinstance(value, str) and not o.startswith('"')
                        else getattr(value, "value", ""))
    return pa.table({
        "s": [r[0] for r in rows], "s_label": [""] * len(rows),
        "p": [r[1] for r in rows], "p_label": [p_labels[r[1]] for r in rows],
        "o": [r[2] for r in rows],
        "o_label": [lab if r[2].startswith('"') else "" for r, lab in zip(rows, o_labels,
                                                                          strict=True)],
    }, schema=schema)


def merged_labels(kept: pa.Table, new: list[pa.Table]) -> pa.Table:
    """``reduce_labels([kept, *new])`` when ``kept`` is already reduced (one row per term,
    as ``labels.parquet`` holds them): only the terms of ``new`` are reduced again, with
    their rows of ``kept``; the other rows are kept as they are."""
    fresh = pa.concat_tables(new)
    if not fresh.num_rows:
        return kept.sort_by("term")
    hit = pc.is_in(kept.column("term"), value_set=pc.unique(fresh.column("term")))
    reduced = reduce_labels([kept.filter(hit), fresh]).cast(kept.schema)
    return pa.concat_tables([kept.filter(pc.invert(hit)), reduced]).sort_by("term")


def relabelled_terms(old_labels: pa.Table, best: pa.Table, candidates: set[str]) -> set[str]:
    """The terms among ``candidates`` whose archive-wide label (``""`` when none) differs
    between ``old_labels`` and ``best`` (both (term, label, rank) tables)."""
    if not candidates:
        return set()
    wanted = pa.array(sorted(candidates), pa.string())

    def labels(table: pa.Table) -> dict[str, str]:
        hit = table.filter(pc.is_in(table.column("term"), value_set=wanted))
        return dict(zip(hit.column("term").to_pylist(), hit.column("label").to_pylist(),
                        strict=True))

    before, after = labels(old_labels), labels(best)
    return {t for t in candidates if (before.get(t) or "") != (after.get(t) or "")}


def _labelled_triples(folder: Path, delta: GraphDelta, terms: pa.Array, labels: pa.Array,
                      relabelled: set[str], ontology: Ontology) -> pa.Table:
    """The archive after ``delta``, labelled with the archive-wide labels.

    The stored archive is labelled with the earlier labels (``labels.parquet``), as a
    build or an update writes it: only its rows with a subject or an object among
    ``relabelled`` (the terms whose label changed) and the added rows are labelled here;
    the other rows are kept as stored, with the removed rows taken out."""
    table = pq.read_table(folder / TRIPLES_FILE, columns=list(TRIPLE_COLUMNS))
    s, o = table.column("s"), table.column("o")
    drop = np.zeros(table.num_rows, dtype=bool)
    if delta.removed:
        subjects = pa.array(sorted({k[0] for k in delta.removed}), pa.string())
        rows = np.flatnonzero(pc.is_in(s, value_set=subjects).to_numpy(zero_copy_only=False))
        if len(rows):
            found = table.select(["s", "p", "o"]).take(pa.array(rows, pa.int64()))
            keys = zip(*(found.column(c).to_pylist() for c in ("s", "p", "o")), strict=True)
            drop[rows[[k in delta.removed for k in keys]]] = True
    touch = np.zeros(table.num_rows, dtype=bool)
    if relabelled:
        value_set = pa.array(sorted(relabelled), pa.string())
        touch = (pc.is_in(s, value_set=value_set).to_numpy(zero_copy_only=False)
                 | pc.is_in(o, value_set=value_set).to_numpy(zero_copy_only=False))
    touch &= ~drop
    kept = table.filter(pa.array(~(drop | touch)))
    redone = table.filter(pa.array(touch))
    if delta.added:
        redone = pa.concat_tables([redone, _added_rows(delta, table.schema, ontology)])
    return pa.concat_tables([kept.cast(TRIPLE_SCHEMA),
                             _relabel(redone, terms, labels).cast(TRIPLE_SCHEMA)])


def update_structure(folder: Path, work: Path, delta: GraphDelta, description: str, *,
                     ontology: Ontology | None = None, chunk_size: int = UPDATE_CHUNK_SIZE,
                     on_chunk: Callable[[int, int], None] | None = None) -> UpdateResult:
    """Write into ``work`` the structural files of ``folder`` after ``delta``.

    Writes ``triples.parquet``, ``fr_edges.parquet``, ``unchained.parquet``,
    ``labels.parquet`` and the docstore (``documents.parquet``); returns the final
    (chained) documents and the figures.

    Raises:
        IndexFormatError: ``folder`` was built before updates existed (no
            ``unchained.parquet`` / ``labels.parquet``).
    """
    ontology = ontology or Ontology.default()
    for name in (UNCHAINED_FILE, LABELS_FILE, TRIPLES_FILE, FR_EDGES_FILE):
        if not (folder / name).exists():
            raise IndexFormatError(
                f"{folder} has no {name}: it was built by an older version and cannot be "
                f"updated. Build it once again (crm-rag build ... --out {folder}); later "
                "changes can then be applied with crm-rag update.")
    seconds: dict[str, float] = {}
    started = time.perf_counter()
    store = TripleStore.load(folder / TRIPLES_FILE)
    delta = delta.against(store)
    source = DeltaSource(store, delta, description)
    before = json.loads((folder / MANIFEST).read_text()).get("stats", {}).get("entities")
    if isinstance(before, int):  # the entities are those before, but for the subjects
        entity_count = source.entity_count(before)  # of changed triples
        entity_set: Container[str] = _Entities(source)
    else:
        entity_set = set(source.entities())
        entity_count = len(entity_set)
    old_docs = read_documents(folder / UNCHAINED_FILE)
    fr_edges = pq.read_table(folder / FR_EDGES_FILE)
    seconds["read"] = time.perf_counter() - started

    def fr_sources(nodes: set[str]) -> set[str]:
        if not nodes:
            return set()
        hit = pc.is_in(fr_edges.column("o"), value_set=pa.array(sorted(nodes), pa.string()))
        return set(pc.unique(fr_edges.column("s").filter(hit)).to_pylist())

    started = time.perf_counter()
    affected = affected_entities(store, delta, ontology, fr_sources, entity_set,
                                 ReverseWalker(ontology))
    seconds["affected"] = time.perf_counter() - started
    started = time.perf_counter()
    old_uris = {d.uri for d in old_docs}
    touched = {s for s, _, _ in delta.added | delta.removed}
    gone = sorted(u for u in (old_uris & touched if isinstance(entity_set, _Entities)
                              else old_uris) if u not in entity_set)
    todo = sorted(affected.entities)
    known = _known_frs(old_docs, fr_edges, set(todo) - affected.walked)
    builder = DocumentBuilder(source, work, ontology=ontology, chunk_size=chunk_size,
                              fr_paths="walk")
    rebuilt: list[EntityDocument] = []
    label_rows: list[pa.Table] = []
    no_doc: list[str] = []
    for i in range(0, len(todo), chunk_size):
        chunk = todo[i:i + chunk_size]
        result, nb = builder._process_chunk(chunk, on_demand=True, known=known)
        rebuilt.extend(result.documents)
        written = {d.uri for d in result.documents}
        no_doc.extend(u for u in chunk if u not in written)
        label_rows.append(builder._label_rows(nb))
        if on_chunk:
            on_chunk(min(len(todo), i + chunk_size), len(todo))
    seconds["documents"] = time.perf_counter() - started
    started = time.perf_counter()
    replaced = set(todo) | set(gone)
    kept = [d for d in old_docs if d.uri not in replaced]
    docs = sorted(kept + rebuilt, key=lambda d: d.uri)
    # FR edges: the kept documents' rows, the rebuilt ones', in document order
    keep_rows = pc.invert(pc.is_in(fr_edges.column("s"),
                                   value_set=pa.array(sorted(replaced), pa.string())))
    edges = pa.concat_tables([fr_edges.filter(keep_rows),
                              fr_edge_rows(rebuilt).cast(fr_edges.schema)])
    order = pc.sort_indices(edges, [("s", "ascending")])
    edges = edges.take(order)
    edges_changed = not edges.equals(fr_edges)
    # labels: one per term, as finish() picks them
    dirty = replaced | affected.renamed
    old_labels = pq.read_table(folder / LABELS_FILE)
    keep_labels = pc.invert(pc.is_in(old_labels.column("term"),
                                     value_set=pa.array(sorted(dirty), pa.string())))
    docs_rows = pa.table({"term": pa.array([d.uri for d in rebuilt], pa.string()),
                          "label": pa.array([d.label for d in rebuilt], pa.string()),
                          "rank": pa.array([0] * len(rebuilt), pa.int8())})
    renamed = sorted(affected.renamed - {d.uri for d in rebuilt})
    fresh = _resolve(source, renamed, ontology)
    best = merged_labels(old_labels.filter(keep_labels).cast(docs_rows.schema),
                         [docs_rows, fresh, *(t.cast(docs_rows.schema) for t in label_rows)])
    terms, labels = best.column("term").combine_chunks(), best.column("label").combine_chunks()
    relabelled = relabelled_terms(old_labels, best, dirty | {
        t for part in (docs_rows, fresh, *label_rows) for t in part.column("term").to_pylist()})
    table = _labelled_triples(folder, delta, terms, labels, relabelled, ontology)
    # rows keep their own labels (a term that is a predicate and an object has two)
    tmp = work / (TRIPLES_FILE + ".tmp")
    table = table.cast(TRIPLE_SCHEMA)
    pq.write_table(table, tmp, compression="zstd")
    tmp.replace(work / TRIPLES_FILE)
    # the store of the archive written, renumbered from the earlier one, not encoded again
    new_store, moved = store.patched(delta.removed, delta.added, table, work / TRIPLES_FILE,
                                     relabelled)
    new_store.write_encoding()
    del table
    term_map = None if edges_changed else moved
    # the labels of terms the change took out of the archive go with them
    changed_terms = {k[0] for k in delta.removed} | {k[2] for k in delta.removed} | set(gone)
    absent = sorted(t for t in changed_terms if new_store.id_of(t) is None)
    if absent:
        best = best.filter(pc.invert(pc.is_in(best.column("term"),
                                              value_set=pa.array(absent, pa.string()))))
        terms, labels = best.column("term").combine_chunks(), best.column("label").combine_chunks()
    names_changed = name_dependents(new_store, {
        n for s, p, o in delta.added | delta.removed
        for n in ((s,) if o.startswith('"') or p == RDF_TYPE else (s, o))}, ontology)
    seconds["triples"] = time.perf_counter() - started
    started = time.perf_counter()
    final = chain_in_store(docs, new_store, CHAIN_THRESHOLD)
    seconds["chaining"] = time.perf_counter() - started
    started = time.perf_counter()
    if edges_changed:
        pq.write_table(edges, work / FR_EDGES_FILE)
    else:  # the same rows in the same order: the earlier file (never written in place)
        _link(folder / FR_EDGES_FILE, work / FR_EDGES_FILE)
    write_documents(work / UNCHAINED_FILE, docs)
    write_labels(work / LABELS_FILE, terms, labels, best.column("rank").combine_chunks())
    docstore, old_texts, changes, remade = _patched_docstore(
        folder, final, new_store, {id(d) for d in kept})
    was_named = {d.uri: d.named for d in old_docs}
    remade |= {d.uri for d in final if was_named.get(d.uri) != d.named}
    docstore.persist(str(work))
    seconds["write"] = time.perf_counter() - started
    was = sorted((set(todo) | {s for s, _, _ in delta.added | delta.removed}) - old_uris)
    stats = _stats(folder, source, entity_count, docs, final, no_doc, was, ontology,
                   len(new_store))
    return UpdateResult(final, docstore, stats, delta, affected,
                        [u for u in sorted(old_uris - {d.uri for d in docs})],
                        {k: round(v, 3) for k, v in seconds.items()}, names_changed,
                        edges_changed, old_texts, changes, remade, term_map)


def _known_frs(old_docs: list[EntityDocument], fr_edges: pa.Table, unwalked: set[str]
               ) -> dict[str, KnownFRs]:
    """The category and stored FR edges (``fr_edges.parquet``, in their order) of each
    entity of ``unwalked`` that had a document: entities whose FR walk meets no changed
    triple (:attr:`Affected.walked`), so that it reaches the same targets by the same
    derivations as before; their documents are written without walking again."""
    category = {d.uri: d.category for d in old_docs if d.uri in unwalked}
    if not category:
        return {}
    rows = fr_edges.filter(pc.is_in(fr_edges.column("s"),
                                    value_set=pa.array(sorted(category), pa.string())))
    known: dict[str, KnownFRs] = {u: (c, []) for u, c in category.items()}
    columns = [rows.column(c).to_pylist() for c in ("s", "fr", "o", "direct", "widened_by",
                                                    "via")]
    for s, fr, o, direct, widened_by, via in zip(*columns, strict=True):
        known[s][1].append((fr, o, direct, widened_by, via))
    return known


def _metadata_json(doc: EntityDocument) -> str:
    """The ``metadata`` column :class:`DocumentRecord` stores for ``to_document(doc)``."""
    return json.dumps({"uri": doc.uri, "label": doc.label, "category": doc.category,
                       "classes": list(doc.classes), "chained_from": list(doc.chained_from)},
                      ensure_ascii=False)


def _link(source: Path, target: Path) -> None:
    """``target`` as a hard link to ``source`` (a copy where links cannot be made)."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def _patched_docstore(folder: Path, final: list[EntityDocument], triples: TripleStore,
                      as_read: set[int] = frozenset()  # type: ignore[assignment]
                      ) -> tuple[CrmDocumentStore, dict[str, str], dict[str, int], set[str]]:
    """The docstore of ``final`` made from the earlier one: a document whose text and
    metadata are unchanged keeps its row as stored (the row a full build writes for it,
    since a record is made from these alone), the others are made anew; rows in the order
    of ``final``, as a build adds them. Also returns the earlier texts by id and how many
    documents changed, were added and removed, and the ids of the rows made anew.

    ``as_read``: the ``id()`` of the final documents that are the earlier unchained ones
    as read, nothing chained into them: with the stored text, such a document's stored
    row was made from it (the same label, category and classes, nothing chained), so
    its metadata is not compared again."""
    old = pq.read_table(folder / DOCUMENTS_FILE)
    if (old.schema.metadata or {}).get(FORMAT_KEY) != DOCUMENTS_FORMAT or any(
            name not in old.column_names for name in FIELDS):
        raise IndexFormatError(f"{folder / DOCUMENTS_FILE} is not a documents file this "
                               "version writes: build the index again")
    old = old.select(list(FIELDS))
    ids = old.column("doc_id").to_pylist()
    texts = old.column("text").to_pylist()
    metadata = old.column("metadata").to_pylist()
    row_of = {d: i for i, d in enumerate(ids)}
    kept: list[int] = []
    fresh: list[DocumentRecord] = []
    fresh_ids: list[str] = []
    position: list[int] = []  # row of each final document in kept + fresh
    changed = added = 0
    for d in final:
        i = row_of.get(d.uri)
        if i is not None and texts[i] == d.text and (
                id(d) in as_read or metadata[i] == _metadata_json(d)):
            position.append(len(kept))
            kept.append(i)
            continue
        if i is None:
            added += 1
        elif texts[i] != d.text:
            changed += 1
        position.append(-1 - len(fresh))
        fresh.append(DocumentRecord.from_node(to_document(d)))
        fresh_ids.append(d.uri)
    made = pa.Table.from_pydict(
        {"doc_id": fresh_ids, **{name: [getattr(r, name) for r in fresh]
                                 for name in FIELDS[1:]}}, schema=DOCUMENT_SCHEMA)
    table = pa.concat_tables([old.take(pa.array(kept, pa.int64())).cast(DOCUMENT_SCHEMA),
                              made]).combine_chunks()
    order = [p if p >= 0 else len(kept) - 1 - p for p in position]
    docstore = CrmDocumentStore(triple_store=triples)
    docstore._rows = DocumentTable(table.take(pa.array(order, pa.int64())))  # noqa: SLF001
    new_ids = {d.uri for d in final}
    old_texts = dict(zip(ids, texts, strict=True))
    return docstore, old_texts, {"changed": changed, "added": added,
                                 "removed": sum(1 for d in ids if d not in new_ids)}, \
        set(fresh_ids)


def _stats(folder: Path, source: DeltaSource, entities: int, docs: list[EntityDocument],
           final: list[EntityDocument], no_doc: list[str], was: list[str],
           ontology: Ontology, triples: int) -> BuildStats:
    """The build figures of the updated graph: the old ones, corrected for what changed."""
    old = json.loads((folder / MANIFEST).read_text()).get("stats", {})
    stats = BuildStats(**{k: v for k, v in old.items() if k in BuildStats.__dataclass_fields__})
    old_store = DeltaSource(source.store, GraphDelta(), "")
    before = select_entities([u for u in was if old_store.outgoing(u)], ())
    was_sat, was_unc = _classify(old_store, before, ontology)
    now_sat, now_unc = _classify(source, no_doc, ontology)
    stats.satellites_absorbed += now_sat - was_sat
    stats.uncategorised += now_unc - was_unc
    stats.entities = entities
    stats.documents = len(final)
    stats.documents_chained = len(docs) - len(final)
    stats.triples_archived = triples
    return stats


class _Entities:
    """``node in entities``: whether a node is an entity after the delta, found from its
    own triples (:meth:`DeltaSource.is_entity`) rather than by listing every entity."""

    def __init__(self, source: DeltaSource) -> None:
        self._source = source
        self._known: dict[str, bool] = {}

    def __contains__(self, node: object) -> bool:
        if not isinstance(node, str):
            return False
        found = self._known.get(node)
        if found is None:
            found = self._known[node] = self._source.is_entity(node)
        return found


def _resolve(source: DeltaSource, nodes: list[str], ontology: Ontology) -> pa.Table:
    """(term, label, rank) of ``nodes`` resolved in the updated graph."""
    nb = Neighbourhood(ontology)
    if nodes:
        nb.add(source.fetch(nodes, incoming=False), described=nodes)
    lab = Labeller(nb)
    found: dict[str, tuple[str, bool]] = {}
    for _ in range(10):
        found = {n: lab.resolve(n) for n in nodes}
        if not nb.has_missing:
            break
        nb.fetch_missing(source)
        lab.forget_missing()
    return pa.table({"term": pa.array(nodes, pa.string()),
                     "label": pa.array([found[n][0] for n in nodes], pa.string()),
                     "rank": pa.array([1 if found[n][1] else 2 for n in nodes], pa.int8())})
