"""The parts of an update that reuse the earlier index's files instead of making them
again (session 32): each gives what making the part anew gives.

- BM25 scores computed over every (document, token) pair at once (:class:`ArrayBM25`):
  the arrays ``bm25s`` computes one document at a time, bit for bit;
- vectors and a flat FAISS index patched beside the earlier files (:class:`Beside`): the
  bytes ``np.save`` and ``faiss.write_index`` write; unchanged files hard-linked;
- the FR-link arrays renumbered to a new store's term ids (:func:`remapped_fr_links`):
  the arrays :func:`fr_link_arrays` computes, or None when an FR edge's term came or
  went;
- the archive relabelled only where a label changed (:func:`relabelled_terms`).
"""

from __future__ import annotations

import json
from pathlib import Path

import bm25s
import faiss
import numpy as np
import pyarrow as pa
import pytest

from llama_index_crm.build.update import relabelled_terms
from llama_index_crm.graph.parts import (
    BM25_DIR,
    CORPUS_FILES,
    FAISS_FILE,
    VECTORS,
    ArrayBM25,
    Beside,
    Bm25Settings,
    _TokenIds,
    _write_bm25,
    bm25_from_tokens,
    bm25_tokens,
    fr_link_arrays,
    remapped_fr_links,
)
from llama_index_crm.rdf import Literal, Triple
from llama_index_crm.storage import TripleStore
from llama_index_crm.storage.triples import encoding_files

TEXTS = ["Portrait of a Lady\nType: painting\nMaker: Joshua Reynolds, Reynolds", "",
         "The Reapers\nType: paintings by Stubbs; reapers reaping the reaped field",
         "Troodos church\nPlace: Cyprus. Church of the Holy Cross, church, church",
         "a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a",
         "Unique zanzibar word here, quokkas and a lady"] * 7 + ["One more, at the end"]


@pytest.mark.parametrize("method", ["lucene", "robertson", "atire", "bm25+"])
def test_array_bm25_is_the_index_bm25s_makes(method: str) -> None:
    """Every score, index and pointer equal to bm25s's own (lengths and repeated tokens
    vary; a document is empty), for each scoring method (BM25+ falls back to bm25s)."""
    tokens = bm25_tokens(TEXTS, Bm25Settings())
    vocab = {t: i for i, t in enumerate(tokens.vocab)}
    ours, theirs = ArrayBM25(method=method), bm25s.BM25(method=method)
    ours.index(_TokenIds(tokens, dict(vocab)), show_progress=False)
    theirs.index((tokens.lists(), dict(vocab)), show_progress=False)
    assert ours.vocab_dict == theirs.vocab_dict
    assert ours.scores["num_docs"] == theirs.scores["num_docs"] == len(TEXTS)
    for key in ("data", "indices", "indptr"):
        assert ours.scores[key].dtype == theirs.scores[key].dtype
        assert ours.scores[key].tobytes() == theirs.scores[key].tobytes(), key
    assert len(ours.scores["data"]) > len(TEXTS)
    retriever = bm25_from_tokens(tokens, Bm25Settings())
    assert isinstance(retriever.bm25, ArrayBM25)


def _vector_files(folder: Path, vectors: np.ndarray, index: faiss.Index | None = None) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    np.save(folder / VECTORS, vectors)
    if index is None:
        index = faiss.IndexFlatIP(vectors.shape[1])
        index.add(vectors)
    faiss.write_index(index, str(folder / FAISS_FILE))


