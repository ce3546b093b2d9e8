"""FR paths compiled into SPARQL give the same targets as the in-memory walker."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import SHARED, requires_shared

from llama_index_crm.build.neighbourhood import Neighbourhood
from llama_index_crm.build.traversal import FRWalker
from llama_index_crm.ontology import Ontology, step_from_json
from llama_index_crm.sources import RdfFileSource, SparqlEndpointSource
from llama_index_crm.sources.fr_sparql import (
    FRQueryCompiler,
    Granularity,
    GraphVocabulary,
    Select,
    endpoint_select,
    fr_matches,
    store_select,
)

ONTO = Ontology.default()
TROODOS = Path(__file__).resolve().parents[1] / "examples" / "data" / "troodos.ttl"
YCBA_SAMPLE = SHARED / "datasets" / "ycba" / "ycba_sample_150.nt.gz"
GRANULARITIES: tuple[Granularity, ...] = ("path", "fr", "category")

Targets = dict[str, dict[str, set[str]]]

# Allen relations (repeated all_of), a symmetric property, Erlangen and CRM 5 names, a
# class constraint, skos:Concept as a type, an end node in two categories, a blank node.
SYNTHETIC_TTL = """\
@prefix crm: <http://www.cidoc-crm.org/cidoc-crm/> .
@prefix ecrm: <http://erlangen-crm.org/current/> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix ex: <http://example.org/> .

ex:e1 a crm:E7_Activity ; crm:P176i_starts_after_the_start_of ex:e2 ;
    ecrm:P185_ends_before_the_end_of ex:e2 ; crm:P176i_starts_after_the_start_of ex:e4 ;
    crm:P125_used_object_of_type ex:chisel ; crm:P9_consists_of ex:e5 .
ex:e2 a crm:E5_Event ; crm:P176i_starts_after_the_start_of ex:e3 ;
    crm:P185_ends_before_the_end_of ex:e3 .
ex:e3 a crm:E5_Event .
ex:e4 a crm:E5_Event .
ex:e5 a crm:E7_Activity ; crm:P125_used_object_of_type [ a crm:E55_Type ] ;
    crm:P16_used_specific_object ex:both .
ex:chisel a skos:Concept .
ex:p1 a crm:E53_Place ; crm:P122_borders_with ex:p2 .
ex:p2 a crm:E53_Place ; crm:P89_falls_within ex:p3 .
ex:p3 a crm:E53_Place .
ex:obj a ecrm:E22_Man-Made_Object ; ecrm:P24i_changed_ownership_through ex:acq ;
    crm:P46i_forms_part_of ex:whole .
ex:whole a crm:E22_Human-Made_Object ; crm:P108i_was_produced_by ex:prod .
ex:prod a crm:E12_Production ; crm:P14_carried_out_by ex:maker ; crm:P7_took_place_at ex:p3 .
ex:maker a crm:E21_Person .
ex:acq a crm:E8_Acquisition ; crm:P7_took_place_at ex:p1 .
ex:text a crm:E73_Information_Object ; crm:P24i_changed_ownership_through ex:acq ;
    crm:P67_refers_to ex:both , ex:obj .
ex:both a crm:E22_Human-Made_Object , crm:E21_Person .
"""


def _walker_targets(source: RdfFileSource) -> tuple[Targets, dict[str, list[str]]]:
    """The walker's FR targets over a neighbourhood holding the whole graph."""
    select = store_select(source.store)
    subjects = [r[0] for r in select("SELECT DISTINCT ?s WHERE { ?s ?p ?o }", ("s",))]
    triples = source.fetch([s for s in subjects if isinstance(s, str)], incoming=False)
    nodes = {t.s for t in triples} | {t.o for t in triples if isinstance(t.o, str)}
    nb = Neighbourhood(ONTO)
    nb.add(triples, complete=nodes)
    walker = FRWalker(ONTO)
    by_category: dict[str, list[str]] = {}
    found: Targets = {}
    for entity in source.entities():
        category = nb.category(entity)
        if category is None:
            continue
        by_category.setdefault(category, []).append(entity)
        matches = {m.fr.id: set(m.targets) for m in walker.walk(nb, entity, category)}
        if matches:
            found[entity] = matches
    return found, by_category


def _sparql_targets(select: Select, by_category: dict[str, list[str]],
                    granularity: Granularity = "fr", batch: int = 1000) -> Targets:
    compiler = FRQueryCompiler(ONTO, GraphVocabulary.from_select(select))
    found: Targets = {}
    for category, entities in by_category.items():
        for i in range(0, len(entities), batch):
            found.update(fr_matches(select, entities[i:i + batch], category, ONTO,
                                    compiler=compiler, granularity=granularity))
    return found


def _differences(walker: Targets, sparql: Targets) -> list[str]:
    out = []
    for entity in sorted(set(walker) | set(sparql)):
        a, b = walker.get(entity, {}), sparql.get(entity, {})
        for fr in sorted(set(a) | set(b)):
            x, y = a.get(fr, set()), b.get(fr, set())
            if x != y:
                out.append(f"{entity} {fr}: walker only {sorted(x - y)}, "
                           f"SPARQL only {sorted(y - x)}")
    return out


@pytest.fixture(scope="module")
def troodos() -> Iterator[RdfFileSource]:
    with RdfFileSource([TROODOS]) as source:
        yield source


@pytest.fixture(scope="module")
def troodos_walk(troodos: RdfFileSource) -> tuple[Targets, dict[str, list[str]]]:
    return _walker_targets(troodos)


