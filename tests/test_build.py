"""The build phase on real graphs: the demo graph, the same graph through a SPARQL server,
and (when ../shared is present) the Yale Center for British Art graph."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import SHARED, requires_shared
from llama_index.core.ingestion import IngestionPipeline
from llama_index.core.readers.base import ReaderConfig
from llama_index.core.schema import MetadataMode

from llama_index_crm.build import CidocCrmReader, DocumentBuilder, EntityDocument
from llama_index_crm.build.builder import FRPaths
from llama_index_crm.build.folder import build_folder, work_dir_for
from llama_index_crm.cli import main as cli_main
from llama_index_crm.errors import EmptyGraphError, SourceError
from llama_index_crm.sources import RdfFileSource, SparqlEndpointSource

DEMO = Path(__file__).resolve().parents[1] / "examples" / "data" / "troodos.ttl"
T = "https://example.org/troodos/"
IRI_AS_NAME = re.compile(r"(?:^|: |; |\] )https?://[^\s;]+(?:$|;| \()", re.MULTILINE)


@pytest.fixture(scope="module")
def demo_docs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EntityDocument]:
    with RdfFileSource([DEMO]) as source:
        docs, _ = build_folder(source, tmp_path_factory.mktemp("demo") / "index")
    return {d.uri: d for d in docs}


def test_asinou_document_walks_places_production_and_dates(
    demo_docs: dict[str, EntityDocument],
) -> None:
    doc = demo_docs[T + "church/asinou"]
    lines = doc.text.splitlines()
    assert lines[0] == "[Thing] Panagia Phorbiottissa (Asinou)"
    located = next(line for line in lines if line.startswith("Is/was located in (place): "))
    # village → district → country through P53 + P89_falls_within+
    for place in ("Nikitari (village)", "Nicosia District (district)", "Cyprus (country)"):
        assert place in located
    # the founder is reached through the production event (P108i → P14)
    created_by = next(line for line in lines if line.startswith("Created by (actor): "))
    assert "Nikephoros Ischyrios (donor" in created_by
    created_in = next(line for line in lines if line.startswith("Created in (event): "))
    assert "Construction of the Panagia Phorbiottissa, Asinou (construction, 1105–1106)" in (
        created_in
    )


def test_greek_appellation_kept_with_its_language_tag(
    demo_docs: dict[str, EntityDocument],
) -> None:
    names = next(
        line for line in demo_docs[T + "church/asinou"].text.splitlines()
        if line.startswith("Names: ")
    )
    assert "Παναγία Φορβιώτισσα (el, preferred name)" in names
    assert "Panagia Phorbiottissa (Asinou) (en, preferred name)" in names


def test_no_iri_is_ever_shown_as_a_name(demo_docs: dict[str, EntityDocument]) -> None:
    for doc in demo_docs.values():
        assert "example.org" not in doc.text, doc.text
        assert not doc.label.startswith("http")
    # the unlabelled painting campaign at Pelendri is named after what it produced
    pelendri = demo_docs[T + "production/pelendri-painting-14th-c"]
    assert pelendri.label.startswith("Production of ")
    assert "(unlabelled)" not in pelendri.label


def test_unlabelled_shared_type_keeps_its_own_stand_in_name(tmp_path: Path) -> None:
    """An unlabelled vocabulary term (NPG's Getty AAT types) is not named after one of its
    users: two credit lines of one unlabelled type would both read "Type of <the other>"."""
    graph = tmp_path / "g.ttl"
    graph.write_text("""
        @prefix crm: <http://www.cidoc-crm.org/cidoc-crm/> .
        @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
        @prefix aat: <http://vocab.getty.edu/aat/> .
        @prefix ex: <http://example.org/> .
        aat:300026687 a crm:E55_Type .
        ex:credit1 a crm:E33_Linguistic_Object ; rdfs:label "Gift of A" ;
            crm:P2_has_type aat:300026687 .
        ex:credit2 a crm:E33_Linguistic_Object ; rdfs:label "Gift of B" ;
            crm:P2_has_type aat:300026687 .
        ex:production1 a crm:E12_Production ; crm:P108_has_produced ex:credit1 .
    """)
    with RdfFileSource([graph]) as source:
        docs, _ = build_folder(source, tmp_path / "index", chunk_size=1)
    text = {d.uri: d.text for d in docs}
    for doc in docs:  # thin documents are chained into a neighbour's
        text.update(dict.fromkeys(doc.chained_from, doc.text))
    assert "Type: aat 300026687 (unlabelled)" in text["http://example.org/credit1"]
    assert "Type of" not in text["http://example.org/credit2"]
    # an unlabelled event is still named after what it links to
    assert "Production of Gift of A" in text["http://example.org/production1"]


def test_inverse_and_forward_production_links_both_walk(
    demo_docs: dict[str, EntityDocument],
) -> None:
    # Lagoudera's production is written forward (production P108_has_produced church)
    text = demo_docs[T + "church/panagia-tou-araka"].text
    assert "Created in (event): " in text
    assert "1192" in text


def test_satellites_and_chaining_counts(tmp_path: Path) -> None:
    with RdfFileSource([DEMO]) as source:
        docs, stats = build_folder(source, tmp_path / "index")
    assert stats.entities == 310
    # 62 appellations, 14 identifiers, 66 types (with the unit), 25 time-spans,
    # 4 dimensions, 1 right
    assert stats.satellites_absorbed == 172
    assert stats.uncategorised == 0
    assert stats.documents_chained == 12
    assert stats.documents == len(docs) == 126
    assert stats.triples_archived == 1354
    kept = {d.uri for d in docs}
    chained = [u for d in docs for u in d.chained_from]
    assert len(chained) == 12 and not kept & set(chained)
    # events, people and places are never chained away
    kept_kinds = tuple(T + kind for kind in ("production/", "person/", "place/"))
    assert not any(u.startswith(kept_kinds) for u in chained)
    # no document in a satellite class survives
    satellite_prefixes = tuple(T + p for p in ("appellation/", "timespan/", "type/"))
    assert not any(d.uri.startswith(satellite_prefixes) for d in docs)


@pytest.mark.parametrize("fr_paths", ["sparql", "walk"])
def test_files_and_sparql_endpoint_give_byte_identical_documents(
    tmp_path: Path, serve_graph: Callable[[Path], str], fr_paths: FRPaths
) -> None:
    url = serve_graph(DEMO)
    with RdfFileSource([DEMO]) as files:
        from_files, _ = build_folder(files, tmp_path / "files")
    endpoint = SparqlEndpointSource(url, timeout=10)
    from_endpoint, _ = build_folder(endpoint, tmp_path / "endpoint", chunk_size=100,
                                    fr_paths=fr_paths)
    assert [(d.uri, d.text) for d in from_files] == [(d.uri, d.text) for d in from_endpoint]
    a = pq.read_table(tmp_path / "files" / "triples.parquet").sort_by("s").to_pylist()
    b = pq.read_table(tmp_path / "endpoint" / "triples.parquet").sort_by("s").to_pylist()
    assert sorted(map(str, a)) == sorted(map(str, b))


def test_chunk_size_and_workers_do_not_change_documents(
    demo_docs: dict[str, EntityDocument], tmp_path: Path
) -> None:
    with RdfFileSource([DEMO]) as source:
        docs, _ = build_folder(source, tmp_path / "i", chunk_size=37, workers=2)
    assert {d.uri: d.text for d in docs} == {u: d.text for u, d in demo_docs.items()}


def _index_tables(folder: Path) -> dict[str, list[str]]:
    """The rows of an index folder's Parquet files (triples in no particular order)."""
    return {name: sorted(map(str, pq.read_table(folder / name).to_pylist()))
            for name in ("documents.parquet", "triples.parquet", "fr_edges.parquet")}


def test_walked_and_sparql_fr_paths_build_the_same_index(tmp_path: Path) -> None:
    """FR targets by SPARQL property paths or by the walk: the same documents, triples and
    FR graph (the walk fetches intermediates hop by hop; the queries never fetch them)."""
    with RdfFileSource([DEMO]) as source:
        walked, _ = build_folder(source, tmp_path / "walk", fr_paths="walk", chunk_size=50)
        queried, _ = build_folder(source, tmp_path / "sparql", fr_paths="sparql",
                                  chunk_size=50)
    edges = pq.read_table(tmp_path / "sparql" / "fr_edges.parquet").to_pylist()
    assert {"s": T + "church/asinou", "fr": "thing-place-is-located-in",
            "o": T + "place/cyprus", "direct": False, "widened_by": "P89_falls_within",
            "via": T + "place/asinou"} in edges  # through the village and the district
    assert _index_tables(tmp_path / "walk") == _index_tables(tmp_path / "sparql")
    with pytest.raises(ValueError, match="fr_paths"):
        DocumentBuilder(RdfFileSource([DEMO]), tmp_path / "x", fr_paths="bfs")  # type: ignore[arg-type]


def test_interrupted_build_leaves_previous_folder_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "index"
    with RdfFileSource([DEMO]) as source:
        first, _ = build_folder(source, out)
    before = (out / "documents.parquet").read_bytes()

    class Stop(Exception):
        pass

    def stop_after_two(done: int, total: int) -> None:
        if done >= 100:
            raise Stop

    with RdfFileSource([DEMO]) as source, pytest.raises(Stop):
        build_folder(source, out, chunk_size=50, on_chunk=stop_after_two)
    assert (out / "documents.parquet").read_bytes() == before
    assert work_dir_for(out.resolve()).exists()

    seen: list[int] = []
    with RdfFileSource([DEMO]) as source:
        resumed, stats = build_folder(
            source, out, chunk_size=50, resume=True, on_chunk=lambda d, t: seen.append(d)
        )
    assert seen[0] > 100  # the two checkpointed chunks were not built again
    assert not work_dir_for(out.resolve()).exists()
    assert {d.uri: d.text for d in resumed} == {d.uri: d.text for d in first}
    assert stats.entities == 310 and stats.satellites_absorbed == 172


def test_malformed_rdf_with_strict_names_file_and_line_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.ttl"
    bad.write_text('@prefix ex: <http://ex.org/> .\nex:a ex:b "c"\nex:d ex:e ex:f .\n')
    assert cli_main(["build", str(bad), "--out", str(tmp_path / "out"), "-q", "--strict"]) == 1
    err = capsys.readouterr().err
    assert "bad.ttl" in err and "line 3" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [("", "holds no entities"),
     ('<http://ex.org/a> <http://ex.org/b> "c" .\n', "typed with a CIDOC-CRM class")],
)
def test_empty_or_crm_free_graph_fails_clearly(tmp_path: Path, content: str,
                                              message: str) -> None:
    path = tmp_path / "g.nt"
    path.write_text(content)
    out = tmp_path / "out"
    with RdfFileSource([path]) as source, pytest.raises(EmptyGraphError, match=message):
        build_folder(source, out)
    assert not out.exists() and not work_dir_for(out.resolve()).exists()


