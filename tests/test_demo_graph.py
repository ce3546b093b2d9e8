"""The bundled demo graph ``examples/data/troodos.ttl`` and its generator."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pyoxigraph
import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "examples" / "data"
TTL = DATA / "troodos.ttl"
FACTS = DATA / "troodos_facts.toml"
SCRIPT = ROOT / "scripts" / "make_demo_graph.py"
ONTOLOGY = ROOT.parent / "shared" / "datasets" / "ontology"
"""The CRM and VIR ontologies, in ``../shared`` beside the repository."""

CRM = "http://www.cidoc-crm.org/cidoc-crm/"
VIR = "http://w3id.org/vir#"
BASE = "https://example.org/troodos/"
PREFIXES = f"""
PREFIX crm: <{CRM}>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX place: <{BASE}place/>
PREFIX type: <{BASE}type/>
"""
CHURCH_TYPES = ("church", "monastery-katholikon", "chapel", "monastery")


def _load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_demo_graph", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses need the module registered
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def store() -> pyoxigraph.Store:
    graph = pyoxigraph.Store()
    graph.load(TTL.read_bytes(), format=pyoxigraph.RdfFormat.TURTLE)
    return graph


def _select(store: pyoxigraph.Store, query: str) -> list[tuple[str, ...]]:
    rows = store.query(PREFIXES + query)
    assert isinstance(rows, pyoxigraph.QuerySolutions)
    return [tuple(term.value for term in row) for row in rows]


def _ask(store: pyoxigraph.Store, query: str) -> bool:
    return bool(store.query(PREFIXES + query))


def test_turtle_parses(store: pyoxigraph.Store) -> None:
    assert len(store) > 1000


def test_regeneration_is_byte_identical() -> None:
    module = _load_script()
    text = module.render(module.load_facts(FACTS))
    assert text.encode("utf-8") == TTL.read_bytes(), "run: python scripts/make_demo_graph.py"
    # and rendering twice gives the same text
    assert module.render(module.load_facts(FACTS)) == text


def test_node_count_in_range(store: pyoxigraph.Store) -> None:
    iris: set[str] = set()
    for quad in store:
        for term in (quad.subject, quad.object):
            if isinstance(term, pyoxigraph.NamedNode):
                iris.add(term.value)
    assert 300 <= len(iris) <= 800, len(iris)


def test_every_church_reaches_cyprus(store: pyoxigraph.Store) -> None:
    values = " ".join(f"type:{t}" for t in CHURCH_TYPES)
    churches = _select(
        store,
        f"""SELECT DISTINCT ?church WHERE {{
            VALUES ?kind {{ {values} }}
            ?church a crm:E22_Human-Made_Object ; crm:P2_has_type ?kind .
        }}""",
    )
    assert len(churches) >= 10
    for (church,) in churches:
        assert _ask(
            store,
            f"""ASK {{
                <{church}> (crm:P55_has_current_location|crm:P53_has_former_or_current_location)
                    ?village .
                ?village crm:P89_falls_within ?district .
                ?district crm:P89_falls_within+ place:cyprus .
            }}""",
        ), f"{church} has no location chain of three levels reaching Cyprus"


def test_bilingual_appellation(store: pyoxigraph.Store) -> None:
    rows = _select(
        store,
        """SELECT DISTINCT ?thing WHERE {
            ?thing crm:P1_is_identified_by ?name .
            ?name a crm:E41_Appellation ;
                crm:P190_has_symbolic_content ?en, ?el .
            FILTER(lang(?en) = "en" && lang(?el) = "el")
        }""",
    )
    assert rows


def test_an_entity_without_any_name(store: pyoxigraph.Store) -> None:
    rows = _select(
        store,
        """SELECT DISTINCT ?node WHERE {
            ?node a ?class .
            FILTER(isIRI(?node))
            FILTER(?class NOT IN (crm:E41_Appellation, crm:E42_Identifier))
            FILTER NOT EXISTS { ?node rdfs:label ?label }
            FILTER NOT EXISTS { ?node crm:P1_is_identified_by ?name }
            FILTER NOT EXISTS { ?node crm:P3_has_note ?note }
        }""",
    )
    nodes = {row[0] for row in rows}
    assert f"{BASE}production/pelendri-painting-14th-c" in nodes
    assert any(node.startswith(f"{BASE}atom/") for node in nodes)


def test_forward_and_inverse_production_links(store: pyoxigraph.Store) -> None:
    assert _ask(store, "ASK { ?church crm:P108i_was_produced_by ?production }")
    assert _ask(store, "ASK { ?production crm:P108_has_produced ?church }")


def test_satellites_present(store: pyoxigraph.Store) -> None:
    for cls in ("E41_Appellation", "E55_Type", "E52_Time-Span", "E54_Dimension", "E30_Right"):
        assert _ask(store, f"ASK {{ ?x a crm:{cls} }}"), cls
    assert _ask(
        store,
        """ASK { ?d a crm:E54_Dimension ; crm:P90_has_value ?v ; crm:P91_has_unit ?u .
                 ?u a crm:E58_Measurement_Unit }""",
    )
    assert _ask(
        store,
        """ASK { ?s crm:P82a_begin_of_the_begin ?b ; crm:P82b_end_of_the_end ?e ;
                    rdfs:label ?l }""",
    )


def test_terms_exist_in_the_ontologies() -> None:
    crm_rdf = ONTOLOGY / "CIDOC_CRM_v7.1.3.rdf"
    vir_ttl = ONTOLOGY / "vir.ttl"
    if not (crm_rdf.exists() and vir_ttl.exists()):
        pytest.skip("../shared/datasets/ontology (CIDOC_CRM_v7.1.3.rdf, vir.ttl) not present")
    text = TTL.read_text(encoding="utf-8")
    crm_terms = set(re.findall(r'rdf:about="([^"]+)"', crm_rdf.read_text(encoding="utf-8")))
    used_crm = set(re.findall(r"\bcrm:([A-Za-z0-9_.-]*[A-Za-z0-9_-])", text))
    assert used_crm and used_crm <= crm_terms, used_crm - crm_terms
    vir_source = vir_ttl.read_text(encoding="utf-8")
    used_vir = set(re.findall(r"\bvir:([A-Za-z0-9_-]+)", text))
    missing = {term for term in used_vir if f":{term} rdf:type" not in vir_source}
    assert used_vir and not missing, missing


def test_dangling_reference_is_rejected() -> None:
    module = _load_script()
    facts = module.load_facts(FACTS)
    facts["campaigns"]["asinou-construction"]["carried_out_by"] = ["nobody"]
    with pytest.raises(module.FactError):
        module.render(facts)
