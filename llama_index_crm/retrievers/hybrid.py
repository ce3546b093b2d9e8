"""``HybridRetriever``: dense (FAISS) and BM25 over the same documents, fused by RRF."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import numpy as np
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle

from llama_index_crm.events import emit
from llama_index_crm.graph.channels import RRF_K, rrf

if TYPE_CHECKING:
    from llama_index_crm.graph.data import GraphData


class HybridRetriever(BaseRetriever):
    """Dense and lexical retrieval fused by reciprocal rank (k = 60, per-channel weights).

    Three channels: dense (FAISS, cosine), BM25 over the documents, and BM25 over each
    document's own names.

    Unlike ``QueryFusionRetriever`` in RRF mode, the channel weights and k are honoured
    and no LLM is consulted.

    Args:
        index: the index whose documents are searched.
        similarity_top_k: documents returned.
        dense_weight: weight of the dense channel in the fusion.
        bm25_weight: weight of the BM25 channel.
        names_weight: weight of the names channel (whole names found verbatim in the query:
            the document that *is* "Panagia Phorbiottissa" before those that mention it).
        rrf_k: the k of reciprocal rank fusion.
        depth: candidates taken from each channel before fusion (default 3 × top k, ≥ 50).
    """

    def __init__(
        self,
        index: GraphData,
        similarity_top_k: int = 10,
        dense_weight: float = 1.0,
        bm25_weight: float = 1.0,
        names_weight: float = 1.0,
        rrf_k: int = RRF_K,
        depth: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.index = index
        self.similarity_top_k = similarity_top_k
        self.dense_weight = dense_weight
        self.bm25_weight = bm25_weight
        self.names_weight = names_weight
        self.rrf_k = rrf_k
        self.depth = depth

    @classmethod
    def class_name(cls) -> str:
        """Name of this component."""
        return "CrmHybridRetriever"

    @property
    def weights(self) -> dict[str, float]:
        """Channel weights of the fusion."""
        return {"dense": self.dense_weight, "bm25": self.bm25_weight,
                "names": self.names_weight}

    def query_vector(self, query_bundle: QueryBundle) -> np.ndarray:
        """The normalised query embedding (reusing one already in the bundle)."""
        if query_bundle.embedding is not None:
            vec = np.asarray(query_bundle.embedding, dtype=np.float32)
            return vec / max(float(np.linalg.norm(vec)), 1e-12)
        vec = self.index.embed_query(query_bundle.query_str)
        query_bundle.embedding = vec.tolist()
        return vec

    def fused_rows(self, query_bundle: QueryBundle, top_k: int,
                   rows: np.ndarray | None = None,
                   mask: np.ndarray | None = None) -> dict[str, list[tuple[int, float]]]:
        """Each channel's ranked (row, score) list, optionally restricted to ``rows``."""
        depth = self.depth or max(50, 3 * top_k)
        return {
            "dense": self.index.dense.search(self.query_vector(query_bundle), depth, rows),
            "bm25": self.index.lexical.search(query_bundle.query_str, depth, mask),
            "names": self.index.names.search(query_bundle.query_str, depth, mask),
        }

    def to_nodes(self, scored: list[tuple[int, float]]) -> list[NodeWithScore]:
        """Rows with scores as LlamaIndex nodes."""
        return [NodeWithScore(node=self.index.node(self.index.doc_ids[r]), score=s)
                for r, s in scored]

    def retrieve_rows(self, query_bundle: QueryBundle, top_k: int) -> list[tuple[int, float]]:
        """The ``top_k`` fused (row, score) pairs, best first."""
        channels = self.fused_rows(query_bundle, top_k)
        for name, scored in channels.items():
            emit(name, query_bundle.query_str, self.to_nodes(scored[:top_k]))
        fused = rrf({n: [r for r, _ in c] for n, c in channels.items()}, self.weights,
                    self.rrf_k)
        return sorted(fused.items(), key=lambda x: (-x[1], x[0]))[:top_k]

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        nodes = self.to_nodes(self.retrieve_rows(query_bundle, self.similarity_top_k))
        emit("hybrid", query_bundle.query_str, nodes, rrf_k=self.rrf_k, **self.weights)
        return nodes

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        """:meth:`_retrieve` in a worker thread: embedding and search leave the loop free."""
        return await asyncio.to_thread(self._retrieve, query_bundle)
