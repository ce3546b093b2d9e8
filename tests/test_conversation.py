"""Multi-turn behaviour on the demo graph: follow-ups retrieved twice, vague follow-ups led
by the previous turn, pivots that leave an entity out, a history bounded by tokens, async
retrieval, sources with their graph paths, the chat console and the examples."""

from __future__ import annotations

import asyncio
import importlib.util
import io
import json
import sys
from contextlib import redirect_stdout
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import MetadataMode

from llama_index_crm.cli import main as cli_main
from llama_index_crm.events import StageCandidatesEvent
from llama_index_crm.index import CrmGraphIndex
from llama_index_crm.query.console import ChatConsole
from llama_index_crm.query.engine import RETRIEVAL_NOTE, CrmQueryPipeline
from llama_index_crm.query.memory import ConversationMemory
from llama_index_crm.query.turns import read_turn, strip_exclusion
from llama_index_crm.retrievers.conversation import interleave

ROOT = Path(__file__).resolve().parents[1]
T = "https://example.org/troodos/"
ASINOU = T + "church/asinou"
ARAKA = T + "church/panagia-tou-araka"
PODITHOU = T + "church/panagia-podithou"
FOUNDER = T + "person/nikephoros-ischyrios"
NICOSIA_CHURCHES = ("Church of Saint Heraclidius", "Church of Saint John Lampadistis",
                    "Church of the Archangel Michael, Pedoulas",
                    "Church of the Transfiguration of the Saviour, Palaichori",
                    "Holy Cross of Agiasmati",
                    "Latin Chapel of the Monastery of Saint John Lampadistis",
                    "Panagia Phorbiottissa (Asinou)",
                    "Panagia Podithou", "Panagia tou Araka", "Panagia tou Moutoulla",
                    "Saint Nicholas of the Roof")


@pytest.fixture(scope="module")
def pipeline(demo_index: CrmGraphIndex) -> CrmQueryPipeline:
    return demo_index.as_query_pipeline()


def uris(nodes: list[Any]) -> list[str]:
    return [n.node.metadata["uri"] for n in nodes]


def stage(events: list[StageCandidatesEvent], name: str) -> list[StageCandidatesEvent]:
    return [e for e in events if e.stage == name]


# -- reading a turn (pure) --------------------------------------------------------------

@pytest.mark.parametrize(("question", "cleaned", "excluded"), [
    ("Aside from Asinou, which churches are in Nicosia District?",
     "Which churches are in Nicosia District?", "Asinou"),
    ("Which churches, other than Asinou, were painted by Philippos Goul?",
     "Which churches were painted by Philippos Goul?", "Asinou"),
    ("Which churches apart from Asinou were painted in the 15th century?",
     "Which churches were painted in the 15th century?", "Asinou"),
    ("How many churches besides the Panagia tou Araka are in Nicosia District?",
     "How many churches are in Nicosia District?", "Panagia tou Araka"),
    ('Which works except "Battersea Reach" did he paint?', "Which works did he paint?",
     "Battersea Reach"),
])
def test_a_pivot_is_stripped_of_its_exclusion(question: str, cleaned: str,
                                              excluded: str) -> None:
    assert strip_exclusion(question) == (cleaned, excluded, False)
    reading = read_turn(question)
    assert (reading.kind, reading.question, reading.excluded) == ("pivot", cleaned, (excluded,))


def test_turn_kinds_follow_the_conversation() -> None:
    history = [('Tell me about "Panagia Podithou".', "Panagia Podithou")]
    assert read_turn("Who founded it?", history).kind == "follow_up"
    assert read_turn("Who founded it?").kind == "standalone"  # nothing to follow
    for vague in ("Tell me more", "What about that?", "And?", "anything else?"):
        assert read_turn(vague, history).kind == "vague", vague
    assert read_turn("Who painted Asinou?", history).kind == "standalone"
    pointing = read_turn("Other than this one, which churches are in Nicosia District?",
                         history)
    assert pointing.kind == "pivot" and pointing.excluded == ("Panagia Podithou",)
    # "this one" with nothing before it points nowhere: not a pivot
    assert read_turn("Other than this one, which churches are there?").kind == "standalone"


# -- retrieval of each kind of turn -----------------------------------------------------

def test_follow_up_is_retrieved_twice_and_interleaved(pipeline: CrmQueryPipeline,
                                                      record_stages: Any) -> None:
    history = [('Tell me about "Panagia tou Araka".', "Panagia tou Araka")]
    with record_stages() as events:
        answer = pipeline.run("Who painted it?", history)
    assert answer.plan.turn == "follow_up"
    turn = stage(events, "conversation")[0]
    passes = ["Who painted it? Panagia tou Araka", "Who painted it?"]
    assert turn.details["passes"] == passes
    pools = stage(events, "pool")
    assert [p.query for p in pools] == passes
    contextualised, raw = ([c[0] for c in p.candidates] for p in pools)
    merged = [c[0] for c in turn.candidates]
    assert merged == interleave([contextualised, raw])[: len(merged)]
    assert len(merged) == len(set(merged)) == answer.plan.k * 6
    # each pass's best document is in the pool, the raw pass's right after the first
    assert merged[0] == contextualised[0] and raw[0] in merged[:2]
    # scores keep the pool's scale and follow the interleaved order
    scores = [c[2] for c in turn.candidates]
    assert scores == sorted(scores, reverse=True)
    assert ARAKA in uris(answer.nodes)[:3]


