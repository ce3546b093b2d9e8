"""Direct FR targets apart from those reached through membership, parts or falls-within:
the ontology's split of FR paths, the walk and the SPARQL queries, documents and the FR
edges table."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from conftest import DEMO

from llama_index_crm import __version__
from llama_index_crm.build.folder import build_folder
from llama_index_crm.build.neighbourhood import Neighbourhood
from llama_index_crm.build.traversal import FRWalker
from llama_index_crm.errors import IndexFormatError
from llama_index_crm.exact.answerer import answerer_for
from llama_index_crm.index import CrmGraphIndex
from llama_index_crm.ontology import Ontology, split_path
from llama_index_crm.ontology.direct import direct_relationship
from llama_index_crm.sources import RdfFileSource, SparqlEndpointSource
from llama_index_crm.sources.fr_sparql import fr_matches, store_select
from llama_index_crm.storage.manifest import FORMAT, MANIFEST, read_manifest

ONTO = Ontology.default()
EX = "http://example.org/"
P107I = "P107i_is_current_or_former_member_of"

# Two works: one made by a person who belongs to two groups, one made by a group itself.
# Places nest: a town within a county within a country.
GRAPH = """\
@prefix crm: <http://www.cidoc-crm.org/cidoc-crm/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix ex: <http://example.org/> .

ex:bust a crm:E22_Human-Made_Object ; rdfs:label "Bust of a Heron" ;
    crm:P108i_was_produced_by ex:bust-making ; crm:P55_has_current_location ex:town .
ex:bust-making a crm:E12_Production ; rdfs:label "Making of the bust" ;
    crm:P14_carried_out_by ex:walter .
ex:walter a crm:E21_Person ; rdfs:label "Bart Walter" ;
    crm:P107i_is_current_or_former_member_of ex:american , ex:guild .
ex:american a crm:E74_Group ; rdfs:label "American" .
ex:guild a crm:E74_Group ; rdfs:label "Sculptors Guild" .
ex:print a crm:E22_Human-Made_Object ; rdfs:label "A Print" ;
    crm:P108i_was_produced_by ex:print-making .
ex:print-making a crm:E12_Production ; rdfs:label "Making of the print" ;
    crm:P14_carried_out_by ex:guild .
ex:town a crm:E53_Place ; rdfs:label "Nikitari" ; crm:P89_falls_within ex:county .
ex:county a crm:E53_Place ; rdfs:label "Nicosia District" ; crm:P89_falls_within ex:country .
ex:country a crm:E53_Place ; rdfs:label "Cyprus" .
"""


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("direct") / "g.ttl"
    path.write_text(GRAPH)
    return path


def _build(source: Any, folder: Path, **options: Any
           ) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """Each entity's text by its label (chained ones too) and the FR edges table."""
    docs, _ = build_folder(source, folder, **options)
    edges = pq.read_table(folder / "fr_edges.parquet").to_pylist()
    texts = {part.split("\n", 1)[0].split("] ", 1)[1]: part
             for d in docs for part in d.text.split("\n\n")}
    return texts, sorted(edges, key=lambda r: (r["s"], r["fr"], r["o"]))


def _line(text: str, head: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(head))


def test_fr_paths_split_into_widening_steps_and_core() -> None:
    created = ONTO.fundamental_relationship("thing-actor-created-by")
    split = split_path(created.paths[0])
    assert [s.property for s in split.core] == [
        "P92i_was_brought_into_existence_by", "P9i_forms_part_of", "P14_carried_out_by"]
    assert [s.property for s in split.trail] == [P107I]
    assert split.lead and split.lead[0].kind == "any_of"  # the thing's parts
    within = direct_relationship(ONTO.fundamental_relationship("place-place-is-part-of"))
    (step,) = within.paths[0].steps  # falls within [0,n]: once is direct
    assert (step.property, step.repeat, step.optional) == ("P89_falls_within", False, False)
    assert [fr.id for fr in ONTO.direct_relationships()] == [
        fr.id for fr in ONTO.fundamental_relationships()]


def test_documents_list_direct_makers_and_groups_by_membership_apart(
        graph: Path, tmp_path: Path) -> None:
    with RdfFileSource([graph]) as source:
        texts, edges = _build(source, tmp_path / "i")
    assert _line(texts["Bust of a Heron"], "Created by (actor): ") == (
        "Created by (actor): Bart Walter — by membership: American; Sculptors Guild")
    assert _line(texts["A Print"], "Created by (actor): ") == (
        "Created by (actor): Sculptors Guild")  # a group that made the work is direct
    assert _line(texts["Bust of a Heron"], "Is/was located in (place): ") == (
        "Is/was located in (place): Nikitari — within: Cyprus; Nicosia District")
    assert _line(texts["Nikitari"], "Is part of (place): ") == (
        "Is part of (place): Nicosia District — within: Cyprus")
    made = {(r["s"], r["o"]): r for r in edges if r["fr"] == "thing-actor-created-by"}
    assert made[EX + "bust", EX + "walter"]["direct"]
    assert made[EX + "bust", EX + "walter"]["via"] is None
    american = made[EX + "bust", EX + "american"]
    assert (american["direct"], american["widened_by"], american["via"]) == (
        False, P107I, EX + "walter")
    assert made[EX + "print", EX + "guild"]["direct"]
    country = next(r for r in edges if r["s"] == EX + "bust" and r["o"] == EX + "country"
                   and r["fr"].startswith("thing-place"))
    assert (country["direct"], country["widened_by"], country["via"]) == (
        False, "P89_falls_within", EX + "town")


