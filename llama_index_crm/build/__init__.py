"""Build phase: graph sources → FR walk → entity documents, triple archive, chaining."""

from __future__ import annotations

from llama_index_crm.build.builder import BuildStats, DocumentBuilder
from llama_index_crm.build.documents import EntityDocument
from llama_index_crm.build.reader import CidocCrmReader, to_document

__all__ = ["BuildStats", "CidocCrmReader", "DocumentBuilder", "EntityDocument", "to_document"]