def test_a_standalone_question_is_retrieved_once(pipeline: CrmQueryPipeline,
                                                 record_stages: Any) -> None:
    with record_stages() as events:
        answer = pipeline.run("Who founded the church at Asinou?")
    assert answer.plan.turn == "standalone"
    assert stage(events, "conversation")[0].details["passes"] == [answer.plan.query]
    assert len(stage(events, "pool")) == 1


def test_vague_follow_up_is_led_by_the_previous_turn(pipeline: CrmQueryPipeline,
                                                     record_stages: Any) -> None:
    history = [("Who founded the church at Asinou?", "Asinou")]
    with record_stages() as events:
        answer = pipeline.run("Tell me more", history)
    plan = answer.plan
    assert plan.turn == "vague" and plan.lead == ("Who founded the church at Asinou?",)
    passes = stage(events, "conversation")[0].details["passes"]
    assert passes == ["Who founded the church at Asinou?", "Tell me more about Asinou"]
    assert "Tell me more" not in passes  # no pass with the raw words
    lead_pool, _ = stage(events, "pool")
    merged = stage(events, "conversation")[0].candidates
    assert [c[0] for c in merged[: plan.k]] == [c[0] for c in lead_pool.candidates[: plan.k]]
    # the previous answer's entities are in the context, and the answer describes Asinou
    assert {ASINOU, FOUNDER} <= set(uris(answer.nodes))
    # no exact plan for "tell me more": the retrieval answer, saying so
    assert answer.status == "retrieval_only"
    assert answer.answer.removeprefix(RETRIEVAL_NOTE).strip().startswith("Asinou: ")


def test_pivot_keeps_the_excluded_church_out_of_result_and_answer(
        pipeline: CrmQueryPipeline) -> None:
    answer = pipeline.run("Aside from Asinou, which churches are in Nicosia District?")
    plan = answer.plan
    assert (plan.turn, plan.type, plan.excluded) == ("pivot", "enumeration", ("Asinou",))
    assert plan.query == "Which churches are in Nicosia District?"
    assert not [u for u in uris(answer.nodes) if "asinou" in u]
    assert "Asinou" not in answer.answer
    listed = [c for c in NICOSIA_CHURCHES if c in answer.answer]
    assert listed == [c for c in NICOSIA_CHURCHES if "Asinou" not in c]
    counted = pipeline.run("Apart from Asinou, how many churches are in Nicosia District?")
    assert counted.count == 10 and counted.answer.startswith("10 ")
    assert pipeline.run("How many churches are in Nicosia District?").count == 11


def test_other_than_this_one_leaves_out_the_previous_subject(
        demo_index: CrmGraphIndex) -> None:
    chat = demo_index.as_chat_engine()
    chat.chat('Tell me about "Panagia Podithou".')
    reply = chat.chat("Other than this one, which churches are in Nicosia District?")
    assert chat.last is not None and chat.last.plan.excluded == ("Panagia Podithou",)
    assert PODITHOU not in uris(reply.source_nodes)
    assert "Podithou" not in reply.response and "Panagia tou Araka" in reply.response


def test_history_is_bounded_by_a_token_budget(demo_index: CrmGraphIndex) -> None:
    words = str.split
    memory = ConversationMemory(token_budget=12, tokenizer=words)
    memory.add("Who founded the church at Asinou?", "…", "Nikephoros Ischyrios")  # 8 words
    memory.add("Tell me about Panagia Podithou", "…", "Panagia Podithou")  # 7 words
    assert memory.pairs() == [("Tell me about Panagia Podithou", "Panagia Podithou")]
    assert len(memory.messages()) == 4  # the record keeps everything
    # a budget too small for the last turn: the follow-up has nothing to follow
    small = demo_index.as_chat_engine(history_tokens=3)
    small.chat('Tell me about "Panagia tou Araka".')
    small.chat("Who painted it?")
    assert small.last is not None and small.last.plan.turn == "standalone"
    roomy = demo_index.as_chat_engine()
    roomy.chat('Tell me about "Panagia tou Araka".')
    roomy.chat("Who painted it?")
    assert roomy.last is not None and roomy.last.plan.turn == "follow_up"
    roomy.reset()
    assert roomy.chat_history == [] and roomy.last is None


def test_async_retrieval_leaves_the_event_loop_free(pipeline: CrmQueryPipeline) -> None:
    history = [('Tell me about "Panagia tou Araka".', "Panagia tou Araka")]
    plan = pipeline.plan("Who painted it?", history)
    expected = uris(pipeline.retrieve(plan))

    async def retrieve_while_ticking() -> tuple[list[Any], int]:
        ticks = 0
        done = asyncio.Event()

        async def tick() -> None:
            nonlocal ticks
            while not done.is_set():
                ticks += 1
                await asyncio.sleep(0.001)

        ticker = asyncio.create_task(tick())
        nodes = await pipeline.aretrieve(plan)
        done.set()
        await ticker
        return nodes, ticks

    nodes, ticks = asyncio.run(retrieve_while_ticking())
    assert uris(nodes) == expected
    assert ticks >= 5  # the loop kept running while both passes were retrieved


