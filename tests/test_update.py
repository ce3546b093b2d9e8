"""Incremental updates (``crm-rag update``, ``CrmGraphIndex.update``): the index after an
update equals a full build of the changed graph, file by file; an update killed with
SIGKILL leaves the previous index usable and the next update redoes the work.

The demo graph (examples/data/troodos.ttl) runs always; the YCBA graph (../shared) covers
additions, removals, a label named in many documents, a removed entity, a source read
again, the dev set's answers and a real SIGKILL, and skips without ../shared.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import DEMO, SHARED, TEST_CACHE_ENV_VAR
from update_support import (
    CRM,
    RDF_TYPE,
    RDFS_LABEL,
    changed_graph,
    compare_folders,
    graph_triples,
    mixed_delta,
    write_nt,
)

from llama_index_crm.build.affected import ReverseWalker, affected_entities
from llama_index_crm.build.delta import GraphDelta
from llama_index_crm.build.labels import DIRECT_LABELS
from llama_index_crm.cli import main
from llama_index_crm.errors import IndexFormatError, SourceError
from llama_index_crm.index import CrmGraphIndex
from llama_index_crm.ontology import Ontology
from llama_index_crm.rdf import Literal, Triple
from llama_index_crm.storage import TripleStore

YCBA = SHARED / "datasets" / "ycba" / "ycba_data.n3.zip"
YCBA_DEV = SHARED / "eval" / "ycba_dev.jsonl"
REPO = Path(__file__).resolve().parents[1]


def _build(paths: list[Path], out: Path, cache: Path) -> Path:
    CrmGraphIndex.build([str(p) for p in paths], out, cache_dir=cache)
    return out


@pytest.fixture(scope="module")
def demo_case(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The demo graph built, a mixed delta on disk, and a full build of the changed graph."""
    root = tmp_path_factory.mktemp("update-demo")
    cache = root / "cache"
    triples = graph_triples([DEMO])
    added, removed, info = mixed_delta(triples)
    base = _build([DEMO], root / "base", cache)
    write_nt(root / "add.nt", added)
    write_nt(root / "remove.nt", removed)
    changed = write_nt(root / "changed.nt", changed_graph(triples, added, removed))
    full = _build([changed], root / "full", cache)
    return {"root": root, "cache": cache, "base": base, "full": full, "info": info,
            "added": added, "removed": removed, "changed": changed}


def _copy(case: dict[str, object], name: str) -> Path:
    target = Path(str(case["root"])) / name
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(Path(str(case["base"])), target)
    return target


def test_demo_update_equals_full_build(demo_case: dict[str, object]) -> None:
    root = Path(str(demo_case["root"]))
    index = _copy(demo_case, "updated")
    updated = CrmGraphIndex.update(index, add=[root / "add.nt"], remove=[root / "remove.nt"],
                                   cache_dir=Path(str(demo_case["cache"])))
    assert updated is not None
    assert compare_folders(index, Path(str(demo_case["full"]))) == []
    info = demo_case["info"]
    assert isinstance(info, dict)
    # the renamed node is named in documents under its new name, the removed actor nowhere
    renamed = updated.docstore.triples.label(info["renamed"])
    assert renamed is not None and renamed.endswith("(u renamed)")
    assert updated.docstore.get_document(info["removed_entity"], raise_error=False) is None
    # the new work has a document, or is chained into one (a thin one)
    holders = [d for d, chained in zip(updated.doc_ids, updated.meta.chained_from,
                                       strict=True) if info["new_work"] in (d, *chained)]
    assert len(holders) == 1
    node = updated.docstore.get_document(holders[0])
    assert node is not None and "A new acquisition u" in node.get_content()
    history = updated.manifest["updates"]
    assert len(history) == 1
    entry = history[0]
    added = demo_case["added"]
    assert isinstance(added, list)
    assert entry["added"] == len(set(added)) and entry["removed"] > 0
    assert entry["documents_added"] >= 1 and entry["documents_removed"] >= 1
    assert 0 < entry["entities_rewritten"] < updated.manifest["counts"]["documents"]
    # an actor removed: the FR edges changed, PageRank was computed again
    assert entry["pagerank_kept"] is False


