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
import socket
import threading
import time
from collections.abc import Sequence
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

    Each serving thread owns its connection: it alone closes it, under the server's lock.
    :meth:`close` only shuts the sockets down (which wakes a thread blocked in ``recv``)
    and waits for the threads, so that a connection is never closed twice, nor while its
    thread reads it, whichever side hangs up first; and it may be called again, or from
    several threads at once.

    Args:
        source: the graph the workers read (its store stays in this process).
        address: where to listen: None, a local socket that only this machine reaches;
            ``(host, 0)``, a TCP port on ``host``, for workers that are not this process's
            children (Ray's, perhaps on other machines).
        authkey: the key a worker must know (None: this process's, which spawned workers
            inherit); the recipe carries a key given here to the workers.
    """

    JOIN_SECONDS = 30.0
    """How long :meth:`close` waits for a thread still answering a call (it is a daemon)."""

    def __init__(self, source: GraphSource, *, address: tuple[str, int] | None = None,
                 authkey: bytes | None = None) -> None:
        self.source = source
        self._address = address
        self._authkey = authkey
        self._listener: Listener | None = None
        self._lock = threading.Lock()
        """Guards the fields below: threads, live connections, the closed flag, counters."""
        self._closing = threading.Lock()
        """Held by :meth:`close` throughout, so that a second caller waits for the first."""
        self._closed = False
        self._threads: list[threading.Thread] = []
        self._connections: set[Connection] = set()
        self.requests = 0
        """Calls answered so far (all workers)."""
        self.busy_seconds = 0.0
        """Time spent answering them (summed over the workers' threads)."""

    def start(self) -> SourceServer:
        """Listen on a fresh local socket; returns ``self``."""
        with self._lock:
            if self._closed:
                raise SourceError(f"the server of {self.source.describe()} is closed")
            if self._listener is None:
                self._listener = Listener(
                    self._address, authkey=self._authkey
                    or bytes(multiprocessing.current_process().authkey))
                accept = threading.Thread(target=self._accept, args=(self._listener,),
                                          name="source-server", daemon=True)
                self._threads.append(accept)
                accept.start()
        return self

    def recipe(self) -> functools.partial[ServedSource]:
        """A picklable recipe that connects a worker to this server."""
        if self._listener is None:
            self.start()
        listener = self._listener
        assert listener is not None
        return functools.partial(
            ServedSource, listener.address, self.source.describe(),
            callable(getattr(self.source, "select", None)),
            getattr(self.source, "fr_closures", "inline"), self._authkey)

    def _accept(self, listener: Listener) -> None:
        while True:
            try:
                conn = listener.accept()
            except (OSError, EOFError, multiprocessing.AuthenticationError) as exc:
                with self._lock:
                    if self._closed:
                        return  # woken by close()
                if isinstance(exc, (EOFError, ConnectionError,
                                    multiprocessing.AuthenticationError)):
                    continue  # a stranger knocked, or a caller hung up at once
                logger.warning("The source server stops accepting workers: %r", exc)
                return
            with self._lock:
                if self._closed:
                    conn.close()
                    return
                self._connections.add(conn)
                worker = threading.Thread(target=self._serve, args=(conn,), daemon=True,
                                          name="source-server-worker")
                self._threads.append(worker)
                worker.start()

    def _serve(self, conn: Connection) -> None:
        try:
            self._answer(conn)
        finally:
            with self._lock:  # the only place the connection is closed
                self._connections.discard(conn)
                conn.close()

    def _answer(self, conn: Connection) -> None:
        while True:
            try:
                call, args, kwargs = conn.recv()
            except (EOFError, OSError):
                return  # the worker hung up, or close() shut the socket down
            started = time.perf_counter()
            try:
                if call not in _CALLS:
                    raise SourceError(f"unknown source call {call!r}")
                answer: tuple[str, Any] = ("ok", getattr(self.source, call)(*args, **kwargs))
            except CrmError as exc:
                answer = ("error", exc)
            except Exception as exc:  # noqa: BLE001 - said in the worker, not lost here
                answer = ("error", SourceError(f"{self.source.describe()}: {exc!r}"))
            with self._lock:
                self.requests += 1
                self.busy_seconds += time.perf_counter() - started
            try:
                conn.send(answer)
            except (OSError, EOFError):
                return

    def close(self) -> None:
        """Stop listening and hang up on every worker; waits for the serving threads.

        Idempotent and thread-safe; never raises because a worker hung up first.
        """
        with self._closing:
            with self._lock:
                if self._closed:
                    return
                self._closed = True
                listener = self._listener
                family = socket.AF_INET if self._address else socket.AF_UNIX
                for conn in self._connections:  # open: their threads close them under _lock
                    _shut_down(conn.fileno(), family)
                threads = list(self._threads)
            if listener is not None:
                _knock(listener.address)  # wakes accept(), which closing the socket does not
            deadline = time.monotonic() + self.JOIN_SECONDS
            for thread in threads:
                thread.join(max(0.0, deadline - time.monotonic()))
            lingering = [t.name for t in threads if t.is_alive()]
            if lingering:
                logger.warning("Source server threads still running after %.0f s: %s",
                               self.JOIN_SECONDS, lingering)
            if listener is not None:
                if threads and not threads[0].is_alive():
                    listener.close()  # accept() returned: nobody else uses it
                logger.info("Served %d source calls to the build workers in %.1f s",
                            self.requests, self.busy_seconds)

    def __enter__(self) -> SourceServer:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def _shut_down(fd: int, family: int = socket.AF_UNIX) -> None:
    """Shut a connected socket down for both directions, leaving ``fd`` open: a thread
    blocked reading it wakes with end-of-file, a thread writing it gets ``EPIPE``."""
    try:
        with socket.fromfd(fd, family, socket.SOCK_STREAM) as dup:
            dup.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # the peer already hung up (ENOTCONN): nothing to wake


def _knock(address: Any) -> None:
    """Connect to a listener and hang up at once, so that its blocked ``accept()`` returns
    (closing a socket does not wake a thread blocked on it). The handshake fails there."""
    family = socket.AF_UNIX if isinstance(address, str) else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as knock:
            knock.connect(address)
    except OSError:
        pass  # no longer listening: nothing to wake


class ServedSource:
    """A worker's view of the build process's source: each call is a request to it.

    Args:
        address: the :class:`SourceServer`'s socket.
        description: the served source's :meth:`describe`.
        has_select: whether the served source runs SPARQL (``select``).
        fr_closures: the served source's ``fr_closures``.
        authkey: the server's key (None: this process's, inherited from the build process).
    """

    def __init__(self, address: str | tuple[str, int], description: str,
                 has_select: bool = False, fr_closures: str = "inline",
                 authkey: bytes | None = None) -> None:
        self._conn: Connection | None = Client(
            address, authkey=authkey or bytes(multiprocessing.current_process().authkey))
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
