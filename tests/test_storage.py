"""Tests of llama_index_crm.storage: the triple archive, its index and the document store."""

from __future__ import annotations

import asyncio
import gzip
from collections import defaultdict
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from llama_index.core import (
    MockEmbedding,
    StorageContext,
    VectorStoreIndex,
    load_index_from_storage,
)
from llama_index.core.schema import Document, NodeRelationship, RelatedNodeInfo, TextNode

from llama_index_crm.errors import IndexFormatError
from llama_index_crm.rdf import RDFS_LABEL, XSD, Literal, Triple, encode_object
from llama_index_crm.storage import CrmDocumentStore, TripleStore, TripleWriter
from llama_index_crm.storage.triple_writer import HashSet

SHARED = Path(__file__).parents[1] / "../shared"
YCBA_SAMPLE = SHARED / "datasets/ycba/ycba_sample_150.nt.gz"
needs_shared = pytest.mark.skipif(not YCBA_SAMPLE.is_file(), reason="shared datasets absent")

EX = "http://example.org/"
TINY = [
    Triple(EX + "a", EX + "p", EX + "b"),
    Triple(EX + "b", EX + "q", EX + "a"),
    Triple(EX + "a", EX + "p", EX + "c"),
    Triple(EX + "a", EX + "self", EX + "a"),
    Triple(EX + "a", RDFS_LABEL, Literal("Thing A", lang="en")),
    Triple(EX + "c", EX + "date", Literal("1192", datatype=XSD + "gYear")),
    Triple("_:b0", EX + "p", EX + "a"),
    Triple(EX + "d", EX + "p", EX + "c"),
]


@pytest.fixture(autouse=True)
def _testing_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IS_TESTING", "1")


def rows(triples: list[Triple], labels: dict[str, str] | None = None) -> list[tuple]:
    """Writer rows for ``triples``, with labels looked up in ``labels``."""
    labels = labels or {}
    return [
        (s, labels.get(s), p, labels.get(p), encode_object(o), labels.get(str(o)))
        for s, p, o in triples
    ]


def write(path: Path, triples: list[Triple], labels: dict[str, str] | None = None) -> Path:
    with TripleWriter(path) as writer:
        writer.write(rows(triples, labels))
    return path


def brute_force_check(store: TripleStore, triples: list[Triple]) -> None:
    """Compare every adjacency answer of ``store`` with a scan of ``triples``."""
    distinct = set(triples)
    assert len(store) == len(distinct)
    out: dict[str, set] = defaultdict(set)
    into: dict[str, set] = defaultdict(set)
    incident: dict[str, set[Triple]] = defaultdict(set)
    for s, p, o in distinct:
        out[s].add((p, o))
        incident[s].add(Triple(s, p, o))
        if isinstance(o, str):
            into[o].add((s, p))
            incident[o].add(Triple(s, p, o))
    subjects = sorted(out)
    for node in set(out) | set(into):
        assert set(store.outgoing(node)) == out[node], node
        assert set(store.incoming(node)) == into[node], node
        found = store.triples_of(node)
        assert len(found) == len(incident[node]) == store.degree(node), node
        assert set(found) == incident[node], node
        linked = {o for _, o in out[node] if isinstance(o, str)} | {s for s, _ in into[node]}
        assert store.neighbours(node) == sorted(linked - {node}), node
    assert list(store.subjects()) == subjects


def parse_ycba() -> list[Triple]:
    import pyoxigraph as ox

    def term(value: object) -> str | Literal:
        if isinstance(value, ox.Literal):
            lang = value.language
            return Literal(value.value, lang=lang, datatype=None if lang else value.datatype.value)
        return f"_:{value.value}" if isinstance(value, ox.BlankNode) else str(value.value)  # type: ignore[attr-defined]

    with gzip.open(YCBA_SAMPLE) as handle:
        quads = ox.parse(handle.read(), format=ox.RdfFormat.N_TRIPLES)
        return [Triple(str(term(q.subject)), q.predicate.value, term(q.object)) for q in quads]


