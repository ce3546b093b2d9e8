"""Re-ranking a candidate pool into a connected, relevant, diverse subgraph.

:class:`CoherentSubgraphPostprocessor` picks documents greedily: first the most relevant,
then each round the candidate ``d`` that maximises

    α·rel(d) + (1−α)·conn(d, S) − λ·max_{s∈S} cos(e_d, e_s) + boost(d) − penalty(d)

where ``rel`` is the retrieval score min-max normalised over the pool, ``conn`` the
normalised adjacency (:mod:`.adjacency`) summed over the selected set ``S`` and clipped to
``[0, 1]``, ``boost`` the ``target_boost`` for a document of a category the query plan asks
for, and ``penalty`` the ``hub_penalty`` for an entity with more than ``hub_triples``
triples. A document's artist, place or production thus climbs past an unrelated candidate
of slightly higher score.

Usage::

    reranker = CoherentSubgraphPostprocessor.from_components(
        docstore.triples, vectors=vector_lookup, plan_provider=analyzer.plan)
    nodes = reranker.postprocess_nodes(pool, query_str="Who founded the church at Asinou?")
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, TypeAlias

import numpy as np
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.schema import NodeWithScore, QueryBundle

from llama_index_crm.events import emit
from llama_index_crm.ontology import Ontology
from llama_index_crm.postprocessors.adjacency import (
    DEFAULT_MAX_INTERMEDIATE_DEGREE,
    PredicateWeights,
    document_edges,
    document_entities,
    normalise,
    pool_adjacency,
    term_degrees,
)
from llama_index_crm.postprocessors.base import GraphPostprocessor
from llama_index_crm.query.plan import QueryPlan
from llama_index_crm.storage.triples import TripleStore

__all__ = [
    "DEFAULT_TOP_N",
    "CoherentSubgraphPostprocessor",
    "PlanProvider",
    "SelectionTrace",
    "VectorLookup",
    "greedy_select",
    "min_max",
]

VectorLookup: TypeAlias = Mapping[str, np.ndarray] | Callable[[str], "np.ndarray | None"]
"""Document id -> normalised embedding (a mapping or a function; ``None`` when unknown)."""

PlanProvider: TypeAlias = Callable[[str], "QueryPlan | None"]
"""Query string -> its :class:`QueryPlan` (``None`` when there is none)."""

DEFAULT_TOP_N = 10
"""Documents kept when neither ``top_n`` nor a query plan says how many."""

CACHE_EDGES = 4_000_000
"""Triples remembered across queries (ids and weights of each document's edges, about
12 bytes a triple): resolving IRIs and gathering triples is most of a pool's cost."""


class _DocGraph(NamedTuple):
    """A pool document as the adjacency sees it."""

    own: int
    """Term id of the document's own entity (-1 when absent from the store)."""
    entities: np.ndarray
    """Term ids of its entities (own and chained)."""
    edges: tuple[np.ndarray, np.ndarray]
    """Its :func:`document_edges`."""


class SelectionTrace(NamedTuple):
    """One coherent selection, step by step (for notebooks and explanations).

    Attributes:
        pool: the candidates, one node per document, in pool order.
        adjacency: raw N×N weights among them (:func:`pool_adjacency`).
        connectivity: the normalised adjacency the objective reads.
        relevance: min-max normalised pool scores.
        adjust: per candidate, target boost minus hub penalty.
        order: indices into ``pool`` in selection order.
        objective: each selected candidate's objective when picked.
        k: documents asked for.
        targets: the plan's target categories.
    """

    pool: list[NodeWithScore]
    adjacency: np.ndarray
    connectivity: np.ndarray
    relevance: np.ndarray
    adjust: np.ndarray
    order: list[int]
    objective: list[float]
    k: int
    targets: set[str]


def min_max(scores: np.ndarray) -> np.ndarray:
    """Scores rescaled to ``[0, 1]`` over the pool (all ones when they are all equal)."""
    low, high = float(scores.min()), float(scores.max())
    if high - low <= 1e-12:
        return np.ones_like(scores)
    return (scores - low) / (high - low)


