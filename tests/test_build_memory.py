"""Memory of a build: one parsed graph, served to the workers; the peak of the process tree."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import DEMO

from llama_index_crm.build import builder as builder_module
from llama_index_crm.build.folder import build_folder, build_structure
from llama_index_crm.build.memory import TreePeak, descendants
from llama_index_crm.build.source_server import ServedSource, SourceServer
from llama_index_crm.errors import SourceError
from llama_index_crm.rdf import Triple
from llama_index_crm.sources import RdfFileSource

MB = 1024 * 1024
CHILD_MB = 300
"""What the child of the sampler test allocates."""
_CHILD = f"""
import sys, time
block = b"x" * ({CHILD_MB} * {MB})  # written, so resident
print("ready", flush=True)
time.sleep(3)
"""


def test_the_peak_counts_a_child_that_allocates_while_the_parent_is_idle() -> None:
    """The tree's peak, sampled: the parent sleeps while its child holds 300 MB."""
    with TreePeak(every=0.05, rescan=0.1) as peak:
        before = peak.sample()
        child = subprocess.Popen([sys.executable, "-c", _CHILD], stdout=subprocess.PIPE)
        assert child.stdout is not None
        assert child.stdout.readline().strip() == b"ready"
        assert child.pid in descendants(peak._pid)
        time.sleep(1.0)  # idle: only the child holds memory
        child.wait()
        assert peak.sample() < before + 100 * MB  # the child is gone
    assert peak.peak_mb * MB > before + (CHILD_MB - 50) * MB


def test_a_sample_taken_at_once_counts_the_children_already_there() -> None:
    """The first sample right after ``start()`` holds the tree, not this process alone: a
    busy machine may run the sampling thread late (the test above then saw its "before"
    grow by the session's ``oxigraph serve`` processes, 180 MB)."""
    child = subprocess.Popen([sys.executable, "-c", _CHILD], stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == b"ready"
        with TreePeak(every=60, rescan=60) as peak:  # the thread samples once, then waits
            assert child.pid in peak._children
            assert peak.sample() > (CHILD_MB - 50) * MB
    finally:
        child.kill()
        child.wait()


def _index_tables(folder: Path) -> dict[str, list[str]]:
    return {name: sorted(map(str, pq.read_table(folder / name).to_pylist()))
            for name in ("documents.parquet", "triples.parquet", "fr_edges.parquet")}


class _CountingServer(SourceServer):
    served: list[SourceServer] = []

    def start(self) -> SourceServer:
        _CountingServer.served.append(self)
        return super().start()


def test_workers_receive_chunks_not_the_files(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The files are parsed once, in the build process: gone before the workers start,
    they are not missed, since every worker asks the build process for its chunks'
    triples. The index is the one a single process builds."""
    graph = tmp_path / "g.ttl"
    shutil.copy(DEMO, graph)
    monkeypatch.setattr(builder_module, "SourceServer", _CountingServer)
    _CountingServer.served.clear()
    with RdfFileSource([graph]) as source:
        alone, _ = build_folder(source, tmp_path / "one", chunk_size=40, workers=1)
        assert not _CountingServer.served
        graph.unlink()
        served, _ = build_folder(source, tmp_path / "two", chunk_size=40, workers=2)
    [server] = _CountingServer.served
    assert server.requests >= len(alone) // 40  # at least a fetch a chunk
    assert [(d.uri, d.text) for d in served] == [(d.uri, d.text) for d in alone]
    assert _index_tables(tmp_path / "one") == _index_tables(tmp_path / "two")


class _Failing:
    def describe(self) -> str:
        return "failing source"

    def entities(self) -> list[str]:
        return []

    def fetch(self, nodes: Sequence[str], *, incoming: bool = True) -> list[Triple]:
        if "http://ex/bad" in nodes:
            raise SourceError("the graph went away")
        return [Triple(n, "http://ex/p", "http://ex/o") for n in nodes]

    def close(self) -> None:
        pass


def test_a_served_source_error_reaches_the_worker_as_it_is() -> None:
    with SourceServer(_Failing()) as server:
        remote = server.recipe()()
        assert isinstance(remote, ServedSource)
        assert not hasattr(remote, "select")  # the source runs no SPARQL: walked
        assert remote.fetch(["http://ex/a"]) == [Triple("http://ex/a", "http://ex/p",
                                                        "http://ex/o")]
        with pytest.raises(SourceError, match="the graph went away"):
            remote.fetch(["http://ex/bad"])
        remote.close()
    with pytest.raises(SourceError, match="closed"):
        remote.fetch(["http://ex/a"])


def test_the_source_can_be_closed_before_the_merge(tmp_path: Path) -> None:
    """``close_source``: the parsed graph is dropped once the chunks are built."""
    source = RdfFileSource([DEMO])
    docs, docstore, stats = build_structure(source, tmp_path / "w", close_source=True)
    with pytest.raises(SourceError, match="closed"):
        source.store  # noqa: B018
    assert stats.documents == len(docs) > 100
    assert stats.peak_rss_mb > 0