def test_unreachable_endpoint_fails_naming_it(tmp_path: Path) -> None:
    source = SparqlEndpointSource("http://127.0.0.1:9/sparql", timeout=1, retries=0)
    with pytest.raises(SourceError, match="127.0.0.1:9"):
        build_folder(source, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_reader_yields_documents_with_hidden_uri(tmp_path: Path) -> None:
    reader = CidocCrmReader(paths=[str(DEMO)], write_markdown=True,
                            markdown_dir=str(tmp_path / "md"))
    docs = list(reader.lazy_load_data())
    assert len(docs) == 126
    church = next(d for d in docs if d.metadata["uri"] == T + "church/asinou")
    assert church.id_ == T + "church/asinou"
    assert church.metadata["category"] == "Thing"
    assert church.metadata["label"] == "Panagia Phorbiottissa (Asinou)"
    for mode in (MetadataMode.EMBED, MetadataMode.LLM):
        assert "example.org" not in church.get_content(mode)
    assert church.get_content(MetadataMode.EMBED).startswith("[Thing] Panagia Phorbiottissa")
    # the triple store it filled answers neighbour look-ups
    assert T + "place/asinou" in reader.triple_store.neighbours(T + "church/asinou")
    assert len(list((tmp_path / "md").rglob("*.md"))) == 126


def test_reader_runs_inside_an_ingestion_pipeline() -> None:
    pipeline = IngestionPipeline(
        readers=[ReaderConfig(reader=CidocCrmReader(paths=[str(DEMO)]))], transformations=[]
    )
    nodes = pipeline.run()
    assert len(nodes) == 126
    assert all("uri" in n.metadata for n in nodes)


def test_builder_checkpoints_each_chunk(tmp_path: Path) -> None:
    with RdfFileSource([DEMO]) as source:
        builder = DocumentBuilder(source, tmp_path, chunk_size=100)
        done = list(builder.run())
        assert done == [100, 200, 300, 310]
        assert len(list((tmp_path / "parts").glob("docs-*.parquet"))) == 4
        docs = builder.finish()
    assert len(docs) == 126
    assert not (tmp_path / "parts").exists()
    assert (tmp_path / "triples.parquet").exists()


# -- the Yale Center for British Art graph (../shared) -----------------------------------

YCBA = SHARED / "datasets" / "ycba" / "ycba_data.n3.zip"


@pytest.fixture(scope="module")
def ycba_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[EntityDocument], Path]:
    """The YCBA documents and the folder they were built into."""
    if not YCBA.exists():
        pytest.skip("../shared/datasets/ycba not present")
    folder = tmp_path_factory.mktemp("ycba") / "index"
    with RdfFileSource([YCBA]) as source:
        docs, _ = build_folder(source, folder, workers=2)
    return list(docs), folder


