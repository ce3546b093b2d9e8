"""Records for the classes and properties of ``config/classes.json`` / ``properties.json``.

>>> humanize("P999_foo_bar")
'foo bar'
>>> humanize("http://www.w3.org/2004/02/skos/core#prefLabel")
'pref label'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..rdf import local_name

__all__ = ["CRM_CODE_RE", "ClassInfo", "PropertyInfo", "humanize"]

CRM_CODE_RE = re.compile(r"^(?:[A-Z]{1,3})\d+[a-z]?_")
"""A CRM-family local name: code letters, number, optional ``i``/``a``/``b``, underscore
(``E22_``, ``P108i_``, ``IC9_``, ``K24_``, ``L11i_``, ``S19_``, ``F38_``)."""

_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def humanize(term: str) -> str:
    """A readable label for a term without one: ``P999_foo_bar`` -> ``foo bar``.

    Args:
        term: a local name or a full IRI.
    """
    # a CURIE's local part follows its colon
    name = local_name(term) if "/" in term or "#" in term else term.rsplit(":", 1)[-1]
    if CRM_CODE_RE.match(name):
        text = CRM_CODE_RE.sub("", name)
    else:
        split = _CAMEL_RE.sub(" ", name)
        text = split.lower() if split != name else name
    return " ".join(text.replace("_", " ").split()) or name


@dataclass(frozen=True, slots=True)
class ClassInfo:
    """One class.

    Attributes:
        name: canonical local name (``E22_Human-Made_Object``).
        label: English label (``Human-Made Object``).
        vocab: ``crm``, ``crmsci``, ``crmdig``, ``vir`` or ``frbroo``.
        superclasses: direct superclasses (local names).
        source: the file the class was read from (``reference`` for CRMdig/FRBRoo classes,
            whose hierarchy is only what the reference tables attest).
    """

    name: str
    label: str
    vocab: str
    superclasses: tuple[str, ...] = ()
    source: str = ""

    @classmethod
    def from_json(cls, name: str, obj: Mapping[str, Any]) -> ClassInfo:
        """Build from one entry of ``classes.json``."""
        return cls(name=name, label=str(obj.get("label") or humanize(name)),
                   vocab=str(obj.get("vocab", "")),
                   superclasses=tuple(obj.get("superclasses", ())),
                   source=str(obj.get("source", "")))


@dataclass(frozen=True, slots=True)
class PropertyInfo:
    """One property (each direction of a CRM property is its own record).

    Attributes:
        name: canonical local name (``P108i_was_produced_by``).
        label: English label (``was produced by``).
        vocab: ``crm``, ``crmsci``, ``crmdig``, ``vir`` or ``frbroo``.
        inverse: the other direction's name; the property itself when symmetric; None for
            literal-valued properties.
        symmetric: ``P121_overlaps_with`` and the like.
        domain: class local name, or None when the ontology states none.
        range: class local name, ``rdfs:Literal``, or None.
        superproperties: direct super-properties.
        source: the file the property was read from.
    """

    name: str
    label: str
    vocab: str
    inverse: str | None = None
    symmetric: bool = False
    domain: str | None = None
    range: str | None = None
    superproperties: tuple[str, ...] = ()
    source: str = ""

    @property
    def is_literal(self) -> bool:
        """True when the property points at a literal (``P3_has_note``, ``P90_has_value``)."""
        return bool(self.range) and str(self.range).startswith(("rdfs:", "xsd:"))

    @classmethod
    def from_json(cls, name: str, obj: Mapping[str, Any]) -> PropertyInfo:
        """Build from one entry of ``properties.json``."""
        return cls(name=name, label=str(obj.get("label") or humanize(name)),
                   vocab=str(obj.get("vocab", "")), inverse=obj.get("inverse"),
                   symmetric=bool(obj.get("symmetric", False)), domain=obj.get("domain"),
                   range=obj.get("range"),
                   superproperties=tuple(obj.get("superproperties", ())),
                   source=str(obj.get("source", "")))
