"""``GraphPostprocessor``: what the graph postprocessors share as LlamaIndex components.

Their options are pydantic fields and an unknown keyword argument is an error (not silently
dropped); their async path runs the numpy work in a worker thread, so an event loop keeps
running while a context is built.
"""

from __future__ import annotations

import asyncio
from typing import Any

from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import NodeWithScore, QueryBundle

__all__ = ["GraphPostprocessor"]


class GraphPostprocessor(BaseNodePostprocessor):
    """A node postprocessor with checked options and an off-loop async path.

    Args:
        **params: the subclass's pydantic fields.

    Raises:
        TypeError: for a keyword that is not one of the fields.
    """

    def __init__(self, **params: Any) -> None:
        unknown = sorted(set(params) - set(type(self).model_fields))
        if unknown:
            raise TypeError(f"{type(self).__name__} got unknown parameters {unknown}")
        super().__init__(**params)

    async def _apostprocess_nodes(
        self,
        nodes: list[NodeWithScore],
        query_bundle: QueryBundle | None = None,
    ) -> list[NodeWithScore]:
        """:meth:`_postprocess_nodes` in a worker thread."""
        return await asyncio.to_thread(self._postprocess_nodes, nodes, query_bundle)
