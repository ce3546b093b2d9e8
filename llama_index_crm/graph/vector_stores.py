"""Any LlamaIndex vector store in place of FAISS for the dense channel's unrestricted search.

FAISS (``faiss.index`` in the folder) is the default. With another store, the build fills
it with one node per document and records it in the manifest (``"vector_store"``), so that
:meth:`~llama_index_crm.graph.data.GraphData.load` finds it again:

* ``lancedb:PATH`` — an embedded LanceDB database (``pip install llama-index-crm[lancedb]``);
* ``qdrant:PATH`` — Qdrant in local mode, on disk; ``qdrant:http://HOST:6333`` — a Qdrant
  server (``pip install llama-index-crm[qdrant]``);
* any ``BasePydanticVectorStore`` instance (LanceDB and Qdrant ones are recognised and
  recorded; another kind is recorded by class, and must be given again to ``load``).

A node's id is ``uuid5(NAMESPACE_URL, document uri)`` (Qdrant accepts only UUIDs and
integers) and its metadata holds the uri. The normalised vectors stay in ``vectors.npy``:
the rows a store returns are scored again against them, so a store's distance (L2, cosine,
its own similarity transform) does not change the order, and category-restricted searches
need no store at all. An embedded store's path is recorded relative to the index folder;
one inside the folder is written into the build's work folder, so it is replaced with the
folder (atomically) and an update can write it again.
"""

from __future__ import annotations

import os
import shutil
import threading
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from llama_index_crm.errors import CrmError, IndexFormatError

KINDS = ("faiss", "lancedb", "qdrant")
DEFAULT_NAME = "crm_documents"
"""The LanceDB table or Qdrant collection of an index's documents."""
DEFAULT_PATH = "vector_store"
"""Where ``lancedb`` or ``qdrant`` without a path puts the store: inside the index folder."""
BATCH = 2048
OVERFETCH = 10
"""Rows asked beyond ``k``, scored again against the vectors before the best ``k`` are kept."""
EXTRAS = {"lancedb": "llama-index-crm[lancedb]", "qdrant": "llama-index-crm[qdrant]"}


def node_id(uri: str) -> str:
    """The store id of a document: a UUID derived from its uri (the same on every build).

    >>> node_id("http://example.org/a") == node_id("http://example.org/a")
    True
    """
    return str(uuid.uuid5(uuid.NAMESPACE_URL, uri))


@dataclass(frozen=True)
class StoreSpec:
    """A store named on the command line or in a manifest.

    Args:
        kind: ``lancedb`` or ``qdrant``.
        location: a path (embedded) or a URL (a Qdrant server).
        name: the table or collection.
    """

    kind: str
    location: str
    name: str = DEFAULT_NAME

    @property
    def is_url(self) -> bool:
        """Whether the store is a server (not a folder)."""
        return "://" in self.location

    @classmethod
    def parse(cls, text: str) -> StoreSpec | None:
        """``faiss`` (None), ``lancedb[:PATH]``, ``qdrant[:PATH_OR_URL]``; ``#NAME`` after
        the location names the table or collection.

        >>> StoreSpec.parse("qdrant:http://localhost:6333#art")
        StoreSpec(kind='qdrant', location='http://localhost:6333', name='art')
        >>> StoreSpec.parse("lancedb").location  # the index folder's vector_store/
        ''
        """
        kind, _, rest = text.partition(":")
        kind = kind.strip().lower()
        if kind not in KINDS:
            raise ValueError(f"unknown vector store {kind!r}: one of {', '.join(KINDS)}, "
                             "e.g. lancedb:PATH or qdrant:PATH_OR_URL")
        if kind == "faiss":
            return None
        location, _, name = rest.partition("#")
        if kind == "lancedb" and "://" in location:
            raise ValueError("lancedb takes a folder, not a URL: lancedb:PATH")
        return cls(kind, location, name or DEFAULT_NAME)

    def resolved(self, folder: Path) -> StoreSpec:
        """The spec with an embedded path made absolute against ``folder``."""
        if self.is_url:
            return self
        return StoreSpec(self.kind, str((folder / self.location).resolve()), self.name)

    def record(self, folder: Path) -> dict[str, str]:
        """The manifest entry: an embedded path relative to the index folder ``folder``."""
        entry = {"kind": self.kind, "name": self.name}
        if self.is_url:
            entry["url"] = self.location
        else:
            entry["path"] = os.path.relpath(Path(self.location).resolve(), folder.resolve())
        return entry

    @classmethod
    def from_record(cls, entry: dict[str, Any]) -> StoreSpec:
        """What :meth:`record` wrote (paths still relative)."""
        return cls(str(entry["kind"]), str(entry.get("url") or entry["path"]),
                   str(entry.get("name", DEFAULT_NAME)))

    def inside(self, folder: Path) -> bool:
        """Whether the embedded store lies inside ``folder`` (moved with it)."""
        if self.is_url:
            return False
        return Path(self.location).resolve().is_relative_to(folder.resolve())

    def require(self) -> None:
        """Fail now (not after the embedding) when the store's packages are missing."""
        import importlib.util

        needed = ("lancedb", "pandas", "llama_index.vector_stores.lancedb") \
            if self.kind == "lancedb" else ("qdrant_client", "llama_index.vector_stores.qdrant")
        missing = [m for m in needed if importlib.util.find_spec(m) is None]
        if missing:
            raise CrmError(f"the {self.kind} vector store needs {', '.join(missing)}: pip "
                           f"install '{EXTRAS[self.kind]}'")

    def open(self, *, fresh: bool = False) -> Any:
        """The LlamaIndex vector store (``fresh``: its table or collection emptied)."""
        try:
            if self.kind == "lancedb":
                from llama_index.vector_stores.lancedb import LanceDBVectorStore

                return LanceDBVectorStore(uri=self.location, table_name=self.name,
                                          mode="overwrite" if fresh else "append")
            import qdrant_client
            from llama_index.vector_stores.qdrant import QdrantVectorStore
        except ImportError as exc:
            raise CrmError(f"the {self.kind} vector store needs its packages: pip install "
                           f"'{EXTRAS[self.kind]}' ({exc})") from exc
        try:
            client = qdrant_client.QdrantClient(url=self.location) if self.is_url else \
                qdrant_client.QdrantClient(path=self.location)
        except RuntimeError as exc:  # local mode: one client per folder
            raise CrmError(f"the Qdrant folder {self.location} is open elsewhere (Qdrant's "
                           f"local mode allows one client: close the other index with "
                           f".close(), or serve it with a Qdrant server): {exc}") from exc
        if fresh and client.collection_exists(self.name):
            client.delete_collection(self.name)
        # no payload index on doc ids: nothing filters by them (and local mode ignores it)
        return QdrantVectorStore(collection_name=self.name, client=client, index_doc_id=False)


