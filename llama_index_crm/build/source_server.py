"""One parsed graph for every build worker: the workers ask the build process for triples.

RDF files are parsed into an in-memory store. Before, each worker process opened the files
again (``RdfFileSource.factory``), so that with two workers the graph was parsed three
times and held three times: NPG's 1.3 M triples cost 1.5 GB a process. Now the build
process keeps the only store and serves it: :class:`SourceServer` listens on a local
socket (``multiprocessing.connection``, authenticated with the process's key, which spawned
workers inherit), and each worker's source is a :class:`ServedSource`, which sends its
``fetch`` and ``select`` calls there and receives the triples and rows of its chunk. A
worker holds its chunk's neighbourhood, never the graph.

Sources that say ``in_process = True`` are served; an endpoint source still gives each
worker its own connections (``factory``), since the server is elsewhere anyway.

>>> from llama_index_crm.rdf import Triple
>>> class Tiny:
...     def describe(self): return "tiny"
...     def fetch(self, nodes, *, incoming=True):
...         return [Triple(n, "http://ex/p", "http://ex/o") for n in nodes]
>>> with SourceServer(Tiny()) as server:
...     remote = server.recipe()()
...     got = remote.fetch(["http://ex/a"])
...     remote.close()
>>> got, remote.describe()
([Triple(s='http://ex/a', p='http://ex/p', o='http://ex/o')], 'tiny')
"""

from __future__ import annotations

import functools
import logging
import multiprocessing
import threading
import time
from collections.abc import Callable, Sequence
from multiprocessing.connection import Client, Connection, Listener
from types import TracebackType
from typing import Any

from llama_index_crm.errors import CrmError, SourceError
from llama_index_crm.rdf import Triple
from llama_index_crm.sources._sparql_terms import Row
from llama_index_crm.sources.base import GraphSource

logger = logging.getLogger(__name__)

_FETCH = "fetch"
_SELECT = "select"
_CALLS = (_FETCH, _SELECT)


def serves_workers(source: GraphSource) -> bool:
    """Whether the build should serve ``source`` to its workers rather than reopen it."""
    return bool(getattr(source, "in_process", False))


class SourceServer:
    """Answers the ``fetch`` and ``select`` calls of worker processes from ``source``.

    One thread accepts connections, one thread a worker answers it; pyoxigraph stores may
    be read from several threads. Use as a context manager, or :meth:`start` /
    :meth:`close`.

    Args:
        source: the graph the workers read (its store stays in this process).
    """

    def __init__(self, source: GraphSource) -> None:
        self.source = source
        self._listener: Listener | None = None
        self._threads: list[threading.Thread] = []
        self._connections: list[Connection] = []
        self.requests = 0
        """Calls answered so far (all workers)."""
        self.busy_seconds = 0.0
        """Time spent answering them (summed over the workers' threads)."""

    def start(self) -> SourceServer:
        """Listen on a fresh local socket; returns ``self``."""
        if self._listener is None:
            self._listener = Listener(authkey=bytes(multiprocessing.current_process().authkey))
            accept = threading.Thread(target=self._accept, name="source-server", daemon=True)
            accept.start()
            self._threads.append(accept)
        return self

    def recipe(self) -> Callable[[], ServedSource]:
        """A picklable recipe that connects a worker to this server."""
        if self._listener is None:
            self.start()
        assert self._listener is not None
        return functools.partial(
            ServedSource, self._listener.address, self.source.describe(),
            callable(getattr(self.source, "select", None)),
            getattr(self.source, "fr_closures", "inline"))

    def _accept(self) -> None:
        listener = self._listener
        while listener is not None:
            try:
                conn = listener.accept()
            except (OSError, EOFError, multiprocessing.AuthenticationError):
                return  # closed (or a stranger knocked): no more workers
            self._connections.append(conn)
            worker = threading.Thread(target=self._serve, args=(conn,), daemon=True,
                                      name="source-server-worker")
            worker.start()
            self._threads.append(worker)

    def _serve(self, conn: Connection) -> None:
        with conn:
            while True:
                try:
                    call, args, kwargs = conn.recv()
                except (EOFError, OSError):
                    return
                started = time.perf_counter()
                try:
                    if call not in _CALLS:
                        raise SourceError(f"unknown source call {call!r}")
                    answer: tuple[str, Any] = ("ok", getattr(self.source, call)(*args, **kwargs))
                except CrmError as exc:
                    answer = ("error", exc)
                except Exception as exc:  # noqa: BLE001 - said in the worker, not lost here
                    answer = ("error", SourceError(f"{self.source.describe()}: {exc!r}"))
                self.requests += 1
                self.busy_seconds += time.perf_counter() - started
                try:
                    conn.send(answer)
                except (OSError, EOFError):
                    return

    def close(self) -> None:
        """Stop listening and hang up on every worker."""
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()
            logger.info("Served %d source calls to the build workers in %.1f s",
                        self.requests, self.busy_seconds)
        for conn in self._connections:
            conn.close()
        self._connections.clear()

    def __enter__(self) -> SourceServer:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


class ServedSource:
    """A worker's view of the build process's source: each call is a request to it.

    Args:
        address: the :class:`SourceServer`'s socket.
        description: the served source's :meth:`describe`.
        has_select: whether the served source runs SPARQL (``select``).
        fr_closures: the served source's ``fr_closures``.
    """

    def __init__(self, address: str, description: str, has_select: bool = False,
                 fr_closures: str = "inline") -> None:
        self._conn: Connection | None = Client(
            address, authkey=bytes(multiprocessing.current_process().authkey))
        self._description = description
        self.fr_closures = fr_closures
        if has_select:
            self.select = self._select

    def _call(self, call: str, *args: Any, **kwargs: Any) -> Any:
        if self._conn is None:
            raise SourceError(f"{self._description} is closed.")
        try:
            self._conn.send((call, args, kwargs))
            status, value = self._conn.recv()
        except (EOFError, OSError) as exc:
            raise SourceError(
                f"{self._description}: the build process stopped answering ({exc!r})."
            ) from exc
        if status == "error":
            raise value
        return value

    def describe(self) -> str:
        """The served source's description."""
        return self._description

    def entities(self) -> list[str]:
        """Not served: the build process lists the entities and sends chunks."""
        raise SourceError("a worker receives its chunks; it does not list entities")

    def fetch(self, nodes: Sequence[str], *, incoming: bool = True) -> list[Triple]:
        """The served source's :meth:`fetch`, from the build process."""
        triples: list[Triple] = self._call(_FETCH, list(nodes), incoming=incoming)
        return triples

    def _select(self, query: str, variables: Sequence[str]) -> Sequence[Row]:
        rows: Sequence[Row] = self._call(_SELECT, query, list(variables))
        return rows

    def close(self) -> None:
        """Hang up."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
