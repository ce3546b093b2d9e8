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

from collections.abc import Sequence
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
    "SourcePathPostprocessor",
    "cheapest_paths",
]

DEFAULT_MAX_HOPS = 4
"""Longest path searched, in triples."""
MAX_STEPS_PER_HOP = 500_000
"""Triples one hop may relax before the search stops widening (bounds a question's cost)."""
PATHS_KEY = "fr_paths"
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

    Returns:
        Document index → ``(first node of the path, its triples in walking order)``; the
        path of a document reached at a start node is empty.
    """
    start = np.unique(np.asarray(start, dtype=np.int64))
    cost: dict[int, float] = {int(n): 0.0 for n in start}
    parent: dict[int, tuple[int, Step]] = {}
    frontier = start
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
        base = np.fromiter((cost[int(n)] for n in frontier[owner]), dtype=np.float64,
                           count=len(owner))
        totals = base + (2.0 - weights(preds).astype(np.float64))
        order = np.lexsort((totals, others))
        others, totals = others[order], totals[order]
        first = np.ones(len(others), dtype=bool)
        first[1:] = others[1:] != others[:-1]
        improved = []
        for i in np.flatnonzero(first).tolist():
            node, total = int(others[i]), float(totals[i])
            if total < cost.get(node, np.inf):
                j = order[i]
                src, p = int(frontier[owner[j]]), int(preds[j])
                cost[node] = total
                parent[node] = (src, (src, p, node) if forward[j] else (node, p, src))
                improved.append(node)
        frontier = np.asarray(improved, dtype=np.int64)
    found: dict[int, tuple[int, list[Step]]] = {}
    for node in sorted((n for n in cost if n in targets), key=lambda n: cost[n]):
        doc = targets[node]
        if doc in found:
            continue
        steps: list[Step] = []
        at = node
        while at in parent:
            at, step = parent[at]
            steps.append(step)
        found[doc] = (at, steps[::-1])
    return found


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
            self._builder = TripleContextBuilder(self._store, self._ontology)
        return self._builder

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
        entities, names = selected_entities(store, nodes)
        targets: dict[int, int] = {}
        for i, ids in enumerate(entities):
            for term in ids.tolist():
                targets.setdefault(int(term), i)
        found: list[list[tuple[int, str]]] = [[] for _ in nodes]
        for anchor in self.anchors(nodes, query_bundle):
            reached = cheapest_paths(store, builder.weights, entities[anchor], targets,
                                     max_hops=self.max_hops,
                                     max_degree=self.max_intermediate_degree)
            for doc, (first, steps) in reached.items():
                found[doc].append((len(steps), self.render(first, steps, names)))
        out = []
        for node, paths in zip(nodes, found, strict=True):
            texts = list(dict.fromkeys(text for _, text in sorted(paths)))[: self.max_paths]
            out.append(NodeWithScore(node=hidden_metadata_copy(node.node, {PATHS_KEY: texts}),
                                     score=node.score))
        return out
