"""The search parts of a persisted index: file names, document metadata columns, BM25, the
FR-link arrays, and how each is written and read.

Written once by :meth:`~llama_index_crm.index.CrmGraphIndex.build`, read by
:meth:`~llama_index_crm.graph.data.GraphData.load`. Nothing here knows about retrievers or
questions.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bm25s
import faiss
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import Stemmer
from llama_index.core.schema import MetadataMode, TextNode
from llama_index.retrievers.bm25 import BM25Retriever

from llama_index_crm.storage import TripleStore
from llama_index_crm.storage.statistics import GraphStatistics

logging.getLogger("bm25s").setLevel(logging.NOTSET)
# bm25s sets its logger to DEBUG when imported: its debug lines reached any handler the
# application had ("DEBUG:bm25s:Building index from IDs objects" in the demo's output)

DOC_IDS = "doc_ids.json"
VECTORS = "vectors.npy"
FAISS_FILE = "faiss.index"
CORPUS_FILES = ("corpus.jsonl", "corpus.mmindex.json")
"""The BM25 corpus files ``bm25s`` writes: one ``{"node_id": ...}`` line per row."""
BM25_DIR = "bm25"
BM25_SETTINGS = "bm25_settings.json"
TOKENS = "tokens.npy"
TOKEN_OFFSETS = "token_offsets.npy"
TOKEN_VOCAB = "token_vocab.json"
DOC_META = "doc_meta.parquet"
FR_OFFSETS = "fr_offsets.npy"
FR_TARGETS = "fr_targets.npy"
APPROXIMATE_ABOVE = 200_000
"""Documents above which FAISS switches from exact (flat) to HNSW search."""
NAME_BOOST = 2
"""Extra times an entity's own name is indexed for BM25: among the many documents that
mention "Panagia Phorbiottissa" (its apse, its production, its paintings), the one that
*is* Panagia Phorbiottissa should come first, however long its document."""


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

    def table(self, doc_ids: list[str]) -> pa.Table:
        """The rows :meth:`write` writes."""
        return pa.table({
            "doc_id": pa.array(doc_ids, pa.string()),
            "label": pa.array(self.labels, pa.string()),
            "category": pa.array(self.categories, pa.string()),
            "classes": pa.array(self.classes, pa.list_(pa.string())),
            "chained_from": pa.array(self.chained_from, pa.list_(pa.string())),
            "types": pa.array(self.types, pa.list_(pa.string())),
            "names": pa.array(self.names, pa.list_(pa.string())),
        })

    def write(self, path: Path, doc_ids: list[str]) -> None:
        """Write as Parquet."""
        pq.write_table(self.table(doc_ids), path)

    @classmethod
    def update(cls, before: Path, path: Path, docs: Sequence[Any], changed: set[str]) -> None:
        """Write into ``path`` the metadata of ``docs`` (in their order) from the file
        ``before``: a document not in ``changed`` (whose label, category, classes, chained
        entities, text and ``named`` are as they were) keeps its row, the others are made
        anew."""
        old = pq.read_table(before)
        row_of = {d: i for i, d in enumerate(old.column("doc_id").to_pylist())}
        kept: list[int] = []
        fresh: list[Any] = []
        position: list[int] = []
        for d in docs:
            i = row_of.get(d.uri)
            if i is not None and d.uri not in changed:
                position.append(len(kept))
                kept.append(i)
            else:
                position.append(-1 - len(fresh))
                fresh.append(d)
        made = cls.from_documents(fresh).table([d.uri for d in fresh])
        table = pa.concat_tables([old.take(pa.array(kept, pa.int64())),
                                  made.cast(old.schema)]).combine_chunks()
        order = [p if p >= 0 else len(kept) - 1 - p for p in position]
        pq.write_table(table.take(pa.array(order, pa.int64())), path)

    @classmethod
    def read(cls, path: Path) -> DocMeta:
        """Read what :meth:`write` wrote."""
        t = pq.read_table(path)
        return cls(t.column("label").to_pylist(), t.column("category").to_pylist(),
                   t.column("classes").to_pylist(), t.column("chained_from").to_pylist(),
                   t.column("types").to_pylist(), t.column("names").to_pylist())


def names_of(doc: Any) -> list[str]:
    """An entity's own names: its label (unless made up) and its appellations."""
    line = next((x for x in doc.text.splitlines()[1:6] if x.startswith("Names: ")), "")
    names = [re.sub(r" \([^()]*\)$", "", n) for n in line[7:].split("; ") if n]
    own = [doc.label] if doc.named else []  # "Production of X" is not a name of its own
    return list(dict.fromkeys([*own, *names]))


