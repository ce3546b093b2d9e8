"""Errors that reach a user: each says what went wrong and what to do about it.

A build runs chunks in worker processes, so every error here may be pickled in a worker and
unpickled in the main process: a subclass whose ``__init__`` takes more than the message
must say how it is rebuilt (``__reduce__``), or the main process gets a ``BrokenProcessPool``
instead of the message.

>>> import pickle
>>> error = pickle.loads(pickle.dumps(HttpStatusError("answered HTTP 503", 503)))
>>> str(error), error.status
('answered HTTP 503', 503)
"""

from __future__ import annotations

from typing import Any


class CrmError(Exception):
    """Base class of every error llama-index-crm raises on purpose."""


class SourceError(CrmError):
    """A graph source could not be read: unreachable endpoint, malformed RDF, missing file."""


class HttpStatusError(SourceError):
    """A SPARQL endpoint answered with an HTTP error status.

    Args:
        message: The whole message (URL, status, the server's first line, a hint).
        status: The HTTP status code.
    """

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (str(self), self.status)


class EmptyGraphError(CrmError):
    """The source holds no triples, or no entity typed with a CIDOC-CRM class."""


class WorkerError(CrmError):
    """A build worker process died without an error of its own (killed, out of memory)."""


class IndexFormatError(CrmError):
    """A persisted folder is missing, corrupt, or was written by another version or model."""


class LLMUnavailable(CrmError):
    """The LLM could not be used: unreachable, too slow, or without credentials. Answers
    are then made without it (the exact answer, or the one built from the documents)."""