def normalised(triples: list[Triple]) -> list[Triple]:
    """Triples as the archive gives them back: ``xsd:string`` datatypes dropped."""
    result = []
    for s, p, o in triples:
        if isinstance(o, Literal) and o.datatype == XSD + "string":
            o = Literal(o.value)
        result.append(Triple(s, p, o))
    return result


# ----- TripleWriter ---------------------------------------------------------------------
def test_writer_deduplicates_across_chunks(tmp_path: Path) -> None:
    path = tmp_path / "triples.parquet"
    with TripleWriter(path, row_group_size=3) as writer:
        assert writer.write(rows(TINY[:5])) == 5
        assert writer.write(rows(TINY[3:] + TINY[3:])) == 3
        assert writer.count == 8
    assert writer.closed
    table = pq.read_table(path)
    assert table.num_rows == 8
    assert table.column_names == ["s", "s_label", "p", "p_label", "o", "o_label"]
    assert pq.ParquetFile(path).metadata.num_row_groups == 3
    assert len(set(zip(*(table.column(c).to_pylist() for c in "spo"), strict=True))) == 8
    with pytest.raises(ValueError, match="closed"):
        writer.write(rows(TINY))


def test_writer_labels_none_and_disabled(tmp_path: Path) -> None:
    labels = {EX + "a": "A", EX + "p": "has p"}
    table = pq.read_table(write(tmp_path / "t.parquet", TINY[:1], labels))
    assert table.to_pylist()[0] == {
        "s": EX + "a",
        "s_label": "A",
        "p": EX + "p",
        "p_label": "has p",
        "o": EX + "b",
        "o_label": "",
    }
    with TripleWriter(tmp_path / "u.parquet", labels=False) as writer:
        writer.write([(EX + "a", "A", EX + "p", "P", Literal("x"), "x")])
    row = pq.read_table(tmp_path / "u.parquet").to_pylist()[0]
    assert (row["s_label"], row["p_label"], row["o_label"], row["o"]) == ("", "", "", '"x"')


def test_empty_archive(tmp_path: Path) -> None:
    path = tmp_path / "t.parquet"
    TripleWriter(path).close()
    store = TripleStore.load(path)
    assert len(store) == 0 and store.terms == 0
    assert store.triples_of(EX + "a") == [] and store.neighbours(EX + "a") == []
    assert list(store.subjects()) == [] and EX + "a" not in store


def test_hash_set_spills_to_sorted_blocks() -> None:
    seen = HashSet(spill_size=10)
    values = list(range(0, 300, 3))
    assert all(seen.add_new(values[:50]))
    assert seen.add_new(values[25:100] + [1, 1]) == [False] * 25 + [True] * 50 + [True, False]
    assert len(seen) == 101 and seen.nbytes() > 0
    assert not any(seen.add_new(values))


# ----- TripleStore ----------------------------------------------------------------------
def test_literal_round_trip(tmp_path: Path) -> None:
    literals = [
        Literal("Asinou", lang="en"),
        Literal("1192", datatype=XSD + "gYear"),
        Literal('She said "hi"\nand left\\ \r\t café ☕'),
        Literal(""),
        Literal('"'),
        Literal("x", lang="en-GB"),
    ]
    triples = [Triple(EX + "a", EX + f"p{i}", lit) for i, lit in enumerate(literals)]
    store = TripleStore.load(write(tmp_path / "t.parquet", triples))
    assert [o for _, o in sorted(store.outgoing(EX + "a"))] == literals
    assert store.label(encode_object(literals[2])) == literals[2].value
    assert literals[0] in store and Triple(EX + "a", EX + "p1", literals[1]) in store
    assert Triple(EX + "a", EX + "p0", literals[1]) not in store
    assert store.neighbours(EX + "a") == []
    assert store.is_literal.sum() == len(literals)


