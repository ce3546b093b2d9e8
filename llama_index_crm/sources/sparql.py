"""A SPARQL 1.1 endpoint as a graph source, through SPARQLWrapper.

Neighbourhoods are read with batched ``VALUES`` queries (``batch_size`` IRIs a request),
results as TSV when the server offers it (compact and fast to parse) and as JSON otherwise;
the switch happens by itself on the first query that TSV fails.

Every IRI passes :func:`~llama_index_crm.sources._sparql_terms.iri_ref` before it enters a
query: one that could change the query's meaning is skipped with a warning.

Blank nodes: they come back in results as ``_:label`` (the server's label) but cannot be
asked about again, since a label names nothing outside one result set. Through an endpoint
blank nodes are therefore *reached but not expanded*: ``fetch(["_:b0"])`` returns nothing.
Store such data as files (:class:`~llama_index_crm.sources.rdf_files.RdfFileSource`), or
skolemise it on the server, when blank-node structure matters.

Named graphs: the queries read the endpoint's default graph (or ``default_graph``); run the
server with its union-default-graph option (``oxigraph serve --union-default-graph``,
Fuseki ``unionDefaultGraph``) to see the triples of every named graph, as the file source does.
"""

from __future__ import annotations

import functools
import http.client
import json
import logging
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any

from SPARQLWrapper import BASIC, JSON, POST, SELECT, TSV, URLENCODED, SPARQLWrapper

from llama_index_crm.errors import SourceError
from llama_index_crm.rdf import RDF_TYPE, Triple
from llama_index_crm.sources._filters import SCHEMA_TYPES, select_entities
from llama_index_crm.sources._sparql_terms import (
    Row,
    iri_ref,
    parse_json,
    parse_tsv,
    safe_iris,
    values_query,
)

logger = logging.getLogger(__name__)

_AGENT = "llama-index-crm (SPARQLWrapper)"
_FORMAT_STATUSES = (400, 406, 415)
"""Statuses that may mean "not in this format" on the first TSV request."""

_CHECK_URL = "check that the URL is the query endpoint (e.g. .../sparql or .../query)"


class _Wrapper(SPARQLWrapper):
    """SPARQLWrapper that keeps HTTP errors raw (status and body) and takes float time-outs."""

    def __init__(self, endpoint: str, timeout: float) -> None:
        super().__init__(endpoint, agent=_AGENT)
        self._timeout_s = timeout

    def _query(self) -> tuple[http.client.HTTPResponse, str]:
        request = self._createRequest()
        response = urllib.request.urlopen(request, timeout=self._timeout_s)
        return response, self.returnFormat


class _HttpError(SourceError):
    """The endpoint answered with an HTTP error status."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def _redact(url: str) -> str:
    """``url`` without a password, fit for messages and logs."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    netloc = f"{parts.username}:***@{parts.netloc.rpartition('@')[2]}"
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


def _first_line(body: bytes) -> str:
    text = body.decode("utf-8", errors="replace").strip()
    return text.splitlines()[0][:200] if text else "(empty body)"


