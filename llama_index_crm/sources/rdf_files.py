"""RDF files read in process with pyoxigraph.

The files are parsed once into an Oxigraph store (in memory, or on disk when a
``store_path`` is given); entities and neighbourhoods are then answered from the store's
indexes without SPARQL, which is what makes :meth:`RdfFileSource.fetch` fast.

Formats are chosen by extension: ``.ttl``, ``.nt``, ``.nq``, ``.trig``, ``.rdf`` /
``.owl`` / ``.xml`` (RDF/XML), ``.jsonld`` / ``.json`` (JSON-LD) and ``.n3``. A ``.n3`` file
whose head reads as N-Triples (the American Art Collaborative dumps) is parsed as
N-Triples, any other as Turtle; N3 rules and formulas are not RDF data. ``.gz`` files are
read by their inner extension (``data.nt.gz``) and every member of a ``.zip`` by its own. A
directory stands for every supported file below it. Named graphs are unioned, unless
``graphs`` names the ones to read.

Files are read leniently unless ``strict`` (:mod:`~llama_index_crm.sources.rdf_parsing`):
a statement that does not parse is skipped and reported in :attr:`RdfFileSource.report`.
Relative IRIs are resolved against ``base_iri``, by default the file's own ``file:`` URL.
A clean file streams into the store; one read leniently is held in memory meanwhile.
"""

from __future__ import annotations

import functools
import gzip
import json
import logging
import time
import urllib.parse
import zipfile
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import IO, cast

import pyoxigraph as ox

from llama_index_crm.errors import SourceError
from llama_index_crm.rdf import RDF_TYPE, XSD_STRING, Literal, Triple
from llama_index_crm.sources._filters import SCHEMA_TYPES, select_entities
from llama_index_crm.sources._sparql_terms import Row
from llama_index_crm.sources.fr_sparql import dataset, store_select
from llama_index_crm.sources.linked_art import (
    DateOrder,
    RecordScopes,
    is_linked_art,
    prepare,
    record_iri,
)
from llama_index_crm.sources.rdf_parsing import (
    LINE_BASED,
    SNIFF_BYTES,
    STATEMENT_BASED,
    LoadReport,
    Opener,
    load_document,
    looks_like_ntriples,
)

logger = logging.getLogger(__name__)

FORMATS: dict[str, ox.RdfFormat] = {
    ".ttl": ox.RdfFormat.TURTLE,
    ".turtle": ox.RdfFormat.TURTLE,
    ".n3": ox.RdfFormat.TURTLE,
    ".nt": ox.RdfFormat.N_TRIPLES,
    ".nq": ox.RdfFormat.N_QUADS,
    ".trig": ox.RdfFormat.TRIG,
    ".rdf": ox.RdfFormat.RDF_XML,
    ".owl": ox.RdfFormat.RDF_XML,
    ".xml": ox.RdfFormat.RDF_XML,
    ".jsonld": ox.RdfFormat.JSON_LD,
    ".json": ox.RdfFormat.JSON_LD,
}
"""File extension → the format it is parsed as."""

_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
_SUBJECTS_QUERY = "SELECT DISTINCT ?s WHERE { ?s ?p ?o FILTER(isIRI(?s)) }"
_DISTINCT_COUNT_QUERY = (
    "SELECT (COUNT(*) AS ?n) WHERE { SELECT DISTINCT ?s ?p ?o WHERE { ?s ?p ?o } }"
)


def _file_iri(path: Path, member: str | None = None) -> str:
    """The ``file:`` URL of a file, or of a member inside an archive."""
    iri = path.resolve().as_uri()
    return f"{iri}/{urllib.parse.quote(member)}" if member else iri


def _suffixes(name: str) -> tuple[str, bool]:
    """The extension that decides the format of ``name``, and whether it is gzipped."""
    lower = name.lower()
    gzipped = lower.endswith(".gz")
    if gzipped:
        lower = lower[:-3]
    return Path(lower).suffix, gzipped


def _is_supported(name: str) -> bool:
    suffix, _ = _suffixes(name)
    return suffix in FORMATS or suffix == ".zip"


