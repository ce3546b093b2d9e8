"""Server-sent events: an answer streamed as the LLM writes it.

The stages are those of :meth:`CrmQueryPipeline.run
<llama_index_crm.query.engine.CrmQueryPipeline.run>` (exact answer, plan, retrieval), then
the LLM's reply arrives in ``delta`` events, and a final ``answer`` event carries the whole
answer as ``/api/ask`` returns it. Without an LLM the answer is one ``delta``. A failure
ends the stream with an ``error`` event.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from llama_index.core.schema import MetadataMode

from llama_index_crm.query.engine import CrmAnswer, CrmQueryPipeline

logger = logging.getLogger(__name__)


def sse(event: str, data: dict[str, Any]) -> str:
    """One server-sent event (JSON data on one line).

    >>> sse("delta", {"text": "a\\nb"})
    'event: delta\\ndata: {"text": "a\\\\nb"}\\n\\n'
    """
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def answer_events(pipeline: CrmQueryPipeline, question: str,
                  history: Sequence[tuple[str, str]],
                  view: Callable[[CrmAnswer], dict[str, Any]],
                  on_done: Callable[[CrmAnswer], None] | None = None) -> Iterator[str]:
    """The events of one answer.

    Args:
        pipeline: the dataset's query pipeline (its LLM, if any, streams the answer).
        question: as asked.
        history: earlier ``(question, answer)`` turns of the conversation.
        view: the answer → its JSON (``/api/ask``'s shape).
        on_done: called with the complete answer (a chat session records the turn).
    """
    try:
        started = time.perf_counter()
        exact = pipeline.exact_answer(question, history)
        plan = pipeline.retrieval_plan(question, history, exact)
        nodes = pipeline.retrieve(plan)
        yield sse("status", {"status": exact.status})
        count = exact.count if exact.status != "retrieval_only" else None
        llm = pipeline.llm
        if llm is None:
            text, count = pipeline.answer_nodes(plan, nodes, question, history, exact)
            yield sse("delta", {"text": text})
        else:
            messages = pipeline.llm_messages(plan, nodes, question, history,
                                             exact.context_block())
            parts: list[str] = []
            for chunk in llm.stream_chat(messages):
                if chunk.delta:
                    parts.append(chunk.delta)
                    yield sse("delta", {"text": chunk.delta})
            text = "".join(parts).strip()
        context = "\n\n".join(n.node.get_content(metadata_mode=MetadataMode.LLM)
                              for n in nodes)
        if exact.status != "retrieval_only":
            context = f"{exact.context_block()}\n\n{context}"
        sources = {str(n.node.metadata.get("uri", n.node.node_id)):
                   [(str(t[0]), str(t[1]), str(t[2])) for t in n.node.metadata.get("triples", ())]
                   for n in nodes}
        answer = CrmAnswer(question, plan, nodes, context, text, count, sources,
                           time.perf_counter() - started, exact.status, exact)
        if on_done is not None:
            on_done(answer)
        yield sse("answer", view(answer))
    except Exception:  # noqa: BLE001 - the stream has started: say so in it, log the cause
        logger.exception("streaming the answer to %r failed", question)
        yield sse("error", {"detail": "The answer could not be completed (see the server log)."})
