"""Any LlamaIndex vector store in place of FAISS: LanceDB (embedded) and Qdrant (local mode)
built on disk from the demo graph, reloaded in a fresh index, and compared with the FAISS
build question by question; the manifest's record, a moved folder, store instances, and
updates (an embedded store inside the folder is written again; one elsewhere is refused).

Real stores on disk, never mocked; a store whose packages are missing is skipped with the
reason (``pip install 'llama-index-crm[lancedb]'`` / ``[qdrant]``, both in ``[dev]``).
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from conftest import DEMO
from update_support import graph_triples, mixed_delta, write_nt

from llama_index_crm.cli import main
from llama_index_crm.errors import CrmError, IndexFormatError
from llama_index_crm.graph.parts import FAISS_FILE
from llama_index_crm.graph.vector_stores import StoreSpec, node_id
from llama_index_crm.index import CrmGraphIndex

QUESTIONS = [q.strip() for q in (DEMO.parent / "troodos_questions.txt").read_text().splitlines()
             if q.strip() and not q.startswith("#")]
PACKAGES = {"lancedb": ("lancedb", "pandas", "llama_index.vector_stores.lancedb"),
            "qdrant": ("qdrant_client", "llama_index.vector_stores.qdrant")}
STORE_CLASSES = {"lancedb": "LanceDBVectorStore", "qdrant": "QdrantVectorStore"}


def _needs(kind: str) -> None:
    missing = [m for m in PACKAGES[kind] if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"{kind} store packages not installed ({', '.join(missing)}): "
                    f"pip install 'llama-index-crm[{kind}]'")


KINDS = [pytest.param(k, id=k) for k in PACKAGES]


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("vs-cache")


@pytest.fixture(scope="module")
def faiss_build(tmp_path_factory: pytest.TempPathFactory, cache: Path) -> CrmGraphIndex:
    return CrmGraphIndex.build([str(DEMO)], tmp_path_factory.mktemp("vs") / "faiss",
                               cache_dir=cache)


def _top(index: CrmGraphIndex, question: str, k: int = 10) -> list[tuple[int, float]]:
    return index.dense.search(index.embed_query(question), k)


def _same_ranking(a: list[tuple[int, float]], b: list[tuple[int, float]],
                  eps: float = 1e-5) -> bool:
    """The same ranked rows, up to the order of rows with equal scores (documents whose
    embedded heads are the same text: FAISS orders them as its heap left them)."""
    if len(a) != len(b) or not np.allclose([s for _, s in a], [s for _, s in b], atol=eps):
        return False
    if any(ra != rb and abs(sa - sb) > eps for (ra, sa), (rb, sb) in zip(a, b, strict=True)):
        return False
    cut = a[-1][1] + eps if a else 0.0
    return {r for r, s in a if s > cut} == {r for r, s in b if s > cut}


def _retrieved(index: CrmGraphIndex, question: str) -> list[str]:
    return [n.node.node_id for n in index.as_retriever().retrieve(question)]


def _assert_same_as_faiss(index: CrmGraphIndex, reference: CrmGraphIndex) -> None:
    assert index.doc_ids == reference.doc_ids
    for question in QUESTIONS:
        for k in (1, 10, 40):
            assert _same_ranking(_top(index, question, k), _top(reference, question, k)), \
                (question, k)
        assert _retrieved(index, question) == _retrieved(reference, question), question


@pytest.mark.parametrize("kind", KINDS)
def test_store_inside_the_folder_reloads_and_equals_faiss(
        kind: str, tmp_path: Path, cache: Path, faiss_build: CrmGraphIndex) -> None:
    _needs(kind)
    out = tmp_path / "index"
    built = CrmGraphIndex.build([str(DEMO)], out, cache_dir=cache, vector_store=kind)
    built.close()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["vector_store"] == {"kind": kind, "name": "crm_documents",
                                        "path": "vector_store"}
    assert "faiss" not in manifest and not (out / FAISS_FILE).exists()
    assert any((out / "vector_store").iterdir())  # the store's own files, on disk
    fresh = CrmGraphIndex.load(out)
    try:
        # threads searching at once open the store once (Qdrant's local mode locks it)
        q = fresh.embed_query(QUESTIONS[0])
        with ThreadPoolExecutor(4) as pool:
            found = list(pool.map(lambda _: tuple(fresh.dense.search(q, 10)), range(8)))
        assert len(set(found)) == 1
        assert fresh.dense.faiss_index is None
        _assert_same_as_faiss(fresh, faiss_build)
        assert fresh.dense.store is not None
        assert type(fresh.dense.store.store).__name__ == STORE_CLASSES[kind]
        fresh.persist(tmp_path / "copy")  # the store inside the folder is copied with it
    finally:
        fresh.close()
    shutil.rmtree(out)
    copy = CrmGraphIndex.load(tmp_path / "copy")
    try:
        assert copy.manifest["vector_store"]["path"] == "vector_store"
        _assert_same_as_faiss(copy, faiss_build)
    finally:
        copy.close()


@pytest.mark.parametrize("kind", KINDS)
def test_cli_store_elsewhere_is_found_after_a_move(
        kind: str, tmp_path: Path, cache: Path, faiss_build: CrmGraphIndex,
        monkeypatch: pytest.MonkeyPatch) -> None:
    _needs(kind)
    monkeypatch.chdir(tmp_path)
    assert main(["build", str(DEMO), "--out", "project/index", "--vector-store",
                 f"{kind}:project/stores/{kind}#troodos", "-q"]) == 0
    out = tmp_path / "project" / "index"
    recorded = json.loads((out / "manifest.json").read_text())["vector_store"]
    assert recorded == {"kind": kind, "name": "troodos", "path": f"../stores/{kind}"}
    # the index and its store moved together: the folder-relative path still finds it
    shutil.move(tmp_path / "project", tmp_path / "moved")
    index = CrmGraphIndex.load(tmp_path / "moved" / "index")
    try:
        _assert_same_as_faiss(index, faiss_build)
    finally:
        index.close()
    shutil.rmtree(tmp_path / "moved" / "stores")
    with pytest.raises(IndexFormatError, match="not at .*stores"):
        CrmGraphIndex.load(tmp_path / "moved" / "index")


def test_store_instances(tmp_path: Path, cache: Path, faiss_build: CrmGraphIndex) -> None:
    """A LanceDB instance is recorded by location; a store the manifest cannot name
    (llama-index-core's SimpleVectorStore, which answers with ids only) must be given
    again to load."""
    from llama_index.core.vector_stores import SimpleVectorStore

    simple = SimpleVectorStore()
    built = CrmGraphIndex.build([str(DEMO)], tmp_path / "simple", cache_dir=cache,
                                vector_store=simple)
    assert built.manifest["vector_store"] == {
        "kind": "custom", "class": "llama_index.core.vector_stores.simple.SimpleVectorStore"}
    _assert_same_as_faiss(built, faiss_build)
    with pytest.raises(IndexFormatError, match="vector_store=<that store>"):
        CrmGraphIndex.load(tmp_path / "simple")
    assert _same_ranking(_top(CrmGraphIndex.load(tmp_path / "simple", vector_store=simple),
                              QUESTIONS[0]), _top(faiss_build, QUESTIONS[0]))
    if importlib.util.find_spec("llama_index.vector_stores.lancedb") is None:
        pytest.skip("lancedb store packages not installed: pip install "
                    "'llama-index-crm[lancedb]'")
    from llama_index.vector_stores.lancedb import LanceDBVectorStore

    lance = LanceDBVectorStore(uri=str(tmp_path / "lance"), table_name="demo")
    CrmGraphIndex.build([str(DEMO)], tmp_path / "idx", cache_dir=cache, vector_store=lance)
    assert json.loads((tmp_path / "idx" / "manifest.json").read_text())["vector_store"] == \
        {"kind": "lancedb", "name": "demo", "path": "../lance"}
    _assert_same_as_faiss(CrmGraphIndex.load(tmp_path / "idx"), faiss_build)
    inside = LanceDBVectorStore(uri=str(tmp_path / "idx2" / "lance"), table_name="demo")
    with pytest.raises(ValueError, match="inside the index folder"):
        CrmGraphIndex.build([str(DEMO)], tmp_path / "idx2", cache_dir=cache,
                            vector_store=inside)


@pytest.mark.parametrize("kind", KINDS)
def test_update_rewrites_an_embedded_store_and_refuses_one_elsewhere(
        kind: str, tmp_path: Path, cache: Path) -> None:
    _needs(kind)
    added, removed, info = mixed_delta(graph_triples([DEMO]))
    add, remove = write_nt(tmp_path / "add.nt", added), write_nt(tmp_path / "rm.nt", removed)
    CrmGraphIndex.build([str(DEMO)], tmp_path / "inside", cache_dir=cache,
                        vector_store=kind).close()
    updated = CrmGraphIndex.update(tmp_path / "inside", add=[add], remove=[remove],
                                   cache_dir=cache)
    assert updated is not None
    try:
        assert updated.manifest["vector_store"]["path"] == "vector_store"
        assert info["removed_entity"] not in updated.doc_ids
        for question in QUESTIONS:  # the store holds the updated rows: exact search agrees
            q = updated.embed_query(question)
            sims = updated.vectors @ q
            exact = [(int(r), float(sims[r])) for r in np.argsort(-sims, kind="stable")[:10]]
            assert _same_ranking(updated.dense.search(q, 10), exact), question
        search = updated.dense.store
        assert search is not None
        found = search.rows_for(search.store.query(_query(updated.vectors[0],
                                                           len(updated.doc_ids))))
        assert sorted(found) == list(range(len(updated.doc_ids)))  # none stale, none missing
    finally:
        updated.close()
    CrmGraphIndex.build([str(DEMO)], tmp_path / "outside", cache_dir=cache,
                        vector_store=f"{kind}:{tmp_path / 'elsewhere'}").close()
    before = (tmp_path / "outside" / "manifest.json").read_text()
    with pytest.raises(CrmError, match="outside the index folder .*rebuild"):
        CrmGraphIndex.update(tmp_path / "outside", add=[add], remove=[remove], cache_dir=cache)
    assert (tmp_path / "outside" / "manifest.json").read_text() == before


def _query(vector: np.ndarray, k: int) -> object:
    from llama_index.core.vector_stores.types import VectorStoreQuery

    return VectorStoreQuery(query_embedding=[float(x) for x in vector], similarity_top_k=k)


def test_specs_and_bad_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert StoreSpec.parse("faiss") is None
    assert StoreSpec.parse("qdrant:/data/q") == StoreSpec("qdrant", "/data/q")
    assert StoreSpec.parse("qdrant:http://localhost:6333").is_url  # type: ignore[union-attr]
    assert node_id("http://e.org/x") == str(uuid.uuid5(uuid.NAMESPACE_URL, "http://e.org/x"))
    assert uuid.UUID(node_id("http://e.org/x")).version == 5  # what Qdrant accepts as an id
    with pytest.raises(ValueError, match="unknown vector store 'chroma'"):
        StoreSpec.parse("chroma:/x")
    with pytest.raises(ValueError, match="takes a folder"):
        StoreSpec.parse("lancedb:s3://bucket")
    with pytest.raises(SystemExit):
        main(["build", str(DEMO), "--out", str(tmp_path / "x"), "--vector-store", "milvus"])
    assert "unknown vector store 'milvus'" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
