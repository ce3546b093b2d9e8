"""Reading one RDF document into a store, leniently: what published dumps need.

A document is first loaded as it is, in one transaction (``Store.extend`` is atomic), with
Oxigraph's own blank-node renaming: a clean file costs nothing more than a bulk load. When
the parser stops at an error and ``strict`` is off, the document is read again, leniently:

* bytes that are not UTF-8 are read as Latin-1 (``caf\\xe9`` → ``café``) and counted;
* in N-Triples and N-Quads, the line that does not parse is skipped and parsing starts
  again on the next line; in Turtle, parsing starts again after the line that ends the
  statement (its ``.``), with the document's ``@prefix`` and ``@base`` lines carried over;
* each skipped statement becomes a :class:`Rejection` (where, line, the parser's message,
  its text), which the build writes to ``rejected.nt`` and counts in the manifest;
* blank nodes keep their labels, prefixed with a tag of the document, so that a label
  means one node on both sides of a skipped line, and distinct nodes across documents.

Triples of a Turtle statement that precede its error are kept (the parser has emitted
them). TriG, RDF/XML, JSON-LD and N3 are not recovered: an error fails the document with
its line, since their parsers cannot safely resume (a resumed RDF/XML parser invents
triples). A UTF-8 byte-order mark is dropped in every mode; CRLF line ends need nothing.

>>> import pyoxigraph as ox
>>> store, report = ox.Store(), LoadReport()
>>> bad = b'<http://ex/a> <http://ex/p> <http://ex/b]> .\\n<http://ex/a> <http://ex/p> "ok" .\\n'
>>> load_document(store, bad, ox.RdfFormat.N_TRIPLES, where="g.nt", tag="d0", report=report)
>>> len(store), [(r.where, r.line, r.text) for r in report.rejections]
(1, [('g.nt', 1, '<http://ex/a> <http://ex/p> <http://ex/b]> .')])
"""

from __future__ import annotations

import codecs
import functools
import io
import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import IO

import pyoxigraph as ox

from llama_index_crm.sources.jsonld_contexts import inline_contexts

BOM = codecs.BOM_UTF8
"""The UTF-8 byte-order mark, dropped from the start of a document."""
Opener = Callable[[], AbstractContextManager[IO[bytes]]]
"""Opens a document for reading, from its start, each time it is called."""
LINE_BASED: frozenset[ox.RdfFormat] = frozenset({ox.RdfFormat.N_TRIPLES, ox.RdfFormat.N_QUADS})
"""Formats with one statement a line: an error skips its line."""
STATEMENT_BASED: frozenset[ox.RdfFormat] = frozenset({ox.RdfFormat.TURTLE})
"""Formats whose statements end with ``.``: an error skips to the end of its statement."""
SNIFF_BYTES = 65536
"""Bytes read from the head of a ``.n3`` file to tell N-Triples from Turtle."""
_LATIN1 = "crm-rag-latin1"
_DIRECTIVE = re.compile(rb"^[ \t]*(?:@prefix|@base|prefix|base)\b[^\n]*\n?",
                        re.IGNORECASE | re.MULTILINE)
_NT_LINE = re.compile(rb"[ \t]*(?:#.*|(?:<[^>\s]*>|_:\S+)[ \t].*)?\r?")
_STATEMENT_END = re.compile(rb"\.[ \t]*(?:#[^\n]*)?\r?$")


def _latin1_errors(error: UnicodeError) -> tuple[str, int]:
    """A codecs error handler: undecodable bytes read as Latin-1 characters."""
    if not isinstance(error, UnicodeDecodeError):  # pragma: no cover - decoding only
        raise error
    bad = error.object[error.start : error.end]
    return bytes(bad).decode("latin-1"), error.end


codecs.register_error(_LATIN1, _latin1_errors)


@dataclass(frozen=True)
class Rejection:
    """A statement left out of the graph.

    Attributes:
        where: The file (and archive member) it is in.
        line: Its first line (1-based).
        message: Why the parser refused it.
        text: Its text (the lines it spans).
    """

    where: str
    line: int
    message: str
    text: str

    def summary(self) -> str:
        """``where, line N: message`` on one line."""
        return f"{self.where}, line {self.line}: {self.message}"

    def as_nt_block(self) -> str:
        """The statement as ``rejected.nt`` holds it: a comment saying where and why, then
        its text as found."""
        comment = self.summary().replace("\n", " ")
        return f"# {comment}\n{self.text}\n"


