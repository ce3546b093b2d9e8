"""Real HTTP servers on 127.0.0.1 for the LLM tests: a strict OpenAI-compatible stub, a
server that never answers in time, and a port where nothing listens."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PARAMETERS = frozenset({
    "model", "messages", "max_tokens", "max_completion_tokens", "temperature", "top_p", "n",
    "stream", "stream_options", "stop", "presence_penalty", "frequency_penalty",
    "logit_bias", "logprobs", "top_logprobs", "user", "seed", "tools", "tool_choice",
    "parallel_tool_calls", "response_format", "service_tier", "store", "metadata",
    "reasoning_effort", "modalities", "audio", "prediction"})
"""The request parameters of OpenAI's chat completions; any other is refused."""
ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def refusal(body: dict[str, Any]) -> str | None:
    """Why OpenAI's API answers this chat-completions request with HTTP 400 (None: it
    does not). The checks are those of the real API for the parameters we send."""
    unknown = sorted(set(body) - PARAMETERS)
    if unknown:
        return f"Unrecognized request argument supplied: {unknown[0]}"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "you must provide a model parameter"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "'messages' must be a non-empty array"
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ROLES:
            return f"Invalid value for 'messages[{i}].role'"
        if "content" not in message and "tool_calls" not in message:
            return f"Missing required parameter: 'messages[{i}].content'"
    for key in ("max_tokens", "max_completion_tokens"):
        if key in body and (not isinstance(body[key], int) or body[key] < 1):
            return f"Invalid '{key}': integer below minimum value"
    tools = body.get("tools")
    choice = body.get("tool_choice")
    if choice is not None and not tools:
        return "Invalid value for 'tool_choice': 'tool_choice' is only allowed when " \
               "'tools' are specified."
    names = []
    for i, tool in enumerate(tools or []):
        function = tool.get("function") if isinstance(tool, dict) else None
        if tool.get("type") != "function" or not isinstance(function, dict):
            return f"Missing required parameter: 'tools[{i}].function'"
        if not TOOL_NAME.match(str(function.get("name", ""))):
            return f"Invalid 'tools[{i}].function.name': string does not match pattern"
        if "parameters" in function and not isinstance(function["parameters"], dict):
            return f"Invalid type for 'tools[{i}].function.parameters'"
        names.append(function["name"])
    if isinstance(choice, str) and choice not in ("none", "auto", "required"):
        return f"Invalid value: '{choice}'. Supported values are: 'none', 'auto', 'required'"
    if isinstance(choice, dict):
        name = (choice.get("function") or {}).get("name")
        if choice.get("type") != "function" or name not in names:
            return f"Tool choice '{name}' not found in 'tools' parameter."
    response_format = body.get("response_format")
    if response_format is not None:
        kind = response_format.get("type") if isinstance(response_format, dict) else None
        if kind not in ("text", "json_object", "json_schema"):
            return "Invalid value for 'response_format.type'"
        if kind == "json_schema":
            spec = response_format.get("json_schema")
            if not isinstance(spec, dict) or not TOOL_NAME.match(str(spec.get("name", ""))):
                return "Missing required parameter: 'response_format.json_schema.name'"
        if kind == "json_object" and "json" not in json.dumps(messages).lower():
            return "'messages' must contain the word 'json' in some form, to use " \
                   "'response_format' of type 'json_object'."
    return None


CHARS_PER_TOKEN = 3.36
"""Characters a token of the stub's model: SmolLM2's tokenizer on the demo's answer
context (39,982 characters, 11,909 tokens)."""


def context_limit(window: int, chars_per_token: float = CHARS_PER_TOKEN,
                  applies: Callable[[dict[str, Any]], bool] = lambda body: True,
                  ) -> Callable[[dict[str, Any]], tuple[int, str] | None]:
    """A ``reject`` refusing, as llama-cpp-python, vLLM and OpenAI do (HTTP 400, the same
    words), a request whose messages and ``max_tokens`` exceed ``window`` tokens, its
    messages counted at ``chars_per_token``."""
    def reject(body: dict[str, Any]) -> tuple[int, str] | None:
        if not applies(body):
            return None
        messages = round(sum(len(str(m.get("content") or "")) for m in body["messages"])
                         / chars_per_token) + 8 * len(body["messages"])
        completion = int(body.get("max_tokens") or 0)
        if messages + completion <= window:
            return None
        return 400, (f"This model's maximum context length is {window} tokens. However, "
                     f"you requested {messages + completion} tokens ({messages} in the "
                     f"messages, {completion} in the completion). Please reduce the length "
                     "of the messages or completion.")
    return reject