def test_tiny_graph_against_brute_force(tmp_path: Path) -> None:
    store = TripleStore.load(write(tmp_path / "t.parquet", TINY + TINY[:2]))
    brute_force_check(store, TINY)
    assert store.degree(EX + "a") == 6  # the self-loop counts once
    assert store.neighbours(EX + "a") == ["_:b0", EX + "b", EX + "c"]
    assert store.triples_of(EX + "nowhere") == [] and store.degree(EX + "nowhere") == 0
    assert EX + "a" in store and EX + "nowhere" not in store
    assert Triple(EX + "a", EX + "p", EX + "b") in store
    assert Triple(EX + "b", EX + "p", EX + "a") not in store
    assert store.terms == len({t.s for t in TINY} | {t.p for t in TINY} | {str(t.o) for t in TINY})


def test_id_level_access() -> None:
    store = TripleStore.from_triples(TINY)
    a = store.id_of(EX + "a")
    assert a is not None and store.term(a) == EX + "a"
    assert store.id_of(EX + "zzz") is None and store.id_of("") is None
    p_ids, o_ids = store.out_ids(a)
    assert p_ids.base is not None and o_ids.base is not None  # views, not copies
    assert p_ids.dtype == np.int32
    assert {(store.term(p), store.term(o)) for p, o in zip(p_ids, o_ids, strict=True)} == {
        (p, encode_object(o)) for s, p, o in TINY if s == EX + "a"
    }
    p_in, s_in = store.in_ids(a)
    assert sorted(store.term(s) for s in s_in) == sorted(s for s, _, o in TINY if o == EX + "a")
    assert len(p_in) == len(s_in)
    terms = [store.term(i) for i in range(store.terms)]
    assert terms == sorted(terms, key=str.encode)  # ids follow byte order
    with pytest.raises(IndexError):
        store.term(store.terms)


def test_labels(tmp_path: Path) -> None:
    labels = {EX + "a": "Thing A", EX + "p": "has p", EX + "c": "Thing C"}
    store = TripleStore.load(write(tmp_path / "t.parquet", TINY, labels))
    assert store.label(EX + "a") == "Thing A" and store.label(EX + "p") == "has p"
    assert store.label(EX + "c") == "Thing C"  # labelled as an object
    assert store.label(EX + "d") is None and store.label(EX + "nowhere") is None
    assert store.label('"1192"^^<http://www.w3.org/2001/XMLSchema#gYear>') == "1192"


def test_ids_labelled_finds_nodes_never_literals(tmp_path: Path) -> None:
    """On the demo graph "Asinou" labels the place and is also a literal (its rdfs:label,
    stored with itself as label): only the place is a node a question can name."""
    from llama_index_crm.build.folder import build_folder
    from llama_index_crm.sources import RdfFileSource

    demo = Path(__file__).resolve().parents[1] / "examples" / "data" / "troodos.ttl"
    with RdfFileSource([demo]) as source:
        build_folder(source, tmp_path / "index")
    store = TripleStore.load(tmp_path / "index" / "triples.parquet")
    place = "https://example.org/troodos/place/asinou"
    assert store.label('"Asinou"@en') == "Asinou"  # the literal does carry the label
    assert [store.term(int(i)) for i in store.ids_labelled("  asinou ")] == [place]
    assert store.ids_labelled("no such name").size == 0


def test_from_triples_matches_archive_and_to_parquet(tmp_path: Path) -> None:
    labels = {EX + "a": "Thing A"}
    loaded = TripleStore.load(write(tmp_path / "t.parquet", TINY, labels))
    in_memory = TripleStore.from_triples(rows(TINY, labels) + rows(TINY))
    for store in (in_memory, loaded):
        assert len(store) == len(TINY) and store.label(EX + "a") == "Thing A"
        assert np.array_equal(store.s_ids, loaded.s_ids)
        assert np.array_equal(store.o_ids, loaded.o_ids)
    in_memory.to_parquet(tmp_path / "again.parquet")
    again = TripleStore.load(tmp_path / "again.parquet")
    brute_force_check(again, TINY)
    assert again.label(EX + "a") == "Thing A"


