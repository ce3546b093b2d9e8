"""The document store that is also the triple store.

A persisted folder holds ``documents.parquet`` (one row per node: ``doc_id, class_name,
text, metadata`` as JSON, ``hash, ref_doc_id, uri`` and ``node``, the rest of LlamaIndex's
node JSON) beside ``triples.parquet`` (see :mod:`.triple_writer`). Loaded rows stay in one
Arrow table and are turned into nodes on demand; changes live in an overlay until
:meth:`CrmDocumentStore.persist` writes a new file and renames it over the old one.

Usage::

    docstore = CrmDocumentStore.from_persist_dir("index/")
    storage_context = StorageContext.from_defaults(docstore=docstore)
    docstore.triples_of("http://collection.britishart.yale.edu/id/object/67238")
"""

from __future__ import annotations

import os
import posixpath
import shutil
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, BinaryIO

import pyarrow as pa
import pyarrow.parquet as pq
from llama_index.core.schema import BaseNode
from llama_index.core.storage.docstore.types import BaseDocumentStore, RefDocInfo
from llama_index.core.storage.kvstore.types import DEFAULT_BATCH_SIZE

from llama_index_crm.errors import IndexFormatError
from llama_index_crm.rdf import Triple
from llama_index_crm.storage.documents import (
    DOCUMENTS_FORMAT,
    FIELDS,
    DocumentRecord,
    DocumentTable,
)
from llama_index_crm.storage.triple_writer import FORMAT_KEY
from llama_index_crm.storage.triples import REBUILD_HINT, TripleStore

_LOAD_LOCK = threading.RLock()
"""Held while a triple archive loads on first use (a load, never a query, waits on it)."""

DOCUMENTS_FILE = "documents.parquet"
TRIPLES_FILE = "triples.parquet"


def _target_dir(path: str) -> str:
    """The folder to persist into; ``StorageContext.persist`` passes ``<dir>/docstore.json``."""
    stripped = path.rstrip("/\\")
    return os.path.dirname(stripped) if stripped.endswith((".json", ".parquet")) else stripped


def _exists(fs: Any | None, path: str) -> bool:
    return bool(fs.exists(path)) if fs is not None else os.path.isfile(path)


def _atomic_write(fs: Any | None, path: str, write: Callable[[BinaryIO], None]) -> None:
    """Write ``path`` through a temporary sibling renamed over it when complete."""
    folder, name = posixpath.split(path) if fs is not None else os.path.split(path)
    tmp = f"{folder}/.{name}.{uuid.uuid4().hex}.tmp"
    if fs is None:
        os.makedirs(folder or ".", exist_ok=True)
        try:
            with open(tmp, "wb") as handle:
                write(handle)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
        return
    fs.makedirs(folder, exist_ok=True)
    with fs.open(tmp, "wb") as handle:
        write(handle)
    fs.mv(tmp, path)


def _copy(fs: Any | None, source: str, destination: BinaryIO) -> None:
    with fs.open(source, "rb") if fs is not None else open(source, "rb") as handle:
        shutil.copyfileobj(handle, destination)


