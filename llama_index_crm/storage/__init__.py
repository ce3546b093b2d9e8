"""Storage: the Parquet triple archive, its integer-encoded index and the document store."""

from llama_index_crm.storage.docstore import CrmDocumentStore
from llama_index_crm.storage.triple_writer import TripleRow, TripleWriter
from llama_index_crm.storage.triples import TermDictionary, TripleStore

__all__ = ["CrmDocumentStore", "TermDictionary", "TripleRow", "TripleStore", "TripleWriter"]
