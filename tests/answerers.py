"""An exact answerer over a small test graph, built under a temporary folder (the tests of
readings, comparisons, periods and kinds share it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from llama_index_crm.exact.answerer import ExactAnswerer, answerer_for
from llama_index_crm.index import CrmGraphIndex

DATA = Path(__file__).parent / "data"


def built(factory: pytest.TempPathFactory, name: str, graph: Path,
          more: str = "") -> ExactAnswerer:
    """The answerer of ``graph`` (with the Turtle ``more`` after it), built under a new
    folder of ``factory``."""
    folder = factory.mktemp(name)
    if more:
        text = graph.read_text(encoding="utf-8") + more
        graph = folder / f"{name}.ttl"
        graph.write_text(text, encoding="utf-8")
    index = CrmGraphIndex.build([str(graph)], folder / "index", cache_dir=folder / "cache")
    return answerer_for(index)