def test_demo_update_from_source_equals_full_build(demo_case: dict[str, object]) -> None:
    """``crm-rag update --index DIR SOURCE``: the delta is computed from the file."""
    index = _copy(demo_case, "from-source")
    code = main(["update", "--index", str(index), str(demo_case["changed"]), "-q"])
    assert code == 0
    assert compare_folders(index, Path(str(demo_case["full"]))) == []
    # the same source again changes nothing, and says so in the history
    assert main(["update", "--index", str(index), str(demo_case["changed"]), "-q"]) == 0
    history = json.loads((index / "manifest.json").read_text())["updates"]
    assert [h["added"] + h["removed"] for h in history][1] == 0
    assert history[1]["documents_changed"] == 0 and history[1]["embedded"] == 0
    assert compare_folders(index, Path(str(demo_case["full"]))) == []


def test_demo_update_from_endpoint_equals_full_build(
        demo_case: dict[str, object], serve_graph: Callable[[Path], str]) -> None:
    """The changed graph served by ``oxigraph serve``: the update reads the endpoint's
    entities again and equals the full build of the file."""
    url = serve_graph(Path(str(demo_case["changed"])))
    index = _copy(demo_case, "from-endpoint")
    CrmGraphIndex.update(index, endpoint=url, cache_dir=Path(str(demo_case["cache"])),
                         load=False)
    assert compare_folders(index, Path(str(demo_case["full"]))) == []


def test_demo_updates_in_sequence_equal_one_build(demo_case: dict[str, object],
                                                  tmp_path: Path) -> None:
    """Two updates one after the other (add, then remove) equal one full build."""
    root = Path(str(demo_case["root"]))
    index = _copy(demo_case, "sequence")
    cache = Path(str(demo_case["cache"]))
    CrmGraphIndex.update(index, add=[root / "add.nt"], cache_dir=cache, load=False)
    CrmGraphIndex.update(index, remove=[root / "remove.nt"], cache_dir=cache, load=False)
    assert compare_folders(index, Path(str(demo_case["full"]))) == []
    assert len(json.loads((index / "manifest.json").read_text())["updates"]) == 2


def test_demo_label_change_keeps_pagerank_and_equals_full_build(
        demo_case: dict[str, object]) -> None:
    """A label changed leaves the FR edges as they were: the update keeps the stored
    PageRank instead of computing it, and still equals a full build file by file (PageRank
    and the FR edges compared in their order, BM25 byte for byte)."""
    root = Path(str(demo_case["root"]))
    cache = Path(str(demo_case["cache"]))
    triples = graph_triples([DEMO])
    info = demo_case["info"]
    assert isinstance(info, dict)
    old = next(t for t in triples if t.s == info["renamed"] and t.p == RDFS_LABEL)
    assert isinstance(old.o, Literal)
    new = Triple(old.s, old.p, Literal(f"{old.o.value} (relabelled)", old.o.lang,
                                       old.o.datatype))
    add = write_nt(root / "label.add.nt", [new])
    remove = write_nt(root / "label.remove.nt", [old])
    full = _build([write_nt(root / "label.nt", changed_graph(triples, [new], [old]))],
                  root / "label-full", cache)
    index = _copy(demo_case, "label")
    CrmGraphIndex.update(index, add=[add], remove=[remove], cache_dir=cache, load=False)
    entry = json.loads((index / "manifest.json").read_text())["updates"][-1]
    assert entry["pagerank_kept"] is True and entry["documents_changed"] > 0
    assert compare_folders(index, full) == []