def describe(store: Any, folder: Path) -> dict[str, str]:
    """The manifest entry of a store instance: LanceDB and Qdrant ones by location, any
    other by class (it must then be given to ``load`` again)."""
    kind = type(store).__name__
    if kind == "LanceDBVectorStore" and store.uri and "://" not in str(store.uri):
        table = getattr(store, "_table_name", None) or "vectors"  # a private attribute
        return StoreSpec("lancedb", str(store.uri), str(table)).record(folder)
    if kind == "QdrantVectorStore":
        options = dict(store.client.init_options)
        location = options.get("path") or options.get("url") or options.get("location")
        if location and location != ":memory:":
            return StoreSpec("qdrant", str(location), store.collection_name).record(folder)
    return {"kind": "custom", "class": f"{type(store).__module__}.{kind}"}


def fill(store: Any, doc_ids: Sequence[str], vectors: np.ndarray, *,
         unsynced: bool = False) -> None:
    """Add one node per document (id: :func:`node_id`, metadata: its uri, its vector).

    ``unsynced``: a Qdrant local-mode store made for this build commits each point to
    SQLite without waiting for the disk (5–22 ms a point otherwise, by disk and load: YCBA's
    3,867 took 20–53 s, 9 s without);
    the build's folder is renamed into place only once it is complete, and the client is
    closed (everything written) before.
    """
    from llama_index.core.schema import TextNode

    def nodes(rows: range) -> list[Any]:
        return [TextNode(id_=node_id(doc_ids[r]), text="", metadata={"uri": doc_ids[r]},
                         embedding=[float(x) for x in vectors[r]]) for r in rows]

    first = min(1, len(doc_ids))
    store.add(nodes(range(first)))  # the collection or table is made by the first add
    if unsynced:
        _no_sync(store)
    for start in range(first, len(doc_ids), BATCH):
        store.add(nodes(range(start, min(start + BATCH, len(doc_ids)))))


def _no_sync(store: Any) -> None:
    """SQLite without waiting for the disk (``synchronous=OFF``, the journal in memory) on a
    Qdrant local-mode client's collections."""
    local = getattr(getattr(store, "client", None), "_client", None)
    for collection in getattr(local, "collections", {}).values():
        connection = getattr(getattr(collection, "storage", None), "storage", None)
        if connection is not None:
            connection.execute("PRAGMA synchronous=OFF")
            connection.execute("PRAGMA journal_mode=MEMORY")


def close(store: Any) -> None:
    """Let go of a store's files (Qdrant's local mode locks its folder)."""
    client = getattr(store, "client", None) if type(store).__name__ == "QdrantVectorStore" \
        else None
    if client is not None:
        client.close()