def test_files_walk_sparql_and_endpoint_agree_on_direct_and_derived(
        graph: Path, tmp_path: Path, serve_graph: Callable[[Path], str]) -> None:
    with RdfFileSource([graph]) as source:
        walked = _build(source, tmp_path / "walk", fr_paths="walk")
        queried = _build(source, tmp_path / "sparql", fr_paths="sparql")
    served = _build(SparqlEndpointSource(serve_graph(graph), timeout=10), tmp_path / "served")
    assert walked == queried == served
    assert any(not r["direct"] for r in walked[1])


def test_demo_direct_targets_by_sparql_equal_the_walk() -> None:
    """The builder's way with queries (targets, then direct targets of the path cores,
    then :meth:`FRWalker.matches_from`) marks the same targets direct as the walk."""
    walker = FRWalker(ONTO)
    with RdfFileSource([DEMO]) as source:
        select = store_select(source.store)
        subjects = [r[0] for r in select("SELECT DISTINCT ?s WHERE { ?s ?p ?o }", ("s",))]
        triples = source.fetch([s for s in subjects if isinstance(s, str)], incoming=False)
        nb = Neighbourhood(ONTO)
        nb.add(triples, complete={t.s for t in triples}
               | {t.o for t in triples if isinstance(t.o, str)})
        by_category: dict[str, list[str]] = {}
        for entity in source.entities():
            category = nb.category(entity)
            if category is not None:
                by_category.setdefault(category, []).append(entity)
        derived = 0
        for category, entities in by_category.items():
            found = fr_matches(select, entities, category, ONTO)
            direct = fr_matches(select, entities, category, ONTO, drop_specialised=False,
                                direct=True)
            for entity in entities:
                walked = walker.walk(nb, entity, category)
                queried = walker.matches_from(category, found.get(entity, {}),
                                              direct.get(entity, {}))
                assert [(m.fr.id, m.targets, m.direct) for m in walked] == [
                    (m.fr.id, m.targets, m.direct) for m in queried], entity
                derived += sum(len(m.derived) for m in walked)
    assert derived > 500


def test_demo_documents_put_derived_targets_under_their_own_label(tmp_path: Path) -> None:
    with RdfFileSource([DEMO]) as source:
        texts, edges = _build(source, tmp_path / "demo")
    asinou = texts["Panagia Phorbiottissa (Asinou)"]
    assert _line(asinou, "Is/was located in (place): ") == (
        "Is/was located in (place): Asinou (locality) — within: Cyprus (country); "
        "Nicosia District (district); Nikitari (village)")
    assert "Refers to or is about (thing): via parts: Christ" in asinou
    assert {r["widened_by"] for r in edges if not r["direct"]} >= {
        "P89_falls_within", "P46_is_composed_of", "P46i_forms_part_of"}
    assert all(r["via"] is None and r["widened_by"] is None for r in edges if r["direct"])


def test_exact_answers_name_the_direct_maker_and_reach_groups_on_purpose(
        graph: Path, tmp_path: Path) -> None:
    """ "Who made X" is the maker, not the maker's groups; works "by American artists" go
    through membership because the question asks for it, and the sentence says so."""
    index = CrmGraphIndex.build([str(graph)], tmp_path / "index", cache_dir=tmp_path / "cache")
    exact = answerer_for(index)
    made = exact.answer("Who made Bust of a Heron?")
    assert made.status == "answered" and "Bart Walter" in made.text
    assert "American" not in made.text and "Guild" not in made.text
    by_guild = exact.answer("Which works were made by Sculptors Guild?")
    assert by_guild.text == ("2 works made by Sculptors Guild: “A Print”; “Bust of a Heron” "
                             "(by membership, via Bart Walter).")
    american = exact.answer("Works by American artists")
    assert [item["label"] for item in american.items] == ["Bust of a Heron"]
    assert american.text == ("1 work made by American, by membership: “Bust of a Heron” "
                             "(via Bart Walter).")


def test_an_index_of_the_previous_format_asks_for_a_rebuild(tmp_path: Path) -> None:
    """Format 3 folders have FR edges without ``direct``: loading one says to rebuild."""
    (tmp_path / MANIFEST).write_text(json.dumps(
        {"format": "llama-index-crm/3", "package_version": __version__}))
    with pytest.raises(IndexFormatError, match=r"format llama-index-crm/3\).*crm-rag build"):
        read_manifest(tmp_path)
    assert FORMAT == "llama-index-crm/4"
