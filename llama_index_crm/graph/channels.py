"""The two retrieval channels over an index's documents, and reciprocal rank fusion.

Both channels address documents by *row* (their position in the index), so that a
category restriction is a set of rows: the dense channel scores only those rows, the
lexical one passes bm25s a ``weight_mask`` for the query.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import bm25s
import numpy as np
from llama_index.retrievers.bm25 import BM25Retriever

if TYPE_CHECKING:
    from llama_index_crm.graph.vector_stores import StoreSearch

logging.getLogger("bm25s").setLevel(logging.NOTSET)
# bm25s sets its logger to DEBUG when imported: its debug lines reached any handler the
# application had ("DEBUG:bm25s:Building index from IDs objects" in the demo's output)

TIE_MARGIN = 10
"""Rows asked beyond ``k`` of an unrestricted dense search, so that ties are ordered by row."""
RRF_K = 60
"""The k of reciprocal rank fusion: score = Σ weight / (k + rank)."""


def rrf(rankings: Mapping[str, Sequence[int]], weights: Mapping[str, float],
        k: int = RRF_K) -> dict[int, float]:
    """Reciprocal rank fusion of ranked row lists (rank 1 first).

    >>> rrf({"a": [3, 1], "b": [1]}, {"a": 1.0, "b": 1.0}, k=60)[1] > 1 / 61
    True
    """
    fused: dict[int, float] = {}
    for name, rows in rankings.items():
        weight = weights.get(name, 1.0)
        if weight == 0:
            continue
        for rank, row in enumerate(rows, start=1):
            fused[row] = fused.get(row, 0.0) + weight / (k + rank)
    return fused


class DenseChannel:
    """Cosine similarity over normalised document vectors (FAISS ``IndexFlatIP``, or
    another vector store).

    Args:
        vectors: one normalised row per document (float32).
        faiss_index: the FAISS index over the same rows (used for unrestricted search).
        store: instead of FAISS, a vector store's search
            (:class:`~llama_index_crm.graph.vector_stores.StoreSearch`).
    """

    def __init__(self, vectors: np.ndarray, faiss_index: object,
                 store: StoreSearch | None = None) -> None:
        self.vectors = vectors
        self.faiss_index = faiss_index
        self.store = store

    def search(self, query: np.ndarray, k: int,
               rows: np.ndarray | None = None) -> list[tuple[int, float]]:
        """The ``k`` best rows for a normalised query vector, optionally among ``rows``."""
        if k <= 0 or len(self.vectors) == 0:
            return []
        q = np.asarray(query, dtype=np.float32).reshape(1, -1)
        if rows is None and self.store is not None:
            return self.store.search(q, k)
        if rows is None:
            # a few more than k, so that rows of equal score (the same embedded text) are
            # taken and ordered by row, as a vector store's are: FAISS leaves them in its
            # heap's order
            scores, found = self.faiss_index.search(  # type: ignore[attr-defined]
                q, min(k + TIE_MARGIN, len(self.vectors)))
            hits = [(int(r), float(s)) for r, s in zip(found[0], scores[0], strict=True)
                    if r >= 0]
            return sorted(hits, key=lambda h: (-h[1], h[0]))[:k]
        if len(rows) == 0:
            return []
        sims = self.vectors[rows] @ q[0]
        take = min(k, len(rows))
        best = np.argpartition(-sims, take - 1)[:take]
        best = best[np.argsort(-sims[best], kind="stable")]
        return [(int(rows[i]), float(sims[i])) for i in best]


class LexicalChannel:
    """BM25 (bm25s through ``llama-index-retrievers-bm25``) with per-query masks.

    Args:
        retriever: a ``BM25Retriever`` whose corpus rows are the index's document rows.
        language: stop-word language used when the corpus was tokenised.
    """

    def __init__(self, retriever: BM25Retriever, language: str = "en") -> None:
        self.retriever = retriever
        self.language = language
        self._rows: np.ndarray | None = None

    def tokens(self, query: str) -> list[str]:
        """The query as the corpus was tokenised (stop words, stemmer, token pattern)."""
        r = self.retriever
        out = bm25s.tokenize(
            query, stopwords=self.language, stemmer=None if r.skip_stemming else r.stemmer,
            token_pattern=r.token_pattern, return_ids=False, show_progress=False,
        )
        return list(out[0]) if out else []

    def search(self, query: str, k: int,
               mask: np.ndarray | None = None) -> list[tuple[int, float]]:
        """The ``k`` best rows for ``query`` (zero scores dropped), optionally masked."""
        tokens = [t for t in self.tokens(query) if t in self.retriever.bm25.vocab_dict]
        n_docs = int(self.retriever.bm25.scores.get("num_docs", 0))
        if not tokens or k <= 0 or n_docs == 0:
            return []
        if self._rows is None or len(self._rows) != n_docs:
            self._rows = np.arange(n_docs)
        # n_threads=0: scored in this thread. Any other value starts a thread pool for
        # each call (bm25s), and under the GIL every start and join waits for a switch
        # (issue 25: it cost questions asked at once more than the scoring itself)
        rows, scores = self.retriever.bm25.retrieve(
            [tokens], corpus=self._rows, k=min(k, n_docs), show_progress=False,
            weight_mask=mask, n_threads=0,
        )
        return [(int(r), float(s)) for r, s in zip(rows[0], scores[0], strict=True) if s > 0]


_TOKEN = re.compile(r"\w+", re.UNICODE)
MAX_NAME_TOKENS = 16
_PARENTHESES = re.compile(r"\([^()]*\)")


def name_tokens(text: str) -> tuple[str, ...]:
    """Lower-cased word tokens, accents kept (names are compared token by token)."""
    return tuple(t.lower() for t in _TOKEN.findall(text))


class NameMatcher:
    """Entity linking: documents whose whole name occurs verbatim in the question.

    "Which works by Mark Leonard…" finds the document named "Mark Leonard", not the ones
    whose names share a word with it. A name is also known without its parenthesised
    qualifiers ("Panagia Phorbiottissa (Asinou)"). Longer matches rank first; single short
    words (under 4 letters) are not matched alone.

    Args:
        names: per row, the names of the document's entity.
    """

    def __init__(self, names: Sequence[Sequence[str]]) -> None:
        self.rows: dict[tuple[str, ...], list[int]] = {}
        for row, entity_names in enumerate(names):
            variants = {v for n in entity_names for v in (n, _PARENTHESES.sub(" ", n))}
            for name in sorted(variants):
                key = name_tokens(name)
                if not key or len(key) > MAX_NAME_TOKENS or (len(key) == 1 and len(key[0]) < 4):
                    continue
                self.rows.setdefault(key, []).append(row)

    def search(self, query: str, k: int,
               mask: np.ndarray | None = None) -> list[tuple[int, float]]:
        """Rows named by a span of ``query``, longest span first (score = its length)."""
        words = name_tokens(query)
        found: dict[int, float] = {}
        for size in range(min(MAX_NAME_TOKENS, len(words)), 0, -1):
            for start in range(len(words) - size + 1):
                for row in self.rows.get(words[start : start + size], ()):
                    if (mask is None or mask[row]) and row not in found:
                        found[row] = float(size)
        return sorted(found.items(), key=lambda x: (-x[1], x[0]))[:k]
