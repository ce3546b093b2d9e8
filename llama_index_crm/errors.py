"""Errors that reach a user: each says what went wrong and what to do about it."""

from __future__ import annotations


class CrmError(Exception):
    """Base class of every error llama-index-crm raises on purpose."""


class SourceError(CrmError):
    """A graph source could not be read: unreachable endpoint, malformed RDF, missing file."""


class EmptyGraphError(CrmError):
    """The source holds no triples, or no entity typed with a CIDOC-CRM class."""


class IndexFormatError(CrmError):
    """A persisted folder is missing, corrupt, or was written by another version or model."""
