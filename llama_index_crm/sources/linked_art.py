"""Linked Art JSON-LD records as they are published: dates and record-local identifiers.

Linked Art is published one record per file (an exhibition, a person, an object), each a
JSON-LD tree with the context given by its URL. Two defects of real records are repaired
here, before the record is parsed (:func:`prepare`):

* **Dates.** ``begin_of_the_begin`` and the other time-span bounds are typed
  ``xsd:dateTime`` by the context, but records write ``1929``, ``1929-07``,
  ``1929-7-11`` (unpadded; MoMA's are year-day-month), EDTF-style ranges ``1929/1931``
  and qualifiers ``1929~``. Each is turned into an ``xsd:dateTime`` at the right end of
  its range (the begin of a begin, the end of an end); a value that is no date stays as
  plain text, never a wrong date. Unpadded dates are read in the order the records
  themselves show (:func:`date_order`), over every record of the build: a day above 12
  in the middle decides year-day-month (then ``2004-20-11`` is 20 November), at the end
  year-month-day; with no such evidence, year-month-day. A full ``xsd:dateTime`` is
  kept as it is.
* **Record-local identifiers.** Publishers mint identifiers such as
  ``https://linkedart.example.com/TimeSpan/0`` per record, so that the same IRI names a
  different time-span in every file. :class:`RecordScopes` finds them: an identifier that
  is not itself a record and is described differently in two records (its literals and
  types, nested ones included, nested identifiers aside). Each such identifier is
  rewritten in each record as ``<record id>/<its path>``
  (``http://…/person/1/TimeSpan/0``), which keeps them apart; the build reports them.
  Identifiers shared for the same thing (a person named in many exhibitions, a Getty
  type) are described alike and stay shared.
"""

from __future__ import annotations

import calendar
import hashlib
import json
import re
import urllib.parse
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

DATE_KEYS_BEGIN = frozenset({"begin_of_the_begin", "end_of_the_begin"})
DATE_KEYS_END = frozenset({"begin_of_the_end", "end_of_the_end"})
DATE_KEYS = DATE_KEYS_BEGIN | DATE_KEYS_END
"""JSON-LD keys the Linked Art context types ``xsd:dateTime``."""

DateOrder = Literal["ymd", "ydm"]

_ISO = re.compile(r"-?\d{4,}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?")
_DATE = re.compile(r"(-?\d{1,4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?"
                   r"(?:T(\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?)?")
_UNSPECIFIED = re.compile(r"(-?)(\d{1,3})([Xx]{1,3})")
_QUALIFIERS = "~?%"
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _parts(value: str) -> tuple[str, str | None, str | None] | None:
    match = _DATE.fullmatch(value.strip().rstrip(_QUALIFIERS))
    return (match.group(1), match.group(2), match.group(3)) if match else None


def date_order(values: Iterable[str]) -> DateOrder:
    """The order of the unpadded dates ``values``: ``ydm`` when a middle part is a day.

    >>> date_order(["1929-7-11", "1939-18-10"]), date_order(["1929-7-11", "1939-10-18"])
    ('ydm', 'ymd')
    """
    middle = end = 0
    for value in values:
        for piece in value.split("/"):
            parts = _parts(piece)
            if parts and parts[1] and parts[2]:
                middle += int(parts[1]) > 12 >= int(parts[2])
                end += int(parts[2]) > 12 >= int(parts[1])
    return "ydm" if middle > end else "ymd"


def normalise_date(value: str, end: bool, order: DateOrder = "ymd") -> str | None:
    """An ``xsd:dateTime`` for a date written as records write it; None when it is none.

    Args:
        value: ``1929``, ``1929-07``, ``1929-7-11``, ``1929-11-07T00:00:00``,
            ``1929/1931``, ``193X``, ``1929~``.
        end: The value bounds the end of a time-span: the latest moment it allows.
        order: How unpadded three-part dates are ordered.

    >>> normalise_date("1929-7-11", False, "ydm"), normalise_date("1929", True)
    ('1929-11-07T00:00:00', '1929-12-31T23:59:59')
    >>> normalise_date("1929/1931", True), normalise_date("19XX", False)
    ('1931-12-31T23:59:59', '1900-01-01T00:00:00')
    >>> normalise_date("1929-13-13", False) is None, normalise_date("about 1900", False)
    (True, None)
    """
    text = value.strip()
    if _ISO.fullmatch(text):
        return text
    if "/" in text:
        low, _, high = text.partition("/")
        picked = (high if end else low).strip()
        if picked in ("", "..", "?"):
            picked = (low if end else high).strip()
        return normalise_date(picked, end, order) if picked else None
    unspecified = _UNSPECIFIED.fullmatch(text.rstrip(_QUALIFIERS))
    if unspecified:
        sign, digits, xs = unspecified.groups()
        fill = "9" if end else "0"
        text = f"{sign}{digits}{fill * len(xs)}"
    parts = _parts(text)
    if parts is None:
        return None
    year, first, second = parts
    if len(year.lstrip("-")) != 4:
        return None
    if first and second:
        month, day = (int(second), int(first)) if order == "ydm" else (
            int(first), int(second))
    elif first:
        month, day = int(first), None
    else:
        month, day = None, None
    if month is not None and not 1 <= month <= 12:
        return None
    last_day = _DAYS[month - 1] if month else 31
    if month == 2 and int(year) > 0:
        last_day = calendar.monthrange(int(year), 2)[1]
    if day is not None and not 1 <= day <= last_day:
        return None
    time_match = _DATE.fullmatch(text.rstrip(_QUALIFIERS))
    clock = time_match.group(4) if time_match else None
    if clock and day is not None and time_match:
        return (f"{year}-{month:02d}-{day:02d}T{time_match.group(4)}:{time_match.group(5)}:"
                f"{time_match.group(6) or '00'}")
    if end:
        m = month or 12
        d = day or (last_day if month else 31)
        return f"{year}-{m:02d}-{d:02d}T23:59:59"
    return f"{year}-{month or 1:02d}-{day or 1:02d}T00:00:00"


