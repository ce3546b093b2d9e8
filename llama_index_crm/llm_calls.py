"""LLM calls that real servers accept, bounded in time, and an LLM that fails said once.

:class:`LLMClient` wraps a LlamaIndex LLM for the package's two kinds of call:

* :meth:`LLMClient.chat`: the answer written from a context;
* :meth:`LLMClient.structured`: a pydantic object (the exact planner's :class:`PlanSpec`,
  the analyzer's :class:`PlanOutput`).

Every call carries ``max_tokens`` (a small model otherwise writes until its context is
full) and a timeout. For OpenAI-compatible servers (``openai:MODEL``, ``openai:MODEL@URL``:
OpenAI, vLLM, llama.cpp's server, Ollama's ``/v1``) the request is made here, with the
``openai`` client, in one of these structured-output forms, first to last:

1. ``tools``: one function whose parameters are the schema, and ``tool_choice`` naming it
   (OpenAI, vLLM, llama.cpp and Ollama accept a forced function; ``"required"`` is never
   sent, and never without ``tools``);
2. ``json_object``: ``response_format={"type": "json_object", "schema": …}`` (llama.cpp
   constrains the reply to the schema; others to JSON), the schema also in the prompt;
3. ``json_schema``: ``response_format={"type": "json_schema", "json_schema": …}``;
4. ``text``: the schema in the prompt, the first JSON object of the reply parsed.

A server that rejects a form (HTTP 400, 422, 500, 501) gets the next one; the form that
worked is kept for the next calls. A reply that is not the structure raises
:class:`StructuredOutputError` (the caller falls back to the rules).

The answer writer's context is fitted to the model's window (:mod:`.llm_window`): the
window set (``LLMLimits.context_window``, the LLM's own ``context_window``) or known to
LlamaIndex, or learned from a server's refusal of a request for its length
(:class:`ContextTooLong`: the caller trims the context and asks once more).

An LLM that cannot be reached, times out or refuses the credentials raises
:class:`~llama_index_crm.errors.LLMUnavailable` after at most ``budget_s`` seconds (default
10, retries included), logs one warning, and is not called again for ``cooldown_s``
seconds: the next questions are answered without it at once. Before the first request (and
the first after a cooldown) a ``GET …/models`` of at most 3 s tells a server that is down or
hung at once, before the ``openai`` client and its resources are made; a request that
times out is not sent again. Other LLMs (Ollama's own
client, ``MockLLM``, yours) are called through ``llm.chat``, the structure parsed from the
reply, with the same failure handling.
"""

from __future__ import annotations

import json
import logging
import math
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.llms import LLM
from pydantic import BaseModel, ValidationError

from llama_index_crm.errors import CrmError, LLMUnavailable
from llama_index_crm.llm_window import (
    CHARS_PER_TOKEN,
    ContextRefusal,
    completion_tokens,
    known_context_window,
    message_chars,
    parse_context_refusal,
    prompt_chars,
    served_window,
)

__all__ = [
    "ANSWER_MAX_TOKENS",
    "ContextTooLong",
    "fill_prompt",
    "DEFAULT_BUDGET_S",
    "MODES",
    "PLAN_MAX_TOKENS",
    "LLMClient",
    "LLMLimits",
    "StructuredOutputError",
]

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 8.0
"""Seconds one request may take."""
DEFAULT_BUDGET_S = 10.0
"""Seconds one call may take, its retries included."""
DEFAULT_RETRIES = 1
"""Further attempts after a connection failure (past the probe), HTTP 429 or 502-504; never
after a timeout."""
DEFAULT_COOLDOWN_S = 60.0
"""Seconds an LLM that failed is not called again."""
RETRY_PAUSE_S = 0.5
CONNECT_TIMEOUT_S = 2.0
"""Seconds a TCP connection to the LLM's server may take."""
MODELS_MAX_BYTES = 1 << 20
"""Bytes of the probe's model list read (a window may be stated there)."""
PROBE_TIMEOUT_S = 3.0
"""Seconds the server has to answer the probe before the first request (any HTTP reply)."""
PLAN_MAX_TOKENS = 768
"""Tokens of a structured plan."""
ANSWER_MAX_TOKENS = 768
"""Tokens of a written answer."""
MODES = ("tools", "json_object", "json_schema", "text")
"""Structured-output forms, in the order they are tried."""
REJECTED = frozenset({400, 422, 500, 501})
"""Statuses with which a server refuses a request's form (the next form is tried)."""
TRANSIENT = frozenset({408, 429, 502, 503, 504})
"""Statuses worth another attempt within the budget."""

