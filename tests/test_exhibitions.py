"""Exact answers over an event-centred graph in the Linked Art pattern (tests/data/
exhibitions.ttl): roles read from the graph, dates of opening and closing, facts only a
statement's text holds, a name recorded anew in every record, a broken person reference."""

from __future__ import annotations

import pytest

from llama_index_crm.exact.answerer import ExactAnswer, ExactAnswerer, answerer_for
from llama_index_crm.exact.roles import ROLE_RELATION, role_verbs
from llama_index_crm.index import CrmGraphIndex


@pytest.fixture(scope="module")
def exact(exhibitions_index: CrmGraphIndex) -> ExactAnswerer:
    return answerer_for(exhibitions_index)


def ask(exact: ExactAnswerer, question: str) -> ExactAnswer:
    return exact.answer(question)


def labels(answer: ExactAnswer) -> set[str]:
    return {i["label"] for i in answer.items}


def test_the_roles_the_graph_records_become_relations(exact: ExactAnswerer) -> None:
    roles = {r.id for r in exact.lexicon.values() if r.id.startswith(ROLE_RELATION + ":")}
    assert roles == {f"{ROLE_RELATION}:artist", f"{ROLE_RELATION}:director"}
    assert "directed" in role_verbs("Director") and "curated" in role_verbs("Curator")
    directed = ask(exact, "who directed Three Painters")
    assert directed.status == "answered" and labels(directed) == {"Greta Hahn"}
    assert ask(exact, "who was the director of Prints Today").items[0]["label"] == "Karl Lenz"
    artists = ask(exact, "how many artists were in Three Painters")
    assert artists.count == 5  # four people and the broken reference: all five are recorded
    anyone = labels(ask(exact, "who took part in Two Sculptors"))
    assert {"Anna Berg", "Greta Hahn"} <= anyone  # every role


def test_a_persons_exhibitions_listed_counted_and_by_role(exact: ExactAnswerer) -> None:
    shown = ask(exact, "which exhibitions was Anna Berg in")  # a stranded preposition
    assert shown.status == "answered"
    assert labels(shown) == {"Three Painters", "Two Sculptors", "Posters"}
    assert ask(exact, "how many exhibitions did Greta Hahn direct").count == 2
    assert ask(exact, "how many exhibitions did Carl Dorn take part in").count == 2


def test_rankings_count_roles_and_leave_out_who_is_no_one(exact: ExactAnswerer) -> None:
    most = ask(exact, "which exhibition had the most artists")
    assert most.status == "answered" and labels(most) == {"Three Painters"}
    busiest = ask(exact, "who took part in the most exhibitions")
    # the broken reference <http://example.org/person/> is in four, but is no one
    assert labels(busiest) == {"Anna Berg"}
    assert "left out" in busiest.text and "records nothing about it" in busiest.text
    assert (ask(exact, "how many artists are there").count or 0) > 0


def test_a_name_recorded_in_every_record_is_one_name(exact: ExactAnswerer) -> None:
    organised = ask(exact, "how many exhibitions did Gallery One organise")
    assert organised.count == 3  # three nodes named so, one per exhibition record
    assert "all taken together" in organised.text
    top = ask(exact, "which organization organized the most exhibitions")
    assert labels(top) == {"Gallery One"} and "recorded as 3" in top.text


def test_opening_closing_and_the_exhibitions_of_a_year(exact: ExactAnswerer) -> None:
    assert "1950-03-01" in ask(exact, "when did Three Painters open").text
    assert "1950-04-30" in ask(exact, "when did Three Painters close").text
    opened = ask(exact, "how many exhibitions opened in 1951")  # typed "Exhibiting"
    assert opened.count == 2


