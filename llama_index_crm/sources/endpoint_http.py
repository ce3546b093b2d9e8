"""The HTTP side of a SPARQL endpoint: requests, authentication, politeness, retries.

SPARQLWrapper writes each request (the query, the ``default-graph-uri`` parameters, the
``Accept`` header of the results format); this module sends it:

* by GET while the URL-encoded parameters stay under :data:`POST_ABOVE` characters (what
  public endpoints and caches expect), by POST (form-encoded) above, since servers and
  proxies refuse long URLs;
* with HTTP basic or digest authentication, whichever the server asks for
  (:class:`~llama_index_crm.sources.credentials.Credentials`); after one accepted basic
  challenge the credentials are sent up front;
* with extra headers (an API key), at most ``max_rps`` requests a second, and a time limit;
* again after a connection error, a time-out or a 5xx answer, ``backoff`` seconds later and
  twice as long each time; other HTTP errors stop at once with the server's first line.

The ``Server`` header of the answers is kept (:attr:`EndpointClient.server`): it tells which
server this is (:mod:`llama_index_crm.sources.servers`).
"""

from __future__ import annotations

import http.client
import logging
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus

from SPARQLWrapper import GET, JSON, POST, SELECT, TSV, URLENCODED, XML, SPARQLWrapper

from llama_index_crm.errors import HttpStatusError, SourceError
from llama_index_crm.sources.credentials import Credentials

logger = logging.getLogger(__name__)

AGENT = "llama-index-crm (SPARQLWrapper)"
"""The ``User-Agent`` of every request."""
POST_ABOVE = 2000
"""URL-encoded parameter characters above which a query is POSTed: many servers and
proxies refuse URLs much past 8 KB, and a 1,000-IRI ``VALUES`` query is about 60 KB."""
FORMATS = {"tsv": TSV, "xml": XML, "json": JSON}
"""Results format name → SPARQLWrapper return format (which sets the ``Accept`` header)."""
CHECK_URL = "check that the URL is the query endpoint (e.g. .../sparql or .../query)"
MAX_ROWS_HEADER = "X-SPARQL-MaxRows"
"""Virtuoso's header on an answer cut at its ``ResultSetMaxRows`` (otherwise silent)."""


@dataclass(frozen=True)
class HttpOptions:
    """How requests are sent; every field is safe to record (no secrets in ``headers``' names).

    Attributes:
        timeout: Seconds to wait for each request.
        retries: Further attempts after a connection error, time-out or 5xx answer.
        backoff: Seconds before the first retry; doubled at each further one.
        headers: Extra request headers, ``(name, value)``.
        max_rps: Requests a second at most (``None``: no limit).
        post_above: URL-encoded characters above which a query is POSTed.
    """

    timeout: float = 60.0
    retries: int = 3
    backoff: float = 1.0
    headers: tuple[tuple[str, str], ...] = ()
    max_rps: float | None = None
    post_above: int = POST_ABOVE

    def __post_init__(self) -> None:
        if self.retries < 0 or self.timeout <= 0 or self.backoff < 0:
            raise SourceError("retries must be ≥ 0, timeout > 0 and backoff ≥ 0.")
        if self.max_rps is not None and self.max_rps <= 0:
            raise SourceError("--max-rps must be a positive number of requests a second.")


def parse_header(text: str) -> tuple[str, str]:
    """``"Name: value"`` as a pair.

    >>> parse_header("X-Api-Key: abc:def")
    ('X-Api-Key', 'abc:def')

    Raises:
        SourceError: There is no colon or no name.
    """
    name, colon, value = text.partition(":")
    if not colon or not name.strip() or any(c in name for c in " \t\r\n"):
        raise SourceError(f"A header must be 'Name: value', e.g. 'X-Api-Key: abc', not {text!r}.")
    return name.strip(), value.strip()


