"""The query pipeline: exact answer, then plan → candidate pool → coherent subgraph →
triple context → answer.

:class:`CrmQueryPipeline` runs one question (with its conversation) and returns a
:class:`CrmAnswer`: its status, the answer, the count for count questions, the documents in
the final context with their scores, the context text and the sources down to the triple.

The exact-answer layer (:mod:`llama_index_crm.exact`) runs first: when it compiles the
question, its sentence is the answer without an LLM, and its result and evidence lead the
context an LLM receives, so that an LLM never has to count. When it cannot
(``retrieval_only``), the answer is built from the retrieved documents and says so
(:mod:`llama_index_crm.query.answer`); it never reports a count.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from llama_index.core.llms import LLM
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle

from llama_index_crm.exact.answerer import ExactAnswer, ExactAnswerer, answerer_for
from llama_index_crm.postprocessors.factory import graph_postprocessors
from llama_index_crm.query.analysis import QueryAnalyzer, RuleBasedAnalyzer
from llama_index_crm.query.answer import EntityInfo, structured_answer
from llama_index_crm.query.plan import QueryPlan
from llama_index_crm.retrievers.pool import CandidatePoolRetriever

if TYPE_CHECKING:
    from llama_index_crm.graph.data import GraphData

logger = logging.getLogger(__name__)

RETRIEVAL_NOTE = "(No exact plan for this question; from the retrieved documents:)"
"""Leads a ``retrieval_only`` answer: it quotes documents, it was not computed."""

ANSWER_PROMPT = """You answer questions about a cultural-heritage collection described in \
CIDOC-CRM. Use only the context below. When it starts with an exact answer computed over \
the whole graph, that answer is authoritative: state it (its numbers and lists are complete; \
never recount them from the documents) and use the documents only to add detail. Otherwise \
use the entity documents (one per artwork, person, place or event) and the facts written as \
"subject → relation → object". If the context does not hold the answer, say so. Name items \
by their titles or names.

Context:
{context}

