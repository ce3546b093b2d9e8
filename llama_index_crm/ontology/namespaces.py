"""Namespace IRIs of CIDOC-CRM, its extensions and the W3C vocabularies.

Each ontology namespace is a :class:`VocabularyNamespace`: a ``str`` (the namespace IRI) whose
attributes are the vocabulary's terms, checked against ``config/`` so that a typo fails at once:

>>> CRM.P108i_was_produced_by
'http://www.cidoc-crm.org/cidoc-crm/P108i_was_produced_by'
>>> CRM.term("E22_Human-Made_Object")  # names with a hyphen
'http://www.cidoc-crm.org/cidoc-crm/E22_Human-Made_Object'
>>> CRM.P108i_was_produced_bye  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
AttributeError: 'P108i_was_produced_bye' is not a crm term ...
>>> VIR.K24_portray
'http://w3id.org/vir#K24_portray'
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from pathlib import Path

from ..errors import CrmError
from ..rdf import DCTERMS, OWL, RDF, RDFS, SKOS, XSD
from .config_dir import find_config_dir

__all__ = [
    "CRM",
    "CRMDIG",
    "CRMDIG_SIG",
    "CRMSCI",
    "CRMSCI_FORTH",
    "CRM_VARIANTS",
    "DCTERMS",
    "ERLANGEN_CRM",
    "ERLANGEN_DATED_RE",
    "FRBROO",
    "FRBROO_ERLANGEN",
    "LA",
    "NAMESPACE_VOCABULARY",
    "ONTOLOGY_NAMESPACES",
    "OWL",
    "PREFIXES",
    "RDF",
    "RDFS",
    "SKOS",
    "VIR",
    "XSD",
    "VocabularyNamespace",
]

TermLookup = Callable[[str], frozenset[str]]
"""Returns the local names a vocabulary defines (``"crm"`` -> ``{"E1_CRM_Entity", ...}``)."""


@functools.cache
def _config_terms() -> dict[str, frozenset[str]]:
    """Local names per vocabulary, read from ``config/classes.json`` and ``properties.json``
    (the files :class:`~.ontology.Ontology` reads; this module sits below it)."""
    folder = Path(find_config_dir())
    found: dict[str, set[str]] = {}
    for name, key in (("classes.json", "classes"), ("properties.json", "properties")):
        table = json.loads((folder / name).read_text(encoding="utf-8"))[key]
        for term, info in table.items():
            found.setdefault(str(info.get("vocab", "crm")), set()).add(term)
    return {vocab: frozenset(terms) for vocab, terms in found.items()}


def _default_terms(vocab: str) -> frozenset[str]:
    return _config_terms().get(vocab, frozenset())


class VocabularyNamespace(str):
    """A namespace IRI whose attributes are the full IRIs of its vocabulary's terms.

    Args:
        iri: the namespace IRI (ends with ``/`` or ``#``).
        vocab: the vocabulary key in ``config/`` (``crm``, ``crmsci``, ``crmdig``, ``vir``,
            ``frbroo``); a variant namespace (Erlangen CRM) shares its vocabulary's names.
        terms: where the valid names come from; defaults to the names in ``config/``.
    """

    vocab: str
    _terms: TermLookup

    def __new__(cls, iri: str, vocab: str, terms: TermLookup | None = None) -> VocabularyNamespace:
        """Create the namespace (a ``str`` equal to ``iri``)."""
        obj = super().__new__(cls, iri)
        obj.vocab = vocab
        obj._terms = terms or _default_terms
        return obj

    def __getnewargs__(self) -> tuple[str, str]:  # type: ignore[override]
        """Support copy and pickle (``str`` would only pass the IRI)."""
        return (str(self), self.vocab)

    def term(self, name: str) -> str:
        """The full IRI of ``name``.

        Args:
            name: a local name of this vocabulary, e.g. ``"E22_Human-Made_Object"``.

        Raises:
            AttributeError: when the vocabulary has no such term.
        """
        if name not in self._terms(self.vocab):
            raise AttributeError(f"{name!r} is not a {self.vocab} term "
                                 "(see config/classes.json and config/properties.json)")
        return str(self) + name

    def __getattr__(self, name: str) -> str:
        """``CRM.P108i_was_produced_by`` -> the full IRI; unknown names raise."""
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self.term(name)
        except CrmError as exc:  # no config: still an AttributeError for hasattr()/getattr()
            raise AttributeError(f"{name!r}: {exc}") from exc

    def __dir__(self) -> list[str]:
        """Offer the vocabulary's terms to tab completion."""
        names = (n for n in self._terms(self.vocab) if n.isidentifier())
        return sorted({*super().__dir__(), *names})

    def __repr__(self) -> str:
        """``VocabularyNamespace('http://...', vocab='crm')``."""
        return f"{type(self).__name__}({str(self)!r}, vocab={self.vocab!r})"


CRM = VocabularyNamespace("http://www.cidoc-crm.org/cidoc-crm/", "crm")
"""CIDOC-CRM (the canonical namespace of the official RDFS)."""
ERLANGEN_CRM = VocabularyNamespace("http://erlangen-crm.org/current/", "crm")
"""Erlangen CRM (OWL implementation): same local names as the official RDFS."""
CRM_VARIANTS: tuple[str, ...] = (
    "http://cidoc-crm.org/cidoc-crm/",
    "https://www.cidoc-crm.org/cidoc-crm/",
    "https://cidoc-crm.org/cidoc-crm/",
    str(ERLANGEN_CRM),
    "http://purl.org/NET/cidoc-crm/core#",
)
"""Other namespaces used for CRM terms in published data."""
ERLANGEN_DATED_RE = re.compile(r"^https?://erlangen-crm\.org/(?:\d{6}|current)/")
"""Dated Erlangen namespaces (``http://erlangen-crm.org/170309/``) follow their CRM version."""

CRMDIG = VocabularyNamespace("http://www.ics.forth.gr/isl/CRMdig/", "crmdig")
CRMDIG_SIG = VocabularyNamespace("http://www.cidoc-crm.org/extensions/crmdig/", "crmdig")
CRMSCI = VocabularyNamespace("http://www.cidoc-crm.org/extensions/crmsci/", "crmsci")
CRMSCI_FORTH = VocabularyNamespace("http://www.ics.forth.gr/isl/CRMsci/", "crmsci")
VIR = VocabularyNamespace("http://w3id.org/vir#", "vir")
FRBROO = VocabularyNamespace("http://iflastandards.info/ns/fr/frbr/frbroo/", "frbroo")
FRBROO_ERLANGEN = VocabularyNamespace("http://erlangen-crm.org/efrbroo/", "frbroo")
LA = VocabularyNamespace("https://linked.art/ns/terms/", "la")
"""Linked Art's own terms (``la:Set``, ``la:member_of``), known by their local names."""

NAMESPACE_VOCABULARY: dict[str, str] = {
    str(CRM): "crm",
    **{ns: "crm" for ns in CRM_VARIANTS},
    str(CRMDIG): "crmdig",
    str(CRMDIG_SIG): "crmdig",
    str(CRMSCI): "crmsci",
    str(CRMSCI_FORTH): "crmsci",
    str(VIR): "vir",
    str(FRBROO): "frbroo",
    str(FRBROO_ERLANGEN): "frbroo",
    str(LA): "la",
    "http://linked.art/ns/terms/": "la",
}
"""Every ontology namespace IRI -> its vocabulary key."""

ONTOLOGY_NAMESPACES: tuple[str, ...] = tuple(NAMESPACE_VOCABULARY)
"""Namespaces whose terms :meth:`Ontology.canonical` resolves (canonical ones and variants)."""

PREFIXES: dict[str, str] = {
    "crm": str(CRM),
    "crmdig": str(CRMDIG),
    "dig": str(CRMDIG),
    "crmsci": str(CRMSCI),
    "sci": str(CRMSCI),
    "vir": str(VIR),
    "frbroo": str(FRBROO),
    "la": str(LA),
    "rdf": RDF,
    "rdfs": RDFS,
    "owl": OWL,
    "skos": SKOS,
    "xsd": XSD,
    "dcterms": DCTERMS,
}
"""CURIE prefixes accepted by :meth:`Ontology.canonical` (``crm:E21_Person``)."""