def write_store(spec: StoreSpec | Any, work: Path, out: Path, doc_ids: Sequence[str],
                vectors: np.ndarray) -> dict[str, str]:
    """Fill the store of a build written into ``work`` (renamed to ``out`` when done) and
    return its manifest entry.

    A spec's path inside ``out`` is written at the same place inside ``work``; a store
    instance must lie outside ``out`` (the folder is replaced).
    """
    if isinstance(spec, StoreSpec):
        target = asked = spec.resolved(Path.cwd())
        if target.inside(out):
            rel = Path(target.location).resolve().relative_to(out.resolve())
            target = StoreSpec(spec.kind, str(work / rel), spec.name)
            if (work / rel).exists():
                shutil.rmtree(work / rel)
        store = target.open(fresh=True)
        try:
            fill(store, doc_ids, vectors, unsynced=spec.kind == "qdrant" and not spec.is_url)
        finally:
            close(store)
        return asked.record(out)
    entry = describe(spec, out)
    if "path" in entry and not entry["path"].startswith(".."):
        raise ValueError(f"the vector store's folder is inside the index folder {out}, which "
                         f"the build replaces: give it as a spec (lancedb:PATH, qdrant:PATH) "
                         f"or put it elsewhere")
    fill(spec, doc_ids, vectors)
    return entry


def check_recorded(entry: dict[str, Any], folder: Path) -> StoreSpec:
    """The spec of a manifest entry, resolved against the index folder ``folder``; an
    unknown kind or a missing embedded folder is refused (saying what to do)."""
    if entry.get("kind") not in ("lancedb", "qdrant"):
        raise IndexFormatError(
            f"{folder} was built with a vector store of class {entry.get('class')}, which "
            f"cannot be opened from the manifest: load it with vector_store=<that store>")
    spec = StoreSpec.from_record(entry).resolved(folder)
    if not spec.is_url and not Path(spec.location).exists():
        raise IndexFormatError(
            f"{folder}: its {spec.kind} vector store is not at {spec.location} (the manifest "
            f"records {entry.get('path')}, relative to the index folder); move it back or "
            f"rebuild with crm-rag build ... --vector-store {spec.kind}:PATH")
    return spec


def open_recorded(entry: dict[str, Any], folder: Path) -> Any:
    """The store a manifest entry names, opened from the index folder ``folder``."""
    return check_recorded(entry, folder).open()


class StoreSearch:
    """The unrestricted dense search over a vector store, rows scored again exactly.

    Args:
        opener: opens the store on first use (so that a loaded index holds no lock on a
            Qdrant folder until it searches).
        row_of: document uri → row.
        vectors: the normalised vectors (the same rows).
    """

    def __init__(self, opener: Any, row_of: dict[str, int], vectors: np.ndarray) -> None:
        self._opener = opener
        self.store: Any = None
        self.row_of = row_of
        self.vectors = vectors
        self._row_of_id: dict[str, int] | None = None
        self._lock = threading.Lock()

    def rows_for(self, result: Any) -> list[int]:
        """The rows of a query result, by node metadata (the uri) or by id."""
        rows: list[int] = []
        nodes = result.nodes or []
        ids = result.ids or []
        for i in range(max(len(nodes), len(ids))):
            uri = nodes[i].metadata.get("uri") if i < len(nodes) else None
            row = self.row_of.get(uri) if uri else None
            if row is None and i < len(ids):
                if self._row_of_id is None:
                    self._row_of_id = {node_id(d): r for d, r in self.row_of.items()}
                row = self._row_of_id.get(str(ids[i]))
            if row is not None:
                rows.append(row)
        return rows

    def search(self, q: np.ndarray, k: int) -> list[tuple[int, float]]:
        """The ``k`` best rows for the normalised query ``q`` (shape (1, d))."""
        from llama_index.core.vector_stores.types import VectorStoreQuery

        if self.store is None:
            with self._lock:  # threads searching at once open it once
                if self.store is None:
                    self.store = self._opener()
        query = VectorStoreQuery(query_embedding=[float(x) for x in q[0]],
                                 similarity_top_k=min(k + OVERFETCH, len(self.vectors)))
        try:
            result = self.store.query(query)
        except Warning:  # LanceDB raises one for an empty result
            return []
        rows = np.asarray(list(dict.fromkeys(self.rows_for(result))), dtype=np.int64)
        if len(rows) == 0:
            return []
        sims = self.vectors[rows] @ q[0]
        order = np.lexsort((rows, -sims))[:k]  # by score, then (ties: the same text) by row
        return [(int(rows[i]), float(sims[i])) for i in order]

    def close(self) -> None:
        """Close the store (it is opened again on the next search)."""
        with self._lock:
            if self.store is not None:
                close(self.store)
                self.store = None
