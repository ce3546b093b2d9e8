"""Exact plans on the user's endpoint (``--exact-backend sparql``), against a real
``oxigraph serve`` of the demo graph: the same answers as the index's triples, the plans that
do not compile run on the index and say so, a graph grown on the server is answered from
the server, an endpoint that fails is said."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import DEMO_GRAPH, DEMO_GRAPH_IRI

from llama_index_crm import cli
from llama_index_crm.exact.answerer import (
    ENDPOINT_EVIDENCE,
    ExactAnswer,
    ExactAnswerer,
    answerer_for,
)
from llama_index_crm.exact.endpoint import PlanEndpoint, plan_endpoint
from llama_index_crm.exact.values import span_of
from llama_index_crm.index import CrmGraphIndex
from llama_index_crm.query.engine import CrmQueryPipeline
from llama_index_crm.sources.virtuoso_server import VirtuosoServer

NEW_VILLAGE = "https://example.org/troodos/place/agios-epiktitos-test"
GROWN = f"""
<{NEW_VILLAGE}> a <http://www.cidoc-crm.org/cidoc-crm/E53_Place> ;
    <http://www.w3.org/2000/01/rdf-schema#label> "Agios Epiktitos (test)"@en ;
    <http://www.cidoc-crm.org/cidoc-crm/P89_falls_within>
        <https://example.org/troodos/place/nicosia-district> .
