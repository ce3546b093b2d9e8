"""The ontology layer: facts of the CIDOC-CRM RDFS, name resolution, FRs, weights, config."""

from __future__ import annotations

import copy
import doctest
import json
import pickle
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from llama_index_crm.ontology import (
    CATEGORIES,
    CRM,
    ERLANGEN_CRM,
    ONTOLOGY_NAMESPACES,
    VIR,
    Ontology,
    Step,
    find_config_dir,
)
from llama_index_crm.ontology import config_dir as config_dir_module
from llama_index_crm.ontology import fr as fr_module
from llama_index_crm.ontology import hierarchy as hierarchy_module
from llama_index_crm.ontology import namespaces as namespaces_module
from llama_index_crm.ontology import ontology as ontology_module
from llama_index_crm.ontology import resolver as resolver_module
from llama_index_crm.ontology import terms as terms_module
from llama_index_crm.ontology.fr import iter_step_classes, iter_step_properties

REPO = Path(__file__).resolve().parents[1]
CONFIG = REPO / "config"
SHARED = REPO.parent / "shared"
BUILD_SCRIPT = REPO / "scripts" / "build_ontology.py"
GENERATED = (
    "aliases.json",
    "categories.json",
    "classes.json",
    "fundamental_relationships.json",
    "properties.json",
    "relationship_weights.json",
)
needs_shared = pytest.mark.skipif(
    not (SHARED / "datasets" / "ontology").is_dir() or not (SHARED / "reference").is_dir(),
    reason="../shared (ontology files and reference data) is absent",
)


@pytest.fixture(scope="module")
def onto() -> Ontology:
    return Ontology.default()


def _load(name: str) -> Any:
    return json.loads((CONFIG / name).read_text(encoding="utf-8"))


# ----------------------------------------------------------------------------- categories
@pytest.mark.parametrize(
    ("cls", "category"),
    [
        ("E22_Human-Made_Object", "Thing"),
        ("E21_Person", "Actor"),
        ("E74_Group", "Actor"),
        ("E53_Place", "Place"),
        ("E12_Production", "Event"),
        ("E4_Period", "Event"),
        ("E55_Type", "Concept"),
        ("E57_Material", "Concept"),
        ("E52_Time-Span", "Time"),
        ("E41_Appellation", None),
        ("E42_Identifier", None),
        ("E30_Right", None),
        ("E1_CRM_Entity", None),
        ("S20_Rigid_Physical_Feature", "Place"),
        ("IC9_Representation", "Thing"),
        ("IC16_Character", "Thing"),
        ("D1_Digital_Object", "Thing"),
        ("F10_Person", "Actor"),
        ("http://erlangen-crm.org/current/E22_Man-Made_Object", "Thing"),
        ("E40_Legal_Body", "Actor"),
        ("http://www.w3.org/2000/01/rdf-schema#Resource", None),
    ],
)
def test_class_category(onto: Ontology, cls: str, category: str | None) -> None:
    assert onto.class_category(cls) == category


def test_category_priority(onto: Ontology) -> None:
    assert onto.category(["E22_Human-Made_Object", "E21_Person"]) == "Actor"
    assert onto.category(["E55_Type", "E53_Place"]) == "Place"
    assert onto.category(["E41_Appellation", "http://example.org/Foo"]) is None
    assert onto.category([]) is None
    assert onto.category("E21_Person") == "Actor"
    assert onto.category(["http://www.w3.org/2004/02/skos/core#Concept"]) == "Concept"


def test_categories_cover_every_crm_class(onto: Ontology) -> None:
    categorised = set(_load("categories.json")["classes"])
    crm = {n for n, c in _load("classes.json")["classes"].items() if c["vocab"] == "crm"}
    unmapped = crm - categorised
    assert unmapped == {"E1_CRM_Entity", "E30_Right", "E33_E41_Linguistic_Appellation",
                        "E35_Title", "E41_Appellation", "E42_Identifier", "E54_Dimension",
                        "E77_Persistent_Item", "E92_Spacetime_Volume", "E93_Presence",
                        "E97_Monetary_Amount"}
    assert set(onto.classes_in_category("Time")) == {"E52_Time-Span"}
    assert "E21_Person" in onto.classes_in_category("Actor")


