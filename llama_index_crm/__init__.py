"""llama-index-crm: ask CIDOC-CRM knowledge graphs questions in plain language, in LlamaIndex.

The parts, each usable on its own in a LlamaIndex application:

* :class:`CidocCrmReader` — one ``Document`` per entity, FR paths walked (build phase);
* :class:`CrmDocumentStore` — a ``BaseDocumentStore`` whose documents and triples live in
  Parquet;
* :class:`CrmGraphIndex` — documents, triples, vectors, BM25 and statistics in one folder;
* :class:`HybridRetriever`, :class:`CategoryRetriever`, :class:`CandidatePoolRetriever`,
  :class:`ConversationRetriever` (follow-ups, vague follow-ups, pivots);
* :class:`CoherentSubgraphPostprocessor`, :class:`TripleContextPostprocessor`,
  :class:`SourcePathPostprocessor`;
* :class:`PromptSet` — the LLM's prompts from ``config/prompts``;
* :class:`RuleBasedAnalyzer`, :class:`LLMAnalyzer` → :class:`QueryPlan`.
"""

from __future__ import annotations

__version__ = "0.1.0"

from typing import TYPE_CHECKING  # noqa: E402

from llama_index_crm._lazy import lazy_exports  # noqa: E402

_EXPORTS = {
    "CandidatePoolRetriever": "llama_index_crm.retrievers.pool",
    "CategoryRetriever": "llama_index_crm.retrievers.category",
    "CidocCrmReader": "llama_index_crm.build.reader",
    "CoherentSubgraphPostprocessor": "llama_index_crm.postprocessors.coherent",
    "ConversationRetriever": "llama_index_crm.retrievers.conversation",
    "CrmDocumentStore": "llama_index_crm.storage.docstore",
    "CrmGraphIndex": "llama_index_crm.index",
    "HybridRetriever": "llama_index_crm.retrievers.hybrid",
    "LLMAnalyzer": "llama_index_crm.query.llm_analysis",
    "PromptSet": "llama_index_crm.query.prompts",
    "QueryPlan": "llama_index_crm.query.plan",
    "RuleBasedAnalyzer": "llama_index_crm.query.analysis",
    "SourcePathPostprocessor": "llama_index_crm.postprocessors.source_paths",
    "TripleContextPostprocessor": "llama_index_crm.postprocessors.triple_context",
}
__getattr__, _names = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from llama_index_crm.build.reader import CidocCrmReader
    from llama_index_crm.index import CrmGraphIndex
    from llama_index_crm.postprocessors.coherent import CoherentSubgraphPostprocessor
    from llama_index_crm.postprocessors.source_paths import SourcePathPostprocessor
    from llama_index_crm.postprocessors.triple_context import TripleContextPostprocessor
    from llama_index_crm.query.analysis import RuleBasedAnalyzer
    from llama_index_crm.query.llm_analysis import LLMAnalyzer
    from llama_index_crm.query.plan import QueryPlan
    from llama_index_crm.query.prompts import PromptSet
    from llama_index_crm.retrievers.category import CategoryRetriever
    from llama_index_crm.retrievers.conversation import ConversationRetriever
    from llama_index_crm.retrievers.hybrid import HybridRetriever
    from llama_index_crm.retrievers.pool import CandidatePoolRetriever
    from llama_index_crm.storage.docstore import CrmDocumentStore


def __dir__() -> list[str]:
    return sorted({*globals(), *_names()})


__all__ = [
    "CandidatePoolRetriever",
    "CategoryRetriever",
    "CidocCrmReader",
    "CoherentSubgraphPostprocessor",
    "ConversationRetriever",
    "CrmDocumentStore",
    "CrmGraphIndex",
    "HybridRetriever",
    "LLMAnalyzer",
    "PromptSet",
    "QueryPlan",
    "RuleBasedAnalyzer",
    "SourcePathPostprocessor",
    "TripleContextPostprocessor",
    "__version__",
]