def test_vectors_and_flat_faiss_patched_beside_are_the_files_written_anew(
        tmp_path: Path) -> None:
    rng = np.random.default_rng(32)
    old = rng.standard_normal((50, 8)).astype(np.float32)
    new = old.copy()
    new[[0, 17, 49]] = rng.standard_normal((3, 8)).astype(np.float32)
    _vector_files(tmp_path / "old", old)
    _vector_files(tmp_path / "whole", new)
    beside = Beside(tmp_path / "old", old, np.asarray([0, 17, 49]))
    (tmp_path / "patched").mkdir()
    for name in (VECTORS, FAISS_FILE):
        assert beside.patch(name, tmp_path / "patched", new)
        assert (tmp_path / "patched" / name).read_bytes() == \
            (tmp_path / "whole" / name).read_bytes(), name
        assert (tmp_path / "old" / name).stat().st_nlink == 1
    assert np.array_equal(np.load(tmp_path / "old" / VECTORS), old)  # left as it was
    # nothing changed: the same file, linked
    (tmp_path / "same").mkdir()
    assert Beside(tmp_path / "old", old, np.zeros(0, np.int64)).patch(
        FAISS_FILE, tmp_path / "same", old)
    assert (tmp_path / "same" / FAISS_FILE).stat().st_ino == \
        (tmp_path / "old" / FAISS_FILE).stat().st_ino
    # not the earlier vectors' file, or not a flat index: refused, nothing written
    (tmp_path / "refused").mkdir()
    assert not Beside(tmp_path / "old", new, np.asarray([0])).patch(
        VECTORS, tmp_path / "refused", new)
    assert not Beside(tmp_path / "old", old[:40], np.asarray([0])).patch(
        VECTORS, tmp_path / "refused", new[:40])
    hnsw = faiss.IndexHNSWFlat(8, 4, faiss.METRIC_INNER_PRODUCT)
    hnsw.add(old)
    _vector_files(tmp_path / "hnsw", old, hnsw)
    assert not Beside(tmp_path / "hnsw", old, np.asarray([0])).patch(
        FAISS_FILE, tmp_path / "refused", new)
    assert not any((tmp_path / "refused").iterdir())


def test_bm25_corpus_files_are_linked_beside(tmp_path: Path) -> None:
    """With the same rows, the corpus files (the rows' ids) are the earlier ones, linked;
    the scores are written anew."""
    settings = Bm25Settings()
    ids = [f"ex:{i}" for i in range(len(TEXTS))]
    for name in ("old", "new", "whole"):
        (tmp_path / name).mkdir()
    retriever = bm25_from_tokens(bm25_tokens(TEXTS, settings), settings)
    _write_bm25(tmp_path / "old" / BM25_DIR, retriever, ids, settings)
    changed = bm25_from_tokens(bm25_tokens(TEXTS[::-1], settings), settings)
    _write_bm25(tmp_path / "new" / BM25_DIR, changed, ids, settings,
                tmp_path / "old" / BM25_DIR)
    _write_bm25(tmp_path / "whole" / BM25_DIR, changed, ids, settings)
    for name in sorted(p.name for p in (tmp_path / "whole" / BM25_DIR).iterdir()):
        assert (tmp_path / "new" / BM25_DIR / name).read_bytes() == \
            (tmp_path / "whole" / BM25_DIR / name).read_bytes(), name
    for name in CORPUS_FILES:
        assert (tmp_path / "new" / BM25_DIR / name).stat().st_ino == \
            (tmp_path / "old" / BM25_DIR / name).stat().st_ino
    first = (tmp_path / "new" / BM25_DIR / "corpus.jsonl").read_text().splitlines()[0]
    assert json.loads(first) == {"node_id": "ex:0"}


EX = "http://example.org/"
FR = "fr:thing-from-place"


def _fr_edges(pairs: list[tuple[str, str]]) -> pa.Table:
    return pa.table({"s": [EX + s for s, _ in pairs], "fr": [FR] * len(pairs),
                     "o": [EX + o for _, o in pairs]})


def _store(extra: list[Triple]) -> TripleStore:
    base = [Triple(EX + s, EX + "p", EX + o) for s, o in
            (("a", "b"), ("b", "c"), ("c", "d"), ("d", "e"), ("e", "a"))]
    base += [Triple(EX + n, EX + "name", Literal(f"name of {n}")) for n in "abcde"]
    return TripleStore.from_triples(base + extra)


@pytest.mark.parametrize("change", ["literal", "term-gone", "term-new", "linked-gone",
                                    "linked-new"])
