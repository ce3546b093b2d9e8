"""Shutdown of the build's source server under concurrency: ``close()`` never raises because
a worker hung up first, may be called again or from several threads, and leaves no thread
or connection behind; a worker's own error still reaches the build's caller as it is."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from conftest import DEMO

from llama_index_crm.build.folder import build_folder
from llama_index_crm.build.source_server import ServedSource, SourceServer
from llama_index_crm.errors import SourceError
from llama_index_crm.rdf import Triple
from llama_index_crm.sources import RdfFileSource

ROUNDS = 150
"""Shutdowns raced per test: each takes a few milliseconds."""


class _Gated:
    """Answers ``fetch`` once ``gate`` is open; counts the calls that are waiting."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.waiting = threading.Semaphore(0)

    def describe(self) -> str:
        return "gated source"

    def entities(self) -> list[str]:
        return []

    def close(self) -> None:
        pass

    def fetch(self, nodes: Sequence[str], *, incoming: bool = True) -> list[Triple]:
        self.waiting.release()
        self.gate.wait()
        return [Triple(n, "http://ex/p", "http://ex/o") for n in nodes]


def _ask(remote: ServedSource, outcomes: list[str]) -> None:
    try:
        remote.fetch(["http://ex/a"])
        outcomes.append("answered")
    except SourceError as exc:
        assert "stopped answering" in str(exc)
        outcomes.append("hung up")
    finally:
        remote.close()


def _new_threads(before: set[threading.Thread]) -> list[str]:
    return [t.name for t in set(threading.enumerate()) - before if t.is_alive()]


def test_close_while_workers_are_mid_request_or_hanging_up_never_raises() -> None:
    """Each round: two workers wait inside a call, one hangs up just as the server closes,
    one has hung up already. The waiting workers are told at once that the server stopped
    answering; ``close()`` waits for the calls in progress, then returns without raising
    (no ``EBADF`` from a connection its own thread closed), and no thread of the server
    survives it."""
    before = set(threading.enumerate())
    for _ in range(ROUNDS):
        source = _Gated()
        server = SourceServer(source).start()
        recipe = server.recipe()
        outcomes: list[str] = []
        askers = [threading.Thread(target=_ask, args=(recipe(), outcomes)) for _ in range(2)]
        for asker in askers:
            asker.start()
        for _ in askers:
            assert source.waiting.acquire(timeout=10)  # both are mid-request
        recipe().close()  # hung up already
        leaving = recipe()
        errors: list[BaseException] = []
        closer = threading.Thread(target=_closing, args=(server, errors))
        hang_up = threading.Thread(target=leaving.close)
        hang_up.start()  # races the server's close
        closer.start()
        for asker in askers:
            asker.join()  # woken by the shutdown, while their calls still run
        assert outcomes == ["hung up", "hung up"]
        assert closer.is_alive()  # close() waits for the calls in progress
        source.gate.set()
        closer.join()
        hang_up.join()
        assert errors == []
        assert _new_threads(before) == []


def _closing(server: SourceServer, errors: list[BaseException]) -> None:
    try:
        server.close()
    except BaseException as exc:  # noqa: BLE001 - the test asserts there is none
        errors.append(exc)


def test_close_twice_and_from_several_threads_at_once() -> None:
    """Four threads close the server while two workers hang up (before, ``close()`` raised
    ``EBADF`` in about one round of sixteen here); then it is closed again. None raises, and
    the workers still connected are told the server stopped answering."""
    before = set(threading.enumerate())
    for _ in range(ROUNDS):
        source = _Gated()
        source.gate.set()
        server = SourceServer(source).start()
        recipe = server.recipe()
        remotes = [recipe() for _ in range(4)]
        for remote in remotes:
            remote.fetch(["http://ex/a"])  # each has its serving thread
        errors: list[BaseException] = []
        racing = [threading.Thread(target=r.close) for r in remotes[:2]]
        racing += [threading.Thread(target=_closing, args=(server, errors)) for _ in range(4)]
        for thread in racing:
            thread.start()
        for thread in racing:
            thread.join()
        server.close()
        assert errors == []
        for remote in remotes[2:]:
            with pytest.raises(SourceError, match="stopped answering"):
                remote.fetch(["http://ex/a"])
            remote.close()
        assert _new_threads(before) == []
    with pytest.raises(SourceError, match="closed"):
        server.start()  # a closed server stays closed: its workers were told it stopped


def test_a_closed_server_accepts_no_more_workers() -> None:
    server = SourceServer(_Gated()).start()
    recipe = server.recipe()
    server.close()
    with pytest.raises(OSError):
        recipe()  # the socket is gone


class _FailsOnOne(RdfFileSource):
    """The demo graph, whose ``fetch`` fails for one entity's chunk, as a store can."""

    target = ""

    def fetch(self, nodes: Sequence[str], *, incoming: bool = True) -> list[Triple]:
        if self.target in nodes:
            raise SourceError("the graph went away while fetching a chunk")
        return super().fetch(nodes, incoming=incoming)


def test_a_failing_workers_error_reaches_the_build_caller_unchanged(tmp_path: Path) -> None:
    """With two workers served by the build process, one worker's source error ends the
    build with that very error (message and class), not with an error of the shutdown that
    follows it."""
    graph = tmp_path / "g.ttl"
    shutil.copy(DEMO, graph)
    source = _FailsOnOne([graph])
    with source:
        source.target = sorted(source.entities())[-1]
        with pytest.raises(SourceError, match="the graph went away while fetching a chunk"):
            build_folder(source, tmp_path / "out", chunk_size=40, workers=2)
    assert not (tmp_path / "out").exists()  # the index is not replaced by half a build


def test_a_tcp_server_answers_its_own_key_only_and_hangs_up_on_idle_workers() -> None:
    """For workers that are not the build's children (Ray's actors): TCP, a key of its own
    carried by the recipe; a stranger's key is refused; close() wakes the thread of a
    worker that is connected but silent (its TCP socket shut down), at once."""
    before = set(threading.enumerate())
    source = _Gated()
    source.gate.set()
    with SourceServer(source, address=("127.0.0.1", 0), authkey=b"k" * 32) as server:
        remote = server.recipe()()
        assert remote.fetch(["http://ex/a"]) == [Triple("http://ex/a", "http://ex/p",
                                                        "http://ex/o")]
        address = server.recipe().args[0]
        assert isinstance(address, tuple) and address[0] == "127.0.0.1"
        with pytest.raises(Exception, match="digest"):  # AuthenticationError
            ServedSource(address, "stranger", authkey=b"x" * 32)
        started = time.perf_counter()
    assert time.perf_counter() - started < 5  # not the 30 s wait for a stuck thread
    assert not _new_threads(before)
    with pytest.raises(SourceError, match="stopped answering"):
        remote.fetch(["http://ex/a"])
    remote.close()
