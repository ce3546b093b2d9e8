"""Build phase: graph sources → FR walk → entity documents, triple archive, chaining."""

from __future__ import annotations

from typing import TYPE_CHECKING

from llama_index_crm._lazy import lazy_exports
from llama_index_crm.build.builder import BuildStats, DocumentBuilder
from llama_index_crm.build.documents import EntityDocument

# the reader imports LlamaIndex, which build workers do not need
__getattr__, __dir__ = lazy_exports(__name__, {
    "CidocCrmReader": "llama_index_crm.build.reader",
    "to_document": "llama_index_crm.build.reader"})

if TYPE_CHECKING:
    from llama_index_crm.build.reader import CidocCrmReader, to_document

__all__ = ["BuildStats", "CidocCrmReader", "DocumentBuilder", "EntityDocument", "to_document"]