Reply = Callable[[dict[str, Any]], "dict[str, Any] | str"]
"""Given an accepted request: the structured object to return, or the text to say."""


class StrictStub:
    """An OpenAI-compatible chat-completions server that refuses (HTTP 400, OpenAI's error
    body) what OpenAI's API refuses, records every request and every refusal, and replies
    with ``reply(body)``: a forced tool call carrying an object, a JSON text for a JSON
    response format, else the text.

    Args:
        reply: the reply to an accepted request.
        reject: extra refusals of this server, ``body -> (status, message) | None`` (a
            server without tools, llama.cpp's HTTP 500 on ``json_schema``).
        models: the reply to ``GET /models`` (None: HTTP 404).
    """

    def __init__(self, reply: Reply,
                 reject: Callable[[dict[str, Any]], tuple[int, str] | None] | None = None,
                 models: dict[str, Any] | None = None) -> None:
        self.reply = reply
        self.reject = reject or (lambda body: None)
        self.models = models
        self.requests: list[dict[str, Any]] = []
        self.refused: list[tuple[int, str, dict[str, Any]]] = []
        self.lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                length = int(self.headers.get("Content-Length", 0))
                try:
                    body = json.loads(self.rfile.read(length))
                except ValueError:
                    return self._send(400, {"error": {"message": "We could not parse the "
                                                      "JSON body of your request."}})
                if not self.path.endswith("/chat/completions"):
                    return self._send(404, {"error": {"message": "Not found"}})
                with stub.lock:
                    stub.requests.append(body)
                why = refusal(body)
                status = 400
                if why is None:
                    extra = stub.reject(body)
                    if extra is not None:
                        status, why = extra
                if why is not None:
                    with stub.lock:
                        stub.refused.append((status, why, body))
                    return self._send(status, {"error": {
                        "message": why, "type": "invalid_request_error", "param": None,
                        "code": None}})
                return self._send(200, stub.completion(body))

            def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
                if self.path.endswith("/models") and stub.models is not None:
                    return self._send(200, stub.models)
                return self._send(404, {"error": {"message": "Not found"}})

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                """Silence the request log."""

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def completion(self, body: dict[str, Any]) -> dict[str, Any]:
        """The chat completion answering an accepted request."""
        found = self.reply(body)
        message: dict[str, Any] = {"role": "assistant", "content": None}
        choice = body.get("tool_choice")
        if isinstance(found, dict) and isinstance(choice, dict):
            message["tool_calls"] = [{"id": "call_0", "type": "function", "function": {
                "name": choice["function"]["name"], "arguments": json.dumps(found)}}]
            finish = "tool_calls"
        else:
            message["content"] = json.dumps(found) if isinstance(found, dict) else found
            finish = "stop"
        return {"id": "chatcmpl-stub", "object": "chat.completion", "created": 0,
                "model": body["model"], "choices": [
                    {"index": 0, "finish_reason": finish, "message": message}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}

    def __enter__(self) -> StrictStub:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


class SlowServer:
    """Accepts connections and requests, and answers no completion for ``delay`` seconds;
    ``hung``: no request at all (``GET /models`` neither), as a stopped process."""

    def __init__(self, delay: float = 60.0, *, hung: bool = False) -> None:
        self.delay = delay
        self.requests = 0
        self.gets = 0
        self.stop = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                server.requests += 1
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                server.stop.wait(server.delay)

            def do_GET(self) -> None:  # noqa: N802
                server.gets += 1
                if hung:
                    server.stop.wait(server.delay)
                else:
                    self.send_error(404)

            def log_message(self, *args: Any) -> None:
                """Silence the request log."""

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> SlowServer:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()


def closed_port() -> int:
    """A port of 127.0.0.1 where nothing listens (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    time.sleep(0.05)
    return port
