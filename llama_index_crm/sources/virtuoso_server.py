"""A local OpenLink Virtuoso SPARQL endpoint over RDF files, for tests and benchmarks.

The Debian package ``virtuoso-opensource-7-bin`` (``make virtuoso`` installs it) holds the
server ``virtuoso-t`` and its SQL client ``isql-vt``, and nothing else: this module writes a
``virtuoso.ini`` into a fresh folder (a new database, the SQL and HTTP ports on free ports of
127.0.0.1, no cap on result rows), starts ``virtuoso-t +foreground``, and loads the files the
way Virtuoso's documentation says: ``ld_add`` per file into one named graph, then
``rdf_loader_run()`` and ``checkpoint``. The SPARQL endpoint is ``/sparql``; ``/sparql-auth``
asks for HTTP digest authentication (user ``dba``, password ``dba`` in a fresh database).
Nothing here is used when a graph is built or queried; only the standard library is
imported.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from llama_index_crm.sources.local_server import HOST, LocalServer, free_port

__all__ = ["DBA", "NOT_INSTALLED", "VirtuosoServer", "virtuoso_binaries"]

NOT_INSTALLED = ("virtuoso-t and isql-vt are not installed: run `make virtuoso` (apt-get "
                 "install virtuoso-opensource-7-bin)")
"""The message of the error raised (and the reason tests skip) without Virtuoso."""
DBA = ("dba", "dba")
"""The administrator of a fresh Virtuoso database (also a user of ``/sparql-auth``)."""
STARTUP_TIMEOUT_S = 120.0
"""A fresh database is created on the first start: allow for a slow disk."""
TEST_BUFFERS = 20_000
"""8 kB pages of cache: 160 MB, plenty for the demo graph and the datasets of ../shared."""
ISQL_TIMEOUT_S = 30.0
"""Time limit of one ``isql-vt`` command other than the load."""
UNCAPPED_ROWS = 100_000_000
"""``ResultSetMaxRows`` high enough that no answer is cut (a default install has 10,000)."""

_INI = """\
[Database]
DatabaseFile = {db}/virtuoso.db
ErrorLogFile = {db}/virtuoso.log
LockFile = {db}/virtuoso.lck
TransactionFile = {db}/virtuoso.trx
xa_persistent_file = {db}/virtuoso.pxa
ErrorLogLevel = 7
FileExtend = 200
MaxCheckpointRemap = 2000
Striping = 0
TempStorage = TempDatabase

[TempDatabase]
DatabaseFile = {db}/virtuoso-temp.db
TransactionFile = {db}/virtuoso-temp.trx
MaxCheckpointRemap = 2000
Striping = 0

[Parameters]
ServerPort = {host}:{sql_port}
DirsAllowed = ., {data}
NumberOfBuffers = {buffers}
MaxDirtyBuffers = {dirty}
CheckpointInterval = 60
ServerThreads = 10
CaseMode = 2

[HTTPServer]
ServerPort = {host}:{http_port}
ServerRoot = {db}
ServerThreads = 10
MaxClientConnections = 10
KeepAliveTimeout = 10

