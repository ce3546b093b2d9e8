"""Shared test fixtures: the ``../shared`` datasets, real SPARQL servers (``oxigraph serve``,
and Virtuoso when ``virtuoso-t`` is installed: ``make virtuoso``), and the demo graph's index
built once per session for the query-side tests that only read it."""

from __future__ import annotations

import http.server
import os
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.instrumentation.events import BaseEvent

from llama_index_crm.encoders import CACHE_ENV_VAR
from llama_index_crm.events import StageCandidatesEvent
from llama_index_crm.index import CrmGraphIndex
from llama_index_crm.sources.oxigraph_server import NOT_INSTALLED, OxigraphServer, oxigraph_binary
from llama_index_crm.sources.virtuoso_server import NOT_INSTALLED as NO_VIRTUOSO
from llama_index_crm.sources.virtuoso_server import VirtuosoServer, virtuoso_binaries

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
"""The sibling folder holding the datasets (``../shared/datasets/...``)."""

DEMO = Path(__file__).resolve().parents[1] / "examples" / "data" / "troodos.ttl"
"""The bundled demo graph."""
DEMO_GRAPH = DEMO
"""The bundled demo graph (the name the query-side tests use)."""
DEMO_GRAPH_IRI = "https://example.org/troodos/graph"
"""The named graph the demo is loaded into on Virtuoso."""

def pytest_terminal_summary(terminalreporter: Any, exitstatus: int,
                            config: pytest.Config) -> None:
    """The random order's seed (``pytest-randomly``) at the end, where ``-q`` still shows
    it: ``-p randomly --randomly-seed=N`` runs the same order again (``tests/README.md``)."""
    if config.pluginmanager.hasplugin("randomly") and config.getoption("randomly_seed", None):
        terminalreporter.write_line(
            f"random order: replay with -p randomly --randomly-seed="
            f"{config.getoption('randomly_seed')}")


requires_shared = pytest.mark.skipif(
    not (SHARED / "datasets").is_dir(), reason=f"{SHARED}/datasets not present"
)


@pytest.fixture(scope="session")
def serve_graph(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[Path], str]]:
    """A factory: ``serve_graph(path) -> query URL`` of an ``oxigraph serve`` holding ``path``.

    Each distinct file is loaded (``oxigraph load``) into its own database and served on its
    own free port of 127.0.0.1, with ``--union-default-graph`` so that named graphs read like
    the file source reads them (:class:`OxigraphServer`). Servers are reused within the
    session and stopped at its end. Skips the test when the ``oxigraph`` CLI is not installed.
    """
    binary = oxigraph_binary()
    servers: dict[Path, OxigraphServer] = {}

    with ExitStack() as stack:

        def serve(path: Path) -> str:
            if binary is None:
                pytest.skip(NOT_INSTALLED)
            path = Path(path).resolve()
            if path not in servers:
                workdir = tmp_path_factory.mktemp("oxigraph")
                server = OxigraphServer([path], workdir, binary=binary)
                servers[path] = stack.enter_context(server)
            return servers[path].url

        yield serve


TEST_CACHE_ENV_VAR = "CRM_TEST_EMBED_CACHE"
"""An embedding cache the demo index may reuse across sessions (``benchmarks/mutation.py``
sets it: one pytest session per mutant); by default every session embeds afresh."""


@pytest.fixture(scope="session", autouse=True)
def models_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One cache folder for the session (``$LLAMA_INDEX_CRM_CACHE``, inherited by the CLI's
    subprocesses): the default backend's ONNX export is made once, there, from the bundled
    weights, and no test reads or writes ``~/.cache`` (with ``CRM_TEST_EMBED_CACHE`` set,
    the export is kept there across sessions)."""
    shared = os.environ.get(TEST_CACHE_ENV_VAR)
    folder = Path(shared) / "crm-cache" if shared else tmp_path_factory.mktemp("crm-cache")
    old = os.environ.get(CACHE_ENV_VAR)
    os.environ[CACHE_ENV_VAR] = str(folder)
    try:
        yield folder
    finally:
        if old is None:
            os.environ.pop(CACHE_ENV_VAR, None)
        else:
            os.environ[CACHE_ENV_VAR] = old


@pytest.fixture(scope="session")
def exhibitions_index(tmp_path_factory: pytest.TempPathFactory,
                      models_cache: Path) -> CrmGraphIndex:
    """``tests/data/exhibitions.ttl`` (a small exhibition history in the Linked Art
    pattern) built once; tests must not modify it."""
    folder = tmp_path_factory.mktemp("exhibitions")
    return CrmGraphIndex.build([str(Path(__file__).parent / "data" / "exhibitions.ttl")],
                               folder / "index", cache_dir=folder / "cache")


@pytest.fixture(scope="session")
def demo_index(tmp_path_factory: pytest.TempPathFactory, models_cache: Path) -> CrmGraphIndex:
    """The Troodos demo graph built (and embedded, default backend) once; tests must not
    modify it."""
    cache = os.environ.get(TEST_CACHE_ENV_VAR)
    return CrmGraphIndex.build([str(DEMO_GRAPH)], tmp_path_factory.mktemp("demo") / "troodos",
                               cache_dir=Path(cache) if cache else
                               tmp_path_factory.mktemp("demo-cache"))


@contextmanager
def _recorded() -> Iterator[list[StageCandidatesEvent]]:
    seen: list[StageCandidatesEvent] = []

    class Recorder(BaseEventHandler):
        @classmethod
        def class_name(cls) -> str:
            return "TestStageRecorder"

        def handle(self, event: BaseEvent, **kwargs: Any) -> None:
            if isinstance(event, StageCandidatesEvent):
                seen.append(event)

    root = get_dispatcher()
    handler = Recorder()
    root.add_event_handler(handler)
    try:
        yield seen
    finally:
        root.event_handlers.remove(handler)


@pytest.fixture
def record_stages() -> Callable[[], AbstractContextManager[list[StageCandidatesEvent]]]:
    """``with record_stages() as events:``: the stage events emitted inside the block."""
    return _recorded


@pytest.fixture(scope="session")
def virtuoso(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VirtuosoServer]:
    """A Virtuoso (``virtuoso-t``) on free ports of 127.0.0.1 with the demo graph loaded into
    :data:`DEMO_GRAPH_IRI`, in a fresh database; stopped at the end of the session. Skips the
    test when Virtuoso is not installed (``make virtuoso`` installs it)."""
    if virtuoso_binaries() is None:
        pytest.skip(NO_VIRTUOSO)
    with VirtuosoServer([DEMO], tmp_path_factory.mktemp("virtuoso"), DEMO_GRAPH_IRI) as server:
        yield server


Refusal = Callable[[str], "tuple[int, bytes] | None"]
"""Given a request's query, the (status, body) to refuse it with, or ``None`` to pass it."""