Model = TypeVar("Model", bound=BaseModel)


class StructuredOutputError(CrmError):
    """The LLM answered, but not with the structure asked for."""


class ContextTooLong(LLMUnavailable):
    """The server refused a request for its length; its window is now known to the client
    (:attr:`LLMClient.context_window`): a shorter request may be sent.

    Attributes:
        refusal: the window (and the tokens counted) the server stated.
        status: the HTTP status of the refusal.
    """

    def __init__(self, message: str, refusal: ContextRefusal, status: int = 400) -> None:
        super().__init__(message)
        self.refusal, self.status = refusal, status

    def __reduce__(self) -> tuple[Any, ...]:  # rebuilt whole in another process
        return type(self), (str(self), self.refusal, self.status)


@dataclass(frozen=True)
class LLMLimits:
    """Time, retries and context of LLM calls.

    Attributes:
        timeout_s: seconds one request may take.
        budget_s: seconds one call may take, its retries included.
        retries: further attempts after a connection failure, HTTP 429 or 502-504 (a
            request that timed out is not sent again: the server is busy or hung).
        cooldown_s: seconds an LLM that failed is left alone.
        context_window: the model's window in tokens, prompt and completion (None: the
            LLM's own setting or LlamaIndex's knowledge of it, else learned from the
            server's refusal); the answer writer's context is fitted to it.
    """

    timeout_s: float = DEFAULT_TIMEOUT_S
    budget_s: float = DEFAULT_BUDGET_S
    retries: int = DEFAULT_RETRIES
    cooldown_s: float = DEFAULT_COOLDOWN_S
    context_window: int | None = None

    def __post_init__(self) -> None:
        if self.context_window is not None and self.context_window < 64:
            raise ValueError(f"an LLM context window must be at least 64 tokens, not "
                             f"{self.context_window}")

    @classmethod
    def within(cls, seconds: float, context_window: int | None = None) -> LLMLimits:
        """Limits whose calls take at most ``seconds``, retries included; one request may
        take them all (a request that timed out is not sent again, so capping it lower
        would only cut off a slow model: 9 s for SmolLM2's first plan here)."""
        if not seconds > 0:
            raise ValueError(f"an LLM time limit must be positive, not {seconds}")
        return cls(timeout_s=seconds, budget_s=seconds, context_window=context_window)


def _is_openai(llm: Any) -> bool:
    try:
        from llama_index.llms.openai import OpenAI
    except ImportError:  # pragma: no cover - a dependency of the package
        return False
    return isinstance(llm, OpenAI)


def _first_json(text: str) -> Any:
    """The first JSON object in ``text`` (a reply may wrap it in words or a code fence)."""
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            return decoder.raw_decode(text[match.start():])[0]
        except ValueError:
            continue
    raise StructuredOutputError(f"no JSON object in the reply {text[:200]!r}")


def fill_prompt(template: str, **values: str) -> str:
    """``template`` with each ``{name}`` of ``values`` replaced, in one pass; every other
    brace is left as written (prompts show JSON with single braces: nothing is escaped)."""
    if not values:
        return template
    pattern = re.compile(r"\{(" + "|".join(map(re.escape, values)) + r")\}")
    return pattern.sub(lambda m: str(values[m.group(1)]), template)