[SPARQL]
ResultSetMaxRows = {max_rows}
MaxQueryCostEstimationTime = 0
MaxQueryExecutionTime = 0
"""

_ROWS = re.compile(r"^(\d+) Rows\.", re.MULTILINE)


def virtuoso_binaries() -> tuple[str, str] | None:
    """``(virtuoso-t, isql-vt)`` on PATH, or ``None`` when either is missing."""
    server, isql = shutil.which("virtuoso-t"), shutil.which("isql-vt")
    return (server, isql) if server and isql else None


class VirtuosoServer(LocalServer):
    """``virtuoso-t`` serving RDF files in one named graph on a free port; a context manager.

    >>> with VirtuosoServer([Path("graph.ttl")], Path("work"), "http://ex/g") as server:  # doctest: +SKIP
    ...     SparqlEndpointSource(server.url, graphs=["http://ex/g"]).entities()

    Attributes:
        graph: The named graph the files are loaded into.
        isql: The ``isql-vt`` client.
        db: The database folder (``workdir/db``).
        auth_url: The endpoint that asks for digest authentication (:data:`DBA`).
    """  # noqa: E501

    name = "virtuoso-t"

    def __init__(self, files: Sequence[Path], workdir: Path, graph: str, *,
                 buffers: int = TEST_BUFFERS, max_rows: int = UNCAPPED_ROWS,
                 startup_timeout_s: float = STARTUP_TIMEOUT_S,
                 load_timeout_s: float | None = None) -> None:
        """Prepare a server (nothing runs yet).

        Args:
            files: RDF files or archives to serve (see
                :func:`~llama_index_crm.sources.local_server.loadable_files`).
            workdir: A folder for the database, the log and the unpacked files.
            graph: The IRI of the named graph to load them into.
            buffers: ``NumberOfBuffers`` (8 kB pages of cache); Virtuoso's documentation
                advises 170,000 for 2 GB of memory.
            max_rows: ``ResultSetMaxRows``: Virtuoso cuts longer answers at this many rows.
            startup_timeout_s: How long the server may take to answer its first query.
            load_timeout_s: Time limit of the load (``None``: no limit).

        Raises:
            RuntimeError: Virtuoso is not installed (:data:`NOT_INSTALLED`).
        """
        found = virtuoso_binaries()
        if found is None:
            raise RuntimeError(NOT_INSTALLED)
        super().__init__(files, workdir, found[0], startup_timeout_s=startup_timeout_s,
                         load_timeout_s=load_timeout_s)
        self.isql = found[1]
        self.graph = graph
        self.buffers = buffers
        self.max_rows = max_rows
        self.db = self.workdir / "db"
        self._data = self.workdir / "data"
        self._sql_port = 0
        self.auth_url = ""

    def _command(self) -> tuple[list[str], str]:
        self.db.mkdir(parents=True, exist_ok=True)
        self._data.mkdir(parents=True, exist_ok=True)
        self._sql_port, http_port = free_port(), free_port()
        ini = self.workdir / "virtuoso.ini"
        ini.write_text(_INI.format(db=self.db, data=self._data, host=HOST,
                                   sql_port=self._sql_port, http_port=http_port,
                                   buffers=self.buffers, dirty=self.buffers * 3 // 4,
                                   max_rows=self.max_rows))
        self.auth_url = f"http://{HOST}:{http_port}/sparql-auth"
        return ([self.binary, "+foreground", "+configfile", str(ini)],
                f"http://{HOST}:{http_port}/sparql")

    def sql(self, statements: str, timeout_s: float | None = ISQL_TIMEOUT_S) -> str:
        """Run SQL ``statements`` with ``isql-vt`` as :data:`DBA`; their output.

        Raises:
            subprocess.CalledProcessError: ``isql-vt`` failed.
            subprocess.TimeoutExpired: It ran over ``timeout_s``.
        """
        done = subprocess.run(
            [self.isql, f"{HOST}:{self._sql_port}", *DBA, f"exec={statements}"],
            check=True, capture_output=True, text=True, timeout=timeout_s)
        return done.stdout

    def _after_serve(self) -> None:
        """Bulk-load the files into :attr:`graph`."""
        self.load_seconds = self.load(self.files, self.graph)

    def load(self, files: Sequence[Path], graph: str) -> float:
        """Bulk-load more files into the named graph ``graph``; the seconds it took.

        Raises:
            RuntimeError: Virtuoso could not load a file (the message quotes its error).
        """
        into = self._data / f"{len(list(self._data.iterdir())):03d}"
        into.mkdir(parents=True)
        inputs = self.unpack(into, files)
        started = time.perf_counter()
        adds = []
        for index, path in enumerate(inputs):
            link = into / f"link-{index:03d}-{path.name}"
            link.symlink_to(path.resolve())
            adds.append(f"ld_add('{link}', '{graph}');")
        self.sql(" ".join([*adds, "rdf_loader_run();", "checkpoint;"]),
                 timeout_s=self.load_timeout_s)
        failed = self.sql("select ll_file, ll_error from DB.DBA.load_list "
                          "where ll_error is not null;")
        match = _ROWS.search(failed)
        if match is None or int(match.group(1)):
            raise RuntimeError(f"Virtuoso could not load the files:\n{failed}")
        return round(time.perf_counter() - started, 2)

    def __enter__(self) -> VirtuosoServer:
        self.start()
        return self
