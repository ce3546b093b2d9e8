"""Thin-document chaining (``build/chaining.py``): into the richest neighbour as built, never
into a hub or a document already chained away, and the demo graph's chaining as a whole."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from llama_index_crm.build import EntityDocument
from llama_index_crm.build.chaining import chain_thin_documents
from llama_index_crm.build.folder import build_folder
from llama_index_crm.sources import RdfFileSource

DEMO = Path(__file__).resolve().parents[1] / "examples" / "data" / "troodos.ttl"
T = "https://example.org/troodos/"
EX = "http://example.org/"


def _doc(name: str, length: int, category: str = "Thing") -> EntityDocument:
    return EntityDocument(EX + name, name, category, [], "x" * length)


def _chain(docs: list[EntityDocument], links: Mapping[str, Sequence[str]],
           degrees: Mapping[str, int] | None = None) -> dict[str, list[str]]:
    """Chain ``docs`` (``links``: name → neighbour names, both ways); the documents left,
    each with the names chained into it."""
    both: dict[str, list[str]] = {}
    for a, targets in links.items():
        for b in targets:
            both.setdefault(EX + a, []).append(EX + b)
            both.setdefault(EX + b, []).append(EX + a)
    degree = None if degrees is None else (lambda uri: degrees.get(uri.removeprefix(EX), 1))
    left = chain_thin_documents(docs, lambda uri: both.get(uri, []), threshold=400,
                                degree=degree, max_degree=2000)
    return {d.label: [u.removeprefix(EX) for u in d.chained_from] for d in left}


def test_a_thin_document_goes_to_its_richest_neighbour() -> None:
    docs = [_doc("thin", 50), _doc("poor", 500), _doc("rich", 900), _doc("richest", 800)]
    left = _chain(docs, {"thin": ["poor", "rich", "richest"]})
    assert left == {"poor": [], "rich": ["thin"], "richest": []}


def test_richness_is_measured_before_anything_is_appended() -> None:
    """"a" (450 characters) receives the 300-character "first"; "second" still goes to
    "b" (500 as built), not to "a", now the longer of the two."""
    docs = [_doc("first", 300), _doc("second", 350), _doc("a", 450), _doc("b", 500)]
    left = _chain(docs, {"first": ["a"], "second": ["a", "b"]})
    assert left == {"a": ["first"], "b": ["second"]}


def test_a_hub_never_receives_a_thin_document() -> None:
    """The richest neighbour is a hub (a rights statement shared by thousands of images):
    the thin document goes to the next one."""
    docs = [_doc("thin", 50), _doc("hub", 2000), _doc("work", 600)]
    left = _chain(docs, {"thin": ["hub", "work"]}, degrees={"hub": 5000, "work": 40})
    assert left == {"hub": [], "work": ["thin"]}
    # without degrees, the same document goes to the hub (the check is what moved it)
    assert _chain(docs, {"thin": ["hub", "work"]})["hub"] == ["thin"]


def test_nothing_is_chained_into_a_document_already_chained_away() -> None:
    """"tiny" goes first (shortest) into "work"; "small", linked only to "tiny", has no
    eligible neighbour left and stays, so its text is not lost inside a removed document."""
    docs = [_doc("tiny", 10), _doc("small", 100), _doc("work", 600)]
    left = _chain(docs, {"tiny": ["work"], "small": ["tiny"]})
    assert left == {"small": [], "work": ["tiny"]}


def test_people_places_and_events_are_never_chained_away() -> None:
    docs = [_doc("person", 20, "Actor"), _doc("place", 20, "Place"),
            _doc("event", 20, "Event"), _doc("work", 900)]
    left = _chain(docs, {"work": ["person", "place", "event"]})
    assert left == {"person": [], "place": [], "event": [], "work": []}


@pytest.fixture(scope="module")
def demo_chains(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    with RdfFileSource([DEMO]) as source:
        docs, _ = build_folder(source, tmp_path_factory.mktemp("chains") / "index")
    return {d.uri.removeprefix(T): sorted(u.removeprefix(T) for u in d.chained_from)
            for d in docs if d.chained_from}


def test_demo_thin_documents_join_the_documents_they_describe(
        demo_chains: dict[str, list[str]]) -> None:
    """Each of the demo's 12 thin documents in the richest document it is linked to: a
    church's features in the church's, a representation in its character's or its
    iconographic atom's, an attribute in its representation's."""
    assert demo_chains == DEMO_CHAINS


DEMO_CHAINS = {
    "atom/agiasmati-holy-cross-cycle": ["representation/agiasmati-holy-cross-cycle"],
    "atom/pedoulas-donor-portrait": ["representation/pedoulas-donor-portrait"],
    "character/archangels": ["representation/enkleistra-neophytos"],
    "character/christ": ["representation/asinou-communion", "representation/asinou-dormition",
                         "representation/asinou-last-judgement",
                         "representation/podithou-communion"],
    "character/virgin-mary": ["representation/latin-chapel-akathist"],
    "representation/araka-arakiotissa": ["attribute/araka-passion-instruments"],
    "representation/araka-pantokrator": ["attribute/araka-gospel-book"],
    "representation/asinou-donor-portrait": ["attribute/asinou-church-model"],
    "representation/moutoullas-donor-portrait": ["attribute/moutoullas-church-model"],
}
