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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.llms import LLM
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle

from llama_index_crm.errors import LLMUnavailable
from llama_index_crm.exact.answerer import ExactAnswer, ExactAnswerer, answerer_for
from llama_index_crm.exact.endpoint import PlanEndpoint, plan_endpoint
from llama_index_crm.llm_calls import ANSWER_MAX_TOKENS, ContextTooLong, LLMClient, LLMLimits
from llama_index_crm.llm_window import message_chars
from llama_index_crm.postprocessors.factory import graph_postprocessors
from llama_index_crm.postprocessors.source_paths import PATHS_KEY, SourcePathPostprocessor
from llama_index_crm.query.analysis import QueryAnalyzer, RuleBasedAnalyzer
from llama_index_crm.query.answer import EntityInfo, TermLinks, structured_answer
from llama_index_crm.query.context_budget import Fitted, fit_messages
from llama_index_crm.query.conversation import dangling_pronoun, inline_topic
from llama_index_crm.query.llm_context import context_sections
from llama_index_crm.query.plan import QueryPlan, require_question
from llama_index_crm.query.prompts import Prompts, PromptSet
from llama_index_crm.retrievers.conversation import (
    ConversationRetriever,
    excluded_entities,
    excluded_rows,
)
from llama_index_crm.retrievers.pool import CandidatePoolRetriever

if TYPE_CHECKING:
    from llama_index_crm.graph.data import GraphData

logger = logging.getLogger(__name__)

