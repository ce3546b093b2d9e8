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

import gzip
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Sequence
from pathlib import Path

HOST = "127.0.0.1"
"""The address every server is bound to."""
STARTUP_TIMEOUT_S = 30.0
"""Default time ``oxigraph serve`` may take to answer its first query."""
STOP_GRACE_S = 10.0
"""Seconds between SIGTERM and SIGKILL when a server is stopped."""
POLL_INTERVAL_S = 0.05
"""Pause between two probes of a starting server."""
PROBE_TIMEOUT_S = 1.0
"""Time limit of one ``ASK {}`` probe."""
PROBE_QUERY = "ASK { }"
"""The query a server must answer to count as started."""
KB_PER_MB = 1024
"""``/proc/<pid>/status`` counts kB."""
NOT_INSTALLED = "the oxigraph CLI (pip install oxigraph) is not installed"
"""The message of the error raised when no ``oxigraph`` binary is found."""

_VM_HWM = re.compile(r"^VmHWM:\s+(\d+) kB", re.MULTILINE)


def oxigraph_binary() -> str | None:
    """The ``oxigraph`` CLI next to the interpreter, else on PATH.

    Returns:
        The path of the binary, or ``None`` when it is not installed.
    """
    beside = Path(sys.executable).parent / "oxigraph"
    if beside.is_file():
        return str(beside)
    return shutil.which("oxigraph")


