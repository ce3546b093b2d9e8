"""Comparisons between two named nodes (``exact/compare.py``): "who was born first, A or
B?", "which is older, X or Y?", "who was in more exhibitions, A or B?", in English, German
and French, over the small exhibition history of ``tests/data/exhibitions.ttl`` with a few
people and works added (a day of birth, a year of birth, two makers)."""

from __future__ import annotations

from pathlib import Path

import pytest
from answerers import built

from llama_index_crm.exact.answerer import ExactAnswerer

EXHIBITIONS = Path(__file__).parent / "data" / "exhibitions.ttl"

MORE = r"""
ex:p8 a crm:E21_Person ; rdfs:label "Hugo Reis" ; crm:P98i_was_born ex:p8birth ;
    crm:P100i_died_in ex:p8death .
ex:p8birth a crm:E67_Birth ; crm:P4_has_time-span ex:p8birthts .
ex:p8birthts a crm:E52_Time-Span ;
    crm:P82a_begin_of_the_begin "1890-05-03T00:00:00"^^xsd:dateTime ;
    crm:P82b_end_of_the_end "1890-05-03T23:59:59"^^xsd:dateTime .
ex:p8death a crm:E69_Death ; crm:P4_has_time-span ex:p8deathts .
ex:p8deathts a crm:E52_Time-Span ;
    crm:P82a_begin_of_the_begin "1950-02-01T00:00:00"^^xsd:dateTime ;
    crm:P82b_end_of_the_end "1950-02-01T23:59:59"^^xsd:dateTime .
# born in 1890, no day given: the day Hugo Reis was born lies within it
ex:p9 a crm:E21_Person ; rdfs:label "Lea Roth" ; crm:P98i_was_born ex:p9birth .
ex:p9birth a crm:E67_Birth ; crm:P4_has_time-span ex:p9birthts .
ex:p9birthts a crm:E52_Time-Span ;
    crm:P82a_begin_of_the_begin "1890-01-01T00:00:00"^^xsd:dateTime ;
    crm:P82b_end_of_the_end "1890-12-31T23:59:59"^^xsd:dateTime .

ex:w1 a crm:E22_Human-Made_Object ; rdfs:label "Harbour Morning" ;
    crm:P108i_was_produced_by ex:w1prod .
ex:w1prod a crm:E12_Production ; crm:P14_carried_out_by ex:p8 ;
    crm:P4_has_time-span ex:w1ts .
ex:w1ts a crm:E52_Time-Span ;
    crm:P82a_begin_of_the_begin "1920-01-01T00:00:00"^^xsd:dateTime ;
    crm:P82b_end_of_the_end "1920-12-31T23:59:59"^^xsd:dateTime .
ex:w2 a crm:E22_Human-Made_Object ; rdfs:label "Quiet Orchard" ;
    crm:P108i_was_produced_by ex:w2prod .
ex:w2prod a crm:E12_Production ; crm:P14_carried_out_by ex:p8 .
ex:w3 a crm:E22_Human-Made_Object ; rdfs:label "Winter Field" ;
    crm:P108i_was_produced_by ex:w3prod .
ex:w3prod a crm:E12_Production ; crm:P14_carried_out_by ex:p9 ;
    crm:P4_has_time-span ex:w3ts .
ex:w3ts a crm:E52_Time-Span ;
    crm:P82a_begin_of_the_begin "1915-01-01T00:00:00"^^xsd:dateTime ;
    crm:P82b_end_of_the_end "1915-12-31T23:59:59"^^xsd:dateTime .
# dates as a museum dump wrote them: "1926\n1928-01-01" (two years in one literal)
ex:w4 a crm:E22_Human-Made_Object ; rdfs:label "Plains Camp" ;
    crm:P108i_was_produced_by ex:w4prod .
ex:w4prod a crm:E12_Production ; crm:P14_carried_out_by ex:p9 ;
    crm:P4_has_time-span ex:w4ts .
ex:w4ts a crm:E52_Time-Span ;
    crm:P82a_begin_of_the_begin "1926\n1928-01-01" ;
    crm:P82b_end_of_the_end "1926\n1928-31-12" .
ex:w5 a crm:E22_Human-Made_Object ; rdfs:label "Night Camp" ;
    crm:P108i_was_produced_by ex:w5prod .
ex:w5prod a crm:E12_Production ; crm:P14_carried_out_by ex:p8 ;
    crm:P4_has_time-span ex:w5ts .
ex:w5ts a crm:E52_Time-Span ;
    crm:P82a_begin_of_the_begin "1927-01-01"^^xsd:date ;
    crm:P82b_end_of_the_end "1927-12-31"^^xsd:date .
"""


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory, models_cache: Path) -> ExactAnswerer:
    return built(tmp_path_factory, "compare", EXHIBITIONS, MORE)


def labels(answer: object) -> list[str]:
    return [str(item["label"]) for item in getattr(answer, "items", [])]


