"""LLMs from a short spec: ``openai:gpt-4o-mini``, ``openai:MODEL@http://host/v1`` (any
OpenAI-compatible server), ``ollama:llama3.1``. Nothing is contacted until a question is asked.
"""

from __future__ import annotations

import os

from llama_index.core.llms import LLM

from llama_index_crm.errors import CrmError
from llama_index_crm.llm_calls import DEFAULT_BUDGET_S


def make_llm(spec: str | None, timeout: float = DEFAULT_BUDGET_S,
             context_window: int | None = None) -> LLM | None:
    """The LLM a spec names, or None for "no LLM" (``None``, ``""`` or ``none``).

    A missing ``OPENAI_API_KEY`` is not an error here: the pipeline answers without the
    LLM and says so (:class:`~llama_index_crm.llm_calls.LLMClient`).

    Args:
        spec: ``provider:model[@base_url]`` with provider ``openai`` or ``ollama``.
        timeout: seconds a request may take; the client's own retries are off (the
            pipeline's calls retry within their budget).
        context_window: the model's window in tokens, prompt and completion, as the LLM's
            own ``context_window`` (LlamaIndex's metadata): the answer writer's context is
            fitted to it. None: known by name (OpenAI's models), else learned from the
            server when it refuses a request for its length.
    """
    if context_window is not None and context_window < 64:
        raise CrmError(f"an LLM context window must be at least 64 tokens, not {context_window}")
    if not spec or spec.lower() == "none":
        return None
    provider, _, rest = spec.partition(":")
    model, _, base = rest.partition("@")
    if not model:
        raise CrmError(f"LLM spec {spec!r} names no model: use openai:MODEL or ollama:MODEL.")
    if provider == "openai":
        from llama_index.llms.openai import OpenAI
        from llama_index.llms.openai.utils import ALL_AVAILABLE_MODELS

        kwargs: dict[str, object] = {"model": model, "timeout": timeout, "max_retries": 0}
        base = base or os.environ.get("OPENAI_BASE_URL", "")
        if base:
            kwargs["api_base"] = base
            kwargs["api_key"] = os.environ.get("OPENAI_API_KEY", "not-needed")
        if model not in ALL_AVAILABLE_MODELS or context_window is not None:
            # an OpenAI-compatible server's own model: do not let the client refuse it
            # (and OpenAI's own class takes no window: it knows its models' by name)
            from llama_index.llms.openai_like import OpenAILike

            if context_window is not None:
                kwargs["context_window"] = context_window
            return OpenAILike(is_chat_model=True, **kwargs)  # type: ignore[arg-type]
        return OpenAI(**kwargs)  # type: ignore[arg-type]
    if provider == "ollama":
        try:
            from llama_index.llms.ollama import Ollama
        except ImportError as exc:
            raise CrmError("Ollama support needs: pip install 'llama-index-crm[ollama]'") from exc
        extra = {} if context_window is None else {"context_window": context_window}
        return Ollama(model=model, base_url=base or "http://localhost:11434",
                      request_timeout=timeout, **extra)
    raise CrmError(f"Unknown LLM provider {provider!r} in {spec!r}: use openai or ollama.")
