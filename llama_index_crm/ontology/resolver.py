"""Map the many spellings of a CIDOC-CRM term to one canonical local name.

Data spells the same term as a full IRI in the official namespace, in a variant
(``http://erlangen-crm.org/current/``), as a CURIE (``crm:E21_Person``), or by a CRM 5.x/6.x
name (``E22_Man-Made_Object``, ``P131_is_identified_by``). :class:`TermResolver` turns all of
them into the 7.1.3 local name, and everything outside the CRM family into ``None``.

>>> r = TermResolver(terms={"E22_Human-Made_Object"},
...                  renames={"E22_Man-Made_Object": "E22_Human-Made_Object"})
>>> r.canonical("http://erlangen-crm.org/current/E22_Man-Made_Object")
'E22_Human-Made_Object'
>>> r.canonical("http://example.org/data/E22_Man-Made_Object")
'E22_Human-Made_Object'
>>> r.canonical("http://www.w3.org/2000/01/rdf-schema#label") is None
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache

from ..rdf import local_name
from .namespaces import ERLANGEN_DATED_RE, NAMESPACE_VOCABULARY, PREFIXES
from .terms import CRM_CODE_RE

__all__ = ["CANONICAL_CACHE_SIZE", "TermResolver"]

CANONICAL_CACHE_SIZE = 1 << 16
"""Distinct spellings remembered by :meth:`TermResolver.canonical` (vocabularies are small;
the bound keeps memory flat when it is asked about millions of entity IRIs)."""


class TermResolver:
    """Resolve IRIs, CURIEs and old names to canonical local names.

    Args:
        terms: every canonical local name (classes and properties).
        renames: old local name -> 7.1.3 local name.
        kept: old names without a single 7.1.3 equivalent that stay as they are (the
            deprecated Allen relations ``P114``-``P119``, expressed by ``all_of`` aliases).
        dropped: old names that are no terms at all in 7.1.3 (primitive-value classes such as
            ``E62_String``, which are ``rdfs:Literal``).
        namespaces: extra namespace IRIs of the CRM family (variants from the config).
    """

    def __init__(
        self,
        terms: Iterable[str],
        renames: Mapping[str, str] | None = None,
        kept: Iterable[str] = (),
        dropped: Iterable[str] = (),
        namespaces: Iterable[str] = (),
    ) -> None:
        """Precompute the look-up tables."""
        self._terms = frozenset(terms)
        self._renames = dict(renames or {})
        self._kept = frozenset(kept)
        self._dropped = frozenset(dropped)
        all_ns = {*NAMESPACE_VOCABULARY, *namespaces}
        self._namespaces = tuple(sorted(all_ns, key=len, reverse=True))
        self._other_prefixes = tuple(
            ns for p, ns in PREFIXES.items() if ns not in all_ns and p not in ("dig", "sci"))
        self.canonical: Callable[[str], str | None] = lru_cache(
            maxsize=CANONICAL_CACHE_SIZE)(self._canonical)
        """Canonical local name of an IRI, CURIE or local name, or None (memoised)."""

    @property
    def namespaces(self) -> tuple[str, ...]:
        """Every namespace IRI whose terms are resolved (longest first)."""
        return self._namespaces

    def ontology_namespace(self, iri: str) -> str | None:
        """The CRM-family namespace ``iri`` starts with, or None.

        Dated Erlangen namespaces (``http://erlangen-crm.org/170309/``) count as well.
        """
        for ns in self._namespaces:
            if iri.startswith(ns):
                return ns
        match = ERLANGEN_DATED_RE.match(iri)
        return match.group(0) if match else None

    def is_ontology_iri(self, iri: str) -> bool:
        """True when ``iri`` lies in a CRM-family namespace (canonical or variant)."""
        return self.ontology_namespace(iri) is not None

    def resolve_local(self, name: str, *, keep_unknown: bool = False) -> str | None:
        """Canonical form of a local name.

        Args:
            name: a local name such as ``E22_Man-Made_Object``.
            keep_unknown: return a CRM-like name that is not in the tables (a term of a CRM
                namespace from a later version, ``P199_...``) instead of None.
        """
        if name in self._terms or name in self._kept:
            return name
        if name in self._renames:
            return self._renames[name]
        if name in self._dropped:
            return None
        return name if keep_unknown and CRM_CODE_RE.match(name) else None

    def _canonical(self, term: str) -> str | None:
        if not term:
            return None
        namespace = self.ontology_namespace(term)
        if namespace is not None:
            return self.resolve_local(term[len(namespace):], keep_unknown=True)
        if "/" in term or "#" in term:
            if term.startswith(self._other_prefixes):
                return None  # rdf:, rdfs:, owl:, skos:, xsd:, dcterms:
            name = local_name(term)
            return self.resolve_local(name) if CRM_CODE_RE.match(name) else None
        prefix, colon, rest = term.partition(":")
        if colon:
            ns = PREFIXES.get(prefix)
            if ns is None or ns in self._other_prefixes:
                return None
            return self.resolve_local(rest, keep_unknown=True)
        return self.resolve_local(term)
