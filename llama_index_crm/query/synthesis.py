"""A standard LlamaIndex query engine over the pipeline's parts.

:func:`make_query_engine` returns a stock ``RetrieverQueryEngine``: the conversation-aware
candidate pool as its retriever, the coherent-subgraph, triple-context and source-path
postprocessors, and :class:`CrmResponseSynthesizer`, which answers from the final nodes
the way :meth:`CrmQueryPipeline.run` does (the LLM with the prompts of ``config/prompts``
when there is one, else the structured answer). ``aquery`` runs every stage off the event
loop.

>>> engine = index.as_query_engine()                              # doctest: +SKIP
>>> response = engine.query("Which churches are in Nicosia District?")  # doctest: +SKIP
>>> response.source_nodes[0].node.metadata["fr_paths"]           # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from llama_index.core.callbacks import CallbackManager
from llama_index.core.indices.prompt_helper import ChatPromptHelper, PromptHelper
from llama_index.core.llms import LLM, MockLLM
from llama_index.core.prompts.mixin import PromptDictType
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.response_synthesizers.base import BaseSynthesizer, QueryTextType
from llama_index.core.schema import NodeWithScore
from llama_index.core.types import RESPONSE_TEXT_TYPE

from llama_index_crm.query.engine import CrmQueryPipeline

if TYPE_CHECKING:
    from llama_index.core.base.response.schema import RESPONSE_TYPE

    from llama_index_crm.graph.data import GraphData

__all__ = ["NOTHING_FOUND", "CrmResponseSynthesizer", "make_query_engine"]

NOTHING_FOUND = "Nothing in the graph matches this question."
"""The answer when no document is left in the context."""
_NODES = "crm_context_nodes"
"""Keyword under which :meth:`CrmResponseSynthesizer.synthesize` hands the nodes on."""


class CrmResponseSynthesizer(BaseSynthesizer):
    """Answers from the final context nodes, as :meth:`CrmQueryPipeline.run` does.

    Args:
        pipeline: the pipeline whose analyzer, prompts and LLM (if any) answer.
        callback_manager: LlamaIndex callbacks (none by default).
    """

    def __init__(self, pipeline: CrmQueryPipeline,
                 callback_manager: CallbackManager | None = None) -> None:
        # the base class reads Settings.llm when no LLM is given: a placeholder that is
        # never called stands in for "no LLM" (answers are then structured)
        llm: LLM = pipeline.llm or MockLLM()
        super().__init__(llm=llm, callback_manager=callback_manager or CallbackManager([]),
                         prompt_helper=PromptHelper.from_llm_metadata(llm.metadata),
                         chat_prompt_helper=ChatPromptHelper.from_llm_metadata(llm.metadata),
                         empty_response=NOTHING_FOUND)
        self.pipeline = pipeline

    def _get_prompts(self) -> PromptDictType:
        return {}

    def _update_prompts(self, prompts_dict: PromptDictType) -> None:
        """The prompts are a :class:`~.prompts.PromptSet` (``config/prompts``)."""

    def synthesize(self, query: QueryTextType, nodes: list[NodeWithScore],
                   additional_source_nodes: Sequence[NodeWithScore] | None = None,
                   **response_kwargs: Any) -> RESPONSE_TYPE:
        """The base synthesis, handing the nodes themselves (not only their text) on."""
        return super().synthesize(query, nodes, additional_source_nodes,
                                  **{_NODES: nodes, **response_kwargs})

    async def asynthesize(self, query: QueryTextType, nodes: list[NodeWithScore],
                          additional_source_nodes: Sequence[NodeWithScore] | None = None,
                          **response_kwargs: Any) -> RESPONSE_TYPE:
        """:meth:`synthesize`, awaited."""
        return await super().asynthesize(query, nodes, additional_source_nodes,
                                         **{_NODES: nodes, **response_kwargs})

    def get_response(self, query_str: str, text_chunks: Sequence[str],
                     **response_kwargs: Any) -> RESPONSE_TEXT_TYPE:
        """The answer to ``query_str`` from the nodes :meth:`synthesize` handed on."""
        nodes: list[NodeWithScore] = list(response_kwargs.get(_NODES) or ())
        plan = self.pipeline.analyzer.plan_for(query_str)
        return self.pipeline.answer_nodes(plan, nodes, query_str)[0]

    async def aget_response(self, query_str: str, text_chunks: Sequence[str],
                            **response_kwargs: Any) -> RESPONSE_TEXT_TYPE:
        """:meth:`get_response` in a worker thread."""
        return await asyncio.to_thread(self.get_response, query_str, text_chunks,
                                       **response_kwargs)


def make_query_engine(index: GraphData, llm: LLM | None = None,
                      **pipeline_kwargs: Any) -> RetrieverQueryEngine:
    """A ``RetrieverQueryEngine`` over the parts of :class:`CrmQueryPipeline`.

    Args:
        index: the loaded index.
        llm: any LlamaIndex LLM, or None to answer from documents and triples.
        **pipeline_kwargs: options of :class:`CrmQueryPipeline` (``prompts``, ...).
    """
    pipeline = CrmQueryPipeline(index, llm=llm, **pipeline_kwargs)
    return RetrieverQueryEngine(retriever=pipeline.conversation,
                                response_synthesizer=CrmResponseSynthesizer(pipeline),
                                node_postprocessors=pipeline.postprocessors)
