"""Storage: the Parquet triple archive, its integer-encoded index and the document store."""

from typing import TYPE_CHECKING

from llama_index_crm._lazy import lazy_exports
from llama_index_crm.storage.triple_writer import TripleRow, TripleWriter
from llama_index_crm.storage.triples import TermDictionary, TripleStore

# the docstore imports LlamaIndex, which build workers do not need
__getattr__, __dir__ = lazy_exports(__name__, {
    "CrmDocumentStore": "llama_index_crm.storage.docstore"})

if TYPE_CHECKING:
    from llama_index_crm.storage.docstore import CrmDocumentStore

__all__ = ["CrmDocumentStore", "TermDictionary", "TripleRow", "TripleStore", "TripleWriter"]
