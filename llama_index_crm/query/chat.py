"""Chat engines over a :class:`~llama_index_crm.graph.data.GraphData`.

* With an LLM: LlamaIndex's standard ``CondensePlusContextChatEngine`` — the LLM condenses
  a follow-up into a standalone question, the candidate-pool retriever and the two
  postprocessors build the context, the LLM answers.
* Without one: :class:`CrmChatEngine`, a ``BaseChatEngine`` whose answers are counted,
  listed or quoted from the documents and triples, and whose follow-ups are
  contextualised by rules ("Who made it?" after "Tell me about <title>").
"""

from __future__ import annotations

import asyncio
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from llama_index.core.base.llms.types import ChatMessage, ChatResponse, MessageRole
from llama_index.core.chat_engine import CondensePlusContextChatEngine
from llama_index.core.chat_engine.types import (
    AgentChatResponse,
    BaseChatEngine,
    StreamingAgentChatResponse,
)
from llama_index.core.llms import LLM

from llama_index_crm.query.engine import CrmAnswer, CrmQueryPipeline

if TYPE_CHECKING:
    from llama_index_crm.graph.data import GraphData

SYSTEM_PROMPT = (
    "You are a curator's assistant for a cultural-heritage collection described in "
    "CIDOC-CRM. Answer from the context only: entity documents (one per artwork, person, "
    "place or event) and facts written as 'subject → relation → object'. Name items by "
    "their titles or names; for 'how many' questions give the number first; say so when "
    "the context does not hold the answer."
)


class CrmChatEngine(BaseChatEngine):
    """A chat engine that needs no LLM: answers come from documents and triples.

    Args:
        pipeline: the query pipeline (retrieval, re-ranking, context, answer).
    """

    def __init__(self, pipeline: CrmQueryPipeline) -> None:
        self.pipeline = pipeline
        self._turns: list[tuple[str, str]] = []
        self._messages: list[ChatMessage] = []
        self.last: CrmAnswer | None = None

    def _answer(self, message: str) -> CrmAnswer:
        answer = self.pipeline.run(message, self._turns)
        top = answer.nodes[0].node.metadata.get("label", "") if answer.nodes else ""
        self._turns.append((message, str(top)))
        self._messages += [ChatMessage(role=MessageRole.USER, content=message),
                           ChatMessage(role=MessageRole.ASSISTANT, content=answer.answer)]
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
            metadata={"count": answer.count, "plan": answer.plan, "sources": answer.sources},
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
        self._turns.clear()
        self._messages.clear()
        self.last = None

    @property
    def chat_history(self) -> list[ChatMessage]:
        """The conversation as chat messages."""
        return list(self._messages)

    def _adopt(self, history: list[ChatMessage]) -> None:
        self.reset()
        question: str | None = None
        for msg in history:
            if msg.role == MessageRole.USER:
                question = str(msg.content or "")
            elif msg.role == MessageRole.ASSISTANT and question is not None:
                self._turns.append((question, str(msg.content or "")[:100]))
                question = None
        self._messages = list(history)


def make_chat_engine(index: GraphData, llm: LLM | None = None,
                     **pipeline_kwargs: Any) -> BaseChatEngine:
    """The chat engine of an index: LLM-backed when ``llm`` is given, else CrmChatEngine."""
    pipeline = CrmQueryPipeline(index, **pipeline_kwargs)
    if llm is None:
        return CrmChatEngine(pipeline)
    return CondensePlusContextChatEngine.from_defaults(
        retriever=pipeline.retriever, llm=llm, system_prompt=SYSTEM_PROMPT,
        node_postprocessors=[pipeline.coherent, pipeline.context_builder],
    )
