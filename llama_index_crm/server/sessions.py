"""Chat sessions: one conversation each, isolated, forgotten when idle.

A session is a :class:`~llama_index_crm.query.chat.CrmChatEngine` over its dataset's shared
query pipeline, with a memory of its own. Its turns run one at a time (a lock per session),
while different sessions answer at the same time.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from llama_index_crm.query.chat import CrmChatEngine

SESSION_ID = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
"""What a session id may be (the page makes them with ``crypto.randomUUID``)."""

SESSION_TTL_S = 30 * 60.0
"""Seconds a session may stay idle before it is forgotten."""

MAX_SESSIONS = 1000
"""Sessions kept at most; beyond it the least recently used is forgotten."""


def new_session_id() -> str:
    """A fresh random session id."""
    return secrets.token_urlsafe(18)


@dataclass
class Session:
    """One conversation.

    Attributes:
        id: the session id.
        dataset: the dataset it talks to (a session never changes dataset).
        engine: its chat engine (its own memory, the dataset's pipeline).
        last_used: ``time.monotonic()`` of its last turn.
    """

    id: str
    dataset: str
    engine: CrmChatEngine
    last_used: float
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)


class SessionStore:
    """Sessions by (dataset, id), expiring after ``ttl_s`` idle seconds.

    Args:
        ttl_s: idle seconds before a session is forgotten.
        max_sessions: sessions kept at most (least recently used forgotten first).
        clock: the time source (``time.monotonic``).
    """

    def __init__(self, ttl_s: float = SESSION_TTL_S, max_sessions: int = MAX_SESSIONS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl_s = ttl_s
        self.max_sessions = max_sessions
        self.clock = clock
        self._sessions: OrderedDict[tuple[str, str], Session] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._sessions)

    def expire(self) -> int:
        """Forget the sessions idle for longer than the TTL; returns how many."""
        now = self.clock()
        with self._lock:
            old = [k for k, s in self._sessions.items() if now - s.last_used > self.ttl_s]
            for key in old:
                del self._sessions[key]
        return len(old)

    def get(self, dataset: str, session_id: str,
            make_engine: Callable[[], CrmChatEngine]) -> Session:
        """The session ``session_id`` of ``dataset``, made when new or expired.

        Args:
            dataset: the dataset's name.
            session_id: the id the client holds.
            make_engine: a new chat engine (called only for a new session).
        """
        self.expire()
        key = (dataset, session_id)
        with self._lock:
            session = self._sessions.get(key)
            if session is not None:
                session.last_used = self.clock()
                self._sessions.move_to_end(key)
                return session
        engine = make_engine()
        with self._lock:
            session = self._sessions.setdefault(
                key, Session(session_id, dataset, engine, self.clock()))
            self._sessions.move_to_end(key)
            while len(self._sessions) > self.max_sessions:
                self._sessions.popitem(last=False)
        return session

    def drop(self, dataset: str, session_id: str) -> bool:
        """Forget one session; True when it existed."""
        with self._lock:
            return self._sessions.pop((dataset, session_id), None) is not None
