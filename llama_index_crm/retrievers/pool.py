"""``CandidatePoolRetriever``: over-retrieve a pool of k × 6 candidates for re-ranking.

Three sources feed the pool, fused by reciprocal rank:

* the hybrid channel (dense + BM25 over all documents);
* the category channel (the same restricted to the answer's categories, with PageRank and
  the asked period for list and count questions);
* the graph channel: documents linked by a Fundamental Relationship to the best hybrid
  hits (the works of the artist a question names, the maker of the work it names), so
  that answers two or three hops away from what the question says are in the pool;
* the names channel: documents whose whole name the question gives; and the terms channel:
  for a name no document bears but a node of the graph does (a place the data only
  labels), the documents pointing at that node.

Quotas: 50 % of the pool is reserved for documents of the target categories on list and
count questions, 30 % on specific ones; documents about other documents (titles,
inscriptions, identifiers, linguistic objects) take at most 25 %.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle

from llama_index_crm.events import emit
from llama_index_crm.graph.channels import RRF_K, rrf
from llama_index_crm.query.plan import QueryPlan
from llama_index_crm.retrievers.category import CategoryRetriever
from llama_index_crm.retrievers.hybrid import HybridRetriever

if TYPE_CHECKING:
    from llama_index_crm.graph.data import GraphData


class CandidatePoolRetriever(BaseRetriever):
    """The candidate pool for one question: hybrid, category and graph channels.

    Args:
        index: the index.
        plan_for: the analysis of a query string (usually ``analyzer.plan_for``).
        pool_factor: pool size = the plan's k × this.
        list_share: pool share reserved for target-category documents on list questions.
        specific_share: the same on specific questions.
        metadata_cap: at most this share of the pool for documents about documents.
        anchors: best hybrid hits whose FR neighbours join the pool.
        hybrid_weight: weight of the hybrid ranking in the pool fusion.
        category_weight: weight of the category ranking.
        graph_weight: weight of the graph ranking.
        names_weight: weight of the entities the question names verbatim (they anchor
            the answer: the artist of "how many works by…", the place of "churches in…").
        terms_weight: weight of the documents pointing at a node the question names that
            has no document ("works depicting Ireland" when Ireland is only a label).
        rrf_k: the k of reciprocal rank fusion.
        retriever_kwargs: passed to the inner hybrid and category retrievers.
    """

    def __init__(
        self,
        index: GraphData,
        plan_for: Callable[[str], QueryPlan],
        pool_factor: int = 6,
        list_share: float = 0.5,
        specific_share: float = 0.3,
        metadata_cap: float = 0.25,
        anchors: int = 3,
        hybrid_weight: float = 1.0,
        category_weight: float = 1.0,
        graph_weight: float = 1.0,
        names_weight: float = 1.0,
        terms_weight: float = 1.0,
        rrf_k: int = RRF_K,
        retriever_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.index = index
        self.plan_for = plan_for
        self.pool_factor = pool_factor
        self.list_share = list_share
        self.specific_share = specific_share
        self.metadata_cap = metadata_cap
        self.anchors = anchors
        self.weights = {"hybrid": hybrid_weight, "category": category_weight,
                        "graph": graph_weight, "names": names_weight, "terms": terms_weight}
        self.rrf_k = rrf_k
        inner = retriever_kwargs or {}
        self.hybrid = HybridRetriever(index, **inner)
        self.category = CategoryRetriever(index, plan_for, **inner)

    @classmethod
    def class_name(cls) -> str:
        """Name of this component."""
        return "CrmCandidatePoolRetriever"

    @classmethod
    def from_index(cls, index: GraphData, plan_for: Callable[[str], QueryPlan] | None = None,
                   **kwargs: Any) -> CandidatePoolRetriever:
        """A pool retriever over ``index`` (the rule-based analyzer when none is given)."""
        if plan_for is None:
            from llama_index_crm.query.analysis import RuleBasedAnalyzer

            plan_for = RuleBasedAnalyzer.for_index(index).plan_for
        return cls(index, plan_for, **kwargs)

    def graph_rows(self, anchors: list[int], plan: QueryPlan, limit: int) -> list[int]:
        """The anchors, then the documents FR-linked to their entities (targets first)."""
        index = self.index
        targets = set(plan.target_categories)
        out: dict[int, None] = dict.fromkeys(anchors)  # the anchors lead their own graph
        for row in anchors:
            node = index.node(index.doc_ids[row])
            entities = [node.metadata.get("uri", node.node_id),
                        *node.metadata.get("chained_from", ())]
            linked: list[int] = []
            for entity in entities:
                for other in index.fr_links(entity):
                    doc = index.doc_of_entity(other)
                    if doc is not None and doc in index.row_of:
                        linked.append(index.row_of[doc])
            out.update(dict.fromkeys(self._targets_first(set(linked) - {row}, targets)))
        return list(out)[:limit]

    def term_rows(self, plan: QueryPlan, limit: int) -> list[int]:
        """Documents pointing at a node the question names that has no document of its own
        (target categories first, then by PageRank)."""
        index = self.index
        targets = set(plan.target_categories)
        out: dict[int, None] = {}
        for name in plan.anchors:
            if index.has_document_named(name):
                continue
            for _, _, subjects in index.term_links(name):
                docs = {index.doc_of_entity(s) for s in subjects}
                rows = {index.row_of[d] for d in docs if d is not None and d in index.row_of}
                out.update(dict.fromkeys(self._targets_first(rows, targets)))
        return list(out)[:limit]

    def _targets_first(self, rows: set[int], targets: set[str]) -> list[int]:
        """``rows`` with documents of the target categories first, then by PageRank."""
        index = self.index
        pagerank = index.statistics.pagerank
        return sorted(rows, key=lambda r: (targets and index.category_of_row(r) not in targets,
                                           -pagerank.get(index.doc_ids[r], 0.0), r))

    def pool(self, query_bundle: QueryBundle, plan: QueryPlan) -> list[tuple[int, float]]:
        """The candidate (row, score) pairs of the pool, best first."""
        size = plan.k * self.pool_factor
        return self._fuse(query_bundle, plan, self.hybrid.retrieve_rows(query_bundle, size),
                          self.category.retrieve_plan(query_bundle, plan, size))

    async def apool(self, query_bundle: QueryBundle,
                    plan: QueryPlan) -> list[tuple[int, float]]:
        """:meth:`pool` without blocking an event loop: the query is embedded in a worker
        thread, then the hybrid and category channels run in two threads at once."""
        size = plan.k * self.pool_factor
        await asyncio.to_thread(self.hybrid.query_vector, query_bundle)
        hybrid, category = await asyncio.gather(
            asyncio.to_thread(self.hybrid.retrieve_rows, query_bundle, size),
            asyncio.to_thread(self.category.retrieve_plan, query_bundle, plan, size))
        return await asyncio.to_thread(self._fuse, query_bundle, plan, hybrid, category)

    def _fuse(self, query_bundle: QueryBundle, plan: QueryPlan,
              hybrid: list[tuple[int, float]],
              category: list[tuple[int, float]]) -> list[tuple[int, float]]:
        """The pool from the hybrid and category rankings, with the names, graph and terms
        rankings, the category reserve and the metadata cap."""
        size = plan.k * self.pool_factor
        rankings = {"hybrid": [r for r, _ in hybrid], "category": [r for r, _ in category],
                    "names": [r for r, _ in self.index.names.search(query_bundle.query_str,
                                                                     size)]}
        rankings["graph"] = self.graph_rows(rankings["hybrid"][: self.anchors], plan, size)
        rankings["terms"] = self.term_rows(plan, size)
        for stage in ("names", "graph", "terms"):
            emit(stage, query_bundle.query_str,
                 self.hybrid.to_nodes([(r, 0.0) for r in rankings[stage][: plan.k]]))
        fused = sorted(rrf(rankings, self.weights, self.rrf_k).items(),
                       key=lambda x: (-x[1], x[0]))
        share = self.list_share if plan.is_list else self.specific_share
        reserve = int(round(size * share)) if category else 0
        in_category = set(rankings["category"])
        max_meta = int(size * self.metadata_cap)
        chosen: dict[int, float] = {}
        meta = 0

        def take(row: int, score: float) -> None:
            nonlocal meta
            if row in chosen or len(chosen) >= size:
                return
            if self.index.is_metadata_row(row):
                if meta >= max_meta:
                    return
                meta += 1
            chosen[row] = score

        for row, score in fused:
            if len(chosen) >= reserve:
                break
            if row in in_category:
                take(row, score)
        for row, score in fused:
            take(row, score)
        return sorted(chosen.items(), key=lambda x: (-x[1], x[0]))

    def as_nodes(self, query_bundle: QueryBundle, plan: QueryPlan,
                 scored: list[tuple[int, float]]) -> list[NodeWithScore]:
        """A pool's (row, score) pairs as nodes, reported as the ``pool`` stage."""
        nodes = self.hybrid.to_nodes(scored)
        emit("pool", query_bundle.query_str, nodes, k=plan.k, type=plan.type,
             targets=list(plan.target_categories))
        return nodes

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        plan = self.plan_for(query_bundle.query_str)
        return self.as_nodes(query_bundle, plan, self.pool(query_bundle, plan))

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        plan = await asyncio.to_thread(self.plan_for, query_bundle.query_str)
        return self.as_nodes(query_bundle, plan, await self.apool(query_bundle, plan))