def free_port(host: str = HOST) -> int:
    """A TCP port of ``host`` free right now.

    Args:
        host: The address to find a port on.

    Returns:
        The port number (another process may take it before it is used).
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def answers(url: str, timeout_s: float = PROBE_TIMEOUT_S) -> bool:
    """Whether the SPARQL endpoint at ``url`` answers ``ASK {}``.

    Args:
        url: The query URL of the endpoint.
        timeout_s: Time limit of the request.

    Returns:
        ``True`` when the endpoint answered with status 200.
    """
    query = urllib.parse.urlencode({"query": PROBE_QUERY})
    try:
        with urllib.request.urlopen(f"{url}?{query}", timeout=timeout_s) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def _loadable_name(name: str) -> str:
    """The name ``oxigraph load`` reads like the file source does (``.n3`` as Turtle)."""
    return name[:-3] + ".ttl" if name.lower().endswith(".n3") else name


def loadable_files(files: Sequence[Path], workdir: Path) -> list[Path]:
    """``files`` as plain RDF files ``oxigraph load`` reads by extension.

    Archives are unpacked (``.zip`` members, ``.gz``) into ``workdir``; ``.n3`` files are
    named ``.ttl`` there (through a link), since the file source reads them as Turtle (the
    American Art Collaborative dumps are N-Triples named ``.n3``). Other files are returned
    as they are.

    Args:
        files: RDF files or archives.
        workdir: Where unpacked and renamed files go (a subfolder per input).

    Returns:
        The files to give ``oxigraph load``, in the order of ``files``.
    """
    out: list[Path] = []
    for index, path in enumerate(files):
        suffix = path.suffix.lower()
        if suffix not in (".zip", ".gz", ".n3"):
            out.append(path)
            continue
        target_dir = workdir / f"{index:02d}"
        target_dir.mkdir(parents=True, exist_ok=True)
        if suffix == ".zip":
            with zipfile.ZipFile(path) as archive:
                for member in archive.infolist():
                    if member.is_dir():
                        continue
                    target = target_dir / _loadable_name(Path(member.filename).name)
                    with archive.open(member) as src, target.open("wb") as dst:
                        shutil.copyfileobj(src, dst)
                    out.append(target)
        elif suffix == ".gz":
            target = target_dir / _loadable_name(path.stem)
            with gzip.open(path, "rb") as src, target.open("wb") as dst:
                shutil.copyfileobj(src, dst)
            out.append(target)
        else:
            target = target_dir / _loadable_name(path.name)
            target.symlink_to(path.resolve())
            out.append(target)
    return out


class OxigraphServer:
    """An ``oxigraph serve`` of RDF files on a free port of 127.0.0.1; a context manager.

    :meth:`start` (or entering the ``with`` block) unpacks the files (:func:`loadable_files`)
    into ``workdir/unpacked``, loads them into a new database ``workdir/db`` and serves it,
    with its output in ``workdir/serve.log``, until it answers. :meth:`stop` (or leaving the
    block) stops it. The server runs in its own session, so that a Ctrl-C of the terminal
    reaches only the caller, which then stops it.

    >>> with OxigraphServer([Path("graph.ttl")], Path("work")) as server:  # doctest: +SKIP
    ...     SparqlEndpointSource(server.url).entities()

    Attributes:
        files: The RDF files or archives served.
        workdir: The folder of the database, the log and the unpacked files.
        binary: The ``oxigraph`` CLI.
        location: The database folder (``workdir/db``; left in place on exit).
        log_path: The output of ``oxigraph serve``.
        unpack_seconds: Time spent unpacking the files, once started.
        load_seconds: Time of ``oxigraph load``, once started.
    """

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
        self.files = tuple(Path(f) for f in files)
        self.workdir = Path(workdir)
        self.binary = found
        self.startup_timeout_s = startup_timeout_s
        self.load_timeout_s = load_timeout_s
        self.location = self.workdir / "db"
        self.log_path = self.workdir / "serve.log"
        self.unpack_seconds = 0.0
        self.load_seconds = 0.0
        self._process: subprocess.Popen[bytes] | None = None
        self._url: str | None = None

    @property
    def process(self) -> subprocess.Popen[bytes]:
        """The running ``oxigraph serve`` process.

        Raises:
            RuntimeError: The server was not started.
        """
        if self._process is None:
            raise RuntimeError("the oxigraph server was not started")
        return self._process

    @property
    def url(self) -> str:
        """The SPARQL query URL (``http://127.0.0.1:<port>/query``).

        Raises:
            RuntimeError: The server was not started.
        """
        if self._url is None:
            raise RuntimeError("the oxigraph server was not started")
        return self._url

    def start(self) -> OxigraphServer:
        """Load the files into a new database, serve it and wait until it answers.

        Returns:
            This server, started.

        Raises:
            subprocess.CalledProcessError: ``oxigraph load`` failed (its ``stderr`` says why).
            subprocess.TimeoutExpired: ``oxigraph load`` ran over ``load_timeout_s``.
            RuntimeError: The server did not answer within ``startup_timeout_s`` (it is
                stopped; the message names the log file).
        """
        self.workdir.mkdir(parents=True, exist_ok=True)
        unpacked_dir = self.workdir / "unpacked"
        started = time.perf_counter()
        inputs = loadable_files(self.files, unpacked_dir)
        unpacked = time.perf_counter()
        subprocess.run(
            [self.binary, "load", "--location", str(self.location), "--file", *map(str, inputs)],
            check=True, capture_output=True, timeout=self.load_timeout_s,
        )
        loaded = time.perf_counter()
        shutil.rmtree(unpacked_dir, ignore_errors=True)
        self.unpack_seconds = round(unpacked - started, 2)
        self.load_seconds = round(loaded - unpacked, 2)
        port = free_port()
        with self.log_path.open("wb") as log:
            process = subprocess.Popen(
                [self.binary, "serve", "--location", str(self.location),
                 "--bind", f"{HOST}:{port}", "--union-default-graph"],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )
        self._process = process
        self._url = f"http://{HOST}:{port}/query"
        try:
            deadline = time.monotonic() + self.startup_timeout_s
            while not answers(self._url):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"oxigraph serve did not start; see {self.log_path}")
                time.sleep(POLL_INTERVAL_S)
        except BaseException:  # not started, or interrupted: the server must not linger
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Stop the server: SIGTERM, then SIGKILL after :data:`STOP_GRACE_S`."""
        process = self._process
        if process is None:
            return
        process.terminate()
        try:
            process.wait(timeout=STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def peak_rss_mb(self) -> float:
        """The server's peak resident memory so far (``VmHWM``), in MB; 0 when unknown."""
        if self._process is None:
            return 0.0
        try:
            status = Path(f"/proc/{self._process.pid}/status").read_text()
        except OSError:
            return 0.0
        match = _VM_HWM.search(status)
        return round(int(match.group(1)) / KB_PER_MB, 1) if match else 0.0

    def __enter__(self) -> OxigraphServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