@pytest.fixture(scope="module")
def ycba_docs(ycba_build: tuple[list[EntityDocument], Path]) -> list[EntityDocument]:
    return ycba_build[0]


@requires_shared
def test_ycba_never_names_anything_by_a_bare_iri(ycba_docs: list[EntityDocument]) -> None:
    assert len(ycba_docs) > 3000
    for doc in ycba_docs:
        assert not doc.label.startswith(("http://", "https://")), doc.uri
        names = "\n".join(line for line in doc.text.splitlines()
                          if not line.startswith("Identifiers: "))
        assert not IRI_AS_NAME.search(names), (doc.uri, IRI_AS_NAME.search(names))


@requires_shared
def test_ycba_walked_and_sparql_fr_paths_give_the_same_documents(
    ycba_build: tuple[list[EntityDocument], Path], tmp_path: Path
) -> None:
    ycba_docs, folder = ycba_build
    with RdfFileSource([YCBA]) as source:
        walked, _ = build_folder(source, tmp_path / "walk", fr_paths="walk", workers=2)
    assert [(d.uri, d.text) for d in walked] == [(d.uri, d.text) for d in ycba_docs]
    edges = [pq.read_table(folder / "fr_edges.parquet")
             for folder in (tmp_path / "walk", folder)]
    assert edges[0].num_rows > 30_000
    assert edges[0].equals(edges[1])


