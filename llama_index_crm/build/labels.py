"""Human-readable names for nodes: a bare IRI never appears as a name.

Order of preference: a direct label (rdfs:label, skos:prefLabel, dcterms:title, schema
and FOAF names), then a title or appellation reached by ``P102_has_title`` /
``P1_is_identified_by`` (its ``P190_has_symbolic_content``, ``rdf:value`` or label), then a
symbolic value of the node itself (``P190``, ``rdf:value``, for appellations and texts), and
last a humanised local name marked as such: ``production 1 (unlabelled)``.
"""

from __future__ import annotations

import functools
import re
from urllib.parse import unquote

from llama_index_crm.build.neighbourhood import Neighbourhood
from llama_index_crm.rdf import DCTERMS, RDF_VALUE, RDFS_LABEL, SKOS_PREF_LABEL, Literal, local_name

DIRECT_LABELS = (
    RDFS_LABEL,
    SKOS_PREF_LABEL,
    DCTERMS + "title",
    "http://schema.org/name",
    "https://schema.org/name",
    "http://xmlns.com/foaf/0.1/name",
)
SYMBOLIC_VALUES = ("P190_has_symbolic_content", RDF_VALUE, "P3_has_note")
NAME_PROPERTIES = frozenset({"P102_has_title", "P1_is_identified_by"})
UNLABELLED = "(unlabelled)"
MAX_NAME = 160
"""Names longer than this are cut (a long text used as a name helps nobody)."""

# Getty AAT concepts that mark an appellation as a sort name (e.g. "West, Benjamin"):
# display names are preferred when both exist.
_SORT_NAME_TYPES = frozenset({"http://vocab.getty.edu/aat/300404672"})
_GENERIC_SEGMENT = re.compile(r"^(\d+|[0-9a-f-]{16,}|[a-z]{1,3}\d*)$", re.IGNORECASE)


def _lang_rank(lit: Literal, lang: str) -> tuple[int, str]:
    if lit.lang == lang:
        rank = 0
    elif not lit.lang:
        rank = 1
    elif lit.lang.startswith(lang):
        rank = 2
    else:
        rank = 3
    return rank, lit.value


def looks_like_iri(text: str) -> bool:
    """True for a literal that is only an address (some graphs label nodes with their IRI)."""
    return text.startswith(("http://", "https://", "urn:")) and " " not in text.strip()


def best_literal(literals: list[Literal], lang: str = "en") -> Literal | None:
    """The literal to show first: preferred language, then untagged, then the rest."""
    values = [lit for lit in literals if lit.value.strip() and not looks_like_iri(lit.value)]
    return min(values, key=lambda lit: _lang_rank(lit, lang)) if values else None


def clip(text: str, limit: int = MAX_NAME) -> str:
    """Whitespace-folded ``text``, cut at ``limit`` characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def humanise(iri: str) -> str:
    """A readable stand-in for a node's name from its IRI (never the IRI itself).

    >>> humanise("http://collection.example.org/id/object/1056/production/1")
    'production 1'
    >>> humanise("https://example.org/troodos/church/asinou")
    'asinou'
    """
    if iri.startswith("_:"):
        return "blank node"
    parts = [unquote(p) for p in re.split(r"[/#]", iri.rstrip("/#")) if p]
    last = parts[-1] if parts else iri
    if _GENERIC_SEGMENT.match(last) and len(parts) > 2:
        last = f"{parts[-2]} {last}"
    words = re.sub(r"[_+]+", " ", last)
    words = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", words)
    return clip(words.strip() or "node")


@functools.lru_cache(maxsize=65536)
def _fallback(node: str) -> str:
    """The marked stand-in name of an unlabelled node (asked for again in every round)."""
    return humanise(node) + " " + UNLABELLED


class Labeller:
    """Resolves and caches node names from a :class:`Neighbourhood`.

    Args:
        nb: the fetched triples.
        lang: the preferred language tag.
    """

    def __init__(self, nb: Neighbourhood, lang: str = "en") -> None:
        self.nb = nb
        self.lang = lang
        self._cache: dict[str, tuple[str, bool]] = {}
        self.derived: dict[str, str] = {}
        """Names made up for unlabelled entities ("Production of X")."""
        self.incomplete: set[str] = set()
        """Made-up names that met nodes not fetched yet (made again after the next fetch)."""
        self.rendered: dict[str, str] = {}
        """Targets as written in documents (``Name (annotation)``), once they met no
        missing node: what they show can no longer change."""

    def resolve(self, node: str) -> tuple[str, bool]:
        """``(name, is_real_label)``; records missing nodes when more fetching would help."""
        cached = self._cache.get(node)
        if cached is not None:
            return cached
        nb = self.nb
        if not nb.require_described(node):
            return _fallback(node), False
        lit = best_literal(nb.literal_values(node, DIRECT_LABELS), self.lang)
        result: tuple[str, bool] | None = (clip(lit.value), True) if lit else None
        if result is None:
            result = self._from_appellations(node)
            if result is not None and not result[0]:  # appellations not fetched yet
                return _fallback(node), False
        if result is None:
            lit = best_literal(nb.literal_values(node, SYMBOLIC_VALUES), self.lang)
            if lit:
                result = (clip(lit.value), True)
        if result is None:
            result = (_fallback(node), False)
        self._cache[node] = result
        return result

    def _from_appellations(self, node: str) -> tuple[str, bool] | None:
        nb = self.nb
        names = nb.objects(node, NAME_PROPERTIES)
        if not names:
            return None
        candidates: list[tuple[int, int, tuple[int, str]]] = []
        complete = True
        titles = set(nb.objects(node, frozenset({"P102_has_title"})))
        for app in names:
            if not nb.require_described(app):
                complete = False
                continue
            lit = best_literal(
                nb.literal_values(app, (*SYMBOLIC_VALUES[:2], *DIRECT_LABELS)), self.lang
            )
            if lit is None:
                continue
            sort_name = bool(set(nb.objects(app, frozenset({"P2_has_type"}))) & _SORT_NAME_TYPES)
            rank = (0 if app in titles else 1, int(sort_name), _lang_rank(lit, self.lang))
            candidates.append(rank)
        if not candidates:
            return None if complete else ("", False)
        best = min(candidates)
        return clip(best[2][1]), True

    def name(self, node: str) -> str:
        """The name to print for ``node``."""
        return self.resolve(node)[0]

    def has_label(self, node: str) -> bool:
        """True when ``node`` has a real label (not a humanised IRI)."""
        return self.resolve(node)[1]

    def forget_missing(self) -> None:
        """Drop cached fallbacks so that names are resolved again after a fetch."""
        self._cache = {k: v for k, v in self._cache.items() if v[1]}
        for node in self.incomplete:
            self.derived.pop(node, None)
        self.incomplete.clear()


def local_words(iri: str) -> str:
    """The local name of a vocabulary term as words: ``P14_carried_out_by`` → ``carried out by``."""
    name = local_name(iri)
    name = re.sub(r"^[A-Z]{1,3}\d+[a-z]?_", "", name)
    return name.replace("_", " ")