def test_fr_links_renumbered_are_those_made_anew(change: str) -> None:
    """The FR graph as it was (same edges) over a store whose terms moved: renumbering
    the earlier arrays gives :func:`fr_link_arrays` of the new store; when an edge's term
    leaves or enters the archive, None (the arrays are made anew)."""
    edges = _fr_edges([("a", "c"), ("c", "e"), ("e", "a"), ("b", "zz")])
    before = _store([Triple(EX + "zz0", EX + "p", EX + "a"),
                     Triple(EX + "c", EX + "label", Literal("old label"))])
    after = {
        "literal": [Triple(EX + "zz0", EX + "p", EX + "a"),
                    Triple(EX + "c", EX + "label", Literal("a new label"))],
        "term-gone": [Triple(EX + "c", EX + "label", Literal("old label"))],
        "term-new": [Triple(EX + "zz0", EX + "p", EX + "a"), Triple(EX + "aa", EX + "p",
                                                                     EX + "b")],
        "linked-gone": [Triple(EX + "zz0", EX + "p", EX + "a")],
        "linked-new": [Triple(EX + "zz0", EX + "p", EX + "a"), Triple(EX + "zz", EX + "p",
                                                                       EX + "b")],
    }[change]
    if change == "linked-gone":  # "e" leaves the archive, and its FR edges with it
        before = TripleStore.from_triples([*_store([]).triples_of(EX + "a"),
                                           *_store([]).triples_of(EX + "c")])
        after_store = TripleStore.from_triples(_store([]).triples_of(EX + "a"))
    else:
        after_store = _store(after)
    offsets, targets = fr_link_arrays(before, edges)
    got = remapped_fr_links(offsets, targets, before.positions_in(after_store), after_store,
                            edges)
    if change in ("linked-gone", "linked-new"):
        assert got is None
        return
    assert got is not None
    want = fr_link_arrays(after_store, edges)
    assert before.terms != after_store.terms or change == "literal"
    for a, b in zip(got, want, strict=True):
        assert a.dtype == b.dtype and a.tolist() == b.tolist()
    assert int(got[0][-1]) == 6  # three edges, both ways


def test_relabelled_terms_are_those_whose_label_changed() -> None:
    def table(rows: dict[str, str]) -> pa.Table:
        return pa.table({"term": list(rows), "label": list(rows.values()),
                         "rank": pa.array([1] * len(rows), pa.int8())})

    old = table({"a": "A", "b": "B", "c": "C", "d": ""})
    new = table({"a": "A", "b": "B2", "d": "", "e": "E", "f": ""})
    assert relabelled_terms(old, new, {"a", "b", "c", "d", "e", "f", "g"}) == {"b", "c", "e"}
    assert relabelled_terms(old, new, {"a"}) == set()


def test_the_encoding_kept_beside_an_archive_is_read_for_it(tmp_path: Path) -> None:
    """``TripleStore.load`` reads the encoding written beside the archive (ids, terms,
    labels: the store of encoding the archive), and ignores it once the archive is
    written again without it."""
    rows = [(EX + "a", "A", EX + "p", "p", EX + "b", "B"),
            (EX + "b", "B", EX + "name", "name", '"bee"@en', "bee"),
            (EX + "c", "", EX + "p", "p", EX + "a", "A")]
    archive = tmp_path / "triples.parquet"
    TripleStore.from_triples(rows).to_parquet(archive)
    encoded = TripleStore.load(archive)
    encoded.write_encoding()
    assert all(p.is_file() for p in encoding_files(archive))
    kept = TripleStore.load(archive)
    for name in ("s_ids", "p_ids", "o_ids", "in_p", "in_s", "out_offsets", "in_offsets"):
        a, b = getattr(encoded, name), getattr(kept, name)
        assert a.dtype == b.dtype and a.tolist() == b.tolist(), name
    assert [kept.term(i) for i in range(kept.terms)] == \
        [encoded.term(i) for i in range(encoded.terms)]
    assert [kept.label_of(i) for i in range(kept.terms)] == \
        [encoded.label_of(i) for i in range(encoded.terms)] == ["bee", "A", "B", None,
                                                                 "name", "p"]
    assert kept.path == archive and kept.neighbours(EX + "a") == [EX + "b", EX + "c"]
    # the archive written again (another graph): its own encoding, not the kept one
    TripleStore.from_triples(rows[:2]).to_parquet(archive)
    again = TripleStore.load(archive)
    assert len(again) == 2 and again.id_of(EX + "c") is None


