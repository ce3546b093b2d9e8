"""Thin-document chaining (``build/chaining.py``): into the richest neighbour as built, never
into a hub or a document already chained away, and the demo graph's chaining as a whole."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from llama_index_crm.build import EntityDocument
from llama_index_crm.build.chaining import chain_in_store, chain_thin_documents, plan_in_store
from llama_index_crm.build.folder import build_folder
from llama_index_crm.build.parts import FinalDocuments, document_lengths, document_table
from llama_index_crm.rdf import Literal, Triple
from llama_index_crm.sources import RdfFileSource
from llama_index_crm.storage import TripleStore

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


def _random_graph(seed: int) -> tuple[list[EntityDocument], list[Triple]]:
    """Documents of random lengths (many equal, so that ties are broken by IRI) and
    categories, over a random graph with literals, self-loops, a hub and nodes without a
    document."""
    rng = random.Random(seed)
    nodes = [f"{EX}n{i:03d}" for i in range(120)]
    docs = [EntityDocument(n, n, rng.choice(["Thing", "Thing", "Concept", "Actor"]), [],
                           "x" * rng.choice([10, 50, 50, 120, 390, 401, 900, 900]))
            for n in nodes if rng.random() < 0.8]
    triples = [Triple(rng.choice(nodes), f"{EX}p{rng.randrange(3)}", rng.choice(nodes))
               for _ in range(400)]
    triples += [Triple(n, f"{EX}p0", n) for n in nodes[:10]]  # self-loops
    triples += [Triple(n, f"{EX}name", Literal(f"name {n}")) for n in nodes[::3]]
    triples += [Triple(n, f"{EX}p1", nodes[7]) for n in nodes[:60]]  # nodes[7]: a hub
    return docs, triples


@pytest.mark.parametrize("seed", range(6))
def test_chaining_in_a_store_equals_chaining_by_look_ups(seed: int) -> None:
    """The vectorised chaining (neighbours and degrees of every thin document at once,
    used by builds and updates) leaves the same documents, with the same texts and the
    same chained entities in the same order, as one look-up per document; and it leaves
    the documents it was given as they were."""
    docs, triples = _random_graph(seed)
    store = TripleStore.from_triples(triples)
    texts = [d.text for d in docs]
    by_store = chain_in_store(docs, store, 400, max_degree=40)
    assert [d.text for d in docs] == texts and not any(d.chained_from for d in docs)
    copies = [EntityDocument(d.uri, d.label, d.category, list(d.classes), d.text)
              for d in docs]
    by_look_up = chain_thin_documents(copies, store.neighbours, 400, degree=store.degree,
                                      max_degree=40)
    assert [(d.uri, d.text, d.chained_from) for d in by_store] == \
        [(d.uri, d.text, d.chained_from) for d in by_look_up]
    assert len(by_store) < len(docs)  # something was chained
    assert any(len(d.chained_from) > 1 for d in by_store)


def test_a_self_loop_counts_once_in_the_degree_of_a_store() -> None:
    """A neighbour with exactly ``max_degree`` triples, one of them a self-loop, is not a
    hub (``TripleStore.degree`` counts the loop once); equal lengths go to the smaller
    IRI."""
    thin, rich, tied, other = (EX + n for n in ("thin", "rich", "tied", "other"))
    triples = [Triple(thin, EX + "p", rich), Triple(rich, EX + "p", rich),
               Triple(rich, EX + "q", other), Triple(thin, EX + "p", other),
               Triple(thin, EX + "p", tied)]
    store = TripleStore.from_triples(triples)
    assert store.degree(rich) == 3
    docs = [EntityDocument(u, u, "Thing", [], "x" * n)
            for u, n in ((thin, 10), (rich, 900), (tied, 500), (other, 500))]
    left = {d.uri: d.chained_from for d in chain_in_store(docs, store, 400, max_degree=3)}
    assert left[rich] == [thin]
    left = {d.uri: d.chained_from for d in chain_in_store(docs, store, 400, max_degree=2)}
    assert left[other] == [thin] and left[tied] == []  # "other" < "tied"


@pytest.mark.parametrize("seed", range(3))
def test_final_documents_made_a_slice_at_a_time_equal_the_chained_list(seed: int) -> None:
    """A build's documents come back as Arrow rows and a chaining plan
    (:class:`FinalDocuments`): read in slices of any size, by index or whole, they are
    the documents :func:`chain_in_store` makes of the same list (texts, chained entities
    and their order), with members taken from other slices than their receiver's."""
    docs, triples = _random_graph(seed)
    store = TripleStore.from_triples(triples)
    want = chain_in_store(docs, store, 400, max_degree=40)
    table = document_table(docs)
    plan = plan_in_store(table.column("uri").to_pylist(), document_lengths(table),
                         table.column("category").to_pylist(), store, 400, max_degree=40)
    final = FinalDocuments(table, plan)
    assert len(final) == len(want) < len(docs)
    assert list(final) == want and final == want
    for size in (1, 7, 1000):
        assert [d for batch in final.batches(size) for d in batch] == want
    assert final[3] == want[3] and final[-1] == want[-1] and final[2:9] == want[2:9]
    receivers = [i for i, d in enumerate(want) if d.chained_from]
    assert receivers and all(final[i].text.count("\n\n") >= 1 for i in receivers)
