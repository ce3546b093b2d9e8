"""A word missing inside a longer name is judged with the whole name (exact/name_span.py):
"Starry" is one letter from "Ringo Starr", and the graph still has no "The Starry Night";
a near spelling only keeps a name from being proven absent when a name of the graph holds
all of it ("Beatrix Fenton" is read as Beatrice Fenton, "Beatrix Potter" is absent).
Fixture: tests/data/namespans.ttl."""

from __future__ import annotations

from pathlib import Path

import pytest
from answerers import DATA, built

from llama_index_crm.exact.answerer import ExactAnswerer
from llama_index_crm.exact.name_span import agrees, name_span


@pytest.fixture(scope="module")
def names(tmp_path_factory: pytest.TempPathFactory, models_cache: Path) -> ExactAnswerer:
    return built(tmp_path_factory, "namespans", DATA / "namespans.ttl")


def test_the_name_a_word_stands_in() -> None:
    assert name_span("Who painted The Starry Night?", "Starry") == "The Starry Night"
    assert name_span("Where is Van Gogh's The Starry Night?", "Starry") == "The Starry Night"
    assert name_span("Who painted the Girl with a Pearl Earring?", "Earring") == \
        "Girl with a Pearl Earring"
    assert name_span("artists in 'Magiciens de la Terre'", "Magiciens") == \
        "Magiciens de la Terre"
    assert name_span("Where is Van Gogh's The Starry Night?", "Van Gogh") is None
    assert name_span("Who Painted The Starry Night", "Starry") is None  # title case
    # words in lower case stand in no capitalised name; "à" is no English "a"
    assert name_span("Who sculpted the bronze of Martin Luther King Jr. in 1970?",
                     "the bronze") is None
    assert name_span("De quand datent les peintures d'Agios Sozomenos à Galata ?",
                     "Agios Sozomenos") is None


def test_a_name_agrees_only_when_it_holds_every_word() -> None:
    assert not agrees("Beatrix Potter", "John Potter")
    assert agrees("Beatrix Fenton", "Beatrice Fenton")
    assert agrees("The Elk of Vermilion Pass", "Elk of Vermillion Pass")


def test_a_title_sharing_one_word_with_a_work_is_absent(names: ExactAnswerer) -> None:
    answer = names.answer("Who painted The Starry Night?")
    assert answer.status == "not_found" and "“The Starry Night”" in answer.text
    assert names.answer("Where is Van Gogh's The Starry Night?").status == "not_found"
    pearl = names.answer("Who painted the Girl with a Pearl Earring?")
    assert pearl.status == "not_found"  # the graph's term "Earring" is not that name
    control = names.answer("Who painted Night?")
    assert control.status == "answered" and "Will Barnet" in control.text


def test_a_title_tying_two_works_by_one_word_is_absent(names: ExactAnswerer) -> None:
    # its words name works ("Leopard" twice, "Moose in Moonlight", "In the Snow")
    answer = names.answer("Who painted Snow Leopard in Moonlight?")
    assert answer.status == "not_found" and "“Snow Leopard" in answer.text
    assert names.answer("Who painted Leopard?").status == "ambiguous"  # both are "Leopard"


def test_a_person_sharing_a_surname_is_not_the_person_asked(names: ExactAnswerer) -> None:
    answer = names.answer("When was Beatrix Potter born?")
    assert answer.status == "not_found" and "“Beatrix Potter”" in answer.text
    # the graph's "Marguerite" (a person) is not the "Marguerite Ostervald" asked about
    assert names.answer("Who painted Marguerite Ostervald?").status == "not_found"
    assert names.answer("Who painted Marguerite?").status != "not_found"
    misspelt = names.answer("When was Beatrix Fenton born?")
    assert misspelt.status == "answered" and "1887" in misspelt.text


def test_a_foreign_question_names_a_person_by_an_unknown_surname(names: ExactAnswerer) -> None:
    answer = names.answer("Quali opere di Tomas Ekwall possiede il museo?")
    assert answer.status == "not_found"  # a "Thomas" in the graph, no name near "Ekwall"
    known = names.answer("¿Dónde nació Federico Remington?")
    assert known.status == "answered" and "Canton" in known.text