def schema_of(output_cls: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema of a pydantic class, as sent to servers."""
    return output_cls.model_json_schema()


def schema_instruction(output_cls: type[BaseModel]) -> str:
    """The prompt's last paragraph: answer with one JSON object of this schema."""
    return ("Answer with one JSON object, nothing else, that follows this JSON schema:\n"
            + json.dumps(schema_of(output_cls), ensure_ascii=False))


class LLMClient:
    """Bounded, accepted LLM calls, and the LLM's availability (see the module).

    Thread-safe: one client serves every question of a pipeline.

    Args:
        llm: the LlamaIndex LLM.
        limits: time and retries (default: at most 10 s a call).
        mode: a structured-output form of :data:`MODES`, or ``auto`` (try them in order).
    """

    def __init__(self, llm: LLM, limits: LLMLimits | None = None, mode: str = "auto") -> None:
        if mode != "auto" and mode not in MODES:
            raise ValueError(f"unknown structured-output mode {mode!r}: auto or one of "
                             f"{', '.join(MODES)}")
        self.llm = llm
        self.limits = limits or LLMLimits()
        self._lock = threading.Lock()
        self._mode: str | None = None if mode == "auto" else mode
        self._fixed = mode != "auto"
        self._down_until = 0.0
        self._reason = ""
        self._openai = _is_openai(llm)
        self._client: Any = None
        self._probed = False
        self._learned_window: int | None = None
        self._chars_per_token = CHARS_PER_TOKEN
        if self._openai and not (getattr(llm, "api_key", None)):
            self._down_until, self._reason = math.inf, "no API key: set OPENAI_API_KEY"

    @classmethod
    def of(cls, llm: LLM | LLMClient | None) -> LLMClient | None:
        """``llm`` as a client (itself when it is one already)."""
        if llm is None or isinstance(llm, LLMClient):
            return llm
        return cls(llm)

    # -- availability ----------------------------------------------------------------------
    @property
    def where(self) -> str:
        """The LLM as a user named it: model and server."""
        model = getattr(self.llm, "model", None) or self.llm.metadata.model_name
        base = getattr(self.llm, "api_base", None) if self._openai else \
            getattr(self.llm, "base_url", None)
        return f"{model} at {base}" if base else str(model)

    def unavailable(self) -> str | None:
        """Why the LLM is not being called now (None: it is)."""
        with self._lock:
            if time.monotonic() < self._down_until:
                return self._reason
        return None

    def notice(self) -> str | None:
        """The one line to show while the LLM is unavailable."""
        reason = self.unavailable()
        return None if reason is None else \
            f"LLM {self.where} unavailable ({reason}): answered without it"

    def _trip(self, reason: str) -> LLMUnavailable:
        with self._lock:
            first = time.monotonic() >= self._down_until
            self._down_until = time.monotonic() + self.limits.cooldown_s
            self._reason = reason
            self._probed = False  # after the cooldown, see first whether it listens again
        if first:
            logger.warning("LLM %s unavailable (%s): answering without it for %.0f s",
                           self.where, reason, self.limits.cooldown_s)
        return LLMUnavailable(f"LLM {self.where} unavailable: {reason}")

    def _check(self) -> None:
        reason = self.unavailable()
        if reason is not None:
            raise LLMUnavailable(f"LLM {self.where} unavailable: {reason}")

    # -- the context window ----------------------------------------------------------------
    @property
    def context_window(self) -> int | None:
        """The model's window in tokens: the smallest of the one set, the one LlamaIndex
        knows and the one the server stated when it refused a request (None: unknown)."""
        with self._lock:
            learned = self._learned_window
        known = [w for w in (self.limits.context_window, learned,
                             known_context_window(self.llm)) if w]
        return min(known) if known else None

    def completion_tokens(self, wanted: int = ANSWER_MAX_TOKENS) -> int:
        """The ``max_tokens`` a call asks: ``wanted``, at most a quarter of the window."""
        return completion_tokens(self.context_window, wanted)

    def prompt_chars(self, max_tokens: int = ANSWER_MAX_TOKENS, messages: int = 2) -> int | None:
        """The characters ``messages`` messages may hold beside a completion of
        ``max_tokens`` (None: the window is unknown, nothing to fit)."""
        window = self.context_window
        if window is None:
            return None
        with self._lock:
            ratio = self._chars_per_token
        return prompt_chars(window, completion_tokens(window, max_tokens), ratio, messages)

    def ready(self) -> None:
        """Probe the server if not yet done (an OpenAI-compatible one: its model list may
        state the window); a no-op for other LLMs.

        Raises:
            LLMUnavailable: the server is down, hung, or there are no credentials.
        """
        self._check()
        if self._openai:
            self._probe()

    def _learn(self, refusal: ContextRefusal, sent: int) -> None:
        """Keep the window a refusal stated, and the characters a token it measured."""
        with self._lock:
            self._learned_window = min(refusal.window, self._learned_window or refusal.window)
            if refusal.prompt_tokens and sent:
                # the server's own count of what was sent: its tokenizer on this text
                self._chars_per_token = max(1.0, min(6.0, sent / refusal.prompt_tokens))

    # -- calls -----------------------------------------------------------------------------
    def chat(self, messages: Sequence[ChatMessage], *, max_tokens: int = ANSWER_MAX_TOKENS) -> str:
        """The LLM's reply to ``messages`` (``max_tokens``: at most a quarter of a known
        window).

        Raises:
            ContextTooLong: the server refused the request for its length; the window it
                stated is kept (:attr:`context_window`): fit the context and ask again.
            LLMUnavailable: unreachable, too slow, or no credentials; or the server refused
                this request (HTTP 400, 422, 500, 501); the LLM is left available for the
                next one.
        """
        self._check()
        max_tokens = self.completion_tokens(max_tokens)
        if self._openai:
            try:
                reply = self._openai_call(messages, max_tokens, {})
            except _Rejected as exc:  # said by the caller, which answers without it
                said = (f"LLM {self.where} refused the request (HTTP {exc.status}: "
                        f"{exc.detail[:160]})")
                refusal = parse_context_refusal(exc.message, exc.body)
                if refusal is not None:
                    self._learn(refusal, message_chars(messages))
                    raise ContextTooLong(said, refusal, exc.status) from exc
                raise LLMUnavailable(said) from exc
            return str(reply.choices[0].message.content or "").strip()
        return str(self._generic_chat(messages, max_tokens)).strip()

    def structured(self, output_cls: type[Model], messages: Sequence[ChatMessage], *,
                   max_tokens: int = PLAN_MAX_TOKENS) -> Model:
        """An ``output_cls`` the LLM fills from ``messages``.

        Raises:
            LLMUnavailable: unreachable, too slow, or no credentials.
            StructuredOutputError: the reply is not an ``output_cls`` (or every form was
                rejected).
        """
        self._check()
        prompted = _with_schema(messages, output_cls)
        if not self._openai:
            return _parse(output_cls, self._generic_chat(prompted, max_tokens))
        modes = [self._mode] if self._mode else list(MODES)
        rejected: list[str] = []
        for mode in modes:
            assert mode is not None
            try:
                reply = self._openai_call(prompted if mode != "tools" else messages,
                                          max_tokens, _mode_kwargs(mode, output_cls))
            except _Rejected as exc:
                rejected.append(f"{mode}: HTTP {exc.status} {exc.detail[:120]}")
                continue
            if not self._fixed:
                self._mode = mode  # this server takes this form: ask it so from now on
            return _parse(output_cls, _reply_json(reply))
        raise StructuredOutputError("the server rejected every structured-output form ("
                                    + "; ".join(rejected) + ")")

    # -- transport -------------------------------------------------------------------------
    def _openai_client(self) -> Any:
        if self._client is None:
            import openai

            llm: Any = self.llm
            self._client = openai.OpenAI(
                api_key=llm.api_key, base_url=llm.api_base or None,
                default_headers=llm.default_headers, max_retries=0,
                timeout=self._timeout(self.limits.timeout_s))
        return self._client

    def _timeout(self, seconds: float) -> Any:
        import httpx

        return httpx.Timeout(seconds, connect=min(CONNECT_TIMEOUT_S, seconds))

    def _probe(self) -> None:
        """Trip at once when the server does not answer: ``GET {api_base}/models``, at most
        :data:`PROBE_TIMEOUT_S` seconds, before the first request (and the first after a
        cooldown). Any HTTP reply, 401 or 404 included, means it is up. An LLM that is down
        or hung then costs neither the import of the ``openai`` client's resources (seconds
        on a busy machine) nor the request's whole time limit."""
        with self._lock:
            if self._probed:
                return
        llm: Any = self.llm
        base = str(getattr(llm, "api_base", None) or "https://api.openai.com/v1")
        if _address(base) is not None:
            seconds = min(PROBE_TIMEOUT_S, self.limits.timeout_s)
            reason, listing = _probe(base.rstrip("/") + "/models", seconds)
            if reason is not None:
                raise self._trip(reason)
            window = served_window(listing, str(getattr(llm, "model", "")))
            if window is not None:  # vLLM's max_model_len: no request need be refused
                with self._lock:
                    self._learned_window = min(window, self._learned_window or window)
        with self._lock:
            self._probed = True

    def _openai_call(self, messages: Sequence[ChatMessage], max_tokens: int,
                     extra: dict[str, Any]) -> Any:
        self._probe()
        import openai
        from llama_index.llms.openai.utils import to_openai_message_dicts

        llm: Any = self.llm
        body: dict[str, Any] = {
            **(llm.additional_kwargs or {}), "model": llm.model,
            "messages": to_openai_message_dicts(list(messages)),
            "temperature": llm.temperature, "max_tokens": max_tokens, **extra}
        if "tools" not in body:
            body.pop("tool_choice", None)  # never a tool_choice without tools
        client = self._openai_client()
        client.chat.completions  # noqa: B018 - imports openai's resources before the clock
        started = time.monotonic()
        deadline = started + self.limits.budget_s
        attempt = 0
        error: Exception
        while True:
            self._check()
            limit = max(0.1, min(self.limits.timeout_s, deadline - time.monotonic()))
            try:
                return client.with_options(timeout=self._timeout(limit),
                                           max_retries=0).chat.completions.create(**body)
            except openai.APIStatusError as exc:
                status = exc.status_code
                if status in (401, 403):
                    raise self._trip(f"HTTP {status}: the credentials were refused") from exc
                if status == 404:
                    raise self._trip(f"HTTP 404: no such model or URL ({_detail(exc)})") \
                        from exc
                if status in REJECTED:
                    raise _Rejected(status, _detail(exc), _detail(exc, None),
                                    getattr(exc, "body", None)) from exc
                reason, error = f"HTTP {status}: {_detail(exc)}", exc
                if status not in TRANSIENT:
                    raise self._trip(reason) from exc
            except openai.APITimeoutError as exc:
                # not sent again: a server that did not answer in time is busy or hung
                raise self._trip(f"no reply within {limit:.0f} s") from exc
            except openai.APIConnectionError as exc:
                reason, error = f"cannot connect: {_cause(exc)}", exc
            except openai.OpenAIError as exc:  # no API key, a bad base URL
                raise self._trip(str(exc).split(". ")[0]) from exc
            else:  # pragma: no cover - returned above
                raise AssertionError
            attempt += 1
            if attempt > self.limits.retries or \
                    deadline - time.monotonic() < RETRY_PAUSE_S + 0.5:
                raise self._trip(reason) from error
            time.sleep(RETRY_PAUSE_S)

    def _generic_chat(self, messages: Sequence[ChatMessage], max_tokens: int) -> str:
        """``llm.chat`` for LLMs of other providers (their own timeouts apply)."""
        try:
            reply = self.llm.chat(list(messages))
        except (ConnectionError, TimeoutError) as exc:
            raise self._trip(f"{type(exc).__name__}: {exc}") from exc
        except Exception as exc:
            if _looks_unreachable(exc):
                raise self._trip(f"{type(exc).__name__}: {str(exc)[:160]}") from exc
            raise
        return str(reply.message.content or "")


def _address(url: str) -> tuple[str, int] | None:
    """``(host, port)`` of an http(s) URL, None for anything else."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError:
        return None
    return (parts.hostname, port) if parts.hostname and port else None


def _probe(url: str, seconds: float) -> tuple[str | None, bytes]:
    """``(why url gives no HTTP reply within seconds, the reply's body when it is a 200)``
    (the reason is None when it replied, with any status)."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="GET"),
                                    timeout=seconds) as reply:
            try:
                return None, reply.read(MODELS_MAX_BYTES)
            except (OSError, ValueError):
                return None, b""
    except urllib.error.HTTPError:
        return None, b""  # it answers
    except Exception as exc:  # noqa: BLE001 - below, the reason
        return _probe_failure(exc, seconds), b""


def _probe_failure(exc: Exception, seconds: float) -> str:
    """Why the probe got no HTTP reply."""
    import urllib.error

    if isinstance(exc, urllib.error.URLError):
        if isinstance(exc.reason, TimeoutError):
            return f"cannot connect within {seconds:.0f} s"
        return f"cannot connect: {exc.reason}"
    if isinstance(exc, TimeoutError):
        return f"no reply within {seconds:.0f} s"
    # reset, closed, or something listens that is not HTTP
    return f"no HTTP reply: {str(exc) or type(exc).__name__}"


class _Rejected(Exception):
    def __init__(self, status: int, detail: str, message: str = "", body: Any = None) -> None:
        super().__init__(f"HTTP {status}: {detail}")
        self.status, self.detail = status, detail
        self.message, self.body = message or detail, body


def _detail(exc: Any, limit: int | None = 200) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        message = body.get("message") or body.get("error") or body
        if isinstance(message, dict):
            message = message.get("message", message)
        return str(message)[:limit]
    return str(getattr(exc, "message", exc))[:limit]


def _cause(exc: BaseException) -> str:
    inner = exc.__cause__ or exc.__context__
    while inner is not None and (inner.__cause__ or inner.__context__) is not None:
        inner = inner.__cause__ or inner.__context__
    text = str(inner or exc) or type(inner or exc).__name__
    return text[:160]


def _looks_unreachable(exc: Exception) -> bool:
    """httpx/requests connection errors and timeouts of other providers' clients."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    return bool(names & {"ConnectError", "ConnectTimeout", "ReadTimeout", "TimeoutException",
                         "ConnectionError", "NetworkError", "APIConnectionError",
                         "APITimeoutError"})


def _with_schema(messages: Sequence[ChatMessage],
                 output_cls: type[BaseModel]) -> list[ChatMessage]:
    """The messages, the last one ending with :func:`schema_instruction` (single braces:
    it is never formatted again)."""
    out = list(messages)
    last = out[-1] if out else ChatMessage(role=MessageRole.USER, content="")
    text = f"{last.content or ''}\n\n{schema_instruction(output_cls)}"
    return [*out[:-1], ChatMessage(role=last.role, content=text)]


def _tool_name(output_cls: type[BaseModel]) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", output_cls.__name__)[:64]


def _mode_kwargs(mode: str, output_cls: type[BaseModel]) -> dict[str, Any]:
    schema = schema_of(output_cls)
    name = _tool_name(output_cls)
    if mode == "tools":
        description = (output_cls.__doc__ or name).strip().splitlines()[0]
        return {"tools": [{"type": "function", "function": {
                    "name": name, "description": description, "parameters": schema}}],
                "tool_choice": {"type": "function", "function": {"name": name}}}
    if mode == "json_object":
        return {"response_format": {"type": "json_object", "schema": schema}}
    if mode == "json_schema":
        return {"response_format": {"type": "json_schema", "json_schema": {
            "name": name, "schema": schema, "strict": False}}}
    return {}


def _reply_json(reply: Any) -> Any:
    """The structure in a chat completion: the forced tool call's arguments, else the
    first JSON object of the text (a server that ignored the form)."""
    message = reply.choices[0].message
    for call in getattr(message, "tool_calls", None) or ():
        arguments = getattr(getattr(call, "function", None), "arguments", None)
        if isinstance(arguments, str) and arguments:
            try:
                return json.loads(arguments)
            except ValueError as exc:
                raise StructuredOutputError(f"the tool call's arguments are not JSON: "
                                            f"{arguments[:200]!r}") from exc
        if arguments:
            return arguments
    return _first_json(str(message.content or ""))


def _parse(output_cls: type[Model], found: Any) -> Model:
    if isinstance(found, str):
        found = _first_json(found)
    try:
        return output_cls.model_validate(found)
    except ValidationError as exc:
        raise StructuredOutputError(
            f"the reply is not a {output_cls.__name__}: {str(exc).splitlines()[0]}") from exc
