"""``GraphData``: the loaded arrays of one persisted index, as one object.

Rows (document ids, vectors, FAISS, BM25, per-row metadata), the integer-encoded triple
store, the FR-link arrays, statistics and the manifest. It sits below the retrievers, the
query package and the exact-answer layer: they read the graph through it, never through
:class:`~llama_index_crm.index.CrmGraphIndex` (the facade that builds, persists and hands
out those parts).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeVar

import faiss
import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.schema import BaseNode
from llama_index.retrievers.bm25 import BM25Retriever
from threadpoolctl import threadpool_limits

from llama_index_crm.embeddings import (
    OFFLINE_MODEL_NAME,
    backend_of,
    load_embed_model,
    model_id,
    set_torch_threads,
)
from llama_index_crm.encoders import TORCH, backend_name
from llama_index_crm.errors import CrmError, IndexFormatError
from llama_index_crm.graph.channels import DenseChannel, LexicalChannel, NameMatcher
from llama_index_crm.graph.parts import (
    BM25_DIR,
    BM25_SETTINGS,
    DOC_IDS,
    DOC_META,
    FAISS_FILE,
    FR_OFFSETS,
    FR_TARGETS,
    VECTORS,
    Bm25Settings,
    DocMeta,
    load_bm25,
)
from llama_index_crm.graph.vector_stores import StoreSearch, check_recorded, open_recorded
from llama_index_crm.ontology import Ontology
from llama_index_crm.rdf import fold_label
from llama_index_crm.storage import CrmDocumentStore, TripleStore
from llama_index_crm.storage.manifest import read_manifest, rebuild_hint
from llama_index_crm.storage.names import NAMES_FILE, NameRow, read_names
from llama_index_crm.storage.statistics import GraphStatistics

METADATA_CLASSES = frozenset(
    {"Appellation", "Inscription", "Linguistic Object", "Identifier", "Title",
     "Information Object"}
)
"""Class labels of documents that describe other documents (capped in candidate pools)."""
TERM_LINKS_CACHED = 256
"""Names whose :meth:`GraphData.term_links` look-ups are kept (one label scan each)."""

G = TypeVar("G", bound="GraphData")
_LOAD_LOCK = threading.Lock()
"""Held while an embedding model loads on first use (a load, never a query, waits on it)."""

class GraphData:
    """Documents, triples, vectors, BM25 and statistics of one CIDOC-CRM graph, loaded.

    Open a persisted folder with :meth:`load`. Every look-up the query side needs is a
    method here (rows by category, the document an entity is in, FR links, names).
    """

    def __init__(
        self,
        folder: Path,
        docstore: CrmDocumentStore,
        doc_ids: list[str],
        vectors: np.ndarray,
        faiss_index: Any,
        bm25: BM25Retriever,
        bm25_settings: Bm25Settings,
        statistics: GraphStatistics,
        manifest: dict[str, Any],
        meta: DocMeta,
        fr_csr: tuple[np.ndarray, np.ndarray],
        embed_model: BaseEmbedding | None = None,
        ontology: Ontology | None = None,
        vector_store: Any = None,
    ) -> None:
        self.folder = folder
        self.docstore = docstore
        self.doc_ids = doc_ids
        self.row_of = {d: i for i, d in enumerate(doc_ids)}
        self.vectors = vectors
        self.faiss_index = faiss_index
        self.bm25 = bm25
        self.bm25_settings = bm25_settings
        self.statistics = statistics
        self.manifest = manifest
        self.meta = meta
        self.fr_offsets, self.fr_targets = fr_csr
        self.ontology = ontology or Ontology.default()
        self._embed_model = embed_model
        recorded = manifest.get("vector_store")
        self.vector_store = vector_store
        """The LlamaIndex vector store given to :meth:`load` (None: FAISS or the recorded
        store, opened on the first search)."""
        store = None
        if vector_store is not None:
            store = StoreSearch(lambda: vector_store, self.row_of, vectors)
        elif recorded is not None:
            store = StoreSearch(lambda: open_recorded(recorded, folder), self.row_of, vectors)
        self.dense = DenseChannel(vectors, faiss_index, store)
        self.lexical = LexicalChannel(bm25, bm25_settings.language)
        self.names = NameMatcher(meta.names)
        """Whole names of entities found verbatim in a question: entity linking."""
        self._nodes: dict[str, BaseNode] = {}
        self._rows_by_category: dict[str, np.ndarray] = {}
        self._metadata_rows: np.ndarray | None = None
        self._entity_doc: dict[str, str] | None = None
        self.query_threads = 1
        """torch, FAISS and BLAS threads for queries (one is fastest for one short query)."""
        self._blas_limited = False
        self._doc_names: set[str] | None = None
        self._term_links: dict[str, list[tuple[str, str, list[str]]]] = {}
        """Look-ups of :meth:`term_links` (the pool and the answer ask for the same names)."""
        self._name_rows: list[NameRow] | None = None

    # -- parts ---------------------------------------------------------------------------
    @property
    def triples(self) -> TripleStore:
        """The integer-encoded triple store (loaded on first use)."""
        return self.docstore.triples

    @property
    def embed_model(self) -> BaseEmbedding:
        """The embedding model the index was built with (loaded on first use)."""
        if self._embed_model is None:
            with _LOAD_LOCK:  # threads asking at once load it once
                return self._load_embed_model()
        return self._embed_model

    def _load_embed_model(self) -> BaseEmbedding:
        if self._embed_model is not None:
            return self._embed_model
        name = self.manifest.get("embedding", {}).get("model_name")
        default = name in (None, OFFLINE_MODEL_NAME)
        try:
            model = load_embed_model(None if default else name, backend=self.embed_backend,
                                     threads=self.query_threads)
        except (OSError, CrmError) as exc:
            raise IndexFormatError(
                f"{self.folder} was built with the embedding model {name}, which cannot "
                f"be loaded here ({type(exc).__name__}: {str(exc)[:200]}). Make the model "
                "available (a local path or a cached download), or "
                f"{rebuild_hint(self.folder)} (default offline model)"
            ) from exc
        built_with = self.manifest.get("embedding", {}).get("model")
        if built_with is not None and model_id(model) != built_with:
            raise IndexFormatError(
                f"{self.folder} was built with the embedding model {built_with}, but its "
                f"manifest's model name loads {model_id(model)}: the manifest is "
                f"inconsistent. {rebuild_hint(self.folder)}"
            )
        self._embed_model = model  # whole and checked before another thread sees it
        return model

    @property
    def embed_backend(self) -> str:
        """The encoder backend the index was built with (``torch`` for older folders)."""
        backend = self.manifest.get("embedding", {}).get("backend") or TORCH
        return TORCH if backend == "custom" else str(backend)

    def node(self, doc_id: str) -> BaseNode:
        """The document node ``doc_id`` (cached)."""
        node = self._nodes.get(doc_id)
        if node is None:
            node = self.docstore.get_document(doc_id)
            assert node is not None
            self._nodes[doc_id] = node
        return node

    def category_of_row(self, row: int) -> str:
        """The category of the document at ``row``."""
        return self.meta.categories[row]

    def rows_in(self, categories: Iterable[str]) -> np.ndarray:
        """Rows of the documents in any of ``categories`` (sorted)."""
        parts = []
        for cat in categories:
            rows = self._rows_by_category.get(cat)
            if rows is None:
                rows = np.flatnonzero(np.asarray(self.meta.categories, dtype=object) == cat)
                self._rows_by_category[cat] = rows
            parts.append(rows)
        return np.unique(np.concatenate(parts)) if parts else np.zeros(0, np.int64)

    def is_metadata_row(self, row: int) -> bool:
        """True for documents about other documents: titles, inscriptions, identifiers."""
        if self._metadata_rows is None:
            self._metadata_rows = np.array(
                [bool(set(c) & METADATA_CLASSES) for c in self.meta.classes], dtype=bool)
        return bool(self._metadata_rows[row])

    def doc_of_entity(self, uri: str) -> str | None:
        """The document an entity's facts are in: its own, or the one it was chained into."""
        if self._entity_doc is None:
            mapping: dict[str, str] = {}
            for doc, chained in zip(self.doc_ids, self.meta.chained_from, strict=True):
                mapping[doc] = doc
                for e in chained:
                    mapping.setdefault(e, doc)
            self._entity_doc = mapping
        return self._entity_doc.get(uri)

    def type_labels(self) -> list[tuple[str, str]]:
        """(class or type label, category) for every document: the vocabulary of questions.

        "Which churches…" is about Things when the graph types its churches with an E55
        labelled "church"; the rule-based analyzer learns such nouns from here.
        """
        pairs: set[tuple[str, str]] = set()
        for cat, classes, types in zip(self.meta.categories, self.meta.classes,
                                       self.meta.types, strict=True):
            pairs.update((c.lower(), cat) for c in classes)
            pairs.update((t.lower(), cat) for t in types)
        return sorted(pairs)

    def fr_links(self, uri: str) -> list[str]:
        """Entities linked to ``uri`` by an FR match, either way (sorted).

        The FR graph links a work to its maker, a maker to their works, a place to what is
        located in it, across the intermediate events the triples go through. Stored as
        CSR arrays over the triple store's term ids, so a look-up is O(degree).
        """
        term = self.triples.id_of(uri)
        if term is None or term + 1 >= len(self.fr_offsets):
            return []
        start, end = int(self.fr_offsets[term]), int(self.fr_offsets[term + 1])
        return [self.triples.term(int(t)) for t in self.fr_targets[start:end]]

    def has_document_named(self, name: str) -> bool:
        """Whether some document's label is ``name`` (case and spaces ignored)."""
        if self._doc_names is None:
            self._doc_names = {fold_label(label) for label in self.meta.labels}
        return fold_label(name) in self._doc_names

    def term_links(self, name: str) -> list[tuple[str, str, list[str]]]:
        """Nodes labelled ``name`` and the entities that point at them, for names without
        a document of their own (a place the data only names, a vocabulary term).

        Returns:
            ``(node, label, subjects of its incoming triples)`` per node, most linked first.
        """
        key = fold_label(name)
        cached = self._term_links.get(key)
        if cached is not None:
            return cached
        store = self.triples
        found = []
        for term in store.ids_labelled(name):
            subjects = sorted({store.term(int(s)) for s in store.in_ids(int(term))[1]})
            if subjects:
                found.append((store.term(int(term)), store.label_of(int(term)) or name,
                              subjects))
        found.sort(key=lambda f: (-len(f[2]), f[0]))
        if len(self._term_links) >= TERM_LINKS_CACHED:
            self._term_links.clear()
        self._term_links[key] = found
        return found

    def name_rows(self) -> list[NameRow]:
        """Every name of every node (``names.parquet``), read on first use."""
        if self._name_rows is None:
            self._name_rows = read_names(self.folder)
        return self._name_rows

    def warm(self) -> None:
        """Load what the first query would otherwise load (triple store, look-up tables)."""
        _ = self.triples
        self.doc_of_entity("")
        if self.doc_ids:
            self.is_metadata_row(0)
        _ = self.embed_model

    def embed_query(self, text: str) -> np.ndarray:
        """The normalised query vector of ``text``."""
        model = self.embed_model
        set_torch_threads(self.query_threads)
        if faiss.omp_get_max_threads() != self.query_threads:
            # one short search: threads cost more than they save (16 ms → 1 ms on NPG)
            faiss.omp_set_num_threads(self.query_threads)
        if not self._blas_limited:
            # numpy's OpenBLAS threads spin between the small products of a query: on 2
            # cores they doubled the CPU time of a question (55 ms wall, 101 ms CPU)
            threadpool_limits(limits=self.query_threads, user_api="blas")
            self._blas_limited = True
        vec = np.asarray(model.get_query_embedding(text), dtype=np.float32)
        norm = float(np.linalg.norm(vec))
        return vec / norm if norm else vec

    # -- building ------------------------------------------------------------------------

    def close(self) -> None:
        """Let go of the vector store's files (a Qdrant folder is locked while open)."""
        if self.dense.store is not None:
            self.dense.store.close()

    @classmethod
    def load(cls: type[G], folder: str | Path, *, embed_model: BaseEmbedding | str | None = None,
             embed_backend: str | None = None,
             manifest: dict[str, Any] | None = None, vector_store: Any = None) -> G:
        """Open a persisted index.

        Args:
            folder: the index folder.
            embed_model: override the embedding model (it must be the one the index was
                built with: the manifest's model and dimension are checked).
            embed_backend: the encoder backend expected (None: the one the index was built
                with, from its manifest); another one is refused.
            manifest: the manifest, when the caller has just written it.
            vector_store: the LlamaIndex vector store the index was built with, when its
                manifest cannot name it (a store other than FAISS, LanceDB or Qdrant);
                None: FAISS, or the store the manifest records
                (:mod:`~llama_index_crm.graph.vector_stores`).

        Raises:
            IndexFormatError: missing or corrupt folder, another package version, another
                embedding model or backend; the message says how to rebuild.
        """
        path = Path(folder)
        manifest = manifest or read_manifest(path)
        built_backend = manifest["embedding"].get("backend") or TORCH
        asked = backend_name(embed_backend) if embed_backend is not None else None
        if isinstance(embed_model, BaseEmbedding):
            asked = backend_of(embed_model)
        if asked is not None and asked != built_backend:
            option = "--embed-model <name>" if asked == "custom" else f"--embed-backend {asked}"
            raise IndexFormatError(
                f"{path} was embedded with the {built_backend} backend, not {asked}: its "
                f"vectors are not that backend's. Load it without embed_backend, or rebuild "
                f"it: crm-rag build <your RDF files> --out {path} {option}"
            )
        if isinstance(embed_model, str) and embed_model != manifest["embedding"]["model_name"]:
            raise IndexFormatError(
                f"{path} was built with the embedding model "
                f"{manifest['embedding']['model_name']}, not {embed_model}: its vectors cannot "
                f"be compared with that model's. Load it without embed_model, or rebuild it: "
                f"crm-rag build <your RDF files> --out {path} --embed-model {embed_model}"
            )
        model = (load_embed_model(embed_model, backend=asked or built_backend)
                 if embed_model is not None else None)
        if model is not None and model_id(model) != manifest["embedding"]["model"]:
            raise IndexFormatError(
                f"{path} was built with the embedding model {manifest['embedding']['model']}, "
                f"not {model_id(model)}: its vectors cannot be compared with this model's. "
                f"Load it without embed_model, or rebuild it: crm-rag build <your RDF files> "
                f"--out {path} --embed-model <name>"
            )
        try:
            docstore = CrmDocumentStore.from_persist_dir(path)
            doc_ids = json.loads((path / DOC_IDS).read_text())
            vectors = np.load(path / VECTORS, mmap_mode="r")
            recorded = manifest.get("vector_store")
            faiss_index = faiss.read_index(str(path / FAISS_FILE)) if recorded is None \
                else None
            if recorded is not None and vector_store is None:
                check_recorded(recorded, path)
            settings = Bm25Settings(**json.loads((path / BM25_DIR / BM25_SETTINGS).read_text()))
            bm25 = load_bm25(path / BM25_DIR, settings)
            statistics = GraphStatistics.load(path)
            meta = DocMeta.read(path / DOC_META)
            fr_csr = (np.load(path / FR_OFFSETS), np.load(path / FR_TARGETS))
            if not (path / NAMES_FILE).is_file():
                raise FileNotFoundError(f"no {NAMES_FILE}")
        except IndexFormatError:
            raise
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            raise IndexFormatError(
                f"{path} is incomplete or corrupt ({type(exc).__name__}: {exc}). "
                f"{rebuild_hint(path)}"
            ) from exc
        entries = len(doc_ids) if faiss_index is None else faiss_index.ntotal
        if len(doc_ids) != len(vectors) or entries != len(doc_ids):
            raise IndexFormatError(
                f"{path}: {len(doc_ids)} documents but {len(vectors)} vectors and "
                f"{entries} FAISS entries. {rebuild_hint(path)}"
            )
        return cls(path, docstore, doc_ids, np.asarray(vectors), faiss_index, bm25, settings,
                   statistics, manifest, meta, fr_csr, embed_model=model,
                   vector_store=vector_store)
