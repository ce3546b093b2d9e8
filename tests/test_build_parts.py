"""The finish's parts (``build/parts.py``): the triple store read a row group at a time is
the store :meth:`TripleStore.load` reads, labels and all."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from llama_index_crm.build.parts import load_store
from llama_index_crm.storage import TripleStore, TripleWriter

EX = "http://example.org/"


def _archive(path: Path, seed: int, row_group_size: int) -> Path:
    """A random archive: repeated terms, literals, empty and competing labels (a term
    labelled differently as subject, predicate and object, in several row groups)."""
    rng = random.Random(seed)
    nodes = [f"{EX}n{i:02d}" for i in range(40)]
    preds = [f"{EX}p{i}" for i in range(4)] + nodes[:3]  # some nodes are predicates too

    def label() -> str:
        return rng.choice(["", "", f"name {rng.randrange(9)}"])

    rows = []
    for _ in range(300):
        o = rng.choice(nodes) if rng.random() < 0.7 else f'"text {rng.randrange(50)}"'
        rows.append((rng.choice(nodes), label(), rng.choice(preds), label(), o,
                     o.strip('"') if o.startswith('"') else label()))
    rows.insert(rng.randrange(len(rows)), (f"{EX}bare", "", f"{EX}pbare", "", f"{EX}bare2", ""))
    with TripleWriter(path, row_group_size=row_group_size) as writer:
        writer.write(rows)
    return path


@pytest.mark.parametrize(("seed", "row_group_size"), [(0, 7), (1, 50), (2, 1000)])
def test_the_store_read_a_row_group_at_a_time_is_the_store_loaded_whole(
        tmp_path: Path, seed: int, row_group_size: int) -> None:
    path = _archive(tmp_path / "triples.parquet", seed, row_group_size)
    whole, parts = TripleStore.load(path), load_store(path)
    assert parts.path == whole.path
    assert parts.terms == whole.terms and len(parts) == len(whole) > 200
    assert parts._terms.array.equals(whole._terms.array)  # noqa: SLF001
    assert parts._labels.equals(whole._labels)  # noqa: SLF001
    assert parts._labels.null_count > 0  # some terms have no label
    for name in ("s_ids", "p_ids", "o_ids", "in_p", "in_s", "out_offsets", "in_offsets"):
        assert np.array_equal(getattr(parts, name), getattr(whole, name)), name
    node = f"{EX}n05"
    assert parts.label(node) == whole.label(node)
    assert sorted(map(str, parts.triples_of(node))) == sorted(map(str, whole.triples_of(node)))
