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
import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow.parquet as pq
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.llms import LLM
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import MetadataMode

from llama_index_crm.build.builder import (
    CHUNK_SIZE,
    DEFAULT_FR_PATHS,
    FR_EDGES_FILE,
    TRIPLES_FILE,
    BuildStats,
    FRPaths,
)
from llama_index_crm.build.folder import (
    build_structure,
    replace_folder,
    source_record,
    work_dir_for,
    write_manifest,
)
from llama_index_crm.build.memory import release_freed_memory
from llama_index_crm.embeddings import (
    EMBED_CHARS,
    EmbeddingCache,
    backend_of,
    embed_texts,
    embedding_text,
    load_embed_model,
    model_id,
    prepare_model_files,
)
from llama_index_crm.graph.data import METADATA_CLASSES, GraphData
from llama_index_crm.graph.parts import (
    APPROXIMATE_ABOVE,
    DOC_META,
    FR_OFFSETS,
    FR_TARGETS,
    NAME_BOOST,
    Bm25Settings,
    DocMeta,
    bm25_retriever,
    faiss_index,
    fr_link_arrays,
    lexical_node,
    names_of,
    write_search_parts,
)
from llama_index_crm.sources import open_source
from llama_index_crm.sources.base import GraphSource
from llama_index_crm.storage.manifest import MANIFEST
from llama_index_crm.storage.names import NAMES_FILE, write_names
from llama_index_crm.storage.statistics import GraphStatistics

if TYPE_CHECKING:
    from llama_index.core.query_engine import RetrieverQueryEngine

    from llama_index_crm.query.chat import CrmChatEngine
    from llama_index_crm.query.engine import CrmAnswer, CrmQueryPipeline
    from llama_index_crm.query.prompts import Prompts
    from llama_index_crm.retrievers.pool import CandidatePoolRetriever

__all__ = ["APPROXIMATE_ABOVE", "METADATA_CLASSES", "NAME_BOOST", "CrmGraphIndex",
           "lexical_node", "names_of"]


