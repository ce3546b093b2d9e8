"""Encoder backends (torch, ONNX fp32, ONNX int8, model2vec) on the demo graph.

The ONNX files are exported once per session into the session's cache
(``conftest.models_cache``); the static model is distilled there from a small part of
MiniLM's vocabulary (the whole one takes minutes on two cores): the test checks that the
backend works and is told apart, not how well it retrieves.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from conftest import DEMO_GRAPH

from llama_index_crm import encoders
from llama_index_crm.embeddings import (
    DEFAULT_BACKEND,
    EmbeddingCache,
    embed_texts,
    load_embed_model,
    model_id,
)
from llama_index_crm.encoders import OnnxEmbedding, StaticEmbedding, backend_name
from llama_index_crm.errors import CrmError, IndexFormatError
from llama_index_crm.index import CrmGraphIndex

ASINOU = "https://example.org/troodos/church/asinou"
QUESTION = "Who founded the church at Asinou?"
SMALL_VOCABULARY = r"\[unused|(?!\[|[a-z]{1,3}$)"
"""Word pieces removed from the test's static model: all but special ones and short words."""


def demo_texts(index: CrmGraphIndex) -> list[str]:
    from llama_index.core.schema import MetadataMode

    from llama_index_crm.embeddings import embedding_text

    return [embedding_text(index.node(d).get_content(metadata_mode=MetadataMode.EMBED))
            for d in index.doc_ids]


def printed_by(script: str) -> list[str]:
    """The words a Python script prints, run in a fresh interpreter (its own imports)."""
    return subprocess.run([sys.executable, "-c", script], check=True, capture_output=True,
                          text=True).stdout.split()


def test_onnx_vectors_agree_with_torch(demo_index: CrmGraphIndex) -> None:
    texts = demo_texts(demo_index)
    torch_vecs = embed_texts(load_embed_model(backend="torch"), texts)
    for backend, floor in (("onnx", 0.9999), ("onnx-int8", 0.98)):
        model = load_embed_model(backend=backend)
        assert isinstance(model, OnnxEmbedding) and model.backend == backend
        vecs = embed_texts(model, texts)
        cosine = np.sum(vecs * torch_vecs, axis=1)
        assert cosine.min() >= floor, (backend, float(cosine.min()))
        # a text alone, as the query side embeds it (one thread), agrees as well (int8
        # activations are quantised per batch, so a text alone is not bit-identical)
        query = np.asarray(load_embed_model(backend=backend, threads=1)
                           .get_query_embedding(texts[0]))
        assert float(query @ torch_vecs[0]) >= floor


def test_default_backend_builds_the_demo(demo_index: CrmGraphIndex) -> None:
    embedding = demo_index.manifest["embedding"]
    assert embedding["backend"] == DEFAULT_BACKEND == "onnx-int8"
    assert embedding["model"].endswith(":onnx-int8")
    assert backend_name("fast") == "model2vec"
    answer = demo_index.ask(QUESTION)
    assert ASINOU in [n.node.metadata["uri"] for n in answer.nodes]


def test_a_query_process_imports_no_torch(demo_index: CrmGraphIndex) -> None:
    script = (
        "import sys\n"
        "from llama_index_crm.index import CrmGraphIndex\n"
        f"index = CrmGraphIndex.load({str(demo_index.folder)!r})\n"
        f"answer = index.ask({QUESTION!r})\n"
        "print(len(answer.nodes), 'torch' in sys.modules, 'transformers' in sys.modules)\n"
    )
    out = printed_by(script)
    assert int(out[0]) > 0 and out[1:] == ["False", "False"]


def test_onnx_files_are_made_without_torch(tmp_path: Path) -> None:
    """The first use of the default backend writes and quantises the ONNX file from the
    safetensors weights: torch is never imported (it held 1.3 GB of a build), and the files
    give the vectors of the session's ONNX model."""
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from llama_index_crm.embeddings import prepare_model_files, load_embed_model\n"
        f"prepare_model_files(backend='onnx-int8', models=Path({str(tmp_path)!r}))\n"
        f"model = load_embed_model(backend='onnx-int8', models=Path({str(tmp_path)!r}))\n"
        "print(model.model_dir, 'torch' in sys.modules)\n"
    )
    out = printed_by(script)
    assert out[1] == "False"
    assert sorted(p.name for p in Path(out[0]).iterdir()) == ["model.onnx", "tokenizer.json"]
    texts = ["[Place] Nikitari\nClasses: Place", "Panagia Phorbiotissa (Asinou), a church"]
    fresh = OnnxEmbedding(model_dir=out[0], model_name="m", backend="onnx-int8").encode(texts)
    session = load_embed_model(backend="onnx-int8")
    assert isinstance(session, OnnxEmbedding)
    assert Path(session.model_dir).name == Path(out[0]).name  # same recipe, same folder name
    assert np.allclose(fresh, session.encode(texts), atol=1e-6)


