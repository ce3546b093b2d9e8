"""Reciprocal rank fusion and the names channel (``graph/channels.py``): weights, zero-weight
channels and k are honoured, by :func:`rrf` and by the retrievers that fuse with it."""

from __future__ import annotations

import pytest
from llama_index.core import QueryBundle

from llama_index_crm import HybridRetriever
from llama_index_crm.graph.channels import NameMatcher, rrf
from llama_index_crm.index import CrmGraphIndex


def test_rrf_scales_each_channel_by_its_weight() -> None:
    fused = rrf({"a": [1, 2], "b": [2, 1]}, {"a": 2.0, "b": 1.0}, k=1)
    assert fused == {1: 2.0 / 2 + 1.0 / 3, 2: 2.0 / 3 + 1.0 / 2}
    assert max(fused, key=fused.__getitem__) == 1  # the heavier channel's first wins
    # a channel without a weight counts 1.0
    assert rrf({"a": [7]}, {}, k=1) == {7: 0.5}


def test_rrf_leaves_out_the_rows_of_a_zero_weight_channel() -> None:
    fused = rrf({"a": [1], "off": [2, 3]}, {"a": 1.0, "off": 0.0}, k=1)
    assert fused == {1: 0.5}


def test_rrf_k_sets_how_fast_ranks_fade() -> None:
    assert rrf({"a": [5, 6]}, {"a": 1.0}, k=1) == {5: 1 / 2, 6: 1 / 3}
    assert rrf({"a": [5, 6]}, {"a": 1.0}, k=10) == {5: 1 / 11, 6: 1 / 12}


QUESTION = "Who painted the church of Panagia tou Araka?"


def _ranked(retriever: HybridRetriever) -> list[tuple[int, float]]:
    return retriever.retrieve_rows(QueryBundle(QUESTION), 10)


def test_a_zero_weight_switches_a_hybrid_channel_off(demo_index: CrmGraphIndex) -> None:
    """With the other channels at weight 0 the fusion is the BM25 ranking itself, scored
    1 / (k + rank)."""
    bm25_only = HybridRetriever(demo_index, dense_weight=0.0, names_weight=0.0, rrf_k=5)
    bm25 = demo_index.lexical.search(QUESTION, 10)
    assert _ranked(bm25_only) == [(row, 1 / (5 + rank))
                                  for rank, (row, _) in enumerate(bm25, start=1)]
    dense_only = HybridRetriever(demo_index, bm25_weight=0.0, names_weight=0.0)
    dense = HybridRetriever(demo_index).query_vector(QueryBundle(QUESTION))
    assert [r for r, _ in _ranked(dense_only)] == [
        r for r, _ in demo_index.dense.search(dense, 10)]


def test_hybrid_weights_and_k_reach_the_fusion(demo_index: CrmGraphIndex) -> None:
    """Doubling one channel's weight doubles its share of every score; the fused order
    follows the weights (the names channel at 10 puts the church named in the question
    first, whatever the other channels say)."""
    plain = dict(_ranked(HybridRetriever(demo_index, dense_weight=0.0, names_weight=0.0)))
    double = dict(_ranked(HybridRetriever(demo_index, dense_weight=0.0, names_weight=0.0,
                                          bm25_weight=2.0)))
    assert double == pytest.approx({row: 2 * s for row, s in plain.items()})
    named = HybridRetriever(demo_index, names_weight=10.0, rrf_k=1)
    first, score = _ranked(named)[0]
    assert demo_index.meta.labels[first] == "Panagia tou Araka"
    assert score > 10.0 / 2  # the names channel's first place at k = 1


def test_single_short_words_are_not_names() -> None:
    """A name of one word under four letters ("Man", "Tea": titles of works) would match
    the word wherever a question uses it; longer names and several words still match."""
    names = NameMatcher([["Man"], ["Tea"], ["Mark Leonard"], ["Asinou"], ["Man Ray"]])
    assert names.search("Which works by the man Mark Leonard show tea?", 10) == [(2, 2.0)]
    assert names.search("Tell me about Asinou", 10) == [(3, 1.0)]
    assert names.search("What did Man Ray paint?", 10) == [(4, 2.0)]
