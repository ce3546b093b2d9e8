"""``CrmGraphIndex``: one folder holding everything a CIDOC-CRM graph needs at query time.

Layout of a persisted index::

    manifest.json        versions, embedding model and dimension, counts, config hash
    documents.parquet    the docstore (CrmDocumentStore)
    triples.parquet      every triple seen, labelled (TripleStore)
    triples.parquet.ids.npz, triples.parquet.terms.arrow
                         its encoding (term ids, terms, labels), read instead of encoding it
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
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.llms import LLM
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import MetadataMode
from llama_index.core.vector_stores.types import BasePydanticVectorStore

from llama_index_crm.build.builder import (
    CHUNK_SIZE,
    DEFAULT_FR_PATHS,
    FR_EDGES_FILE,
    LABELS_FILE,
    TRIPLES_FILE,
    UNCHAINED_FILE,
    UPDATE_CHUNK_SIZE,
    BuildStats,
    FRPaths,
)
from llama_index_crm.build.delta import GraphDelta
from llama_index_crm.build.folder import (
    REJECTED,
    build_structure,
    recover_folder,
    replace_folder,
    source_record,
    work_dir_for,
    write_manifest,
)
from llama_index_crm.build.memory import release_freed_memory
from llama_index_crm.build.ray_engine import RayEngine
from llama_index_crm.embeddings import (
    EMBED_CHARS,
    OFFLINE_MODEL_NAME,
    BatchRunner,
    EmbeddingCache,
    backend_of,
    embed_texts,
    embedding_text,
    load_embed_model,
    model_id,
    prepare_model_files,
)
from llama_index_crm.errors import CrmError, IndexFormatError
from llama_index_crm.graph.data import METADATA_CLASSES, GraphData
from llama_index_crm.graph.parts import (
    APPROXIMATE_ABOVE,
    BM25_DIR,
    DOC_IDS,
    DOC_META,
    FR_OFFSETS,
    FR_TARGETS,
    NAME_BOOST,
    VECTORS,
    Beside,
    Bm25Settings,
    CorpusTokens,
    DocMeta,
    bm25_from_tokens,
    bm25_tokens,
    faiss_index,
    fr_link_arrays,
    lexical_node,
    lexical_text,
    names_of,
    remapped_fr_links,
    write_search_parts,
)
from llama_index_crm.graph.vector_stores import DEFAULT_PATH, StoreSpec, write_store
from llama_index_crm.rdf import RDF_TYPE, Triple
from llama_index_crm.sources import open_source
from llama_index_crm.sources.base import GraphSource
from llama_index_crm.storage.manifest import MANIFEST
from llama_index_crm.storage.names import NAMES_FILE, update_names, write_names
from llama_index_crm.storage.statistics import GraphStatistics, read_pagerank
from llama_index_crm.storage.triples import encoding_files

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
        vector_store: BasePydanticVectorStore | str | None = None,
        ray: RayEngine | str | bool | None = None,
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
            workers: processes building documents at once (with ``ray``, its actors when
                more than 1, else one per CPU of the cluster).
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
            vector_store: the dense channel's store instead of FAISS: any LlamaIndex
                ``BasePydanticVectorStore`` (outside ``out_dir``; its nodes are added), or
                ``"lancedb:PATH"``, ``"qdrant:PATH_OR_URL"`` (made here; a relative PATH is
                the working directory's, and may lie inside ``out_dir``; no PATH: the
                folder's ``vector_store/``). The manifest records it for :meth:`load`
                (:mod:`~llama_index_crm.graph.vector_stores`).
            ray: build the chunks and embed the batches on Ray (``pip install
                'llama-index-crm[ray]'``): True, a local cluster started for the build;
                an address (``"auto"``, ``"HOST:6379"``, ``"ray://HOST:10001"``), a running
                cluster; or a :class:`~llama_index_crm.build.ray_engine.RayEngine`. The
                documents are the same, the vectors equal up to float rounding.
        """
        engine = RayEngine.of(ray, workers if workers > 1 else None)
        store: StoreSpec | BasePydanticVectorStore | None = \
            StoreSpec.parse(vector_store) if isinstance(vector_store, str) else vector_store
        if isinstance(store, StoreSpec):
            store.require()
            if not store.location:
                store = StoreSpec(store.kind, str(Path(out_dir).resolve() / DEFAULT_PATH),
                                  store.name)
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
        with ExitStack() as session:
            if engine is not None:
                session.enter_context(engine)
            try:
                docs, docstore, stats = build_structure(
                    src, work, resume=resume, chunk_size=chunk_size, workers=workers,
                    on_chunk=on_chunk, fr_paths=fr_paths, close_source=close, engine=engine,
                )
                description = source_record(src)
            finally:
                if own_source:
                    src.close()
            model, manifest = _write_index(
                work, list(docs), docstore, stats, description, embed_model=embed_model,
                embed_backend=embed_backend, cache_dir=cache_dir, embed_chars=embed_chars,
                approximate_above=approximate_above, on_embedded=on_embedded,
                vector_store=store, out=out,
                run_batches=engine.batch_runner(embed_model, embed_backend) if engine else None)
        replace_folder(work, out)
        return cls.load(out, embed_model=model, manifest=manifest,
                        vector_store=None if isinstance(store, StoreSpec) else store)

    @classmethod
    def update(
        cls,
        index_dir: str | Path,
        *,
        add: Sequence[str | Path] = (),
        remove: Sequence[str | Path] = (),
        delta: GraphDelta | None = None,
        source: GraphSource | Sequence[str] | None = None,
        endpoint: str | None = None,
        embed_model: BaseEmbedding | str | None = None,
        cache_dir: Path | None = None,
        chunk_size: int = UPDATE_CHUNK_SIZE,
        approximate_above: int = APPROXIMATE_ABOVE,
        on_chunk: Callable[[int, int], None] | None = None,
        on_embedded: Callable[[int, int], None] | None = None,
        load: bool = True,
    ) -> CrmGraphIndex | None:
        """Apply a change to a built index in place (atomically) and return it.

        The change is one of: triples to add and remove (``add`` / ``remove``: RDF files,
        or ``delta``), or a source read again (``source`` files, or ``endpoint``), whose
        difference from the stored triples is the change. Only the documents the change
        touches are written again (:mod:`llama_index_crm.build.affected`) and only their
        changed texts embedded; the archive, labels, chaining, FAISS (or an embedded
        LanceDB or Qdrant store inside the folder: a store elsewhere is refused), BM25,
        PageRank, the
        name table and the manifest (with a history of updates) follow. The new folder is
        written beside the index and renamed over it: an interrupted update leaves the
        index as it was, and running it again does the work again.

        Returns:
            The updated index (None with ``load=False``).
        """
        from llama_index_crm.build.delta import delta_against, fail_if_empty
        from llama_index_crm.build.update import update_structure

        out = Path(index_dir).resolve()
        recover_folder(out)
        manifest = json.loads((out / MANIFEST).read_text()) if (out / MANIFEST).exists() \
            else None
        if manifest is None or not manifest.get("embedding"):
            raise IndexFormatError(f"{out} is not a built index (no {MANIFEST} with "
                                   "embeddings); build it with crm-rag build ... --out DIR")
        store = _updatable_store(out, manifest)
        started = time.perf_counter()
        if delta is None:
            if source is not None or endpoint is not None:
                src = source if isinstance(source, GraphSource) else open_source(
                    list(source or []), endpoint=endpoint)
                try:
                    from llama_index_crm.storage import TripleStore

                    old = TripleStore.load(out / TRIPLES_FILE)
                    triples, subjects = _all_triples(src)
                    delta = delta_against(old, triples, subjects)
                    del old
                finally:
                    if not isinstance(source, GraphSource):
                        src.close()
            else:
                delta = GraphDelta.from_files(add, remove)
                fail_if_empty(delta, "crm-rag update")
        work = out.parent / f".{out.name}.updating"
        if work.exists():  # an interrupted update: done again from the start
            shutil.rmtree(work)
        work.mkdir(parents=True)
        try:
            result = update_structure(out, work, delta, str(manifest.get("source", "")),
                                      chunk_size=chunk_size, on_chunk=on_chunk)
            old_ids = json.loads((out / DOC_IDS).read_text())
            chars = int(manifest["embedding"].get("embed_chars", EMBED_CHARS))
            vectors = np.load(out / VECTORS)
            built = manifest["embedding"]
            model = embed_model if embed_model is not None else (
                None if built.get("model_name") == OFFLINE_MODEL_NAME else built["model_name"])
            changed = result.changes
            history = list(manifest.get("updates", []))
            entry = {
                "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "added": len(result.delta.added), "removed": len(result.delta.removed),
                "entities_rewritten": len(result.affected.entities),
                "documents_changed": changed["changed"], "documents_added": changed["added"],
                "documents_removed": changed["removed"],
            }
            if (out / REJECTED).exists():
                shutil.copy2(out / REJECTED, work / REJECTED)
            _, new_manifest = _write_index(
                work, result.documents, result.docstore, result.stats,
                {"description": manifest.get("source", ""),
                 "settings": manifest.get("source_settings", {})},
                embed_model=model, embed_backend=built.get("backend"), cache_dir=cache_dir,
                embed_chars=chars, approximate_above=approximate_above,
                on_embedded=on_embedded, previous=(old_ids, vectors, result.old_texts),
                vector_store=store, out=out,
                pagerank=None if result.fr_edges_changed else read_pagerank(out),
                statistics_before=None if result.fr_edges_changed or any(
                    p == RDF_TYPE for _, p, _ in result.delta.added | result.delta.removed)
                else GraphStatistics.load(out),
                names_before=(out, result.names_changed),
                doc_meta_before=(out, result.meta_changed),
                fr_links_before=None if result.term_map is None else (out, result.term_map),
                extra={"embedding": built, "created": manifest.get("created"),
                       "updates": history})
            entry["embedded"] = new_manifest["embedding"]["documents_embedded"]  # type: ignore[index]
            entry["pagerank_kept"] = not result.fr_edges_changed
            entry["seconds"] = round(time.perf_counter() - started, 3)
            entry["phases"] = result.seconds
            history.append(entry)
            new_manifest["updates"] = history
            new_manifest["updated"] = entry["time"]
            (work / MANIFEST).write_text(json.dumps(new_manifest, indent=1, ensure_ascii=False))
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise
        replace_folder(work, out)
        return cls.load(out) if load else None

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
        for name in (UNCHAINED_FILE, LABELS_FILE,  # what an update starts from
                     *(p.name for p in encoding_files(self.folder / TRIPLES_FILE))):
            if (self.folder / name).exists():
                shutil.copy2(self.folder / name, work / name)
        write_search_parts(work, self.doc_ids, self.vectors, self.faiss_index, self.bm25,
                            self.bm25_settings, self.statistics,
                            CorpusTokens.read(self.folder / BM25_DIR))
        manifest = dict(self.manifest)
        recorded = manifest.get("vector_store")
        if recorded is not None and recorded.get("path"):
            spec = StoreSpec.from_record(recorded).resolved(self.folder)
            if spec.inside(self.folder):  # copied with the folder
                self.close()
                shutil.copytree(spec.location, work / recorded["path"])
            else:  # the same store, its path relative to the new folder
                manifest["vector_store"] = spec.record(out)
        (work / MANIFEST).write_text(json.dumps(manifest, indent=1, ensure_ascii=False))
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