Question: {question}
Answer:"""


@dataclass(slots=True)
class CrmAnswer:
    """One answered question.

    Attributes:
        question: as asked.
        plan: its analysis.
        nodes: the documents of the final context, best first.
        context: the text an answer generator receives.
        answer: the answer text.
        count: the number, for count questions.
        sources: entity IRI → triples (s, p, o) the context used from it.
        latency_s: seconds to retrieve and answer.
        status: ``answered``, ``not_found``, ``ambiguous`` (the exact layer) or
            ``retrieval_only`` (no exact plan: the answer comes from retrieval).
        exact: the exact answer: its plan (as an FR path and as SPARQL), members,
            evidence and candidates.
    """

    question: str
    plan: QueryPlan
    nodes: list[NodeWithScore]
    context: str
    answer: str
    count: int | None = None
    sources: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)
    latency_s: float = 0.0
    status: str = "retrieval_only"
    exact: ExactAnswer | None = None

    def retrieved(self) -> list[dict[str, Any]]:
        """``[{uri, label, score}]`` of the context documents, in rank order."""
        return [{"uri": n.node.metadata.get("uri", n.node.node_id),
                 "label": n.node.metadata.get("label", ""),
                 "score": round(float(n.score or 0.0), 6)} for n in self.nodes]


class CrmQueryPipeline:
    """Retrieval, re-ranking, context and answer for questions over one index.

    Args:
        index: the index.
        analyzer: question analysis (rule-based over the index's vocabulary by default).
        llm: writes the answer from the context when given; without it the answer is
            built from the documents and triples.
        pool_kwargs: options of :class:`CandidatePoolRetriever`.
        coherent_kwargs: options of :class:`CoherentSubgraphPostprocessor`.
        context_kwargs: options of :class:`TripleContextPostprocessor`.
        exact: run the exact-answer layer first (default); False gives retrieval only.
    """

    def __init__(
        self,
        index: GraphData,
        analyzer: QueryAnalyzer | None = None,
        llm: LLM | None = None,
        pool_kwargs: dict[str, Any] | None = None,
        coherent_kwargs: dict[str, Any] | None = None,
        context_kwargs: dict[str, Any] | None = None,
        exact: bool = True,
    ) -> None:
        self.index = index
        self.use_exact = exact
        self.analyzer = analyzer or RuleBasedAnalyzer.for_index(index)
        self.llm = llm
        self.retriever = CandidatePoolRetriever(index, self.analyzer.plan_for,
                                                **(pool_kwargs or {}))
        coherent, context = graph_postprocessors(index, self.analyzer.plan_for,
                                                 **(coherent_kwargs or {}))
        for key, value in (context_kwargs or {}).items():
            setattr(context, key, value)
        self.coherent, self.context_builder = coherent, context
        index.warm()

    def plan(self, question: str, history: Sequence[tuple[str, str]] | None = None) -> QueryPlan:
        """The plan of ``question`` in its conversation."""
        return self.analyzer.analyze(question, history)

    def retrieve(self, plan: QueryPlan) -> list[NodeWithScore]:
        """The final context documents of a plan (pool → coherent selection → triples)."""
        bundle = QueryBundle(query_str=plan.query)
        pool = self.retriever.retrieve(bundle)
        selected = self.coherent.postprocess_nodes(pool, query_bundle=bundle)
        return self.context_builder.postprocess_nodes(selected, query_bundle=bundle)

    def describe(self, uri: str) -> EntityInfo | None:
        """Label, category, text and types of the document an entity's facts are in."""
        doc = self.index.doc_of_entity(uri)
        if doc is None:
            return None
        row = self.index.row_of[doc]
        meta = self.index.meta
        text = self.index.node(doc).get_content()
        if doc != uri:  # chained into another document: its own label is in the archive
            return EntityInfo(self.index.triples.label(uri) or meta.labels[row], "", text)
        return EntityInfo(meta.labels[row], meta.categories[row], text, tuple(meta.types[row]))

    @property
    def answerer(self) -> ExactAnswerer:
        """The exact-answer layer of this index (built on first use, kept with it)."""
        return answerer_for(self.index)

    def exact_answer(self, question: str,
                     history: Sequence[tuple[str, str]] | None = None) -> ExactAnswer:
        """The exact answer of ``question``, or ``retrieval_only`` when none is possible."""
        if not self.use_exact:
            return ExactAnswer("retrieval_only", "", plan_text="exact answers switched off")
        try:
            return self.answerer.answer(question, history or ())
        except Exception:  # noqa: BLE001 - retrieval still answers; the log has the cause
            logger.exception("the exact-answer layer failed on %r; retrieval answers", question)
            return ExactAnswer("retrieval_only", "", plan_text="exact layer error (see log)")

    def run(self, question: str, history: Sequence[tuple[str, str]] | None = None) -> CrmAnswer:
        """Answer ``question`` (``history``: previous (question, answer) turns)."""
        started = time.perf_counter()
        exact = self.exact_answer(question, history)
        plan = self.plan(question, history)
        nodes = self.retrieve(plan)
        context = "\n\n".join(n.node.get_content(metadata_mode=MetadataMode.LLM) for n in nodes)
        if exact.status == "retrieval_only":
            found, _, _ = structured_answer(plan, nodes, self.index.fr_links, self.describe,
                                            term_links=self.index.term_links)
            answer, count = f"{RETRIEVAL_NOTE} {found}", None
        else:
            answer, count = exact.text, exact.count
            context = f"{exact.context_block()}\n\n{context}"
        if self.llm is not None:
            answer = self.llm.complete(ANSWER_PROMPT.format(context=context,
                                                            question=question)).text.strip()
        sources: dict[str, list[tuple[str, str, str]]] = {
            str(n.node.metadata.get("uri", n.node.node_id)):
            [(str(t[0]), str(t[1]), str(t[2])) for t in n.node.metadata.get("triples", ())]
            for n in nodes}
        return CrmAnswer(question, plan, nodes, context, answer, count, sources,
                         time.perf_counter() - started, exact.status, exact)
