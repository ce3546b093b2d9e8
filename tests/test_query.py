"""The query phase on the demo graph with the real (offline) embedding model."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from llama_index.core import QueryBundle
from llama_index.core.llms import LLMMetadata, MockLLM

from llama_index_crm import (
    CandidatePoolRetriever,
    CategoryRetriever,
    CrmGraphIndex,
    HybridRetriever,
    RuleBasedAnalyzer,
)
from llama_index_crm.cli import main as cli_main
from llama_index_crm.errors import IndexFormatError
from llama_index_crm.query.chat import CrmChatEngine
from llama_index_crm.query.engine import RETRIEVAL_NOTE

DEMO = Path(__file__).resolve().parents[1] / "examples" / "data" / "troodos.ttl"
T = "https://example.org/troodos/"
ASINOU = T + "church/asinou"
FOUNDER = T + "person/nikephoros-ischyrios"
PLACE = T + "place/asinou"


@pytest.fixture(scope="module")
def index(demo_index: CrmGraphIndex) -> CrmGraphIndex:
    return demo_index


@pytest.fixture(scope="module")
def analyzer(index: CrmGraphIndex) -> RuleBasedAnalyzer:
    return RuleBasedAnalyzer.for_index(index)


def uris(nodes: list[Any]) -> list[str]:
    return [n.node.metadata["uri"] for n in nodes]


def test_index_folder_holds_every_part(index: CrmGraphIndex) -> None:
    names = {p.name for p in index.folder.iterdir()}
    for part in ("manifest.json", "documents.parquet", "triples.parquet", "fr_edges.parquet",
                 "vectors.npy", "faiss.index", "bm25", "doc_ids.json", "statistics.json",
                 "pagerank.parquet", "doc_meta.parquet"):
        assert part in names
    manifest = json.loads((index.folder / "manifest.json").read_text())
    assert manifest["embedding"]["dimension"] == 384
    assert manifest["counts"]["documents"] == len(index.doc_ids) == 126
    assert index.vectors.shape == (126, 384)
    top_actors = index.statistics.top_by_category["Actor"]
    assert top_actors and all(index.meta.categories[index.row_of[d]] == "Actor"
                              for d in top_actors)


def test_hybrid_retriever_finds_the_church_by_its_names(index: CrmGraphIndex) -> None:
    hybrid = HybridRetriever(index, similarity_top_k=5)
    assert ASINOU in uris(hybrid.retrieve("Panagia Phorbiottissa"))
    # the Greek appellation is indexed too
    assert ASINOU in uris(hybrid.retrieve("Παναγία Φορβιώτισσα"))


def test_category_retriever_returns_only_target_categories(
    index: CrmGraphIndex, analyzer: RuleBasedAnalyzer
) -> None:
    category = CategoryRetriever(index, analyzer.plan_for, similarity_top_k=10)
    nodes = category.retrieve("Which churches were painted in the 15th century?")
    assert nodes and all(n.node.metadata["category"] == "Thing" for n in nodes)


def test_which_churches_fills_the_pool_with_things(
    index: CrmGraphIndex, analyzer: RuleBasedAnalyzer
) -> None:
    pool = CandidatePoolRetriever(index, analyzer.plan_for)
    question = "Which churches are in the Troodos mountains?"
    plan = analyzer.plan_for(question)
    assert plan.type == "enumeration" and plan.target_categories == ("Thing",)
    nodes = pool.retrieve(question)
    assert len(nodes) <= plan.k * 6
    things = [n for n in nodes if n.node.metadata["category"] == "Thing"]
    assert len(things) >= len(nodes) * 0.5
    churches = {u for u in uris(nodes) if u.startswith(T + "church/")}
    assert len(churches) >= 8


def test_asinou_question_surfaces_church_place_and_founder_together(
    index: CrmGraphIndex,
) -> None:
    answer = index.as_query_pipeline().run("Who founded the church at Asinou?")
    top = [r["uri"] for r in answer.retrieved()]
    assert len(top) == 10
    assert {ASINOU, FOUNDER, PLACE} <= set(top)
    assert FOUNDER in top[:3]  # with the place and church the question names
    assert "Nikephoros Ischyrios" in answer.answer
    # the context carries facts as triples, with labels, never bare IRIs as names
    assert "Facts:" in answer.context and " → " in answer.context
    assert answer.sources[ASINOU]


def test_count_question_counts_through_the_graph(index: CrmGraphIndex) -> None:
    answer = index.as_query_pipeline().run("How many churches are in Nicosia District?")
    assert answer.plan.type == "aggregation"
    assert answer.count == 11
    assert answer.answer.startswith("11 ")


def test_follow_up_is_asked_in_the_conversation(index: CrmGraphIndex) -> None:
    chat = index.as_chat_engine()
    assert isinstance(chat, CrmChatEngine)
    first = chat.chat('Tell me about "Panagia tou Araka".')
    assert T + "church/panagia-tou-araka" in uris(first.source_nodes)[:3]
    follow = chat.chat("Who painted it?")
    assert T + "church/panagia-tou-araka" in uris(follow.source_nodes)
    assert "Panagia tou Araka" in (chat.last.plan.query if chat.last else "")
    assert len(chat.chat_history) == 4


def test_persist_then_load_returns_identical_results(index: CrmGraphIndex,
                                                     tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    index.persist(copy)
    loaded = CrmGraphIndex.load(copy)
    questions = ["Who founded the church at Asinou?", "Which churches were painted in 1494?"]
    for q in questions:
        a = index.as_query_pipeline().run(q)
        b = loaded.as_query_pipeline().run(q)
        assert a.retrieved() == b.retrieved()
        assert a.context == b.context and a.answer == b.answer


def test_every_stage_emits_its_candidates(index: CrmGraphIndex, record_stages: Any) -> None:
    with record_stages() as seen:
        index.as_query_pipeline().run("Who founded the church at Asinou?")
    stages = [e.stage for e in seen]
    for stage in ("dense", "bm25", "category", "pool", "coherent", "context"):
        assert stage in stages
    coherent = next(e for e in seen if e.stage == "coherent")
    assert FOUNDER in [c[0] for c in coherent.candidates[:3]]
    assert coherent.details["alpha"] == 0.7


def test_llm_chat_engine_gets_the_graph_context(index: CrmGraphIndex) -> None:
    # prompt plumbing only: MockLLM echoes what it was asked
    class WideMockLLM(MockLLM):
        @property
        def metadata(self) -> LLMMetadata:
            return LLMMetadata(context_window=128_000, num_output=256)

    engine = index.as_chat_engine(llm=WideMockLLM(max_tokens=None))
    response = engine.chat("Who founded the church at Asinou?")
    assert FOUNDER in uris(response.source_nodes)
    assert "Nikephoros Ischyrios" in str(response)


def test_refuses_an_index_from_another_version_or_model(index: CrmGraphIndex,
                                                        tmp_path: Path) -> None:
    copy = tmp_path / "old"
    shutil.copytree(index.folder, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["package_version"] = "0.0.1"
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(IndexFormatError, match="crm-rag build"):
        CrmGraphIndex.load(copy)
    with pytest.raises(IndexFormatError, match="embedding model"):
        CrmGraphIndex.load(index.folder, embed_model="BAAI/bge-m3")
    (copy / "manifest.json").write_text("{not json")
    with pytest.raises(IndexFormatError, match="not valid JSON"):
        CrmGraphIndex.load(copy)
    with pytest.raises(IndexFormatError, match="not a llama-index-crm index"):
        CrmGraphIndex.load(tmp_path / "nothing")


def test_refuses_a_manifest_whose_model_does_not_match(index: CrmGraphIndex,
                                                       tmp_path: Path) -> None:
    copy = tmp_path / "tampered"
    shutil.copytree(index.folder, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["embedding"]["model"] = "HuggingFaceEmbedding:BAAI/bge-m3"
    (copy / "manifest.json").write_text(json.dumps(manifest))
    loaded = CrmGraphIndex.load(copy)  # the model is loaded on first use
    with pytest.raises(IndexFormatError, match="built with the embedding model .*bge-m3"):
        loaded.as_retriever().retrieve("Who founded the church at Asinou?")


def test_corrupt_part_is_reported(index: CrmGraphIndex, tmp_path: Path) -> None:
    copy = tmp_path / "corrupt"
    shutil.copytree(index.folder, copy)
    (copy / "faiss.index").write_bytes(b"garbage")
    with pytest.raises(IndexFormatError, match="incomplete or corrupt"):
        CrmGraphIndex.load(copy)


def test_cli_query_writes_the_evaluation_contract(index: CrmGraphIndex, tmp_path: Path) -> None:
    questions = tmp_path / "q.jsonl"
    rows = [
        {"id": "q1", "question": 'Tell me about "Panagia Podithou".', "turn_of": None},
        {"id": "q2", "question": "Who founded it?", "turn_of": "q1"},
        {"id": "q3", "question": "How many churches are in Nicosia District?", "turn_of": None},
    ]
    questions.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    out = tmp_path / "r.jsonl"
    assert cli_main(["query", "--index", str(index.folder), "--questions", str(questions),
                     "--out", str(out)]) == 0
    results = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in results] == ["q1", "q2", "q3"]
    for r in results:
        assert set(r) == {"id", "retrieved", "context", "answer", "count", "status",
                          "latency_s"}
        assert r["status"] == "answered"
        assert r["retrieved"] and {"uri", "label", "score"} <= set(r["retrieved"][0])
    assert "Demetre de Coron" in results[1]["context"]
    assert results[2]["count"] == 11


@pytest.mark.parametrize("question", ["???", "Ποιος ίδρυσε την εκκλησία της Ασίνου;",
                                      "x" * 5000])  # an empty one: test_small_breaks.py
def test_odd_questions_get_an_answer_not_an_error(index: CrmGraphIndex, question: str) -> None:
    answer = index.as_query_pipeline().run(question)
    assert isinstance(answer.answer, str)


def test_pool_bundle_reuses_the_query_embedding(index: CrmGraphIndex) -> None:
    hybrid = HybridRetriever(index)
    bundle = QueryBundle("Asinou")
    hybrid.retrieve(bundle)
    assert bundle.embedding is not None and len(bundle.embedding) == 384


def test_list_question_anchored_on_a_node_without_a_document(tmp_path: Path) -> None:
    """A place the data only labels (a Getty TGN IRI with a name, no class) has no document;
    "What works depict Ireland?" must list the works that point at it, not the work whose
    title merely contains the word ("…Northern Ireland")."""
    graph = tmp_path / "g.ttl"
    graph.write_text("""
        @prefix crm: <http://www.cidoc-crm.org/cidoc-crm/> .
        @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
        @prefix tgn: <http://vocab.getty.edu/tgn/> .
        @prefix ex: <http://example.org/> .
        tgn:1000078 rdfs:label "Ireland" .
        tgn:7002445 rdfs:label "Northern Ireland" .
        ex:abbey a crm:E22_Human-Made_Object ; rdfs:label "Muckross Abbey, Killarney" ;
            crm:P62_depicts tgn:1000078 .
        ex:potter a crm:E22_Human-Made_Object ; rdfs:label "Traveling Potter Outside a Cottage" ;
            crm:P62_depicts tgn:1000078 .
        ex:postman a crm:E22_Human-Made_Object ;
            rdfs:label "Outposts of Britain: A Postman in Northern Ireland" ;
            crm:P62_depicts tgn:7002445 .
    """)
    built = CrmGraphIndex.build([str(graph)], tmp_path / "index")
    answer = built.ask("What works depict Ireland?")
    assert answer.status == "answered"
    assert answer.answer == ("2 works depicting Ireland: “Muckross Abbey, Killarney”; "
                             "“Traveling Potter Outside a Cottage”.")
    # without the exact layer, retrieval anchors the list on the same node and says so
    retrieved = built.as_query_pipeline(exact=False).run("What works depict Ireland?")
    assert retrieved.status == "retrieval_only" and retrieved.count is None
    assert retrieved.answer.endswith(
        "Ireland: Muckross Abbey, Killarney; Traveling Potter Outside a Cottage")
    # the terms channel put both works in the pool, ahead of the one that only mentions it
    pool = built.as_retriever().retrieve("What works depict Ireland?")
    ranked = [n.node.metadata["uri"] for n in pool]
    assert set(ranked[:2]) == {"http://example.org/abbey", "http://example.org/potter"}


def test_tell_me_about_describes_the_named_entity(index: CrmGraphIndex) -> None:
    """A request for a description gets the entity's identifying facts (makers, dates,
    places), not the lines that merely share words with the question."""
    answer = index.as_query_pipeline(exact=False).run('Tell me about "Panagia Podithou".').answer
    lines = answer.removeprefix(RETRIEVAL_NOTE).strip().splitlines()
    assert all(line.startswith("Panagia Podithou: ") for line in lines)
    assert any("Created by (actor): Demetre de Coron" in line for line in lines)
    assert any("Beginning of existence: 1502" in line for line in lines)
    assert not any(tag in answer for tag in ("Names:", "Classes:", "Identifiers:"))
