"""Errors cross process boundaries: a worker's error reaches the user as one line, the same
as with one worker; a worker that dies is said so."""

from __future__ import annotations

import importlib
import inspect
import itertools
import logging
import multiprocessing
import pickle
import pkgutil
import shutil
import subprocess
import sys
import typing
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import DEMO, Refusal

import llama_index_crm
from llama_index_crm.build.folder import build_folder
from llama_index_crm.errors import CrmError, SourceError, WorkerError
from llama_index_crm.llm_window import ContextRefusal
from llama_index_crm.sources import RdfFileSource, SparqlEndpointSource

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_ARGUMENTS: dict[type, object] = {str: "what went wrong, and what to do", int: 503,
                                        ContextRefusal: ContextRefusal(8192, 11909)}
"""A value for each parameter type of an error's ``__init__``."""


def _error_classes() -> list[type[CrmError]]:
    """Every :class:`CrmError` subclass of the package (all modules imported first)."""
    for module in pkgutil.walk_packages(llama_index_crm.__path__, "llama_index_crm."):
        importlib.import_module(module.name)
    found: list[type[CrmError]] = []
    todo: list[type[CrmError]] = [CrmError]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


def test_every_error_class_pickles() -> None:
    classes = _error_classes()
    assert {"SourceError", "HttpStatusError", "WorkerError", "EmptyGraphError"} <= {
        c.__name__ for c in classes}
    for cls in classes:
        hints = typing.get_type_hints(cls.__init__)
        params = list(inspect.signature(cls.__init__).parameters.values())[1:]
        arguments = [SAMPLE_ARGUMENTS[hints[p.name]] for p in params
                     if p.kind is p.POSITIONAL_OR_KEYWORD] or [SAMPLE_ARGUMENTS[str]]
        error = cls(*arguments)
        copy = pickle.loads(pickle.dumps(error))
        assert type(copy) is cls and str(copy) == str(error), cls
        assert vars(copy) == vars(error), cls


def _quota(allowed: int) -> Refusal:
    """Answer the first ``allowed`` requests, refuse the next ones with 403, as a
    rate-limited public endpoint does."""
    count = itertools.count()

    def refuse(query: str) -> tuple[int, bytes] | None:
        return (403, b"Quota exceeded for this key\n") if next(count) >= allowed else None

    return refuse


PARENT_REQUESTS = 3
"""What the main process asks before any chunk: the server probe, the subjects, the schema
subjects. Every later request comes from the chunk loop (a worker, with ``--workers 2``)."""


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_worker_error_is_the_same_one_line(
    refusing_proxy: Callable[[Path, Refusal], str], tmp_path: Path, workers: str
) -> None:
    url = refusing_proxy(DEMO, _quota(PARENT_REQUESTS))
    done = subprocess.run(
        [sys.executable, "-m", "llama_index_crm.cli", "build", "--endpoint", url, "--out",
         str(tmp_path / "out"), "--no-embed", "-q", "--workers", workers, "--chunk-size", "100",
         "--timeout", "10"],
        capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"crm-rag: error: SPARQL endpoint {url} answered HTTP 403: Quota exceeded for this key "
        "(check the credentials)."], done.stderr
    assert not (tmp_path / "out").exists()


def test_a_worker_that_cannot_open_the_source_fails_the_build_with_its_error(
    tmp_path: Path,
) -> None:
    graph = tmp_path / "g.ttl"
    shutil.copy(DEMO, graph)
    with RdfFileSource([graph]) as source:
        source.in_process = False  # not served: workers open the files
        graph.unlink()  # the workers open the files again, and find none
        with pytest.raises(SourceError, match=r"RDF file not found: .*g\.ttl"):
            build_folder(source, tmp_path / "out", chunk_size=100, workers=2)


def test_a_killed_worker_is_a_worker_error(tmp_path: Path) -> None:
    """The workers are killed once, at the first chunk done. Chunks finished before are
    still reported, and killing again then raced the pool's own thread, which reaps the
    dead workers: ``os.kill`` of a reaped worker raised ``ProcessLookupError`` (1 run in 20,
    loaded), and could have hit an unrelated process given its number. ``Process.kill``
    skips a worker already reaped."""
    killed: list[multiprocessing.process.BaseProcess] = []

    def kill_workers(done: int, total: int) -> None:
        if killed:
            return
        for child in multiprocessing.active_children():
            child.kill()
            killed.append(child)

    with RdfFileSource([DEMO]) as source, pytest.raises(WorkerError, match="--resume"):
        build_folder(source, tmp_path / "out", chunk_size=20, workers=2, on_chunk=kill_workers)
    assert killed


def test_fr_queries_the_server_refuses_are_walked_with_one_warning(
    refusing_proxy: Callable[[Path, Refusal], str], tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A server that rejects the FR path queries (HTTP 500, as Virtuoso rejects transitive
    steps it cannot bind) still gives the documents of the files: those FRs are walked."""
    def refuse_paths(query: str) -> tuple[int, bytes] | None:
        return (500, b"Error TR...: transitive start not given\n") if "?start" in query else None

    with RdfFileSource([DEMO]) as files:
        expected, _ = build_folder(files, tmp_path / "files")
    source = SparqlEndpointSource(refusing_proxy(DEMO, refuse_paths), retries=0)
    with caplog.at_level(logging.WARNING):
        docs, _ = build_folder(source, tmp_path / "endpoint", chunk_size=100, fr_paths="sparql")
    assert [(d.uri, d.text) for d in docs] == [(d.uri, d.text) for d in expected]
    walked = [r.message for r in caplog.records if "rejected the FR path queries" in r.message]
    assert len(walked) == 1 and "transitive start not given" in walked[0]