# ----------------------------------------------------------------------------- properties
def test_inverse_and_subproperty(onto: Ontology) -> None:
    assert onto.inverse("P108_has_produced") == "P108i_was_produced_by"
    assert onto.inverse("P108i_was_produced_by") == "P108_has_produced"
    assert onto.inverse("P121_overlaps_with") == "P121_overlaps_with"  # symmetric
    assert onto.inverse("P3_has_note") is None
    assert onto.inverse("K24_portray") == "K24i_is_portrayed_in"
    assert onto.inverse("L1_digitized") == "L1i_was_digitized_by"
    assert onto.is_subproperty("P108i_was_produced_by", "P92i_was_brought_into_existence_by")
    assert not onto.is_subproperty("P92i_was_brought_into_existence_by", "P108i_was_produced_by")
    subs = onto.subproperties("P92i_was_brought_into_existence_by")
    assert {"P92i_was_brought_into_existence_by", "P108i_was_produced_by",
            "P94i_was_created_by", "P98i_was_born"} <= subs
    assert "P129_is_about" in onto.subproperties("P67_refers_to")
    assert "K24_portray" in onto.subproperties("P138_represents")
    assert "P48_has_preferred_identifier" in onto.subproperties("P1_is_identified_by")


def test_class_hierarchy(onto: Ontology) -> None:
    supers = onto.superclasses("E22_Human-Made_Object")
    assert {"E22_Human-Made_Object", "E19_Physical_Object", "E24_Physical_Human-Made_Thing",
            "E18_Physical_Thing", "E70_Thing", "E1_CRM_Entity"} <= supers
    assert onto.is_subclass("E21_Person", "E39_Actor")
    assert onto.is_subclass("E22_Man-Made_Object", "E70_Thing")
    assert not onto.is_subclass("E39_Actor", "E21_Person")
    assert "E21_Person" in onto.subclasses("E39_Actor")
    assert onto.superclasses("http://www.w3.org/2000/01/rdf-schema#label") == frozenset()


def test_labels(onto: Ontology) -> None:
    assert onto.label("P108i_was_produced_by") == "was produced by"
    assert onto.label(CRM.term("E22_Human-Made_Object")) == "Human-Made Object"
    assert onto.label("E22_Man-Made_Object") == "Human-Made Object"
    assert onto.label("P999_foo_bar") == "foo bar"
    assert onto.label("http://example.org/ns#P999_foo_bar") == "foo bar"
    assert onto.label("http://www.w3.org/2004/02/skos/core#prefLabel") == "pref label"
    assert onto.label("K10i_is_basis_for") == "is basis for"  # vir.ttl label corrected


def test_weights(onto: Ontology) -> None:
    assert onto.weight("P89_falls_within") == 0.9
    assert onto.weight("P89i_contains") == 0.9
    assert onto.weight(CRM.P108i_was_produced_by) == 0.85
    assert onto.weight("P46i_forms_part_of") == 0.8
    assert onto.weight("P1_is_identified_by") == 0.4
    assert onto.weight("P131_is_identified_by") == 0.4  # old name -> P1
    assert onto.weight("P166_was_a_presence_of") == 0.8  # inherited from P10
    assert onto.weight("http://www.w3.org/2000/01/rdf-schema#label") == 0.5
    weights = _load("relationship_weights.json")
    assert weights["default"] == 0.5
    for name, weight in weights["properties"].items():
        inverse = onto.inverse(name)
        if inverse:
            assert weights["properties"].get(inverse) == weight, name


# ----------------------------------------------------------------------------- resolution
@pytest.mark.parametrize(
    ("term", "expected"),
    [
        ("E22_Human-Made_Object", "E22_Human-Made_Object"),
        ("http://www.cidoc-crm.org/cidoc-crm/E22_Human-Made_Object", "E22_Human-Made_Object"),
        ("http://erlangen-crm.org/current/E22_Man-Made_Object", "E22_Human-Made_Object"),
        ("http://erlangen-crm.org/170309/E22_Man-Made_Object", "E22_Human-Made_Object"),
        ("https://cidoc-crm.org/cidoc-crm/P1_is_identified_by", "P1_is_identified_by"),
        ("P131_is_identified_by", "P1_is_identified_by"),
        ("http://www.cidoc-crm.org/cidoc-crm/P131_is_identified_by", "P1_is_identified_by"),
        ("http://example.org/my-crm/P131_is_identified_by", "P1_is_identified_by"),
        ("http://example.org/my-crm#E82_Actor_Appellation", "E41_Appellation"),
        ("crm:E21_Person", "E21_Person"),
        ("http://w3id.org/vir#K24_portray", "K24_portray"),
        ("http://www.ics.forth.gr/isl/CRMsci/S19_Encounter_Event", "S19_Encounter_Event"),
        ("http://www.cidoc-crm.org/extensions/crmdig/L54_is_same-as", "L54_is_same-as"),
        ("P88i_forms_part_of", "P89_falls_within"),
        ("P117_occurs_during", "P117_occurs_during"),  # no single 7.1.3 equivalent
        ("http://www.cidoc-crm.org/cidoc-crm/P199_represents_instance_of_type",
         "P199_represents_instance_of_type"),
        ("http://www.w3.org/2000/01/rdf-schema#label", None),
        ("rdfs:label", None),
        ("http://www.w3.org/2004/02/skos/core#prefLabel", None),
        ("http://purl.org/dc/terms/title", None),
        ("http://vocab.getty.edu/aat/300033618", None),
        ("http://example.org/object/42", None),
        ("http://example.org/P999_unknown_thing", None),
        ("E62_String", None),  # primitive value: rdfs:Literal in 7.1.3
        ("http://www.cidoc-crm.org/cidoc-crm/", None),
        ("urn:uuid:0f6c", None),
        ("", None),
    ],
)
def test_canonical(onto: Ontology, term: str, expected: str | None) -> None:
    assert onto.canonical(term) == expected


