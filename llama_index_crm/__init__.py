"""llama-index-crm: ask CIDOC-CRM knowledge graphs questions in plain language, in LlamaIndex.

The parts, each usable on its own in a LlamaIndex application:

* :class:`CidocCrmReader` — one ``Document`` per entity, FR paths walked (build phase);
* :class:`CrmDocumentStore` — a ``BaseDocumentStore`` whose documents and triples live in
  Parquet;
* :class:`CrmGraphIndex` — documents, triples, vectors, BM25 and statistics in one folder;
* :class:`HybridRetriever`, :class:`CategoryRetriever`, :class:`CandidatePoolRetriever`;
* :class:`CoherentSubgraphPostprocessor`, :class:`TripleContextPostprocessor`;
* :class:`RuleBasedAnalyzer`, :class:`LLMAnalyzer` → :class:`QueryPlan`.
"""

from __future__ import annotations

__version__ = "0.1.0"

from llama_index_crm.build import CidocCrmReader  # noqa: E402
from llama_index_crm.index import CrmGraphIndex  # noqa: E402
from llama_index_crm.postprocessors import (  # noqa: E402
    CoherentSubgraphPostprocessor,
    TripleContextPostprocessor,
)
from llama_index_crm.query.analysis import LLMAnalyzer, RuleBasedAnalyzer  # noqa: E402
from llama_index_crm.query.plan import QueryPlan  # noqa: E402
from llama_index_crm.retrievers.category import CategoryRetriever  # noqa: E402
from llama_index_crm.retrievers.hybrid import HybridRetriever  # noqa: E402
from llama_index_crm.retrievers.pool import CandidatePoolRetriever  # noqa: E402
from llama_index_crm.storage import CrmDocumentStore  # noqa: E402

__all__ = [
    "CandidatePoolRetriever",
    "CategoryRetriever",
    "CidocCrmReader",
    "CoherentSubgraphPostprocessor",
    "CrmDocumentStore",
    "CrmGraphIndex",
    "HybridRetriever",
    "LLMAnalyzer",
    "QueryPlan",
    "RuleBasedAnalyzer",
    "TripleContextPostprocessor",
    "__version__",
]
