"""The LLM planner: an LLM fills a :class:`PlanSpec` (structured output); it is validated
against the relation lexicon and the ontology's categories and linked to the graph's nodes
exactly as the rules link names, then becomes the same :class:`~.plan.ExactPlan`.

The LLM never sees node IRIs and never counts: it only says which relations, names, filters
and operation the question means. Anything it gets wrong in form (an unknown relation id, a
category that is not one, a variable index out of range) raises :class:`PlanError`, and the
answerer falls back to the rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.bridge.pydantic import BaseModel, Field
from llama_index.core.llms import LLM

from llama_index_crm.errors import CrmError
from llama_index_crm.exact.linking import Missing, Unresolved, link_name
from llama_index_crm.exact.parse import Parsed
from llama_index_crm.exact.plan import OPERATIONS, Anchor, ExactPlan, Link, ValueFilter, Variable
from llama_index_crm.exact.relations import RelationLexicon
from llama_index_crm.llm_calls import (
    PLAN_MAX_TOKENS,
    LLMClient,
    StructuredOutputError,
    fill_prompt,
)
from llama_index_crm.ontology import CATEGORIES

if TYPE_CHECKING:
    from llama_index_crm.exact.linking import NameIndex

__all__ = ["PLANNER_PROMPT", "LLMPlanner", "LinkSpec", "PlanError", "PlanSpec", "VariableSpec"]


class PlanError(CrmError):
    """The LLM's plan does not fit the lexicon or the ontology."""


class LinkSpec(BaseModel):
    """A relation from a variable to a named node or to another variable."""

    relation: str = Field(description="a relation id from the list")
    name: str | None = Field(None, description="the name as written in the question, when "
                                               "the link goes to a named node")
    variable: int | None = Field(None, description="index of another variable, when the "
                                                   "link goes to it")
    inverse: bool = Field(False, description="true when this variable is on the relation's "
                                             "range side (e.g. 'who' in 'who made X')")


class VariableSpec(BaseModel):
    """A set of nodes the question speaks of; variable 0 is what is asked about."""

    category: str | None = Field(None, description="Thing, Actor, Place, Event or Concept")
    noun: str | None = Field(None, description="the question's noun: works, artists, who")
    types: list[str] = Field(default_factory=list,
                             description="type words the members must have: painting")
    name: str | None = Field(None, description="the variable is this named node")
    links: list[LinkSpec] = Field(default_factory=list)
    years: list[int] | None = Field(None, description="[first, last] year of its date")
    date_relation: str | None = Field(None, description="the time relation 'years' filter")


class PlanSpec(BaseModel):
    """What the question asks, in the terms of the relation list."""

    operation: Literal["value", "list", "count", "superlative", "group", "describe"]
    variables: list[VariableSpec]
    attributes: list[str] = Field(default_factory=list,
                                  description="relation ids whose values are asked (value)")
    order_by: str | None = Field(None, description="superlative: a time relation id, "
                                                   "'dimension' or 'count'")
    descending: bool = False
    group_by: str | None = Field(None, description="group: a relation id, or a time "
                                                   "relation id + ':decade'/':century'/':year'")
    limit: int | None = None


PLANNER_PROMPT = """\
You turn a question about a museum collection described in CIDOC-CRM into a query plan.
Categories: Thing (works, objects), Actor (people, groups), Place, Event, Concept (types,
materials, subjects). Relations (id: meaning, domain -> range):
{relations}

Variable 0 is what the question is about. Link variables to names exactly as the question
writes them (never invent a name). Operations: value (the attributes of variable 0),
list, count, superlative (rank by order_by, keep limit), group (count per group_by),
describe (the main facts of a named node).
Examples:
- "How many works did Valentine Green make in the 1780s?" -> operation count, variables
  [{category Thing, noun works, links [{relation created-by, name "Valentine Green"}],
  years [1780, 1789], date_relation creation-date}]
- "Who painted Battersea Reach?" -> operation list, variables [{category Actor, noun who,
  links [{relation created-by, name "Battersea Reach", inverse true}]}]
- "When was William Groombridge born?" -> operation value, variables [{name
  "William Groombridge"}], attributes [birth-date]

Question: {question}
"""


