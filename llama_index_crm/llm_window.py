"""How much an LLM can read: its context window, a prompt's rough size in tokens, and the
window a server states when it refuses a request for its length.

A window is known from, in this order of trust (the smallest known one is used):

* the server's model list (``GET …/models``, asked before the first request): vLLM states
  ``max_model_len``;
* the server's own refusal of a request that was too long (HTTP 400 "This model's maximum
  context length is 8192 tokens. However, you requested 12677 tokens (11909 in the
  messages, 768 in the completion)": OpenAI, vLLM, llama-cpp-python; llama.cpp's own
  server says ``n_ctx``);
* an explicit setting: ``LLMLimits(context_window=N)``, ``crm-rag … --llm-context N``, or
  the LLM's own ``context_window`` field when it was set (``OpenAILike(context_window=N)``);
* LlamaIndex's ``LLMMetadata.context_window`` when it is more than its placeholder default
  (OpenAI's models, whose windows LlamaIndex knows by name).

Tokens are counted roughly: characters / :data:`CHARS_PER_TOKEN` (3; the package's
contexts of labels, IRIs and arrows ran 3.36 characters a token with SmolLM2's tokenizer,
English prose about 4), or the ratio a server's refusal measured (its token count of the
characters sent), and only :data:`FILL` of the room is filled.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.constants import DEFAULT_CONTEXT_WINDOW

__all__ = ["CHARS_PER_TOKEN", "FILL", "ContextRefusal", "completion_tokens",
           "known_context_window", "message_chars", "parse_context_refusal", "prompt_chars",
           "served_window"]

CHARS_PER_TOKEN = 3.0
"""Characters a token, rough and on the safe side, when no server has measured it."""
FILL = 0.9
"""The share of the prompt's room filled: the rest is the estimate's margin."""
MESSAGE_OVERHEAD_TOKENS = 8
"""Tokens a chat template adds around each message."""
COMPLETION_SHARE = 4
"""A completion takes at most a window's quarter (a small window keeps room to read)."""

_WINDOW = re.compile(r"maximum context length is\s+(\d[\d,]*)\s+tokens", re.I)
_PROMPT_TOKENS = (
    re.compile(r"(\d[\d,]*)\s+in the messages", re.I),  # OpenAI (older), vLLM, llama-cpp-python
    re.compile(r"your messages resulted in\s+(\d[\d,]*)\s+tokens", re.I),  # OpenAI
    re.compile(r"your request has\s+(\d[\d,]*)\s+input tokens", re.I),  # vLLM (newer)
    re.compile(r"(?:prompt|input) (?:has|contains|of)\s+(\d[\d,]*)\s+tokens", re.I),
)


@dataclass(frozen=True, slots=True)
class ContextRefusal:
    """A server's refusal of a request longer than its model's window.

    Attributes:
        window: the model's context window in tokens, as the server states it.
        prompt_tokens: the tokens the server counted in the request's messages, when said.
    """

    window: int
    prompt_tokens: int | None = None


def _int(text: str) -> int:
    return int(text.replace(",", ""))


def parse_context_refusal(message: str, body: Any = None) -> ContextRefusal | None:
    """The window a refusal states, None when it is not about the context's length.

    >>> parse_context_refusal("This model's maximum context length is 8192 tokens. However, "
    ...     "you requested 12677 tokens (11909 in the messages, 768 in the completion).")
    ContextRefusal(window=8192, prompt_tokens=11909)
    >>> parse_context_refusal("", {"type": "exceed_context_size_error", "n_ctx": 4096,
    ...                            "n_prompt_tokens": 5000})
    ContextRefusal(window=4096, prompt_tokens=5000)
    >>> parse_context_refusal("tools are not supported") is None
    True
    """
    if isinstance(body, Mapping) and isinstance(body.get("n_ctx"), int) and body["n_ctx"] > 0:
        prompt = body.get("n_prompt_tokens")  # llama.cpp's own server
        return ContextRefusal(int(body["n_ctx"]), prompt if isinstance(prompt, int) else None)
    found = _WINDOW.search(message or "")
    if found is None or _int(found.group(1)) <= 0:
        return None
    for pattern in _PROMPT_TOKENS:
        said = pattern.search(message)
        if said is not None:
            return ContextRefusal(_int(found.group(1)), _int(said.group(1)))
    return ContextRefusal(_int(found.group(1)))


SERVED_WINDOW_KEYS = ("max_model_len", "context_length", "max_context_length",
                      "context_window")
"""Keys under which a server's model list states a model's window (vLLM, OpenRouter and
LM Studio, others)."""


def served_window(listing: bytes | str, model: str) -> int | None:
    """The window a server's ``GET /models`` states for ``model`` (vLLM: ``max_model_len``),
    None when it states none (OpenAI, llama-cpp-python) or the reply is not a list.

    >>> served_window(b'{"data": [{"id": "m", "max_model_len": 4096}]}', "m")
    4096
    >>> served_window(b'{"data": [{"id": "other", "max_model_len": 4096}]}', "m") is None
    True
    """
    import json

    try:
        data = json.loads(listing or b"null")
    except ValueError:
        return None
    entries = data.get("data") if isinstance(data, dict) else None
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, dict) and entry.get("id") == model:
            for key in SERVED_WINDOW_KEYS:
                value = entry.get(key)
                if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                    return value
    return None


def known_context_window(llm: Any) -> int | None:
    """The LLM's context window when it is known, not LlamaIndex's placeholder: its
    ``context_window`` field when set, else its metadata's when it differs from the
    default (OpenAI's models by name). None: unknown."""
    fields = getattr(llm, "model_fields_set", None) or set()
    value = getattr(llm, "context_window", None)
    if "context_window" in fields and isinstance(value, int) and value > 0:
        return value
    try:
        window = llm.metadata.context_window
    except Exception:  # noqa: BLE001 - an LLM whose metadata needs what is not there
        return None
    if isinstance(window, int) and window > 0 and window != DEFAULT_CONTEXT_WINDOW:
        return window
    return None


def completion_tokens(window: int | None, wanted: int) -> int:
    """The completion's ``max_tokens`` in a window: ``wanted``, at most a quarter of it.

    >>> completion_tokens(8192, 768), completion_tokens(2048, 768), completion_tokens(None, 768)
    (768, 512, 768)
    """
    return wanted if window is None else max(16, min(wanted, window // COMPLETION_SHARE))


def message_chars(messages: Sequence[ChatMessage]) -> int:
    """The characters of the messages' text."""
    return sum(len(m.content or "") for m in messages)


def prompt_chars(window: int, completion_tokens: int, chars_per_token: float,
                 messages: int = 2) -> int:
    """The characters ``messages`` messages may hold beside a completion of
    ``completion_tokens`` in a window of ``window`` tokens.

    >>> prompt_chars(8192, 768, 3.0)
    20001
    """
    room = window - completion_tokens - messages * MESSAGE_OVERHEAD_TOKENS
    return max(0, int(room * FILL * chars_per_token))
