"""Pure helpers of the SPARQL source: safe query text in, RDF terms out.

Safety first: an IRI read from the data enters a query only through :func:`iri_ref`, which
refuses anything that could close the ``<...>`` early or otherwise change the query
(``<>"{}|^`\\``, whitespace, control characters) and anything that is not an absolute IRI.
Blank nodes never enter a query.

>>> iri_ref("http://example.org/a")
'<http://example.org/a>'
>>> iri_ref("http://x/a> } ; DROP ALL ; { <http://x/b") is None
True
>>> values_query("s", ["http://example.org/a"])
'SELECT ?s ?p ?o WHERE { VALUES ?s { <http://example.org/a> } ?s ?p ?o }'
>>> parse_tsv_term('"1192"^^<http://www.w3.org/2001/XMLSchema#gYear>')
Literal(value='1192', lang=None, datatype='http://www.w3.org/2001/XMLSchema#gYear')
>>> parse_tsv_term("12")
Literal(value='12', lang=None, datatype='http://www.w3.org/2001/XMLSchema#integer')
"""

from __future__ import annotations

import logging
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeAlias

from llama_index_crm.rdf import XSD, XSD_STRING, Literal
from llama_index_crm.sources._lexical import canonical_lexical

logger = logging.getLogger(__name__)

Term: TypeAlias = "str | Literal"
"""An IRI, a ``_:`` blank node or a literal."""

Row: TypeAlias = "tuple[Term | None, ...]"
"""One solution, in the order of the requested variables (``None`` when unbound)."""

_FORBIDDEN = re.compile(r'[\x00-\x20<>"{}|^`\\\x7f-\x9f\ud800-\udfff]')
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))", re.DOTALL)
_ECHAR = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}
_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?[0-9]*\.[0-9]+")
_DOUBLE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)[eE][+-]?[0-9]+")
_BARE_NUMBERS = ((_INTEGER, XSD + "integer"), (_DECIMAL, XSD + "decimal"),
                 (_DOUBLE, XSD + "double"))
_LANG = re.compile(r"[A-Za-z]+(?:-[A-Za-z0-9]+)*")
_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"


def iri_ref(iri: str) -> str | None:
    """``<iri>`` for a SPARQL query, or ``None`` when ``iri`` is unsafe or not an IRI.

    Accepted: an absolute IRI (``scheme:...``) without the characters SPARQL's IRIREF
    excludes (``<>"{}|^`\\``, space and controls) and without lone surrogates. Nothing is
    escaped, so nothing can be unescaped into query syntax: the IRI is either used verbatim
    or not at all.

    Args:
        iri: A candidate IRI, typically taken from the data.

    Returns:
        The bracketed IRI, or ``None``.
    """
    if not isinstance(iri, str) or not _SCHEME.match(iri) or _FORBIDDEN.search(iri):
        return None
    return f"<{iri}>"


def safe_iris(nodes: Iterable[str]) -> list[str]:
    """The distinct IRIs among ``nodes`` that :func:`iri_ref` accepts, in order.

    Blank nodes are dropped silently (an endpoint cannot be asked about them); any other
    rejected value is dropped with a logged warning.

    Args:
        nodes: IRIs and ``_:`` blank nodes.

    Returns:
        The IRIs that may enter a query.
    """
    kept: list[str] = []
    for node in dict.fromkeys(nodes):
        if isinstance(node, str) and node.startswith("_:"):
            continue
        if iri_ref(node) is None:
            logger.warning("Skipping an IRI that cannot be put in a SPARQL query: %r", node)
            continue
        kept.append(node)
    return kept


def values_query(var: str, iris: Sequence[str]) -> str:
    """``SELECT ?s ?p ?o`` with ``?var`` bound to ``iris`` by ``VALUES``.

    Args:
        var: ``"s"`` for outgoing triples, ``"o"`` for incoming ones.
        iris: IRIs to bind; each must pass :func:`iri_ref`.

    Returns:
        The query text.

    Raises:
        ValueError: ``var`` is not ``s`` or ``o``, or an IRI is unsafe.
    """
    if var not in ("s", "o"):
        raise ValueError(f"var must be 's' or 'o', not {var!r}")
    refs = [iri_ref(iri) for iri in iris]
    if any(ref is None for ref in refs):
        raise ValueError("unsafe IRI in VALUES; filter the input with safe_iris() first")
    return f"SELECT ?s ?p ?o WHERE {{ VALUES ?{var} {{ {' '.join(map(str, refs))} }} ?s ?p ?o }}"


def _unescape(text: str) -> str:
    if "\\" not in text:
        return text

    def one(match: re.Match[str]) -> str:
        short, long, char = match.groups()
        if short or long:
            return chr(int(short or long, 16))
        if char not in _ECHAR:
            raise ValueError(f"invalid escape \\{char}")
        return _ECHAR[char]

    return _ESCAPE.sub(one, text)


def make_literal(value: str, lang: str | None, datatype: str | None) -> Literal:
    """A :class:`Literal` normalised like the file source: no xsd:string, no langString,
    numbers and booleans in Oxigraph's canonical form (:mod:`._lexical`)."""
    if lang:
        return Literal(value, lang, None)
    if datatype in (XSD_STRING, _LANG_STRING):
        datatype = None
    return Literal(canonical_lexical(value, datatype), None, datatype)


