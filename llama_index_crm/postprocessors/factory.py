"""The two postprocessors of an index, wired to its triple store, vectors and ontology."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from llama_index_crm.postprocessors.coherent import CoherentSubgraphPostprocessor
from llama_index_crm.postprocessors.triple_context import TripleContextPostprocessor

if TYPE_CHECKING:
    from llama_index_crm.graph.data import GraphData


def graph_postprocessors(
    data: GraphData, plan_for: Any = None, **kwargs: Any
) -> tuple[CoherentSubgraphPostprocessor, TripleContextPostprocessor]:
    """The coherent-subgraph re-ranker and the triple-context builder over ``data``.

    Args:
        data: the loaded index.
        plan_for: question → plan (boosts documents of the plan's target categories).
        **kwargs: options of :class:`CoherentSubgraphPostprocessor`.
    """
    vectors = data.vectors

    def vector(doc_id: str) -> np.ndarray | None:
        row = data.row_of.get(doc_id)
        return None if row is None else vectors[row]

    return (
        CoherentSubgraphPostprocessor.from_components(
            data.triples, vectors=vector, ontology=data.ontology, plan_provider=plan_for,
            **kwargs),
        TripleContextPostprocessor.from_components(data.triples, ontology=data.ontology),
    )
