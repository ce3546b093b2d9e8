"""``QueryPlan``: what a question asks for, decided before retrieval.

The plan travels from the analyzer to every retrieval stage: the candidate pool reserves
room for documents of the target categories, the re-ranker boosts them, and the answerer
counts or lists them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

QueryType = Literal["specific", "enumeration", "aggregation"]
TurnKind = Literal["standalone", "follow_up", "vague", "pivot"]
"""How a question leans on the conversation (see :mod:`.turns`)."""

TOP_K: dict[str, int] = {"specific": 10, "enumeration": 20, "aggregation": 25}
"""Documents in the final context per query type."""


def require_question(question: object) -> str:
    """``question`` when it has something to ask.

    Raises:
        ValueError: not a string, or empty or blank (an answer to nothing would be a
            random document).
    """
    if not isinstance(question, str):
        raise ValueError(f"a question must be text, not {type(question).__name__}")
    if not question.strip():
        raise ValueError("the question is empty: ask something, e.g. \"Who made …?\"")
    return question


@dataclass(frozen=True, slots=True)
class QueryPlan:
    """The analysis of one question.

    Attributes:
        question: the question as asked.
        query: the text to retrieve with (the question, contextualised by the conversation
            for a follow-up such as "Who made it?").
        type: ``specific`` (one fact), ``enumeration`` (a list) or ``aggregation`` (a number).
        k: documents in the final context (10 / 20 / 25 by type unless configured).
        target_categories: fundamental categories of the answer (``("Thing",)`` for
            "which churches…", ``("Actor",)`` for "who painted…").
        context_categories: categories of what the question names as a filter or anchor
            ("works by <Actor>", "churches in <Place>").
        time_range: inclusive years the answer must fall in ("in the 1930s" → 1930–1939).
        anchors: quoted titles or names found in the question, verbatim.
        analyzer: which analyzer produced the plan ("rules" or "llm").
        turn: how the question leans on the conversation: ``standalone``, ``follow_up``
            (retrieved twice: contextualised and as asked), ``vague`` ("tell me more": the
            previous turn leads) or ``pivot`` ("aside from X, …": X is left out).
        excluded: names of what a pivot leaves out of the result and the answer.
        lead: for a vague follow-up, the previous turn's retrieval text, whose entities
            lead the retrieval.
    """

    question: str
    query: str
    type: QueryType = "specific"
    k: int = TOP_K["specific"]
    target_categories: tuple[str, ...] = ()
    context_categories: tuple[str, ...] = ()
    time_range: tuple[int, int] | None = None
    anchors: tuple[str, ...] = field(default=())
    analyzer: str = "rules"
    turn: TurnKind = "standalone"
    excluded: tuple[str, ...] = ()
    lead: tuple[str, ...] = ()

    @property
    def is_list(self) -> bool:
        """True for enumeration and aggregation questions."""
        return self.type != "specific"
