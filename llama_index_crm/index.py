"""``CrmGraphIndex``: one folder holding everything a CIDOC-CRM graph needs at query time.

Layout of a persisted index::

    manifest.json        versions, embedding model and dimension, counts, config hash
    documents.parquet    the docstore (CrmDocumentStore)
    triples.parquet      every triple seen, labelled (TripleStore)
    fr_edges.parquet     the FR graph: one row per FR match
    doc_ids.json         row → document id (rows of the vectors, FAISS and BM25)
    vectors.npy          normalised document embeddings (float32)
    faiss.index          FAISS IndexFlatIP (or HNSW above ``approximate_above`` documents)
    doc_meta.parquet     per row: label, category, classes, chained entities, types, names
    fr_offsets.npy       the FR graph as CSR arrays over the triple store's term ids
    fr_targets.npy
    bm25/                llama-index-retrievers-bm25 + bm25_settings.json (tokenizer)
    statistics.json      counts, top documents per category; pagerank.parquet

The folder is written into a temporary sibling and renamed when complete.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import bm25s
import faiss
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import Stemmer
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.chat_engine.types import BaseChatEngine
from llama_index.core.llms import LLM
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import BaseNode, MetadataMode, TextNode
from llama_index.retrievers.bm25 import BM25Retriever
from threadpoolctl import threadpool_limits

from llama_index_crm import __version__
from llama_index_crm.build.builder import (
    CHUNK_SIZE,
    DEFAULT_FR_PATHS,
    FR_EDGES_FILE,
    TRIPLES_FILE,
    BuildStats,
    FRPaths,
)
from llama_index_crm.build.folder import (
    FORMAT,
    MANIFEST,
    build_structure,
    config_hash,
    replace_folder,
    source_record,
    work_dir_for,
    write_manifest,
)
from llama_index_crm.embeddings import (
    EMBED_CHARS,
    EmbeddingCache,
    embed_texts,
    embedding_text,
    load_embed_model,
    model_id,
    set_torch_threads,
)
from llama_index_crm.errors import IndexFormatError
from llama_index_crm.ontology import Ontology
from llama_index_crm.rdf import fold_label
from llama_index_crm.retrievers.channels import DenseChannel, LexicalChannel, NameMatcher
from llama_index_crm.sources import open_source
from llama_index_crm.sources.base import GraphSource
from llama_index_crm.storage import CrmDocumentStore, TripleStore
from llama_index_crm.storage.statistics import GraphStatistics

if TYPE_CHECKING:
    from llama_index_crm.query.engine import CrmAnswer, CrmQueryPipeline
    from llama_index_crm.retrievers.pool import CandidatePoolRetriever

DOC_IDS = "doc_ids.json"
VECTORS = "vectors.npy"
FAISS_FILE = "faiss.index"
BM25_DIR = "bm25"
BM25_SETTINGS = "bm25_settings.json"
DOC_META = "doc_meta.parquet"
FR_OFFSETS = "fr_offsets.npy"
FR_TARGETS = "fr_targets.npy"
APPROXIMATE_ABOVE = 200_000
"""Documents above which FAISS switches from exact (flat) to HNSW search."""
METADATA_CLASSES = frozenset(
    {"Appellation", "Inscription", "Linguistic Object", "Identifier", "Title",
     "Information Object"}
)
"""Class labels of documents that describe other documents (capped in candidate pools)."""
TERM_LINKS_CACHED = 256
"""Names whose :meth:`CrmGraphIndex.term_links` look-ups are kept (one label scan each)."""


@dataclass(frozen=True, slots=True)
class Bm25Settings:
    """How the BM25 corpus was tokenised; re-applied to queries after loading."""

    language: str = "en"
    stemmer: str = "english"
    token_pattern: str = r"(?u)\b\w\w+\b"
    skip_stemming: bool = False


@dataclass(frozen=True, slots=True)
class DocMeta:
    """Per-row document metadata, read as columns (no node parsing at query time)."""

    labels: list[str]
    categories: list[str]
    classes: list[list[str]]
    chained_from: list[list[str]]
    types: list[list[str]]
    names: list[list[str]]

    @classmethod
    def from_documents(cls, docs: Sequence[Any]) -> DocMeta:
        """From the build's entity documents (types read from their ``Type:`` line)."""
        types = []
        for d in docs:
            line = next((x for x in d.text.splitlines()[1:5] if x.startswith("Type: ")), "")
            labels = [re.sub(r" \(.*\)$", "", t).strip() for t in line[6:].split("; ") if t]
            types.append([t for t in labels if t and "unlabelled" not in t])
        return cls([d.label for d in docs], [d.category for d in docs],
                   [list(d.classes) for d in docs], [list(d.chained_from) for d in docs], types,
                   [names_of(d) for d in docs])

    def write(self, path: Path, doc_ids: list[str]) -> None:
        """Write as Parquet."""
        pq.write_table(pa.table({
            "doc_id": doc_ids, "label": self.labels, "category": self.categories,
            "classes": pa.array(self.classes, pa.list_(pa.string())),
            "chained_from": pa.array(self.chained_from, pa.list_(pa.string())),
            "types": pa.array(self.types, pa.list_(pa.string())),
            "names": pa.array(self.names, pa.list_(pa.string())),
        }), path)

    @classmethod
    def read(cls, path: Path) -> DocMeta:
        """Read what :meth:`write` wrote."""
        t = pq.read_table(path)
        return cls(t.column("label").to_pylist(), t.column("category").to_pylist(),
                   t.column("classes").to_pylist(), t.column("chained_from").to_pylist(),
                   t.column("types").to_pylist(), t.column("names").to_pylist())