def test_load_errors(tmp_path: Path) -> None:
    with pytest.raises(IndexFormatError, match="crm-rag build"):
        TripleStore.load(tmp_path / "missing.parquet")
    (tmp_path / "junk.parquet").write_bytes(b"not parquet at all")
    with pytest.raises(IndexFormatError, match="crm-rag build"):
        TripleStore.load(tmp_path / "junk.parquet")
    pq.write_table(pa.table({"s": ["x"]}), tmp_path / "other.parquet")
    with pytest.raises(IndexFormatError, match="crm-rag build"):
        TripleStore.load(tmp_path / "other.parquet")


@needs_shared
def test_ycba_sample_against_brute_force(tmp_path: Path) -> None:
    triples = parse_ycba()
    labels = {s: str(o.value) for s, p, o in triples if p == RDFS_LABEL and isinstance(o, Literal)}
    path = tmp_path / "triples.parquet"
    with TripleWriter(path, row_group_size=4_000) as writer:
        for start in range(0, len(triples), 5_000):  # overlapping chunks
            writer.write(rows(triples[max(0, start - 500) : start + 5_000], labels))
    assert writer.count == len(set(triples))
    store = TripleStore.load(path)
    brute_force_check(store, normalised(triples))
    assert store.nbytes() / len(store) < 60
    subject, label = next(iter(labels.items()))
    assert store.label(subject) == label


# ----- CrmDocumentStore -----------------------------------------------------------------
def entity_docs() -> list[Document]:
    return [
        Document(
            text=f'Entity {name}: a thing.\nWith "quotes" and é.',
            id_=f"doc-{name}",
            metadata={"uri": EX + name, "label": f"Thing {name}", "category": "Thing"},
            excluded_embed_metadata_keys=["uri"],
            excluded_llm_metadata_keys=["uri"],
        )
        for name in "abcd"
    ]


def chunk_node(parent: Document, n: int) -> TextNode:
    node = TextNode(text=f"chunk {n} of {parent.doc_id}", id_=f"{parent.doc_id}#{n}")
    node.relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(node_id=parent.doc_id)
    node.metadata = {"uri": parent.metadata["uri"], "n": n}
    return node


