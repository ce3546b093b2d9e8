"""Query-time re-ranking and context: coherent subgraph selection, prioritised triples."""

from __future__ import annotations

from .adjacency import PredicateWeights, is_schema_predicate, normalise, pool_adjacency
from .coherent import CoherentSubgraphPostprocessor, greedy_select
from .source_paths import SourcePathPostprocessor
from .triple_context import Fact, TripleContextBuilder, TripleContextPostprocessor

__all__ = [
    "CoherentSubgraphPostprocessor",
    "Fact",
    "PredicateWeights",
    "SourcePathPostprocessor",
    "TripleContextBuilder",
    "TripleContextPostprocessor",
    "greedy_select",
    "is_schema_predicate",
    "normalise",
    "pool_adjacency",
]
