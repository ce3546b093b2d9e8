"""Shared test fixtures: the ``../shared`` datasets and a real Oxigraph SPARQL server."""

from __future__ import annotations

import gzip
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
"""The sibling folder holding the datasets (``../shared/datasets/...``)."""

requires_shared = pytest.mark.skipif(
    not (SHARED / "datasets").is_dir(), reason=f"{SHARED}/datasets not present"
)

_STARTUP_S = 30.0


def _oxigraph_binary() -> str | None:
    """The ``oxigraph`` CLI next to the interpreter, else on PATH."""
    beside = Path(sys.executable).parent / "oxigraph"
    if beside.is_file():
        return str(beside)
    return shutil.which("oxigraph")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answers(url: str) -> bool:
    query = urllib.parse.urlencode({"query": "ASK { }"})
    try:
        with urllib.request.urlopen(f"{url}?{query}", timeout=1) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def _loadable(path: Path, workdir: Path) -> Path:
    """``path`` in a form ``oxigraph load`` reads by extension (``.gz`` decompressed)."""
    if path.suffix != ".gz":
        return path
    target = workdir / path.stem
    with gzip.open(path, "rb") as src, target.open("wb") as dst:
        shutil.copyfileobj(src, dst)
    return target


@pytest.fixture(scope="session")
def serve_graph(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[Path], str]]:
    """A factory: ``serve_graph(path) -> query URL`` of an ``oxigraph serve`` holding ``path``.

    Each distinct file is loaded (``oxigraph load``) into its own database and served on its
    own free port of 127.0.0.1, with ``--union-default-graph`` so that named graphs read like
    the file source reads them. Servers are reused within the session and stopped at its end.
    Skips the test when the ``oxigraph`` CLI is not installed.
    """
    binary = _oxigraph_binary()
    servers: dict[Path, tuple[subprocess.Popen[bytes], str]] = {}
    logs: list[IO[bytes]] = []

    def serve(path: Path) -> str:
        if binary is None:
            pytest.skip("the oxigraph CLI (pip install oxigraph) is not installed")
        path = Path(path).resolve()
        if path in servers:
            return servers[path][1]
        workdir = tmp_path_factory.mktemp("oxigraph")
        location = workdir / "db"
        load = [binary, "load", "--location", str(location), "--file"]
        subprocess.run([*load, str(_loadable(path, workdir))], check=True, capture_output=True)
        port = _free_port()
        log = (workdir / "serve.log").open("wb")
        logs.append(log)
        process = subprocess.Popen(
            [binary, "serve", "--location", str(location), "--bind", f"127.0.0.1:{port}"]
            + ["--union-default-graph"],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}/query"
        servers[path] = (process, url)
        deadline = time.monotonic() + _STARTUP_S
        while not _answers(url):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"oxigraph serve did not start; see {workdir / 'serve.log'}")
            time.sleep(0.05)
        return url

    yield serve
    for process, _ in servers.values():
        process.terminate()
    for process, _ in servers.values():
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    for log in logs:
        log.close()


@pytest.fixture(scope="session")
def oxigraph_server(serve_graph: Callable[[Path], str]) -> Callable[[Path], str]:
    """Alias of :func:`serve_graph` under the name the design notes use."""
    return serve_graph