def test_a_fact_only_a_statement_holds_is_quoted_not_denied(exact: ExactAnswerer) -> None:
    dutch = ask(exact, "what nationality was Anna Berg")
    assert dutch.status == "answered" and "Dutch, 1900–1980" in dutch.text
    assert "biography" in dutch.text and "records no nationality" not in dutch.text
    born = ask(exact, "where was Carl Dorn born")
    assert "born Russia" in born.text
    # no statement either: then the absence is said
    assert "records no nationality" in ask(exact, "what nationality was Eva Falk").text
    assert "1900" in ask(exact, "when was Anna Berg born").text
    assert "timespan" not in ask(exact, "when was Anna Berg born").text


def test_names_made_of_question_words_are_names_when_written_so(exact: ExactAnswerer) -> None:
    # "Three Painters", "Gallery One": vocabulary words, capitalised as a name
    assert ask(exact, "when did Three Painters open").status == "answered"
    # in a title-case question the capitals say nothing: not understood, not a wrong list
    headline = ask(exact, "Who Directed Three Painters")
    assert headline.status != "answered" or labels(headline) == {"Greta Hahn"}


def test_readings_that_keep_a_question_from_a_false_absence(exact: ExactAnswerer) -> None:
    # "the Dutch artist": an adjective between an article and a noun is no missing name
    dutch = ask(exact, "when was the Dutch artist Anna Berg born")
    assert dutch.status != "not_found" and dutch.count is None
    # "held at" an organiser: the graph links exhibitions to it as their organiser
    held = ask(exact, "which exhibitions were held at Gallery One")
    assert held.status == "answered"
    assert labels(held) == {"Three Painters", "Two Sculptors", "Prints Today"}
    # an event of a year is one begun in it
    assert ask(exact, "how many exhibitions were there in 1950").count == 1


def test_artists_are_makers_or_holders_of_an_artist_role(exact: ExactAnswerer) -> None:
    # Otto Pohl was born in 1900 too, but took part in nothing: he is no artist (the third
    # blind set's "how many artists were born in the 1920s" counted every actor born then)
    answer = exact.answer("which artists were born in 1900", [])
    assert answer.status == "answered", answer.plan_text
    assert "Anna Berg" in answer.text and "Otto Pohl" not in answer.text
    people = exact.answer("which people were born in 1900", [])
    assert "Otto Pohl" in people.text


def test_a_class_noun_after_the_name_a_misspelt_class_noun_and_the_topic_first(
        exact: ExactAnswerer) -> None:
    from llama_index_crm.query.conversation import inline_topic

    directed = ask(exact, "who directed the Three Painters exhibition")
    assert directed.status == "answered" and labels(directed) == {"Greta Hahn"}
    assert "exhibition named so" in directed.text
    shown = ask(exact, "which exhibitons was Anna Berg in")  # one edit off "exhibitions"
    assert shown.status == "answered", shown.plan_text
    assert labels(shown) == {"Three Painters", "Two Sculptors", "Posters"}
    # a title with a colon, named first and pointed back to: the last separator splits
    assert inline_topic("Prints Today: Part 2 - who directed it?") == (
        "who directed Prints Today: Part 2?", "it", "Prints Today: Part 2")


def test_an_exhibition_is_no_birth(exact: ExactAnswerer) -> None:
    # the event's own relations answer for the thing it made ("who painted <the campaign>"),
    # never for a person's birth: an exhibition has no birth date
    answer = ask(exact, "when was Three Painters born")
    assert answer.status != "answered", answer.text



@pytest.mark.parametrize(("question", "who"), [
    ("who ran the show Three Painters?", {"Greta Hahn"}),
    ("who led Prints Today", {"Karl Lenz"}),
])
def test_everyday_verbs_of_directing(exact: ExactAnswerer, question: str,
                                     who: set[str]) -> None:
    answer = ask(exact, question)
    assert answer.status == "answered", answer.plan_text
    assert labels(answer) == who


def test_a_persons_works_appearing_in_shows_is_the_person_shown(exact: ExactAnswerer) -> None:
    direct = ask(exact, "In which exhibitions was Anna Berg shown?")
    assert direct.status == "answered"
    works = ask(exact, "In which exhibitions did Anna Berg's paintings appear?")
    assert works.status == "answered", works.plan_text
    assert labels(works) == labels(direct)