def test_ontology_iris(onto: Ontology) -> None:
    assert onto.is_ontology_iri("http://erlangen-crm.org/current/E21_Person")
    assert onto.is_ontology_iri("http://www.cidoc-crm.org/cidoc-crm/P1_is_identified_by")
    assert onto.is_ontology_iri("http://w3id.org/vir#IC9_Representation")
    assert not onto.is_ontology_iri("http://www.w3.org/2000/01/rdf-schema#label")
    assert not onto.is_ontology_iri("http://example.org/P131_is_identified_by")
    assert str(ERLANGEN_CRM) in ONTOLOGY_NAMESPACES
    for spec in _load("aliases.json")["namespaces"].values():
        assert {spec["canonical"], *spec["variants"]} <= set(ONTOLOGY_NAMESPACES)
    assert onto.iri("E22_Man-Made_Object") == "http://www.cidoc-crm.org/cidoc-crm/E22_Human-Made_Object"
    assert onto.iri("K24_portray") == "http://w3id.org/vir#K24_portray"
    assert onto.iri("rdfs:label") is None
    assert onto.alias_all_of("P117_occurs_during") == ("P176i_starts_after_the_start_of",
                                                        "P185_ends_before_the_end_of")
    assert onto.inverse("P117_occurs_during") == "P117i_includes"


def test_namespace_attributes() -> None:
    assert CRM.P108i_was_produced_by == "http://www.cidoc-crm.org/cidoc-crm/P108i_was_produced_by"
    assert CRM == "http://www.cidoc-crm.org/cidoc-crm/"
    assert VIR.K24_portray == "http://w3id.org/vir#K24_portray"
    assert ERLANGEN_CRM.E21_Person == "http://erlangen-crm.org/current/E21_Person"
    with pytest.raises(AttributeError):
        _ = CRM.P108i_was_produced_bye
    with pytest.raises(AttributeError):
        _ = CRM.K24_portray  # a VIR term, not a CRM one
    assert "P108i_was_produced_by" in dir(CRM)
    assert copy.deepcopy(CRM).E21_Person == CRM.E21_Person
    assert pickle.loads(pickle.dumps(VIR)).K24_portray == VIR.K24_portray


# ----------------------------------------------------------------------------- FRs
def test_fr_counts(onto: Ontology) -> None:
    every = onto.fundamental_relationships()
    frs = [fr for fr in every if fr.profile is None]  # TR-429's own
    assert len(frs) == 101
    assert sum(len(fr.paths) for fr in frs) == 216
    assert sum(1 for fr in frs if fr.specialization_of) == 29
    assert {fr.domain for fr in every} <= set(CATEGORIES)
    linked_art = [fr for fr in every if fr.profile == "linked-art"]
    assert len(linked_art) == 7 and len(every) == 108
    assert every[:101] == tuple(frs)  # the profile's come after TR-429's
    assert len(onto.frs_from("Thing")) == 36 + 4
    assert onto.frs_from("Time") == ()
    with pytest.raises(ValueError):
        onto.frs_from("Person")
    fr = onto.fundamental_relationship("thing-place-refers-to")
    assert (fr.domain, fr.range, fr.label) == ("Thing", "Place", "refers to or is about")
    assert fr.paths[0].steps[2] == Step(kind="property", property="P62_depicts")
    assert fr in onto.frs_between("Thing", "Place")


