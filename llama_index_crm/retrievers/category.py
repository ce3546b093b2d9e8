"""``CategoryRetriever``: the hybrid channels restricted to the answer's categories.

For "which churches…" only Thing documents compete; for list and count questions the
documents of highest PageRank in those categories join as a third channel; when the
question names a period ("in the 1930s"), documents dated inside it are ranked first.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle

from llama_index_crm.events import emit
from llama_index_crm.graph.channels import RRF_K, rrf
from llama_index_crm.query.lexicon import singularise
from llama_index_crm.query.plan import QueryPlan
from llama_index_crm.query.temporal import years_of
from llama_index_crm.retrievers.hybrid import HybridRetriever

if TYPE_CHECKING:
    from llama_index_crm.graph.data import GraphData

_WORD = re.compile(r"\w+", re.UNICODE)
class CategoryRetriever(BaseRetriever):
    """Dense + BM25 among the documents of the plan's target categories (+ PageRank).

    Args:
        index: the index.
        plan_for: the analysis of a query string (usually ``analyzer.plan_for``).
        similarity_top_k: documents returned.
        dense_weight: weight of the dense channel.
        bm25_weight: weight of the BM25 channel.
        names_weight: weight of the names channel.
        pagerank_weight: weight of the PageRank channel (list and count questions only).
        time_weight: weight of the channel of documents dated in the asked period.
        type_weight: weight of the channel of documents typed with a noun of the question.
        rrf_k: the k of reciprocal rank fusion.
    """

    def __init__(
        self,
        index: GraphData,
        plan_for: Callable[[str], QueryPlan],
        similarity_top_k: int = 10,
        dense_weight: float = 1.0,
        bm25_weight: float = 1.0,
        names_weight: float = 1.0,
        pagerank_weight: float = 1.0,
        time_weight: float = 1.0,
        type_weight: float = 1.0,
        rrf_k: int = RRF_K,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.index = index
        self.plan_for = plan_for
        self.similarity_top_k = similarity_top_k
        self.hybrid = HybridRetriever(index, similarity_top_k, dense_weight, bm25_weight,
                                      names_weight, rrf_k=rrf_k)
        self.pagerank_weight = pagerank_weight
        self.time_weight = time_weight
        self._masks: dict[tuple[str, ...], tuple[np.ndarray, np.ndarray]] = {}
        self._years: dict[int, set[int]] = {}
        self._type_index: dict[str, set[int]] | None = None
        self.type_weight = type_weight

    @classmethod
    def class_name(cls) -> str:
        """Name of this component."""
        return "CrmCategoryRetriever"

    def _restriction(self, categories: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
        cached = self._masks.get(categories)
        if cached is None:
            rows = self.index.rows_in(categories)
            mask = np.zeros(len(self.index.doc_ids), dtype=np.float32)
            mask[rows] = 1.0
            cached = self._masks[categories] = (rows, mask)
        return cached

    def row_years(self, row: int) -> set[int]:
        """Years in the date lines of the document at ``row`` (cached)."""
        years = self._years.get(row)
        if years is None:
            years = self._years[row] = years_of(
                self.index.node(self.index.doc_ids[row]).get_content())
        return years

    def type_rows(self, query: str, allowed: np.ndarray) -> list[int]:
        """Rows typed (P2_has_type) with a noun of the query: "which churches" → churches.

        Ranked by how many of the query's nouns their types match, then by PageRank.
        """
        if self._type_index is None:
            index: dict[str, set[int]] = {}
            for row, types in enumerate(self.index.meta.types):
                for t in types:
                    index.setdefault(t.lower(), set()).add(row)
            self._type_index = index
        words = [w.lower() for w in _WORD.findall(query)]
        nouns = {singularise(w) for w in words} | set(words)
        nouns |= {f"{a} {b}" for a, b in zip(words, [singularise(w) for w in words[1:]],
                                              strict=False)}
        hits: dict[int, int] = {}
        for noun in nouns:
            for row in self._type_index.get(noun, ()):
                hits[row] = hits.get(row, 0) + 1
        allowed_set = set(allowed.tolist())
        pagerank = self.index.statistics.pagerank
        doc_ids = self.index.doc_ids
        return sorted((r for r in hits if r in allowed_set),
                      key=lambda r: (-hits[r], -pagerank.get(doc_ids[r], 0.0), r))

    def retrieve_plan(self, query_bundle: QueryBundle, plan: QueryPlan,
                      top_k: int) -> list[tuple[int, float]]:
        """The ``top_k`` fused (row, score) pairs of the plan's target categories."""
        categories = tuple(sorted(c for c in plan.target_categories
                                  if len(self.index.rows_in([c]))))
        if not categories:  # e.g. Concept: types are folded into documents, not their own
            return []
        rows, mask = self._restriction(categories)
        if len(rows) == 0:
            return []
        channels = self.hybrid.fused_rows(query_bundle, top_k, rows, mask)
        rankings = {name: [r for r, _ in scored] for name, scored in channels.items()}
        weights = dict(self.hybrid.weights)
        if plan.is_list and self.pagerank_weight:
            row_of = self.index.row_of
            rankings["pagerank"] = [
                row_of[d] for cat in plan.target_categories
                for d in self.index.statistics.top_by_category.get(cat, [])[:top_k]
                if d in row_of
            ]
            weights["pagerank"] = self.pagerank_weight
        typed = self.type_rows(plan.query, rows)
        if typed:
            rankings["type"] = typed
            weights["type"] = self.type_weight
        if plan.time_range:
            low, high = plan.time_range
            seen = dict.fromkeys(r for ranking in rankings.values() for r in ranking)
            rankings["period"] = [r for r in seen
                                  if any(low <= y <= high for y in self.row_years(r))]
            weights["period"] = self.time_weight
        fused = rrf(rankings, weights, self.hybrid.rrf_k)
        best = sorted(fused.items(), key=lambda x: (-x[1], x[0]))[:top_k]
        emit("category", query_bundle.query_str, self.hybrid.to_nodes(best),
             categories=list(plan.target_categories), time_range=plan.time_range)
        return best

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        plan = self.plan_for(query_bundle.query_str)
        return self.hybrid.to_nodes(
            self.retrieve_plan(query_bundle, plan, self.similarity_top_k))

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        """:meth:`_retrieve` in a worker thread: embedding and search leave the loop free."""
        return await asyncio.to_thread(self._retrieve, query_bundle)