def test_labelled_neighbours_are_not_rendered_again(demo_case: dict[str, object],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Neighbours of a renamed node that have a direct label of their own are left out of
    the re-rendered candidates; the affected entities are those found without leaving
    them out, for a rename and for the mixed delta."""
    import llama_index_crm.build.affected as affected

    base = Path(str(demo_case["base"]))
    store = TripleStore.load(base / "triples.parquet")
    onto = Ontology.default()
    info = demo_case["info"]
    assert isinstance(info, dict)
    hub = info["renamed"]
    near = {store.term(int(i)) for i in set(store.s_ids.tolist())}
    kept = affected._unnamed(store, onto, near)
    labelled = {n for n in near if any(p in DIRECT_LABELS and isinstance(o, Literal)
                                       and o.value.strip() for p, o in store.outgoing(n))}
    assert labelled and not (kept & labelled)
    assert near - labelled <= kept
    old = [t for t in store.outgoing(hub) if t[0] == RDFS_LABEL][0][1]
    assert isinstance(old, Literal)
    deltas = [GraphDelta.from_triples([Triple(hub, RDFS_LABEL, Literal("Zzz", old.lang))],
                                      [Triple(hub, RDFS_LABEL, old)]),
              GraphDelta.from_triples(demo_case["added"], demo_case["removed"])]  # type: ignore[arg-type]
    entities = {store.term(int(i)) for i in set(store.s_ids.tolist())}
    for delta in deltas:
        delta = delta.against(store)
        found = affected_entities(store, delta, onto, lambda nodes: set(), entities)
        with monkeypatch.context() as m:
            m.setattr(affected, "_unnamed", lambda store, onto, nodes: set(nodes))
            every = affected_entities(store, delta, onto, lambda nodes: set(), entities)
        assert found.entities == every.entities and found.rerendered == every.rerendered


def test_affected_entities_are_those_the_change_touches(demo_case: dict[str, object]) -> None:
    """A label change rewrites the documents naming the node, not the whole graph; a
    triple on an intermediate node rewrites the entities whose FR walk passes it."""
    base = Path(str(demo_case["base"]))
    store = TripleStore.load(base / "triples.parquet")
    onto = Ontology.default()
    info = demo_case["info"]
    assert isinstance(info, dict)
    hub = info["renamed"]
    old = [t for t in store.outgoing(hub) if t[0] == RDFS_LABEL][0][1]
    assert isinstance(old, Literal)
    delta = GraphDelta.from_triples([Triple(hub, RDFS_LABEL, Literal("Zzz", old.lang))],
                                    [Triple(hub, RDFS_LABEL, old)]).against(store)
    entities = {store.term(int(i)) for i in set(store.s_ids.tolist())}
    found = affected_entities(store, delta, onto, lambda nodes: set(), entities)
    assert hub in found.renamed
    namers = {s for s, _ in store.incoming(hub)}
    assert namers & entities <= found.entities | {hub}
    assert len(found.entities) < len(entities) / 2
    # the reverse walk: a production's new actor is read by the walk of what it produced
    thing, production = next(
        (t, str(o)) for t in sorted(entities) for p, o in store.outgoing(t)
        if p == CRM + "P108i_was_produced_by")
    walkers = ReverseWalker(onto).walkers(store, GraphDelta.from_triples(
        [Triple(production, CRM + "P14_carried_out_by", "http://example.org/someone")]))
    assert thing in walkers and production in walkers
    # a label is read by no walk
    assert ReverseWalker(onto).walkers(store, delta) == set()


def test_name_rows_of_some_nodes_are_theirs_in_the_whole_table(
        demo_case: dict[str, object]) -> None:
    """An update makes the name rows of the touched nodes only: the same rows, in the
    same order, as those nodes have in the table of the whole graph."""
    from llama_index_crm.storage.names import name_dependents, name_rows

    store = TripleStore.load(Path(str(demo_case["base"])) / "triples.parquet")
    every = list(name_rows(store))
    named = sorted({r.node for r in every})
    assert len(named) > 10
    some = set(named[::3])
    # an appellation node's referrers depend on it: their appellation rows read its text
    appellations = {store.term(int(o)) for s, p, o in zip(
        store.s_ids.tolist(), store.p_ids.tolist(), store.o_ids.tolist(), strict=True)
        if store.term(p) == CRM + "P1_is_identified_by" and store.term(s) in some}
    assert appellations and some <= name_dependents(store, appellations | some)
    assert list(name_rows(store, nodes=some)) == [r for r in every if r.node in some]
    assert list(name_rows(store, nodes=set())) == []


def test_unchanged_documents_keep_their_stored_rows(demo_case: dict[str, object]) -> None:
    """The docstore an update writes keeps an unchanged document's row as stored and
    makes a changed one anew (the row a build makes for it), in the documents' order."""
    import pyarrow.parquet as pq

    from llama_index_crm.build.documents import EntityDocument
    from llama_index_crm.build.reader import to_document
    from llama_index_crm.build.update import _patched_docstore
    from llama_index_crm.storage.documents import DocumentRecord

    base = Path(str(demo_case["base"]))
    store = TripleStore.load(base / "triples.parquet")
    stored = pq.read_table(base / "documents.parquet")
    docs = []
    for row in stored.to_pylist():
        meta = json.loads(row["metadata"])
        docs.append(EntityDocument(row["doc_id"], meta["label"], meta["category"],
                                   meta["classes"], row["text"], meta["chained_from"]))
    docs.reverse()  # rows follow the documents given
    docstore, old_texts, changes, remade = _patched_docstore(base, docs, store)
    assert remade == set() and changes == {"changed": 0, "added": 0, "removed": 0}
    table = docstore._rows.to_arrow()
    assert table.column("doc_id").to_pylist() == [d.uri for d in docs]
    assert table.to_pylist() == stored.to_pylist()[::-1]
    docs[3].text += "\nNotes: changed"
    docs[5].label = "Another name"
    docstore, old_texts, changes, remade = _patched_docstore(base, docs[1:], store)
    assert remade == {docs[3].uri, docs[5].uri}
    assert changes == {"changed": 1, "added": 0, "removed": 1}
    assert old_texts[docs[3].uri] == stored.column("text").to_pylist()[-4]
    rows = {r["doc_id"]: r for r in docstore._rows.to_arrow().to_pylist()}
    for d in (docs[3], docs[5]):
        record = DocumentRecord.from_node(to_document(d))
        assert rows[d.uri] == {"doc_id": d.uri, **{k: getattr(record, k) for k in (
            "class_name", "text", "metadata", "hash", "ref_doc_id", "uri", "node")}}


def test_bm25_tokens_of_an_update_are_those_of_the_new_corpus(tmp_path: Path) -> None:
    """An update tokenises the changed texts only: the tokens it keeps (rows reordered,
    removed, added, words gone or new) are those of tokenising the whole new corpus,
    vocabulary included, and so is the BM25 index made from them."""
    from llama_index_crm.graph.parts import (
        Bm25Settings,
        CorpusTokens,
        bm25_from_tokens,
        bm25_tokens,
    )

    settings = Bm25Settings()
    old = ["Portrait of a Lady\nType: painting", "The Reapers\nType: paintings by Stubbs",
           "Troodos church\nPlace: Cyprus", "Unique zanzibar word here"]
    new = ["Troodos church\nPlace: Cyprus", "The Reapers, renamed\nType: painting",
           "Portrait of a Lady\nType: painting", "A new record, about quokkas"]
    before = bm25_tokens(old, settings)
    rows: list[int | None] = [2, None, 0, None]
    made = before.updated(rows, {1: new[1], 3: new[3]}, settings)
    whole = bm25_tokens(new, settings)
    assert made.vocab == whole.vocab and "zanzibar" not in made.vocab
    assert made.ids.tolist() == whole.ids.tolist()
    assert made.offsets.tolist() == whole.offsets.tolist()
    assert before.updated([0, 1, 2, 3], {}, settings).ids.tolist() == before.ids.tolist()
    made.write(tmp_path)
    again = CorpusTokens.read(tmp_path)
    assert again is not None and again.vocab == whole.vocab
    a, b = bm25_from_tokens(made, settings).bm25, bm25_from_tokens(whole, settings).bm25
    assert a.vocab_dict == b.vocab_dict
    for key in ("data", "indices", "indptr"):
        assert a.scores[key].tolist() == b.scores[key].tolist()


def test_store_with_patched_terms_is_the_store_of_the_archive(
        demo_case: dict[str, object]) -> None:
    """The update's new triple store takes its terms from the old one (rows removed, rows
    with new terms added, a term gone with its last row): the same terms, ids and labels
    as encoding the changed archive again."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    base = Path(str(demo_case["base"]))
    store = TripleStore.load(base / "triples.parquet")
    table = pq.read_table(base / "triples.parquet")
    rows = list(zip(*(table.column(c).to_pylist() for c in ("s", "p", "o")), strict=True))
    lonely = next(o for o in table.column("o").to_pylist()
                  if o.startswith('"') and table.column("o").to_pylist().count(o) == 1)
    removed = {r for r in rows if r[2] == lonely} | set(rows[::40])
    added = {("http://example.org/new", RDFS_LABEL, '"A new thing"'),
             (rows[3][0], CRM + "P2_has_type", "http://example.org/type")}
    joined = pc.binary_join_element_wise(*(table.column(c) for c in ("s", "p", "o")), "\x00")
    kept = table.filter(pc.invert(pc.is_in(joined, value_set=pa.array(
        ["\x00".join(r) for r in removed]))))
    extra = pa.table({"s": [r[0] for r in sorted(added)], "s_label": ["", ""],
                      "p": [r[1] for r in sorted(added)], "p_label": ["label", "has type"],
                      "o": [r[2] for r in sorted(added)], "o_label": ["A new thing", ""]},
                     schema=kept.schema)
    changed = pa.concat_tables([kept, extra])
    whole = TripleStore(changed)
    patched = TripleStore(changed, terms=store.terms_after(removed, added))
    assert whole.id_of(lonely) is None and store.id_of(lonely) is not None
    assert patched._terms.array.equals(whole._terms.array)
    for name in ("s_ids", "p_ids", "o_ids"):
        assert np.array_equal(getattr(patched, name), getattr(whole, name))
    assert patched._labels.equals(whole._labels)
    with pytest.raises(ValueError):
        TripleStore(changed, terms=store._terms.array)


def test_bad_input_is_refused_clearly(demo_case: dict[str, object], tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    index = _copy(demo_case, "bad")
    empty = tmp_path / "empty.nt"
    empty.write_text("")
    with pytest.raises(SourceError, match="no triple"):
        CrmGraphIndex.update(index, add=[empty])
    broken = tmp_path / "broken.nt"
    broken.write_text("<http://x> <http://y> .\n")
    assert main(["update", "--index", str(index), "--add", str(broken)]) == 1
    assert "crm-rag: error" in capsys.readouterr().err
    # an index built before updates existed: a rebuild hint, the folder untouched
    old = _copy(demo_case, "old-format")
    (old / "unchained.parquet").unlink()
    before = sorted(p.name for p in old.iterdir())
    with pytest.raises(IndexFormatError, match="crm-rag build"):
        CrmGraphIndex.update(old, add=[Path(str(demo_case["root"])) / "add.nt"])
    assert sorted(p.name for p in old.iterdir()) == before
    assert not (old.parent / ".old-format.updating").exists()
    with pytest.raises(SystemExit):
        main(["update", "--index", str(index)])


def test_interrupted_replacement_is_recovered(demo_case: dict[str, object]) -> None:
    """Killed between the two renames of the swap: the next update puts the old folder
    back first and applies the change to it."""
    root = Path(str(demo_case["root"]))
    index = _copy(demo_case, "swap")
    index.rename(index.parent / ".swap.old")
    CrmGraphIndex.update(index, add=[root / "add.nt"], remove=[root / "remove.nt"],
                         cache_dir=Path(str(demo_case["cache"])), load=False)
    assert compare_folders(index, Path(str(demo_case["full"]))) == []
    assert not (index.parent / ".swap.old").exists()


# -- the Yale Center for British Art graph (../shared) -------------------------------------


@pytest.fixture(scope="module")
def ycba_case(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    if not YCBA.exists():
        pytest.skip("../shared/datasets/ycba not present")
    root = tmp_path_factory.mktemp("update-ycba")
    shared = os.environ.get(TEST_CACHE_ENV_VAR)  # an embedding cache kept across sessions
    cache = Path(shared) / "update-ycba" if shared else root / "cache"
    triples = graph_triples([YCBA])
    added, removed, info = mixed_delta(triples, tag="ycba")
    base = _build([YCBA], root / "base", cache)
    write_nt(root / "add.nt", added)
    write_nt(root / "remove.nt", removed)
    changed = write_nt(root / "changed.nt", changed_graph(triples, added, removed))
    full = _build([changed], root / "full", cache)
    return {"root": root, "cache": cache, "base": base, "full": full, "info": info,
            "changed": changed}


@pytest.mark.slow
def test_ycba_update_equals_full_build(ycba_case: dict[str, object]) -> None:
    """Additions, removals, a label named in many documents and a removed entity, in one
    delta: every file equals the full build's, and the dev set gets the same answers."""
    root = Path(str(ycba_case["root"]))
    index = _copy(ycba_case, "updated")
    updated = CrmGraphIndex.update(index, add=[root / "add.nt"], remove=[root / "remove.nt"],
                                   cache_dir=Path(str(ycba_case["cache"])))
    assert updated is not None
    full = Path(str(ycba_case["full"]))
    assert compare_folders(index, full) == []
    info = ycba_case["info"]
    assert isinstance(info, dict)
    entry = updated.manifest["updates"][-1]
    docs = updated.manifest["counts"]["documents"]
    # the renamed node is named in many documents: all rewritten, and only a part of the
    # graph
    namers = {s for s, _ in updated.docstore.triples.incoming(info["renamed"])}
    assert len(namers) >= 20
    assert entry["documents_changed"] >= 20
    written = docs + updated.manifest["stats"]["documents_chained"]  # before chaining
    assert entry["entities_rewritten"] < written / 2
    assert updated.docstore.get_document(info["removed_entity"], raise_error=False) is None
    # the same answers to the dev set (retrieval only, no LLM)
    if YCBA_DEV.exists():
        questions = [json.loads(line)["question"]
                     for line in YCBA_DEV.read_text().splitlines() if line.strip()]
        other = CrmGraphIndex.load(full)
        for question in questions:
            a, b = updated.ask(question), other.ask(question)
            assert (a.answer, a.status, a.count) == (b.answer, b.status, b.count), question
            assert [r["uri"] for r in a.retrieved()] == [r["uri"] for r in b.retrieved()]


@pytest.mark.slow
def test_ycba_update_from_source(ycba_case: dict[str, object]) -> None:
    index = _copy(ycba_case, "from-source")
    CrmGraphIndex.update(index, source=[str(ycba_case["changed"])],
                         cache_dir=Path(str(ycba_case["cache"])), load=False)
    assert compare_folders(index, Path(str(ycba_case["full"]))) == []


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_ycba_update_killed_leaves_index_usable(ycba_case: dict[str, object]) -> None:
    """A real SIGKILL of ``crm-rag update`` mid-way: the index is byte for byte the one
    before, it loads and answers; the next update does the work again and equals the
    full build."""
    root = Path(str(ycba_case["root"]))
    index = _copy(ycba_case, "killed")
    before = _files(index)
    work = index.parent / ".killed.updating"
    env = {**os.environ, "LLAMA_INDEX_CRM_CACHE": str(ycba_case["cache"])}
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_index_crm.cli", "update", "--index", str(index),
         "--add", str(root / "add.nt"), "--remove", str(root / "remove.nt"), "-q"],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        # kill once the update has written part of its new folder
        if work.exists() and any(work.glob("*.parquet")):
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the update finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert work.exists()  # the half-written update, beside the index
    assert _files(index) == before
    loaded = CrmGraphIndex.load(index)
    assert "updates" not in loaded.manifest
    assert loaded.ask("Who made A Kiss?").status
    CrmGraphIndex.update(index, add=[root / "add.nt"], remove=[root / "remove.nt"],
                         cache_dir=Path(str(ycba_case["cache"])), load=False)
    assert not work.exists()
    assert compare_folders(index, Path(str(ycba_case["full"]))) == []
    assert RDF_TYPE  # the module's vocabulary is the tests' vocabulary
