"""The weighted adjacency among a pool of candidate documents, read from the triple store.

A document stands for its own entity and the thin documents chained onto it
(``metadata["chained_from"]``). Two documents are linked

* **directly** when a triple joins one's entities to the other's, with the weight of the
  strongest predicate between them (``Ontology.weight``: location 0.9, production 0.85, ...);
* **virtually** through one node outside the pool (a production event, a place, a type)
  that both reach, with weight ``w_a * w_b / 2`` (the max over such nodes, and with the
  direct edge). Literals never mediate, nor do nodes with more than
  ``max_intermediate_degree`` triples: a museum or a nationality would link everything.

Schema predicates (``rdf:type``, ``rdfs:label``, ``owl:*``, SKOS labels) carry no weight.
The cost is bounded by the pool and the degrees of its entities, never by the graph.

>>> from llama_index_crm.rdf import Triple
>>> store = TripleStore.from_triples([
...     Triple("ex:work", "http://www.cidoc-crm.org/cidoc-crm/P108i_was_produced_by", "ex:prod"),
...     Triple("ex:prod", "http://www.cidoc-crm.org/cidoc-crm/P14_carried_out_by", "ex:artist"),
... ])
>>> weights = PredicateWeights(store)
>>> raw = pool_adjacency([entity_ids(store, ["ex:work"]), entity_ids(store, ["ex:artist"])],
...                      store, weights)
>>> round(float(raw[0, 1]), 4)  # virtual, through the production: 0.85 * 0.85 / 2
0.3613
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from llama_index.core.schema import NodeWithScore

from llama_index_crm.ontology import OWL, RDF, RDFS, SKOS, Ontology
from llama_index_crm.storage.triples import TripleStore

__all__ = [
    "DEFAULT_MAX_INTERMEDIATE_DEGREE",
    "SCHEMA_PREDICATES",
    "VIRTUAL_FACTOR",
    "PredicateWeights",
    "document_edges",
    "document_entities",
    "entity_ids",
    "is_schema_predicate",
    "normalise",
    "pool_adjacency",
    "selected_entities",
    "term_degrees",
]

DEFAULT_MAX_INTERMEDIATE_DEGREE = 2_000
"""Nodes with more triples than this do not mediate virtual edges."""

NEIGHBOUR_MATCH_MIN = 4
"""Above this many chained IRIs, :func:`document_entities` matches them among neighbours."""

VECTOR_GATHER_MIN = 32
"""Above this many entities, :func:`document_edges` gathers outgoing triples in one pass."""

VIRTUAL_FACTOR = 0.5
"""A virtual edge through one intermediate weighs ``w_a * w_b * VIRTUAL_FACTOR``."""

SKOS_XL = "http://www.w3.org/2008/05/skos-xl#"

SCHEMA_PREDICATES: frozenset[str] = frozenset({
    f"{RDF}type",
    f"{RDFS}label",
    f"{RDFS}subClassOf",
    f"{RDFS}subPropertyOf",
    f"{RDFS}domain",
    f"{RDFS}range",
    f"{SKOS}prefLabel",
    f"{SKOS}altLabel",
    f"{SKOS}hiddenLabel",
    f"{SKOS_XL}prefLabel",
    f"{SKOS_XL}altLabel",
    f"{SKOS_XL}hiddenLabel",
    f"{SKOS_XL}literalForm",
})
"""Predicates that describe the vocabulary or name a node rather than relate two entities."""


def is_schema_predicate(iri: str) -> bool:
    """True for ``rdf:type``, ``rdfs:label``, ``owl:*`` and the SKOS label predicates."""
    return iri in SCHEMA_PREDICATES or iri.startswith(str(OWL))


class PredicateWeights:
    """Relationship weight per predicate id, computed once per predicate and kept.

    A float vector indexed by term id is filled lazily (``NaN`` = not yet computed) from
    :meth:`Ontology.weight` of the predicate's canonical name; schema predicates weigh 0.

    Args:
        store: The triple store whose term ids index the vector.
        ontology: Where the weights come from (:meth:`Ontology.default` when ``None``).
    """

    def __init__(self, store: TripleStore, ontology: Ontology | None = None) -> None:
        self._store = store
        self._ontology = ontology or Ontology.default()
        self._weights = np.full(store.terms, np.nan, dtype=np.float32)
        self._schema = np.zeros(store.terms, dtype=bool)

    def _fill(self, p_ids: np.ndarray) -> None:
        missing = p_ids[np.isnan(self._weights[p_ids])]
        if not missing.size:  # the usual case: every predicate seen before
            return
        for pid in np.unique(missing).tolist():
            iri = self._store.term(pid)
            schema = is_schema_predicate(iri)
            self._schema[pid] = schema
            self._weights[pid] = 0.0 if schema else self._ontology.weight(iri)

    def __call__(self, p_ids: np.ndarray) -> np.ndarray:
        """Weights of ``p_ids`` (``float32``, 0 for schema predicates)."""
        self._fill(p_ids)
        return self._weights[p_ids]

    def schema(self, p_ids: np.ndarray) -> np.ndarray:
        """Boolean mask: which of ``p_ids`` are schema predicates."""
        self._fill(p_ids)
        return self._schema[p_ids]


def entity_ids(store: TripleStore, uris: Iterable[str]) -> np.ndarray:
    """Distinct term ids of ``uris`` (IRIs absent from the store are dropped)."""
    ids = [i for i in map(store.id_of, uris) if i is not None]
    return np.unique(np.asarray(ids, dtype=np.int64))


def document_entities(
    store: TripleStore, uri: str, chained_from: Sequence[str] = ()
) -> tuple[int | None, np.ndarray]:
    """``(id of uri, ids of uri and its chained entities)`` of one document.

    A thin document is chained onto a neighbour, so a long ``chained_from`` list is matched
    against the entity's neighbours in one pass (one binary search per IRI otherwise); the
    IRIs not found there (chained at one remove) are looked up one by one.

    Args:
        store: The graph.
        uri: The document's own entity.
        chained_from: The entities of the thin documents appended to it.
    """
    own = store.id_of(uri)
    ids = [] if own is None else [own]
    rest = list(chained_from)
    if own is not None and len(rest) > NEIGHBOUR_MATCH_MIN:
        wanted = set(rest)
        found = {term: int(i) for term, i in zip(store.neighbours(uri),
                                                 store.neighbour_ids(own).tolist(),
                                                 strict=True) if term in wanted}
        ids += found.values()
        rest = [u for u in rest if u not in found]
    ids += [i for i in map(store.id_of, rest) if i is not None]
    return own, np.unique(np.asarray(ids, dtype=np.int64))


def selected_entities(
    store: TripleStore, nodes: Sequence[NodeWithScore]
) -> tuple[list[np.ndarray], dict[int, str]]:
    """Per node, the term ids of its entities (:func:`document_entities`), and each node's
    own term id → its label (how a selected document is named in facts and paths)."""
    entities: list[np.ndarray] = []
    names: dict[int, str] = {}
    for node in nodes:
        meta = node.node.metadata
        own, ids = document_entities(store, str(meta.get("uri", node.node.node_id)),
                                     meta.get("chained_from") or ())
        entities.append(ids)
        if own is not None and meta.get("label"):
            names[own] = str(meta["label"])
    return entities, names


def term_degrees(store: TripleStore, ids: np.ndarray) -> np.ndarray:
    """Triples per term id (as subject plus as object), one look-up per id."""
    return np.fromiter(
        (len(store.out_ids(i)[0]) + len(store.in_ids(i)[0]) for i in ids.tolist()),
        dtype=np.int64, count=len(ids))


def _ranges(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """The positions ``start, start + 1, ..., start + size - 1`` of every range, in order."""
    ends = np.cumsum(sizes)
    return np.arange(int(ends[-1]) if len(ends) else 0) + np.repeat(starts - ends + sizes, sizes)


def document_edges(
    ids: np.ndarray, store: TripleStore, weights: PredicateWeights
) -> tuple[np.ndarray, np.ndarray]:
    """``(neighbour ids, weights)`` of the weighted triples touching a document's entities.

    Both directions count; schema predicates and literal neighbours are dropped.

    Args:
        ids: The term ids of the document's entities.
        store: The graph.
        weights: Relationship weight per predicate id.
    """
    preds: list[np.ndarray] = []
    nbrs: list[np.ndarray] = []
    if len(ids) > VECTOR_GATHER_MIN:  # outgoing triples of many entities: one gather
        starts = np.searchsorted(store.s_ids, ids, side="left")
        sizes = np.searchsorted(store.s_ids, ids, side="right") - starts
        rows = _ranges(starts, sizes)
        preds.append(store.p_ids[rows])
        nbrs.append(store.o_ids[rows])
        for entity in ids.tolist():
            p_in, s_in = store.in_ids(entity)
            preds.append(p_in)
            nbrs.append(s_in)
    else:
        for entity in ids.tolist():
            p_out, o_out = store.out_ids(entity)
            p_in, s_in = store.in_ids(entity)
            preds += (p_out, p_in)
            nbrs += (o_out, s_in)
    if not preds:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    pred = np.concatenate(preds)
    nbr = np.concatenate(nbrs).astype(np.int64)
    w = weights(pred)
    keep = (w > 0) & ~store.is_literal[nbr]
    return nbr[keep], w[keep]


def _group_pairs(starts: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every ordered pair of positions within each group ``[start, start + size)``."""
    members = _ranges(starts, sizes)
    group_size = np.repeat(sizes, sizes)
    a = np.repeat(members, group_size)
    b = _ranges(np.repeat(starts, sizes), group_size)
    return a, b


