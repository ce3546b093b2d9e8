"""What an executed plan gives: its members, their values and evidence (data types only)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from llama_index_crm.exact.plan import ExactPlan

__all__ = ["UNTYPED_EVENTS", "ExactResult", "Group", "Item", "Members", "TripleIds", "Value",
           "extreme", "unique_items"]

TripleIds = tuple[int, int, int]


UNTYPED_EVENTS = "no event has a type recorded"
"""How the executor's note begins when events of no type were kept by their names only."""

@dataclass(slots=True)
class Value:
    """One value of an attribute of a member.

    Attributes:
        text: how to show it (a name, a text, a date label).
        node: the value node's IRI (None for a literal).
        years: (begin, end) of a time value.
        number: a numeric value (a dimension in centimetres).
        evidence: the triples from the member to the value.
        event: the event the value came through ("Production of X"), if any.
        relation: the relation the value was read through.
    """

    text: str
    node: str | None = None
    years: tuple[int, int] | None = None
    number: float | None = None
    evidence: list[TripleIds] = field(default_factory=list)
    event: str | None = None
    relation: str = ""


@dataclass(slots=True)
class Item:
    """A member of the answer set.

    Attributes:
        node: term id; ``uri`` and ``label`` name it.
        evidence: triples that justify its membership.
        values: attribute values (value questions, rankings).
        count: linked members counted (superlative by count, groups).
    """

    node: int
    uri: str
    label: str
    category: str | None
    evidence: list[TripleIds] = field(default_factory=list)
    values: list[Value] = field(default_factory=list)
    count: int | None = None


@dataclass(slots=True)
class Group:
    """Members sharing one value of ``group_by``."""

    key: str
    items: list[Item]


@dataclass(slots=True)
class ExactResult:
    """What a plan gave.

    Attributes:
        plan: the plan as executed (a decade read in another century shows here).
        items: the complete answer set (ranked for superlatives, else by label).
        total: members before a superlative's cut.
        groups: for ``group``.
        missing_relations: relations of the plan the graph holds no triple for.
        notes: how the question was read where it was not literal.
        left_out: members the question asked to leave out ("aside from X").
        ranked: members a superlative could rank (with a date, a size…).
        unordered: members a ranking by date cannot place after (or before) the winners:
            their dates overlap the winners' ("c. 1940s" against 1941).
        backend: what computed it: ``parquet`` (the index's triples) or ``sparql`` (the
            plan compiled to SPARQL and run on the user's endpoint).
    """

    plan: ExactPlan
    items: list[Item]
    total: int
    groups: list[Group] = field(default_factory=list)
    missing_relations: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    left_out: int = 0
    ranked: int | None = None
    unordered: list[Item] = field(default_factory=list)
    backend: str = "parquet"


Members = dict[int, list[TripleIds]]


def unique_items(items: Iterable[Item]) -> list[Item]:
    """Items without repeats (by node), first kept."""
    seen: set[int] = set()
    out = []
    for item in items:
        if item.node not in seen:
            seen.add(item.node)
            out.append(item)
    return out


def extreme(values: list[Value], relation: str, latest: bool) -> list[Value]:
    """``values`` with only the earliest (or latest) dated value of ``relation`` kept."""
    dated = [v for v in values if v.relation == relation and v.years]
    if len(dated) < 2:
        return values
    pick = max if latest else min
    best = pick(v.years[0] for v in dated if v.years)
    return [v for v in values if v.relation != relation or (v.years and v.years[0] == best)]
