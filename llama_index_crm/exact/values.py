"""What the exact layer reads off nodes: categories, years of time-spans, texts and labels.

All tables are computed once per graph with vectorised passes over the triple store and kept
as numpy arrays indexed by term id.

* **Years.** A time-span's begin is the earliest of its ``P82a_begin_of_the_begin``,
  ``P81a_end_of_the_begin``, ``P82_at_some_time_within``, ``P81_ongoing_throughout``; its end
  the latest of ``P82b``, ``P81b``, ``P82``, ``P81``. A literal's year is its first run of
  four digits (a minus sign before it makes it BCE), so ``"1949-31-12"`` and
  ``"after 1845-01-01"`` (both seen in museum dumps) still give a year. A time-span with no
  such property takes the years written in its label ("between 1765 and 1766").
* **Texts.** A node's text is its ``P190_has_symbolic_content``, ``rdf:value`` or label
  literal (statements, appellations).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cached_property

import numpy as np

from llama_index_crm.ontology import CATEGORIES, Ontology
from llama_index_crm.rdf import RDF_VALUE, RDFS, SKOS, Literal, decode_object
from llama_index_crm.storage.names import node_categories
from llama_index_crm.storage.triples import TripleStore

__all__ = ["BEGIN_PROPERTIES", "END_PROPERTIES", "LONG_PERIOD", "NO_YEAR", "GraphValues",
           "label_span", "month_of", "span_of", "within", "year_of", "years_text"]

NO_YEAR = np.iinfo(np.int32).min
"""Marks a term without a known year."""
BEGIN_PROPERTIES = ("P82a_begin_of_the_begin", "P81a_end_of_the_begin",
                    "P82_at_some_time_within", "P81_ongoing_throughout")
END_PROPERTIES = ("P82b_end_of_the_end", "P81b_begin_of_the_end",
                  "P82_at_some_time_within", "P81_ongoing_throughout")
TEXT_PREDICATES = (RDF_VALUE, RDFS + "label", SKOS + "prefLabel")
TEXT_PROPERTIES = ("P190_has_symbolic_content", "P3_has_note")
_YEAR_RE = re.compile(r"(?<!\d)(-?)(\d{4})(?!\d)")
_LABEL_YEAR_RE = re.compile(r"(?<!\d)(\d{3,4})(?!\d)")
_MONTH_RE = re.compile(r"(?<!\d)(\d{4})-(0[1-9]|1[0-2])(?:-|$|T)")


def year_of(text: str) -> int | None:
    """The year a date literal stands for (its first run of exactly four digits; ``-``
    makes it BCE). A longer run is a typing slip, not a year ("19070\\n1908-01-01", as an
    Amon Carter date reads).

    >>> year_of("1765-01-01"), year_of("after 1845-01-01"), year_of("-0500"), year_of("c.")
    (1765, 1845, -500, None)
    >>> year_of("19070\\n1908-01-01")
    1908
    """
    match = _YEAR_RE.search(text)
    if not match:
        return None
    return -int(match.group(2)) if match.group(1) else int(match.group(2))


class GraphValues:
    """Categories, years, texts and labels of the nodes of one graph.

    Args:
        store: the triple store.
        ontology: the CRM vocabulary.
    """

    def __init__(self, store: TripleStore, ontology: Ontology | None = None) -> None:
        self.store = store
        self.ontology = ontology or Ontology.default()

    @cached_property
    def categories(self) -> np.ndarray:
        """Per term id, the index of its category in ``CATEGORIES`` (-1: none)."""
        return node_categories(self.store, self.ontology)

    def category(self, node: int) -> str | None:
        """The category of one node."""
        code = int(self.categories[node])
        return CATEGORIES[code] if code >= 0 else None

    def _predicates(self, names: tuple[str, ...]) -> np.ndarray:
        ids = np.unique(self.store.p_ids)
        iris = self.store.take(ids)
        found = [i for i, iri in zip(ids.tolist(), iris, strict=True)
                 if (self.ontology.canonical(iri) or iri) in names or iri in names]
        return np.asarray(found, dtype=np.int64)

    @cached_property
    def years(self) -> tuple[np.ndarray, np.ndarray]:
        """(begin, end) year per term id; :data:`NO_YEAR` where unknown."""
        store = self.store
        begin = np.full(store.terms, np.iinfo(np.int32).max, dtype=np.int64)
        end = np.full(store.terms, NO_YEAR, dtype=np.int64)
        for names, target, pick in ((BEGIN_PROPERTIES, begin, np.minimum),
                                    (END_PROPERTIES, end, np.maximum)):
            mask = np.isin(store.p_ids, self._predicates(names)) & store.is_literal[store.o_ids]
            subjects, objects = store.s_ids[mask], store.o_ids[mask]
            literals = np.unique(objects)
            parsed = np.asarray([year_of(_literal_text(t)) or NO_YEAR
                                 for t in store.take(literals)], dtype=np.int64)
            years = parsed[np.searchsorted(literals, objects)]
            ok = years != NO_YEAR
            pick.at(target, subjects[ok], years[ok])
        begin[begin == np.iinfo(np.int32).max] = NO_YEAR
        missing = (begin == NO_YEAR) & (end != NO_YEAR)
        begin[missing] = end[missing]
        missing = (end == NO_YEAR) & (begin != NO_YEAR)
        end[missing] = begin[missing]
        return begin, end

    def begin_month(self, node: int) -> tuple[int, int] | None:
        """(year, month) a time-span (or a date literal) begins in, when its date gives the
        month ("1938-03-02T00:00:00")."""
        store = self.store
        if store.is_literal[node]:
            texts = [_literal_text(store.term(node))]
        else:
            start, end = int(store.out_offsets[node]), int(store.out_offsets[node + 1])
            begins = self._predicates(BEGIN_PROPERTIES[:1])
            texts = [_literal_text(store.term(int(store.o_ids[k]))) for k in range(start, end)
                     if int(store.p_ids[k]) in begins.tolist()
                     and store.is_literal[int(store.o_ids[k])]]
        for text in texts:
            match = _MONTH_RE.search(text)
            if match:
                return int(match.group(1)), int(match.group(2))
        return None

    def span_years(self, node: int) -> tuple[int, int] | None:
        """The (begin, end) years of a time-span, from its properties or else its label."""
        begin, end = self.years
        if begin[node] != NO_YEAR:
            return int(begin[node]), int(end[node])
        if self.store.is_literal[node]:  # a date itself (the opening: P4 / P82a)
            year = year_of(_literal_text(self.store.term(node)))
            return (year, year) if year is not None else None
        return label_span(self.store.label_of(node) or "")

    @cached_property
    def _text_predicates(self) -> np.ndarray:
        return self._predicates(TEXT_PROPERTIES + TEXT_PREDICATES)

    def text(self, node: int) -> str | None:
        """A node's own text: its symbolic content, value or label literal."""
        p_ids, o_ids = self.store.out_ids(node)
        for pred in self._text_predicates.tolist():
            hits = o_ids[(p_ids == pred) & self.store.is_literal[o_ids]]
            if len(hits):
                return _literal_text(self.store.term(int(hits[0])))
        return None

    def label(self, node: int) -> str:
        """The name to show for a node: its archive label, its text, or its IRI's end."""
        term = self.store.term(node)
        if self.store.is_literal[node]:
            return _literal_text(term)
        return self.store.label_of(node) or self.text(node) or term.rsplit("/", 1)[-1]


