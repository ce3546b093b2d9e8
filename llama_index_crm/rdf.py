"""RDF terms as plain Python values, shared by the build and query phases.

An IRI is a ``str``; a blank node is a ``str`` starting with ``_:``; a literal is a
:class:`Literal`. In the Parquet triple archive an object is stored as one string:
IRIs and blank nodes as they are, literals in N-Triples syntax (``"1192"^^<...#gYear>``,
``"Asinou"@en``), so the first character tells which kind it is.

>>> encode_object(Literal("Asinou", lang="en"))
'"Asinou"@en'
>>> decode_object('"Asinou"@en')
Literal(value='Asinou', lang='en', datatype=None)
>>> decode_object("http://example.org/a")
'http://example.org/a'
"""

from __future__ import annotations

from typing import NamedTuple, TypeAlias

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
XSD = "http://www.w3.org/2001/XMLSchema#"
DCTERMS = "http://purl.org/dc/terms/"

RDF_TYPE = RDF + "type"
RDF_VALUE = RDF + "value"
RDFS_LABEL = RDFS + "label"
SKOS_PREF_LABEL = SKOS + "prefLabel"
XSD_STRING = XSD + "string"


class Literal(NamedTuple):
    """An RDF literal: lexical value, optional language tag, optional datatype IRI."""

    value: str
    lang: str | None = None
    datatype: str | None = None


Node: TypeAlias = str
"""An IRI or a blank node (``_:`` prefix)."""

Object: TypeAlias = "str | Literal"


class Triple(NamedTuple):
    """One statement. ``o`` is a node (``str``) or a :class:`Literal`."""

    s: str
    p: str
    o: str | Literal


def is_literal(term: object) -> bool:
    """True when ``term`` is a :class:`Literal`."""
    return isinstance(term, Literal)


def is_blank(term: str) -> bool:
    """True when ``term`` names a blank node."""
    return term.startswith("_:")


def _escape(value: str) -> str:
    return (
        value.replace("\\", "\\\\")
        .replace('"', '\\"')
        .replace("\n", "\\n")
        .replace("\r", "\\r")
    )


def _unescape(value: str) -> str:
    out: list[str] = []
    chars = iter(value)
    for ch in chars:
        if ch != "\\":
            out.append(ch)
            continue
        nxt = next(chars, "")
        out.append({"n": "\n", "r": "\r", "t": "\t"}.get(nxt, nxt))
    return "".join(out)


def encode_object(o: str | Literal) -> str:
    """One string for an object: nodes unchanged, literals in N-Triples syntax."""
    if not isinstance(o, Literal):
        return o
    text = f'"{_escape(o.value)}"'
    if o.lang:
        return f"{text}@{o.lang}"
    if o.datatype and o.datatype != XSD_STRING:
        return f"{text}^^<{o.datatype}>"
    return text


def decode_object(text: str) -> str | Literal:
    """Inverse of :func:`encode_object`."""
    if not text.startswith('"'):
        return text
    end = text.rfind('"')
    value = _unescape(text[1:end])
    rest = text[end + 1 :]
    if rest.startswith("@"):
        return Literal(value, lang=rest[1:])
    if rest.startswith("^^<") and rest.endswith(">"):
        return Literal(value, datatype=rest[3:-1])
    return Literal(value)


def fold_label(text: str) -> str:
    """A label as compared with a name in a question: lower case, whitespace folded.

    >>> fold_label("  Panagia   Podithou ")
    'panagia podithou'
    """
    return " ".join(text.split()).lower()


def local_name(iri: str) -> str:
    """The part of an IRI after its last ``#`` or ``/`` (the IRI itself if none).

    >>> local_name("http://www.cidoc-crm.org/cidoc-crm/P108i_was_produced_by")
    'P108i_was_produced_by'
    """
    stripped = iri.rstrip("/#")
    cut = max(stripped.rfind("#"), stripped.rfind("/"))
    return stripped[cut + 1 :] if cut >= 0 else stripped
