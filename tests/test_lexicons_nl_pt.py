"""Dutch and Portuguese questions read in the planner's English: the same question in
English, Dutch and Portuguese gets the same answer on the demo graph."""

from __future__ import annotations

import pytest

from llama_index_crm.exact.answerer import ExactAnswer, ExactAnswerer, answerer_for
from llama_index_crm.exact.language import Lexicons
from llama_index_crm.index import CrmGraphIndex

FOUNDER = "Nikephoros Ischyrios"


@pytest.fixture(scope="module")
def exact(demo_index: CrmGraphIndex) -> ExactAnswerer:
    return answerer_for(demo_index)


def ask(exact: ExactAnswerer, question: str) -> ExactAnswer:
    return exact.answer(question, [])


@pytest.mark.parametrize(("question", "code"), [
    ("Wie heeft de kerk van Asinou gesticht?", "nl"),
    ("Hoeveel werken van Carl Rungius heeft het museum?", "nl"),
    ("Waar is Carl Rungius geboren?", "nl"),
    ("Quem fundou a igreja de Asinou?", "pt"),
    ("Quando morreu Carl Rungius?", "pt"),  # "quando" opens Italian questions too
    ("Qual é a nacionalidade de Carl Rungius?", "pt"),  # and "qual"
    ("Quando è stata costruita la chiesa di Asinou?", "it"),
    ("Qual è la chiesa più antica della valle di Marathasa?", "it"),
    ("Wie alt war Carl Rungius, als er starb?", "de"),  # "wie": Dutch "who", German "how"
    ("Wie viele Kirchen gibt es im Bezirk Nikosia?", "de"),
    ("Qui a fondé l'église d'Asinou ?", "fr"),
])
def test_a_question_word_of_several_languages_goes_with_the_others(question: str,
                                                                    code: str) -> None:
    assert Lexicons.default().detect(question) == code


@pytest.mark.parametrize(("code", "question", "english"), [
    ("nl", "Wie heeft de kerk van Asinou gesticht?", "who has founded the church of Asinou?"),
    ("nl", "Hoeveel werken van Carl Rungius heeft het museum?",
     "how many works of Carl Rungius has the museum?"),
    ("nl", "Welke werken werden in de jaren 50 gemaakt?", "which works were made in the 1950s?"),
    ("nl", "Hoeveel werken zijn in de 19de eeuw gemaakt?",
     "how many works are made in the 19th century?"),
    ("nl", "Waar komt Carl Rungius vandaan?", "where was Carl Rungius born?"),
    ("nl", "Hoeveel foto's zijn er?", "how many photographs are there?"),
    ("pt", "Em que ano nasceu Carl Rungius?", "in which year born Carl Rungius?"),
    ("pt", "Quantas obras de Carl Rungius há no museu?",
     "how many works of Carl Rungius are there in the museum?"),
    ("pt", "Que obras foram criadas na década de 1950?", "which works were made in the 1950s?"),
    ("pt", "Quantas obras foram feitas no seculo XIX?",
     "how many works were made in the 19th century?"),
    ("pt", "Quantas exposicoes ha pelo museu?",  # typed without accents
     "how many exhibitions are there by the museum?"),
])
def test_dutch_and_portuguese_words_in_the_planners_english(code: str, question: str,
                                                             english: str) -> None:
    lexicon = Lexicons.default().get(code)
    assert lexicon is not None
    assert lexicon.translate(question) == english


@pytest.mark.parametrize("question", [
    "who founded the church at asinou",
    "Wie heeft de kerk van Asinou gesticht?",
    "Wie stichtte de kerk van Asinou?",
    "Quem fundou a igreja de Asinou?",
])
def test_the_founder_in_three_languages(exact: ExactAnswerer, question: str) -> None:
    answer = ask(exact, question)
    assert answer.status == "answered", (answer.status, answer.plan_text)
    assert FOUNDER in answer.text


@pytest.mark.parametrize("question", [
    "Who painted the church of Lagoudera?",
    "Wie heeft de kerk van Lagoudera geschilderd?",
    "Quem pintou a igreja de Lagoudera?",
])
def test_the_painters_in_three_languages(exact: ExactAnswerer, question: str) -> None:
    answer = ask(exact, question)
    assert answer.status == "answered", (answer.status, answer.plan_text)
    assert "Theodore Apseudes" in answer.text


@pytest.mark.parametrize("question", [
    "When was the church of Asinou built?",
    "Wanneer werd de kerk van Asinou gebouwd?",
    "Wanneer is de kerk van Asinou gebouwd?",
    "Quando foi construída a igreja de Asinou?",
    "Em que ano foi construida a igreja de Asinou?",
])
def test_the_date_of_building_in_three_languages(exact: ExactAnswerer, question: str) -> None:
    answer = ask(exact, question)
    assert answer.status == "answered", (answer.status, answer.plan_text)
    assert "1105" in answer.text


@pytest.mark.parametrize(("question", "count"), [
    ("How many churches are in Nicosia District?", 11),
    ("Hoeveel kerken zijn er in het district Nicosia?", 11),
    ("Quantas igrejas há no distrito de Nicosia?", 11),
    ("how many churches are there in Pitsilia?", 4),
    ("Hoeveel kerken liggen in Pitsilia?", 4),
    ("Quantas igrejas existem em Pitsilia?", 4),
])
def test_counts_agree_in_three_languages(exact: ExactAnswerer, question: str,
                                         count: int) -> None:
    answer = ask(exact, question)
    assert answer.status == "answered" and answer.count == count, answer.text


@pytest.mark.parametrize("question", [
    "Which churches were painted in the 14th century?",
    "Welke kerken werden in de 14e eeuw beschilderd?",
    "Welke kerken zijn in de veertiende eeuw beschilderd?",
    "Que igrejas foram pintadas no século XIV?",
])
def test_churches_painted_in_a_century_in_three_languages(exact: ExactAnswerer,
                                                          question: str) -> None:
    answer = ask(exact, question)
    assert answer.status == "answered" and answer.total == 3, (answer.text, answer.plan_text)
    assert "Saint Nicholas of the Roof" in answer.text


@pytest.mark.parametrize("question", [
    "Where is the Enkleistra of St Neophytos?",
    "Waar ligt de Enkleistra van Sint Neophytos?",
    "Onde fica a Enkleistra de São Neófito?",
])
def test_where_a_place_is_in_three_languages(exact: ExactAnswerer, question: str) -> None:
    answer = ask(exact, question)
    assert answer.status == "answered", answer.plan_text
    assert "Paphos District" in answer.text


@pytest.mark.parametrize("question", [
    "Which churches depict the Virgin Mary?",
    "Welke kerken beelden de Maagd Maria uit?",  # a separable verb
    "Que igrejas representam a Virgem Maria?",
])
def test_what_churches_depict_in_three_languages(exact: ExactAnswerer, question: str) -> None:
    answer = ask(exact, question)
    assert answer.status == "answered" and answer.total == 3, answer.plan_text


@pytest.mark.parametrize(("lang", "question"), [
    ("it", "Quante chiese risalgono agli anni Cinquanta del Novecento?"),
    ("es", "¿Cuántas iglesias son de los años cincuenta?"),
    ("fr", "Combien d'églises datent des années cinquante ?"),
    ("de", "Wie viele Kirchen stammen aus den fünfziger Jahren?"),
])
def test_a_decade_in_words_is_the_decade(lang: str, question: str) -> None:
    lexicon = Lexicons.default().get(lang)
    assert lexicon is not None
    assert "fifties" in lexicon.translate(question, [])