def _expand(paths: Sequence[str | Path]) -> list[Path]:
    """Files named by ``paths``; a directory stands for its supported files, sorted."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.is_file() and _is_supported(p.name))
            if not found:
                raise SourceError(f"No RDF file in directory {path} (extensions: {_known()}).")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            raise SourceError(f"RDF file not found: {path}. Check the path and the working folder.")
    return files


def _known() -> str:
    return ", ".join([*FORMATS, ".zip", ".gz"])


class _Input:
    """One document to parse: where it comes from, how to open it, its format and base."""

    def __init__(self, label: str, suffix: str, opener: Opener, base: str) -> None:
        self.label = label
        self.opener = opener
        self.base = base
        with opener() as stream:
            head = stream.read(SNIFF_BYTES)
        self.format = (ox.RdfFormat.N_TRIPLES if suffix == ".n3" and looks_like_ntriples(head)
                       else FORMATS[suffix])
        """By extension; a ``.n3`` by its head (N-Triples or Turtle)."""


@contextmanager
def _opened(open_raw: Callable[[], IO[bytes]], gzipped: bool) -> Iterator[IO[bytes]]:
    """A stream of ``open_raw()``, decompressed when ``gzipped``; closed on exit."""
    with open_raw() as raw:
        if not gzipped:
            yield raw
            return
        with gzip.GzipFile(fileobj=raw) as unzipped:
            yield cast(IO[bytes], unzipped)


def _open_binary(path: Path) -> IO[bytes]:
    return path.open("rb")


def _inputs(path: Path) -> Iterator[_Input]:
    """Every RDF document inside ``path`` (the file itself, or the members of an archive)."""
    suffix, gzipped = _suffixes(path.name)
    if suffix == ".zip" and not gzipped:
        yield from _zip_inputs(path)
        return
    if suffix not in FORMATS:
        raise SourceError(f"Unknown RDF file extension in {path}; expected one of {_known()}.")
    opener = functools.partial(_opened, functools.partial(_open_binary, path), gzipped)
    yield _readable(str(path), suffix, opener, _file_iri(path))


def _readable(label: str, suffix: str, opener: Opener, base: str) -> _Input:
    try:
        return _Input(label, suffix, opener, base)
    except (OSError, EOFError, zlib.error, zipfile.BadZipFile) as exc:
        raise SourceError(f"Cannot read {label}: {exc}.") from exc


def _zip_inputs(path: Path) -> Iterator[_Input]:
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise SourceError(f"Cannot open zip archive {path}: {exc}.") from exc
    with archive:
        members = [m for m in archive.infolist() if not m.is_dir()]
        usable = [m for m in members if _is_supported(m.filename)]
        for name in sorted({m.filename for m in members} - {m.filename for m in usable}):
            logger.warning("Skipping %s in %s: not an RDF file extension", name, path)
        if not usable:
            raise SourceError(f"No RDF file in zip archive {path} (extensions: {_known()}).")
        for member in usable:
            suffix, gzipped = _suffixes(member.filename)
            if suffix == ".zip":
                logger.warning("Skipping nested archive %s in %s", member.filename, path)
                continue
            opener = functools.partial(_opened, functools.partial(archive.open, member), gzipped)
            yield _readable(f"{path} (member {member.filename})", suffix, opener,
                            _file_iri(path, member.filename))


def _select(store: ox.Store, query: str, graphs: Sequence[ox.NamedNode]) -> ox.QuerySolutions:
    """The solutions of a SELECT ``query`` over ``graphs`` (all graphs when empty)."""
    solutions = store.query(query, **dataset(graphs))
    if not isinstance(solutions, ox.QuerySolutions):  # pragma: no cover - SELECT only
        raise TypeError("expected a SELECT query")
    return solutions


def _object(term: object) -> str | Literal | None:
    """A pyoxigraph object term as a plain value (``None`` for RDF-star triple terms)."""
    if isinstance(term, ox.NamedNode):
        return term.value
    if isinstance(term, ox.Literal):
        if term.language:
            return Literal(term.value, term.language, None)
        datatype = term.datatype.value
        if datatype in (XSD_STRING, _LANG_STRING):
            return Literal(term.value)
        return Literal(term.value, None, datatype)
    if isinstance(term, ox.BlankNode):
        return "_:" + term.value
    return None


def _subject(term: object) -> str | None:
    if isinstance(term, ox.NamedNode):
        return term.value
    if isinstance(term, ox.BlankNode):
        return "_:" + term.value
    return None


def _node(node: str) -> ox.NamedNode | ox.BlankNode | None:
    """The pyoxigraph term for an IRI or ``_:`` blank node; ``None`` when invalid."""
    try:
        return ox.BlankNode(node[2:]) if node.startswith("_:") else ox.NamedNode(node)
    except ValueError:
        logger.debug("Not an IRI nor a blank node, skipped: %r", node)
        return None


class RdfFileSource:
    """A :class:`~llama_index_crm.sources.base.GraphSource` over RDF files, in process.

    Blank node ids are unique across files and stable for the life of the source.

    Args:
        paths: Files, archives or directories to load (several at once are unioned).
        store_path: A folder for an on-disk Oxigraph store; in memory when ``None``.
        strict: Fail at the first statement that does not parse, instead of skipping it
            (see :attr:`report`).
        base_iri: Against which relative IRIs are resolved (default: each file's ``file:``
            URL); N-Triples and N-Quads allow none.
        graphs: Read only these named graphs (TriG, N-Quads, JSON-LD); all graphs and the
            default graph when ``None``.
        scope_record_ids: Keep apart the record-local identifiers that Linked Art records
            share for different things (``…/TimeSpan/0`` in two files), by rewriting each
            as ``<record id>/TimeSpan/0`` (:mod:`~llama_index_crm.sources.linked_art`);
            ``False`` reads them as published.

    Raises:
        SourceError: A file is missing, has an unknown extension, or is malformed beyond
            what lenient reading skips (the message names the file, the archive member and
            the line), or a graph of ``graphs`` is in none of the files.

    Example:
        >>> import tempfile, pathlib
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (d / "g.ttl").write_text('<http://ex/a> <http://ex/p> "x"@en .')
        >>> with RdfFileSource([d / "g.ttl"]) as source:
        ...     source.entities(), source.fetch(["http://ex/a"])
        (['http://ex/a'], [Triple(s='http://ex/a', p='http://ex/p', o=Literal(value='x', lang='en', datatype=None))])
    """  # noqa: E501

    in_process = True
    """The graph lives in this process: build workers ask it for their chunks
    (:mod:`llama_index_crm.build.source_server`) instead of parsing the files again."""

    def __init__(self, paths: Sequence[str | Path], *, store_path: Path | None = None,
                 strict: bool = False, base_iri: str | None = None,
                 graphs: Sequence[str] | None = None, scope_record_ids: bool = True) -> None:
        if isinstance(paths, str | Path):
            paths = [paths]
        self._files = _expand(paths)
        if not self._files:
            raise SourceError("No RDF file given.")
        self.strict = strict
        self.base_iri = base_iri
        self.graphs: tuple[str, ...] = tuple(dict.fromkeys(graphs or ()))
        self.scope_record_ids = scope_record_ids
        self.report = LoadReport()
        """What lenient reading skipped or repaired."""
        self._store: ox.Store | None = ox.Store(str(store_path)) if store_path else ox.Store()
        started = time.perf_counter()
        try:
            self._colliding, self._date_order = self._scan_linked_art()
            for index, item in enumerate(i for path in self._files for i in _inputs(path)):
                self._load(item, f"d{index}")
            self._graph_nodes = self._check_graphs()
        except BaseException:
            self.close()
            raise
        logger.info(
            "Loaded %d quads from %d file(s) in %.2f s; %d statement(s) rejected",
            len(self.store),
            len(self._files),
            time.perf_counter() - started,
            len(self.report.rejections),
        )

    def factory(self, processes: int = 1) -> Callable[[], RdfFileSource]:
        """A picklable recipe that opens the same files again (for worker processes)."""
        return functools.partial(RdfFileSource, list(self._files), strict=self.strict,
                                 base_iri=self.base_iri, graphs=list(self.graphs),
                                 scope_record_ids=self.scope_record_ids)

    @property
    def store(self) -> ox.Store:
        """The underlying pyoxigraph store (for SPARQL or statistics)."""
        if self._store is None:
            raise SourceError(f"{self.describe()} is closed.")
        return self._store

    def _scan_linked_art(self) -> tuple[dict[str, int], DateOrder]:
        """The Linked Art records' colliding identifiers and date order, over every file.

        Only JSON-LD documents that name the Linked Art context are read (a second time
        when they are loaded); anything else is left to the parser.
        """
        scopes = RecordScopes()
        for item in (i for path in self._files for i in _inputs(path)):
            if item.format != ox.RdfFormat.JSON_LD:
                continue
            with item.opener() as stream:
                data = stream.read()
            if not is_linked_art(data):
                continue
            try:
                scopes.add(json.loads(data), item.label)
            except ValueError:
                continue  # said by the parser when the document is loaded
        colliding = scopes.colliding() if self.scope_record_ids else {}
        if colliding:
            first = next(iter(colliding))
            logger.warning(
                "%d record-local identifier(s) are used by several Linked Art records for "
                "different things (e.g. %s in %d records); each is kept apart by record",
                len(colliding), first, colliding[first])
        self.report.scoped_ids = dict(colliding)
        return colliding, scopes.order()

    def _prepare(self, item: _Input) -> Callable[[bytes], bytes]:
        """Rewrites one Linked Art record: dates, colliding identifiers."""

        def rewrite(data: bytes) -> bytes:
            if not is_linked_art(data):
                return data
            try:
                record = json.loads(data)
            except ValueError:
                return data  # the parser says what is wrong
            fixed, done = prepare(record, record_iri(record, item.base), self._colliding,
                                  self._date_order)
            self.report.dates_repaired += done.dates
            self.report.not_dates.extend(done.undated)
            return json.dumps(fixed, ensure_ascii=False).encode("utf-8")

        return rewrite

    def _load(self, item: _Input, tag: str) -> None:
        try:
            load_document(self.store, item.opener, item.format, where=item.label, tag=tag,
                          report=self.report, strict=self.strict,
                          base_iri=self.base_iri or item.base,
                          prepare=self._prepare(item))
        except SyntaxError as exc:
            where = f", line {exc.lineno}, column {exc.offset}" if exc.lineno else ""
            advice = ("Fix the file, leave it out of the inputs, or build without --strict to "
                      "skip such statements") if self.strict and item.format in (
                LINE_BASED | STATEMENT_BASED) else "Fix the file or leave it out of the inputs"
            raise SourceError(
                f"Malformed {item.format.name} in {item.label}{where}: {exc.msg}. {advice}."
            ) from exc
        except (OSError, EOFError, ValueError, zlib.error, zipfile.BadZipFile) as exc:
            raise SourceError(f"Cannot read {item.label} as {item.format.name}: {exc}.") from exc
        latin1 = self.report.latin1_bytes.get(item.label)
        if latin1:  # said once in the build summary; worker processes read the files again
            logger.info("%s: %d byte(s) that are not UTF-8 were read as Latin-1",
                        item.label, latin1)

    def _check_graphs(self) -> list[ox.NamedNode]:
        """The chosen graphs as terms, each checked to be in the files."""
        if not self.graphs:
            return []
        present = {g.value for g in self.store.named_graphs() if isinstance(g, ox.NamedNode)}
        missing = [g for g in self.graphs if g not in present]
        if missing:
            shown = ", ".join(sorted(present)[:5]) or "none"
            raise SourceError(
                f"{self.describe()} has no named graph {missing[0]} (graphs in the files: "
                f"{shown}{' …' if len(present) > 5 else ''}). Check --graph.")
        return [ox.NamedNode(g) for g in self.graphs]

    def describe(self) -> str:
        """The loaded file names, e.g. ``RDF files: ycba_data.n3.zip``."""
        names = [p.name for p in self._files]
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        graphs = f" (graphs {', '.join(self.graphs)})" if self.graphs else ""
        return f"RDF files: {shown}{graphs}"

    def settings(self) -> dict[str, object]:
        """What the manifest records about this source."""
        return {"files": [str(p) for p in self._files], "strict": self.strict,
                "base_iri": self.base_iri, "graphs": list(self.graphs),
                "rejected_statements": len(self.report.rejections),
                "latin1_bytes": sum(self.report.latin1_bytes.values()),
                **({"scope_record_ids": False} if not self.scope_record_ids else {}),
                **({"record_local_ids_scoped": len(self.report.scoped_ids),
                    "record_local_ids_examples": dict(list(self.report.scoped_ids.items())[:5])}
                   if self.report.scoped_ids else {}),
                **({"dates_repaired": self.report.dates_repaired}
                   if self.report.dates_repaired else {}),
                **({"date_values_kept_as_text": len(self.report.not_dates)}
                   if self.report.not_dates else {})}

    def triple_count(self) -> int:
        """Distinct triples over the graphs read (a triple in two graphs counts once)."""
        store = self.store
        if not self._graph_nodes and next(iter(store.named_graphs()), None) is None:
            return len(store)
        for solution in _select(store, _DISTINCT_COUNT_QUERY, self._graph_nodes):
            count = solution[0]
            if isinstance(count, ox.Literal):
                return int(count.value)
        return 0  # pragma: no cover - COUNT always answers one row

    def _quads(self, s: object, p: object, o: object) -> Iterator[ox.Quad]:
        """Quads matching a pattern in the graphs read."""
        quads = self.store.quads_for_pattern
        if not self._graph_nodes:
            yield from quads(s, p, o, None)  # type: ignore[arg-type]
            return
        for graph in self._graph_nodes:
            yield from quads(s, p, o, graph)  # type: ignore[arg-type]

    def entities(self) -> list[str]:
        """Distinct IRI subjects, sorted, minus ontology namespaces and schema subjects."""
        subjects = [
            solution[0].value
            for solution in _select(self.store, _SUBJECTS_QUERY, self._graph_nodes)
            if isinstance(solution[0], ox.NamedNode)
        ]
        type_node = ox.NamedNode(RDF_TYPE)
        schema = {
            quad.subject.value
            for kind in SCHEMA_TYPES
            for quad in self._quads(None, type_node, ox.NamedNode(kind))
            if isinstance(quad.subject, ox.NamedNode)
        }
        return select_entities(subjects, schema)

    def fetch(self, nodes: Sequence[str], *, incoming: bool = True) -> list[Triple]:
        """Triples with a subject in ``nodes`` and, if ``incoming``, an object in ``nodes``.

        Args:
            nodes: IRIs or ``_:`` blank nodes (as returned by earlier calls).
            incoming: Also return the triples pointing at ``nodes``.

        Returns:
            Distinct triples over the graphs read, in no particular order.
        """
        quads = self._quads if self._graph_nodes else self._all_graphs
        found: set[Triple] = set()
        add = found.add
        for node in dict.fromkeys(nodes):
            term = _node(node)
            if term is None:
                continue
            for quad in quads(term, None, None):
                obj = _object(quad.object)
                if obj is not None:
                    add(Triple(node, quad.predicate.value, obj))
            if not incoming:
                continue
            for quad in quads(None, None, term):
                subject = _subject(quad.subject)
                if subject is not None:
                    add(Triple(subject, quad.predicate.value, node))
        return list(found)

    def triples(self) -> Iterator[Triple]:
        """Every triple of the graphs read (an update compares them with an index)."""
        quads = self._quads if self._graph_nodes else self._all_graphs
        seen: set[Triple] = set()
        for quad in quads(None, None, None):
            subject, obj = _subject(quad.subject), _object(quad.object)
            if subject is None or obj is None:
                continue
            triple = Triple(subject, quad.predicate.value, obj)
            if triple not in seen:
                seen.add(triple)
                yield triple

    def _all_graphs(self, s: object, p: object, o: object) -> Iterator[ox.Quad]:
        return self.store.quads_for_pattern(s, p, o, None)  # type: ignore[arg-type]

    def select(self, query: str, variables: Sequence[str]) -> Sequence[Row]:
        """Run a SELECT ``query`` over all graphs; rows in the order of ``variables``.

        The same contract as :meth:`SparqlEndpointSource.select`, so that FR paths compiled
        into SPARQL (:mod:`llama_index_crm.sources.fr_sparql`) run on either source.
        """
        return store_select(self.store, self._graph_nodes)(query, variables)

    def close(self) -> None:
        """Drop the store (an on-disk store is flushed first)."""
        if self._store is not None:
            self._store.flush()
            self._store = None

    def __enter__(self) -> RdfFileSource:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
