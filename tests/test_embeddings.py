"""The embedding step with the real offline model: cache, batching order, progress."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.bridge.pydantic import PrivateAttr

from llama_index_crm.embeddings import EmbeddingCache, embed_texts, load_embed_model

TEXTS = [
    "[Thing] Panagia Phorbiottissa (Asinou)\nClasses: Built Work",
    "[Actor] Nikephoros Ischyrios\nClasses: Person",
    "[Place] Nikitari\nClasses: Place",
]


class Counting(BaseEmbedding):
    """The real model, recording every text it is asked to embed."""

    _inner: BaseEmbedding = PrivateAttr()
    _asked: list[str] = PrivateAttr(default_factory=list)

    def __init__(self, inner: BaseEmbedding, **kwargs: Any) -> None:
        super().__init__(model_name=inner.model_name, **kwargs)
        self._inner = inner

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        self._asked.extend(texts)
        return self._inner.get_text_embedding_batch(texts)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._get_text_embeddings([text])[0]

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._inner.get_query_embedding(query)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)

    def asked(self) -> list[str]:
        """The texts embedded since the last call."""
        seen, self._asked = self._asked, []
        return seen


def test_a_rebuild_embeds_only_the_changed_texts(tmp_path: Path) -> None:
    model = Counting(load_embed_model(None))
    reports: list[int] = []
    with_cache = EmbeddingCache(tmp_path)
    first = embed_texts(model, TEXTS, cache=with_cache, batch_size=2, on_batch=reports.append)
    assert first.shape == (3, 384)
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    assert reports == [2, 1]  # shortest first, two per batch, nothing cached yet
    assert model.asked() == sorted(TEXTS, key=len)
    with_cache.close()

    reports.clear()
    changed = [*TEXTS[:2], "[Place] Nicosia District\nClasses: Place"]
    again = EmbeddingCache(tmp_path)  # a later build reopens the same folder
    second = embed_texts(model, changed, cache=again, batch_size=2, on_batch=reports.append)
    assert reports == [2, 1]  # the two unchanged texts come from the cache, one is embedded
    assert model.asked() == [changed[2]]  # what the model computed: the new text alone
    assert np.array_equal(second[:2], first[:2])
    assert not np.allclose(second[2], first[2])
    # what the cache returns is what the model computes
    direct = embed_texts(model, changed[2:])
    assert np.allclose(direct[0], second[2], atol=1e-5)


def test_a_text_given_twice_is_embedded_once(tmp_path: Path) -> None:
    model = Counting(load_embed_model(None))
    cache = EmbeddingCache(tmp_path)
    vectors = embed_texts(model, [TEXTS[0], TEXTS[1], TEXTS[0]], cache=cache)
    assert sorted(model.asked()) == sorted(TEXTS[:2])
    assert np.array_equal(vectors[0], vectors[2])
    # a third build of the same texts asks the model nothing
    again = embed_texts(model, TEXTS[:2], cache=cache)
    assert model.asked() == [] and np.array_equal(again, vectors[:2])
    cache.close()
