"""A local ``oxigraph serve`` SPARQL endpoint over RDF files, for tests and benchmarks.

The ``oxigraph`` command-line server (the ``oxigraph`` PyPI package, a development
dependency) loads the files into a fresh database (``oxigraph load``) and serves it on a free
port of 127.0.0.1 (``oxigraph serve --union-default-graph``, so that named graphs read like
:class:`~llama_index_crm.sources.RdfFileSource` reads them). Nothing here is used when a graph
is built or queried; only the standard library is imported.

>>> from llama_index_crm.sources.oxigraph_server import loadable_files
>>> from pathlib import Path
>>> [str(p) for p in loadable_files([Path("graph.ttl")], Path("unused"))]
['graph.ttl']
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from llama_index_crm.sources.local_server import (
    HOST,
    STARTUP_TIMEOUT_S,
    LocalServer,
    answers,
    free_port,
    loadable_files,
    system_ports,
)

__all__ = ["NOT_INSTALLED", "OxigraphServer", "answers", "free_port", "loadable_files",
           "oxigraph_binary"]

NOT_INSTALLED = "the oxigraph CLI (pip install oxigraph) is not installed"
"""The message of the error raised when no ``oxigraph`` binary is found."""


def oxigraph_binary() -> str | None:
    """The ``oxigraph`` CLI next to the interpreter, else on PATH.

    Returns:
        The path of the binary, or ``None`` when it is not installed.
    """
    beside = Path(sys.executable).parent / "oxigraph"
    if beside.is_file():
        return str(beside)
    return shutil.which("oxigraph")


class OxigraphServer(LocalServer):
    """An ``oxigraph serve`` of RDF files on a free port of 127.0.0.1; a context manager.

    :meth:`start` (or entering the ``with`` block) unpacks the files (:func:`loadable_files`)
    into ``workdir/unpacked``, loads them into a new database ``workdir/db`` and serves it,
    with its output in ``workdir/serve.log``, until it answers. :meth:`stop` (or leaving the
    block) stops it.

    >>> with OxigraphServer([Path("graph.ttl")], Path("work")) as server:  # doctest: +SKIP
    ...     SparqlEndpointSource(server.url).entities()

    Attributes:
        location: The database folder (``workdir/db``; left in place on exit).
    """

    name = "oxigraph serve"

    def __init__(
        self,
        files: Sequence[Path],
        workdir: Path,
        *,
        binary: str | None = None,
        startup_timeout_s: float = STARTUP_TIMEOUT_S,
        load_timeout_s: float | None = None,
    ) -> None:
        """Prepare a server (nothing runs yet).

        Args:
            files: RDF files or archives to serve (see :func:`loadable_files`).
            workdir: A folder for the database, the log and the unpacked files (made when
                missing).
            binary: The ``oxigraph`` CLI; found with :func:`oxigraph_binary` by default.
            startup_timeout_s: How long the server may take to answer its first query.
            load_timeout_s: Time limit of ``oxigraph load`` (``None``: no limit).

        Raises:
            RuntimeError: No ``binary`` was given and the CLI is not installed.
        """
        found = binary or oxigraph_binary()
        if found is None:
            raise RuntimeError(NOT_INSTALLED)
        super().__init__(files, workdir, found, startup_timeout_s=startup_timeout_s,
                         load_timeout_s=load_timeout_s)
        self.location = self.workdir / "db"

    def _before_serve(self) -> None:
        """``oxigraph load`` of the unpacked files into a new database.

        Raises:
            subprocess.CalledProcessError: ``oxigraph load`` failed (its ``stderr`` says why).
            subprocess.TimeoutExpired: ``oxigraph load`` ran over ``load_timeout_s``.
        """
        unpacked_dir = self.workdir / "unpacked"
        inputs = self.unpack(unpacked_dir)
        started = time.perf_counter()
        subprocess.run(
            [self.binary, "load", "--location", str(self.location), "--file", *map(str, inputs)],
            check=True, capture_output=True, timeout=self.load_timeout_s,
        )
        self.load_seconds = round(time.perf_counter() - started, 2)
        shutil.rmtree(unpacked_dir, ignore_errors=True)

    def _command(self) -> tuple[list[str], str]:
        # port 0: the system picks a free port as the server binds it (read back by start())
        port = 0 if system_ports() else free_port()
        return ([self.binary, "serve", "--location", str(self.location),
                 "--bind", f"{HOST}:{port}", "--union-default-graph"],
                f"http://{HOST}:{port}/query")

    def __enter__(self) -> OxigraphServer:
        self.start()
        return self
