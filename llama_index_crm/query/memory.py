"""``ConversationMemory``: the turns of a chat, the recent ones bounded by a token budget.

Each turn keeps the question, the answer and its topic (the label of the answer's first
document). What the next question is analysed with, and what an LLM is shown as the
conversation so far, are the most recent ``(question, topic)`` turns whose tokens fit the
budget: an old subject drops out of reach instead of growing the prompt without end.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, MessageRole

__all__ = ["DEFAULT_HISTORY_TOKENS", "ChatTurn", "ConversationMemory"]

DEFAULT_HISTORY_TOKENS = 1_000
"""Tokens of earlier ``(question, topic)`` turns a question is analysed and answered with."""

Tokenizer = Callable[[str], Sequence[Any]]
"""Text → its tokens (only their number is used)."""


@dataclass(frozen=True, slots=True)
class ChatTurn:
    """One question and its answer.

    Attributes:
        question: as asked.
        answer: the answer text.
        topic: the label of the answer's first context document.
    """

    question: str
    answer: str
    topic: str


def _default_tokenizer() -> Tokenizer:
    from llama_index.core.utils import get_tokenizer

    tokenizer: Tokenizer = get_tokenizer()
    return tokenizer


class ConversationMemory:
    """The turns of one conversation (see the module).

    Args:
        token_budget: tokens of the earlier turns kept within reach.
        tokenizer: counts tokens (default: LlamaIndex's tokenizer, ``tiktoken``).
    """

    def __init__(self, token_budget: int = DEFAULT_HISTORY_TOKENS,
                 tokenizer: Tokenizer | None = None) -> None:
        self.token_budget = token_budget
        self._tokenizer = tokenizer
        self.turns: list[ChatTurn] = []

    def tokens(self, turn: ChatTurn) -> int:
        """Tokens of a turn as it is shown: its question and its topic."""
        if self._tokenizer is None:
            self._tokenizer = _default_tokenizer()
        return len(self._tokenizer(f"{turn.question} {turn.topic}"))

    def add(self, question: str, answer: str, topic: str) -> None:
        """Remember one answered question."""
        self.turns.append(ChatTurn(question, answer, topic))

    def window(self) -> list[ChatTurn]:
        """The most recent turns whose tokens fit the budget, oldest first."""
        kept: list[ChatTurn] = []
        left = self.token_budget
        for turn in reversed(self.turns):
            left -= self.tokens(turn)
            if left < 0:
                break
            kept.append(turn)
        return kept[::-1]

    def pairs(self) -> list[tuple[str, str]]:
        """:meth:`window` as ``(question, topic)`` turns, what the pipeline takes."""
        return [(t.question, t.topic) for t in self.window()]

    def messages(self) -> list[ChatMessage]:
        """Every turn as a user and an assistant message."""
        return [m for t in self.turns for m in (
            ChatMessage(role=MessageRole.USER, content=t.question),
            ChatMessage(role=MessageRole.ASSISTANT, content=t.answer))]

    def clear(self) -> None:
        """Forget every turn."""
        self.turns.clear()