_DATE_IN_TEXT = re.compile(r"(?<![\d-])\d{4}-\d{1,2}-\d{1,2}(?![\d-])")


def _day(value: str, order: DateOrder) -> str:
    """A date in a time-span's label, as ``YYYY-MM-DD`` (unchanged when it is none)."""
    fixed = normalise_date(value, False, order)
    return fixed[:10] if fixed else value


def _dates(node: Any) -> Iterable[str]:
    if isinstance(node, list):
        for item in node:
            yield from _dates(item)
    elif isinstance(node, dict):
        for key, value in node.items():
            if key in DATE_KEYS and isinstance(value, str):
                yield value
            else:
                yield from _dates(value)


def _fingerprint(node: dict[str, Any]) -> str:
    """What a node says, nested nodes included, their identifiers left out."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in sorted(value.items()) if k not in ("id", "@id")}
        if isinstance(value, list):
            return sorted((strip(v) for v in value), key=json.dumps)
        return value

    return hashlib.sha1(json.dumps(strip(node), sort_keys=True).encode()).hexdigest()


def _node_id(node: dict[str, Any]) -> str | None:
    value = node.get("id", node.get("@id"))
    return value if isinstance(value, str) and "://" in value else None


def _walk(node: Any, visit: Any) -> None:
    if isinstance(node, list):
        for item in node:
            _walk(item, visit)
    elif isinstance(node, dict):
        visit(node)
        for key, value in node.items():
            if key != "@context":
                _walk(value, visit)


@dataclass
class RecordScopes:
    """Identifiers described differently by different records, found over every record.

    Attributes:
        roots: The records' own identifiers (never scoped).
        descriptions: Identifier → its fingerprints → the records that give each.
        dates: Every date value seen, for :func:`date_order`.
    """

    roots: set[str] = field(default_factory=set)
    descriptions: dict[str, dict[str, set[str]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(set)))
    dates: list[str] = field(default_factory=list)

    def add(self, record: Any, where: str) -> None:
        """Take note of one parsed record."""
        if isinstance(record, dict) and _node_id(record):
            self.roots.add(str(_node_id(record)))
        self.dates.extend(_dates(record))

        def visit(node: dict[str, Any]) -> None:
            iri = _node_id(node)
            if iri is not None and len(node) > 1:
                self.descriptions[iri][_fingerprint(node)].add(where)

        _walk(record, visit)

    def colliding(self) -> dict[str, int]:
        """Identifier → the number of records that use it, for the ones to keep apart."""
        out = {}
        for iri, found in self.descriptions.items():
            if iri in self.roots or len(found) < 2:
                continue
            out[iri] = len(set().union(*found.values()))
        return dict(sorted(out.items(), key=lambda item: (-item[1], item[0])))

    def order(self) -> DateOrder:
        """How the records order unpadded dates."""
        return date_order(self.dates)


def scoped_iri(record_id: str, iri: str) -> str:
    """``iri`` scoped by a record: ``<record id>/<iri's path>``.

    >>> scoped_iri("http://x.org/person/1", "https://x.org/TimeSpan/0")
    'http://x.org/person/1/TimeSpan/0'
    """
    parts = urllib.parse.urlsplit(iri)
    tail = parts.path.lstrip("/") + (f"?{parts.query}" if parts.query else "") + (
        f"#{parts.fragment}" if parts.fragment else "")
    return f"{record_id.rstrip('/')}/{tail or parts.netloc}"


@dataclass
class Prepared:
    """What :func:`prepare` changed in one record."""

    scoped: int = 0
    dates: int = 0
    undated: list[str] = field(default_factory=list)


def prepare(record: Any, record_iri: str, colliding: Iterable[str] | dict[str, int],
            order: DateOrder) -> tuple[Any, Prepared]:
    """The record with its colliding identifiers scoped and its dates normalised.

    Args:
        record: The parsed JSON-LD record.
        record_iri: Its own identifier (its top ``id``), else the file's IRI.
        colliding: Identifiers to scope by the record (:meth:`RecordScopes.colliding`).
        order: How unpadded dates are ordered.
    """
    targets = set(colliding)
    done = Prepared()

    def rewrite(node: Any) -> Any:
        if isinstance(node, list):
            return [rewrite(item) for item in node]
        if not isinstance(node, dict):
            return node
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "@context":
                out[key] = value
            elif key in ("id", "@id") and isinstance(value, str) and value in targets:
                out[key] = scoped_iri(record_iri, value)
                done.scoped += 1
            elif key == "_label" and isinstance(value, str) and node.get("type") == "TimeSpan":
                out[key] = _DATE_IN_TEXT.sub(lambda m: _day(m.group(0), order), value)
            elif key in DATE_KEYS and isinstance(value, str):
                fixed = normalise_date(value, key in DATE_KEYS_END, order)
                if fixed is None:  # kept as text: no date is better than a wrong one
                    out[key] = {"@value": value}
                    done.undated.append(value)
                else:
                    out[key] = fixed
                    done.dates += fixed != value
            else:
                out[key] = rewrite(value)
        return out

    return rewrite(record), done


def record_iri(record: Any, fallback: str) -> str:
    """A record's own identifier, else ``fallback`` (the file's IRI)."""
    return (_node_id(record) if isinstance(record, dict) else None) or fallback


def is_linked_art(data: bytes) -> bool:
    """Whether a JSON document names the Linked Art context (checked on its bytes)."""
    return b"linked.art/ns/v1/linked-art.json" in data[:4096]
