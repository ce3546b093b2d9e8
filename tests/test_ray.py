"""The build on Ray (``--ray``, :mod:`llama_index_crm.build.ray_engine`): a real local Ray
cluster of two CPUs, started once for the module (``ray.init``, ~7 s here), builds the demo
graph and a sample of YCBA; the documents must be those of a single-process build, byte for
byte, and the vectors equal up to float rounding. Skipped, saying so, without Ray
(``pip install 'llama-index-crm[ray]'``)."""

from __future__ import annotations

import importlib.util
import logging
import os
import shutil
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from conftest import DEMO, SHARED, requires_shared

from llama_index_crm.build.folder import build_folder
from llama_index_crm.build.ray_engine import RayEngine, import_ray
from llama_index_crm.cli import main as cli_main
from llama_index_crm.errors import CrmError, SourceError, WorkerError
from llama_index_crm.index import CrmGraphIndex
from llama_index_crm.sources import RdfFileSource, SparqlEndpointSource

YCBA_SAMPLE = SHARED / "datasets" / "ycba" / "ycba_sample_150.nt.gz"
SAME_BYTES = ("documents.parquet", "unchained.parquet", "labels.parquet", "fr_edges.parquet")
"""Files of a build that Ray must write byte for byte as one process does (the triple
archive's row order is not fixed even between two single-process runs: compared as sets)."""

needs_ray = pytest.mark.skipif(importlib.util.find_spec("ray") is None,
                               reason="Ray is not installed: pip install 'llama-index-crm[ray]'")


@pytest.fixture(scope="module")
def engine() -> Iterator[RayEngine]:
    """A local Ray cluster of 2 CPUs and 2 actors a step, for the whole module."""
    ray = import_ray()
    if ray.is_initialized():  # pragma: no cover - another module left a session
        ray.shutdown()
    with RayEngine(workers=2) as started:
        yield started
    assert not ray.is_initialized()  # the engine stops the cluster it started


@pytest.fixture(scope="module")
def alone(tmp_path_factory: pytest.TempPathFactory, models_cache: Path) -> CrmGraphIndex:
    """The demo graph's index built in one process, in chunks of 40 (8 chunks)."""
    folder = tmp_path_factory.mktemp("alone")
    return CrmGraphIndex.build([str(DEMO)], folder / "index", chunk_size=40,
                               cache_dir=folder / "cache")


def _same_build(one: Path, other: Path) -> None:
    for name in SAME_BYTES:
        assert (one / name).read_bytes() == (other / name).read_bytes(), name
    rows = [sorted(map(str, pq.read_table(f / "triples.parquet").to_pylist()))
            for f in (one, other)]
    assert rows[0] == rows[1]