@dataclass
class LoadReport:
    """What lenient reading changed, over every document of a source.

    Attributes:
        rejections: The statements left out, in reading order.
        latin1_bytes: Per document, the bytes that were not UTF-8 and were read as Latin-1.
    """

    rejections: list[Rejection] = field(default_factory=list)
    latin1_bytes: dict[str, int] = field(default_factory=dict)
    scoped_ids: dict[str, int] = field(default_factory=dict)
    """Linked Art record-local identifiers kept apart by record → how many records use
    each (:mod:`~llama_index_crm.sources.linked_art`)."""
    dates_repaired: int = 0
    """Linked Art dates rewritten as ``xsd:dateTime`` (year only, unpadded, ranges)."""
    not_dates: list[str] = field(default_factory=list)
    """Linked Art date values that are no date, kept as text."""


def _parse_message(exc: SyntaxError) -> str:
    message = str(exc.msg)
    return re.sub(r"^Parser error (?:at|between) line \d+[^:]*: ", "", message)


def looks_like_ntriples(head: bytes) -> bool:
    """Whether the head of a document reads as N-Triples (``.n3`` dumps often are).

    >>> looks_like_ntriples(b'<http://ex/a> <http://ex/p> "x" .\\n# a comment\\n')
    True
    >>> looks_like_ntriples(b'@prefix ex: <http://ex/> .\\nex:a ex:p "x" .\\n')
    False
    """
    lines = head.split(b"\n")
    if len(head) >= SNIFF_BYTES:
        lines = lines[:-1]  # the last one may be cut
    return any(line.strip() for line in lines) and all(_NT_LINE.fullmatch(x) for x in lines)


def repair_utf8(data: bytes) -> tuple[bytes, int]:
    """``data`` as UTF-8, any byte that is not UTF-8 read as Latin-1; and how many there were.

    >>> repair_utf8("café".encode("latin-1"))
    (b'caf\\xc3\\xa9', 1)
    """
    try:
        data.decode("utf-8")
        return data, 0
    except UnicodeDecodeError:
        pass
    repaired = data.decode("utf-8", errors=_LATIN1).encode("utf-8")
    # each repaired byte (0x80-0xFF) takes two bytes in UTF-8, valid sequences as many
    return repaired, len(repaired) - len(data)


class _Salter:
    """Blank nodes relabelled ``<tag>x<label>``: one node per label within a document."""

    def __init__(self, tag: str) -> None:
        self.prefix = f"{tag}x"

    def __call__(self, quad: ox.Quad) -> ox.Quad:
        s, o, g = quad.subject, quad.object, quad.graph_name
        blank = ox.BlankNode
        if type(s) is not blank and type(o) is not blank and type(g) is not blank:
            return quad
        if type(s) is blank:
            s = blank(self.prefix + s.value)
        if type(o) is blank:
            o = blank(self.prefix + o.value)
        if type(g) is blank:
            g = blank(self.prefix + g.value)
        return ox.Quad(s, quad.predicate, o, g)


def _skip_to(data: bytes, start: int, lines: int) -> int:
    """The offset ``lines`` line ends after ``start`` (the end of ``data`` if fewer)."""
    for _ in range(lines):
        end = data.find(b"\n", start)
        if end < 0:
            return len(data)
        start = end + 1
    return start


def _statement_end(data: bytes, start: int, fmt: ox.RdfFormat) -> int:
    """Where parsing resumes after the statement whose error line starts at ``start``."""
    if fmt in LINE_BASED:
        return _skip_to(data, start, 1)
    pos = start
    while pos < len(data):
        end = data.find(b"\n", pos)
        end = len(data) if end < 0 else end
        if _STATEMENT_END.search(data, pos, end):
            return min(len(data), end + 1)
        pos = end + 1
    return len(data)