class CrmDocumentStore(BaseDocumentStore):
    """A LlamaIndex document store over Parquet, with the graph's triples on top.

    Pass it explicitly (the default loader only knows ``docstore.json``)::

        StorageContext.from_defaults(docstore=CrmDocumentStore.from_persist_dir(folder))

    Args:
        triple_store: The graph: a :class:`TripleStore` (its archive file, if it was loaded
            from one, is what :meth:`persist` copies), or the path of a ``triples.parquet``
            archive loaded on first use of :attr:`triples`. ``None`` means an empty graph,
            unless :meth:`persist` finds an archive already written into its folder.
        fs: fsspec filesystem for the archive path and for :meth:`persist` (local if ``None``).
    """

    def __init__(
        self, triple_store: TripleStore | str | Path | None = None, fs: Any | None = None
    ) -> None:
        self._fs = fs
        self._triples: TripleStore | None = None
        self._triples_path: str | None = None
        if isinstance(triple_store, TripleStore):
            self._triples = triple_store
            self._triples_path = None if triple_store.path is None else str(triple_store.path)
        elif triple_store is not None:
            self._triples_path = str(triple_store)
        self._persist_dir: str | None = None
        self._rows = DocumentTable()

    @classmethod
    def class_name(cls) -> str:
        """Name under which LlamaIndex components identify this class."""
        return "CrmDocumentStore"

    # ----- persistence ------------------------------------------------------------------
    @classmethod
    def from_persist_dir(cls, persist_dir: str | Path, fs: Any | None = None) -> CrmDocumentStore:
        """Load the documents of a persisted folder; its triples load on first use.

        Raises:
            IndexFormatError: The folder, a file or a column is missing, or a file is corrupt.
        """
        folder = str(persist_dir)
        for name in (DOCUMENTS_FILE, TRIPLES_FILE):
            if not _exists(fs, f"{folder}/{name}"):
                raise IndexFormatError(
                    f"{folder} is not a CRM index: {name} is missing. {REBUILD_HINT}"
                )
        path = f"{folder}/{DOCUMENTS_FILE}"
        try:
            table = pq.read_table(path, filesystem=fs)
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise IndexFormatError(f"Cannot read {path}: {exc}. {REBUILD_HINT}") from exc
        found = (table.schema.metadata or {}).get(FORMAT_KEY)
        missing = [name for name in FIELDS if name not in table.column_names]
        if found != DOCUMENTS_FORMAT or missing:
            raise IndexFormatError(
                f"{path} is not a {DOCUMENTS_FORMAT.decode()} file (format {found!r}, "
                f"missing columns {missing}). {REBUILD_HINT}"
            )
        store = cls(triple_store=f"{folder}/{TRIPLES_FILE}", fs=fs)
        store._persist_dir = folder
        store._rows = DocumentTable(table)
        return store

    def persist(self, persist_path: str | None = None, fs: Any | None = None) -> None:
        """Write ``documents.parquet`` (and ``triples.parquet`` if needed) atomically.

        Args:
            persist_path: The folder, or a file inside it (``StorageContext.persist`` passes
                ``<folder>/docstore.json``); the folder it was loaded from when ``None``.
            fs: fsspec filesystem; the one given at construction when ``None``.
        """
        fs = fs if fs is not None else self._fs
        if persist_path is None and self._persist_dir is None:
            raise ValueError("persist_path is required for a docstore that was not loaded")
        folder = _target_dir(str(persist_path)) if persist_path else str(self._persist_dir)
        table = self._rows.to_arrow()
        write_table = partial(pq.write_table, table, compression="zstd")
        _atomic_write(fs, f"{folder}/{DOCUMENTS_FILE}", write_table)
        target = f"{folder}/{TRIPLES_FILE}"
        if self._triples_path is not None:
            if os.path.abspath(self._triples_path) != os.path.abspath(target):
                _atomic_write(fs, target, partial(_copy, fs, self._triples_path))
        elif self._triples is not None or not _exists(fs, target):
            _atomic_write(fs, target, self.triples.to_parquet)
            self._triples_path = target

    def _drop(self, doc_id: str) -> None:
        """Forget ``doc_id``; when it was the last node of its ref doc, forget that too."""
        record = self._rows.drop(doc_id)
        ref_doc_id = record.ref_doc_id if record is not None else None
        if ref_doc_id is not None and not self._rows.members("ref_doc_id", ref_doc_id):
            self._drop(ref_doc_id)

    # ----- documents --------------------------------------------------------------------
    @property
    def docs(self) -> dict[str, BaseNode]:
        """Every stored node by id (hash-only entries excluded)."""
        records = ((d, self._rows.get(d)) for d in self._rows.ids())
        return {d: r.to_node() for d, r in records if r is not None and r.node is not None}

    def add_documents(
        self,
        docs: Sequence[BaseNode],
        allow_update: bool = True,
        batch_size: int = DEFAULT_BATCH_SIZE,
        store_text: bool = True,
    ) -> None:
        """Add or replace nodes (``Document``, ``TextNode``...).

        Args:
            docs: The nodes.
            allow_update: When ``False``, a node whose id is already stored raises.
            batch_size: Unused: additions stay in memory until :meth:`persist`.
            store_text: When ``False``, only the hash and ref doc of each node are recorded.

        Raises:
            ValueError: A node exists and ``allow_update`` is ``False``.
        """
        for node in docs:
            if not allow_update and self.document_exists(node.node_id):
                raise ValueError(
                    f"node_id {node.node_id} already exists. Set allow_update to True to overwrite."
                )
            record = DocumentRecord.from_node(node)
            if not store_text:
                kept = self._rows.get(node.node_id) or DocumentRecord()
                metadata = kept.metadata if kept.node is not None else record.metadata
                record = replace(
                    kept,
                    hash=record.hash,
                    ref_doc_id=record.ref_doc_id,
                    metadata=metadata,
                )
            self._rows.put(node.node_id, record)

    async def async_add_documents(
        self,
        docs: Sequence[BaseNode],
        allow_update: bool = True,
        batch_size: int = DEFAULT_BATCH_SIZE,
        store_text: bool = True,
    ) -> None:
        """Async :meth:`add_documents` (the store is in memory: no I/O to await)."""
        self.add_documents(docs, allow_update, batch_size, store_text)

    def get_document(self, doc_id: str, raise_error: bool = True) -> BaseNode | None:
        """The node ``doc_id``; ``None`` (or ``ValueError``) when absent."""
        record = self._rows.get(doc_id)
        if record is None or record.node is None:
            if raise_error:
                raise ValueError(f"doc_id {doc_id} not found.")
            return None
        return record.to_node()

    async def aget_document(self, doc_id: str, raise_error: bool = True) -> BaseNode | None:
        """Async :meth:`get_document`."""
        return self.get_document(doc_id, raise_error)

    def get_by_uri(self, uri: str) -> BaseNode | None:
        """The first node whose ``metadata["uri"]`` is ``uri``, or ``None``."""
        ids = self._rows.members("uri", uri)
        return self.get_document(ids[0], raise_error=False) if ids else None

    def delete_document(self, doc_id: str, raise_error: bool = True) -> None:
        """Delete a node and its hash; ``ValueError`` when absent and ``raise_error``."""
        record = self._rows.get(doc_id)
        if record is None or record.node is None:
            if raise_error:
                raise ValueError(f"doc_id {doc_id} not found.")
            if record is None:
                return
        self._drop(doc_id)

    async def adelete_document(self, doc_id: str, raise_error: bool = True) -> None:
        """Async :meth:`delete_document`."""
        self.delete_document(doc_id, raise_error)

    def document_exists(self, doc_id: str) -> bool:
        """Whether the node ``doc_id`` is stored (a hash alone does not count)."""
        record = self._rows.get(doc_id)
        return record is not None and record.node is not None

    async def adocument_exists(self, doc_id: str) -> bool:
        """Async :meth:`document_exists`."""
        return self.document_exists(doc_id)

    # ----- hashes -----------------------------------------------------------------------
    def set_document_hash(self, doc_id: str, doc_hash: str) -> None:
        """Record the hash of ``doc_id`` (stored or not)."""
        self._rows.put(doc_id, replace(self._rows.get(doc_id) or DocumentRecord(), hash=doc_hash))

    async def aset_document_hash(self, doc_id: str, doc_hash: str) -> None:
        """Async :meth:`set_document_hash`."""
        self.set_document_hash(doc_id, doc_hash)

    def set_document_hashes(self, doc_hashes: dict[str, str]) -> None:
        """Record several hashes, ``{doc_id: hash}``."""
        for doc_id, doc_hash in doc_hashes.items():
            self.set_document_hash(doc_id, doc_hash)

    async def aset_document_hashes(self, doc_hashes: dict[str, str]) -> None:
        """Async :meth:`set_document_hashes`."""
        self.set_document_hashes(doc_hashes)

    def get_document_hash(self, doc_id: str) -> str | None:
        """The recorded hash of ``doc_id``, or ``None``."""
        record = self._rows.get(doc_id)
        return record.hash if record is not None else None

    async def aget_document_hash(self, doc_id: str) -> str | None:
        """Async :meth:`get_document_hash`."""
        return self.get_document_hash(doc_id)

    def get_all_document_hashes(self) -> dict[str, str]:
        """``{hash: doc_id}`` for every recorded hash (LlamaIndex's orientation)."""
        return {h: d for d, h in self._rows.values("hash") if h}

    async def aget_all_document_hashes(self) -> dict[str, str]:
        """Async :meth:`get_all_document_hashes`."""
        return self.get_all_document_hashes()

    # ----- ref docs ---------------------------------------------------------------------
    def get_ref_doc_info(self, ref_doc_id: str) -> RefDocInfo | None:
        """Node ids of a source document, with the metadata of its first node."""
        node_ids = self._rows.members("ref_doc_id", ref_doc_id)
        if not node_ids:
            return None
        first = self._rows.get(node_ids[0])
        metadata = first.metadata_dict() if first is not None else {}
        return RefDocInfo(node_ids=node_ids, metadata=metadata)

    async def aget_ref_doc_info(self, ref_doc_id: str) -> RefDocInfo | None:
        """Async :meth:`get_ref_doc_info`."""
        return self.get_ref_doc_info(ref_doc_id)

    def get_all_ref_doc_info(self) -> dict[str, RefDocInfo] | None:
        """``{ref_doc_id: RefDocInfo}`` for every source document."""
        infos = {key: self.get_ref_doc_info(key) for key in self._rows.keys("ref_doc_id")}
        return {key: info for key, info in infos.items() if info is not None}

    async def aget_all_ref_doc_info(self) -> dict[str, RefDocInfo] | None:
        """Async :meth:`get_all_ref_doc_info`."""
        return self.get_all_ref_doc_info()

    def ref_doc_exists(self, ref_doc_id: str) -> bool:
        """Whether any stored node comes from ``ref_doc_id``."""
        return bool(self._rows.members("ref_doc_id", ref_doc_id))

    def delete_ref_doc(self, ref_doc_id: str, raise_error: bool = True) -> None:
        """Delete a source document's nodes and its own entry."""
        node_ids = self._rows.members("ref_doc_id", ref_doc_id)
        if not node_ids:
            if raise_error:
                raise ValueError(f"ref_doc_id {ref_doc_id} not found.")
            return
        for doc_id in node_ids:
            self._drop(doc_id)
        self._drop(ref_doc_id)

    async def adelete_ref_doc(self, ref_doc_id: str, raise_error: bool = True) -> None:
        """Async :meth:`delete_ref_doc`."""
        self.delete_ref_doc(ref_doc_id, raise_error)

    # ----- triples ----------------------------------------------------------------------
    @property
    def triples(self) -> TripleStore:
        """The graph's :class:`TripleStore`, loaded on first use."""
        if self._triples is None:
            with _LOAD_LOCK:  # threads asking at once load it once
                if self._triples is None:
                    if self._triples_path is None:
                        self._triples = TripleStore.from_triples([])
                    else:
                        self._triples = TripleStore.load(self._triples_path, fs=self._fs)
        return self._triples

    def triples_of(self, uri: str) -> list[Triple]:
        """Every triple with ``uri`` as subject or object."""
        return self.triples.triples_of(uri)

    def neighbours(self, uri: str) -> list[str]:
        """Distinct nodes linked to ``uri`` either way (literals excluded)."""
        return self.triples.neighbours(uri)