def test_fr_names_exist_in_config(onto: Ontology) -> None:
    properties = _load("properties.json")["properties"]
    classes = _load("classes.json")["classes"]
    seen_props: set[str] = set()
    profile_props: set[str] = set()
    for fr in onto.fundamental_relationships():
        if fr.specialization_of:
            onto.fundamental_relationship(fr.specialization_of)
        for path in fr.paths:
            assert path.id.startswith(fr.id + "/")
            for step in path.steps:
                for name in iter_step_properties(step):
                    assert name in properties, f"{path.id}: {name}"
                    (seen_props if fr.profile is None else profile_props).add(name)
                for name in iter_step_classes(step):
                    assert name in classes, f"{path.id}: {name}"
    assert len(seen_props) == 107
    # the Linked Art profile: roles (P129, P140, P141) and la: terms
    assert {"P141_assigned", "P129_is_about", "member_of", "has_member",
            "current_permanent_custodian"} <= profile_props - seen_props
    assert properties["member_of"]["vocab"] == "la"
    for rule in ("event_to_time", "time_to_event", "range_by_type"):
        for step in onto.rule_steps(rule):
            assert all(p in properties for p in iter_step_properties(step))
    assert onto.rule_steps("event_to_time")[0].property == "P4_has_time-span"
    assert {"event_to_time", "time_to_event", "range_by_type", "inference"} <= set(onto.rules)
    for spec in _load("fundamental_relationships.json")["fundamental_categories"].values():
        assert set(spec["crm_classes"]) | set(spec["exclude"]) <= set(classes)


def test_config_tables_are_consistent() -> None:
    properties = _load("properties.json")["properties"]
    classes = _load("classes.json")["classes"]
    for name, prop in properties.items():
        if prop["inverse"]:
            assert properties[prop["inverse"]]["inverse"] == name
        assert set(prop["superproperties"]) <= set(properties), name
        for key in ("domain", "range"):
            value = prop[key]
            assert value is None or value in classes or value.startswith("rdfs:"), name
    for name, cls in classes.items():
        assert set(cls["superclasses"]) <= set(classes), name
    aliases = _load("aliases.json")
    assert aliases["classes"]["E22_Man-Made_Object"]["target"] == "E22_Human-Made_Object"
    assert aliases["properties"]["P117_occurs_during"]["target_all_of"]


# ----------------------------------------------------------------------------- config folder
def test_config_dir_env_var(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(config_dir_module.CONFIG_ENV_VAR, raising=False)
    assert find_config_dir().resolve() in {CONFIG.resolve(),
                                           (REPO / "llama_index_crm" / "_config").resolve()}
    for name in GENERATED:
        shutil.copy(CONFIG / name, tmp_path / name)
    monkeypatch.setenv(config_dir_module.CONFIG_ENV_VAR, str(tmp_path))
    assert find_config_dir() == tmp_path
    assert Ontology.from_config_dir(find_config_dir()).canonical("E21_Person") == "E21_Person"
    monkeypatch.setenv(config_dir_module.CONFIG_ENV_VAR, str(tmp_path / "missing"))
    with pytest.raises(config_dir_module.ConfigNotFoundError):
        find_config_dir()


def test_default_is_loaded_once() -> None:
    """(Its load time is no test's business: a timed assertion fails on a busy machine.)"""
    assert Ontology.default() is Ontology.default()
    assert Ontology.from_config_dir(CONFIG) is not Ontology.default()  # a folder: read anew


@pytest.mark.parametrize(
    "module",
    [fr_module, hierarchy_module, namespaces_module, ontology_module, resolver_module,
     terms_module],
)
def test_doctests(module: ModuleType) -> None:
    result = doctest.testmod(module)
    assert result.failed == 0


# ----------------------------------------------------------------------------- build script
def _run_build(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(BUILD_SCRIPT), "--quiet", *args],
                          capture_output=True, text=True, check=False)


@needs_shared
def test_build_reproduces_config(tmp_path: Path) -> None:
    result = _run_build("--shared", str(SHARED), "--out", str(tmp_path))
    assert result.returncode == 0, result.stderr
    for name in GENERATED:
        assert (tmp_path / name).read_bytes() == (CONFIG / name).read_bytes(), name


@needs_shared
def test_build_fails_on_unknown_name(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    (shared / "datasets").mkdir(parents=True)
    (shared / "datasets" / "ontology").symlink_to(SHARED / "datasets" / "ontology")
    shutil.copytree(SHARED / "reference", shared / "reference")
    fr_file = shared / "reference" / "fundamental_relationships.json"
    data = json.loads(fr_file.read_text(encoding="utf-8"))
    data["relationships"][0]["paths"][0]["steps"][2]["property"] = "P62_depictz"
    fr_file.write_text(json.dumps(data), encoding="utf-8")
    result = _run_build("--shared", str(shared), "--out", str(tmp_path / "out"))
    assert result.returncode == 1
    assert "P62_depictz" in result.stderr
    assert not (tmp_path / "out").exists()