def test_query_engine_is_a_standard_one_over_the_same_parts(
        demo_index: CrmGraphIndex) -> None:
    engine = demo_index.as_query_engine()
    assert isinstance(engine, RetrieverQueryEngine)
    response = engine.query("How many churches are in Nicosia District?")
    assert str(response).startswith("11 churches located in Nicosia District")
    assert all("fr_paths" in n.node.metadata for n in response.source_nodes)
    pivot = asyncio.run(engine.aquery("Aside from Asinou, how many churches are in Nicosia "
                                      "District?"))
    assert str(pivot).startswith("10 ") and ASINOU not in uris(pivot.source_nodes)


# -- sources with their paths -------------------------------------------------------------

def test_sources_carry_the_fr_path_that_brought_them(pipeline: CrmQueryPipeline) -> None:
    answer = pipeline.run("Who founded the church at Asinou?")
    paths = answer.source_paths
    assert paths[T + "place/asinou"] == ["Asinou"]  # what the question names
    founder = paths[FOUNDER]
    assert founder == ["Asinou → P55i currently holds → Panagia Phorbiottissa (Asinou) → "
                       "P108i was produced by → Construction of the Panagia Phorbiottissa, "
                       "Asinou → P14 carried out by → Nikephoros Ischyrios"]
    node = next(n.node for n in answer.nodes if n.node.metadata["uri"] == FOUNDER)
    assert node.metadata["fr_paths"] == founder
    assert "fr_paths" in node.excluded_llm_metadata_keys
    assert "fr_paths" in node.excluded_embed_metadata_keys
    for mode in (MetadataMode.LLM, MetadataMode.EMBED):
        assert "P14 carried out by" not in node.get_content(metadata_mode=mode)
    record = next(r for r in answer.source_records() if r["uri"] == FOUNDER)
    assert record["paths"] == founder and record["triples"]


def test_cli_ask_json_prints_sources_with_paths_and_triples(
        demo_index: CrmGraphIndex, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["ask", "--index", str(demo_index.folder), "--json",
                     "Who founded the church at Asinou?"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "Nikephoros Ischyrios" in data["answer"] and data["turn"] == "standalone"
    founder = next(s for s in data["sources"] if s["uri"] == FOUNDER)
    assert founder["paths"][0].endswith("P14 carried out by → Nikephoros Ischyrios")
    assert [T + "production/asinou-construction",
            "http://www.cidoc-crm.org/cidoc-crm/P14_carried_out_by", FOUNDER] \
        in founder["triples"]


# -- the console and the examples ---------------------------------------------------------

def test_chat_console_commands(demo_index: CrmGraphIndex) -> None:
    out = io.StringIO()
    console = ChatConsole(demo_index.as_chat_engine(), out=out)
    console.run(["/sources", "Who founded the church at Asinou?", "Who paid for it?",
                 "/sources", "/context", "/reset", "/nonsense", "/quit", "never asked"])
    text = out.getvalue()
    assert "No answer yet" in text
    assert "path: Asinou → P55i currently holds → Panagia Phorbiottissa (Asinou)" in text
    assert "triple: Construction of the Panagia Phorbiottissa, Asinou → carried out by → " \
           "Nikephoros Ischyrios" in text
    assert "Facts:" in text  # the context
    assert "Conversation reset." in text and "Unknown command /nonsense" in text
    assert "never asked" not in text
    assert console.engine.memory.turns == []


def load_example(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_examples_chat_answers_piped_questions(demo_index: CrmGraphIndex,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    chat = load_example("chat")
    monkeypatch.setattr(sys, "stdin", io.StringIO(
        "Who founded the church at Asinou?\nWho paid for it?\n/sources\n"))
    out = io.StringIO()
    with redirect_stdout(out):
        assert chat.main(["--index", str(demo_index.folder)]) == 0
    text = out.getvalue()
    assert "> Who paid for it?" in text and "Nikephoros Ischyrios" in text
    assert "path: " in text and "P14 carried out by" in text


def test_compose_example_answers_from_notes_and_graph(demo_index: CrmGraphIndex) -> None:
    compose = load_example("compose_in_existing_app")
    out = io.StringIO()
    with redirect_stdout(out):
        assert compose.main(["--index", str(demo_index.folder)]) == 0
    churches, notes = out.getvalue().split("Q: ")[1:]
    answer = churches.splitlines()[1]
    assert answer.startswith("A: 11 churches located in Nicosia District")
    assert all(church in answer for church in NICOSIA_CHURCHES)
    # the application's own note answers the visitor's question, next to graph documents
    assert "Access to Asinou: " in notes and "(guide's notes)" in notes
    assert "A: (No exact plan for this question" in notes  # retrieval answers, and says so
    assert "(https://example.org/troodos/" in notes