def _write_index(
    work: Path,
    docs: Sequence[Any],
    docstore: Any,
    stats: BuildStats,
    description: dict[str, object],
    *,
    embed_model: BaseEmbedding | str | None,
    embed_backend: str | None,
    cache_dir: Path | None,
    embed_chars: int,
    approximate_above: int,
    on_embedded: Callable[[int, int], None] | None = None,
    previous: tuple[list[str], np.ndarray, dict[str, str]] | None = None,
    extra: dict[str, Any] | None = None,
    vector_store: StoreSpec | BasePydanticVectorStore | None = None,
    out: Path | None = None,
    pagerank: dict[str, float] | None = None,
    names_before: tuple[Path, set[str]] | None = None,
    statistics_before: GraphStatistics | None = None,
    doc_meta_before: tuple[Path, set[str]] | None = None,
    run_batches: BatchRunner | None = None,
    fr_links_before: tuple[Path, np.ndarray] | None = None,
) -> tuple[BaseEmbedding, dict[str, object]]:
    """Everything after the documents: names, FR links, vectors, FAISS, BM25, statistics,
    document metadata and the manifest, written into ``work``.

    ``previous``: an earlier index's (doc ids, vectors, document texts by id): a document
    whose embedded head of the text is unchanged keeps its vector, and the model is loaded
    only when some text is new (an update; ``docs`` are then entity documents, whose
    embedded content is their text, every metadata key being excluded). ``vector_store``:
    filled instead of a FAISS index being written (``out``: the folder ``work`` becomes).
    ``pagerank``: the PageRank of the FR edges in ``work``, known to be the earlier
    index's (an update that left them as they were). ``names_before``: the earlier
    index's folder and the nodes whose name rows may have changed since (an update).
    ``statistics_before``: the earlier index's statistics, when the update changed
    neither its FR edges nor any ``rdf:type`` triple (PageRank and counts kept).
    ``doc_meta_before``: the earlier index's folder and the documents whose metadata rows
    and BM25 tokens are made again (the others keep theirs). ``run_batches``: where the
    embedding batches run (Ray's actors; None: here). ``fr_links_before``: the
    earlier index's folder and the map of its term ids to the new store's, when the FR
    edges are written as they were (the FR-link arrays are then the earlier ones,
    renumbered).
    """
    doc_ids = [d.uri for d in docs]
    if previous is None:
        texts = [embedding_text(n.get_content(metadata_mode=MetadataMode.EMBED), embed_chars)
                 for n in map(docstore.get_document, doc_ids) if n]
    else:  # an update: the embedded content is the text (every metadata key is excluded)
        texts = [d.text for d in docs]
    # the parts that need the triples, before the embedding: the triple store is freed
    if names_before is None:
        write_names(docstore.triples, work)
    else:
        update_names(docstore.triples, names_before[0], work, names_before[1])
    fr_edges = pq.read_table(work / FR_EDGES_FILE)
    links = None if fr_links_before is None else remapped_fr_links(
        np.load(fr_links_before[0] / FR_OFFSETS), np.load(fr_links_before[0] / FR_TARGETS),
        fr_links_before[1], docstore.triples, fr_edges)
    offsets, targets = links or fr_link_arrays(docstore.triples, fr_edges)
    np.save(work / FR_OFFSETS, offsets)
    np.save(work / FR_TARGETS, targets)
    del docstore, offsets, targets
    if previous is None:  # a build; an update's garbage is small (and collecting it slow)
        release_freed_memory()
    started = time.perf_counter()
    reused: dict[int, int] = {}
    if previous is not None:
        old_ids, old_vectors, old_texts = previous
        row_of = {d: i for i, d in enumerate(old_ids)}
        for i, (d, t) in enumerate(zip(doc_ids, texts, strict=True)):
            before = old_texts.get(d)
            if d in row_of and before is not None and (before == t or embedding_text(
                    before, embed_chars) == embedding_text(t, embed_chars)):
                reused[i] = row_of[d]
        texts = [embedding_text(t, embed_chars) if i not in reused else ""
                 for i, t in enumerate(texts)]
    missing = [i for i in range(len(texts)) if i not in reused]
    # loaded once the build workers are gone: the model is not resident beside them
    model = load_embed_model(embed_model, backend=embed_backend) \
        if missing or previous is None else None
    done, total = [0], len(missing)

    def progress(n: int) -> None:
        done[0] += n
        if on_embedded:
            on_embedded(done[0], total)

    if previous is not None and not missing:
        vectors = previous[1][[reused[i] for i in range(len(texts))]] if texts \
            else previous[1][:0]
    else:
        assert model is not None
        cache = EmbeddingCache(cache_dir)
        try:
            fresh = embed_texts(model, [texts[i] for i in missing], cache=cache,
                                on_batch=progress, run_batches=run_batches)
        finally:
            cache.close()
        if previous is None:
            vectors = fresh
        else:
            vectors = np.zeros((len(texts), previous[1].shape[1]), dtype=np.float32)
            if reused:
                rows = np.fromiter(reused.keys(), dtype=np.int64)
                vectors[rows] = previous[1][np.fromiter(reused.values(), dtype=np.int64)]
            if missing:
                vectors[np.asarray(missing, dtype=np.int64)] = fresh
    embed_seconds = time.perf_counter() - started
    del texts
    if previous is None:  # the embedding's freed heap, before BM25 and the statistics
        release_freed_memory()
    settings = Bm25Settings()
    old_tokens = CorpusTokens.read(doc_meta_before[0] / BM25_DIR) \
        if doc_meta_before is not None and previous is not None else None
    if old_tokens is not None and previous is not None and doc_meta_before is not None \
            and len(old_tokens.offsets) == len(previous[0]) + 1:
        # an update: the rows of unchanged documents keep their tokens
        row_of = {d: i for i, d in enumerate(previous[0])}
        old_rows = [None if d.uri in doc_meta_before[1] else row_of.get(d.uri) for d in docs]
        tokens = old_tokens.updated(old_rows, {
            i: lexical_text(docs[i]) for i, r in enumerate(old_rows) if r is None}, settings)
    else:
        tokens = bm25_tokens([lexical_text(d) for d in docs], settings)
    del old_tokens
    bm25 = bm25_from_tokens(tokens, settings)
    store_entry: dict[str, str] | None = None
    # an update that moved no row: the earlier vector files with the changed rows patched
    beside = None if previous is None or doc_meta_before is None or \
        previous[0] != doc_ids or len(doc_ids) > approximate_above else \
        Beside(doc_meta_before[0], previous[1], np.asarray(missing, dtype=np.int64),
               faiss=vector_store is None)
    if vector_store is None:
        index = faiss_index(vectors, approximate_above) if beside is None else None
    else:
        index = None
        store_entry = write_store(vector_store, work, out or work, doc_ids, vectors)
    empty = pa.table({c: pa.array([], pa.string()) for c in ("s", "p", "o", "fr")})
    statistics = GraphStatistics.compute(
        empty if statistics_before else pq.read_table(work / FR_EDGES_FILE),
        empty if statistics_before else pq.read_table(work / TRIPLES_FILE,
                                                      columns=["s", "p", "o"]),
        {d.uri: d.category for d in docs},
        {d.uri: [d.uri, *d.chained_from] for d in docs},
        pagerank=pagerank,
        counts=statistics_before,
    )
    write_search_parts(work, doc_ids, vectors, index, bm25, settings, statistics, tokens,
                       beside)
    if doc_meta_before is None:
        DocMeta.from_documents(docs).write(work / DOC_META, doc_ids)
    else:
        DocMeta.update(doc_meta_before[0] / DOC_META, work / DOC_META, docs,
                       doc_meta_before[1])
    if model is None:  # nothing embedded: the earlier index's model, by its manifest
        embedding = dict((extra or {}).pop("embedding"))
    else:
        embedding = {"model": model_id(model), "model_name": model.model_name,
                     "backend": backend_of(model), "embed_chars": embed_chars,
                     "dimension": int(vectors.shape[1]) if len(vectors) else 0}
    embedding["seconds"] = round(embed_seconds, 2)
    embedding["documents_embedded"] = len(missing)
    (extra or {}).pop("embedding", None)
    manifest = write_manifest(work, description, stats, {
        "embedding": embedding,
        "counts": _counts(docs, stats),
        **({"faiss": "IndexFlatIP" if index is None else type(index).__name__}
           if store_entry is None else
           {"vector_store": store_entry}),
        **(extra or {}),
    })
    return model, manifest  # type: ignore[return-value]


