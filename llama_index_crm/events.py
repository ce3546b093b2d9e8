"""Instrumentation events: every retrieval stage reports its candidates and scores.

Attach a handler to LlamaIndex's root dispatcher to watch them, e.g. in a notebook::

    from llama_index.core.instrumentation import get_dispatcher
    from llama_index.core.instrumentation.event_handlers import BaseEventHandler

    class Show(BaseEventHandler):
        def handle(self, event, **kwargs):
            if isinstance(event, StageCandidatesEvent):
                print(event.stage, event.candidates[:5])

    get_dispatcher().add_event_handler(Show())
"""

from __future__ import annotations

from collections.abc import Iterable

from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.events import BaseEvent
from llama_index.core.schema import NodeWithScore

dispatcher = get_dispatcher(__name__)


class StageCandidatesEvent(BaseEvent):
    """The candidates one stage produced, best first.

    Attributes:
        stage: ``dense``, ``bm25``, ``names``, ``hybrid``, ``category``, ``graph``,
            ``pool``, ``coherent`` or ``context``.
        query: the retrieval query.
        candidates: ``(uri, label, score)`` per candidate.
        details: stage-specific figures (weights, pool quotas, parameters).
    """

    stage: str
    query: str
    candidates: list[tuple[str, str, float]]
    details: dict[str, object] = {}

    @classmethod
    def class_name(cls) -> str:
        """Name of the event class."""
        return "StageCandidatesEvent"


def emit(stage: str, query: str, nodes: Iterable[NodeWithScore],
         **details: object) -> None:
    """Report the candidates of ``stage`` to every instrumentation handler."""
    candidates = [
        (str(n.node.metadata.get("uri", n.node.node_id)), str(n.node.metadata.get("label", "")),
         float(n.score or 0.0))
        for n in nodes
    ]
    dispatcher.event(StageCandidatesEvent(stage=stage, query=query, candidates=candidates,
                                          details=dict(details)))
