"""Why each source is in the context: the graph path from what the question names to it.

:class:`SourcePathPostprocessor` finds, for every selected document, the cheapest path
through the triple store from the document the question names (its anchor) to the
document, and writes it in labels with the CRM properties walked, e.g.::

    Panagia Phorbiottissa (Asinou) → P108i was produced by → Construction of the Panagia
    Phorbiottissa, Asinou → P14 carried out by → Nikephoros Ischyrios

A step walked against a triple's direction is written with the inverse property
(``P55i currently holds``). Steps cost ``2 − weight`` (``relationship_weights.json``: a
production step is cheaper than a type), at most :data:`DEFAULT_MAX_HOPS` steps; schema
predicates and literals are never walked, and nodes with more triples than
``max_intermediate_degree`` (a museum, a nationality) are not walked through. The anchor
itself gets the zero-step path (its label); a document no path reaches within the limits
gets none (it is in the context for its words alone).

The paths go to ``metadata["fr_paths"]``, hidden from embeddings and the LLM like the
cited triples.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.schema import NodeWithScore, QueryBundle

from llama_index_crm.graph.channels import name_tokens
from llama_index_crm.ontology import Ontology
from llama_index_crm.postprocessors.adjacency import (
    DEFAULT_MAX_INTERMEDIATE_DEGREE,
    PredicateWeights,
    selected_entities,
)
from llama_index_crm.postprocessors.base import GraphPostprocessor
from llama_index_crm.postprocessors.coherent import PlanProvider
from llama_index_crm.postprocessors.triple_context import (
    ARROW,
    TripleContextBuilder,
    hidden_metadata_copy,
)
from llama_index_crm.rdf import local_name
from llama_index_crm.storage.triples import TripleStore

__all__ = [
    "DEFAULT_MAX_HOPS",
    "PATHS_KEY",
    "ScratchPool",
    "SourcePathPostprocessor",
    "cheapest_paths",
]

DEFAULT_MAX_HOPS = 4
"""Longest path searched, in triples."""
MAX_STEPS_PER_HOP = 500_000
"""Triples one hop may relax before the search stops widening (bounds a question's cost)."""
PATHS_KEY = "fr_paths"
MAX_IDLE_SCRATCH = 8
"""Sets of work arrays a :class:`ScratchPool` keeps between searches (more are made when
more searches run at once, and dropped after)."""
"""Metadata key of a source's paths (hidden from embeddings and the LLM)."""
_CODE_NAME = "_"

Step = tuple[int, int, int]
"""A triple ``(s, p, o)`` as term ids."""


def cheapest_paths(
    store: TripleStore,
    weights: PredicateWeights,
    start: np.ndarray,
    targets: dict[int, int],
    *,
    max_hops: int = DEFAULT_MAX_HOPS,
    max_degree: int = DEFAULT_MAX_INTERMEDIATE_DEGREE,
    pool: ScratchPool | None = None,
) -> dict[int, tuple[int, list[Step]]]:
    """The cheapest paths of at most ``max_hops`` triples from ``start`` to the documents
    owning ``targets``, searched a hop at a time over the whole frontier (vectorised).

    A step costs ``2 − weight``; a node's best cost so far is kept, and each hop relaxes
    every triple of the nodes whose cost improved in the hop before, so after ``max_hops``
    hops every node holds its cheapest path of at most that many steps.

    Args:
        store: The graph.
        weights: Relationship weight per predicate id (a step costs ``2 − weight``).
        start: Term ids the paths start from (an anchor document's entities).
        targets: Term id → the index of the document it belongs to.
        max_hops: Longest path, in triples.
        max_degree: Nodes with more triples are reached but not walked through.
        pool: Where the per-node work arrays come from (a set no other search is using);
            None: arrays made for this search alone.

    Returns:
        Document index → ``(first node of the path, its triples in walking order)``; the
        path of a document reached at a start node is empty.
    """
    start = np.unique(np.asarray(start, dtype=np.int64))
    if pool is None:
        return _search(store, weights, start, targets, max_hops, max_degree,
                       _Scratch(store.terms))
    with pool.borrow() as scratch:
        return _search(store, weights, start, targets, max_hops, max_degree, scratch)


def _search(store: TripleStore, weights: PredicateWeights, start: np.ndarray,
            targets: dict[int, int], max_hops: int, max_degree: int,
            scratch: _Scratch) -> dict[int, tuple[int, list[Step]]]:
    """:func:`cheapest_paths` on work arrays this search alone uses; they are left clean
    (every cost infinite, every source -1), even when the search fails."""
    cost, src, pred, fwd = scratch.cost, scratch.src, scratch.pred, scratch.forward
    touched = [start]
    cost[start] = 0.0
    frontier = start
    try:
        for hop in range(max_hops):
            if hop:
                frontier = frontier[store.degrees(frontier) <= max_degree]
            if not len(frontier):
                break
            owner, preds, others, forward = store.edges(frontier)
            keep = ~weights.schema(preds) & ~store.is_literal[others]
            owner, preds, others, forward = owner[keep], preds[keep], others[keep], forward[keep]
            if len(preds) > MAX_STEPS_PER_HOP:
                break  # the hop would sweep a large part of the graph
            totals = cost[frontier[owner]] + (2.0 - weights(preds).astype(np.float64))
            order = np.lexsort((totals, others))  # the cheapest step into each node first
            first = np.ones(len(order), dtype=bool)
            first[1:] = others[order][1:] != others[order][:-1]
            best = order[first]
            better = best[totals[best] < cost[others[best]]]
            nodes = others[better]
            cost[nodes] = totals[better]
            src[nodes] = frontier[owner[better]]
            pred[nodes] = preds[better]
            fwd[nodes] = forward[better]
            touched.append(nodes)
            frontier = nodes
        reached = np.fromiter(targets, dtype=np.int64, count=len(targets))
        reached = reached[np.isfinite(cost[reached])]
        found: dict[int, tuple[int, list[Step]]] = {}
        for node in reached[np.argsort(cost[reached], kind="stable")].tolist():
            doc = targets[node]
            if doc in found:
                continue
            steps: list[Step] = []
            at = node
            while src[at] >= 0:
                before = int(src[at])
                p = int(pred[at])
                steps.append((before, p, at) if fwd[at] else (at, p, before))
                at = before
            found[doc] = (at, steps[::-1])
        return found
    finally:  # leave the scratch arrays clean for the next search
        for nodes in touched:
            cost[nodes] = np.inf
            src[nodes] = -1


class _Scratch:
    """Per-node arrays of one path search over a store (clean: costs infinite, no sources)."""

    def __init__(self, terms: int) -> None:
        self.cost = np.full(terms, np.inf)
        self.src = np.full(terms, -1, dtype=np.int64)
        self.pred = np.zeros(terms, dtype=np.int64)
        self.forward = np.zeros(terms, dtype=bool)


class ScratchPool:
    """Clean work arrays for the path searches over one store, lent one set per search.

    A search borrows a set no other search holds and gives it back clean, so searches in
    several threads (a web server, ``aquery`` under ``asyncio.gather``) never share one.
    At most :data:`MAX_IDLE_SCRATCH` sets are kept between searches: memory is bounded by
    the number of searches running at once.

    Args:
        terms: The store's number of terms (the length of each array).
    """

    def __init__(self, terms: int) -> None:
        self.terms = terms
        self._idle: list[_Scratch] = []
        self._lock = threading.Lock()

    @contextmanager
    def borrow(self) -> Iterator[_Scratch]:
        """A clean set of arrays, this caller's alone until the block ends."""
        with self._lock:
            scratch = self._idle.pop() if self._idle else None
        if scratch is None:
            scratch = _Scratch(self.terms)
        yield scratch  # a search that fails part-way still cleans its arrays (_search)
        with self._lock:
            if len(self._idle) < MAX_IDLE_SCRATCH:
                self._idle.append(scratch)

    @property
    def idle(self) -> int:
        """Sets kept for the next searches."""
        return len(self._idle)


class SourcePathPostprocessor(GraphPostprocessor):
    """Write each source's path from the question's anchor into its metadata (see module).

    Args:
        triple_store: The graph (required before use).
        ontology: Predicate weights, labels and inverses (:meth:`Ontology.default` if None).
        plan_provider: Query string → plan; its anchors (the names the question gives)
            choose the documents the paths start from. Without it, or when no selected
            document bears such a name, the paths start from the first document.
        **params: The pydantic fields below.
    """

    max_hops: int = Field(default=DEFAULT_MAX_HOPS, ge=0, description="Longest path.")
    max_paths: int = Field(default=2, ge=1, description="Paths kept per source (one per "
                           "anchor, cheapest first).")
    max_intermediate_degree: int = Field(
        default=DEFAULT_MAX_INTERMEDIATE_DEGREE, ge=0,
        description="Nodes with more triples are not walked through.")

    _store: TripleStore | None = PrivateAttr(default=None)
    _ontology: Ontology | None = PrivateAttr(default=None)
    _plan_provider: PlanProvider | None = PrivateAttr(default=None)
    _builder: TripleContextBuilder | None = PrivateAttr(default=None)
    _pool: ScratchPool | None = PrivateAttr(default=None)

    def __init__(self, triple_store: TripleStore | None = None,
                 ontology: Ontology | None = None,
                 plan_provider: PlanProvider | None = None, **params: Any) -> None:
        super().__init__(**params)
        self._store = triple_store
        self._ontology = ontology
        self._plan_provider = plan_provider

    @classmethod
    def from_components(cls, triple_store: TripleStore, ontology: Ontology | None = None,
                        plan_provider: PlanProvider | None = None,
                        **params: Any) -> SourcePathPostprocessor:
        """A path finder over ``triple_store`` (see the class arguments)."""
        return cls(triple_store=triple_store, ontology=ontology, plan_provider=plan_provider,
                   **params)

    @classmethod
    def class_name(cls) -> str:
        """Name under which LlamaIndex identifies this component."""
        return "SourcePathPostprocessor"

    def _get_builder(self) -> TripleContextBuilder:
        if self._store is None:
            raise ValueError("SourcePathPostprocessor needs a triple store: build it with "
                             "from_components(docstore.triples)")
        if self._builder is None:
            builder = TripleContextBuilder(self._store, self._ontology)
            self._pool = ScratchPool(builder.store.terms)
            self._builder = builder
        return self._builder

    def _scratch_pool(self) -> ScratchPool:
        builder = self._get_builder()
        pool = self._pool
        if pool is None or pool.terms != builder.store.terms:
            pool = self._pool = ScratchPool(builder.store.terms)
        return pool

    def anchors(self, nodes: Sequence[NodeWithScore],
                query_bundle: QueryBundle | None) -> list[int]:
        """Indices of the documents the question names (exactly, else within a label),
        else the first document."""
        plan = (self._plan_provider(query_bundle.query_str)
                if self._plan_provider is not None and query_bundle is not None else None)
        wanted = [t for t in (name_tokens(a) for a in (plan.anchors if plan else ())) if t]
        labels = [name_tokens(str(n.node.metadata.get("label", ""))) for n in nodes]
        exact = [i for i, label in enumerate(labels) if label in wanted]
        if exact:
            return exact
        within = [i for i, label in enumerate(labels)
                  if any(label[j:j + len(w)] == w for w in wanted for j in range(len(label)))]
        return within[:1] or ([0] if nodes else [])

    def predicate(self, p_id: int, forward: bool) -> str:
        """A property as walked: ``P108i was produced by``, or its inverse when walked
        against the triple (a property without a CRM inverse: ``is <label> of``)."""
        builder = self._get_builder()
        iri = builder.store.term(p_id)
        if not forward:
            inverse = builder.ontology.inverse(iri)
            if inverse:
                return inverse.replace(_CODE_NAME, " ")
            return f"is {builder.store.label_of(p_id) or local_name(iri)} of"
        name = builder.ontology.canonical(iri)
        if name:
            return name.replace(_CODE_NAME, " ")
        return builder.store.label_of(p_id) or local_name(iri)

    def render(self, first: int, steps: Sequence[Step], names: dict[int, str]) -> str:
        """``A → P108i was produced by → B → P14 carried out by → C`` from walked triples."""
        builder = self._get_builder()
        parts = [builder.name(first, names)]
        at = first
        for s, p, o in steps:
            forward = s == at
            at = o if forward else s
            parts += [self.predicate(p, forward), builder.name(at, names)]
        return ARROW.join(parts)

    def _postprocess_nodes(
        self,
        nodes: list[NodeWithScore],
        query_bundle: QueryBundle | None = None,
    ) -> list[NodeWithScore]:
        """Each node replaced by a copy whose ``metadata["fr_paths"]`` holds its paths."""
        builder = self._get_builder()
        store = builder.store
        pool = self._scratch_pool()
        entities, names = selected_entities(store, nodes)
        targets: dict[int, int] = {}
        for i, ids in enumerate(entities):
            for term in ids.tolist():
                targets.setdefault(int(term), i)
        found: list[list[tuple[int, str]]] = [[] for _ in nodes]
        for anchor in self.anchors(nodes, query_bundle):
            reached = cheapest_paths(store, builder.weights, entities[anchor], targets,
                                     max_hops=self.max_hops,
                                     max_degree=self.max_intermediate_degree, pool=pool)
            for doc, (first, steps) in reached.items():
                found[doc].append((len(steps), self.render(first, steps, names)))
        out = []
        for node, paths in zip(nodes, found, strict=True):
            texts = list(dict.fromkeys(text for _, text in sorted(paths)))[: self.max_paths]
            out.append(NodeWithScore(node=hidden_metadata_copy(node.node, {PATHS_KEY: texts}),
                                     score=node.score))
        return out
