"""Superlatives and groups over an executed plan's members: rankings by count (a name
recorded as many nodes counted once, stand-ins left out), by date or size (sizes read from
dimension statements when no number is recorded), groups by value, and a decade named without
its century read where the graph has dates.

:class:`Ranking` is a part of :class:`~.execute.Executor` (it reads the executor's walker,
lexicon and values); kept apart so that each file says one thing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from llama_index_crm.exact.linking import SHARED_NAME_NODES
from llama_index_crm.exact.plan import ExactPlan, Link
from llama_index_crm.exact.relations import Relation
from llama_index_crm.exact.results import ExactResult, Group, Item, Members, TripleIds, Value
from llama_index_crm.rdf import RDF_TYPE
from llama_index_crm.storage.names import fold_name

if TYPE_CHECKING:
    from llama_index_crm.exact.paths import PathEngine, Walk
    from llama_index_crm.exact.plan import ValueFilter
    from llama_index_crm.exact.relations import RelationLexicon, RelationWalker
    from llama_index_crm.exact.values import GraphValues

__all__ = ["NOT_RECORDED", "Ranking", "is_placeholder", "statement_size"]

NOT_RECORDED = "(not recorded)"
DIMENSION_STATEMENT = "dimensions-statement"
DOMINANT_SHARE = 0.8
"""A type shared by this share of the members (a collection code on every object) does not
tell them apart: grouping by type leaves it out when other types exist."""
INCH_CM = 2.54
CIRCA_YEARS = 5
"""How far a date written "c. 1887" may lie from its year, when ranking by date."""
_CIRCA = re.compile(r"\s*(?:c\.|ca\.|circa\b|about\b|around\b|approx)", re.IGNORECASE)
DECADE_CENTURIES = range(1000, 2100, 100)
"""Centuries tried for a decade named without one ("the eighties")."""


class Ranking:
    """Ranking, grouping and decade guessing of :class:`~.execute.Executor`."""

    if TYPE_CHECKING:  # what the executor provides
        lexicon: RelationLexicon
        engine: PathEngine
        walker: RelationWalker
        values: GraphValues

        @property
        def _notes(self) -> list[str]: ...

        @property
        def _records(self) -> dict[int, int]: ...

        def uri(self, node: int) -> str: ...

        def _run(self, plan: ExactPlan) -> ExactResult: ...

        def _resolve(self, plan: ExactPlan, index: int,
                     skip: dict[int, Link | None]) -> Members: ...

        def _in_role(self, walk: Walk, rows: list[int], role: str) -> list[int]: ...

        def _dated(self, walk: Walk, rows: list[int], condition: ValueFilter) -> list[int]: ...

        def _attach(self, items: list[Item], relation: Relation,
                    hints: Sequence[str]) -> None: ...

        def values_of(self, nodes: Sequence[int], relation: Relation,
                      hints: Sequence[str] = ()) -> dict[int, list[Value]]: ...

    def _rank(self, plan: ExactPlan, result: ExactResult) -> None:
        items = result.items
        limit = plan.limit or 1
        if plan.order_by == "count":
            linked = self._count_linked(plan, items)
            items = self._one_per_name(items, linked)
            ranked = [it for it in items if it.count]
            if plan.variables[0].category == "Actor":
                stand_ins = [it for it in ranked if self._stand_in(it)]
                ranked = [it for it in ranked if not self._stand_in(it)]
                for it in sorted(stand_ins, key=lambda it: -(it.count or 0))[:3]:
                    why = "it stands for no one actor" if is_placeholder(it.label) else \
                        f"the graph records nothing about it ({self.uri(it.node)})"
                    self._notes.append(f"“{it.label}” ({it.count}) is left out: {why}")
            key = [float(it.count or 0) for it in ranked]
        else:
            name, _, measure = (plan.order_by or "creation-date").partition(":")
            relation = self.lexicon[name]
            if not any(v.relation == name for it in items for v in it.values):
                self._attach(items, relation, plan.hints)
            scores = {it.node: _measure(it, relation, plan.descending, measure) for it in items}
            if relation.value == "dimension" and not any(v is not None for v in
                                                         scores.values()):
                scores = self._statement_sizes(items, measure)  # only "12 x 18 in." texts
            ranked = [it for it in items if scores[it.node] is not None]
            key = [scores[it.node] or 0.0 for it in ranked]
        result.ranked = len(ranked)
        if not ranked and len(items) == 1 and plan.order_by != "count":
            result.items = items  # "the largest work by X", who has one: that work
            return
        if not ranked:
            result.items = []
            return
        order = sorted(range(len(ranked)), key=lambda i: (-key[i] if plan.descending else key[i],
                                                          fold_name(ranked[i].label)))
        cut = key[order[min(limit, len(order)) - 1]]
        keep = [i for i in order if (key[i] >= cut if plan.descending else key[i] <= cut)]
        result.items = [ranked[i] for i in keep]
        if plan.order_by != "count" and relation.value == "time":
            result.unordered = _overlapping(result.items, [ranked[i] for i in order
                                                           if i not in set(keep)],
                                            plan.descending)
        for item in result.items:
            if item.node in self._records:
                self._notes.append(f"“{item.label}” is recorded as {self._records[item.node]} "
                                   f"{(item.category or 'node').lower()} nodes, counted as "
                                   f"one name")
        ranked_by = (plan.order_by or "").split(":")[0]
        for name in plan.attributes:  # what else the question asks of the winners
            if name != ranked_by and name in self.lexicon:
                self._attach(result.items, self.lexicon[name], plan.hints)

    def _one_per_name(self, items: list[Item], linked: dict[int, set[int]]) -> list[Item]:
        """Members that bear one name recorded again and again (an organiser or a venue
        made anew in each exhibition record) ranked as that one name: what they are linked
        to counted once, and the number of records said."""
        by_name: dict[str, list[Item]] = {}
        for item in items:
            by_name.setdefault(fold_name(item.label), []).append(item)
        merged: list[Item] = []
        for same in by_name.values():
            if len(same) < SHARED_NAME_NODES or is_placeholder(same[0].label) or \
                    same[0].category != "Actor":  # works of one title are several works
                merged.extend(same)
                continue
            first = same[0]
            nodes = set().union(*(linked.get(it.node, set()) for it in same))
            first.count = len(nodes)
            first.evidence = [t for it in same for t in it.evidence][:12]
            merged.append(first)
            self._records[first.node] = len(same)
        return merged

    def _stand_in(self, item: Item) -> bool:
        """An actor that is no one in particular: a placeholder name ("Unknown artist"), or a
        node only pointed at, with no triple of its own (a record's broken reference)."""
        if is_placeholder(item.label):
            return True
        store = self.engine.store
        start, end = int(store.out_offsets[item.node]), int(store.out_offsets[item.node + 1])
        typed = self.engine.ids([RDF_TYPE])
        return bool(np.isin(store.p_ids[start:end], typed).all())

    def _statement_sizes(self, items: list[Item],
                         measure: str) -> dict[int, float | None]:
        """Sizes read from dimension statements ("image: 12 × 18 in. (30.5 × 45.7 cm)"):
        height first, width second, centimetres preferred; values attached."""
        statement = self.lexicon.get(DIMENSION_STATEMENT)
        scores: dict[int, float | None] = {it.node: None for it in items}
        if statement is None:
            return scores
        self._attach(items, statement, ())
        texts: dict[int, list[str]] = {it.node: [v.text for v in it.values
                                                 if v.relation == DIMENSION_STATEMENT]
                                       for it in items}
        if not any(texts.values()):  # statements not typed as dimensions: read them all
            ids = np.asarray([it.node for it in items], dtype=np.int64)
            walk = self.engine.walk(ids, self.walker.compiled(statement))
            for start, node in zip(walk.start.tolist(), walk.node.tolist(), strict=True):
                texts[int(ids[start])].append(self.values.text(int(node)) or "")
        for item in items:
            sizes = [size for size in map(statement_size, texts[item.node]) if size]
            if not sizes:
                continue
            height, width = sizes[0]
            scores[item.node] = height if measure == "height" else (
                width if measure in {"width", "length"} else height * width)
        if any(v is not None for v in scores.values()):
            self._notes.append("sizes read from the dimension statements")
        return scores

    def _count_linked(self, plan: ExactPlan, items: list[Item]) -> dict[int, set[int]]:
        """For each member of variable 0, the members of variable 1 linked to it."""
        other = next((i for i, v in enumerate(plan.variables) if i and any(
            link.target == 0 for link in v.links)), None)
        if other is None:
            return {}
        var = plan.variables[other]
        link = next(link for link in var.links if link.target == 0)
        allowed = self._resolve(plan, other, {other: link})
        relation = self.lexicon[link.relation]
        ids = np.asarray([it.node for it in items], dtype=np.int64)
        walk = self.walker.walk(relation, ids, reverse=not link.inverse)
        rows = list(range(len(walk)))
        if link.role:  # "the most prolific sculptor": his sculptures are counted
            rows = self._in_role(walk, rows, link.role)
        for condition in var.filters:  # "the most works from the 1960s": their production
            if condition.through == link.relation and condition.years:
                rows = self._dated(walk, rows, condition)
        counts: dict[int, set[int]] = {}
        evidence: dict[int, list[TripleIds]] = {}
        for row in rows:
            node = int(walk.node[row])
            if node in allowed:
                member = int(ids[walk.start[row]])
                counts.setdefault(member, set()).add(node)
                if member not in evidence:
                    evidence[member] = walk.witness(row)
        for item in items:
            item.count = len(counts.get(item.node, ()))
            item.evidence = item.evidence + evidence.get(item.node, [])
        return counts

    def _group(self, items: list[Item], group_by: str,
               asked: Sequence[str] = ()) -> list[Group]:
        name, _, unit = group_by.partition(":")
        relation = self.lexicon[name]
        found = self.values_of([it.node for it in items], relation)
        groups: dict[str, list[Item]] = {}
        for item in items:
            keys = {_group_key(v, unit) for v in found.get(item.node, [])} - {None}
            for key in keys or {NOT_RECORDED}:
                groups.setdefault(str(key), []).append(item)
        if name == "has-type" and len(groups) > 1:
            # "types of church": "church" itself tells them apart no more than a type on all
            dominant = [k for k, v in groups.items() if len(v) >= DOMINANT_SHARE * len(items)
                        or fold_name(k) in {fold_name(a) for a in asked}]
            if len(dominant) < len(groups):
                for key in dominant:
                    del groups[key]
                    self._notes.append(f"“{key}”, shared by nearly all, is left out")
        ordered = sorted(groups.items(), key=lambda kv: (
            (kv[0] == NOT_RECORDED, kv[0]) if unit else (-len(kv[1]), kv[0])))
        return [Group(k, v) for k, v in ordered]

    def _decade_guess(self, plan: ExactPlan) -> ExactResult | None:
        """A decade named without its century, read in the century where data is."""
        for v, var in enumerate(plan.variables):
            for f, condition in enumerate(var.filters):
                if not condition.decade_guess or condition.years is None:
                    continue
                decade = condition.years[0] % 100
                best: ExactResult | None = None
                for century in DECADE_CENTURIES:
                    years = (century + decade, century + decade + 9)
                    if years == condition.years:
                        continue
                    filters = list(var.filters)
                    filters[f] = replace(condition, years=years, decade_guess=False)
                    variables = list(plan.variables)
                    variables[v] = replace(var, filters=tuple(filters))
                    trial = self._run(replace(plan, variables=tuple(variables)))
                    if trial.total and (best is None or trial.total > best.total):
                        best = trial
                if best is not None:
                    found = next(x.years for x in best.plan.variables[v].filters
                                 if x.relation == condition.relation)
                    if found is not None:
                        best.notes.append(f"read as the {found[0]}s, where this graph has "
                                          "dates")
                    return best
        return None


CONTAINER_WORDS = ("frame", "mount", "mat ", "case", "base", "pedestal", "crate")
"""Lines of a dimension statement that measure what holds the work, not the work."""
_SIZE_RE = re.compile(r"(\d+(?:\.\d+)?)\s*[x×]\s*(\d+(?:\.\d+)?)(?:\s*[x×]\s*\d+(?:\.\d+)?)?"
                      r"\s*(cm|in)\b", re.I)


def statement_size(text: str) -> tuple[float, float] | None:
    """(height, width) in centimetres from a dimension statement: of the work itself
    (its "image" or "sheet" line before a "frame" or "mount" line), in centimetres where
    given.

    >>> statement_size("frame: 43 x 43 in.\\nimage: 12 x 18 in. (30.5 x 45.7 cm)")
    (30.5, 45.7)
    >>> statement_size("10 × 20 in.")
    (25.4, 50.8)
    """
    lines = text.splitlines() or [text]
    lines.sort(key=lambda line: any(w in line.lower() for w in CONTAINER_WORDS))
    for line in lines:
        found = [(float(a), float(b), unit.lower()) for a, b, unit in _SIZE_RE.findall(line)]
        for height, width, unit in sorted(found, key=lambda f: f[2] != "cm"):
            factor = 1.0 if unit == "cm" else INCH_CM
            return round(height * factor, 2), round(width * factor, 2)
    return None


PLACEHOLDER_WORDS = ("unidentified", "unknown", "anonymous", "anon", "unattributed",
                     "not identified", "various", "multiple", "several")
"""First words of actor names that stand for no one ("Unidentified Artist", "(Multiple
Sitters)", "Unknown maker"): left out of rankings."""


def is_placeholder(label: str) -> bool:
    """Whether an actor's name stands for no one actor.

    >>> is_placeholder("Unidentified Artist"), is_placeholder("(Non-Portrait)")
    (True, True)
    >>> is_placeholder("Variously Smith"), is_placeholder("Anne Unknown")
    (False, False)
    """
    text = label.strip()
    if text.startswith("(") and text.endswith(")"):
        return True
    folded = fold_name(text)
    return any(folded == w or folded.startswith(w + " ") for w in PLACEHOLDER_WORDS)


def _measure(item: Item, relation: Relation, descending: bool,
             measure: str = "") -> float | None:
    """The number an item ranks by: the year it began (earliest or latest), one named
    dimension ("height"), or the product of its two largest dimensions (its area)."""
    if relation.value == "time":  # by the year it began: a wide "undated" range never wins
        spans = [v.years for v in item.values if v.years]
        if not spans:
            return None
        return float(max(s[0] for s in spans) if descending else min(s[0] for s in spans))
    values = [v for v in item.values if v.number is not None and v.relation == relation.id]
    if measure:
        named = [v.number for v in values if v.number is not None and
                 fold_name(v.text).startswith(measure)]
        return float(max(named)) if named else None
    numbers = [v.number for v in values if v.number is not None]
    if not numbers:
        return None
    top = sorted(numbers, reverse=True)[:2]
    return float(math.prod(top))


def _overlapping(winners: list[Item], rest: list[Item], latest: bool) -> list[Item]:
    """Members whose dates overlap the winners' so that the graph cannot say which came
    first (or last): the oldest is "c. 1940s" (1940–1949) and another work is of 1941, or
    "c. 1887" and another of 1890."""
    def spans(item: Item) -> list[tuple[int, int]]:  # "c. 1887": a few years either way
        return [(v.years[0] - CIRCA_YEARS, v.years[1] + CIRCA_YEARS) if _CIRCA.match(v.text)
                else v.years for v in item.values if v.years]

    if latest:  # a member that may end after the latest winner began
        bound = min(max(s[0] for s in spans(w)) for w in winners)
        return [it for it in rest if max(s[1] for s in spans(it)) >= bound]
    bound = max(min(spans(w))[1] for w in winners)  # the winners' own dates may run to
    return [it for it in rest if min(spans(it))[0] <= bound]


def _group_key(value: Value, unit: str) -> str | None:
    if not unit:
        return value.text
    if value.years is None:
        return None
    year = value.years[0]  # the year it began, as periods are matched (see within)
    if unit == "decade":
        return f"{year - year % 10}s"
    if unit == "century":
        century = year // 100 + 1  # 1700–1799: the 18th century
        return f"{century}{_ordinal(century)} century"
    return str(year)


def _ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