@requires_shared
def test_ycba_every_produced_object_names_its_maker(ycba_docs: list[EntityDocument]) -> None:
    query = """
        PREFIX crm: <http://www.cidoc-crm.org/cidoc-crm/>
        PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
        SELECT ?obj ?actor ?name WHERE {
          ?obj a crm:E22_Man-Made_Object ; crm:P108i_was_produced_by ?prod .
          ?prod crm:P14_carried_out_by ?actor . ?actor rdfs:label ?name .
        }"""
    with RdfFileSource([YCBA]) as source:
        makers: dict[tuple[str, str], set[str]] = {}
        for r in source.store.query(query):  # type: ignore[union-attr]
            makers.setdefault((r["obj"].value, r["actor"].value), set()).add(r["name"].value)
    assert len(makers) > 500
    text = {d.uri: d.text for d in ycba_docs}
    for chained in ycba_docs:
        for uri in chained.chained_from:
            text[uri] = chained.text
    # an actor with several rdfs:labels is named by one of them
    missing = [(o, names) for (o, _), names in makers.items()
               if not any(n in text.get(o, "") for n in names)]
    assert not missing, missing[:5]


@requires_shared
def test_ycba_makers_are_direct_and_their_groups_derived(
    ycba_build: tuple[list[EntityDocument], Path],
) -> None:
    """No artwork names a nationality group as a direct creator when a person carried out
    its production; the groups stand apart ("— by membership: British"), through the maker."""
    ycba_docs, folder = ycba_build
    query = """
        PREFIX crm: <http://www.cidoc-crm.org/cidoc-crm/>
        SELECT ?obj ?actor ?group WHERE {
          ?obj crm:P108i_was_produced_by/crm:P14_carried_out_by ?actor .
          ?actor a crm:E21_Person .
          OPTIONAL { ?actor crm:P107i_is_current_or_former_member_of ?group }
        }"""
    with RdfFileSource([YCBA]) as source:
        rows = list(source.store.query(query))  # type: ignore[arg-type]
    by_person = {r["obj"].value for r in rows}
    groups = {(r["obj"].value, r["group"].value) for r in rows if r["group"] is not None}
    assert len(groups) > 500
    made = [e for e in pq.read_table(folder / "fr_edges.parquet").to_pylist()
            if e["fr"] == "thing-actor-created-by"]
    direct = {(e["s"], e["o"]) for e in made if e["direct"]}
    assert not [e for e in made if e["direct"] and (e["s"], e["o"]) in groups
                and e["s"] in by_person]
    derived = [e for e in made if not e["direct"]]
    assert {(e["s"], e["o"]) for e in derived} >= groups - direct
    assert all(e["widened_by"] == "P107i_is_current_or_former_member_of"
               and (e["s"], e["via"]) in direct for e in derived)
    lines = [line for d in ycba_docs for line in d.text.splitlines()
             if line.startswith("Created by (actor): ")]
    assert sum(" — by membership: " in line for line in lines) > 500
    nationality_first = re.compile(r"Created by \(actor\): (British|American)(;| —|$)")
    assert not any(nationality_first.match(line) for line in lines)


