"""The user's SPARQL endpoint as the exact layer asks it (:class:`PlanEndpoint`): solutions
of a plan's queries, and what the executor reads off nodes there (labels, texts, the years of
time-spans), for :mod:`.endpoint`."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from llama_index_crm.exact.values import (
    BEGIN_PROPERTIES,
    END_PROPERTIES,
    TEXT_PREDICATES,
    TEXT_PROPERTIES,
    month_of,
    span_of,
    year_of,
)
from llama_index_crm.rdf import Literal
from llama_index_crm.sources._sparql_terms import Row, iri_ref

__all__ = ["LABEL_BATCH", "PlanEndpoint", "Row", "Span", "batches", "endpoint_year"]

LABEL_BATCH = 500
"""IRIs per ``VALUES`` query about nodes (labels, texts, values)."""
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
TEXT_PREDICATE_NAMES = frozenset({*TEXT_PROPERTIES, *TEXT_PREDICATES})
Span = tuple[tuple[int, int] | None, tuple[int, int] | None]
"""A time-span's (begin, end) years and the (year, month) it begins in."""
REWRITTEN_DATE = re.compile(r"^0000-\d\d-\d\d")
"""Year 0000: Virtuoso's rewrite of an ill-typed date on loading (``"-01-01"^^xsd:date``, no
year at all); read as the graph wrote it, with no year (docs/architecture.md, departure 22)."""


def endpoint_year(text: str) -> int | None:
    """The year of a date literal read off an endpoint (:func:`~.values.year_of`; none for a
    date Virtuoso rewrote as year 0000).

    >>> endpoint_year("1850-01-01"), endpoint_year("0000-01-01")
    (1850, None)
    """
    return None if REWRITTEN_DATE.match(text) else year_of(text)


def batches(iris: Sequence[str]) -> Iterator[str]:
    """``VALUES`` contents of at most :data:`LABEL_BATCH` safe IRIs each."""
    refs = [ref for ref in (iri_ref(iri) for iri in iris) if ref is not None]
    for start in range(0, len(refs), LABEL_BATCH):
        yield " ".join(refs[start:start + LABEL_BATCH])


class PlanEndpoint:
    """The user's SPARQL endpoint, as the exact layer asks it.

    Args:
        url: the query endpoint (``http://host:7878/query``, ``…/sparql``).
        timeout: seconds per request.
        auth: ``(user, password)``; otherwise from the URL, ``CRM_RAG_AUTH`` or ``.netrc``.
        graphs: read the union of these named graphs.
        headers: extra HTTP headers.
    """

    def __init__(self, url: str, *, timeout: float = 60, auth: tuple[str, str] | None = None,
                 graphs: Sequence[str] | None = None,
                 headers: Mapping[str, str] | None = None) -> None:
        from llama_index_crm.sources.sparql import SparqlEndpointSource

        self.source = SparqlEndpointSource(
            url, timeout=timeout, retries=1, auth=auth, graphs=graphs, headers=headers)

    def describe(self) -> str:
        """``SPARQL endpoint <url>`` (no password), and its graphs."""
        return self.source.describe()

    def spans(self, iris: Iterable[str], canonical: Callable[[str], str | None]
              ) -> dict[str, Span]:
        """Per time-span IRI: its (begin, end) years (:func:`~.values.span_of`) and the
        (year, month) it begins in, read off the endpoint (``canonical``: a predicate IRI's
        CRM name)."""
        iris = list(iris)
        begins, ends, first = (frozenset(names) for names in (
            BEGIN_PROPERTIES, END_PROPERTIES, BEGIN_PROPERTIES[:1]))
        texts: dict[str, dict[str, list[str]]] = {}
        for batch in batches(iris):
            query = (f"SELECT ?s ?p ?o WHERE {{ VALUES ?s {{ {batch} }} ?s ?p ?o "
                     f"FILTER(isLiteral(?o)) }}")
            for s, p, o in self.source.select(query, ("s", "p", "o")):
                if isinstance(s, str) and isinstance(p, str) and isinstance(o, Literal):
                    name = RDFS_LABEL if p == RDFS_LABEL else canonical(p) or p
                    texts.setdefault(s, {}).setdefault(name, []).append(o.value)
        out: dict[str, Span] = {}
        for iri in iris:
            by = texts.get(iri, {})
            values = [v for p, vs in by.items() if p in begins for v in vs]
            values = [v for v in values if not REWRITTEN_DATE.match(v)]
            span = span_of(values, [v for p, vs in by.items() if p in ends for v in vs
                                    if not REWRITTEN_DATE.match(v)],
                           min(by.get(RDFS_LABEL, [""])))
            months = [m for p in first for v in sorted(by.get(p, [])) if (m := month_of(v))]
            out[iri] = (span, months[0] if months else None)
        return out

    def labels(self, iris: Sequence[str]) -> dict[str, str]:
        """``rdfs:label`` of IRIs on the endpoint (the first, by string order)."""
        found: dict[str, str] = {}
        for batch in batches(iris):
            query = f"SELECT ?s ?l WHERE {{ VALUES ?s {{ {batch} }} ?s <{RDFS_LABEL}> ?l }}"
            for s, label in self.source.select(query, ("s", "l")):
                if isinstance(s, str) and isinstance(label, Literal):
                    found[s] = min(found.get(s, label.value), label.value)
        return found

    def texts(self, iris: Sequence[str], canonical: Callable[[str], str | None]
              ) -> dict[str, list[str]]:
        """Per IRI: its own texts on the endpoint (symbolic content, value, label…)."""
        found: dict[str, list[str]] = {}
        for batch in batches(iris):
            query = (f"SELECT ?s ?p ?o WHERE {{ VALUES ?s {{ {batch} }} ?s ?p ?o "
                     f"FILTER(isLiteral(?o)) }}")
            for s, p, o in self.source.select(query, ("s", "p", "o")):
                if isinstance(s, str) and isinstance(p, str) and isinstance(o, Literal) and (
                        p in TEXT_PREDICATE_NAMES or canonical(p) in TEXT_PREDICATE_NAMES):
                    found.setdefault(s, []).append(o.value)
        return found

    def select(self, query: str, variables: Sequence[str]) -> list[Row]:
        """The solutions of ``query``, in the order of ``variables``."""
        return self.source.select(query, variables)

    def close(self) -> None:
        """Close the connection."""
        self.source.close()