def test_docstore_api_round_trip(tmp_path: Path) -> None:
    docs = entity_docs()
    chunks = [chunk_node(docs[0], 1), chunk_node(docs[0], 2)]
    store = CrmDocumentStore(triple_store=TripleStore.from_triples(TINY))
    assert store.class_name() == "CrmDocumentStore"
    store.add_documents([*docs, *chunks])
    assert store.get_document("doc-a") == docs[0]
    assert store.get_node("doc-a#1") == chunks[0]
    assert isinstance(store.get_node("doc-a#1"), TextNode)
    assert store.get_document("nope", raise_error=False) is None
    with pytest.raises(ValueError, match="not found"):
        store.get_document("nope")
    with pytest.raises(ValueError, match="already exists"):
        store.add_documents([docs[0]], allow_update=False)
    assert set(store.docs) == {d.doc_id for d in docs} | {c.node_id for c in chunks}
    assert store.get_by_uri(EX + "b") == docs[1] and store.get_by_uri(EX + "zz") is None
    assert store.get_document_hash("doc-b") == docs[1].hash
    assert store.get_all_document_hashes()[docs[1].hash] == "doc-b"
    info = store.get_ref_doc_info("doc-a")
    assert info is not None and info.node_ids == ["doc-a#1", "doc-a#2"]
    assert info.metadata == chunks[0].metadata
    assert list(store.get_all_ref_doc_info() or {}) == ["doc-a"]
    assert set(store.triples_of(EX + "c")) == {t for t in TINY if EX + "c" in (t.s, t.o)}
    assert store.neighbours(EX + "b") == [EX + "a"]

    store.persist(str(tmp_path / "index"))
    loaded = CrmDocumentStore.from_persist_dir(tmp_path / "index")
    assert loaded.docs == store.docs
    assert loaded.get_ref_doc_info("doc-a") == info
    assert loaded.get_all_document_hashes() == store.get_all_document_hashes()
    assert loaded.triples_of(EX + "a") == store.triples_of(EX + "a")

    # modify what was loaded, persist in place, load again
    updated = Document(text="new text", id_="doc-b", metadata={"uri": EX + "b2"})
    loaded.add_documents([updated, chunk_node(docs[2], 1)])
    loaded.delete_document("doc-c")
    loaded.delete_ref_doc("doc-a")
    loaded.set_document_hash("not-stored", "h1")
    with pytest.raises(ValueError):
        loaded.delete_document("doc-c")
    loaded.persist()
    again = CrmDocumentStore.from_persist_dir(tmp_path / "index")
    assert set(again.docs) == {"doc-b", "doc-d", "doc-c#1"}
    assert again.get_document("doc-b") == updated
    assert again.get_by_uri(EX + "b2") == updated and again.get_by_uri(EX + "b") is None
    assert again.get_ref_doc_info("doc-a") is None and not again.document_exists("doc-a#1")
    assert again.get_ref_doc_info("doc-c") is not None  # its chunk survives the document
    assert again.get_document_hash("not-stored") == "h1"
    assert not again.document_exists("not-stored")
    assert again.triples_of(EX + "a") == store.triples_of(EX + "a")


def test_docstore_ref_doc_removed_with_last_node_and_store_text_false() -> None:
    doc = entity_docs()[0]
    store = CrmDocumentStore()
    store.set_document_hash(doc.doc_id, doc.hash)
    chunk = chunk_node(doc, 1)
    store.add_documents([chunk], store_text=False)
    assert not store.document_exists(chunk.node_id)
    assert store.get_document_hash(chunk.node_id) == chunk.hash
    assert store.get_ref_doc_info(doc.doc_id) is not None
    store.delete_document(chunk.node_id, raise_error=False)
    assert store.get_ref_doc_info(doc.doc_id) is None
    assert store.get_document_hash(doc.doc_id) is None  # as KVDocumentStore does
    assert store.triples_of(EX + "a") == []  # no graph: an empty one


def test_docstore_async_methods() -> None:
    docs = entity_docs()
    chunk = chunk_node(docs[0], 1)
    store = CrmDocumentStore()

    async def scenario() -> None:
        await store.async_add_documents([*docs, chunk])
        assert await store.aget_document("doc-a") == docs[0]
        assert await store.adocument_exists("doc-b")
        assert await store.aget_node("doc-a#1") == chunk
        assert await store.aget_nodes(["doc-a", "doc-b"]) == docs[:2]
        await store.aset_document_hash("x", "hx")
        await store.aset_document_hashes({"y": "hy"})
        assert await store.aget_document_hash("x") == "hx"
        assert (await store.aget_all_document_hashes())["hy"] == "y"
        assert (await store.aget_ref_doc_info("doc-a")) is not None
        assert list(await store.aget_all_ref_doc_info() or {}) == ["doc-a"]
        await store.adelete_ref_doc("doc-a")
        assert not await store.adocument_exists("doc-a#1")
        await store.adelete_document("doc-b")
        assert await store.aget_document("doc-b", raise_error=False) is None

    asyncio.run(scenario())
    assert set(store.docs) == {"doc-c", "doc-d"}