def _table(rows: list[tuple[str, str, str, str, str, str]]) -> pa.Table:
    from llama_index_crm.storage.triple_writer import TRIPLE_SCHEMA

    return pa.table({name: [r[i] for r in rows] for i, name in enumerate(
        ("s", "s_label", "p", "p_label", "o", "o_label"))}, schema=TRIPLE_SCHEMA)


@pytest.mark.parametrize("share", [0.0, 1.0])
@pytest.mark.parametrize("seed", range(5))
def test_a_patched_store_is_the_store_of_the_changed_archive(
        seed: int, share: float, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows removed (a term gone with its last row), rows added (new terms, a new
    literal), a term relabelled in all its rows: the store renumbered from the earlier
    one has the terms, ids, adjacency and labels of encoding the changed archive (its
    labels found in the touched rows, or in all rows)."""
    import random

    from llama_index_crm.storage import triples

    monkeypatch.setattr(triples, "RELABEL_ALL_ABOVE", share)  # rows labelled: all, some
    rng = random.Random(seed)
    nodes = [f"{EX}n{i:02d}" for i in range(30)]
    label = {n: (f"Node {n[-2:]}" if rng.random() < 0.7 else "") for n in nodes}
    preds = [EX + "p", EX + "q", EX + "name"]

    def row(s: str, p: str, o: str) -> tuple[str, str, str, str, str, str]:
        lit = o.startswith('"')
        return (s, label[s], p, p.rsplit("/", 1)[1], o, o.split('"')[1] if lit else label[o])

    old_rows = list({(s, p, o): row(s, p, o) for s, p, o in (
        (rng.choice(nodes), rng.choice(preds[:2]), rng.choice(nodes)) for _ in range(80))
    }.values())
    old_rows += [row(n, EX + "name", f'"name {n[-2:]}"') for n in nodes[::2]]
    # a node that is also a predicate: named "Node 04" as a node, "n04" as a predicate;
    # when it loses its rows as a node, its label is the predicate's
    label[nodes[4]] = "Node 04"
    old_rows = [r for r in old_rows if r[:5:2] != (nodes[0], nodes[4], nodes[1])]
    old_rows += [row(nodes[0], nodes[4], nodes[1]), row(nodes[4], EX + "p", nodes[2])]
    before = TripleStore(_table(old_rows))
    removed = rng.sample(old_rows, 8) + [r for r in old_rows if r[0] == nodes[3]]
    removed += [r for r in old_rows if nodes[4] in (r[0], r[4]) and r not in removed]
    fresh = [f"{EX}new{i}" for i in range(3)]
    label.update({n: f"New {n[-1]}" for n in fresh})
    added = [row(fresh[0], EX + "p", nodes[5]), row(nodes[6], EX + "r", fresh[1]),
             row(fresh[2], EX + "name", '"a new literal"'), row(nodes[7], EX + "q", nodes[8])]
    added = [r for r in added if r[:5:2] not in {x[:5:2] for x in old_rows}]
    renamed = nodes[9]
    label[renamed] = "Renamed"
    gone = {r[:5:2] for r in removed}
    rows = [r for r in old_rows if r[:5:2] not in gone] + added
    rows = [row(*r[:5:2]) if renamed in (r[0], r[4]) else r for r in rows]
    table = _table(rows)
    keys = [r[:5:2] for r in removed]
    store, term_map = before.patched(keys, [r[:5:2] for r in added], table, None, {renamed})
    whole = TripleStore(table)
    assert store.terms == whole.terms and len(store) == len(whole)
    for name in ("s_ids", "p_ids", "o_ids", "in_p", "in_s", "out_offsets", "in_offsets"):
        a, b = getattr(store, name), getattr(whole, name)
        assert a.dtype == b.dtype and a.tolist() == b.tolist(), name
    assert [store.term(i) for i in range(store.terms)] == \
        [whole.term(i) for i in range(whole.terms)]
    assert [store.label_of(i) for i in range(store.terms)] == \
        [whole.label_of(i) for i in range(whole.terms)]
    assert store.label(renamed) == "Renamed" and store.label(fresh[0]) == "New 0"
    assert before.label(nodes[4]) == "Node 04" and store.label(nodes[4]) == "n04"
    assert term_map.tolist() == before.positions_in(whole).tolist()


def test_document_table_column_by_column_is_the_table_of_rows() -> None:
    """``document_table`` (made column by column) is the table ``pa.Table.from_pylist``
    makes of one dict per document: empty lists, non-ASCII text, ``named`` False."""
    from llama_index_crm.build.documents import EntityDocument
    from llama_index_crm.build.parts import _DOC_SCHEMA, document_table

    docs = [EntityDocument(EX + "a", "Ä", "Thing", ["c1", "c2"], "text\nmore é", [], [],
                           named=False),
            EntityDocument(EX + "b", "", "Actor", [], "", ["x"], ["sat1", "sat2"]),
            EntityDocument(EX + "c", "C", "Place", ["c3"], "t" * 500)]
    rows = pa.Table.from_pylist(
        [{"uri": d.uri, "label": d.label, "category": d.category, "classes": d.classes,
          "text": d.text, "satellites": d.satellites, "named": d.named} for d in docs],
        schema=_DOC_SCHEMA)
    table = document_table(docs)
    assert table.schema == rows.schema and table.equals(rows)
    assert table.column("named").to_pylist() == [False, True, True]


def test_entities_after_a_delta_counted_from_the_changed_subjects() -> None:
    """Counted from the entities before and tested node by node, the entities after a
    delta are those listed over the whole graph: a subject that lost all its triples, one
    newly typed as a schema class, a new subject, a blank node, an ontology term."""
    from llama_index_crm.build.delta import DeltaSource, GraphDelta
    from llama_index_crm.rdf import RDF_TYPE
    from llama_index_crm.sources._filters import SCHEMA_TYPES

    schema = sorted(SCHEMA_TYPES)[0]
    crm = "http://www.cidoc-crm.org/cidoc-crm/"
    triples = [Triple(EX + n, EX + "p", EX + "b") for n in "abcdef"]
    triples += [Triple("_:x", EX + "p", EX + "a"), Triple(crm + "E22_Man-Made_Object",
                                                          EX + "p", EX + "a"),
                Triple(EX + "f", RDF_TYPE, schema)]
    store = TripleStore.from_triples(triples)
    delta = GraphDelta.from_triples(
        added=[Triple(EX + "b", RDF_TYPE, schema), Triple(EX + "new", EX + "p", EX + "a"),
               Triple("_:y", EX + "p", EX + "a")],
        removed=[Triple(EX + "c", EX + "p", EX + "b"), Triple(EX + "f", RDF_TYPE, schema)]
    ).against(store)
    before = DeltaSource(store, GraphDelta(), "").entities()
    source = DeltaSource(store, delta, "")
    after = source.entities()
    assert before == [EX + n for n in "abcde"]
    assert after == [EX + n for n in ("a", "d", "e", "f", "new")]
    assert source.entity_count(len(before)) == len(after)
    nodes = [EX + n for n in ("a", "b", "c", "d", "e", "f", "new", "zz")] + ["_:x", "_:y"]
    assert [n for n in nodes if source.is_entity(n)] == after


@pytest.mark.parametrize("seed", range(4))
def test_labels_merged_into_reduced_ones_are_the_labels_reduced_whole(seed: int) -> None:
    """New label candidates merged into the earlier labels (one per term, reducing only
    the terms they name) give what reducing every row again gives: lower ranks win, then
    smaller labels; terms new and old, ties, empty labels."""
    import random

    from llama_index_crm.build.parts import reduce_labels
    from llama_index_crm.build.update import merged_labels

    rng = random.Random(seed)

    def rows(n: int) -> pa.Table:
        return pa.table({"term": pa.array([f"{EX}t{rng.randrange(40):02d}"
                                           for _ in range(n)], pa.string()),
                         "label": pa.array([rng.choice(["", "a", "b", "B", "é", "zz"])
                                            for _ in range(n)], pa.string()),
                         "rank": pa.array([rng.randrange(3) for _ in range(n)], pa.int8())})

    kept = reduce_labels([rows(60)])
    new = [rows(15), rows(0), rows(8)]
    got = merged_labels(kept, new)
    want = reduce_labels([kept, *new])
    assert got.schema == want.schema and got.to_pylist() == want.to_pylist()
    assert merged_labels(kept, [rows(0)]).to_pylist() == kept.to_pylist()