def redact(url: str) -> str:
    """``url`` without a password, fit for messages and logs."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    netloc = f"{parts.username}:***@{parts.netloc.rpartition('@')[2]}"
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


def _first_line(body: bytes) -> str:
    text = body.decode("utf-8", errors="replace").strip()
    return text.splitlines()[0][:200] if text else "(empty body)"


@dataclass
class _Throttle:
    """At most ``rate`` calls of :meth:`wait` a second (none when ``rate`` is ``None``)."""

    rate: float | None
    _next: float = field(default=0.0)

    def wait(self) -> None:
        if self.rate is None:
            return
        now = time.monotonic()
        if now < self._next:
            time.sleep(self._next - now)
            now = self._next
        self._next = now + 1.0 / self.rate


class _BasicAuth(urllib.request.HTTPBasicAuthHandler):
    """Basic authentication sent up front once the server accepted it, and kept up front
    whatever the status of later answers (urllib would stop after any non-2xx answer, a
    406 included; only a new challenge, a 401, withdraws it). An answer to digest
    credentials does not count."""

    passwd: urllib.request.HTTPPasswordMgrWithPriorAuth

    def http_response(self, req: urllib.request.Request,
                      response: http.client.HTTPResponse) -> http.client.HTTPResponse:
        sent = req.get_header(self.auth_header) or ""
        if 200 <= response.status < 300 and sent.startswith("Basic "):
            self.passwd.update_authenticated(req.full_url, True)
        elif response.status == HTTPStatus.UNAUTHORIZED:
            self.passwd.update_authenticated(req.full_url, False)
        return response

    https_response = http_response


@dataclass(frozen=True)
class Answer:
    """One successful answer: its content type, body and the server's ``Server`` header.

    Attributes:
        max_rows: The row cap the server says it applied (Virtuoso's ``X-SPARQL-MaxRows``,
            sent when an answer reaches its ``ResultSetMaxRows``), or ``None``.
    """

    content_type: str
    body: bytes
    server: str
    max_rows: int | None = None


class EndpointClient:
    """Sends SELECT queries to one endpoint (see the module notes).

    Args:
        url: The query endpoint, without ``user:password@``.
        options: Time limit, retries, headers, politeness.
        credentials: For basic or digest authentication, when the server asks.
        graphs: ``default-graph-uri`` of every request (none: the server's default graph).
    """

    def __init__(self, url: str, options: HttpOptions, credentials: Credentials | None = None,
                 graphs: Sequence[str] = ()) -> None:
        self.url = url
        self.options = options
        self.graphs = tuple(graphs)
        self.server: str | None = None
        self._throttle = _Throttle(options.max_rps)
        handlers: list[urllib.request.BaseHandler] = []
        if credentials is not None:
            passwords = urllib.request.HTTPPasswordMgrWithPriorAuth()
            parts = urllib.parse.urlsplit(url)
            # urllib's digest handler looks the password up by host alone
            for where in (url, f"{parts.scheme}://{parts.netloc}/"):
                passwords.add_password(None, where, credentials.user, credentials.password)
            handlers += [_BasicAuth(passwords),
                         urllib.request.HTTPDigestAuthHandler(passwords)]
        self._opener = urllib.request.build_opener(*handlers)
        self._credentials = credentials

    def _request(self, query: str, fmt: str) -> urllib.request.Request:
        wrapper = SPARQLWrapper(self.url, agent=AGENT)
        wrapper.setOnlyConneg(True)
        wrapper.setReturnFormat(FORMATS[fmt])
        for graph in self.graphs:
            wrapper.addDefaultGraph(graph)
        # setQuery() would scan the whole text with regexes to find the query form (16 ms
        # for a 1,000-IRI VALUES query); every query here is a SELECT, which also pins the
        # request to the query operation, never the update one.
        wrapper.queryString = query
        wrapper.queryType = SELECT
        params = urllib.parse.urlencode([("query", query), *(
            ("default-graph-uri", g) for g in self.graphs)])
        wrapper.setMethod(POST if len(params) > self.options.post_above else GET)
        wrapper.setRequestMethod(URLENCODED)
        request = wrapper._createRequest()
        for name, value in self.options.headers:
            request.add_header(name, value)
        return request

    def send(self, query: str, fmt: str) -> Answer:
        """The answer to a SELECT ``query`` in results format ``fmt``, after retries.

        Raises:
            HttpStatusError: The server answered with an error status (a 5xx after the
                last retry).
            SourceError: The server could not be reached after the last retry.
        """
        where = redact(self.url)
        options = self.options
        for attempt in range(options.retries + 1):
            last = attempt == options.retries
            self._throttle.wait()
            try:
                with self._opener.open(self._request(query, fmt),
                                       timeout=options.timeout) as response:
                    cap = response.headers.get(MAX_ROWS_HEADER, "").strip()
                    answer = Answer(response.headers.get("Content-Type", ""), response.read(),
                                    response.headers.get("Server", "").strip(),
                                    int(cap) if cap.isdigit() else None)
                self.server = answer.server
                return answer
            except urllib.error.HTTPError as exc:
                body = exc.read() if exc.fp is not None else b""
                if self.server is None:
                    self.server = (exc.headers.get("Server") or "").strip() if exc.headers \
                        else ""
                if exc.code < 500 or last:
                    raise HttpStatusError(
                        f"SPARQL endpoint {where} answered HTTP {exc.code}: {_first_line(body)} "
                        f"({self._hint(exc.code)}).", exc.code) from exc
                reason = f"HTTP {exc.code}"
            except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
                reason = str(getattr(exc, "reason", exc)) or type(exc).__name__
                if last:
                    raise SourceError(
                        f"SPARQL endpoint {where} is unreachable after {attempt + 1} "
                        f"attempt(s): {reason}. Is the server running? Also {CHECK_URL}, "
                        f"the network or proxy, and the timeout ({options.timeout} s)."
                    ) from exc
            delay = options.backoff * 2**attempt
            logger.warning("%s: %s; retrying in %.1f s", where, reason, delay)
            time.sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover

    def _hint(self, status: int) -> str:
        if status == 401 and self._credentials is None:
            return ("the endpoint wants a user name and password: give --auth user:password, "
                    "the CRM_RAG_AUTH environment variable or a ~/.netrc entry")
        if status in (401, 403):
            origin = f" (from {self._credentials.origin})" if self._credentials else ""
            return f"check the credentials{origin}"
        if status == 429:
            return "the server limits the request rate: lower --max-rps"
        return f"{CHECK_URL} and the server log"

    def settings(self) -> Mapping[str, object]:
        """What the manifest records about the requests: no password, no header values."""
        options = self.options
        record: dict[str, object] = {
            "timeout": options.timeout, "retries": options.retries, "backoff": options.backoff,
            "max_rps": options.max_rps, "post_above": options.post_above,
            "headers": sorted({name for name, _ in options.headers}),
        }
        if self._credentials is not None:
            record["auth"] = {"user": self._credentials.user, "from": self._credentials.origin}
        return record