def greedy_select(
    relevance: np.ndarray,
    connectivity: np.ndarray,
    *,
    k: int,
    alpha: float,
    lam: float,
    adjust: np.ndarray | None = None,
    embeddings: np.ndarray | None = None,
) -> tuple[list[int], list[float]]:
    """Greedy coherent selection over a pool.

    Args:
        relevance: Per candidate, its relevance in ``[0, 1]``.
        connectivity: The normalised N×N adjacency.
        k: How many to select (at most the pool size).
        alpha: Weight of relevance against connectivity.
        lam: Weight of the redundancy penalty (max cosine to the selected set).
        adjust: Per candidate, an additive term (target boost minus hub penalty).
        embeddings: N×d normalised vectors (zero rows for unknown ones); ``None`` means no
            redundancy term.

    Returns:
        Indices in selection order and each one's objective when selected. The first is the
        most relevant candidate (ties: the earlier one); its objective has no ``conn`` or
        redundancy part.
    """
    n = len(relevance)
    k = min(k, n)
    if k <= 0:
        return [], []
    bonus = np.zeros(n) if adjust is None else adjust
    chosen = np.zeros(n, dtype=bool)
    conn = np.zeros(n)
    redundancy = np.zeros(n)
    base = alpha * relevance + bonus
    pick = int(np.argmax(relevance))
    order, scores = [pick], [float(base[pick])]
    while True:
        chosen[pick] = True
        conn += connectivity[:, pick]
        if embeddings is not None:
            similarity = embeddings @ embeddings[pick]
            redundancy = similarity if len(order) == 1 else np.maximum(redundancy, similarity)
        if len(order) == k:
            return order, scores
        objective = base + (1.0 - alpha) * np.clip(conn, 0.0, 1.0) - lam * redundancy
        objective[chosen] = -np.inf
        pick = int(np.argmax(objective))
        order.append(pick)
        scores.append(float(objective[pick]))


