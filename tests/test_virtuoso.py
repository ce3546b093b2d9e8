"""Virtuoso as a real SPARQL endpoint: started from the Debian package by the fixture
(skipped with the reason when ``virtuoso-t`` is not installed; ``make virtuoso``)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import DEMO, NO_VIRTUOSO
from conftest import DEMO_GRAPH_IRI as DEMO_GRAPH

from llama_index_crm.build.builder import FRPaths
from llama_index_crm.build.documents import EntityDocument
from llama_index_crm.build.folder import build_folder
from llama_index_crm.cli import main as cli_main
from llama_index_crm.errors import SourceError
from llama_index_crm.rdf import XSD
from llama_index_crm.sources import RdfFileSource, SparqlEndpointSource
from llama_index_crm.sources.virtuoso_server import DBA, VirtuosoServer, virtuoso_binaries

NUMBERS_GRAPH = "https://example.org/numbers"
NUMBERS = f"""\
<https://example.org/n/1> <https://example.org/p/value> "73.0"^^<{XSD}double> .
<https://example.org/n/1> <https://example.org/p/value> "1.5e-7"^^<{XSD}double> .
<https://example.org/n/1> <https://example.org/p/value> ".3"^^<{XSD}double> .
<https://example.org/n/1> <https://example.org/p/value> "76.50"^^<{XSD}decimal> .
<https://example.org/n/1> <https://example.org/p/value> "+007"^^<{XSD}integer> .
<https://example.org/n/1> <https://example.org/p/value> "76.2"^^<{XSD}float> .
<https://example.org/n/1> <https://example.org/p/value> "1"^^<{XSD}boolean> .
<https://example.org/n/1> <https://example.org/p/value> "1105"^^<{XSD}gYear> .
<https://example.org/n/1> <https://example.org/p/value> "Asinou"@en .
"""


@pytest.fixture(scope="module")
def files_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[EntityDocument], Path]:
    out = tmp_path_factory.mktemp("files") / "index"
    with RdfFileSource([DEMO]) as files:
        docs, _ = build_folder(files, out)
    return list(docs), out


def _texts(folder: Path) -> dict[str, str]:
    rows = pq.read_table(folder / "documents.parquet", columns=["doc_id", "text"]).to_pylist()
    return {row["doc_id"]: row["text"] for row in rows}


def _triples(folder: Path) -> list[str]:
    return sorted(map(str, pq.read_table(folder / "triples.parquet").to_pylist()))


@pytest.mark.parametrize("fr_paths", ["auto", "sparql"])
def test_build_from_virtuoso_with_graph_equals_files(
    virtuoso: VirtuosoServer, files_build: tuple[list[EntityDocument], Path], tmp_path: Path,
    fr_paths: FRPaths, caplog: pytest.LogCaptureFixture,
) -> None:
    """``auto`` walks the FR paths on Virtuoso (one warning); ``sparql`` runs them as queries
    with bound closures. Both give the documents and triples of the files."""
    source = SparqlEndpointSource(virtuoso.url, graphs=[DEMO_GRAPH])
    with caplog.at_level(logging.WARNING):
        docs, _ = build_folder(source, tmp_path / "v", chunk_size=100, fr_paths=fr_paths)
    expected, folder = files_build
    assert [(d.uri, d.text) for d in docs] == [(d.uri, d.text) for d in expected]
    assert _triples(tmp_path / "v") == _triples(folder)
    walked = [r for r in caplog.records if "walked through fetched neighbourhoods" in r.message]
    assert len(walked) == (1 if fr_paths == "auto" else 0)
    assert source.profile.name == "Virtuoso" and source.fr_closures == "bound"


def test_system_graphs_are_left_out(virtuoso: VirtuosoServer,
                                    caplog: pytest.LogCaptureFixture) -> None:
    """Without --graph, Virtuoso's default graph holds its own triples (virtrdf:, the
    service description): they are left out, with a warning naming them."""
    with RdfFileSource([DEMO]) as files:
        expected = files.entities()
    source = SparqlEndpointSource(virtuoso.url)
    with caplog.at_level(logging.WARNING):
        entities = source.entities()
    assert DEMO_GRAPH in source.graphs
    assert not any("openlinksw" in g for g in source.graphs)
    assert set(expected) <= set(entities)
    assert not any("openlinksw" in e or "localuriqaserver" in e for e in entities)
    assert "virtrdf#" in caplog.text and "--graph" in caplog.text


def test_cli_build_from_virtuoso_records_the_graph(
    virtuoso: VirtuosoServer, files_build: tuple[list[EntityDocument], Path], tmp_path: Path,
) -> None:
    out = tmp_path / "index"
    assert cli_main(["build", "--endpoint", virtuoso.url, "--graph", DEMO_GRAPH, "--out",
                     str(out), "--no-embed", "-q", "--timeout", "30", "--workers", "2",
                     "--chunk-size", "100"]) == 0
    assert _texts(out) == _texts(files_build[1])
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["source_settings"]["graphs"] == [DEMO_GRAPH]
    assert manifest["source_settings"]["profile"] == "Virtuoso"


def test_digest_authentication(virtuoso: VirtuosoServer) -> None:
    """``/sparql-auth`` asks for HTTP digest authentication."""
    source = SparqlEndpointSource(virtuoso.auth_url, auth=DBA, graphs=[DEMO_GRAPH], retries=0)
    assert len(source.entities()) == 310
    with pytest.raises(SourceError, match=r"HTTP 401.*check the credentials \(from --auth\)"):
        SparqlEndpointSource(virtuoso.auth_url, auth=("dba", "wrong"), retries=0).entities()


def test_numbers_read_the_same_as_from_files(virtuoso: VirtuosoServer, tmp_path: Path) -> None:
    """Virtuoso writes 73.0 for "73.0"^^xsd:double where Oxigraph writes 73: literals from
    an endpoint are put in Oxigraph's canonical form."""
    path = tmp_path / "numbers.nt"
    path.write_text(NUMBERS)
    virtuoso.load([path], NUMBERS_GRAPH)
    node = ["https://example.org/n/1"]
    with RdfFileSource([path]) as files:
        expected = set(files.fetch(node))
    assert len(expected) == 9
    assert set(SparqlEndpointSource(virtuoso.url, graphs=[NUMBERS_GRAPH]).fetch(node)) == expected