def pool_adjacency(
    entities: Sequence[np.ndarray],
    store: TripleStore,
    weights: PredicateWeights,
    *,
    max_intermediate_degree: int = DEFAULT_MAX_INTERMEDIATE_DEGREE,
    edges: Sequence[tuple[np.ndarray, np.ndarray]] | None = None,
) -> np.ndarray:
    """The raw symmetric N×N weights among pool documents (zero diagonal).

    Args:
        entities: Per document, the term ids of its entities (its uri and ``chained_from``).
            An entity listed by two documents counts for the first one only.
        store: The graph.
        weights: Relationship weight per predicate id.
        max_intermediate_degree: Nodes with more triples do not mediate virtual edges.
        edges: Per document, its :func:`document_edges` if already known (a cache).

    Returns:
        ``float64`` matrix: direct edges weigh the strongest predicate between the two
        documents; virtual ones ``w_a * w_b / 2`` through the best intermediate; the max of
        both where both exist.
    """
    n = len(entities)
    adjacency = np.zeros((n, n), dtype=np.float64)
    if edges is None:
        edges = [document_edges(ids, store, weights) for ids in entities]
    if not n or not sum(len(nbr) for nbr, _ in edges):
        return adjacency
    doc = np.repeat(np.arange(n), [len(nbr) for nbr, _ in edges])
    nbr = np.concatenate([nbr for nbr, _ in edges])
    w = np.concatenate([w for _, w in edges]).astype(np.float64)

    members = np.concatenate([np.asarray(e, dtype=np.int64) for e in entities])
    owners = np.repeat(np.arange(n), [len(e) for e in entities])
    order = np.argsort(members, kind="stable")
    members, owners = members[order], owners[order]
    pos = np.clip(np.searchsorted(members, nbr), 0, max(len(members) - 1, 0))
    direct = members[pos] == nbr if len(members) else np.zeros(len(nbr), dtype=bool)
    np.maximum.at(adjacency, (doc[direct], owners[pos[direct]]), w[direct])

    virtual = _virtual_edges(doc[~direct], nbr[~direct], w[~direct], n, store,
                             max_intermediate_degree)
    if virtual is not None:
        np.maximum.at(adjacency, virtual[:2], virtual[2])
    adjacency = np.maximum(adjacency, adjacency.T)
    np.fill_diagonal(adjacency, 0.0)
    return adjacency


