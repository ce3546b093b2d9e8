"""What the exact layer answers: :class:`ExactAnswer`, a status and what goes with it (data
only; :mod:`.answerer` makes them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from llama_index_crm.exact.execute import ExactResult
from llama_index_crm.exact.linking import Candidate, Missing
from llama_index_crm.exact.plan import ExactPlan
from llama_index_crm.exact.understanding import Understanding

__all__ = ["ExactAnswer", "Status"]

Status = Literal["answered", "not_found", "ambiguous", "retrieval_only"]


@dataclass(slots=True)
class ExactAnswer:
    """One question answered from the graph, or why it could not be.

    Attributes:
        status: see the module table.
        text: the sentence a person reads.
        count: the number of members (count questions; 0 for an absent name); for a
            ranking by count, the count of the first ("the most paintings": 54; "the year
            with the most exhibitions": 1959's 78).
        items: members with their values and evidence (up to :data:`~.answerer.MAX_ITEMS`).
        total: members in the complete set.
        plan: the executed plan.
        plan_text: the plan as a readable FR path.
        sparql: the equivalent SPARQL query (run it on your endpoint).
        evidence: witness paths of the first members.
        candidates: the candidates of an ambiguous name.
        missing: names that link to nothing.
        understanding: which word of the question went where (``--explain``).
        language: the question's language (``en``, ``fr``, ``el``…).
        readings: other readings of the question worth trying, with how they read it
            ("reading “Nikosia” as nicosia").
    """

    status: Status
    text: str
    count: int | None = None
    items: list[dict[str, Any]] = field(default_factory=list)
    total: int = 0
    plan: ExactPlan | None = None
    plan_text: str = ""
    sparql: str = ""
    evidence: list[str] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    missing: list[Missing] = field(default_factory=list)
    result: ExactResult | None = None
    understanding: Understanding | None = None
    language: str = "en"
    readings: list[tuple[str, str]] = field(default_factory=list)
    asked: str = ""
    """The question in the planner's English, when it was asked in another language: what
    retrieval searches with beside the question (the documents are labelled in English)."""
    backend: str = ""
    """What computed an answered plan: ``parquet`` (the index's triples) or ``sparql`` (the
    user's endpoint, :mod:`.endpoint`); empty when no plan ran."""

    def context_block(self) -> str:
        """The exact result as the first block of an LLM's context."""
        if self.status == "retrieval_only":
            return ""
        lines = [f"{self.text} [{self.status}]"]
        if self.plan_text:
            lines.append("How it was computed:\n" + self.plan_text)
        if self.evidence:
            lines.append("Evidence:\n" + "\n".join(f"- {e}" for e in self.evidence))
        return "\n".join(lines)


def gives_values(answer: ExactAnswer) -> bool:
    """Whether an answer gives what it was asked: a value question at least one value of
    the relations asked ("where was the photographer of X born", read as a work titled X
    whose photographer has no birthplace recorded, answers nothing)."""
    plan = answer.plan
    if plan is None or plan.operation != "value" or answer.result is None:
        return True
    asked = set(plan.attributes)
    return any(v.relation in asked for item in answer.result.items for v in item.values)