def test_storage_context_and_vector_index(tmp_path: Path) -> None:
    persist_dir = tmp_path / "index"
    persist_dir.mkdir()
    write(persist_dir / "triples.parquet", TINY)  # as the build writes it
    docstore = CrmDocumentStore()
    storage_context = StorageContext.from_defaults(docstore=docstore)
    assert storage_context.docstore is docstore
    embed_model = MockEmbedding(embed_dim=8)
    index = VectorStoreIndex(
        entity_docs(), storage_context=storage_context, embed_model=embed_model
    )
    assert len(docstore.docs) == 4
    hits = index.as_retriever(similarity_top_k=2).retrieve("Entity a")
    assert len(hits) == 2 and all(hit.node.metadata["uri"].startswith(EX) for hit in hits)
    storage_context.persist(persist_dir=str(persist_dir))
    assert (persist_dir / "documents.parquet").is_file()
    assert not (persist_dir / "docstore.json").exists()

    loaded = CrmDocumentStore.from_persist_dir(persist_dir)
    context = StorageContext.from_defaults(docstore=loaded, persist_dir=str(persist_dir))
    index2 = load_index_from_storage(context, embed_model=embed_model)
    hits2 = index2.as_retriever(similarity_top_k=4).retrieve("Entity b")
    assert {hit.node.node_id for hit in hits2} == {d.doc_id for d in entity_docs()}
    assert loaded.neighbours(EX + "a") == ["_:b0", EX + "b", EX + "c"]
    index2.insert(Document(text="late entity", id_="doc-e", metadata={"uri": EX + "e"}))
    context.persist(persist_dir=str(persist_dir))
    assert CrmDocumentStore.from_persist_dir(persist_dir).get_by_uri(EX + "e") is not None


def test_corrupt_or_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(IndexFormatError, match="crm-rag build"):
        CrmDocumentStore.from_persist_dir(tmp_path / "nowhere")
    folder = tmp_path / "index"
    CrmDocumentStore(triple_store=TripleStore.from_triples(TINY)).persist(str(folder))
    (folder / "documents.parquet").write_bytes(b"\x00garbage")
    with pytest.raises(IndexFormatError, match="crm-rag build"):
        CrmDocumentStore.from_persist_dir(folder)
    pq.write_table(pa.table({"doc_id": ["x"]}), folder / "documents.parquet")
    with pytest.raises(IndexFormatError, match="missing columns"):
        CrmDocumentStore.from_persist_dir(folder)
    CrmDocumentStore().persist(str(folder))
    (folder / "triples.parquet").write_bytes(b"garbage")
    store = CrmDocumentStore.from_persist_dir(folder)  # triples load lazily
    with pytest.raises(IndexFormatError, match="crm-rag build"):
        store.triples_of(EX + "a")
    (folder / "triples.parquet").unlink()
    with pytest.raises(IndexFormatError, match="triples.parquet is missing"):
        CrmDocumentStore.from_persist_dir(folder)


def test_docstore_keeps_the_archive_it_was_given(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    archive = write(work / "triples.parquet", TINY, {EX + "a": "Thing A"})
    original = archive.read_bytes()
    store = TripleStore.load(archive)
    assert store.path == archive
    docstore = CrmDocumentStore(triple_store=store)
    docstore.add_documents(entity_docs())
    docstore.persist(str(work))  # the build's own folder: the archive is left as written
    assert archive.read_bytes() == original
    docstore.persist(str(tmp_path / "copy"))  # elsewhere: copied byte for byte
    assert (tmp_path / "copy" / "triples.parquet").read_bytes() == original
    assert not list(tmp_path.glob("**/*.tmp"))
    loaded = CrmDocumentStore.from_persist_dir(tmp_path / "copy")
    assert loaded.triples.label(EX + "a") == "Thing A"
    assert loaded.get_by_uri(EX + "a") == entity_docs()[0]
    in_memory = CrmDocumentStore(triple_store=TripleStore.from_triples(TINY))
    in_memory.persist(str(tmp_path / "mem" / "docstore.json"))  # StorageContext's file name
    brute_force_check(CrmDocumentStore.from_persist_dir(tmp_path / "mem").triples, TINY)
