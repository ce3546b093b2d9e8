"""What a new user meets first: an empty question, a stray Enter in chat, a pronoun with
nothing to point to or pointing at the wrong kind of thing, sources out of order, debug
lines in the demo's output."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from llama_index_crm.cli import main as cli_main
from llama_index_crm.index import CrmGraphIndex
from llama_index_crm.query.console import ChatConsole
from llama_index_crm.query.conversation import inline_topic

ROOT = Path(__file__).resolve().parents[1]
FOUNDER_QUESTION = "Who founded the church at Asinou?"


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli_main(argv)
    return code, out.getvalue(), err.getvalue()


# -- an empty question ---------------------------------------------------------------------

@pytest.mark.parametrize("blank", ["", "   ", "\t\n"])
def test_an_empty_question_is_a_value_error(demo_index: CrmGraphIndex, blank: str) -> None:
    with pytest.raises(ValueError, match="empty"):
        demo_index.ask(blank)
    with pytest.raises(ValueError, match="empty"):
        demo_index.as_query_pipeline().run(blank)
    with pytest.raises(ValueError, match="empty"):
        demo_index.as_query_engine().query(blank)
    with pytest.raises(ValueError, match="empty"):
        demo_index.as_chat_engine().chat(blank)


def test_an_empty_question_is_rc_2_in_the_cli(demo_index: CrmGraphIndex, tmp_path: Path) -> None:
    code, printed, err = _cli(["ask", "--index", str(demo_index.folder), "  "])
    assert code == 2 and not printed and "empty" in err
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"id": "a", "question": FOUNDER_QUESTION}) + "\n"
                         + json.dumps({"id": "b", "question": " "}) + "\n")
    out = tmp_path / "r.jsonl"
    code, _, err = _cli(["query", "--index", str(demo_index.folder), "--questions",
                         str(questions), "--out", str(out)])
    assert code == 2 and "id b" in err and not out.exists()  # nothing half-written


# -- chat --------------------------------------------------------------------------------------

def test_chat_ignores_empty_lines_and_ends_on_quit_or_eof(demo_index: CrmGraphIndex) -> None:
    out = io.StringIO()
    console = ChatConsole(demo_index.as_chat_engine(), out=out)
    assert console.run(["", FOUNDER_QUESTION, "   ", "", "Where is Panagia Podithou?",
                        "/quit", "Which churches are in villages?"]) == 0
    said = out.getvalue()
    assert "Nikephoros Ischyrios" in said and "located in Galata" in said
    assert "villages" not in said  # after /quit
    echoed = [line for line in said.splitlines() if line.startswith(">")]
    assert echoed == [f"> {FOUNDER_QUESTION}", "> Where is Panagia Podithou?", "> /quit"]
    out = io.StringIO()
    assert ChatConsole(demo_index.as_chat_engine(), out=out).run([FOUNDER_QUESTION]) == 0
    assert "Nikephoros Ischyrios" in out.getvalue()  # the end of input ends it


def test_cli_chat_survives_a_stray_enter(demo_index: CrmGraphIndex,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"\n{FOUNDER_QUESTION}\n\n/quit\n"))
    code, printed, _ = _cli(["chat", "--index", str(demo_index.folder)])
    assert code == 0 and "Nikephoros Ischyrios" in printed


# -- pronouns ----------------------------------------------------------------------------------

def test_a_pronoun_with_nothing_to_refer_to_asks_back(demo_index: CrmGraphIndex) -> None:
    chat = demo_index.as_chat_engine()
    for question in ("Who made it?", "When was he born?"):
        reply = chat.chat(question).response
        assert chat.last is not None and chat.last.status == "ambiguous", reply
        assert reply.startswith("What does “") and "refer to" in reply
        chat.reset()
    chat.chat(FOUNDER_QUESTION)
    chat.reset()  # /reset: nothing earlier any more
    assert chat.chat("Who made it?").response.startswith("What does “it” refer to?")
    # with something before it, it points back as before
    chat.chat(FOUNDER_QUESTION)
    assert "Nikephoros Ischyrios" in chat.chat("Who paid for it?").response


@pytest.mark.parametrize("question", [
    "the holy cross of agiasmati - who painted it?",
    "Holy Cross of Agiasmati: who painted it?",
])
def test_a_pronoun_pointing_to_a_topic_named_first_in_the_question(
        demo_index: CrmGraphIndex, question: str) -> None:
    # "the sculptor of T - where was he born?" asked back "What does “he” refer to?"
    chat = demo_index.as_chat_engine()
    reply = chat.chat(question).response
    assert chat.last is not None and chat.last.status == "answered", reply
    assert "Philippos Goul" in reply
    # the reading itself: the topic stands where the pronoun stood
    assert inline_topic("the sculptor of two cougars - where was he born?") == (
        "where was the sculptor of two cougars born?", "he", "the sculptor of two cougars")
    assert inline_topic("Dirty Dancing: who is in its cast?") == (
        "who is in Dirty Dancing's cast?", "its", "Dirty Dancing")
    assert inline_topic("who made it?") is None


def test_a_pronoun_prefers_the_kind_the_relation_needs(demo_index: CrmGraphIndex) -> None:
    """"the church at lagoudera": the church, a work, is what was made, not the village."""
    chat = demo_index.as_chat_engine()
    first = chat.chat("Tell me about the church at lagoudera").response
    assert "Panagia tou Araka" in first
    made = chat.chat("Who made it?").response
    assert chat.last is not None and chat.last.status == "answered", made
    assert "Panagia tou Araka" in made and "Leon Authentes" in made
    assert "1192" in chat.chat("When was it built?").response


# -- sources, output -------------------------------------------------------------------------

def test_retrieved_is_ordered_by_score(demo_index: CrmGraphIndex) -> None:
    pipeline = demo_index.as_query_pipeline()
    for question in (FOUNDER_QUESTION, "Which churches are in the Troodos mountains?",
                     "Which churches were painted in the 15th century?"):
        scores = [r["score"] for r in pipeline.run(question).retrieved()]
        assert len(scores) > 3 and scores == sorted(scores, reverse=True), scores


def test_the_demo_prints_no_debug_lines(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "demo.py"),
                           "--out", str(tmp_path / "troodos")],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = (done.stdout + done.stderr).splitlines()
    assert "Nikephoros Ischyrios" in done.stdout  # it answered
    debug = [line for line in lines if "DEBUG" in line]
    assert not debug, debug