def _virtual_edges(
    doc: np.ndarray, nbr: np.ndarray, w: np.ndarray, n: int, store: TripleStore,
    max_degree: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(doc_a, doc_b, weight)`` of the two-hop edges through non-pool nodes."""
    if not len(doc):
        return None
    key = nbr * n + doc
    order = np.lexsort((-w, key))
    key, w = key[order], w[order]
    first = np.ones(len(key), dtype=bool)
    first[1:] = key[1:] != key[:-1]
    key, w = key[first], w[first]  # one (intermediate, doc) pair: its strongest predicate
    mid, doc = key // n, key % n
    starts = np.flatnonzero(np.r_[True, mid[1:] != mid[:-1]])
    sizes = np.diff(np.r_[starts, len(mid)])
    shared = sizes > 1
    starts, sizes = starts[shared], sizes[shared]
    if not len(starts):
        return None
    light = term_degrees(store, mid[starts]) <= max_degree
    starts, sizes = starts[light], sizes[light]
    if not len(starts):
        return None
    a, b = _group_pairs(starts, sizes)
    distinct = a != b
    a, b = a[distinct], b[distinct]
    return doc[a], doc[b], w[a] * w[b] * VIRTUAL_FACTOR


def normalise(adjacency: np.ndarray) -> np.ndarray:
    """Symmetric normalisation ``D^-1/2 (A + I) D^-1/2`` (self-loops added).

    Args:
        adjacency: Raw symmetric weights with a zero diagonal.
    """
    looped = adjacency + np.eye(len(adjacency))
    scale = 1.0 / np.sqrt(looped.sum(axis=1))
    return np.asarray(looped * scale[:, None] * scale[None, :])
