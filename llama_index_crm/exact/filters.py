"""Filters on the values a relation gives a plan's members: a date within a period (of the
member's own event, or of the event a link goes through: "works X made in the 1770s" are
dated by X's production, and the members another event dates so are said), a month, and
words a text must hold (a title in any word form, a credit line).

:class:`ValueFilters` is a part of :class:`~.execute.Executor` (it reads the executor's
walker, lexicon and values), kept apart so that each file says one thing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from llama_index_crm.exact.linking import mentions, mentions_forms
from llama_index_crm.exact.results import Members
from llama_index_crm.exact.values import within, years_text
from llama_index_crm.storage.names import fold_name

if TYPE_CHECKING:
    from llama_index_crm.exact.paths import Walk
    from llama_index_crm.exact.plan import ValueFilter
    from llama_index_crm.exact.relations import RelationLexicon, RelationWalker
    from llama_index_crm.exact.values import GraphValues

__all__ = ["TITLE_RELATION", "ValueFilters"]

TITLE_RELATION = "title"
"""The relation of a work's title: its own name counts as its text."""


class ValueFilters:
    """Date and text filters of :class:`~.execute.Executor`."""

    if TYPE_CHECKING:  # what the executor provides
        lexicon: RelationLexicon
        walker: RelationWalker
        values: GraphValues
        _folded: dict[int, str]

        @property
        def _notes(self) -> list[str]: ...

        def label(self, node: int) -> str: ...

        @staticmethod
        def _inner(walk: Walk, rows: list[int]) -> list[set[int]]: ...

        def _hinted(self, walk: Walk, hints: Sequence[str]) -> list[int]: ...

    def _dated(self, walk: Walk, rows: list[int], condition: ValueFilter) -> list[int]:
        """Rows whose path goes through an event dated within ``condition.years``."""
        assert condition.years is not None
        low, high = condition.years
        inner = self._inner(walk, rows)
        events = np.asarray(sorted(set().union(*inner)) if inner else [], dtype=np.int64)
        spans = self.walker.walk(self.lexicon["event-date"], events) if len(events) else None
        ok: set[int] = set()
        if spans is not None:
            for start, span in zip(spans.start.tolist(), spans.node.tolist(), strict=True):
                years = self.values.span_years(int(span))
                if years is not None and within(years, (low, high), condition.begins) and (
                        condition.months is None or self._in_months(int(span), condition)):
                    ok.add(int(events[start]))
        return [r for r, nodes in zip(rows, inner, strict=True) if nodes & ok]

    def _dated_otherwise(self, dropped: set[int], condition: ValueFilter) -> None:
        """Say how many members the maker's own dated event left out that another event of
        theirs dates in the period ("works X made in the 1770s": a print after X made by
        an engraver in 1776 is dated so, but not by X's act)."""
        if not dropped:
            return
        other = self._value_filter(dict.fromkeys(dropped, []), replace(condition, through=None))
        if other:
            self._notes.append(f"{len(other)} more are dated in "
                               f"{years_text(condition.years)} by another event of their "
                               f"making (a print made after the maker by someone else, say): "
                               f"not counted; ask when they date from to count them")

    def _in_months(self, node: int, condition: ValueFilter) -> bool:
        """Whether a date begins in the months of ``condition`` ("in March 1938")."""
        assert condition.months is not None and condition.years is not None
        found = self.values.begin_month(node)
        return found is not None and condition.years[0] <= found[0] <= condition.years[1] \
            and condition.months[0] <= found[1] <= condition.months[1]

    def _value_filter(self, members: Members, condition: ValueFilter) -> Members:
        relation = self.lexicon[condition.relation]
        ids = np.fromiter(members, dtype=np.int64, count=len(members))
        walk = self.walker.walk(relation, ids)
        kept: Members = {}
        wanted = fold_name(condition.contains) if condition.contains else None
        match = mentions_forms if condition.forms else mentions
        if wanted is not None and relation.id == TITLE_RELATION:  # its own name counts too
            kept = {n: ev for n, ev in members.items() if match(self._folded_text(n), wanted)}
        rows = self._hinted(walk, condition.hints) if condition.hints else range(len(walk))
        begun: dict[int, str] = {}  # members whose date begins in the period, ends after it
        for row, witness in zip(rows, walk.witnesses(rows), strict=True):
            member = int(ids[walk.start[row]])
            if member in kept:
                continue
            value = int(walk.node[row])
            if condition.years is not None:
                span = self.values.span_years(value)
                if span is not None and relation.domain == "Event":
                    span = (span[0], span[0])  # an exhibition of 1941 is one opened in 1941
                if span is None or not within(span, condition.years, condition.begins):
                    if span is not None and condition.years[0] <= span[0] <= condition.years[1]:
                        begun.setdefault(member, self.label(value))
                    continue
                if condition.months is not None and not self._in_months(value, condition):
                    continue
            if wanted is not None and not match(self._folded_text(value), wanted):
                continue
            kept[member] = members[member] + witness
        self._begun_only({n: t for n, t in begun.items() if n not in kept}, condition)
        return kept

    def _begun_only(self, begun: dict[int, str], condition: ValueFilter) -> None:
        """Say how many members the period left out that begin in it and end after it ("1950,
        printed 1993": taken then, printed later), with one of their dates."""
        if begun and condition.years is not None:
            example = next(iter(begun.values()))
            self._notes.append(f"{len(begun)} more are dated from within "
                               f"{years_text(condition.years)} to later (“{example}”): not "
                               f"counted")

    def _folded_text(self, node: int) -> str:
        """A node's text (a literal, a statement's content) or else its label, folded;
        cached, since text filters read the same titles question after question."""
        found = self._folded.get(node)
        if found is None:
            found = fold_name(self.values.text(node) or self.label(node))
            self._folded[node] = found
        return found
