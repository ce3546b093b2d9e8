"""``ConversationRetriever``: the candidate pool of one turn of a conversation.

The plan says how the question leans on the conversation (:attr:`QueryPlan.turn`, read by
:mod:`llama_index_crm.query.turns`), and this retriever acts on it:

* **follow-up** ("Who painted it?"): dual retrieval. One pool for the question
  contextualised by the previous turn ("Who painted it? Panagia tou Araka"), one for the
  question as asked; the two are interleaved (first of one, first of the other, …) and
  de-duplicated, so a wrong guess about the subject cannot crowd out what the words say.
* **vague** ("Tell me more", "And?"): no pass with the raw words, which say nothing. The
  previous turn's pool leads (its first k documents come first), then the rest of it
  interleaved with the pool of the rewritten question.
* **pivot** ("Aside from Asinou, which churches…"): one pool for the cleaned question;
  the documents of the excluded entity (named exactly so, or, among the answer's
  categories, bearing the name: "Panagia Phorbiottissa (Asinou)") are dropped.
* **standalone**: the pool as it is.

Merged lists keep the pool's scale: the i-th document gets the i-th best score of the
passes, so the re-ranker's min-max relevance follows the interleaved order.
"""

from __future__ import annotations

import asyncio
from collections.abc import Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle

from llama_index_crm.events import emit
from llama_index_crm.graph.channels import name_tokens
from llama_index_crm.query.plan import QueryPlan, require_question
from llama_index_crm.retrievers.pool import CandidatePoolRetriever

if TYPE_CHECKING:
    from llama_index_crm.graph.data import GraphData

__all__ = ["ConversationRetriever", "excluded_entities", "excluded_rows", "interleave"]

Scored = list[tuple[int, float]]
"""(row, score) pairs, best first."""


_Row = TypeVar("_Row", bound=Hashable)


def interleave(rankings: Sequence[Sequence[_Row]]) -> list[_Row]:
    """Rows taken in turn from each ranking (first of each, then second…), each row once.

    >>> interleave([[1, 2, 3], [2, 4]])
    [1, 2, 4, 3]
    """
    out: dict[_Row, None] = {}
    for rank in range(max((len(r) for r in rankings), default=0)):
        for ranking in rankings:
            if rank < len(ranking):
                out.setdefault(ranking[rank], None)
    return list(out)


def _contains(tokens: tuple[str, ...], part: tuple[str, ...]) -> bool:
    size = len(part)
    return any(tokens[i:i + size] == part for i in range(len(tokens) - size + 1))


def excluded_rows(index: GraphData, plan: QueryPlan) -> set[int]:
    """Rows of the documents a pivot leaves out.

    A document is excluded when one of its names is an excluded name, or, when it is of one
    of the plan's target categories, when one of its names contains it ("aside from Asinou,
    which churches…" leaves out "Panagia Phorbiottissa (Asinou)" and its parts, not the
    churches of the village next to it).
    """
    wanted = [t for t in (name_tokens(n) for n in plan.excluded) if t]
    if not wanted:
        return set()
    targets = set(plan.target_categories)
    rows: set[int] = set()
    for row, names in enumerate(index.meta.names):
        in_target = bool(targets) and index.category_of_row(row) in targets
        for tokens in (name_tokens(n) for n in names):
            if any(tokens == w or (in_target and _contains(tokens, w)) for w in wanted):
                rows.add(row)
                break
    return rows


def excluded_entities(index: GraphData, rows: Iterable[int]) -> set[str]:
    """The entities of the documents at ``rows``: their own and the ones chained onto them."""
    return {entity for row in rows
            for entity in (index.doc_ids[row], *index.meta.chained_from[row])}


class ConversationRetriever(BaseRetriever):
    """The candidate pool of a turn: dual passes, vague follow-ups and pivots (see module).

    Args:
        pool: the candidate-pool retriever whose passes are merged.
    """

    def __init__(self, pool: CandidatePoolRetriever, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.pool = pool
        self.index = pool.index
        self.plan_for = pool.plan_for

    @classmethod
    def class_name(cls) -> str:
        """Name of this component."""
        return "CrmConversationRetriever"

    def passes(self, plan: QueryPlan) -> list[tuple[str, QueryPlan]]:
        """The ``(retrieval text, plan)`` of each pass the turn needs, leading pass first."""
        if plan.turn == "vague" and plan.lead:
            return [*((text, self.plan_for(text)) for text in plan.lead), (plan.query, plan)]
        if plan.turn == "follow_up" and plan.query != plan.question:
            return [(plan.query, plan), (plan.question, plan)]
        return [(plan.query, plan)]

    def merge(self, plan: QueryPlan, results: Sequence[Scored]) -> Scored:
        """One pool from the passes' pools (see the module), without excluded documents."""
        rankings = [[row for row, _ in scored] for scored in results]
        if plan.turn == "vague" and len(rankings) > 1:
            lead = rankings[0][: plan.k]
            order = list(dict.fromkeys([*lead, *interleave([rankings[0][plan.k:],
                                                            *rankings[1:]])]))
        else:
            order = interleave(rankings)
        dropped = excluded_rows(self.index, plan)
        order = [row for row in order if row not in dropped][: plan.k * self.pool.pool_factor]
        scores = sorted((score for scored in results for _, score in scored), reverse=True)
        return list(zip(order, scores, strict=False))

    def _nodes(self, bundle: QueryBundle, plan: QueryPlan,
               passes: Sequence[tuple[str, QueryPlan]],
               results: Sequence[Scored]) -> list[NodeWithScore]:
        for (text, pass_plan), scored in zip(passes, results, strict=True):
            nodes = self.pool.as_nodes(QueryBundle(text), pass_plan, list(scored))
        if len(passes) > 1 or plan.excluded:
            nodes = self.pool.hybrid.to_nodes(self.merge(plan, results))
        emit("conversation", bundle.query_str, nodes, turn=plan.turn,
             passes=[text for text, _ in passes], excluded=list(plan.excluded))
        return nodes

    def _bundles(self, bundle: QueryBundle,
                 passes: Sequence[tuple[str, QueryPlan]]) -> list[QueryBundle]:
        """The bundle of each pass (the given one for its own text: its embedding is kept)."""
        return [bundle if text == bundle.query_str else QueryBundle(text) for text, _ in passes]

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        plan = self.plan_for(require_question(query_bundle.query_str))
        passes = self.passes(plan)
        results = [self.pool.pool(b, p) for b, (_, p) in
                   zip(self._bundles(query_bundle, passes), passes, strict=True)]
        return self._nodes(query_bundle, plan, passes, results)

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        """The passes run concurrently, each off the event loop (:meth:`apool`)."""
        plan = await asyncio.to_thread(self.plan_for, require_question(query_bundle.query_str))
        passes = await asyncio.to_thread(self.passes, plan)
        results = await asyncio.gather(*(
            self.pool.apool(b, p)
            for b, (_, p) in zip(self._bundles(query_bundle, passes), passes, strict=True)))
        return await asyncio.to_thread(self._nodes, query_bundle, plan, passes, results)