RETRIEVAL_NOTE = "(No exact plan for this question; from the retrieved documents:)"
"""Leads a ``retrieval_only`` answer: it quotes documents, it was not computed."""
ASK_BACK = "a pronoun with nothing earlier in the conversation to point to"
"""The plan text of the answer that asks what a pronoun stands for."""


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
        notices: what the user should know about how it was answered, one line each
            (the LLM was unavailable and the answer was made without it).
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
    notices: list[str] = field(default_factory=list)

    def retrieved(self) -> list[dict[str, Any]]:
        """``[{uri, label, score}]`` of the context documents, best score first (equal
        scores in context order)."""
        ranked = sorted(self.nodes, key=lambda n: -float(n.score or 0.0))
        return [{"uri": n.node.metadata.get("uri", n.node.node_id),
                 "label": n.node.metadata.get("label", ""),
                 "score": round(float(n.score or 0.0), 6)} for n in ranked]

    @property
    def source_paths(self) -> dict[str, list[str]]:
        """Entity IRI → the graph paths that brought its document into the context, from
        what the question names ("Asinou → P55i currently holds → Panagia Phorbiottissa
        (Asinou) → P108i was produced by → … → P14 carried out by → Nikephoros Ischyrios");
        the named document's path is its label alone, a document found by its words alone
        has none."""
        return {str(n.node.metadata.get("uri", n.node.node_id)):
                list(n.node.metadata.get(PATHS_KEY, ())) for n in self.nodes}

    def source_records(self) -> list[dict[str, Any]]:
        """Each context document as ``{uri, label, score, paths, triples}``, best score
        first."""
        paths = self.source_paths
        return [{**item, "paths": paths.get(item["uri"], []),
                 "triples": [list(t) for t in self.sources.get(item["uri"], [])]}
                for item in self.retrieved()]

    def to_dict(self) -> dict[str, Any]:
        """The answer as JSON-ready data (``crm-rag ask --json``)."""
        exact = self.exact
        return {"question": self.question, "answer": self.answer, "count": self.count,
                "status": self.status, "type": self.plan.type, "turn": self.plan.turn,
                "excluded": list(self.plan.excluded),
                "exact": None if exact is None or exact.status == "retrieval_only" else {
                    "total": exact.total, "backend": exact.backend,
                    "plan": exact.plan_text, "sparql": exact.sparql,
                    "evidence": exact.evidence, "items": exact.items[:50],
                    "candidates": [c.node for c in exact.candidates]},
                "understood": None if exact is None else {
                    "language": exact.language,
                    "words": [[w.word, w.role] for w in exact.understanding.words]
                    if exact.understanding is not None else [],
                    "why_retrieval": exact.plan_text.split("\n")[0]
                    if exact.status == "retrieval_only" else ""},
                "sources": self.source_records(), "notices": list(self.notices),
                "latency_s": round(self.latency_s, 4)}


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
        prompts: the LLM's prompts: a :class:`PromptSet` or a TOML file overriding
            ``config/prompts/default.toml`` (default: that file).
        exact: run the exact-answer layer first (default); False gives retrieval only.
        exact_backend: where exact plans run: ``parquet`` (the index's triples, default) or
            ``sparql``: compiled to SPARQL and run on ``endpoint``, for graphs that stay in
            a server; plans that do not compile run on the index's triples and say so
            (:mod:`llama_index_crm.exact.endpoint`).
        endpoint: the SPARQL endpoint URL (or a
            :class:`~llama_index_crm.exact.endpoint.PlanEndpoint`) of ``exact_backend="sparql"``.
        llm_limits: time, retries and context window of each LLM call (default: at most
            10 s a call; the window the LLM declares, or the one its server states when it
            refuses a request for its length); an LLM that is unreachable, too slow or
            without credentials is answered without, and said so in
            :attr:`CrmAnswer.notices`.
    """

    def __init__(
        self,
        index: GraphData,
        analyzer: QueryAnalyzer | None = None,
        llm: LLM | LLMClient | None = None,
        pool_kwargs: dict[str, Any] | None = None,
        coherent_kwargs: dict[str, Any] | None = None,
        context_kwargs: dict[str, Any] | None = None,
        prompts: Prompts = None,
        exact: bool = True,
        llm_limits: LLMLimits | None = None,
        exact_backend: str = "parquet",
        endpoint: str | PlanEndpoint | None = None,
    ) -> None:
        self.index = index
        self.use_exact = exact
        self.endpoint = plan_endpoint(exact_backend, endpoint)
        """Where exact plans run, when not over the index's triples."""
        self.analyzer = analyzer or RuleBasedAnalyzer.for_index(index)
        self.llm_client = llm if isinstance(llm, LLMClient) else \
            None if llm is None else LLMClient(llm, llm_limits)
        """Every LLM call of the pipeline: accepted forms, bounded tokens and time."""
        self.llm: LLM | None = None if self.llm_client is None else self.llm_client.llm
        self.retriever = CandidatePoolRetriever(index, self.analyzer.plan_for,
                                                **(pool_kwargs or {}))
        coherent, context = graph_postprocessors(index, self.analyzer.plan_for,
                                                 **(coherent_kwargs or {}))
        for key, value in (context_kwargs or {}).items():
            setattr(context, key, value)
        self.coherent, self.context_builder = coherent, context
        self.conversation = ConversationRetriever(self.retriever)
        """The pool of a turn: dual passes for follow-ups, pivots, vague follow-ups."""
        self.source_paths = SourcePathPostprocessor.from_components(
            index.triples, index.ontology, self.analyzer.plan_for)
        self.prompts = PromptSet.load(prompts)
        index.warm()

    @property
    def postprocessors(self) -> list[BaseNodePostprocessor]:
        """Coherent subgraph, triple context, source paths: what follows the retriever."""
        return [self.coherent, self.context_builder, self.source_paths]

    def plan(self, question: str, history: Sequence[tuple[str, str]] | None = None) -> QueryPlan:
        """The plan of ``question`` in its conversation."""
        return self.analyzer.analyze(question, history)

    def retrieval_plan(self, question: str, history: Sequence[tuple[str, str]] | None,
                       exact: ExactAnswer) -> QueryPlan:
        """:meth:`plan`, retrieving also with the question's English words when it was asked
        in another language (the documents and the bundled encoder are English)."""
        if exact.asked and exact.asked != question:
            return replace(self.plan(exact.asked, history), question=question)
        return self.plan(question, history)

    def retrieve(self, plan: QueryPlan) -> list[NodeWithScore]:
        """The final context documents of a plan (the turn's pool → coherent selection →
        triples → source paths)."""
        bundle = QueryBundle(query_str=plan.query)
        nodes = self.conversation.retrieve(bundle)
        for post in self.postprocessors:
            nodes = post.postprocess_nodes(nodes, query_bundle=bundle)
        return nodes

    async def aretrieve(self, plan: QueryPlan) -> list[NodeWithScore]:
        """:meth:`retrieve` without blocking an event loop (passes and channels run in
        worker threads, the passes of a follow-up at the same time)."""
        bundle = QueryBundle(query_str=plan.query)
        nodes = await self.conversation.aretrieve(bundle)
        for post in self.postprocessors:
            nodes = await post.apostprocess_nodes(nodes, query_bundle=bundle)
        return nodes

    def answer_lookups(self, plan: QueryPlan) -> tuple[
            Callable[[str], Sequence[str]], Callable[[str], EntityInfo | None], TermLinks]:
        """``(FR links, describe, term links)`` for the answer, blind to what a pivot
        leaves out ("aside from Asinou, which churches…" never lists Asinou)."""
        if not plan.excluded:
            return self.index.fr_links, self.describe, self.index.term_links
        excluded = excluded_entities(self.index, excluded_rows(self.index, plan))

        def links(uri: str) -> list[str]:
            return [u for u in self.index.fr_links(uri) if u not in excluded]

        def describe(uri: str) -> EntityInfo | None:
            return None if uri in excluded else self.describe(uri)

        def term_links(name: str) -> list[tuple[str, str, list[str]]]:
            return [(node, label, [s for s in subjects if s not in excluded])
                    for node, label, subjects in self.index.term_links(name)]

        return links, describe, term_links

    def answer_nodes(self, plan: QueryPlan, nodes: Sequence[NodeWithScore], question: str,
                     history: Sequence[tuple[str, str]] | None = None,
                     exact: ExactAnswer | None = None) -> tuple[str, int | None]:
        """``(answer, count)``: the exact answer's sentence and count when the question
        compiles, else the structured answer from the final context (no count: it would be
        a count of documents). With an LLM, its answer from the context the exact result
        leads; the count stays the exact one.

        Args:
            plan: the retrieval plan.
            nodes: the final context.
            question: as asked.
            history: earlier ``(question, answer)`` turns.
            exact: the exact answer if already computed (else computed here).
        """
        exact = exact or self.exact_answer(question, history)
        if exact.status != "retrieval_only":
            answer, count = exact.text, exact.count
        else:
            links, describe, term_links = self.answer_lookups(plan)
            found, _, _ = structured_answer(plan, nodes, links, describe,
                                            term_links=term_links)
            answer, count = f"{RETRIEVAL_NOTE} {found}", None
        if self.llm_client is not None and self.llm_client.unavailable() is None and \
                exact.plan_text != ASK_BACK:
            # unavailable: said once by the client; the answer stands without it
            try:
                answer = self.llm_answer(plan, nodes, question, history,
                                         exact.context_block())
            except LLMUnavailable as exc:
                if self.llm_client.unavailable() is None:  # refused this one request
                    logger.warning("%s: answered without it", exc)
        return answer, count

    def llm_messages(self, plan: QueryPlan, nodes: Sequence[NodeWithScore], question: str,
                     history: Sequence[tuple[str, str]] | None = None,
                     exact: str = "") -> list[ChatMessage]:
        """The system and user messages an LLM answers from (see :class:`PromptSet`),
        fitted to the LLM's window when it is known (the least relevant documents left
        out, one warning line; :mod:`~llama_index_crm.query.context_budget`).

        Args:
            plan: the question's plan (its type picks the system prompt).
            nodes: the final context.
            question: the question as asked.
            history: earlier ``(question, answer or top label)`` turns.
            exact: the exact answer and its evidence, put first in the context (the
                template's ``{exact}`` slot); empty when there is none. Never cut.
        """
        return self._fitted(plan, nodes, question, history, exact).messages

    def _fitted(self, plan: QueryPlan, nodes: Sequence[NodeWithScore], question: str,
                history: Sequence[tuple[str, str]] | None, exact: str,
                refused: int = 0) -> Fitted:
        """:meth:`llm_messages` and how they were fitted (``refused``: the status of the
        server's refusal of a longer request, said in the warning)."""
        turns = list(history or ())

        def render(kept: Sequence[NodeWithScore]) -> list[ChatMessage]:
            context = self.prompts.render_context(
                exact=exact, **context_sections(self.index, plan, kept))
            return self.prompts.messages(plan, context, question, turns)

        client = self.llm_client
        budget = None if client is None else client.prompt_chars(ANSWER_MAX_TOKENS)
        if budget is None:
            messages = render(nodes)
            return Fitted(messages, len(nodes), len(nodes), 0, 0)
        fitted = fit_messages(render, nodes, budget)
        if fitted.trimmed or not fitted.fits:
            assert client is not None
            kept = f"{fitted.kept} of {fitted.total} sources kept" + \
                (" (the last one cut)" if fitted.cut else "")
            if not fitted.fits:
                kept = "no source fits beside the exact answer and the question"
            window = f"{client.context_window:,}-token window"
            if refused:
                logger.warning("LLM %s refused a context too long for its %s (HTTP %d); "
                               "asked again with %s, %s characters", client.where, window,
                               refused, kept, f"{fitted.chars:,}")
            else:
                logger.warning("context for LLM %s trimmed to its %s: %s, %s characters",
                               client.where, window, kept, f"{fitted.chars:,}")
        return fitted

    def llm_answer(self, plan: QueryPlan, nodes: Sequence[NodeWithScore], question: str,
                   history: Sequence[tuple[str, str]] | None = None, exact: str = "") -> str:
        """The LLM's answer from :meth:`llm_messages` (the pipeline must have an LLM). A
        server that refuses the request for its length states its window: the context is
        fitted to it and the request sent once more.

        Raises:
            LLMUnavailable: the LLM cannot be reached, timed out, or has no credentials, or
                the server refused the request (the shorter one too).
        """
        if self.llm_client is None:
            raise ValueError("this pipeline has no LLM: answers come from structured_answer")
        self.llm_client.ready()  # a server's model list may state the window
        first = self._fitted(plan, nodes, question, history, exact)
        try:
            return self.llm_client.chat(first.messages, max_tokens=ANSWER_MAX_TOKENS)
        except ContextTooLong as exc:
            again = self._fitted(plan, nodes, question, history, exact, refused=exc.status)
            if message_chars(again.messages) >= message_chars(first.messages):
                raise  # nothing shorter to send
            return self.llm_client.chat(again.messages, max_tokens=ANSWER_MAX_TOKENS)

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
        return answerer_for(self.index, self.endpoint)

    def exact_answer(self, question: str,
                     history: Sequence[tuple[str, str]] | None = None) -> ExactAnswer:
        """The exact answer of ``question``, or ``retrieval_only`` when none is possible."""
        if not self.use_exact:
            return ExactAnswer("retrieval_only", "", plan_text="exact answers switched off")
        client = self.llm_client
        llm = client if client is not None and client.unavailable() is None else None
        try:
            found = self.answerer.answer(question, history or (), llm=llm)
        except Exception:  # noqa: BLE001 - retrieval still answers; the log has the cause
            logger.exception("the exact-answer layer failed on %r; retrieval answers", question)
            return ExactAnswer("retrieval_only", "", plan_text="exact layer error (see log)")
        inline = inline_topic(question) if not history and found.status != "answered" \
            and not self.answerer.reads_topic(question) else None
        if inline is not None:  # "the sculptor of T - where was he born?"
            text, said, topic = inline
            try:
                other = self.answerer.answer(text, (), llm=llm)
            except Exception:  # noqa: BLE001 - the question as asked stands
                logger.exception("the exact-answer layer failed on %r", text)
            else:
                if other.status == "answered":
                    return replace(other, text=f"{other.text} (reading “{said}” as {topic})")
        pronoun = dangling_pronoun(question) if not history else None
        if found.status == "retrieval_only" and pronoun:
            # "who made it?" first in a conversation: any document would be a guess
            return ExactAnswer("ambiguous", f"What does “{pronoun}” refer to? Nothing was "
                               "asked before in this conversation: name it, e.g. “Who made "
                               "the church at Asinou?”", plan_text=ASK_BACK)
        return found

    def run(self, question: str, history: Sequence[tuple[str, str]] | None = None) -> CrmAnswer:
        """Answer ``question`` (``history``: previous (question, answer) turns).

        Raises:
            ValueError: an empty or blank question.
        """
        require_question(question)
        started = time.perf_counter()
        exact = self.exact_answer(question, history)
        plan = self.retrieval_plan(question, history, exact)
        nodes = self.retrieve(plan)
        context = "\n\n".join(n.node.get_content(metadata_mode=MetadataMode.LLM) for n in nodes)
        answer, count = self.answer_nodes(plan, nodes, question, history, exact)
        if exact.status != "retrieval_only":
            context = f"{exact.context_block()}\n\n{context}"
        sources: dict[str, list[tuple[str, str, str]]] = {
            str(n.node.metadata.get("uri", n.node.node_id)):
            [(str(t[0]), str(t[1]), str(t[2])) for t in n.node.metadata.get("triples", ())]
            for n in nodes}
        notice = self.llm_client.notice() if self.llm_client is not None else None
        return CrmAnswer(question, plan, nodes, context, answer, count, sources,
                         time.perf_counter() - started, exact.status, exact,
                         [notice] if notice else [])
