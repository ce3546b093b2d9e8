"""Shared test fixtures: the ``../shared`` datasets, a real Oxigraph SPARQL server, and the
demo graph's index built once per session for the query-side tests that only read it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.instrumentation.events import BaseEvent

from llama_index_crm.events import StageCandidatesEvent
from llama_index_crm.index import CrmGraphIndex
from llama_index_crm.sources.oxigraph_server import NOT_INSTALLED, OxigraphServer, oxigraph_binary

DEMO_GRAPH = Path(__file__).resolve().parents[1] / "examples" / "data" / "troodos.ttl"
SHARED = Path(__file__).resolve().parents[1].parent / "shared"
"""The sibling folder holding the datasets (``../shared/datasets/...``)."""

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
def demo_index(tmp_path_factory: pytest.TempPathFactory) -> CrmGraphIndex:
    """The Troodos demo graph built (and embedded) once; tests must not modify it."""
    return CrmGraphIndex.build([str(DEMO_GRAPH)], tmp_path_factory.mktemp("demo") / "troodos",
                               cache_dir=tmp_path_factory.mktemp("demo-cache"))


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
