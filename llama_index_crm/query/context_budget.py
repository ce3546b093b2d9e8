"""The answer writer's messages fitted to an LLM's window.

:func:`fit_messages` keeps the most relevant context documents whose messages fit in a
number of characters (:meth:`~llama_index_crm.llm_calls.LLMClient.prompt_chars`): the
least relevant (lowest score, then latest in the context) are dropped first, with their
fact lines and paths; the kept ones stay in their context order. The exact answer and its
evidence, the system prompt, the conversation and the question are never cut. When not even
the best document fits whole, its text is cut at a line (its first lines: the name, makers,
dates and places, then the first facts).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.schema import NodeWithScore

from llama_index_crm.llm_window import message_chars

__all__ = ["Fitted", "fit_messages"]

Render = Callable[[Sequence[NodeWithScore]], list[ChatMessage]]
"""The messages of a context made of these documents."""
MIN_CUT = 200
"""Characters of a cut document below which it is left out instead."""


@dataclass(frozen=True, slots=True)
class Fitted:
    """Messages fitted to a budget.

    Attributes:
        messages: what to send.
        kept: the documents in them (the last one cut when :attr:`cut`).
        total: the documents there were.
        chars: the messages' characters.
        budget: the characters allowed.
        cut: the last kept document's text was cut.
    """

    messages: list[ChatMessage]
    kept: int
    total: int
    chars: int
    budget: int
    cut: bool = False

    @property
    def trimmed(self) -> bool:
        """Something of the context was left out."""
        return self.kept < self.total or self.cut

    @property
    def fits(self) -> bool:
        """The messages are within the budget (else not even the exact part fits)."""
        return self.chars <= self.budget


def _relevance_order(nodes: Sequence[NodeWithScore]) -> list[int]:
    """Positions of the nodes, most relevant first: by score, then context order."""
    return sorted(range(len(nodes)), key=lambda i: (-float(nodes[i].score or 0.0), i))


def _cut(node: NodeWithScore, chars: int) -> NodeWithScore:
    """The node with its text cut to at most ``chars`` characters, at a line's end."""
    text = node.node.get_content()
    head = text[:chars]
    if len(text) > chars and "\n" in head:
        head = head[:head.rindex("\n")]
    copy = node.node.model_copy()
    copy.set_content(head)
    return NodeWithScore(node=copy, score=node.score)


def fit_messages(render: Render, nodes: Sequence[NodeWithScore], budget: int) -> Fitted:
    """The messages of the most relevant documents that fit in ``budget`` characters.

    Args:
        render: the messages of a context made of the given documents (in their order).
        nodes: the final context, in its order.
        budget: the characters the messages may hold.
    """
    full = render(nodes)
    size = message_chars(full)
    if size <= budget:
        return Fitted(full, len(nodes), len(nodes), size, budget)
    order = _relevance_order(nodes)

    def keep(k: int) -> list[NodeWithScore]:
        return [nodes[i] for i in sorted(order[:k])]

    low, high = 0, len(nodes) - 1  # the most documents that fit: in [low, high]
    best = render(keep(0))
    best_size = message_chars(best)
    if best_size > budget:  # not even the exact part, the prompts and the question
        return Fitted(best, 0, len(nodes), best_size, budget)
    while low < high:
        mid = (low + high + 1) // 2
        messages = render(keep(mid))
        chars = message_chars(messages)
        if chars <= budget:
            low, best, best_size = mid, messages, chars
        else:
            high = mid - 1
    if low == 0 and nodes:  # the best document alone is too long: its first lines
        top = nodes[order[0]]
        room = budget - best_size
        for share in (1.0, 0.8, 0.6, 0.4, 0.2):
            chars = int(room * share)
            if chars < MIN_CUT:
                break
            messages = render([_cut(top, chars)])
            size = message_chars(messages)
            if size <= budget:
                return Fitted(messages, 1, len(nodes), size, budget, cut=True)
    return Fitted(best, low, len(nodes), best_size, budget)