def lexical_text(doc: Any) -> str:
    """The text BM25 indexes for a document: its name ``NAME_BOOST`` more times, then it."""
    return "\n".join([doc.label] * NAME_BOOST + [doc.text])


def lexical_node(doc: Any) -> TextNode:
    """:func:`lexical_text` as a node."""
    return TextNode(id_=doc.uri, text=lexical_text(doc))


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


def remapped_fr_links(offsets: np.ndarray, targets: np.ndarray, term_map: np.ndarray,
                      store: TripleStore, fr_edges: pa.Table
                      ) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`fr_link_arrays` of ``store`` and ``fr_edges`` from the arrays an earlier
    store made of the same ``fr_edges`` (``offsets``, ``targets``), its term ids moved
    by ``term_map`` (earlier id → id in ``store``, -1: gone; order-preserving): the same
    arrays, without looking every edge's terms up again. None when the terms of some FR
    edge came or went (those arrays must be made anew)."""
    source = np.repeat(np.arange(len(offsets) - 1, dtype=np.int64), np.diff(offsets))
    new_source, new_target = term_map[source], term_map[targets.astype(np.int64)]
    if len(source) and (new_source.min() < 0 or new_target.min() < 0):
        return None  # a linked term left the archive
    kept = term_map[term_map >= 0]
    if len(kept) != store.terms:  # terms new to the archive: none may be in an FR edge
        fresh = np.ones(store.terms, dtype=bool)
        fresh[kept] = False
        value_set = pa.array(store.take(np.flatnonzero(fresh)), pa.string())
        if any(pc.any(pc.is_in(fr_edges.column(c), value_set=value_set)).as_py()
               for c in ("s", "o")):
            return None
    new_offsets = np.zeros(store.terms + 1, dtype=np.int64)
    np.cumsum(np.bincount(new_source, minlength=store.terms), out=new_offsets[1:])
    return new_offsets, new_target.astype(np.int32)


def faiss_index(vectors: np.ndarray, approximate_above: int) -> Any:
    """Exact inner-product search, or HNSW above ``approximate_above`` vectors."""
    dim = int(vectors.shape[1]) if len(vectors) else 1
    index: Any
    if len(vectors) > approximate_above:
        index = faiss.IndexHNSWFlat(dim, 32, faiss.METRIC_INNER_PRODUCT)
    else:
        index = faiss.IndexFlatIP(dim)
    if len(vectors):
        index.add(np.ascontiguousarray(vectors, dtype=np.float32))
    return index


def bm25_retriever(nodes: list[TextNode], settings: Bm25Settings) -> BM25Retriever:
    """A BM25 retriever over ``nodes`` tokenised with ``settings``."""
    return bm25_from_texts([n.get_content(metadata_mode=MetadataMode.EMBED) for n in nodes],
                           settings)


def bm25_from_texts(texts: list[str], settings: Bm25Settings) -> BM25Retriever:
    """A BM25 retriever over ``texts`` (one per row) tokenised with ``settings``: the index
    ``BM25Retriever(nodes=...)`` makes from nodes with these texts, without the per-node
    metadata copies it keeps as its corpus (:func:`write_search_parts` stores row ids)."""
    return bm25_from_tokens(bm25_tokens(texts, settings), settings)


def bm25_tokens(texts: list[str], settings: Bm25Settings) -> CorpusTokens:
    """The BM25 tokens of ``texts`` (one per row): what ``BM25Retriever`` indexes."""
    stemmer = Stemmer.Stemmer(settings.stemmer)
    ids, vocab = bm25s.tokenize(texts, stopwords=settings.language,
                                stemmer=None if settings.skip_stemming else stemmer,
                                token_pattern=settings.token_pattern, show_progress=False)
    return CorpusTokens.of(ids, vocab)


@dataclass(slots=True)
class _TokenIds:
    """What ``bm25s.BM25.index`` takes as a corpus "object" (``ids``, ``vocab``)."""

    ids: CorpusTokens
    vocab: dict[str, int]


class ArrayBM25(bm25s.BM25):
    """``bm25s.BM25`` whose index is computed from a :class:`CorpusTokens` with numpy
    over every (document, token) pair at once rather than one document at a time in
    Python: the same arrays (the same float operations on each pair, in the same
    order; ``tests/test_update.py`` compares them), in a fraction of the time."""

    def build_index_from_ids(self, unique_token_ids: list[int], corpus_token_ids: Any,
                             show_progress: bool = True, leave_progress: bool = False
                             ) -> dict[str, Any]:
        if not isinstance(corpus_token_ids, CorpusTokens) or \
                self.method in self.methods_requiring_nonoccurrence:
            if isinstance(corpus_token_ids, CorpusTokens):
                corpus_token_ids = corpus_token_ids.lists()
            return super().build_index_from_ids(unique_token_ids, corpus_token_ids,
                                                show_progress, leave_progress)
        from bm25s.scoring import _build_idf_array, _select_idf_scorer, _select_tfc_scorer

        self.nonoccurrence_array = None  # as bm25s sets it for these methods

        n_vocab = len(unique_token_ids)
        lengths = np.diff(corpus_token_ids.offsets).astype(np.int64)
        n_docs = len(lengths)
        avg_doc_len = lengths.mean()
        owner = np.repeat(np.arange(n_docs, dtype=np.int64), lengths)
        pairs, counts = np.unique(owner * n_vocab + corpus_token_ids.ids.astype(np.int64),
                                  return_counts=True)
        doc, token = pairs // n_vocab, pairs % n_vocab
        df = np.bincount(token, minlength=n_vocab)
        doc_frequencies = dict(zip(unique_token_ids, df[unique_token_ids].tolist(),
                                   strict=True))
        idf_array = _build_idf_array(doc_frequencies, n_docs,
                                     compute_idf_fn=_select_idf_scorer(self.idf_method),
                                     dtype=self.dtype)
        # one document's call of the scorer, on every pair: ``l_d`` a float64 per pair
        # where bm25s passes an int per document (the same double operations)
        tfc = _select_tfc_scorer(self.method)(
            tf_array=counts.astype(self.dtype), l_d=lengths[doc].astype(np.float64),
            l_avg=avg_doc_len, k1=self.k1, b=self.b, delta=self.delta)
        scores = (idf_array[token] * tfc).astype(self.dtype)
        data, indices, indptr = self._np_csc(
            data=scores, rows=doc.astype(self.int_dtype), cols=token.astype(self.int_dtype),
            shape=(n_docs, n_vocab))
        return {"data": data.astype(self.dtype), "indices": indices, "indptr": indptr,
                "num_docs": n_docs}


def bm25_from_tokens(tokens: CorpusTokens, settings: Bm25Settings) -> BM25Retriever:
    """A BM25 retriever over a tokenised corpus (its rows the index's rows)."""
    bm25 = ArrayBM25()
    bm25.index(_TokenIds(tokens, {t: i for i, t in enumerate(tokens.vocab)}),
               show_progress=False)
    return BM25Retriever(existing_bm25=bm25, stemmer=Stemmer.Stemmer(settings.stemmer),
                         language=settings.language, token_pattern=settings.token_pattern,
                         skip_stemming=settings.skip_stemming)


@dataclass(frozen=True, slots=True)
class CorpusTokens:
    """The BM25 tokens of every row (stemmed, stop words out, in text order), kept beside
    the BM25 index (``bm25/tokens.npy``, ``token_offsets.npy``, ``token_vocab.json``) so
    that an update tokenises only the texts it changed. ``vocab`` is sorted (token id =
    position), so that the files do not depend on the order ``bm25s`` met the tokens in."""

    ids: np.ndarray
    offsets: np.ndarray
    vocab: list[str]

    @classmethod
    def of(cls, rows: list[list[int]], vocab: dict[str, int]) -> CorpusTokens:
        """From ``bm25s.tokenize``'s ids and vocabulary (ids renumbered in token order)."""
        ordered = sorted(vocab)
        renumber = np.zeros(len(vocab), dtype=np.int32)
        renumber[np.asarray([vocab[t] for t in ordered], dtype=np.int64)] = np.arange(
            len(ordered), dtype=np.int32)
        lengths = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
        offsets = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        flat = np.fromiter((t for r in rows for t in r), dtype=np.int64, count=int(offsets[-1]))
        return cls(renumber[flat], offsets, ordered)

    def lists(self) -> list[list[int]]:
        """The token ids of every row, as lists."""
        flat = self.ids.tolist()
        bounds = self.offsets.tolist()
        return [flat[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]

    def rows(self, which: list[int]) -> list[list[str]]:
        """The tokens of some rows, as strings."""
        return [[self.vocab[t] for t in self.ids[self.offsets[i]:self.offsets[i + 1]].tolist()]
                for i in which]

    def updated(self, old_rows: list[int | None], texts: dict[int, str],
                settings: Bm25Settings) -> CorpusTokens:
        """The tokens of a new corpus: row ``i`` is the old row ``old_rows[i]``, or, when
        that is None, the tokens of ``texts[i]`` (tokenised here)."""
        fresh_rows = sorted(texts)
        fresh = bm25_tokens([texts[i] for i in fresh_rows], settings)
        fresh_of = dict(zip(fresh_rows, range(len(fresh_rows)), strict=True))
        pieces: list[np.ndarray] = []
        sources: list[int] = []  # 0: old vocabulary, 1: the fresh one
        for i, old in enumerate(old_rows):
            if old is not None:
                pieces.append(self.ids[self.offsets[old]:self.offsets[old + 1]])
                sources.append(0)
            else:
                j = fresh_of[i]
                pieces.append(fresh.ids[fresh.offsets[j]:fresh.offsets[j + 1]])
                sources.append(1)
        lengths = np.fromiter((len(x) for x in pieces), dtype=np.int64, count=len(pieces))
        offsets = np.zeros(len(pieces) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        flat = np.concatenate(pieces).astype(np.int64) if pieces else np.zeros(0, np.int64)
        from_fresh = np.repeat(np.asarray(sources, dtype=bool), lengths)
        # one vocabulary: the tokens used, sorted
        old_used = np.unique(flat[~from_fresh])
        new_used = np.unique(flat[from_fresh])
        words = sorted({self.vocab[t] for t in old_used.tolist()}
                       | {fresh.vocab[t] for t in new_used.tolist()})
        position = {w: k for k, w in enumerate(words)}
        old_map = np.zeros(max(1, len(self.vocab)), dtype=np.int32)  # [0]: unused
        old_map[old_used] = [position[self.vocab[t]] for t in old_used.tolist()]
        new_map = np.zeros(max(1, len(fresh.vocab)), dtype=np.int32)
        new_map[new_used] = [position[fresh.vocab[t]] for t in new_used.tolist()]
        ids = np.where(from_fresh, new_map[np.where(from_fresh, flat, 0)],
                       old_map[np.where(from_fresh, 0, flat)]).astype(np.int32)
        return CorpusTokens(ids, offsets, words)

    def write(self, folder: Path) -> None:
        """Write into the BM25 folder."""
        np.save(folder / TOKENS, self.ids.astype(np.int32))
        np.save(folder / TOKEN_OFFSETS, self.offsets.astype(np.int64))
        (folder / TOKEN_VOCAB).write_text(json.dumps(self.vocab, ensure_ascii=False))

    @classmethod
    def read(cls, folder: Path) -> CorpusTokens | None:
        """What :meth:`write` wrote, or None (an index made before tokens were kept)."""
        if not all((folder / n).exists() for n in (TOKENS, TOKEN_OFFSETS, TOKEN_VOCAB)):
            return None
        return cls(np.load(folder / TOKENS), np.load(folder / TOKEN_OFFSETS),
                   json.loads((folder / TOKEN_VOCAB).read_text()))


def load_bm25(folder: Path, settings: Bm25Settings) -> BM25Retriever:
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


def write_search_parts(folder: Path, doc_ids: list[str], vectors: np.ndarray,
                       faiss_index: Any | None, bm25: BM25Retriever, settings: Bm25Settings,
                       statistics: GraphStatistics, tokens: CorpusTokens | None = None,
                       beside: Beside | None = None) -> None:
    """Write row ids, vectors, FAISS (unless another vector store holds the vectors),
    BM25 (with its corpus ``tokens`` when given) and statistics into ``folder``.

    ``beside``: an earlier index with the same rows (an update that moved no document):
    its vector and flat FAISS files are copied with the changed rows written over them
    (the files :func:`np.save` and ``faiss.write_index`` would write, without making
    the FAISS index; ``faiss_index`` is then not used), and its BM25 corpus files,
    which hold only the rows' ids, are linked."""
    (folder / DOC_IDS).write_text(json.dumps(doc_ids, ensure_ascii=False))
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    if beside is None or not beside.patch(VECTORS, folder, vectors):
        np.save(folder / VECTORS, vectors)
    if beside is not None and beside.faiss:
        if not beside.patch(FAISS_FILE, folder, vectors):
            flat = faiss.IndexFlatIP(int(vectors.shape[1]))
            flat.add(vectors)
            faiss.write_index(flat, str(folder / FAISS_FILE))
    elif faiss_index is not None:
        faiss.write_index(faiss_index, str(folder / FAISS_FILE))
    _write_bm25(folder / BM25_DIR, bm25, doc_ids, settings,
                None if beside is None else beside.folder / BM25_DIR)
    if tokens is not None:
        tokens.write(folder / BM25_DIR)
    statistics.persist(folder)


FLAT_IP = b"IxFI"
"""The first bytes of a ``faiss.write_index`` file of an ``IndexFlatIP``."""


@dataclass(slots=True)
class Beside:
    """An earlier index folder whose rows (``doc_ids.json``) are the rows being written:
    ``vectors`` its vectors, ``changed`` the rows whose vectors differ now, ``faiss``
    whether a flat FAISS index is written (else another vector store holds them)."""

    folder: Path
    vectors: np.ndarray
    changed: np.ndarray
    faiss: bool = True

    def patch(self, name: str, folder: Path, vectors: np.ndarray) -> bool:
        """Write ``folder / name`` as the earlier file with the changed rows of
        ``vectors`` written over its rows (a hard link when none changed). Both files
        end with the rows as float32 (an ``.npy`` array, a flat FAISS index); False,
        writing nothing, when the earlier file is not such a file of :attr:`vectors`."""
        before = self.folder / name
        old = np.ascontiguousarray(self.vectors, dtype=np.float32)
        if old.shape != vectors.shape or not before.is_file() or not len(old):
            return False
        start = before.stat().st_size - old.nbytes
        row = old.shape[1] * 4
        with before.open("rb") as f:
            head = f.read(4)
            f.seek(max(start, 0))
            first = f.read(row)
            f.seek(max(start, 0) + old.nbytes - row)
            last = f.read(row)
        if start < 0 or first != old[0].tobytes() or last != old[-1].tobytes() or (
                name == FAISS_FILE and head != FLAT_IP):
            return False
        if not len(self.changed):
            try:
                os.link(before, folder / name)  # never written in place: both may hold it
                return True
            except OSError:
                pass
        shutil.copyfile(before, folder / name)
        with (folder / name).open("r+b") as f:
            for i in np.unique(self.changed).tolist():
                f.seek(start + i * row)
                f.write(vectors[i].tobytes())
        return True


def _write_bm25(folder: Path, bm25: BM25Retriever, doc_ids: list[str],
                settings: Bm25Settings, corpus_beside: Path | None = None) -> None:
    """``corpus_beside``: the BM25 folder of an index with the same rows, whose corpus
    files (the rows' ids) are linked rather than written again."""
    folder.mkdir(exist_ok=True)
    linked = corpus_beside is not None and all(
        (corpus_beside / n).is_file() for n in CORPUS_FILES)
    # rows are the index's rows: the corpus needs no copy of the documents
    bm25.corpus = None if linked else [{"node_id": d} for d in doc_ids]
    bm25.persist(str(folder), show_progress=False)
    if linked:
        assert corpus_beside is not None
        for name in CORPUS_FILES:
            try:
                os.link(corpus_beside / name, folder / name)
            except OSError:
                shutil.copyfile(corpus_beside / name, folder / name)
    (folder / BM25_SETTINGS).write_text(json.dumps({
        "language": settings.language, "stemmer": settings.stemmer,
        "token_pattern": settings.token_pattern, "skip_stemming": settings.skip_stemming,
    }))