"""
"""A village the index has never seen, added on the server."""


@pytest.fixture(scope="module")
def local(demo_index: CrmGraphIndex) -> ExactAnswerer:
    return answerer_for(demo_index)


@pytest.fixture(scope="module")
def remote(demo_index: CrmGraphIndex, serve_graph: Callable[[Path], str]) -> ExactAnswerer:
    return ExactAnswerer(demo_index, endpoint=PlanEndpoint(serve_graph(DEMO_GRAPH)))


@pytest.fixture(scope="module")
def on_virtuoso(demo_index: CrmGraphIndex, virtuoso: VirtuosoServer) -> ExactAnswerer:
    """Plans on a real Virtuoso holding the demo graph in a named graph (skipped, with the
    reason, where ``virtuoso-t`` is not installed)."""
    return ExactAnswerer(demo_index,
                         endpoint=PlanEndpoint(virtuoso.url, graphs=[DEMO_GRAPH_IRI]))


def _shape(answer: ExactAnswer) -> tuple[object, ...]:
    """Status, count, total, the members with their values, and the groups, in order."""
    groups = answer.result.groups if answer.result is not None else []
    return answer.status, answer.count, answer.total, [
        (i["uri"], i["label"], [(v["relation"], v["text"], v["years"]) for v in i["values"]])
        for i in answer.items], [(g.key, [i.uri for i in g.items]) for g in groups]


def _unwitnessed(text: str) -> str:
    """A sentence without what only witness triples tell: "within" a place "(via X)"."""
    return re.sub(r" \(via [^)]*\)", "", text.replace(", within:", ":"))


@pytest.mark.parametrize("question", [
    "which places are in nicosia district",  # a closure to a named place
    "what is in nicosia district",
    "how many things were made in the 12th century",  # a century: dates that begin in it
    "which events took place in the 12th century",
    "which works were made before 1200",  # every begin and end of a time-span read
    "how many works are there",
    "how many works have panagia in their title",  # folded words, judged client-side
    "where is asinou",  # values: nodes, named as the index names them
    "what is the inscription of asinou",  # a statement's text
    "what is the oldest work",  # ranked by the executor over the endpoint's dates
    "how many works per century",  # grouped likewise
    "how many churches are in nicosia district",  # types (and broader types) read there
    "aside from Asinou, which churches are in Nicosia District?",  # left out as asked
    "which churches in nicosia district were built before 1300",
    "how many chapels are there",
])
def test_compiled_plans_run_on_the_endpoint_and_answer_as_the_index(
        local: ExactAnswerer, remote: ExactAnswerer, question: str) -> None:
    here, there = local.answer(question), remote.answer(question)
    assert here.status == "answered" and here.total > 0
    assert there.backend == "sparql" and here.backend == "parquet"
    assert _shape(there) == _shape(here)
    # notes too ("1 left out as asked", "read in the title"); without witness triples, the
    # endpoint's sentence does not say through which village a church is in the district
    assert there.text == _unwitnessed(here.text)
    assert remote.endpoint is not None
    assert there.evidence == [f"computed on {remote.endpoint.describe()}: "
                              f"{ENDPOINT_EVIDENCE}"]


@pytest.mark.parametrize(("question", "why"), [
    ("Which churches were painted by Philippos Goul?", "events singled out by their type"),
    ("who made the most works", "attributions of “made by”"),  # E13: P177 checked here
    ("what is the tallest work", "the dimension read as the index reads it"),
    ("tell me about asinou", "describe plans are computed over the index"),
    ("what are the dimensions of asinou", "the dimensions read as the index reads it"),
    ("who founded the church at Asinou?", "events singled out by their type"),
])
def test_plans_that_do_not_compile_run_on_the_index_and_say_so(
        local: ExactAnswerer, remote: ExactAnswerer, question: str, why: str) -> None:
    here, there = local.answer(question), remote.answer(question)
    assert there.backend == "parquet"
    assert _shape(there) == _shape(here)
    note = f"computed over the index's triples, not on the endpoint: {why}"
    assert note in there.text and note not in here.text


def test_class_nouns_are_read_through_the_wholes_of_parts_on_the_endpoint(
        local: ExactAnswerer, remote: ExactAnswerer) -> None:
    question = "which churches depict the virgin mary"  # painted on a part of each church
    here, there = local.answer(question), remote.answer(question)
    assert there.backend == "sparql" and _shape(there) == _shape(here)
    assert there.text == here.text and "3 read through their parts" in there.text


def test_a_graph_grown_on_the_server_is_answered_from_the_server(
        demo_index: CrmGraphIndex, local: ExactAnswerer,
        serve_graph: Callable[[Path], str], tmp_path: Path) -> None:
    grown = tmp_path / "troodos_grown.ttl"
    grown.write_text(DEMO_GRAPH.read_text(encoding="utf-8") + GROWN, encoding="utf-8")
    server = ExactAnswerer(demo_index, endpoint=PlanEndpoint(serve_graph(grown)))
    question = "which places are in nicosia district"
    here, there = local.answer(question), server.answer(question)
    assert there.backend == "sparql" and there.total == here.total + 1
    new = next(i for i in there.items if i["uri"] == NEW_VILLAGE)
    assert new["label"] == "Agios Epiktitos (test)"  # named by the endpoint's rdfs:label
    assert "Agios Epiktitos (test)" in there.text


def test_an_endpoint_that_fails_is_said_and_the_index_answers(
        demo_index: CrmGraphIndex, local: ExactAnswerer) -> None:
    down = ExactAnswerer(demo_index, endpoint=PlanEndpoint("http://127.0.0.1:9/query",
                                                           timeout=2))
    question = "which places are in nicosia district"
    here, there = local.answer(question), down.answer(question)
    assert there.backend == "parquet" and _shape(there) == _shape(here)
    assert "not on the endpoint: the endpoint failed" in there.text


def test_the_backend_is_chosen_explicitly() -> None:
    assert plan_endpoint("parquet") is None
    with pytest.raises(ValueError, match="needs the endpoint"):
        plan_endpoint("sparql")
    with pytest.raises(ValueError, match="sparql exact backend only"):
        plan_endpoint("parquet", "http://127.0.0.1:9/query")
    with pytest.raises(ValueError, match="unknown exact backend"):
        plan_endpoint("duckdb")
    with pytest.raises(SystemExit):
        cli.main(["ask", "--index", "unused", "--exact-backend", "sparql", "a question"])


def test_pipeline_and_cli_answer_on_the_endpoint(
        demo_index: CrmGraphIndex, serve_graph: Callable[[Path], str],
        capsys: pytest.CaptureFixture[str]) -> None:
    url = serve_graph(DEMO_GRAPH)
    pipeline = CrmQueryPipeline(demo_index, exact_backend="sparql", endpoint=url)
    answer = pipeline.run("which places are in nicosia district")
    assert answer.exact is not None and answer.exact.backend == "sparql"
    assert answer.to_dict()["exact"]["backend"] == "sparql"
    code = cli.main(["ask", "--index", str(demo_index.folder), "--exact-backend", "sparql",
                     "--endpoint", url, "--json", "how many works are there"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["exact"]["backend"] == "sparql" and data["count"] > 0


def test_time_spans_are_read_as_the_index_reads_them() -> None:
    # NMWA records two births for one artist: the span covers both, so it lies in no decade
    assert span_of(["1785-01-01", "1812-01-01"], ["1785-12-31", "1812-12-31"], "1785") == \
        (1785, 1812)
    assert span_of([], [], "between 1765 and 1766") == (1765, 1766)


@pytest.mark.parametrize("question", [
    "which places are in nicosia district",
    "how many things were made in the 12th century",
    "how many works have panagia in their title",
    "what is the oldest work",
    "how many works per century",
    "where is asinou",  # a closure from bound starts: a sub-select, not VALUES
    "how many churches are in nicosia district",  # types, broader types, wholes of parts
    "which churches depict the virgin mary",
])
def test_virtuoso_answers_as_the_index(
        local: ExactAnswerer, on_virtuoso: ExactAnswerer, question: str) -> None:
    here, there = local.answer(question), on_virtuoso.answer(question)
    assert there.backend == "sparql" and _shape(there) == _shape(here)
    assert there.text == _unwitnessed(here.text)
