"""A SPARQL 1.1 endpoint as a graph source.

Neighbourhoods are read with batched ``VALUES`` queries (``batch_size`` IRIs a request).
Results come as TSV where the server writes SPARQL 1.1 TSV (compact and fast to parse), as
XML or JSON otherwise: the source moves to the next format of the server's profile
(:mod:`~llama_index_crm.sources.servers`) by itself when one is refused or unreadable.
Requests, authentication, headers, time limits and politeness are
:mod:`~llama_index_crm.sources.endpoint_http`'s.

Every IRI passes :func:`~llama_index_crm.sources._sparql_terms.iri_ref` before it enters a
query: one that could change the query's meaning is skipped with a warning. Literals are put
in the canonical form Oxigraph gives them (:mod:`~llama_index_crm.sources._lexical`), so that
a number reads the same from every server and from files.

Blank nodes: they come back in results as ``_:label`` (the server's label) but cannot be
asked about again, since a label names nothing outside one result set. Through an endpoint
blank nodes are therefore *reached but not expanded*: ``fetch(["_:b0"])`` returns nothing.
Store such data as files (:class:`~llama_index_crm.sources.rdf_files.RdfFileSource`), or
skolemise it on the server, when blank-node structure matters.

Named graphs: with ``graphs``, every query reads the union of those graphs
(``default-graph-uri``). Without, it reads the server's default graph; run the server with
its union-default-graph option (``oxigraph serve --union-default-graph``, Fuseki
``unionDefaultGraph``) to see the triples of every named graph, as the file source does.
Virtuoso's default graph is the union of all its graphs, its own included: there the source
lists the graphs and reads all but the system ones (``virtrdf:``, the service description).
"""

from __future__ import annotations

import functools
import json
import logging
import re
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import Any

from llama_index_crm.errors import HttpStatusError, SourceError
from llama_index_crm.rdf import RDF_TYPE, Triple
from llama_index_crm.sources._filters import SCHEMA_TYPES, select_entities
from llama_index_crm.sources._sparql_terms import (
    Row,
    iri_ref,
    parse_json,
    parse_tsv,
    parse_xml,
    safe_iris,
    values_query,
)
from llama_index_crm.sources.credentials import find_credentials, strip_userinfo
from llama_index_crm.sources.endpoint_http import CHECK_URL, EndpointClient, HttpOptions, redact
from llama_index_crm.sources.servers import Closures, PreferredFRPaths, ServerProfile, profile_for

logger = logging.getLogger(__name__)

_FORMAT_STATUSES = (400, 406, 415)
"""Statuses that may mean "not in this format" on the first request in a format."""
_PROBE = "SELECT ?x WHERE { VALUES ?x { 1 } }"
"""A query every server answers at once, sent to learn which server this is."""
_GRAPHS = "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }"
_LIMIT = re.compile(r"\bLIMIT\s+(\d+)\s*(?:OFFSET\s+\d+\s*)?$", re.IGNORECASE)