def _literal_text(encoded: str) -> str:
    value = decode_object(encoded)
    return value.value if isinstance(value, Literal) else value


def span_of(begins: Iterable[str], ends: Iterable[str],
            label: str | None) -> tuple[int, int] | None:
    """The (begin, end) years of a time-span from the texts of its begin and end properties
    (:data:`BEGIN_PROPERTIES`, :data:`END_PROPERTIES`), else its label: what
    :meth:`GraphValues.span_years` reads off the index, for a span read elsewhere (an
    endpoint).

    >>> span_of(["1785-01-01", "1812-01-01"], ["1785-12-31", "1812-12-31"], "1785")
    (1785, 1812)
    >>> span_of([], ["1900"], None), span_of([], [], "between 1765 and 1766"), span_of([], [], "")
    ((1900, 1900), (1765, 1766), None)
    """
    first = [y for y in map(year_of, begins) if y is not None]
    last = [y for y in map(year_of, ends) if y is not None]
    if first or last:
        begin = min(first) if first else max(last)
        return begin, max(last) if last else begin
    return label_span(label or "")


def label_span(label: str) -> tuple[int, int] | None:
    """The (begin, end) years a date's label names: its first and last year, a decade or a
    century written with an "s" running to its last year ("c. 1940s": 1940–1949; "1800s":
    1800–1899), so that a label names no narrower span than it says.

    >>> label_span("c. 1940s"), label_span("1890–1895"), label_span("1800s"), label_span("n.d.")
    ((1940, 1949), (1890, 1895), (1800, 1899), None)
    """
    found: list[int] = []
    for match in _LABEL_YEAR_RE.finditer(label):
        year = int(match.group(1))
        found.append(year)
        if label[match.end():match.end() + 1] in {"s", "'"} and year % 10 == 0:
            found.append(year + (99 if year % 100 == 0 else 9))
    return (min(found), max(found)) if found else None


def month_of(text: str) -> tuple[int, int] | None:
    """(year, month) of a date's text ("1938-03-02T00:00:00"), if it gives the month.

    >>> month_of("1938-03-02T00:00:00"), month_of("1938")
    ((1938, 3), None)
    """
    match = _MONTH_RE.search(text)
    return (int(match.group(1)), int(match.group(2))) if match else None


LONG_PERIOD = 99
"""Periods of this many years or more (centuries) match a date that begins in them;
shorter ones (a decade, a year, a span) a date that lies wholly within them."""


def within(span: tuple[int, int], period: tuple[int, int], begins: bool = False) -> bool:
    """Whether a date falls in a period: begins in a century; lies within a decade
    (``begins``: begins in it, as grouping by decade counts it).

    >>> within((1795, 1805), (1700, 1799)), within((1795, 1805), (1790, 1799))
    (True, False)
    >>> within((1795, 1805), (1790, 1799), begins=True)
    True
    """
    low, high = period
    if begins or high - low >= LONG_PERIOD:
        return low <= span[0] <= high
    return span[0] >= low and span[1] <= high


def years_text(span: tuple[int, int] | None) -> str:
    if span is None:
        return "undated"
    return str(span[0]) if span[0] == span[1] else f"{span[0]}–{span[1]}"