def _updatable_store(out: Path, manifest: dict[str, Any]) -> StoreSpec | None:
    """The vector store an update writes again: None for FAISS, an embedded store inside
    the index folder (written anew into the update's work folder); any other is refused,
    since it could not be replaced atomically with the folder."""
    recorded = manifest.get("vector_store")
    if recorded is None:
        return None
    spec = StoreSpec.from_record(recorded) if recorded.get("kind") in ("lancedb", "qdrant") \
        else None
    if spec is not None and not spec.is_url and spec.resolved(out).inside(out):
        return spec.resolved(out)
    where = recorded.get("url") or recorded.get("path") or recorded.get("class")
    raise CrmError(
        f"{out} keeps its vectors in a {recorded.get('kind')} store outside the index "
        f"folder ({where}), which an update cannot replace with the folder: rebuild the "
        f"index instead (crm-rag build ... --out {out} --vector-store ...), or build it with "
        f"FAISS or a store inside the folder (--vector-store {recorded.get('kind')})")


def _counts(docs: Sequence[Any], stats: BuildStats) -> dict[str, Any]:
    by_category: dict[str, int] = {}
    for d in docs:
        by_category[d.category] = by_category.get(d.category, 0) + 1
    return {"documents": len(docs), "entities": stats.entities,
            "triples": stats.triples_archived, "documents_by_category": by_category}




def _all_triples(source: GraphSource) -> tuple[list[Triple], set[str] | None]:
    """The triples of a source read again for an update, and the subjects they are all the
    triples of (None: every subject): a file source's whole store, or an endpoint's
    entities with their outgoing triples."""
    triples = getattr(source, "triples", None)
    if callable(triples):
        return list(triples()), None
    entities = source.entities()
    found: list[Triple] = []
    for i in range(0, len(entities), CHUNK_SIZE):
        found.extend(source.fetch(entities[i:i + CHUNK_SIZE], incoming=False))
    return found, set(entities)