@pytest.mark.parametrize("question", [
    "Who was born first, Anna Berg or Hugo Reis?",
    "Who is older, Anna Berg or Hugo Reis?",
    "Was Anna Berg or Hugo Reis born earlier?",
    "Wer wurde zuerst geboren, Anna Berg oder Hugo Reis?",
    "Qui est né le premier, Anna Berg ou Hugo Reis ?",
])
def test_the_earlier_date_is_named_with_both(graph: ExactAnswerer, question: str) -> None:
    answer = graph.answer(question)
    assert answer.status == "answered", answer.plan_text
    assert answer.text.startswith("Hugo Reis, with the earlier date of birth")
    assert "1890" in answer.text and "1900" in answer.text
    assert labels(answer) == ["Anna Berg", "Hugo Reis"] and answer.count is None
    assert answer.understanding is not None and answer.understanding.complete
    assert any("Hugo Reis" in line for line in answer.evidence)


def test_the_later_date_when_asked_for(graph: ExactAnswerer) -> None:
    answer = graph.answer("Who is younger, Hugo Reis or Anna Berg?")
    assert answer.status == "answered" and answer.text.startswith("Anna Berg, with the later")
    made = graph.answer("Which is older, Harbour Morning or Winter Field?")
    assert made.status == "answered", made.plan_text
    assert made.text.startswith("Winter Field, with the earlier date of making")


def test_a_date_written_with_two_years_spans_both(graph: ExactAnswerer) -> None:
    # "1926\n1928-01-01" to "1926\n1928-31-12": 1926 to 1928, which 1927 lies within
    overlap = graph.answer("Which is older, Plains Camp or Night Camp?")
    assert overlap.status == "answered", overlap.plan_text
    assert "Plains Camp (1926–1928)" in overlap.text and "overlap" in overlap.text
    earlier = graph.answer("Which is older, Plains Camp or Winter Field?")
    assert earlier.text.startswith("Winter Field, with the earlier date of making")


def test_the_same_date_is_a_tie_and_overlapping_dates_settle_nothing(
        graph: ExactAnswerer) -> None:
    tie = graph.answer("Who was born first, Anna Berg or Otto Pohl?")
    assert tie.status == "answered", tie.plan_text
    assert "same date in the graph (1900)" in tie.text and "does not tell" in tie.text
    assert labels(tie) == ["Anna Berg", "Otto Pohl"]
    # 1890 against 3 May 1890: neither is said to be first
    overlap = graph.answer("Who was born first, Lea Roth or Hugo Reis?")
    assert overlap.status == "answered", overlap.plan_text
    assert "overlap" in overlap.text and "1890-05-03" in overlap.text
    assert not overlap.text.startswith(("Lea Roth,", "Hugo Reis,"))


@pytest.mark.parametrize(("question", "first", "counts"), [
    ("Who was shown in more exhibitions, Eva Falk or Anna Berg?", "Anna Berg, with more (3 ",
     [1, 3]),
    ("Who took part in fewer exhibitions, Anna Berg or Carl Dorn?",
     "Carl Dorn, with fewer (2 ", [3, 2]),
    ("Did Greta Hahn or Karl Lenz direct more exhibitions?", "Greta Hahn, with more (2 ",
     [2, 1]),
    ("Wer hat mehr Ausstellungen geleitet, Karl Lenz oder Greta Hahn?",
     "Greta Hahn, with more (2 ", [1, 2]),
    ("Who has more works here, Lea Roth or Hugo Reis?", "Hugo Reis, with more (3 ", [2, 3]),
    ("Qui a le plus d'œuvres, Lea Roth ou Hugo Reis ?", "Hugo Reis, with more (3 ", [2, 3]),
])
def test_the_larger_count_is_named_with_both(graph: ExactAnswerer, question: str,
                                             first: str, counts: list[int]) -> None:
    answer = graph.answer(question)
    assert answer.status == "answered", answer.plan_text
    assert answer.text.startswith(first), answer.text
    assert answer.count is None
    assert [item["count"] for item in answer.items] == counts  # in the order asked


def test_the_same_count_is_a_tie(graph: ExactAnswerer) -> None:
    answer = graph.answer("Who was shown in more exhibitions, Eva Falk or Ivan Jung?")
    assert answer.status == "answered", answer.plan_text
    assert answer.text.startswith("Eva Falk and Ivan Jung are tied, with 1 each")


def test_no_comparison_without_both_values(graph: ExactAnswerer) -> None:
    # Anna Berg's death is not recorded: nothing is compared, and retrieval says why
    answer = graph.answer("Who died earlier, Anna Berg or Hugo Reis?")
    assert answer.status == "retrieval_only"
    assert "comparison" in answer.plan_text and "not made" in answer.plan_text


def test_an_unknown_name_or_two_kinds_are_no_comparison(graph: ExactAnswerer) -> None:
    unknown = graph.answer("Who was born first, Anna Berg or Zoltan Quabbe?")
    assert unknown.status != "answered" and "comparison" not in unknown.plan_text
    kinds = graph.answer("Which is older, Anna Berg or Three Painters?")
    assert kinds.status != "answered" or "with the" not in kinds.text
    listed = graph.answer("How many exhibitions was Anna Berg or Carl Dorn in?")
    assert "with more" not in listed.text and "comparison" not in listed.plan_text
