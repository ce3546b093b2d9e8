"""Shared test fixtures: the ``../shared`` datasets and real SPARQL servers (``oxigraph
serve``, and Virtuoso when ``virtuoso-t`` is installed: ``make virtuoso``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from llama_index_crm.sources.oxigraph_server import NOT_INSTALLED, OxigraphServer, oxigraph_binary
from llama_index_crm.sources.virtuoso_server import NOT_INSTALLED as NO_VIRTUOSO
from llama_index_crm.sources.virtuoso_server import VirtuosoServer, virtuoso_binaries

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
"""The sibling folder holding the datasets (``../shared/datasets/...``)."""

DEMO = Path(__file__).resolve().parents[1] / "examples" / "data" / "troodos.ttl"
"""The bundled demo graph."""
DEMO_GRAPH = "https://example.org/troodos/graph"
"""The named graph the demo is loaded into on Virtuoso."""

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


@pytest.fixture(scope="session")
def virtuoso(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VirtuosoServer]:
    """A Virtuoso (``virtuoso-t``) on free ports of 127.0.0.1 with the demo graph loaded into
    :data:`DEMO_GRAPH`, in a fresh database; stopped at the end of the session. Skips the
    test when Virtuoso is not installed (``make virtuoso`` installs it)."""
    if virtuoso_binaries() is None:
        pytest.skip(NO_VIRTUOSO)
    with VirtuosoServer([DEMO], tmp_path_factory.mktemp("virtuoso"), DEMO_GRAPH) as server:
        yield server