def _recovering(data: bytes, fmt: ox.RdfFormat, where: str, base_iri: str | None,
                salt: _Salter, report: LoadReport) -> Iterator[ox.Quad]:
    """The quads of ``data``, each statement that does not parse skipped and reported."""
    offset, line = 0, 1  # where the current piece starts in data, and its line number
    header = b""  # @prefix / @base lines met before offset, replayed before each piece
    while offset < len(data):
        if offset and fmt in STATEMENT_BASED:
            piece = io.BytesIO(header + data[offset:])
        else:
            piece = io.BytesIO(data)
            piece.seek(offset)
        header_lines = header.count(b"\n")
        try:
            for quad in ox.parse(piece, fmt, base_iri=base_iri):
                yield salt(quad)
            return
        except SyntaxError as exc:
            bad_line = line + max(0, (exc.lineno or 1) - 1 - header_lines)
            start = _skip_to(data, offset, bad_line - line)
            end = max(_statement_end(data, start, fmt), start + 1)
            text = data[start:end].decode("utf-8", errors="replace").rstrip("\r\n")
            report.rejections.append(Rejection(where, bad_line, _parse_message(exc), text))
            if fmt in STATEMENT_BASED:
                header += b"".join(m.group(0).rstrip(b"\n") + b"\n"
                                   for m in _DIRECTIVE.finditer(data, offset, start))
            line = bad_line + data.count(b"\n", start, end)
            offset = end


def load_document(store: ox.Store, document: bytes | Opener, fmt: ox.RdfFormat, *,
                  where: str, tag: str, report: LoadReport, strict: bool = False,
                  base_iri: str | None = None,
                  prepare: Callable[[bytes], bytes] | None = None) -> None:
    """Add the quads of one document to ``store`` (see the module notes).

    A clean document is parsed as it streams from ``document``; its bytes are held in
    memory only when it must be read again leniently, starts with a byte-order mark, or is
    JSON-LD (whose remote contexts are inlined first).

    Args:
        store: The store to fill.
        document: The document's bytes, or what opens it (as often as needed).
        fmt: Its format.
        where: Its name in messages (``file.zip (member x.nt)``).
        tag: A short tag unique to the document among the source's (blank-node labels).
        report: Collects rejections and repairs.
        strict: Fail at the first error instead of skipping statements.
        base_iri: Against which relative IRIs are resolved (Turtle-family formats).
        prepare: Rewrites a JSON-LD document before its contexts are inlined (Linked Art
            records: dates, record-local identifiers).

    Raises:
        SyntaxError: A statement does not parse and ``strict`` is on, or the format cannot
            be recovered (TriG, RDF/XML, JSON-LD, N3).
        OSError: The data cannot be read.
    """
    opener = document if callable(document) else functools.partial(io.BytesIO, document)
    with opener() as stream:
        head = stream.read(len(BOM))
    if fmt != ox.RdfFormat.JSON_LD and head != BOM:
        if _load_whole(store, opener, fmt, base_iri, strict):
            return
        with opener() as stream:
            data = stream.read()
    else:
        with opener() as stream:
            data = stream.read().removeprefix(BOM)
        if fmt == ox.RdfFormat.JSON_LD:
            if prepare is not None:
                data = prepare(data)
            data = inline_contexts(data, where)
        if _load_whole(store, functools.partial(io.BytesIO, data), fmt, base_iri, strict):
            return
    data, latin1 = repair_utf8(data)
    if latin1:
        report.latin1_bytes[where] = latin1
    store.extend(_recovering(data, fmt, where, base_iri, _Salter(tag), report))


def _load_whole(store: ox.Store, opener: Opener, fmt: ox.RdfFormat, base_iri: str | None,
                strict: bool) -> bool:
    """Load the document in one transaction; ``False`` when it must be read leniently.

    Raises:
        SyntaxError: It does not parse, and ``strict`` is on or its format cannot be
            recovered.
    """
    try:
        with opener() as stream:
            store.extend(ox.parse(stream, fmt, base_iri=base_iri, rename_blank_nodes=True))
        return True
    except SyntaxError:
        if strict or fmt not in LINE_BASED | STATEMENT_BASED:
            raise
        return False