def fr_link_arrays(store: TripleStore, fr_edges: pa.Table) -> tuple[np.ndarray, np.ndarray]:
    """CSR (offsets, targets) over term ids of the FR graph, both directions, deduplicated."""
    s = store.ids_of(fr_edges.column("s"))
    o = store.ids_of(fr_edges.column("o"))
    keep = (s >= 0) & (o >= 0)
    src = np.concatenate([s[keep], o[keep]])
    dst = np.concatenate([o[keep], s[keep]])
    pairs = np.unique(np.stack([src, dst], axis=1), axis=0) if len(src) else \
        np.zeros((0, 2), np.int64)
    offsets = np.zeros(store.terms + 1, dtype=np.int64)
    np.add.at(offsets, pairs[:, 0] + 1, 1)
    return np.cumsum(offsets), pairs[:, 1].astype(np.int32)


def _rebuild_hint(folder: Path) -> str:
    return f"Rebuild it: crm-rag build <your RDF files or --endpoint URL> --out {folder}"


class CrmGraphIndex:
    """Documents, triples, vectors, BM25 and statistics of one CIDOC-CRM graph.

    Build one with :meth:`build`, open a persisted one with :meth:`load`; then
    :meth:`as_retriever`, :meth:`as_chat_engine` or :meth:`ask`.
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
        self.dense = DenseChannel(vectors, faiss_index)
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

    # -- parts ---------------------------------------------------------------------------
    @property
    def triples(self) -> TripleStore:
        """The integer-encoded triple store (loaded on first use)."""
        return self.docstore.triples

    @property
    def embed_model(self) -> BaseEmbedding:
        """The embedding model the index was built with (loaded on first use)."""
        if self._embed_model is None:
            name = self.manifest.get("embedding", {}).get("model_name")
            default = name in (None, "sentence-transformers/all-MiniLM-L6-v2")
            try:
                self._embed_model = load_embed_model(None if default else name)
            except OSError as exc:
                raise IndexFormatError(
                    f"{self.folder} was built with the embedding model {name}, which cannot "
                    f"be loaded here ({type(exc).__name__}: {str(exc)[:200]}). Make the model "
                    "available (a local path or a cached download), or "
                    f"{_rebuild_hint(self.folder)} (default offline model)"
                ) from exc
            built_with = self.manifest.get("embedding", {}).get("model")
            if built_with is not None and model_id(self._embed_model) != built_with:
                loaded, self._embed_model = model_id(self._embed_model), None
                raise IndexFormatError(
                    f"{self.folder} was built with the embedding model {built_with}, but its "
                    f"manifest's model name loads {loaded}: the manifest is inconsistent. "
                    f"{_rebuild_hint(self.folder)}"
                )
        return self._embed_model

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
    @classmethod
    def build(
        cls,
        source: GraphSource | Sequence[str] | str,
        out_dir: str | Path,
        *,
        embed_model: BaseEmbedding | str | None = None,
        endpoint: str | None = None,
        chunk_size: int = CHUNK_SIZE,
        workers: int = 1,
        resume: bool = False,
        cache_dir: Path | None = None,
        approximate_above: int = APPROXIMATE_ABOVE,
        embed_chars: int = EMBED_CHARS,
        on_chunk: Callable[[int, int], None] | None = None,
        on_embedded: Callable[[int, int], None] | None = None,
        fr_paths: FRPaths = DEFAULT_FR_PATHS,
    ) -> CrmGraphIndex:
        """Build the index of a graph into ``out_dir`` (atomically) and return it.

        Args:
            source: a graph source, or RDF file paths.
            out_dir: the index folder (replaced only when the new one is complete).
            embed_model: embedding model (None: the offline all-MiniLM-L6-v2).
            endpoint: a SPARQL endpoint URL instead of files.
            chunk_size: entities per build chunk.
            workers: processes building documents at once.
            resume: continue an interrupted build of ``out_dir``.
            cache_dir: embedding cache folder (default ``~/.cache/llama-index-crm``).
            approximate_above: use HNSW instead of exact search above this many documents.
            embed_chars: characters of each document's head that are embedded.
            on_chunk: progress of the document build (done, total).
            on_embedded: progress of the embedding (done, total).
            fr_paths: how FR targets are found, ``"sparql"`` or ``"walk"`` (same documents).
        """
        out = Path(out_dir).resolve()
        work = work_dir_for(out)
        own_source = not isinstance(source, GraphSource)
        if isinstance(source, GraphSource):
            src: GraphSource = source
        else:
            src = open_source([source] if isinstance(source, str) else list(source),
                              endpoint=endpoint)
        model = load_embed_model(embed_model)
        try:
            docs, docstore, stats = build_structure(
                src, work, resume=resume, chunk_size=chunk_size, workers=workers,
                on_chunk=on_chunk, fr_paths=fr_paths,
            )
            description = source_record(src)
        finally:
            if own_source:
                src.close()
        doc_ids = [d.uri for d in docs]
        nodes = [docstore.get_document(d) for d in doc_ids]
        texts = [embedding_text(n.get_content(metadata_mode=MetadataMode.EMBED), embed_chars)
                 for n in nodes if n]
        started = time.perf_counter()
        cache = EmbeddingCache(cache_dir)
        done = [0]

        def progress(n: int) -> None:
            done[0] += n
            if on_embedded:
                on_embedded(done[0], len(texts))

        try:
            vectors = embed_texts(model, texts, cache=cache, on_batch=progress)
        finally:
            cache.close()
        embed_seconds = time.perf_counter() - started
        settings = Bm25Settings()
        bm25 = _bm25([lexical_node(d) for d in docs], settings)
        faiss_index = _faiss_index(vectors, approximate_above)
        statistics = GraphStatistics.compute(
            pq.read_table(work / FR_EDGES_FILE),
            pq.read_table(work / TRIPLES_FILE, columns=["s", "p", "o"]),
            {d.uri: d.category for d in docs},
            {d.uri: [d.uri, *d.chained_from] for d in docs},
        )
        _write_search_parts(work, doc_ids, vectors, faiss_index, bm25, settings, statistics)
        DocMeta.from_documents(docs).write(work / DOC_META, doc_ids)
        offsets, targets = fr_link_arrays(docstore.triples, pq.read_table(work / FR_EDGES_FILE))
        np.save(work / FR_OFFSETS, offsets)
        np.save(work / FR_TARGETS, targets)
        manifest = write_manifest(work, description, stats, {
            "embedding": {"model": model_id(model), "model_name": model.model_name,
                          "embed_chars": embed_chars,
                          "dimension": int(vectors.shape[1]) if len(vectors) else 0,
                          "seconds": round(embed_seconds, 2)},
            "counts": _counts(docs, stats),
            "faiss": type(faiss_index).__name__,
        })
        replace_folder(work, out)
        return cls.load(out, embed_model=model, manifest=manifest)

    # -- persistence ---------------------------------------------------------------------
    def persist(self, out_dir: str | Path) -> None:
        """Write this index into ``out_dir`` (atomically; a no-op onto its own folder)."""
        out = Path(out_dir).resolve()
        if out == self.folder.resolve():
            return
        work = work_dir_for(out)
        if work.exists():
            shutil.rmtree(work)
        work.mkdir(parents=True)
        self.docstore.persist(str(work))
        for name in (FR_EDGES_FILE, DOC_META, FR_OFFSETS, FR_TARGETS):
            shutil.copy2(self.folder / name, work / name)
        _write_search_parts(work, self.doc_ids, self.vectors, self.faiss_index, self.bm25,
                            self.bm25_settings, self.statistics)
        (work / MANIFEST).write_text(json.dumps(self.manifest, indent=1, ensure_ascii=False))
        replace_folder(work, out)

    @classmethod
    def load(cls, folder: str | Path, *, embed_model: BaseEmbedding | str | None = None,
             manifest: dict[str, Any] | None = None) -> CrmGraphIndex:
        """Open a persisted index.

        Args:
            folder: the index folder.
            embed_model: override the embedding model (it must be the one the index was
                built with: the manifest's model and dimension are checked).
            manifest: the manifest, when the caller has just written it.

        Raises:
            IndexFormatError: missing or corrupt folder, another package version or another
                embedding model; the message says how to rebuild.
        """
        path = Path(folder)
        manifest = manifest or _read_manifest(path)
        if isinstance(embed_model, str) and embed_model != manifest["embedding"]["model_name"]:
            raise IndexFormatError(
                f"{path} was built with the embedding model "
                f"{manifest['embedding']['model_name']}, not {embed_model}: its vectors cannot "
                f"be compared with that model's. Load it without embed_model, or rebuild it: "
                f"crm-rag build <your RDF files> --out {path} --embed-model {embed_model}"
            )
        model = load_embed_model(embed_model) if embed_model is not None else None
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
            faiss_index = faiss.read_index(str(path / FAISS_FILE))
            settings = Bm25Settings(**json.loads((path / BM25_DIR / BM25_SETTINGS).read_text()))
            bm25 = _load_bm25(path / BM25_DIR, settings)
            statistics = GraphStatistics.load(path)
            meta = DocMeta.read(path / DOC_META)
            fr_csr = (np.load(path / FR_OFFSETS), np.load(path / FR_TARGETS))
        except IndexFormatError:
            raise
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            raise IndexFormatError(
                f"{path} is incomplete or corrupt ({type(exc).__name__}: {exc}). "
                f"{_rebuild_hint(path)}"
            ) from exc
        if len(doc_ids) != len(vectors) or faiss_index.ntotal != len(doc_ids):
            raise IndexFormatError(
                f"{path}: {len(doc_ids)} documents but {len(vectors)} vectors and "
                f"{faiss_index.ntotal} FAISS entries. {_rebuild_hint(path)}"
            )
        return cls(path, docstore, doc_ids, np.asarray(vectors), faiss_index, bm25, settings,
                   statistics, manifest, meta, fr_csr, embed_model=model)

    # -- the query phase -----------------------------------------------------------------
    def as_retriever(self, **kwargs: Any) -> CandidatePoolRetriever:
        """The candidate-pool retriever (hybrid + category + graph channels).

        Follow it with :meth:`node_postprocessors` for the final, connected context.
        """
        from llama_index_crm.retrievers.pool import CandidatePoolRetriever

        return CandidatePoolRetriever.from_index(self, **kwargs)

    def node_postprocessors(self, plan_for: Any = None,
                            **kwargs: Any) -> list[BaseNodePostprocessor]:
        """The coherent-subgraph re-ranker and the triple-context builder for this index."""
        from llama_index_crm.postprocessors import (
            CoherentSubgraphPostprocessor,
            TripleContextPostprocessor,
        )

        vectors = self.vectors

        def vector(doc_id: str) -> np.ndarray | None:
            row = self.row_of.get(doc_id)
            return None if row is None else vectors[row]

        return [
            CoherentSubgraphPostprocessor.from_components(
                self.triples, vectors=vector, ontology=self.ontology, plan_provider=plan_for,
                **kwargs),
            TripleContextPostprocessor.from_components(self.triples, ontology=self.ontology),
        ]

    def as_query_pipeline(self, **kwargs: Any) -> CrmQueryPipeline:
        """Plan → pool → coherent subgraph → triple context → answer, in one object."""
        from llama_index_crm.query.engine import CrmQueryPipeline

        return CrmQueryPipeline(self, **kwargs)

    def as_chat_engine(self, llm: LLM | None = None, **kwargs: Any) -> BaseChatEngine:
        """A chat engine: LlamaIndex's ``CondensePlusContextChatEngine`` over this index's
        retriever and postprocessors when ``llm`` is given, else one that answers from the
        documents and triples (no LLM needed)."""
        from llama_index_crm.query.chat import make_chat_engine

        return make_chat_engine(self, llm=llm, **kwargs)

    def ask(self, question: str, llm: LLM | None = None) -> CrmAnswer:
        """Answer one question (see :class:`~llama_index_crm.query.engine.CrmAnswer`)."""
        return self.as_query_pipeline(llm=llm).run(question)


def _faiss_index(vectors: np.ndarray, approximate_above: int) -> Any:
    dim = int(vectors.shape[1]) if len(vectors) else 1
    index: Any
    if len(vectors) > approximate_above:
        index = faiss.IndexHNSWFlat(dim, 32, faiss.METRIC_INNER_PRODUCT)
    else:
        index = faiss.IndexFlatIP(dim)
    if len(vectors):
        index.add(np.ascontiguousarray(vectors, dtype=np.float32))
    return index


NAME_BOOST = 2
"""Extra times an entity's own name is indexed for BM25: among the many documents that
mention "Panagia Phorbiottissa" (its apse, its production, its paintings), the one that
*is* Panagia Phorbiottissa should come first, however long its document."""


def lexical_node(doc: Any) -> TextNode:
    """The text BM25 indexes for a document: its name ``NAME_BOOST`` more times, then it."""
    return TextNode(id_=doc.uri, text="\n".join([doc.label] * NAME_BOOST + [doc.text]))


def names_of(doc: Any) -> list[str]:
    """An entity's own names: its label (unless made up) and its appellations."""
    line = next((x for x in doc.text.splitlines()[1:6] if x.startswith("Names: ")), "")
    names = [re.sub(r" \([^()]*\)$", "", n) for n in line[7:].split("; ") if n]
    own = [doc.label] if doc.named else []  # "Production of X" is not a name of its own
    return list(dict.fromkeys([*own, *names]))


def _bm25(nodes: list[TextNode], settings: Bm25Settings) -> BM25Retriever:
    return BM25Retriever(
        nodes=list[BaseNode](nodes),
        stemmer=Stemmer.Stemmer(settings.stemmer),
        language=settings.language,
        token_pattern=settings.token_pattern,
        skip_stemming=settings.skip_stemming,
    )


def _load_bm25(folder: Path, settings: Bm25Settings) -> BM25Retriever:
    """The BM25 retriever with its tokenizer settings restored (they are not persisted by
    ``BM25Retriever.persist``: only ``similarity_top_k`` is)."""
    args = json.loads((folder / "retriever.json").read_text())
    bm25 = bm25s.BM25.load(str(folder), load_corpus=False, show_progress=False)
    return BM25Retriever(
        existing_bm25=bm25, stemmer=Stemmer.Stemmer(settings.stemmer),
        language=settings.language, token_pattern=settings.token_pattern,
        skip_stemming=settings.skip_stemming,
        similarity_top_k=int(args.get("similarity_top_k", 10)),
    )


def _write_search_parts(folder: Path, doc_ids: list[str], vectors: np.ndarray,
                        faiss_index: Any, bm25: BM25Retriever, settings: Bm25Settings,
                        statistics: GraphStatistics) -> None:
    (folder / DOC_IDS).write_text(json.dumps(doc_ids, ensure_ascii=False))
    np.save(folder / VECTORS, np.ascontiguousarray(vectors, dtype=np.float32))
    faiss.write_index(faiss_index, str(folder / FAISS_FILE))
    _write_bm25(folder / BM25_DIR, bm25, doc_ids, settings)
    statistics.persist(folder)


def _write_bm25(folder: Path, bm25: BM25Retriever, doc_ids: list[str],
                settings: Bm25Settings) -> None:
    folder.mkdir(exist_ok=True)
    # rows are the index's rows: the corpus needs no copy of the documents
    bm25.corpus = [{"node_id": d} for d in doc_ids]
    bm25.persist(str(folder), show_progress=False)
    (folder / BM25_SETTINGS).write_text(json.dumps({
        "language": settings.language, "stemmer": settings.stemmer,
        "token_pattern": settings.token_pattern, "skip_stemming": settings.skip_stemming,
    }))


def _counts(docs: Sequence[Any], stats: BuildStats) -> dict[str, Any]:
    by_category: dict[str, int] = {}
    for d in docs:
        by_category[d.category] = by_category.get(d.category, 0) + 1
    return {"documents": len(docs), "entities": stats.entities,
            "triples": stats.triples_archived, "documents_by_category": by_category}


def _read_manifest(path: Path) -> dict[str, Any]:
    file = path / MANIFEST
    if not file.exists():
        raise IndexFormatError(f"{path} is not a llama-index-crm index (no {MANIFEST}). "
                               f"{_rebuild_hint(path)}")
    try:
        manifest: dict[str, Any] = json.loads(file.read_text())
    except ValueError as exc:
        raise IndexFormatError(f"{file} is not valid JSON ({exc}). {_rebuild_hint(path)}") \
            from exc
    if manifest.get("format") != FORMAT or manifest.get("package_version") != __version__:
        raise IndexFormatError(
            f"{path} was written by llama-index-crm {manifest.get('package_version')} "
            f"(format {manifest.get('format')}); this is {__version__} ({FORMAT}). "
            f"{_rebuild_hint(path)}"
        )
    if manifest.get("config_hash") != config_hash():
        raise IndexFormatError(
            f"{path} was built with another ontology configuration (config hash "
            f"{manifest.get('config_hash')}, now {config_hash()}). {_rebuild_hint(path)}"
        )
    if not manifest.get("embedding"):
        raise IndexFormatError(f"{path} has documents but no embeddings (a structural build). "
                               f"{_rebuild_hint(path)}")
    return manifest