def parse_tsv_term(cell: str) -> Term | None:
    """One cell of a SPARQL TSV result as a term (``None`` for an empty, unbound cell).

    Args:
        cell: ``<iri>``, ``_:label``, ``"lexical"`` with ``@lang`` or ``^^<datatype>``, or a
            bare integer, decimal, double or boolean.

    Returns:
        The term.

    Raises:
        ValueError: The cell is not valid SPARQL TSV.
    """
    if not cell:
        return None
    first = cell[0]
    if first == "<" and cell[-1] == ">":
        return _unescape(cell[1:-1])
    if first == '"':
        end = cell.rfind('"')
        if end <= 0:
            raise ValueError(f"unterminated literal in TSV cell {cell[:80]!r}")
        value = _unescape(cell[1:end])
        rest = cell[end + 1 :]
        if not rest:
            return Literal(value)
        if rest[0] == "@" and _LANG.fullmatch(rest[1:]):
            return Literal(value, rest[1:], None)
        if rest.startswith("^^<") and rest[-1] == ">":
            return make_literal(value, None, _unescape(rest[3:-1]))
        raise ValueError(f"invalid literal suffix in TSV cell {cell[:80]!r}")
    if cell.startswith("_:"):
        return cell
    if cell in ("true", "false"):
        return Literal(cell, None, XSD + "boolean")
    for pattern, datatype in _BARE_NUMBERS:
        if pattern.fullmatch(cell):
            return make_literal(cell, None, datatype)
    raise ValueError(f"not a SPARQL TSV term: {cell[:80]!r}")


def parse_tsv(text: str, variables: Sequence[str]) -> list[Row]:
    """A SPARQL 1.1 TSV result as rows in the order of ``variables``.

    Args:
        text: The response body.
        variables: Variable names (without ``?``) to return, in this order.

    Returns:
        One row per solution.

    Raises:
        ValueError: The body is not a TSV result with these variables.
    """
    lines = text.split("\n")
    header = [name.strip().lstrip("?$") for name in lines[0].rstrip("\r").split("\t")]
    try:
        columns = [header.index(var) for var in variables]
    except ValueError as exc:
        raise ValueError(f"TSV header {lines[0][:80]!r} lacks {list(variables)}") from exc
    width = len(header)
    rows: list[Row] = []
    append = rows.append
    for line in lines[1:]:
        line = line.rstrip("\r")
        if not line:
            continue
        cells = line.split("\t")
        if len(cells) != width:
            raise ValueError(f"TSV row with {len(cells)} cells, expected {width}")
        append(tuple([_fast_term(cells[i]) for i in columns]))
    return rows


def _fast_term(cell: str) -> Term | None:
    """:func:`parse_tsv_term` with a shortcut for the common plain ``<iri>`` cell."""
    if cell[:1] == "<" and cell[-1:] == ">" and "\\" not in cell:
        return cell[1:-1]
    return parse_tsv_term(cell)


def parse_json_term(term: Mapping[str, Any] | None) -> Term | None:
    """One binding of a SPARQL JSON result as a term (``None`` if unbound or RDF-star)."""
    if term is None:
        return None
    kind = term.get("type")
    value = str(term.get("value", ""))
    if kind == "uri":
        return value
    if kind == "bnode":
        return "_:" + value
    if kind in ("literal", "typed-literal"):
        return make_literal(value, term.get("xml:lang"), term.get("datatype"))
    return None


def parse_json(data: Mapping[str, Any], variables: Sequence[str]) -> list[Row]:
    """A SPARQL 1.1 JSON result as rows in the order of ``variables``.

    Args:
        data: The decoded JSON document.
        variables: Variable names (without ``?``) to return, in this order.

    Returns:
        One row per solution.

    Raises:
        ValueError: The document is not a SELECT result.
    """
    try:
        bindings = data["results"]["bindings"]
    except (KeyError, TypeError) as exc:
        raise ValueError("not a SPARQL JSON SELECT result") from exc
    return [tuple(parse_json_term(b.get(var)) for var in variables) for b in bindings]


_SRX = "{http://www.w3.org/2005/sparql-results#}"
_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def _xml_term(element: ET.Element) -> Term | None:
    kind = element.tag[len(_SRX):] if element.tag.startswith(_SRX) else element.tag
    text = element.text or ""
    if kind == "uri":
        return text
    if kind == "literal":
        return make_literal(text, element.get(_XML_LANG), element.get("datatype"))
    if kind == "bnode":
        return "_:" + text
    return None


def parse_xml(body: bytes, variables: Sequence[str]) -> list[Row]:
    """A SPARQL XML result (``application/sparql-results+xml``) as rows.

    The oldest results format, which every server writes; Virtuoso writes it several
    times faster than JSON (and its TSV is not SPARQL 1.1 TSV).

    Args:
        body: The response body.
        variables: Variable names (without ``?``) to return, in this order.

    Returns:
        One row per solution.

    Raises:
        ValueError: The body is not a SPARQL XML SELECT result.

    >>> parse_xml(b'<sparql xmlns="http://www.w3.org/2005/sparql-results#"><results><result>'
    ...           b'<binding name="o"><literal xml:lang="en">Asinou</literal></binding>'
    ...           b'</result></results></sparql>', ("s", "o"))
    [(None, Literal(value='Asinou', lang='en', datatype=None))]
    """
    try:
        root = ET.fromstring(body)
    except ET.ParseError as exc:
        raise ValueError(f"not XML: {exc}") from exc
    results = root.find(_SRX + "results")
    if root.tag != _SRX + "sparql" or results is None:
        raise ValueError("not a SPARQL XML SELECT result")
    at = {name: i for i, name in enumerate(variables)}
    rows: list[Row] = []
    for result in results:
        row: list[Term | None] = [None] * len(variables)
        for binding in result:
            i = at.get(binding.get("name", ""))
            if i is not None and len(binding):
                row[i] = _xml_term(binding[0])
        rows.append(tuple(row))
    return rows