def test_endpoint_options_are_recorded_without_secrets(
    tmp_path: Path, serve_graph: Callable[[Path], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CRM_RAG_AUTH", raising=False)
    out = tmp_path / "index"
    assert cli_main(["build", "--endpoint", serve_graph(DEMO), "--out", str(out), "--no-embed",
                     "-q", "--auth", "reader:s3cret-pw", "--header", "X-Api-Key: k3y-value",
                     "--timeout", "20", "--max-rps", "500", "--workers", "1"]) == 0
    text = (out / "manifest.json").read_text()
    assert "s3cret-pw" not in text and "k3y-value" not in text
    settings = json.loads(text)["source_settings"]
    assert settings["auth"] == {"user": "reader", "from": "--auth"}
    assert settings["headers"] == ["X-Api-Key"]
    assert (settings["timeout"], settings["max_rps"]) == (20, 500)
    assert cli_main(["build", str(DEMO), "--out", str(out), "--auth", "a:b", "-q"]) == 1


def test_a_piped_build_log_is_short_and_has_no_debug_lines(tmp_path: Path) -> None:
    """Built with stderr to a pipe (CI, a log file): no third-party DEBUG line (bm25s sets
    its logger to DEBUG) and a progress line per half minute, not a redraw per chunk.

    The half-minute lines depend on how long the build took (on a busy machine the demo
    takes over 30 s): each of the two bars may add one per 30 s. Its 16 chunks would
    redraw far more often than that."""
    import subprocess
    import sys

    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "llama_index_crm.cli", "build", str(DEMO), "--out",
         str(tmp_path / "out"), "--chunk-size", "20"],
        capture_output=True, text=True, check=True, timeout=600)
    half_minutes = int((time.monotonic() - started) // 30)
    assert "DEBUG" not in proc.stderr
    redraws = proc.stderr.count("\r") + proc.stderr.count("\n")
    assert redraws <= 8 + 2 * half_minutes, proc.stderr
    assert "Built" in proc.stdout and (tmp_path / "out" / "manifest.json").is_file()
