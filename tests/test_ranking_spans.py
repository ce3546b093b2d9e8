"""A ranking by date over dates of different widths: a work dated only "c. 1940s" is not
said to come before one of 1941, nor one of 1955 after one of the 1950s; precise years are
ranked as before (tests/data/spans.ttl)."""

from __future__ import annotations

from pathlib import Path

import pytest
from answerers import DATA, built

from llama_index_crm.exact.answerer import ExactAnswerer
from llama_index_crm.exact.values import label_span


@pytest.fixture(scope="module")
def spans(tmp_path_factory: pytest.TempPathFactory, models_cache: Path) -> ExactAnswerer:
    return built(tmp_path_factory, "spans", DATA / "spans.ttl")


def test_a_decade_label_is_the_whole_decade() -> None:
    assert label_span("c. 1940s") == (1940, 1949)
    assert label_span("1800s") == (1800, 1899)
    assert label_span("1941") == (1941, 1941)


def test_an_oldest_whose_date_overlaps_anothers_is_not_asserted(spans: ExactAnswerer) -> None:
    answer = spans.answer("What is the oldest work by Ada Finch?")
    assert answer.status == "answered"
    assert "“Crows at the Pier”" in answer.text and "“Sunlit Birches”" in answer.text
    assert "may be" in answer.text and "cannot tell which came first" in answer.text
    assert "“Meadow Larks”" not in answer.text  # 1955 cannot come before the 1940s


def test_a_latest_whose_date_overlaps_a_decade_is_not_asserted(spans: ExactAnswerer) -> None:
    answer = spans.answer("Which is the most recent work by Ada Finch?")
    assert "“Meadow Larks”" in answer.text and "“Dusk on the Marsh”" in answer.text
    assert "cannot tell which came last" in answer.text
    assert "“Sunlit Birches”" not in answer.text


def test_precise_years_are_ranked_without_doubt(spans: ExactAnswerer) -> None:
    answer = spans.answer("What is the oldest work by Bo Wren?")
    assert "“Early Snow”" in answer.text and "“Late Thaw”" not in answer.text
    assert "may be" not in answer.text and "cannot tell" not in answer.text


def test_works_made_in_a_decade_are_dated_by_the_makers_own_act(spans: ExactAnswerer) -> None:
    answer = spans.answer("How many works did Bo Wren make in the 1930s?")
    assert answer.count == 2  # the print after him was made in 1935 by Cy Gull
    assert "1 more are dated in 1930–1939 by another event" in answer.text


def test_works_that_date_from_a_decade_are_dated_by_any_production(spans: ExactAnswerer) -> None:
    answer = spans.answer("How many works by Bo Wren date from the 1930s?")
    assert answer.count == 3 and "“Late Thaw, engraved”" in answer.text
    assert "more are dated" not in answer.text


def test_a_makers_works_of_other_types_are_said_beside_a_typed_count(
        spans: ExactAnswerer) -> None:
    answer = spans.answer("How many paintings by Bo Wren are there?")
    assert answer.count == 2
    assert "besides these, 2 works are typed otherwise (not painting): planographic print (1), " \
        "print (1)" in answer.text


def test_none_of_a_type_is_proven_when_every_work_is_typed_otherwise(
        spans: ExactAnswerer) -> None:
    answer = spans.answer("How many sculptures by Bo Wren are there?")
    assert answer.status == "answered" and answer.count == 0
    assert "4 works are typed otherwise (not sculpture)" in answer.text


def test_none_of_a_type_is_not_proven_over_untyped_works(spans: ExactAnswerer) -> None:
    answer = spans.answer("How many sculptures by Ada Finch are there?")
    assert answer.status == "retrieval_only" and answer.count is None


STATED = """
ex:sunlit crm:P67i_is_referred_to_by ex:credit .
ex:credit a crm:E33_Linguistic_Object ;
    crm:P190_has_symbolic_content "Gift of Ruth Carter Stevenson" .
"""


@pytest.fixture(scope="module")
def stated(tmp_path_factory: pytest.TempPathFactory, models_cache: Path) -> ExactAnswerer:
    return built(tmp_path_factory, "stated", DATA / "spans.ttl", STATED)


@pytest.mark.parametrize("question", ["How many works were given by Ruth Carter Stevenson?",
                                      "When was Ruth Carter Stevenson born?"])
def test_a_name_the_graph_writes_is_not_proven_absent(stated: ExactAnswerer,
                                                      question: str) -> None:
    # a credit line names the donor, though no node does
    assert stated.answer(question).status != "not_found"


def test_a_name_written_nowhere_is_still_absent(stated: ExactAnswerer) -> None:
    assert stated.answer("When was Ottilie Brandhorst born?").status == \
        "not_found"


def test_a_circa_date_is_not_ranked_before_a_year_close_to_it(spans: ExactAnswerer) -> None:
    answer = spans.answer("What is the earliest work by Cy Gull?")
    assert "“Gull Rock”" in answer.text and "“Tern Cove”" in answer.text
    assert "cannot tell which came first" in answer.text
    assert "“Late Thaw, engraved”" not in answer.text  # 1935: surely later


def test_none_of_a_type_is_not_proven_when_a_medium_statement_says_it(
        spans: ExactAnswerer) -> None:
    # "River Ice" is typed a planographic print; its medium statement says lithograph
    answer = spans.answer("How many lithographs by Bo Wren are there?")
    assert answer.count != 0


def test_a_date_that_begins_in_the_period_and_ends_after_it_is_said(
        spans: ExactAnswerer) -> None:
    # "Dusk on the Marsh" is of the 1950s: it may or may not be of 1950-1955
    answer = spans.answer("How many works did Ada Finch make between 1950 and 1955?")
    assert answer.count == 1  # "Meadow Larks", 1955
    assert "1 more are dated from within 1950–1955 to later (“1950s”): not counted" in \
        answer.text


HELD = """
ex:center a crm:E74_Group ; rdfs:label "Harbour Center for Art" .
ex:acq1 a crm:E8_Acquisition ; crm:P24_transferred_title_of ex:early ;
    crm:P22_transferred_title_to ex:center .
ex:acq2 a crm:E8_Acquisition ; crm:P24_transferred_title_of ex:later ;
    crm:P22_transferred_title_to ex:center .
ex:parking a crm:E22_Human-Made_Object ; rdfs:label "Parking at the Harbour Center" .
"""


@pytest.fixture(scope="module")
def held(tmp_path_factory: pytest.TempPathFactory, models_cache: Path) -> ExactAnswerer:
    return built(tmp_path_factory, "held", DATA / "spans.ttl", HELD)


def test_a_word_of_the_institutions_name_is_no_missing_name(held: ExactAnswerer) -> None:
    # "the Center" is the Harbour Center for Art, which acquired the works
    answer = held.answer("How many paintings by Bo Wren does the Center hold?")
    assert answer.status == "answered" and answer.count == 2
    # where "Center" links to nothing, it is still no name the graph lacks
    answer = held.answer("Which other works by the maker of Early Snow does the Center hold?")
    assert answer.status != "not_found"