class SparqlEndpointSource:
    """A :class:`~llama_index_crm.sources.base.GraphSource` over a SPARQL endpoint.

    Args:
        url: The query endpoint, e.g. ``http://localhost:7878/query``.
        timeout: Seconds to wait for each HTTP request.
        retries: Further attempts after a connection error, time-out or 5xx answer.
        backoff: Seconds before the first retry; doubled at each further one.
        auth: ``(user, password)`` for HTTP basic or digest authentication; otherwise taken
            from a ``http://user:password@host/...`` URL, the ``CRM_RAG_AUTH`` environment
            variable or ``~/.netrc`` (:mod:`~llama_index_crm.sources.credentials`).
        batch_size: IRIs per ``VALUES`` query.
        graphs: Read the union of these named graphs (``default-graph-uri``).
        default_graph: One graph to read; the same as ``graphs=[default_graph]``.
        page_size: Rows per page when listing subjects (``ORDER BY`` + ``LIMIT`` /
            ``OFFSET``), for servers that cap result sizes (Virtuoso's ``ResultSetMaxRows``);
            ``None`` asks in one query. One query is much faster where it is allowed:
            on Oxigraph, 19,712 subjects took 0.2 s in one query, 2.8 s in pages of 100,000
            (the ``ORDER BY`` alone) and 10.5 s in pages of 5,000.
        headers: Extra HTTP headers, e.g. ``{"X-Api-Key": "..."}``.
        max_rps: At most this many requests a second (shared out among worker processes).
        post_above: URL-encoded characters above which a query is POSTed, not sent by GET.
        server: The ``Server`` header already seen (worker processes inherit it).

    Raises:
        SourceError: The URL is not http(s), a graph is not an IRI, or a parameter is out of
            range.
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
        graphs: Sequence[str] | None = None,
        default_graph: str | None = None,
        page_size: int | None = None,
        headers: Mapping[str, str] | None = None,
        max_rps: float | None = None,
        post_above: int | None = None,
        server: str | None = None,
    ) -> None:
        if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
            raise SourceError(f"Not an http(s) SPARQL endpoint URL: {redact(url)!r}.")
        if batch_size < 1 or (page_size is not None and page_size < 1):
            raise SourceError("batch_size and page_size must be ≥ 1.")
        chosen = [*(graphs or ()), *([default_graph] if default_graph else [])]
        for graph in chosen:
            if iri_ref(graph) is None:
                raise SourceError(f"A graph must be an absolute IRI, not {graph!r}.")
        credentials = find_credentials(url, auth)
        self.url, _ = strip_userinfo(url)  # urllib cannot send user:password@host
        self.options = HttpOptions(
            timeout=timeout, retries=retries, backoff=backoff,
            headers=tuple((headers or {}).items()), max_rps=max_rps,
            **({"post_above": post_above} if post_above is not None else {}))
        self.batch_size = batch_size
        self.page_size = page_size
        self.graphs: tuple[str, ...] = tuple(dict.fromkeys(chosen))
        self._graphs_chosen = bool(chosen)
        self._credentials = credentials
        self._client = EndpointClient(self.url, self.options, credentials, self.graphs)
        self._client.server = server
        self._formats: list[str] | None = None
        self._format_confirmed = False
        self._graphs_resolved = self._graphs_chosen

    def factory(self, processes: int = 1) -> Callable[[], SparqlEndpointSource]:
        """A picklable recipe that opens the same endpoint again (for worker processes).

        Args:
            processes: How many processes will use it at once: each gets an equal share of
                ``max_rps``.
        """
        self._resolve_graphs()
        credentials = self._credentials
        rate = self.options.max_rps
        return functools.partial(
            SparqlEndpointSource, self.url, timeout=self.options.timeout,
            retries=self.options.retries, backoff=self.options.backoff,
            auth=(credentials.user, credentials.password) if credentials else None,
            batch_size=self.batch_size, graphs=list(self.graphs), page_size=self.page_size,
            headers=dict(self.options.headers),
            max_rps=rate / max(1, processes) if rate else None,
            post_above=self.options.post_above, server=self._client.server,
        )

    def describe(self) -> str:
        """``SPARQL endpoint <url>`` (without any password), and the graphs read."""
        text = f"SPARQL endpoint {redact(self.url)}"
        if self.graphs:
            shown = ", ".join(self.graphs[:3])
            more = f" and {len(self.graphs) - 3} more" if len(self.graphs) > 3 else ""
            text += f" (graph{'s' if len(self.graphs) > 1 else ''} {shown}{more})"
        return text

    def settings(self) -> dict[str, object]:
        """What the manifest records about this source (no password, no header values)."""
        return {"endpoint": redact(self.url), "graphs": list(self.graphs),
                "graphs_chosen": self._graphs_chosen, "server": self._client.server,
                "profile": profile_for(self._client.server).name,
                "batch_size": self.batch_size, "page_size": self.page_size,
                **self._client.settings()}

    # -- the server --------------------------------------------------------------------

    @property
    def profile(self) -> ServerProfile:
        """What is known of this server (one probe query if nothing was asked yet)."""
        if self._client.server is None:
            try:
                self._client.send(_PROBE, "json")
            except HttpStatusError as exc:  # the answer still said which server this is
                if exc.status not in _FORMAT_STATUSES:
                    raise
        return profile_for(self._client.server)

    @property
    def fr_closures(self) -> Closures:
        """How FR path queries must write closures for this server."""
        return self.profile.closures

    @property
    def preferred_fr_paths(self) -> tuple[PreferredFRPaths, str]:
        """How FR targets are best found on this server, and why when it is the walk."""
        profile = self.profile
        return profile.fr_paths, profile.fr_paths_reason

    def _resolve_graphs(self) -> None:
        """Without chosen graphs, leave the server's system graphs out (Virtuoso)."""
        if self._graphs_resolved:
            return
        self._graphs_resolved = True
        profile = self.profile
        if not profile.system_graphs:
            return
        listed = [row[0] for row in self._select_rows(_GRAPHS, ("g",))
                  if isinstance(row[0], str)]
        data = sorted(g for g in listed if not profile.is_system_graph(g) and iri_ref(g))
        if not data:
            raise SourceError(
                f"{self.describe()} ({profile.name}) holds no graph besides its own system "
                "graphs. Load the data into a named graph, or give --graph IRI.")
        left_out = sorted(set(listed) - set(data))
        logger.warning("%s is %s: reading its %d data graph(s) and leaving out %d system "
                       "graph(s) (%s); give --graph IRI to choose", redact(self.url),
                       profile.name, len(data), len(left_out), ", ".join(left_out))
        self.graphs = tuple(data)
        self._client.graphs = self.graphs

    # -- results -----------------------------------------------------------------------

    def _parse(self, content_type: str, body: bytes, variables: Sequence[str]) -> list[Row]:
        if "tab-separated-values" in content_type:
            return parse_tsv(body.decode("utf-8"), variables)
        if "xml" in content_type:
            return parse_xml(body, variables)
        if "json" in content_type:
            data: Any = json.loads(body.decode("utf-8"))
            return parse_json(data, variables)
        raise ValueError(f"unexpected content type {content_type!r}")

    def _select_rows(self, query: str, variables: Sequence[str]) -> list[Row]:
        if self._formats is None:
            self._formats = list(self.profile.formats)
        while True:
            fmt = self._formats[0]
            try:
                answer = self._client.send(query, fmt)
                rows = self._parse(answer.content_type, answer.body, variables)
                self._format_confirmed = True
                self._check_complete(query, rows, answer.max_rows)
                return rows
            except HttpStatusError as exc:
                if (self._format_confirmed or exc.status not in _FORMAT_STATUSES
                        or len(self._formats) == 1):
                    raise
                reason = f"HTTP {exc.status}"
            except (ValueError, UnicodeDecodeError) as exc:
                if self._format_confirmed or len(self._formats) == 1:
                    raise SourceError(
                        f"SPARQL endpoint {redact(self.url)} sent an unreadable {fmt.upper()} "
                        f"result: {exc}; {CHECK_URL}.") from exc
                reason = str(exc)
            self._formats.pop(0)
            logger.info("%s: %s results failed (%s); asking for %s", self.describe(),
                        fmt.upper(), reason, self._formats[0].upper())

    def _check_complete(self, query: str, rows: Sequence[Row], cap: int | None) -> None:
        """Raise when the server cut an answer at its row cap (Virtuoso says so in a header;
        the rows are otherwise silently missing)."""
        if cap is None or len(rows) < cap:
            return
        limit = _LIMIT.search(query)
        if limit is not None and int(limit.group(1)) <= cap:
            return  # a page asked for no more than the cap
        raise SourceError(
            f"{self.describe()} cut an answer at {cap:,} rows (Virtuoso's ResultSetMaxRows), "
            "so part of the graph would be missing. Raise ResultSetMaxRows in the [SPARQL] "
            f"section of virtuoso.ini, or give --page-size {cap} if only the subject list is "
            "cut.")

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
        self._resolve_graphs()
        return self._select_rows(query, variables)

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
