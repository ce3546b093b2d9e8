"""Errors cross process boundaries: a worker's error reaches the user as one line, the same
as with one worker; a worker that dies is said so."""

from __future__ import annotations

import http.server
import importlib
import inspect
import multiprocessing
import os
import pickle
import pkgutil
import shutil
import signal
import subprocess
import sys
import threading
import typing
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import DEMO

import llama_index_crm
from llama_index_crm.build.folder import build_folder
from llama_index_crm.errors import CrmError, SourceError, WorkerError
from llama_index_crm.sources import RdfFileSource

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_ARGUMENTS: dict[type, object] = {str: "what went wrong, and what to do", int: 503}
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


class _QuotaProxy(http.server.BaseHTTPRequestHandler):
    """Forwards requests to a real endpoint, until ``allowed`` runs out: then 403."""

    target = ""
    allowed = 0
    lock = threading.Lock()

    def _forward(self, body: bytes | None) -> None:
        with self.lock:
            type(self).allowed -= 1
            refused = type(self).allowed < 0
        if refused:
            payload = b"Quota exceeded for this key\n"
            self.send_response(403)
            self.send_header("Content-Type", "text/plain")
        else:
            request = urllib.request.Request(self.target + self.path[len("/query"):],
                                             data=body, headers=dict(self.headers))
            try:
                with urllib.request.urlopen(request, timeout=30) as answer:
                    payload, status, kind = answer.read(), answer.status, answer.headers
            except urllib.error.HTTPError as exc:
                payload, status, kind = exc.read(), exc.code, exc.headers
            self.send_response(status)
            self.send_header("Content-Type", kind.get("Content-Type", "text/plain"))
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self._forward(None)

    def do_POST(self) -> None:  # noqa: N802
        self._forward(self.rfile.read(int(self.headers.get("Content-Length", 0))))

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Silence the request log."""


@pytest.fixture()
def quota_proxy(serve_graph: Callable[[Path], str]) -> Iterator[Callable[[int], str]]:
    """``proxy(n)``: a URL in front of ``oxigraph serve`` (the demo graph) that answers the
    first ``n`` requests and refuses the next ones with 403, as a rate-limited public
    endpoint does."""
    servers: list[http.server.ThreadingHTTPServer] = []

    def start(allowed: int) -> str:
        handler = type("Proxy", (_QuotaProxy,), {"target": serve_graph(DEMO),
                                                 "allowed": allowed})
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/query"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


PARENT_REQUESTS = 3
"""What the main process asks before any chunk: the server probe, the subjects, the schema
subjects. Every later request comes from the chunk loop (a worker, with ``--workers 2``)."""


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_worker_error_is_the_same_one_line(quota_proxy: Callable[[int], str],
                                             tmp_path: Path, workers: str) -> None:
    url = quota_proxy(PARENT_REQUESTS)
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
        graph.unlink()  # the workers open the files again, and find none
        with pytest.raises(SourceError, match=r"RDF file not found: .*g\.ttl"):
            build_folder(source, tmp_path / "out", chunk_size=100, workers=2)


def test_a_killed_worker_is_a_worker_error(tmp_path: Path) -> None:
    def kill_workers(done: int, total: int) -> None:
        for child in multiprocessing.active_children():
            os.kill(child.pid, signal.SIGKILL)  # type: ignore[arg-type]

    with RdfFileSource([DEMO]) as source, pytest.raises(WorkerError, match="--resume"):
        build_folder(source, tmp_path / "out", chunk_size=20, workers=2, on_chunk=kill_workers)
