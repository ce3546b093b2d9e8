"""The embedding step with the real offline model: cache, batching order, progress."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from llama_index_crm.embeddings import EmbeddingCache, embed_texts, load_embed_model

TEXTS = [
    "[Thing] Panagia Phorbiottissa (Asinou)\nClasses: Built Work",
    "[Actor] Nikephoros Ischyrios\nClasses: Person",
    "[Place] Nikitari\nClasses: Place",
]


def test_a_rebuild_embeds_only_the_changed_texts(tmp_path: Path) -> None:
    model = load_embed_model(None)
    reports: list[int] = []
    with_cache = EmbeddingCache(tmp_path)
    first = embed_texts(model, TEXTS, cache=with_cache, batch_size=2, on_batch=reports.append)
    assert first.shape == (3, 384)
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    assert reports == [2, 1]  # shortest first, two per batch, nothing cached yet
    with_cache.close()

    reports.clear()
    changed = [*TEXTS[:2], "[Place] Nicosia District\nClasses: Place"]
    again = EmbeddingCache(tmp_path)  # a later build reopens the same folder
    second = embed_texts(model, changed, cache=again, batch_size=2, on_batch=reports.append)
    assert reports == [2, 1]  # the two unchanged texts come from the cache, one is embedded
    assert np.array_equal(second[:2], first[:2])
    assert not np.allclose(second[2], first[2])
    # what the cache returns is what the model computes
    direct = embed_texts(model, changed[2:])
    assert np.allclose(direct[0], second[2], atol=1e-5)