def test_a_capitalised_german_word_after_a_class_noun_or_in_is_a_name(
        names: ExactAnswerer) -> None:
    assert names.answer("Wer hat die Kirche Kykkos gebaut?").status == "not_found"
    assert names.answer("Welche Kirchen gibt es in Kiti?").status == "not_found"
    found = names.answer("Welche Kirchen gibt es in Kakopetria?")
    assert found.status == "answered" and "Saint Nicholas" in found.text


def test_slips_of_ordinary_words_are_no_names(names: ExactAnswerer) -> None:
    listed = names.answer("can you lsit Will Barnet's works")
    assert listed.status == "answered" and "“Night”" in listed.text
    assert names.answer("how many works are ther by Ringo Starr").status != "not_found"
    assert names.answer("pls list the works of Will Barnet").status == "answered"
    counted = names.answer("how many paintigns by Will Barnet")
    assert counted.status == "answered" and counted.count == 1
    # a noun read one key away that finds nothing proves nothing
    assert names.answer("how many paintigns by Ringo Starr").status == "retrieval_only"


def test_what_a_plan_cannot_say_is_left_unexplained(names: ExactAnswerer) -> None:
    mirrored = names.answer("how many works did Will Barnet make of himself")
    assert mirrored.status == "retrieval_only" and mirrored.count is None
    earliest = names.answer("What is the earliest Frederic Remington work?")
    assert earliest.status == "answered" and "“The Bronco Buster”" in earliest.text
    assert "“The Rattlesnake”" not in earliest.text


def test_a_question_word_is_answered_by_the_plans_answer(names: ExactAnswerer) -> None:
    answer = names.answer("Frederic Remington was born where?")
    assert answer.status == "answered" and "Canton" in answer.text
    answer = names.answer("the maker of The Bronco Buster was born where?")
    assert answer.status == "answered" and "Canton" in answer.text


def test_what_a_question_tells_before_it_asks_is_no_part_of_it(names: ExactAnswerer) -> None:
    other = names.answer("I liked The Bronco Buster a lot - what else do you have by the "
                         "same artist?")
    assert other.status == "answered" and "“The Rattlesnake”" in other.text
    counted = names.answer("My grandmother loved Frederic Remington. How many Remingtons "
                           "does the museum have?")
    assert counted.status == "answered" and counted.count == 2
    # a time told first is part of what is asked: not read past
    dated = names.answer("I love the 1890s. How many works by Frederic Remington?")
    assert dated.count != 2


def test_a_shared_surname_whose_readings_agree_is_no_tie(names: ExactAnswerer) -> None:
    # a Ken Bunn and a Kenneth R. Bunn (one man recorded twice): both readings say 1997
    answer = names.answer("When was The Sneak by Bunn made?")
    assert answer.status == "answered" and "1997" in answer.text
    assert "names 2 people here" in answer.text
    one = names.answer("When was Starr's Pier by Potter made?")  # the maker settles it
    assert one.status == "answered" and "1950" in one.text


def test_a_person_named_by_initials_is_the_person(names: ExactAnswerer) -> None:
    for asked in ("How many works by F. Remington?", "How many works by K. R. Bunn?",
                  "How many works by K. Bunn?"):
        answer = names.answer(asked)
        assert answer.status != "not_found", asked
    assert names.answer("How many works by F. Remington?").count == 2
    assert names.answer("How many works by K. R. Bunn?").count == 1


def test_words_ending_a_persons_name_ask_for_the_person_not_titles(
        names: ExactAnswerer) -> None:
    answer = names.answer("Which is the first work of McKnight Kauffer in the collection?")
    assert answer.status == "answered" and "“Aster Time”" in answer.text
    assert "Archive" not in answer.text


def test_a_type_labelled_other_is_no_reading_of_other_works(names: ExactAnswerer) -> None:
    answer = names.answer("which other works were made by the maker of The Bronco Buster?")
    assert answer.status == "answered" and "“The Rattlesnake”" in answer.text


def test_no_work_is_of_a_time_before_its_maker_was_born(names: ExactAnswerer) -> None:
    # Beatrice Fenton, born 1887: one work dated 1920, one undated
    before = names.answer("How many works did Beatrice Fenton make in the 1850s?")
    assert before.status == "answered" and before.count == 0
    after = names.answer("How many works did Beatrice Fenton make in the 1950s?")
    assert after.count != 0 and after.status == "retrieval_only"  # the undated one may be
    assert names.answer("How many works did Beatrice Fenton make in the 1920s?").count == 1


