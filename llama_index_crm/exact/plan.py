"""``ExactPlan``: what a question asks, as variables, links, filters and one operation.

A plan is a small conjunctive query. Variable 0 is what the question is about ("works",
"who", or a named node itself); each variable may be a named node (an :class:`Anchor`), and
carries :class:`Link` constraints (a relation to an anchor or to another variable),
:class:`ValueFilter` constraints (a date range, a text a statement must contain), type words
("paintings") and exclusions. The operation says what to do with variable 0's complete set:

============  ===============================================================
``value``     the values of ``attributes`` for each member ("When was X made?")
``list``      the members ("Which works by X…?")
``count``     how many members ("How many works by X…?")
``superlative`` the members ranked by ``order_by`` (a time or dimension relation, or
              ``count`` of variable 1 linked to each), best ``limit`` kept, ties too
``group``     members counted per value of ``group_by`` ("per decade", "per artist")
``describe``  the main facts of a named node ("Tell me about X")
============  ===============================================================

Plans are plain data: the rule planner and the LLM planner produce the same objects, and
:mod:`.execute` runs them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

__all__ = ["Anchor", "ExactPlan", "Link", "Operation", "ValueFilter", "Variable"]

Operation = Literal["value", "list", "count", "superlative", "group", "describe"]
OPERATIONS: tuple[str, ...] = ("value", "list", "count", "superlative", "group", "describe")


@dataclass(frozen=True, slots=True)
class Anchor:
    """A graph node the question names.

    Attributes:
        text: the words of the question that name it.
        node: its IRI.
        label: its name in the graph.
        category: its fundamental category.
        how: how the words matched (``exact``, ``surname``, ``misspelling``…).
        also: more nodes of the same name and kind, taken together (two Getty places
            both labelled "Paris"); an answer says so.
    """

    text: str
    node: str
    label: str
    category: str
    how: str = "exact"
    also: tuple[str, ...] = ()

    @property
    def nodes(self) -> tuple[str, ...]:
        """Every node the anchor stands for."""
        return (self.node, *self.also)


@dataclass(frozen=True, slots=True)
class Link:
    """A relation between a variable and an anchor or another variable.

    Attributes:
        relation: a relation id of ``config/exact/relations.json``.
        target: an :class:`Anchor` or the index of another variable.
        inverse: False when the variable is the relation's domain (``works —made by→
            Green``); True when it is the range (``X —made by→ who``).
        hints: words of event types that single out one event of several ("painted" →
            "painting"); ignored when no event matches them.
        role: a word the made thing's type or its making event's type must contain, for
            makers named by what they make ("painters": a painting, or a wall-painting
            campaign); unlike hints, nothing else is kept.
    """

    relation: str
    target: Anchor | int
    inverse: bool = False
    hints: tuple[str, ...] = ()
    role: str | None = None


@dataclass(frozen=True, slots=True)
class ValueFilter:
    """A condition on the values a relation gives a variable's members.

    Attributes:
        relation: a relation whose value is a time-span or a text.
        years: inclusive years the time-span must lie within.
        contains: folded words the text must contain (``"paul mellon"``).
        decade_guess: ``years`` is a decade named without its century ("the eighties"):
            the executor may read it in another century where the data has dates.
        through: a link relation of the same variable whose events must carry the date
            ("works Daniel Orme made in the 1790s": his production, not another one).
        forms: ``contains`` matches other forms of its words ("lions" finds "Lion"): the
            text stands in for a relation the graph does not record.
        hints: words of event types one of which the dated event must carry, when any
            event on the way carries one ("painted in the 14th century": the painting
            campaign, not the construction).
        months: inclusive months of the one year of ``years`` the date must begin in
            ("opened in March 1938").
        begins: a date that begins in ``years`` counts (1845–1852 for the 1840s), not
            only one that lies within them.
    """

    relation: str
    years: tuple[int, int] | None = None
    contains: str | None = None
    decade_guess: bool = False
    through: str | None = None
    forms: bool = False
    hints: tuple[str, ...] = ()
    months: tuple[int, int] | None = None
    begins: bool = False


@dataclass(frozen=True, slots=True)
class Variable:
    """A set of nodes the question speaks of.

    Attributes:
        category: fundamental category of the members (None: any).
        noun: the word the question used ("works", "who", "churches").
        types: words the members' types must contain ("church", "painting").
        links / filters: constraints.
        anchor: the variable is exactly this named node.
        exclude: IRIs kept out ("aside from Asinou").
    """

    category: str | None = None
    noun: str | None = None
    types: tuple[str, ...] = ()
    links: tuple[Link, ...] = ()
    filters: tuple[ValueFilter, ...] = ()
    anchor: Anchor | None = None
    exclude: tuple[str, ...] = ()

    def with_link(self, link: Link) -> Variable:
        """A copy with one more link."""
        return replace(self, links=(*self.links, link))

    def with_filter(self, condition: ValueFilter) -> Variable:
        """A copy with one more value filter."""
        return replace(self, filters=(*self.filters, condition))


@dataclass(frozen=True, slots=True)
class ExactPlan:
    """A question compiled for exact execution.

    Attributes:
        question: as asked.
        variables: variable 0 is what the question is about.
        operation: see the module table.
        attributes: the relations whose values answer a ``value`` question (the medium:
            its statement, materials and technique), or by which a ``superlative`` ranks.
        order_by: ``superlative`` ranking: a relation id (time or dimension) or ``count``.
        descending: rank from the largest / latest.
        group_by: ``group``: a relation id, with ``:decade``, ``:century`` or ``:year``
            for a time relation.
        limit: members kept by a superlative (ties included).
        hints: event-type words for the attribute ("painted" → the painting campaign).
        analyzer: ``rules`` or ``llm``.
    """

    question: str
    variables: tuple[Variable, ...]
    operation: Operation = "list"
    attributes: tuple[str, ...] = ()
    order_by: str | None = None
    descending: bool = False
    group_by: str | None = None
    limit: int | None = None
    hints: tuple[str, ...] = ()
    analyzer: str = "rules"
    notes: tuple[str, ...] = field(default=())

    @property
    def anchors(self) -> list[Anchor]:
        """Every anchor of the plan, in variable order."""
        found: list[Anchor] = []
        for var in self.variables:
            if var.anchor is not None:
                found.append(var.anchor)
            found.extend(link.target for link in var.links if isinstance(link.target, Anchor))
        return list(dict.fromkeys(found))


def rebound(plan: ExactPlan, old: Anchor, new: Anchor) -> ExactPlan:
    """``plan`` with the anchor ``old`` replaced by ``new`` wherever it stands."""
    def link(item: Link) -> Link:
        return replace(item, target=new) if item.target == old else item

    return replace(plan, variables=tuple(
        replace(v, anchor=new if v.anchor == old else v.anchor,
                links=tuple(link(k) for k in v.links)) for v in plan.variables))
