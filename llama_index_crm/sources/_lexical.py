"""Canonical lexical forms of numbers and booleans, as Oxigraph stores them.

A file is parsed into an Oxigraph store, which keeps numbers as values and writes them back
in one canonical form (``"73.0"^^xsd:double`` reads ``73``). A SPARQL server may write the
same value otherwise (Virtuoso answers ``73.0``). So that documents built from files, from
``oxigraph serve`` and from any other server are byte-identical, every literal read from an
endpoint is put in Oxigraph's form: integers without sign or leading zeros, decimals without
trailing zeros (``76.50`` → ``76.5``, ``76.0`` → ``76``), doubles and floats as the shortest
digits that round-trip, in positional notation (``1e3`` → ``1000``), ``INF`` / ``-INF`` /
``NaN``, and booleans ``true`` / ``false``. A lexical form that is not valid for its datatype
is kept as it is, as Oxigraph keeps it.

>>> canonical_lexical("73.0", XSD + "double")
'73'
>>> canonical_lexical("76.50", XSD + "decimal"), canonical_lexical("+007", XSD + "integer")
('76.5', '7')
>>> canonical_lexical("1.5e-7", XSD + "double"), canonical_lexical("1", XSD + "boolean")
('0.00000015', 'true')
>>> canonical_lexical("76.19999694824219", XSD + "float")
'76.2'
>>> canonical_lexical("n/a", XSD + "integer"), canonical_lexical("73.0", XSD + "string")
('n/a', '73.0')
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation

import numpy as np

from llama_index_crm.rdf import XSD

_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_DOUBLE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?INF|NaN")
_SPECIAL = {"INF": "INF", "+INF": "INF", "-INF": "-INF", "NaN": "NaN"}

INTEGER_TYPES: frozenset[str] = frozenset(
    XSD + name
    for name in (
        "integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger",
        "negativeInteger", "nonPositiveInteger", "unsignedInt", "unsignedLong",
        "unsignedShort", "unsignedByte",
    )
)
"""The integer datatypes whose values Oxigraph stores as numbers."""


def _integer(text: str) -> str | None:
    return str(int(text)) if _INTEGER.fullmatch(text) else None


def _decimal(text: str) -> str | None:
    if not _DECIMAL.fullmatch(text):
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:  # pragma: no cover - the pattern admits only valid decimals
        return None
    return "0" if value.is_zero() else format(value.normalize(), "f")


def _binary(text: str, width: type[np.floating]) -> str | None:
    if not _DOUBLE.fullmatch(text):
        return None
    if text in _SPECIAL:
        return _SPECIAL[text]
    return str(np.format_float_positional(width(float(text)), unique=True, trim="-"))


def _boolean(text: str) -> str | None:
    return {"1": "true", "0": "false", "true": "true", "false": "false"}.get(text)


_CANONICAL: dict[str, Callable[[str], str | None]] = {
    **dict.fromkeys(INTEGER_TYPES, _integer),
    XSD + "decimal": _decimal,
    XSD + "double": lambda text: _binary(text, np.float64),
    XSD + "float": lambda text: _binary(text, np.float32),
    XSD + "boolean": _boolean,
}


def canonical_lexical(value: str, datatype: str | None) -> str:
    """``value`` in the canonical form of its numeric or boolean ``datatype``.

    Args:
        value: The lexical form as a server wrote it.
        datatype: The datatype IRI (``None`` for a plain or language-tagged literal).

    Returns:
        The canonical form; ``value`` itself for other datatypes and invalid forms.
    """
    convert = _CANONICAL.get(datatype) if datatype else None
    if convert is None:
        return value
    return convert(value) or value
