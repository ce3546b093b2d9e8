"""``CrmChatEngine``: a conversation over a :class:`~llama_index_crm.graph.data.GraphData`.

One engine with or without an LLM. Each turn goes through the query pipeline with the
conversation so far (:class:`~.memory.ConversationMemory`, bounded by a token budget), so
the multi-turn behaviours are the same either way: follow-ups are retrieved twice
(contextualised and as asked), vague follow-ups ("Tell me more") are led by the previous
turn's entities, pivots ("Aside from Asinou, …") leave the excluded entity out. Without an
LLM the answers are counted, listed or quoted from the documents and triples; with one,
the LLM answers from the prompts of ``config/prompts`` (:class:`~.prompts.PromptSet`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from llama_index.core.base.llms.types import ChatMessage, ChatResponse, MessageRole
from llama_index.core.chat_engine.types import (
    AgentChatResponse,
    BaseChatEngine,
    StreamingAgentChatResponse,
)
from llama_index.core.llms import LLM

from llama_index_crm.query.engine import CrmAnswer, CrmQueryPipeline
from llama_index_crm.query.memory import DEFAULT_HISTORY_TOKENS, ConversationMemory

if TYPE_CHECKING:
    from llama_index_crm.graph.data import GraphData

class CrmChatEngine(BaseChatEngine):
    """A chat engine over the query pipeline, with or without an LLM (see the module).

    Args:
        pipeline: the query pipeline (its ``llm``, if any, writes the answers).
        history_tokens: token budget of the earlier turns a question is read with.
        memory: the conversation (a new one with ``history_tokens`` when not given).
    """

    def __init__(self, pipeline: CrmQueryPipeline,
                 history_tokens: int = DEFAULT_HISTORY_TOKENS,
                 memory: ConversationMemory | None = None) -> None:
        self.pipeline = pipeline
        self.memory = memory or ConversationMemory(history_tokens)
        self.last: CrmAnswer | None = None
        """The last answer: its sources, paths and context (``/sources``, ``/context``)."""

    def _answer(self, message: str) -> CrmAnswer:
        answer = self.pipeline.run(message, self.memory.pairs())
        top = answer.nodes[0].node.metadata.get("label", "") if answer.nodes else ""
        self.memory.add(message, answer.answer, str(top))
        self.last = answer
        return answer

    def chat(self, message: str, chat_history: list[ChatMessage] | None = None,
             **kwargs: Any) -> AgentChatResponse:
        """Answer ``message`` in the conversation so far."""
        if chat_history is not None:
            self._adopt(chat_history)
        answer = self._answer(message)
        return AgentChatResponse(
            response=answer.answer, source_nodes=answer.nodes,
            metadata={"count": answer.count, "plan": answer.plan, "sources": answer.sources,
                      "source_paths": answer.source_paths},
        )

    def stream_chat(self, message: str, chat_history: list[ChatMessage] | None = None,
                    **kwargs: Any) -> StreamingAgentChatResponse:
        """As :meth:`chat`, delivered as a one-piece stream."""
        result = self.chat(message, chat_history)

        def gen() -> Generator[ChatResponse, None, None]:
            yield ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT,
                                                   content=result.response),
                               delta=result.response)

        return StreamingAgentChatResponse(chat_stream=gen(), source_nodes=result.source_nodes,
                                          is_writing_to_memory=False)

    async def achat(self, message: str, chat_history: list[ChatMessage] | None = None,
                    **kwargs: Any) -> AgentChatResponse:
        """:meth:`chat` in a worker thread."""
        return await asyncio.to_thread(self.chat, message, chat_history)

    async def astream_chat(self, message: str, chat_history: list[ChatMessage] | None = None,
                           **kwargs: Any) -> StreamingAgentChatResponse:
        """:meth:`stream_chat` in a worker thread."""
        return await asyncio.to_thread(self.stream_chat, message, chat_history)

    def reset(self) -> None:
        """Forget the conversation."""
        self.memory.clear()
        self.last = None

    @property
    def chat_history(self) -> list[ChatMessage]:
        """The conversation as chat messages."""
        return self.memory.messages()

    def _adopt(self, history: list[ChatMessage]) -> None:
        self.reset()
        question: str | None = None
        for msg in history:
            if msg.role == MessageRole.USER:
                question = str(msg.content or "")
            elif msg.role == MessageRole.ASSISTANT and question is not None:
                answer = str(msg.content or "")
                self.memory.add(question, answer, answer[:100])
                question = None


def make_chat_engine(index: GraphData, llm: LLM | None = None,
                     history_tokens: int = DEFAULT_HISTORY_TOKENS,
                     **pipeline_kwargs: Any) -> CrmChatEngine:
    """The chat engine of an index; the LLM, when given, writes the answers.

    Args:
        index: the loaded index.
        llm: any LlamaIndex LLM, or None to answer from documents and triples.
        history_tokens: token budget of the earlier turns a question is read with.
        **pipeline_kwargs: options of :class:`CrmQueryPipeline` (``prompts``, ...).
    """
    return CrmChatEngine(CrmQueryPipeline(index, llm=llm, **pipeline_kwargs), history_tokens)