class LLMPlanner:
    """Plans questions with an LLM, validated and linked like the rules' plans.

    Args:
        llm: the LLM, or a client of it (structured output in a form the server accepts,
            bounded tokens and time: :class:`~llama_index_crm.llm_calls.LLMClient`).
        names: the graph's name index.
        lexicon: the relations.
        prompt: the planner prompt: ``{relations}`` and ``{question}`` are filled, every
            other brace is sent as written (single braces).
    """

    def __init__(self, llm: LLM | LLMClient, names: NameIndex, lexicon: RelationLexicon,
                 prompt: str = PLANNER_PROMPT) -> None:
        self.client = llm if isinstance(llm, LLMClient) else LLMClient(llm)
        self.llm = self.client.llm
        self.names = names
        self.lexicon = lexicon
        self.prompt = prompt

    def relations_text(self) -> str:
        """The relation list the prompt shows."""
        return "\n".join(f"- {r.id}: {r.label}, {r.domain} -> {r.range}"
                         for r in self.lexicon.values())

    def parse(self, question: str) -> Parsed:
        """The LLM's plan of ``question``, linked to the graph.

        Raises:
            PlanError: the LLM's answer is not a valid plan (the caller falls back).
            LLMUnavailable: the LLM cannot be reached, timed out, or has no credentials.
        """
        text = fill_prompt(self.prompt, question=question, relations=self.relations_text())
        try:
            spec = self.client.structured(
                PlanSpec, [ChatMessage(role=MessageRole.USER, content=text)],
                max_tokens=PLAN_MAX_TOKENS)
        except StructuredOutputError as exc:
            raise PlanError(str(exc)) from exc
        return self.to_plan(question, spec)

    def to_plan(self, question: str, spec: PlanSpec) -> Parsed:
        """Validate a :class:`PlanSpec` and link its names.

        Raises:
            PlanError: an unknown relation or category, a bad variable index, no variable.
        """
        if not spec.variables:
            raise PlanError("the plan has no variable")
        if spec.operation not in OPERATIONS:
            raise PlanError(f"unknown operation {spec.operation!r}")
        for name in [*spec.attributes, *(x for x in (spec.order_by, spec.group_by) if x)]:
            relation = name.split(":")[0]
            if relation not in self.lexicon and relation != "count":
                raise PlanError(f"unknown relation {relation!r}")
        missing: list[Missing] = []
        ambiguous: list[Unresolved] = []
        variables = [self._variable(v, i, len(spec.variables), missing, ambiguous)
                     for i, v in enumerate(spec.variables)]
        if missing or ambiguous:
            return Parsed(None, missing, ambiguous, "names")
        plan = ExactPlan(question, tuple(variables), spec.operation,
                         attributes=tuple(spec.attributes), order_by=spec.order_by,
                         descending=spec.descending, group_by=spec.group_by, limit=spec.limit,
                         analyzer="llm")
        return Parsed(plan)

    def _variable(self, spec: VariableSpec, index: int, count: int, missing: list[Missing],
                  ambiguous: list[Unresolved]) -> Variable:
        if spec.category is not None and spec.category not in CATEGORIES:
            raise PlanError(f"unknown category {spec.category!r}")
        anchor = self._anchor(spec.name, None, missing, ambiguous) if spec.name else None
        links = []
        for link in spec.links:
            if link.relation not in self.lexicon:
                raise PlanError(f"unknown relation {link.relation!r}")
            relation = self.lexicon[link.relation]
            side = relation.domain if link.inverse else relation.range
            if link.variable is not None:
                if not 0 <= link.variable < count or link.variable == index:
                    raise PlanError(f"variable {index} links to variable {link.variable}")
                links.append(Link(link.relation, link.variable, link.inverse))
            elif link.name:
                expected = None if side == "Any" else [side]
                target = self._anchor(link.name, expected, missing, ambiguous)
                if target is not None:
                    links.append(Link(link.relation, target, link.inverse))
            else:
                raise PlanError(f"a link of variable {index} goes nowhere")
        filters = []
        if spec.years:
            if len(spec.years) != 2 or spec.years[0] > spec.years[1]:
                raise PlanError(f"bad years {spec.years}")
            dated = spec.date_relation or "creation-date"
            if dated not in self.lexicon or self.lexicon[dated].value != "time":
                raise PlanError(f"{dated!r} is not a time relation")
            filters.append(ValueFilter(dated, (spec.years[0], spec.years[1])))
        return Variable(spec.category if anchor is None else anchor.category, spec.noun,
                        tuple(spec.types), tuple(links), tuple(filters), anchor)

    def _anchor(self, text: str, expected: Sequence[str] | None, missing: list[Missing],
                ambiguous: list[Unresolved]) -> Anchor | None:
        found = link_name(self.names, text, expected)
        if isinstance(found, Missing):
            missing.append(found)
            return None
        if isinstance(found, Unresolved):
            ambiguous.append(found)
            return None
        return found
