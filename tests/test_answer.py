"""The retrieval answer without an LLM (``query/answer.py: structured_answer``), on the demo
graph: what a question gets when no exact plan covers it (here: the exact layer off).

Each filter and the cue-word scoring is checked where it decides the answer."""

from __future__ import annotations

import pytest

from llama_index_crm.index import CrmGraphIndex
from llama_index_crm.query.engine import RETRIEVAL_NOTE, CrmQueryPipeline

T = "https://example.org/troodos/"


@pytest.fixture(scope="module")
def retrieval(demo_index: CrmGraphIndex) -> CrmQueryPipeline:
    return demo_index.as_query_pipeline(exact=False)


def _answer(pipeline: CrmQueryPipeline, question: str) -> str:
    answer = pipeline.run(question)
    assert answer.status == "retrieval_only" and answer.answer.startswith(RETRIEVAL_NOTE)
    return answer.answer.removeprefix(RETRIEVAL_NOTE).strip()


def test_a_list_holds_only_the_target_category(retrieval: CrmQueryPipeline) -> None:
    """Philippos Goul is linked to his works and to the painting campaign (an event) that
    made them; "which works" lists the works alone. No type word of the question matches,
    so the category filter is what decides."""
    assert _answer(retrieval, "Which works did Philippos Goul paint?") == (
        "Philippos Goul: apse of the Holy Cross of Agiasmati; Holy Cross of Agiasmati; "
        "Iconographic Atom of Wall paintings of the Holy Cross of Agiasmati; "
        "naos of the Holy Cross of Agiasmati")


def test_a_count_holds_only_the_type_the_question_names(retrieval: CrmQueryPipeline) -> None:
    """"How many churches": of the 49 things linked to the district, the 10 typed "church",
    not their apses and domes."""
    answer = retrieval.run("How many churches are in Nicosia District?")
    assert answer.count is None  # a retrieval count is never reported as exact
    text = answer.answer.removeprefix(RETRIEVAL_NOTE).strip()
    assert text.startswith("10 (thing linked to Nicosia District): ")
    assert "Galata" not in text and "Kakopetria" not in text  # villages in the district


def test_a_list_keeps_only_the_asked_period(retrieval: CrmQueryPipeline) -> None:
    """Of the district's ten churches, the four whose documents date them in the 1100s."""
    answer = _answer(retrieval,
                     "Which churches in Nicosia District were built in the 12th century?")
    assert answer == ("Nicosia District in 1100–1199: Church of Saint Heraclidius; "
                      "Panagia Phorbiottissa (Asinou); Panagia tou Araka; "
                      "Saint Nicholas of the Roof")


@pytest.mark.parametrize(("question", "first_line"), [
    # "when" looks at creation events and dates, not at the lines that name Asinou
    ("When was the church at Asinou built?",
     "Panagia Phorbiottissa (Asinou): Created in (event): Construction of the Panagia "
     "Phorbiottissa, Asinou (construction, 1105–1106)"),
    ("When was Panagia tou Araka painted?",
     "Panagia tou Araka: Created in (event): Wall paintings of the Panagia tou Araka "
     "(Komnenian style, wall-painting campaign, December 1192)"),
    # "where" looks at places, not at names
    ("Where is Panagia Podithou?",
     "Panagia Podithou: Is/was located in (place): Galata (village) — within: Cyprus"),
])
def test_cue_words_pick_the_line_that_answers(retrieval: CrmQueryPipeline, question: str,
                                              first_line: str) -> None:
    assert _answer(retrieval, question).splitlines()[0].startswith(first_line)