def test_the_onnx_writer_refuses_what_it_does_not_write(tmp_path: Path) -> None:
    from llama_index_crm.bert_onnx import bert_onnx
    from llama_index_crm.embeddings import offline_model_path

    config = json.loads((offline_model_path() / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps({**config, "hidden_act": "relu"}))
    with pytest.raises(CrmError, match="hidden_act='gelu'.*--embed-backend torch"):
        bert_onnx(tmp_path, 17)
    (tmp_path / "config.json").write_text(json.dumps(config))
    with pytest.raises(CrmError, match="No model.safetensors"):
        bert_onnx(tmp_path, 17)


def test_cache_keys_on_the_backend(tmp_path: Path) -> None:
    texts = ["[Place] Nikitari\nClasses: Place"]
    cache = EmbeddingCache(tmp_path)
    fp32, int8 = load_embed_model(backend="onnx"), load_embed_model(backend="onnx-int8")
    assert model_id(fp32) != model_id(int8)
    embed_texts(fp32, texts, cache=cache)
    assert cache.get_many(model_id(int8), [EmbeddingCache.key(texts[0])]) == {}
    assert len(cache.get_many(model_id(fp32), [EmbeddingCache.key(texts[0])])) == 1
    cache.close()


def test_another_backend_is_refused_with_the_rebuild_hint(demo_index: CrmGraphIndex,
                                                          tmp_path: Path) -> None:
    folder = demo_index.folder
    with pytest.raises(IndexFormatError, match="onnx-int8 backend, not torch.*"
                                               "--embed-backend torch"):
        CrmGraphIndex.load(folder, embed_backend="torch")
    with pytest.raises(IndexFormatError, match="not onnx.*--embed-backend onnx"):
        CrmGraphIndex.load(folder, embed_model=load_embed_model(backend="onnx"))
    assert CrmGraphIndex.load(folder, embed_backend="int8").embed_backend == "onnx-int8"
    # a manifest that names another backend than its model id: refused at first use
    copy = tmp_path / "tampered"
    shutil.copytree(folder, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["embedding"]["backend"] = "onnx"
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(IndexFormatError, match="inconsistent"):
        CrmGraphIndex.load(copy).ask(QUESTION)
    with pytest.raises(CrmError, match="bundled all-MiniLM-L6-v2 only"):
        load_embed_model("BAAI/bge-m3", backend="onnx")
    with pytest.raises(CrmError, match="Unknown embedding backend"):
        load_embed_model(backend="tensorflow")


def test_torch_backend_builds_and_refuses_the_default(tmp_path: Path) -> None:
    index = CrmGraphIndex.build([str(DEMO_GRAPH)], tmp_path / "torch", embed_backend="torch",
                                cache_dir=tmp_path / "cache")
    assert index.manifest["embedding"]["backend"] == "torch"
    assert index.manifest["embedding"]["model"] == \
        "HuggingFaceEmbedding:sentence-transformers/all-MiniLM-L6-v2"  # the key it always had
    assert ASINOU in [n.node.metadata["uri"] for n in index.ask(QUESTION).nodes]
    with pytest.raises(IndexFormatError, match="--embed-backend onnx-int8"):
        CrmGraphIndex.load(index.folder, embed_backend=DEFAULT_BACKEND)


@pytest.fixture(scope="module")
def small_static_model() -> Iterator[None]:
    """The static model distilled from short word pieces only (seconds, not minutes)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(encoders, "MODEL2VEC_REMOVE", SMALL_VOCABULARY)
        yield


def test_model2vec_backend_works_and_is_told_apart(small_static_model: None,
                                                   tmp_path: Path) -> None:
    index = CrmGraphIndex.build([str(DEMO_GRAPH)], tmp_path / "fast", embed_backend="fast",
                                cache_dir=tmp_path / "cache")
    embedding = index.manifest["embedding"]
    assert embedding["backend"] == "model2vec"
    assert embedding["dimension"] == encoders.MODEL2VEC_DIMS
    model = load_embed_model(backend="model2vec")
    assert isinstance(model, StaticEmbedding)
    vectors = model.encode(["the art of the age", "the art of the age", "a big red hat"])
    assert vectors.shape == (3, encoders.MODEL2VEC_DIMS)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert float(vectors[0] @ vectors[1]) > 0.9999 > float(vectors[0] @ vectors[2])
    loaded = CrmGraphIndex.load(index.folder)
    assert loaded.ask(QUESTION).nodes  # answered (BM25 and names carry the small model)
    with pytest.raises(IndexFormatError, match="model2vec backend, not onnx-int8"):
        CrmGraphIndex.load(index.folder, embed_backend="onnx-int8")


def test_long_texts_go_in_smaller_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Batches hold up to BATCH_SIZE texts and at most TOKEN_BUDGET word pieces padded:
    the short texts of a graph go 32 at a time, its long ones fewer (bounding what ONNX
    Runtime's arena keeps), and every text still gets its own vector, in order."""
    from llama_index_crm.embeddings import BATCH_SIZE, TOKEN_BUDGET

    model = load_embed_model(backend="onnx-int8")
    assert isinstance(model, OnnxEmbedding)
    texts = [f"Church {i} of the Troodos" for i in range(40)] + [
        " ".join(f"fresco{i} painted in the twelfth century" for i in range(40)) + f" {k}"
        for k in range(20)]
    calls: list[list[str]] = []
    encode = OnnxEmbedding.encode

    def counting(self: OnnxEmbedding, batch: list[str]) -> np.ndarray:
        calls.append(list(batch))
        return encode(self, batch)

    monkeypatch.setattr(OnnxEmbedding, "encode", counting)
    vectors = embed_texts(model, texts)
    monkeypatch.undo()
    sizes = [len(c) for c in calls]
    assert sum(sizes) == len(texts) and max(sizes) == BATCH_SIZE
    longest = max(model.token_counts(c)[-1] * len(c) for c in calls)
    assert longest <= TOKEN_BUDGET and min(sizes) < BATCH_SIZE // 2
    alone = model.encode([texts[-1]])[0]
    assert float(vectors[-1] @ alone) > 0.98