class _RefusingProxy(http.server.BaseHTTPRequestHandler):
    """Passes requests to a real endpoint, except those ``refuse`` refuses."""

    target = ""
    refuse: Refusal = staticmethod(lambda query: None)
    lock = threading.Lock()

    def _forward(self, body: bytes | None) -> None:
        params = body.decode() if body is not None else urllib.parse.urlsplit(self.path).query
        query = urllib.parse.parse_qs(params).get("query", [""])[0]
        with self.lock:
            refused = type(self).refuse(query)
        if refused is not None:
            status, payload = refused
            kind = "text/plain"
        else:
            request = urllib.request.Request(self.target + self.path[len("/query"):],
                                             data=body, headers=dict(self.headers))
            try:
                with urllib.request.urlopen(request, timeout=30) as answer:
                    payload, status = answer.read(), answer.status
                    kind = answer.headers.get("Content-Type", "text/plain")
            except urllib.error.HTTPError as exc:
                payload, status = exc.read(), exc.code
                kind = exc.headers.get("Content-Type", "text/plain")
        self.send_response(status)
        self.send_header("Content-Type", kind)
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
def refusing_proxy(
    serve_graph: Callable[[Path], str],
) -> Iterator[Callable[[Path, Refusal], str]]:
    """``proxy(graph, refuse)``: a query URL in front of ``oxigraph serve`` holding ``graph``
    that passes every request to it, except those ``refuse`` answers for (a rate limit, a
    server that rejects a kind of query)."""
    servers: list[http.server.ThreadingHTTPServer] = []

    def start(graph: Path, refuse: Refusal) -> str:
        handler = type("Proxy", (_RefusingProxy,), {"target": serve_graph(graph),
                                                    "refuse": staticmethod(refuse)})
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/query"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def hostile_image() -> Iterator[tuple[str, list[str]]]:
    """``(url, requested paths)`` of the PNG the hostile graph gives as its work's image."""
    from serving import image_server

    with image_server() as served:
        yield served


@pytest.fixture(scope="session")
def hostile_index(tmp_path_factory: pytest.TempPathFactory, models_cache: Path,
                  hostile_image: tuple[str, list[str]]) -> CrmGraphIndex:
    """A tiny graph whose labels hold ``<script>`` and ``<img onerror>`` (tests/serving.py),
    built once; its work's P138 image is :func:`hostile_image`."""
    from serving import write_hostile_graph

    folder = tmp_path_factory.mktemp("hostile")
    graph = write_hostile_graph(folder / "hostile.ttl", hostile_image[0])
    return CrmGraphIndex.build([str(graph)], folder / "index", cache_dir=folder / "cache")


@pytest.fixture(scope="session")
def served(demo_index: CrmGraphIndex, hostile_index: CrmGraphIndex) -> Iterator[str]:
    """The base URL of ``create_app({"troodos": demo, "hostile": hostile})`` under uvicorn
    on a free port of 127.0.0.1 (skips without the serve extra)."""
    pytest.importorskip("fastapi", reason="the serve extra (FastAPI) is not installed")
    pytest.importorskip("uvicorn", reason="the serve extra (uvicorn) is not installed")
    from serving import live_server

    from llama_index_crm.server import create_app

    app = create_app({"troodos": demo_index, "hostile": hostile_index},
                     examples={"troodos": (DEMO.parent / "troodos_questions.txt")
                               .read_text().splitlines()})
    with live_server(app) as url:
        yield url
