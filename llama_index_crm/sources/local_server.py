"""A SPARQL server of RDF files on a free port of 127.0.0.1, for tests and benchmarks.

:class:`LocalServer` runs one server process in its own session (a Ctrl-C of the terminal
reaches only the caller, which then stops it), waits until it answers ``ASK {}``, and stops
it with SIGTERM, then SIGKILL. Subclasses say how to load the files and how to serve them:
:class:`~llama_index_crm.sources.oxigraph_server.OxigraphServer` (``oxigraph load`` then
``oxigraph serve``) and :class:`~llama_index_crm.sources.virtuoso_server.VirtuosoServer`
(``virtuoso-t``, then ``isql-vt`` bulk loading). Nothing here is used when a graph is built
or queried; only the standard library is imported.

>>> [str(p) for p in loadable_files([Path("graph.ttl")], Path("unused"))]
['graph.ttl']
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import socket
import subprocess
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
"""Default time a server may take to answer its first query."""
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

_TCP_LISTEN = "0A"
"""The state of a listening socket in ``/proc/net/tcp``."""
_VM_HWM = re.compile(r"^VmHWM:\s+(\d+) kB", re.MULTILINE)


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


def system_ports() -> bool:
    """Whether a server may be told to listen on port 0 (the system picks a free one, with no
    window for another process to take it) and its port read back (:func:`listening_port`):
    where ``/proc`` lists the sockets (Linux)."""
    return Path("/proc/self/net/tcp").is_file() and Path("/proc/self/fd").is_dir()


def listening_port(pid: int) -> int | None:
    """The TCP port the process ``pid`` listens on, from ``/proc`` (Linux).

    Args:
        pid: A running process.

    Returns:
        The port of its listening IPv4 socket, or ``None`` while it has none (or when the
        process is gone).
    """
    try:
        inodes = set()
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue  # closed meanwhile
            if target.startswith("socket:["):
                inodes.add(target[len("socket:["):-1])
        table = Path(f"/proc/{pid}/net/tcp").read_text().splitlines()[1:]
    except OSError:
        return None
    for line in table:
        fields = line.split()
        if len(fields) > 9 and fields[3] == _TCP_LISTEN and fields[9] in inodes:
            return int(fields[1].rsplit(":", 1)[1], 16)
    return None


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
    """The name a server's loader reads like the file source does (``.n3`` as Turtle)."""
    return name[:-3] + ".ttl" if name.lower().endswith(".n3") else name


def loadable_files(files: Sequence[Path], workdir: Path) -> list[Path]:
    """``files`` as plain RDF files a server's loader reads by extension.

    Archives are unpacked (``.zip`` members, ``.gz``) into ``workdir``; ``.n3`` files are
    named ``.ttl`` there (through a link), since the file source reads them as Turtle or
    N-Triples (the American Art Collaborative dumps are N-Triples named ``.n3``). Other
    files are returned as they are.

    Args:
        files: RDF files or archives.
        workdir: Where unpacked and renamed files go (a subfolder per input).

    Returns:
        The files to load, in the order of ``files``.
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


class LocalServer:
    """A SPARQL server process serving RDF files; a context manager (see the module notes).

    :meth:`start` (or entering the ``with`` block) calls :meth:`_before_serve`, starts the
    command of :meth:`_command` with its output in :attr:`log_path`, waits until
    :attr:`url` answers, then calls :meth:`_after_serve`. :meth:`stop` (or leaving the block)
    stops it.

    Attributes:
        files: The RDF files or archives served.
        workdir: The folder of the database, the log and the unpacked files.
        binary: The server's executable.
        log_path: The server's output.
        unpack_seconds: Time spent unpacking the files, once started.
        load_seconds: Time spent loading them, once started.
    """

    name = "server"
    """What the server is called in messages."""

    def __init__(self, files: Sequence[Path], workdir: Path, binary: str, *,
                 startup_timeout_s: float = STARTUP_TIMEOUT_S,
                 load_timeout_s: float | None = None) -> None:
        self.files = tuple(Path(f) for f in files)
        self.workdir = Path(workdir)
        self.binary = binary
        self.startup_timeout_s = startup_timeout_s
        self.load_timeout_s = load_timeout_s
        self.log_path = self.workdir / "serve.log"
        self.unpack_seconds = 0.0
        self.load_seconds = 0.0
        self._process: subprocess.Popen[bytes] | None = None
        self._url: str | None = None

    # -- what subclasses say -----------------------------------------------------------
    def _command(self) -> tuple[list[str], str]:
        """The command that serves, and the query URL it will answer at."""
        raise NotImplementedError

    def _before_serve(self) -> None:
        """Work done before the server starts (e.g. loading a database offline)."""

    def _after_serve(self) -> None:
        """Work done once the server answers (e.g. loading through it)."""

    # -- running -----------------------------------------------------------------------
    @property
    def process(self) -> subprocess.Popen[bytes]:
        """The running server process.

        Raises:
            RuntimeError: The server was not started.
        """
        if self._process is None:
            raise RuntimeError(f"the {self.name} server was not started")
        return self._process

    @property
    def url(self) -> str:
        """The SPARQL query URL.

        Raises:
            RuntimeError: The server was not started.
        """
        if self._url is None:
            raise RuntimeError(f"the {self.name} server was not started")
        return self._url

    def unpack(self, into: Path, files: Sequence[Path] | None = None) -> list[Path]:
        """``files`` (default: :attr:`files`) as plain RDF files in ``into``
        (:func:`loadable_files`); the time it takes adds to :attr:`unpack_seconds`."""
        started = time.perf_counter()
        inputs = loadable_files(self.files if files is None else files, into)
        self.unpack_seconds = round(self.unpack_seconds + time.perf_counter() - started, 2)
        return inputs

    def start(self) -> LocalServer:
        """Load the files and serve them; return once the server answers.

        Raises:
            RuntimeError: The server did not answer within ``startup_timeout_s`` (it is
                stopped; the message names the log file), or loading failed.
            subprocess.SubprocessError: A loading command failed or ran over its time limit.
        """
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._before_serve()
        command, url = self._command()
        with self.log_path.open("wb") as log:
            self._process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                             start_new_session=True, cwd=self.workdir)
        try:
            deadline = time.monotonic() + self.startup_timeout_s
            if urllib.parse.urlsplit(url).port == 0:  # the system picks: read it back
                while (port := listening_port(self._process.pid)) is None:
                    if self._process.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError(f"{self.name} did not start; see {self.log_path}")
                    time.sleep(POLL_INTERVAL_S)
                url = url.replace(f"{HOST}:0/", f"{HOST}:{port}/", 1)
            self._url = url
            while not answers(url):
                if self._process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{self.name} did not start; see {self.log_path}")
                time.sleep(POLL_INTERVAL_S)
            self._after_serve()
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

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
