"""Request limits: body size, question length, and the clear messages that refuse them."""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from llama_index_crm.query.conversation import MAX_QUESTION_CHARS

MAX_BODY_BYTES = 64 * 1024
"""Bytes a request body may hold (a question is at most a few kilobytes)."""

__all__ = ["MAX_BODY_BYTES", "MAX_QUESTION_CHARS", "BodyLimit", "question_problem"]


def question_problem(text: str) -> str | None:
    """Why ``text`` cannot be asked, or None when it can.

    >>> question_problem("  ")
    'The question is empty: type a question.'
    >>> question_problem("x" * 10_000)[:47]
    'The question is 10,000 characters long; at most'
    >>> question_problem("Who founded Asinou?") is None
    True
    """
    if not text.strip():
        return "The question is empty: type a question."
    if len(text) > MAX_QUESTION_CHARS:
        return (f"The question is {len(text):,} characters long; at most "
                f"{MAX_QUESTION_CHARS:,} are read. Ask a shorter question.")
    return None


class BodyLimit:
    """ASGI middleware: a request body larger than ``max_bytes`` gets 413 and a message,
    whether it declares its length or streams it in chunks; the app never sees it.

    Args:
        app: the application.
        max_bytes: the largest body accepted.
    """

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await self._refuse(send)
            return
        body = bytearray()
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            more = bool(message.get("more_body"))
            if len(body) > self.max_bytes:
                await self._refuse(send)
                return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, send: Send) -> None:
        payload: dict[str, Any] = {
            "detail": f"The request body is larger than {self.max_bytes:,} bytes."}
        body = json.dumps(payload).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})