def test_a_name_spelt_otherwise_beside_a_foreign_word_is_not_proven_absent(
        names: ExactAnswerer) -> None:
    answer = names.answer("Frederik Remington - Geburtsjahr?")
    assert answer.status != "not_found" and answer.count is None, answer.text


def test_sitters_by_an_artist_are_no_proof_that_none_depicts_the_artist(
        names: ExactAnswerer) -> None:
    # Will Barnet made "Night" and is depicted by nothing: "by" names his works
    for question in ("List the sitters portrayed by Will Barnet.",
                     "List the sitters that Will Barnet portrayed."):
        answer = names.answer(question)
        assert answer.count != 0 and "no works depicting" not in answer.text, answer.text
    assert names.answer("how many works depict Will Barnet?").count == 0  # asked so: none


def test_a_name_that_titles_portraits_also_names_the_person_they_depict(
        names: ExactAnswerer) -> None:
    # two works are titled "Ulysses S. Grant" and depict Ulysses Simpson Grant (not his
    # son, "… Grant, Jr."): no work depicts a work, so the portraits are the person's
    latest = names.answer("most recent portrait of Ulysses S. Grant")
    assert latest.status == "answered" and "“Grant and His Generals”" in latest.text
    assert "Ulysses Simpson Grant" in latest.text and "Jr" not in latest.text
    count = names.answer("how many portraits of Ulysses S. Grant are there?")
    assert count.status == "answered" and count.count == 3, count.text


def test_a_tie_of_works_titled_alike_is_read_as_the_person_the_name_also_names(
        names: ExactAnswerer) -> None:
    # two works titled "Jeff Bezos", and the person Jeffrey P. Bezos: a birthplace or the
    # portraits of him are the person's; what made the works is still asked back
    born = names.answer("jeff bezos birthplace")
    assert born.status == "answered" and "Albuquerque" in born.text, born.text
    count = names.answer("How many portraits of Jeff Bezos are in the collection?")
    assert count.status == "answered" and count.count == 3, count.text
    assert names.answer("who made Jeff Bezos").status == "ambiguous"


def test_works_of_a_type_are_left_out_when_the_question_says_not(
        names: ExactAnswerer) -> None:
    # Will Barnet made one painting ("Night"), two prints and an untyped "Leopard"
    listed = names.answer("works by Will Barnet that aren't paintings")
    assert listed.status == "answered" and listed.count is None
    assert "“Woman Reading”" in listed.text and "“Leopard”" in listed.text
    assert "“Night”" not in listed.text and "1 painting left out" in listed.text
    counted = names.answer("How many of Will Barnet's works are not prints?")
    assert counted.status == "answered" and counted.count == 2, counted.text


def test_names_that_are_no_one_missing_name_are_not_proven_absent(
        names: ExactAnswerer) -> None:
    # the first words of a firm's name; two names parted by a comma; a name beside the
    # first word of a type of two words
    for question in ("works by Nagel & Weingaertner",
                     "Remington, Fenton or Kelly: who was born first?",
                     "kelly planographic prints",
                     "¿Cuántas obras se hicieron en Cabo Cañaveral?"):  # Cape, translated
        answer = names.answer(question)
        assert answer.status != "not_found", (question, answer.text)
    firm = names.answer("works by Nagel & Weingaertner")
    assert firm.status == "answered" and "“Frances Wright”" in firm.text
    # a title's first words are no proof of anything: "Mona Lisa" is absent
    assert names.answer("Who painted the Mona Lisa?").status == "not_found"


@pytest.mark.parametrize("question", [
    "Which of Beatrice Fenton, Thomas Kelly and John Potter was born earliest?",
    "Fenton, Thomas Kelly or John Potter: who was born first?",
    "Beatrice Fenton, John Potter, Thomas Kelly — which one was born earliest?",
])
def test_three_names_are_compared_two_at_a_time(names: ExactAnswerer, question: str) -> None:
    # born 1887, 1870 and 1900
    answer = names.answer(question)
    assert answer.status == "answered" and answer.text.startswith("Thomas Kelly"), answer.text
    assert "1887" in answer.text and "1900" in answer.text


def test_a_tie_among_three_names_crowns_no_one(names: ExactAnswerer) -> None:
    # Beatrice Fenton and Jane Potter were both born in 1887, Thomas Kelly in 1870
    answer = names.answer("Which of Beatrice Fenton, Jane Potter and Thomas Kelly was born last?")
    assert not answer.text.startswith(("Beatrice Fenton,", "Jane Potter,")), answer.text