def test_an_answer_cut_at_the_row_cap_is_an_error(tmp_path: Path) -> None:
    """A default Virtuoso cuts answers at ResultSetMaxRows (10,000) without an error, only a
    header: the source refuses to build from a partial graph and says what to do."""
    if virtuoso_binaries() is None:
        pytest.skip(NO_VIRTUOSO)
    with VirtuosoServer([DEMO], tmp_path, DEMO_GRAPH, max_rows=100) as capped:
        source = SparqlEndpointSource(capped.url, graphs=[DEMO_GRAPH])
        with pytest.raises(SourceError, match=r"cut an answer at 100 rows.*--page-size 100"):
            source.entities()
        paged = SparqlEndpointSource(capped.url, graphs=[DEMO_GRAPH], page_size=100)
        assert len(paged.entities()) == 310


ILL_TYPED_DATES = f"""\
@prefix crm: <http://www.cidoc-crm.org/cidoc-crm/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <{XSD}> .
<https://example.org/production/1> a crm:E12_Production ; rdfs:label "Production of a bird" ;
    crm:P4_has_time-span <https://example.org/timespan/1> .
<https://example.org/timespan/1> a crm:E52_Time-Span ; rdfs:label "2011" ;
    crm:P82a_begin_of_the_begin "-01-01"^^xsd:date ; crm:P82b_end_of_the_end "-12-31"^^xsd:date .
"""


def test_ill_typed_dates_give_the_same_documents(virtuoso: VirtuosoServer,
                                                 tmp_path: Path) -> None:
    """NMWA has "-01-01"^^xsd:date, which Virtuoso loads as 0000-01-01: documents leave
    ill-typed dates out, so both read "Date: 2011"."""
    path = tmp_path / "dates.ttl"
    path.write_text(ILL_TYPED_DATES)
    graph = "https://example.org/dates"
    virtuoso.load([path], graph)
    with RdfFileSource([path]) as files:
        expected, _ = build_folder(files, tmp_path / "files")
    docs, _ = build_folder(SparqlEndpointSource(virtuoso.url, graphs=[graph]), tmp_path / "v")
    assert [d.text for d in docs] == [d.text for d in expected]
    assert expected[0].text.endswith("\nDate: 2011")
