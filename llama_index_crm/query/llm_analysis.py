"""LLM query analysis: a structured-output :class:`PlanOutput`, with the rules as fallback."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Literal

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from pydantic import BaseModel, Field

from llama_index_crm.errors import LLMUnavailable
from llama_index_crm.llm_calls import PLAN_MAX_TOKENS, LLMClient, fill_prompt
from llama_index_crm.ontology.ontology import CATEGORIES
from llama_index_crm.query.analysis import DEFAULT_CACHE_SIZE, QueryAnalyzer, RuleBasedAnalyzer
from llama_index_crm.query.conversation import (
    Turn,
    clip,
    name_spans,
    quoted_titles,
    resolve_reference,
)
from llama_index_crm.query.lexicon import DOCUMENT_CATEGORIES
from llama_index_crm.query.plan import QueryPlan
from llama_index_crm.query.temporal import MAX_YEAR, MIN_YEAR

if TYPE_CHECKING:
    from llama_index.core.llms import LLM

__all__ = ["LLM_PROMPT", "LLMAnalyzer", "PlanOutput"]

logger = logging.getLogger("llama_index_crm.query.analysis")
"""The analyzers log under one name, whichever module holds them."""


class PlanOutput(BaseModel):
    """How a question about a CIDOC-CRM museum graph should be answered."""

    type: Literal["specific", "enumeration", "aggregation"] = Field(
        description="specific (one fact), enumeration (a list) or aggregation (a number)")
    target_categories: list[str] = Field(
        default_factory=list, description="categories of the answer's entities")
    context_categories: list[str] = Field(
        default_factory=list, description="categories of what the question names as filter")
    start_year: int | None = Field(default=None, description="first year allowed, or null")
    end_year: int | None = Field(default=None, description="last year allowed, or null")
    anchors: list[str] = Field(
        default_factory=list, description="titles and names copied verbatim from the question")


LLM_PROMPT = """\
You analyse questions about a museum collection described with CIDOC-CRM, before retrieval.
Every entity belongs to one of six categories:
- Thing: works, objects, buildings; their type, material, medium and credit line are part of it.
- Actor: people, groups, institutions; their nationality, birth and death are part of it.
- Place: places, cities, countries, villages.
- Event: productions, acquisitions, exhibitions and other events.
- Concept: types, subjects, vocabulary terms.
- Time: time-spans. Never a target: for a "when" question give the category of the dated \
entity plus Event (Actor alone for births and deaths).
A question is of one of three types:
- specific, e.g. "Who painted 'Battersea Reach'?": type specific, target_categories [Actor], \
context_categories [Thing], anchors ["Battersea Reach"].
- enumeration, e.g. "Which works by Mary Cassatt show Paris?": type enumeration, \
target_categories [Thing], context_categories [Actor, Place], anchors ["Mary Cassatt", "Paris"].
- aggregation, e.g. "How many works did Turner make in the 1830s?": type aggregation, \
target_categories [Thing], context_categories [Actor], start_year 1830, end_year 1839, \
anchors ["Turner"].
target_categories: the categories of the answer. context_categories: the categories of what \
the question names as a filter or anchor. start_year/end_year: inclusive years the answer must \
fall in, or null. anchors: titles and names copied verbatim from the question.
{history}Question: {question}
"""
"""The analysis prompt; ``{history}`` and ``{question}`` are filled in."""


class LLMAnalyzer(QueryAnalyzer):
    """Structured-output analysis by an LLM, with the rules as fallback.

    The LLM fills a :class:`PlanOutput` through :class:`~llama_index_crm.llm_calls.LLMClient`
    (a forced function call, a JSON response format or a JSON completion, whichever the
    server accepts; bounded tokens and time). When the call raises, the output does not
    parse, or it names an unknown category, the fallback analyses the question instead and
    the reason is logged (an unreachable LLM once, by the client).

    Args:
        llm: any LlamaIndex LLM (``Settings`` is never read), or a client of one.
        fallback: the analyzer used when the LLM fails (rules by default).
        prompt: the prompt text, with ``{history}`` and ``{question}``.
        top_k: documents per query type, overriding :data:`~.plan.TOP_K` entries.
        cache_size: plans kept (0 disables the cache).
    """

    name = "llm"

    def __init__(self, llm: LLM | LLMClient, fallback: QueryAnalyzer | None = None, *,
                 prompt: str = LLM_PROMPT, top_k: Mapping[str, int] | None = None,
                 cache_size: int = DEFAULT_CACHE_SIZE) -> None:
        super().__init__(top_k=top_k, cache_size=cache_size)
        self.client = llm if isinstance(llm, LLMClient) else LLMClient(llm)
        self.llm = self.client.llm
        self.fallback = fallback if fallback is not None else RuleBasedAnalyzer(
            top_k=top_k, cache_size=0)
        self._prompt = prompt

    def _analyze(self, question: str, query: str, history: tuple[Turn, ...]) -> QueryPlan:
        if not any(c.isalnum() for c in question):
            return self.fallback.analyze(question, history)
        try:
            text = fill_prompt(self._prompt, question=clip(question),
                               history=_format_history(history))
            output = self.client.structured(
                PlanOutput, [ChatMessage(role=MessageRole.USER, content=text)],
                max_tokens=PLAN_MAX_TOKENS)
            return self._plan(output, question, query, history)
        except LLMUnavailable:  # said once, by the client
            return self.fallback.analyze(question, history)
        except Exception as error:  # noqa: BLE001 - any LLM failure falls back
            logger.warning("LLM query analysis failed (%s: %s); falling back to %s rules",
                           type(error).__name__, str(error)[:200], self.fallback.name)
            return self.fallback.analyze(question, history)

    def _plan(self, output: PlanOutput, question: str, query: str,
              history: tuple[Turn, ...]) -> QueryPlan:
        targets = _known_categories(output.target_categories)
        contexts = _known_categories(output.context_categories)
        if not targets and any(str(c).strip().lower() == "time"
                               for c in output.target_categories):
            targets = self.fallback.analyze(question, history).target_categories
        time_range: tuple[int, int] | None = None
        if output.start_year is not None or output.end_year is not None:
            low = MIN_YEAR if output.start_year is None else output.start_year
            high = MAX_YEAR if output.end_year is None else output.end_year
            time_range = (min(low, high), max(low, high))
        haystack = f"{question}\n{query}".lower()
        anchors = [a.strip() for a in output.anchors
                   if a.strip() and a.strip().lower() in haystack]
        if not anchors:
            anchors = [*quoted_titles(question), *name_spans(question)]
        reference = resolve_reference(question, history)
        if reference is not None:
            anchors.append(reference[0])
        return QueryPlan(
            question=question, query=query, type=output.type, k=self.top_k[output.type],
            target_categories=targets, context_categories=contexts, time_range=time_range,
            anchors=tuple(dict.fromkeys(anchors)), analyzer=self.name)


def _known_categories(names: Iterable[str]) -> tuple[str, ...]:
    """Canonical document categories; raises on a name that is no category at all."""
    canonical = {c.lower(): c for c in CATEGORIES}
    found: list[str] = []
    for name in names:
        category = canonical.get(str(name).strip().lower())
        if category is None:
            raise ValueError(f"unknown category {name!r}")
        if category in DOCUMENT_CATEGORIES and category not in found:
            found.append(category)
    return tuple(found)


def _format_history(history: Sequence[Turn]) -> str:
    if not history:
        return ""
    lines = ["Earlier turns of the conversation:"]
    for question, answer in history[-3:]:
        lines.append(f"Q: {question[:300]}")
        if answer:
            lines.append(f"A: {answer[:300]}")
    return "\n".join(lines) + "\n"