@pytest.mark.parametrize("granularity", GRANULARITIES)
def test_troodos_sparql_equals_walker(
    troodos: RdfFileSource, troodos_walk: tuple[Targets, dict[str, list[str]]],
    granularity: Granularity,
) -> None:
    walked, by_category = troodos_walk
    assert sum(len(t) for m in walked.values() for t in m.values()) > 1000
    found = _sparql_targets(store_select(troodos.store), by_category, granularity, batch=50)
    assert _differences(walked, found) == []


@requires_shared
def test_ycba_sample_sparql_equals_walker() -> None:
    with RdfFileSource([YCBA_SAMPLE]) as source:
        walked, by_category = _walker_targets(source)
        found = _sparql_targets(store_select(source.store), by_category)
    assert len(walked) > 1000
    assert _differences(walked, found) == []


def test_synthetic_graph_all_of_symmetric_aliases(tmp_path: Path) -> None:
    path = tmp_path / "g.ttl"
    path.write_text(SYNTHETIC_TTL)
    with RdfFileSource([path]) as source:
        walked, by_category = _walker_targets(source)
        for granularity in GRANULARITIES:
            found = _sparql_targets(store_select(source.store), by_category, granularity)
            assert _differences(walked, found) == []
    ex = "http://example.org/"
    e1 = found[ex + "e1"]
    assert e1["event-event-from"] == {ex + "e2", ex + "e3"}  # P117 twice, not e4 (P176 only)
    assert ex + "chisel" in e1["event-thing-used"]  # skos:Concept ends a type path
    assert ex + "p1" in found[ex + "p2"]["place-place-borders-or-overlaps-with"]  # symmetric
    acquired = "thing-place-found-or-acquired-at"  # P24i from an E19_Physical_Object
    assert found[ex + "obj"][acquired] == {ex + "p1"}  # an Erlangen E22_Man-Made_Object is
    assert acquired not in found[ex + "text"]  # an E19, an E73 is not
    assert found[ex + "obj"]["thing-actor-has-met"] == {ex + "maker"}  # through the whole
    assert ex + "both" not in found[ex + "text"].get("thing-thing-refers-to", set())  # Actor


def test_endpoint_sparql_equals_walker(
    serve_graph: Callable[[Path], str], troodos_walk: tuple[Targets, dict[str, list[str]]],
) -> None:
    walked, by_category = troodos_walk
    endpoint = SparqlEndpointSource(serve_graph(TROODOS))
    found = _sparql_targets(endpoint_select(endpoint), by_category, "category")
    assert _differences(walked, found) == []


def test_specialised_targets_dropped_from_general(
    troodos: RdfFileSource, troodos_walk: tuple[Targets, dict[str, list[str]]],
) -> None:
    _, by_category = troodos_walk
    select = store_select(troodos.store)
    things = by_category["Thing"]
    kept = fr_matches(select, things, "Thing", ONTO)
    every = fr_matches(select, things, "Thing", ONTO, drop_specialised=False)
    parent = {fr.id: fr.specialization_of for fr in ONTO.fundamental_relationships()}
    dropped = 0
    for entity, frs in every.items():
        for fr_id, targets in frs.items():
            assert kept.get(entity, {}).get(fr_id, set()) <= targets
            general = parent.get(fr_id)
            if general:
                assert not targets & kept.get(entity, {}).get(general, set())
                dropped += len(targets & every[entity].get(general, set()))
    assert dropped > 0


def test_unsafe_iris_never_enter_a_query() -> None:
    crafted = "http://x/a> } ; DROP ALL ; { <http://x/b"
    crm = "http://www.cidoc-crm.org/cidoc-crm/"
    vocabulary = GraphVocabulary(
        frozenset({crm + "P46i_forms_part_of", "http://x/P46i_forms_part_of> } #"}),
        frozenset({crm + "E22_Human-Made_Object", crafted + "/E22_Human-Made_Object"}),
    )
    compiler = FRQueryCompiler(ONTO, vocabulary)
    texts = [q.text for g in GRANULARITIES for q in compiler.queries("Thing", g)]
    assert texts and not any("DROP" in t or "} #" in t for t in texts)
    sent: list[str] = []

    def select(query: str, variables: object) -> list[tuple[str | None, ...]]:
        sent.append(query)
        return []

    assert fr_matches(select, [crafted, "_:b0"], "Thing", ONTO, compiler=compiler) == {}
    assert sent == []


def test_steps_compile_to_property_paths() -> None:
    crm = "http://www.cidoc-crm.org/cidoc-crm/"
    vocabulary = GraphVocabulary(
        frozenset({crm + "P46_is_composed_of", crm + "P108i_was_produced_by",
                   "http://erlangen-crm.org/current/P46i_forms_part_of"}),
        frozenset({crm + "E12_Production"}),
    )
    compiler = FRQueryCompiler(ONTO, vocabulary)
    part = compiler.step(step_from_json(
        {"property": "P46i_forms_part_of", "repeat": True, "optional": True}))
    assert [a[0].expr for a in part] == [  # type: ignore[union-attr]
        "(<http://erlangen-crm.org/current/P46i_forms_part_of>|"
        f"^<{crm}P46_is_composed_of>)*"]
    assert compiler.step(step_from_json({"property": "P7_took_place_at"})) == []
    made = compiler.step(step_from_json(
        {"property": "P92i_was_brought_into_existence_by", "via_class": "E7_Activity"}))
    assert len(made) == 1 and len(made[0]) == 2  # the path, then the class check
