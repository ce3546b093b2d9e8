"""Retrievers: hybrid (dense + BM25), category-filtered, and the candidate pool."""

from __future__ import annotations

from llama_index_crm.retrievers.category import CategoryRetriever
from llama_index_crm.retrievers.hybrid import HybridRetriever
from llama_index_crm.retrievers.pool import CandidatePoolRetriever

__all__ = ["CandidatePoolRetriever", "CategoryRetriever", "HybridRetriever"]