class CoherentSubgraphPostprocessor(GraphPostprocessor):
    """Select a coherent subgraph of the candidate pool (see the module docstring).

    ``conn(d, S)`` is the sum of the normalised adjacency ``D^-1/2 (A+I) D^-1/2`` between
    ``d`` and the selected documents, clipped to ``[0, 1]``: one strong neighbour counts
    about as much as many weak ones, and connectivity cannot outweigh relevance. The first
    pick is the most relevant candidate whatever its boost or penalty; each output node
    carries its objective at selection as ``score`` (so scores need not decrease). A
    document's entity ids and weighted edges are cached by document id across queries
    (about :data:`CACHE_EDGES` triples), as resolving IRIs is most of a cold pool's cost.

    Args:
        triple_store: The graph the adjacency is read from (required before use).
        vectors: Document id -> normalised embedding; without it a node's own
            ``embedding`` is used, and without either the redundancy term is 0.
        ontology: Relationship weights (:meth:`Ontology.default` when ``None``).
        plan_provider: Query string -> :class:`QueryPlan`, for ``k`` and target categories.
        **params: The pydantic fields below.
    """

    alpha: float = Field(default=0.7, ge=0.0, le=1.0,
                         description="Weight of relevance against connectivity.")
    lam: float = Field(default=0.2, ge=0.0, description="Weight of the redundancy penalty.")
    target_boost: float = Field(default=0.10, description="Added for a target category.")
    hub_penalty: float = Field(default=0.15, description="Subtracted for a hub entity.")
    hub_triples: int = Field(default=2000, ge=0,
                             description="An entity with more triples is a hub.")
    max_intermediate_degree: int = Field(
        default=DEFAULT_MAX_INTERMEDIATE_DEGREE, ge=0,
        description="Nodes with more triples do not mediate virtual edges.")
    top_n: int | None = Field(default=None, ge=1,
                              description="Documents kept; None: the plan's k, else 10.")

    _store: TripleStore | None = PrivateAttr(default=None)
    _vectors: VectorLookup | None = PrivateAttr(default=None)
    _ontology: Ontology | None = PrivateAttr(default=None)
    _plan_provider: PlanProvider | None = PrivateAttr(default=None)
    _weights: PredicateWeights | None = PrivateAttr(default=None)
    _cache: dict[str, _DocGraph] = PrivateAttr(default_factory=dict)
    _cached_edges: int = PrivateAttr(default=0)

    def __init__(
        self,
        triple_store: TripleStore | None = None,
        vectors: VectorLookup | None = None,
        ontology: Ontology | None = None,
        plan_provider: PlanProvider | None = None,
        **params: Any,
    ) -> None:
        super().__init__(**params)
        self._store = triple_store
        self._vectors = vectors
        self._ontology = ontology
        self._plan_provider = plan_provider

    @classmethod
    def from_components(
        cls,
        triple_store: TripleStore,
        vectors: VectorLookup | None = None,
        ontology: Ontology | None = None,
        plan_provider: PlanProvider | None = None,
        **params: Any,
    ) -> CoherentSubgraphPostprocessor:
        """A re-ranker over ``triple_store`` (see the class arguments)."""
        return cls(triple_store=triple_store, vectors=vectors, ontology=ontology,
                   plan_provider=plan_provider, **params)

    @classmethod
    def class_name(cls) -> str:
        """Name under which LlamaIndex identifies this component."""
        return "CoherentSubgraphPostprocessor"

    # ------------------------------------------------------------------ pieces
    def _graph(self) -> tuple[TripleStore, PredicateWeights]:
        if self._store is None:
            raise ValueError("CoherentSubgraphPostprocessor needs a triple store: build it "
                             "with from_components(docstore.triples, ...)")
        if self._weights is None:
            self._weights = PredicateWeights(self._store, self._ontology)
        return self._store, self._weights

    def _doc_graph(self, node: NodeWithScore, store: TripleStore,
                   weights: PredicateWeights) -> _DocGraph:
        """The document's entity ids and weighted edges (cached by document id)."""
        doc_id = node.node.node_id
        found = self._cache.get(doc_id)
        if found is None:
            meta = node.node.metadata
            own, ids = document_entities(store, str(meta.get("uri", doc_id)),
                                         meta.get("chained_from") or ())
            found = _DocGraph(-1 if own is None else own, ids,
                              document_edges(ids, store, weights))
            if self._cached_edges > CACHE_EDGES:
                self._cache.clear()
                self._cached_edges = 0
            self._cache[doc_id] = found
            self._cached_edges += len(found.edges[0]) + len(ids)
        return found

    def _vector(self, node: NodeWithScore) -> np.ndarray | None:
        doc_id = node.node.node_id
        found: Any = None
        if isinstance(self._vectors, Mapping):
            found = self._vectors.get(doc_id)
        elif self._vectors is not None:
            found = self._vectors(doc_id)
        if found is None:
            found = node.node.embedding
        return None if found is None else np.asarray(found, dtype=np.float32)

    def _embeddings(self, nodes: Sequence[NodeWithScore]) -> np.ndarray | None:
        found = [self._vector(n) for n in nodes]
        dims = {len(v) for v in found if v is not None}
        if len(dims) != 1:
            return None
        matrix = np.zeros((len(nodes), dims.pop()), dtype=np.float32)
        for row, vector in enumerate(found):
            if vector is not None:
                matrix[row] = vector
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.where(norms > 0, norms, 1.0)

    def _plan(self, query_bundle: QueryBundle | None) -> QueryPlan | None:
        if self._plan_provider is None or query_bundle is None:
            return None
        return self._plan_provider(query_bundle.query_str)

    # ------------------------------------------------------------------ postprocess
    def trace(self, nodes: list[NodeWithScore],
              query_bundle: QueryBundle | None = None) -> SelectionTrace:
        """Every quantity of one selection (what :meth:`postprocess_nodes` decides from).

        Args:
            nodes: the candidate pool (a document listed twice counts once, best score).
            query_bundle: the query, for the plan's ``k`` and target categories.
        """
        store, weights = self._graph()
        best: dict[str, NodeWithScore] = {}
        for node in nodes:
            seen = best.get(node.node.node_id)
            if seen is None or (node.score or 0.0) > (seen.score or 0.0):
                best[node.node.node_id] = node
        pool = list(best.values())
        plan = self._plan(query_bundle)
        k = self.top_n or (plan.k if plan is not None else DEFAULT_TOP_N)
        targets = set(plan.target_categories) if plan is not None else set()
        if not pool:
            empty = np.zeros((0, 0))
            return SelectionTrace(pool, empty, empty, np.zeros(0), np.zeros(0), [], [], k,
                                  targets)
        graphs = [self._doc_graph(n, store, weights) for n in pool]
        raw = pool_adjacency([g.entities for g in graphs], store, weights,
                             max_intermediate_degree=self.max_intermediate_degree,
                             edges=[g.edges for g in graphs])
        own = np.array([g.own for g in graphs], dtype=np.int64)
        degrees = np.zeros(len(pool), dtype=np.int64)
        degrees[own >= 0] = term_degrees(store, own[own >= 0])
        adjust = np.where(degrees > self.hub_triples, -self.hub_penalty, 0.0)
        adjust += np.array([self.target_boost if n.node.metadata.get("category") in targets
                            else 0.0 for n in pool])
        relevance = min_max(np.array([n.score or 0.0 for n in pool], dtype=np.float64))
        connectivity = normalise(raw)
        order, objective = greedy_select(
            relevance, connectivity, k=k, alpha=self.alpha, lam=self.lam, adjust=adjust,
            embeddings=self._embeddings(pool))
        return SelectionTrace(pool, raw, connectivity, relevance, adjust, order, objective, k,
                              targets)

    def _postprocess_nodes(
        self,
        nodes: list[NodeWithScore],
        query_bundle: QueryBundle | None = None,
    ) -> list[NodeWithScore]:
        """Select ``top_n`` (or the plan's ``k``) documents of ``nodes`` greedily."""
        found = self.trace(nodes, query_bundle)
        selected = [NodeWithScore(node=found.pool[i].node, score=s)
                    for i, s in zip(found.order, found.objective, strict=True)]
        emit("coherent", query_bundle.query_str if query_bundle else "", selected,
             alpha=self.alpha, lam=self.lam, target_boost=self.target_boost,
             hub_penalty=self.hub_penalty, hub_triples=self.hub_triples,
             max_intermediate_degree=self.max_intermediate_degree, k=found.k,
             pool=len(found.pool), target_categories=sorted(found.targets))
        return selected