class SparqlEndpointSource:
    """A :class:`~llama_index_crm.sources.base.GraphSource` over a SPARQL endpoint.

    Args:
        url: The query endpoint, e.g. ``http://localhost:7878/query``.
        timeout: Seconds to wait for each HTTP request.
        retries: Further attempts after a connection error, time-out or 5xx answer.
        backoff: Seconds before the first retry; doubled at each further one.
        auth: ``(user, password)`` for HTTP basic authentication (also taken from a
            ``http://user:password@host/...`` URL).
        batch_size: IRIs per ``VALUES`` query.
        default_graph: Query this graph (``default-graph-uri``) instead of the default one.
        page_size: Rows per page when listing subjects (``ORDER BY`` + ``LIMIT`` /
            ``OFFSET``), for servers that cap result sizes (Virtuoso's ``ResultSetMaxRows``);
            ``None`` asks in one query. One query is much faster where it is allowed:
            on Oxigraph, 19,712 subjects took 0.2 s in one query, 2.8 s in pages of 100,000
            (the ``ORDER BY`` alone) and 10.5 s in pages of 5,000.

    Raises:
        SourceError: The URL is not http(s), or a parameter is out of range.
    """

    def __init__(
        self,
        url: str,
        *,
        timeout: float = 60,
        retries: int = 3,
        backoff: float = 1.0,
        auth: tuple[str, str] | None = None,
        batch_size: int = 1000,
        default_graph: str | None = None,
        page_size: int | None = None,
    ) -> None:
        if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
            raise SourceError(f"Not an http(s) SPARQL endpoint URL: {url!r}.")
        if (
            batch_size < 1
            or retries < 0
            or timeout <= 0
            or (page_size is not None and page_size < 1)
        ):
            raise SourceError("batch_size and page_size must be ≥ 1, retries ≥ 0, timeout > 0.")
        parts = urllib.parse.urlsplit(url)
        if parts.username is not None:
            # urllib cannot send user:password@host; move it to basic authentication.
            if auth is None:
                auth = (
                    urllib.parse.unquote(parts.username),
                    urllib.parse.unquote(parts.password or ""),
                )
            url = urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))
        if default_graph is not None and iri_ref(default_graph) is None:
            raise SourceError(f"default_graph is not a valid IRI: {default_graph!r}.")
        self.url = url
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.batch_size = batch_size
        self.default_graph = default_graph
        self.page_size = page_size
        self._auth = auth
        self._tsv = True
        self._format_confirmed = False

    def factory(self) -> Callable[[], SparqlEndpointSource]:
        """A picklable recipe that opens the same endpoint again (for worker processes)."""
        return functools.partial(
            SparqlEndpointSource, self.url, timeout=self.timeout, retries=self.retries,
            backoff=self.backoff, auth=self._auth, batch_size=self.batch_size,
            default_graph=self.default_graph, page_size=self.page_size,
        )

    def describe(self) -> str:
        """``SPARQL endpoint <url>`` (without any password)."""
        return f"SPARQL endpoint {_redact(self.url)}"

    # -- HTTP ---------------------------------------------------------------------------

    def _wrapper(self, query: str, fmt: str) -> _Wrapper:
        wrapper = _Wrapper(self.url, self.timeout)
        wrapper.setMethod(POST)
        wrapper.setRequestMethod(URLENCODED)
        wrapper.setOnlyConneg(True)
        wrapper.setReturnFormat(fmt)
        if self.default_graph:
            wrapper.addDefaultGraph(self.default_graph)
        if self._auth:
            wrapper.setHTTPAuth(BASIC)
            wrapper.setCredentials(*self._auth)
        # setQuery() would scan the whole text with regexes to find the query form (16 ms
        # for a 1,000-IRI VALUES query); every query here is a SELECT, which also pins the
        # request to the query operation, never the update one.
        wrapper.queryString = query
        wrapper.queryType = SELECT
        return wrapper

    def _send(self, query: str, fmt: str) -> tuple[str, bytes]:
        """POST ``query``; the response's content type and body, after retries."""
        where = _redact(self.url)
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            try:
                result = self._wrapper(query, fmt).query()
                with result.response as response:
                    return response.headers.get("Content-Type", ""), response.read()
            except urllib.error.HTTPError as exc:
                body = exc.read() if exc.fp is not None else b""
                if exc.code < 500 or last:
                    hint = (
                        "check the credentials"
                        if exc.code in (401, 403)
                        else f"{_CHECK_URL} and the server log"
                    )
                    raise _HttpError(
                        f"SPARQL endpoint {where} answered HTTP {exc.code}: {_first_line(body)} "
                        f"({hint}).",
                        exc.code,
                    ) from exc
                reason = f"HTTP {exc.code}"
            except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
                reason = str(getattr(exc, "reason", exc)) or type(exc).__name__
                if last:
                    raise SourceError(
                        f"SPARQL endpoint {where} is unreachable after {attempt + 1} "
                        f"attempt(s): {reason}. Is the server running? Also {_CHECK_URL}, "
                        f"the network or proxy, and the timeout ({self.timeout} s)."
                    ) from exc
            delay = self.backoff * 2**attempt
            logger.warning("%s: %s; retrying in %.1f s", where, reason, delay)
            time.sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover

    def _select_as(self, query: str, variables: Sequence[str], fmt: str) -> list[Row]:
        content_type, body = self._send(query, fmt)
        text = body.decode("utf-8")
        if "tab-separated-values" in content_type:
            return parse_tsv(text, variables)
        if "json" in content_type:
            data: Any = json.loads(text)
            return parse_json(data, variables)
        raise ValueError(f"unexpected content type {content_type!r}")

    def select(self, query: str, variables: Sequence[str]) -> list[Row]:
        """Run a SELECT ``query``; its solutions as rows in the order of ``variables``.

        Args:
            query: SPARQL SELECT text (built from trusted parts only).
            variables: Variable names (without ``?``).

        Returns:
            One tuple of terms (``None`` when unbound) per solution.

        Raises:
            SourceError: The endpoint is unreachable or answers with an error.
        """
        if self._tsv:
            try:
                rows = self._select_as(query, variables, TSV)
                self._format_confirmed = True
                return rows
            except _HttpError as exc:
                if self._format_confirmed or exc.status not in _FORMAT_STATUSES:
                    raise
                reason = f"HTTP {exc.status}"
            except ValueError as exc:
                reason = str(exc)
            rows = self._select_as_json(query, variables)
            logger.info("%s: TSV failed (%s); using JSON results", self.describe(), reason)
            self._tsv = False
            return rows
        return self._select_as_json(query, variables)

    def _select_as_json(self, query: str, variables: Sequence[str]) -> list[Row]:
        try:
            return self._select_as(query, variables, JSON)
        except ValueError as exc:
            raise SourceError(
                f"SPARQL endpoint {_redact(self.url)} sent an unreadable result: {exc}; "
                f"{_CHECK_URL}."
            ) from exc

    # -- GraphSource ----------------------------------------------------------------------

    def entities(self) -> list[str]:
        """Distinct IRI subjects, sorted, minus ontology namespaces and schema subjects."""
        base = "SELECT DISTINCT ?s WHERE { ?s ?p ?o FILTER(isIRI(?s)) }"
        subjects: list[str] = []
        offset = 0
        while True:
            query = base
            if self.page_size is not None:
                query += f" ORDER BY ?s LIMIT {self.page_size} OFFSET {offset}"
            rows = self.select(query, ("s",))
            subjects.extend(row[0] for row in rows if isinstance(row[0], str))
            if self.page_size is None or len(rows) < self.page_size:
                break
            offset += self.page_size
        types = " ".join(f"<{t}>" for t in sorted(SCHEMA_TYPES))
        schema_query = f"SELECT DISTINCT ?s WHERE {{ VALUES ?t {{ {types} }} ?s <{RDF_TYPE}> ?t }}"
        schema = {row[0] for row in self.select(schema_query, ("s",)) if isinstance(row[0], str)}
        return select_entities(subjects, schema)

    def fetch(self, nodes: Sequence[str], *, incoming: bool = True) -> list[Triple]:
        """Triples with a subject in ``nodes`` and, if ``incoming``, an object in ``nodes``.

        Blank nodes in ``nodes`` are skipped (see the module notes), as is any IRI that
        could not safely enter a query (with a logged warning).

        Args:
            nodes: IRIs (blank nodes are accepted and ignored).
            incoming: Also return the triples pointing at ``nodes``.

        Returns:
            Distinct triples, in no particular order.
        """
        iris = safe_iris(nodes)
        found: set[Triple] = set()
        directions = ("s", "o") if incoming else ("s",)
        for start in range(0, len(iris), self.batch_size):
            batch = iris[start : start + self.batch_size]
            for var in directions:
                for s, p, o in self.select(values_query(var, batch), ("s", "p", "o")):
                    if isinstance(s, str) and isinstance(p, str) and o is not None:
                        found.add(Triple(s, p, o))
        return list(found)

    def close(self) -> None:
        """Nothing to release: every request opens and closes its own connection."""

    def __enter__(self) -> SparqlEndpointSource:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