@needs_ray
def test_demo_index_on_ray_equals_the_single_process_one(
        engine: RayEngine, alone: CrmGraphIndex, tmp_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    """Chunks and embedding batches on two actors: the same documents and triples, the
    same vectors; the embedding ran on the actors (each cache starts empty)."""
    with caplog.at_level(logging.INFO, logger="llama_index_crm.build.ray_engine"):
        on_ray = CrmGraphIndex.build([str(DEMO)], tmp_path / "ray", chunk_size=40,
                                     cache_dir=tmp_path / "cache-ray", ray=engine)
    assert "on 2 Ray actors" in caplog.text
    assert on_ray.manifest["stats"]["chunks"] == 8  # 310 entities in chunks of 40
    _same_build(alone.folder, tmp_path / "ray")
    assert on_ray.doc_ids == alone.doc_ids
    assert on_ray.vectors.shape == alone.vectors.shape == (126, 384)
    np.testing.assert_allclose(on_ray.vectors, alone.vectors, atol=1e-5)
    hits = on_ray.as_retriever().retrieve("Who painted the frescoes of Asinou?")
    assert [n.node.node_id for n in hits][:3] == \
        [n.node.node_id for n in alone.as_retriever().retrieve(
            "Who painted the frescoes of Asinou?")][:3]


@needs_ray
@requires_shared
def test_real_graph_on_ray_equals_the_single_process_build(engine: RayEngine,
                                                             tmp_path: Path) -> None:
    """150 YCBA records (a real graph, served from this process to the actors): the same
    documents and triples as one process; more chunks than actors, so each actor takes
    several, in order."""
    with RdfFileSource([YCBA_SAMPLE]) as source:
        docs, stats = build_folder(source, tmp_path / "alone", chunk_size=1200)
    with RdfFileSource([YCBA_SAMPLE]) as source:
        on_ray, ray_stats = build_folder(source, tmp_path / "ray", chunk_size=1200,
                                         engine=engine)
    assert ray_stats.chunks == stats.chunks == 4  # 4,442 entities
    assert [(d.uri, d.text) for d in on_ray] == [(d.uri, d.text) for d in docs]
    _same_build(tmp_path / "alone", tmp_path / "ray")


@needs_ray
def test_an_endpoint_is_opened_by_each_actor(engine: RayEngine, alone: CrmGraphIndex,
                                            serve_graph: Callable[[Path], str],
                                            tmp_path: Path,
                                            caplog: pytest.LogCaptureFixture) -> None:
    """``oxigraph serve`` holding the demo graph: the actors query it themselves (its
    recipe, not the served graph); the documents are those of the files."""
    source = SparqlEndpointSource(serve_graph(DEMO), timeout=20)
    try:
        with caplog.at_level(logging.WARNING, logger="llama_index_crm.build.ray_engine"):
            build_folder(source, tmp_path / "ray", chunk_size=40, engine=engine)
    finally:
        source.close()
    assert "built in this process" not in caplog.text
    assert (tmp_path / "ray" / "documents.parquet").read_bytes() == \
        (alone.folder / "documents.parquet").read_bytes()


@needs_ray
def test_cli_builds_on_the_running_cluster(engine: RayEngine, alone: CrmGraphIndex,
                                           tmp_path: Path) -> None:
    """``crm-rag build --ray`` inside a Ray session uses it (and leaves it running)."""
    ray = import_ray()
    assert cli_main(["build", str(DEMO), "--no-embed", "--chunk-size", "40", "-q",
                     "--out", str(tmp_path / "ray"), "--ray"]) == 0
    assert ray.is_initialized()
    _same_build(alone.folder, tmp_path / "ray")


@needs_ray
def test_an_actor_that_cannot_open_the_source_fails_the_build_with_its_error(
        engine: RayEngine, tmp_path: Path) -> None:
    """The error a worker process would raise, raised by the build on Ray as it is."""
    graph = tmp_path / "g.ttl"
    shutil.copy(DEMO, graph)
    with RdfFileSource([graph]) as source:
        source.in_process = False  # not served: the actors open the files
        graph.unlink()  # and find none
        with pytest.raises(SourceError, match=r"RDF file not found: .*g\.ttl"):
            build_folder(source, tmp_path / "out", chunk_size=100, engine=engine)


def _parent(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rindex(")") + 2:].split()[1])


def _actor_pids() -> list[int]:
    """The build actors of this test's own cluster (descendants of this process: the
    cluster ray.init started here is its child), never another session's."""
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            if not (entry.name.isdigit() and (entry / "cmdline").read_bytes().startswith(
                    b"ray::_BuildActor")):
                continue
            pid = int(entry.name)
            while pid > 1 and pid != os.getpid():
                pid = _parent(pid)
            if pid == os.getpid():
                pids.append(int(entry.name))
        except (OSError, ValueError):
            continue
    return pids


@needs_ray
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the actors in /proc")
def test_a_killed_actor_is_a_worker_error(engine: RayEngine, tmp_path: Path) -> None:
    killed: list[int] = []

    def kill_actors(done: int, total: int) -> None:
        if not killed:
            for pid in _actor_pids():
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

    with RdfFileSource([DEMO]) as source, pytest.raises(WorkerError, match="--resume"):
        build_folder(source, tmp_path / "out", chunk_size=20, engine=engine,
                     on_chunk=kill_actors)
    assert killed


def test_without_ray_the_error_says_how_to_install_it(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # what an absent package raises
    with pytest.raises(CrmError, match=r"pip install 'llama-index-crm\[ray\]'"):
        CrmGraphIndex.build([str(DEMO)], tmp_path / "i", ray=True)
    assert not (tmp_path / "i").exists()
    assert cli_main(["build", str(DEMO), "--out", str(tmp_path / "c"), "--ray", "-q"]) == 1
    assert "crm-rag: error: Building on Ray needs Ray, which is not installed: pip install " \
        "'llama-index-crm[ray]'" in capsys.readouterr().err
    assert not (tmp_path / "c").exists()