class CrmGraphIndex(GraphData):
    """Documents, triples, vectors, BM25 and statistics of one CIDOC-CRM graph.

    Build one with :meth:`build`, open a persisted one with :meth:`load`; then
    :meth:`as_retriever`, :meth:`as_chat_engine` or :meth:`ask`. The loaded parts are
    those of :class:`~llama_index_crm.graph.data.GraphData`, which the retrievers and the
    query package read.
    """

    @classmethod
    def build(
        cls,
        source: GraphSource | Sequence[str] | str,
        out_dir: str | Path,
        *,
        embed_model: BaseEmbedding | str | None = None,
        embed_backend: str | None = None,
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
        close_source: bool | None = None,
    ) -> CrmGraphIndex:
        """Build the index of a graph into ``out_dir`` (atomically) and return it.

        Args:
            source: a graph source, or RDF file paths.
            out_dir: the index folder (replaced only when the new one is complete).
            embed_model: embedding model (None: the offline all-MiniLM-L6-v2).
            embed_backend: encoder backend, ``torch``, ``onnx``, ``onnx-int8`` or
                ``model2vec`` (``fast``); None: the default for the bundled model
                (:data:`~llama_index_crm.embeddings.DEFAULT_BACKEND`), torch for a named one.
            endpoint: a SPARQL endpoint URL instead of files.
            chunk_size: entities per build chunk.
            workers: processes building documents at once.
            resume: continue an interrupted build of ``out_dir``.
            cache_dir: embedding cache folder (default ``~/.cache/llama-index-crm``). The
                ONNX and model2vec model files made on first use go to
                :func:`~llama_index_crm.encoders.models_dir`.
            approximate_above: use HNSW instead of exact search above this many documents.
            embed_chars: characters of each document's head that are embedded.
            on_chunk: progress of the document build (done, total).
            on_embedded: progress of the embedding (done, total).
            fr_paths: how FR targets are found, ``"sparql"`` or ``"walk"`` (same documents).
            close_source: close the source once its chunks are built, so that a parsed
                graph is not held under the embedding (default: when it was opened here).
        """
        out = Path(out_dir).resolve()
        work = work_dir_for(out)
        own_source = not isinstance(source, GraphSource)
        if isinstance(source, GraphSource):
            src: GraphSource = source
        else:
            src = open_source([source] if isinstance(source, str) else list(source),
                              endpoint=endpoint)
        close = own_source if close_source is None else close_source
        # a bad backend fails before the build, and its model files (made on first use) are
        # made while this process is small
        prepare_model_files(embed_model, backend=embed_backend)
        release_freed_memory()
        try:
            docs, docstore, stats = build_structure(
                src, work, resume=resume, chunk_size=chunk_size, workers=workers,
                on_chunk=on_chunk, fr_paths=fr_paths, close_source=close,
            )
            description = source_record(src)
        finally:
            if own_source:
                src.close()
        doc_ids = [d.uri for d in docs]
        texts = [embedding_text(n.get_content(metadata_mode=MetadataMode.EMBED), embed_chars)
                 for n in map(docstore.get_document, doc_ids) if n]
        # the parts that need the triples, before the embedding: the triple store is freed
        write_names(docstore.triples, work)
        offsets, targets = fr_link_arrays(docstore.triples, pq.read_table(work / FR_EDGES_FILE))
        np.save(work / FR_OFFSETS, offsets)
        np.save(work / FR_TARGETS, targets)
        del docstore, offsets, targets
        release_freed_memory()
        # loaded once the build workers are gone: the model is not resident beside them
        model = load_embed_model(embed_model, backend=embed_backend)
        started = time.perf_counter()
        cache = EmbeddingCache(cache_dir)
        done, total = [0], len(texts)

        def progress(n: int) -> None:
            done[0] += n
            if on_embedded:
                on_embedded(done[0], total)

        try:
            vectors = embed_texts(model, texts, cache=cache, on_batch=progress)
        finally:
            cache.close()
        embed_seconds = time.perf_counter() - started
        del texts
        release_freed_memory()  # the embedding's freed heap, before BM25 and the statistics
        settings = Bm25Settings()
        bm25 = bm25_retriever([lexical_node(d) for d in docs], settings)
        index = faiss_index(vectors, approximate_above)
        statistics = GraphStatistics.compute(
            pq.read_table(work / FR_EDGES_FILE),
            pq.read_table(work / TRIPLES_FILE, columns=["s", "p", "o"]),
            {d.uri: d.category for d in docs},
            {d.uri: [d.uri, *d.chained_from] for d in docs},
        )
        write_search_parts(work, doc_ids, vectors, index, bm25, settings, statistics)
        DocMeta.from_documents(docs).write(work / DOC_META, doc_ids)
        manifest = write_manifest(work, description, stats, {
            "embedding": {"model": model_id(model), "model_name": model.model_name,
                          "backend": backend_of(model), "embed_chars": embed_chars,
                          "dimension": int(vectors.shape[1]) if len(vectors) else 0,
                          "seconds": round(embed_seconds, 2)},
            "counts": _counts(docs, stats),
            "faiss": type(index).__name__,
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
        for name in (FR_EDGES_FILE, DOC_META, FR_OFFSETS, FR_TARGETS, NAMES_FILE):
            shutil.copy2(self.folder / name, work / name)
        write_search_parts(work, self.doc_ids, self.vectors, self.faiss_index, self.bm25,
                            self.bm25_settings, self.statistics)
        (work / MANIFEST).write_text(json.dumps(self.manifest, indent=1, ensure_ascii=False))
        replace_folder(work, out)

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
        from llama_index_crm.postprocessors.factory import graph_postprocessors

        return list(graph_postprocessors(self, plan_for, **kwargs))

    def as_query_pipeline(self, **kwargs: Any) -> CrmQueryPipeline:
        """Plan → pool → coherent subgraph → triple context → answer, in one object."""
        from llama_index_crm.query.engine import CrmQueryPipeline

        return CrmQueryPipeline(self, **kwargs)

    def as_chat_engine(self, llm: LLM | None = None, **kwargs: Any) -> CrmChatEngine:
        """A chat engine (:class:`~llama_index_crm.query.chat.CrmChatEngine`): follow-ups,
        vague follow-ups and pivots handled; the LLM, when given, answers from the prompts
        of ``config/prompts``, else the answers come from the documents and triples.
        ``kwargs``: ``history_tokens`` and the pipeline's options (``prompts``, ...)."""
        from llama_index_crm.query.chat import make_chat_engine

        return make_chat_engine(self, llm=llm, **kwargs)

    def as_query_engine(self, llm: LLM | None = None, **kwargs: Any) -> RetrieverQueryEngine:
        """A standard ``RetrieverQueryEngine`` over the same parts: the conversation-aware
        pool, the three postprocessors and a synthesizer that answers like :meth:`ask`
        (``kwargs`` go to the pipeline: ``prompts``, ``pool_kwargs``, ...)."""
        from llama_index_crm.query.synthesis import make_query_engine

        return make_query_engine(self, llm=llm, **kwargs)

    def ask(self, question: str, llm: LLM | None = None, prompts: Prompts = None) -> CrmAnswer:
        """Answer one question (see :class:`~llama_index_crm.query.engine.CrmAnswer`);
        ``prompts``: a TOML file overriding ``config/prompts/default.toml``."""
        return self.as_query_pipeline(llm=llm, prompts=prompts).run(question)



def _counts(docs: Sequence[Any], stats: BuildStats) -> dict[str, Any]:
    by_category: dict[str, int] = {}
    for d in docs:
        by_category[d.category] = by_category.get(d.category, 0) + 1
    return {"documents": len(docs), "entities": stats.entities,
            "triples": stats.triples_archived, "documents_by_category": by_category}


