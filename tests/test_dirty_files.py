"""The files museums publish: bad lines are skipped and reported, the rest builds; odd
encodings, relative IRIs, .n3 that is N-Triples, RDF/XML, Linked Art JSON-LD offline, and
named graphs chosen with --graph."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pyarrow.parquet as pq
import pyoxigraph as ox
import pytest
from conftest import SHARED, requires_shared

from llama_index_crm.build.folder import REJECTED
from llama_index_crm.cli import main as cli_main
from llama_index_crm.errors import SourceError
from llama_index_crm.rdf import Literal, Triple
from llama_index_crm.sources import RdfFileSource, jsonld_contexts

EX = "http://example.org/"
CRM = "http://www.cidoc-crm.org/cidoc-crm/"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
ACM = SHARED / "datasets" / "acm" / "consolidated_data.n3.zip"

DIRTY_NT = (
    "\ufeff"  # a byte-order mark
    f'<{EX}a> <{RDF_TYPE}> <{CRM}E22_Human-Made_Object> .\r\n'  # CRLF line ends
    f'<{EX}a> <{RDFS_LABEL}> "ok" .\r\n'
    f'<{EX}a> <{CRM}P2_has_type> <{EX}type]> .\n'  # line 3: bad IRI
    f'<{EX}a> <{RDFS_LABEL}> "bad \\q escape" .\n'  # line 4: bad escape
    f'<{EX}a> <{RDFS_LABEL}> "broken literal .\n'  # line 5: unterminated
    f'<{EX}a> <{CRM}P43_has_dimension> _:d .\n'
    f'<{EX}b]> <{RDFS_LABEL}> "x" .\n'  # line 7: bad IRI
    f'_:d <{CRM}P90_has_value> "42" .\n'  # the same blank node after skipped lines
    "<relative> <{RDFS_LABEL}> \"no base in N-Triples\" .\n".replace("{RDFS_LABEL}", RDFS_LABEL)
).encode("utf-8") + f'<{EX}a> <{RDFS_LABEL}> "caf\xe9"@fr .\n'.encode("latin-1")

DIRTY_TTL = f"""@prefix ex: <{EX}> .
@prefix crm: <{CRM}> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:a a crm:E22_Human-Made_Object ;
    rdfs:label "one" .
ex:b rdfs:label "two" ;
    crm:P2_has_type <{EX}bad]> .
ex:c rdfs:label "three
    continued" .
ex:d rdfs:label "four" ; crm:P2_has_type <relative/type> .
ex:e rdfs:label "fi\\qve" .
ex:f rdfs:label "six" .
"""


def _labels(source: RdfFileSource) -> set[str]:
    return {str(t.o.value) for t in source.fetch(source.entities(), incoming=False)
            if t.p == RDFS_LABEL and isinstance(t.o, Literal)}


def test_dirty_ntriples_keep_the_good_statements_and_report_the_bad(tmp_path: Path) -> None:
    path = tmp_path / "dump.nt"
    path.write_bytes(DIRTY_NT)
    with RdfFileSource([path]) as source:
        report = source.report
        assert [(r.line, r.message.split(":")[0]) for r in report.rejections] == [
            (3, "Invalid IRI code point ']'"), (4, "Unexpected escape character '\\q'"),
            (5, "Line jumps are not allowed in string literals, use \\n"),
            (7, "Invalid IRI code point ']'"), (9, "No scheme found in an absolute IRI")]
        assert report.rejections[0].text == f"<{EX}a> <{CRM}P2_has_type> <{EX}type]> ."
        assert report.latin1_bytes == {str(path): 1}
        triples = set(source.fetch([EX + "a"], incoming=False))
        assert Triple(EX + "a", RDFS_LABEL, Literal("café", "fr", None)) in triples
        assert Triple(EX + "a", RDFS_LABEL, Literal("ok")) in triples
        blank = next(t.o for t in triples if t.p == CRM + "P43_has_dimension")
        assert isinstance(blank, str)  # one node on both sides of the skipped lines
        assert Triple(blank, CRM + "P90_has_value", Literal("42")) in source.fetch([blank])
        assert source.triple_count() == 5
    with pytest.raises(SourceError, match=r"dump\.nt, line 3.*without --strict"):
        RdfFileSource([path], strict=True)


def test_dirty_turtle_skips_to_the_end_of_each_bad_statement(tmp_path: Path) -> None:
    path = tmp_path / "dump.ttl"
    path.write_text(DIRTY_TTL, encoding="utf-8")
    with RdfFileSource([path]) as source:
        assert [r.line for r in source.report.rejections] == [7, 8, 11]
        # prefixes hold after each restart; a relative IRI resolves against the file's URL
        assert _labels(source) == {"one", "two", "four", "six"}
        types = {t.o for t in source.fetch([EX + "d"], incoming=False)}
        assert path.parent.resolve().as_uri() + "/relative/type" in types
    with RdfFileSource([path], base_iri="https://museum.example/") as based:
        types = {t.o for t in based.fetch([EX + "d"], incoming=False)}
        assert "https://museum.example/relative/type" in types


def test_n3_that_is_ntriples_and_n3_that_is_turtle(tmp_path: Path) -> None:
    nt, ttl = tmp_path / "a.n3", tmp_path / "b.n3"
    nt.write_text(f'# a comment\n<{EX}a> <{RDFS_LABEL}> "a" .\n<{EX}a> <{RDFS_LABEL}> "b\n')
    ttl.write_text(f'@prefix ex: <{EX}> .\nex:b <{RDFS_LABEL}> "c" .\n')
    with RdfFileSource([nt, ttl]) as source:
        assert _labels(source) == {"a", "c"}
        assert [r.line for r in source.report.rejections] == [3]


def test_cli_reports_the_rejected_and_writes_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "dump.nt"
    path.write_bytes(DIRTY_NT)
    out = tmp_path / "index"
    assert cli_main(["build", str(path), "--out", str(out), "--no-embed", "-q"]) == 0
    printed = capsys.readouterr().out
    assert "rejected statements    5" in printed and "bytes read as Latin-1  1" in printed
    assert f"{path}, line 3: Invalid IRI code point ']'" in printed
    rejected = (out / REJECTED).read_text(encoding="utf-8")
    assert rejected.count("\n# ") == 5 and f"<{EX}b]> <{RDFS_LABEL}> \"x\" ." in rejected
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["stats"]["rejected_statements"] == 5
    assert manifest["source_settings"]["latin1_bytes"] == 1
    assert cli_main(["build", str(path), "--out", str(tmp_path / "x"), "--strict", "-q"]) == 1
    assert "line 3" in capsys.readouterr().err and not (tmp_path / "x").exists()


LINKED_ART = {
    "@context": "https://linked.art/ns/v1/linked-art.json",
    "id": "https://museum.example/object/1",
    "type": "HumanMadeObject",
    "_label": "Portrait of a Lady",
    "identified_by": [{"type": "Name", "content": "Portrait of a Lady"}],
    "produced_by": {
        "type": "Production",
        "carried_out_by": [{"id": "https://museum.example/person/1", "type": "Person",
                            "_label": "Joshua Reynolds"}],
    },
}


def test_a_linked_art_context_without_a_saved_copy_says_where_to_put_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(jsonld_contexts.CONTEXTS_ENV, str(tmp_path / "none"))
    jsonld_contexts._saved.cache_clear()
    path = tmp_path / "object.jsonld"
    path.write_text(json.dumps(LINKED_ART))
    try:
        with pytest.raises(SourceError, match=r"no saved copy .*LLAMA_INDEX_CRM_CONTEXTS"):
            RdfFileSource([path])
    finally:
        jsonld_contexts._saved.cache_clear()


@requires_shared
def test_linked_art_json_ld_builds_offline(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(jsonld_contexts.CONTEXTS_ENV, str(SHARED / "datasets" / "ontology"))
    jsonld_contexts._saved.cache_clear()
    path = tmp_path / "object.jsonld"
    path.write_text(json.dumps(LINKED_ART))
    out = tmp_path / "index"
    assert cli_main(["build", str(path), "--out", str(out), "--no-embed", "-q"]) == 0
    texts = dict(zip(*pq.read_table(out / "documents.parquet", columns=["doc_id", "text"])
                     .to_pydict().values(), strict=True))
    lady = texts["https://museum.example/object/1"]
    assert lady.startswith("[Thing] Portrait of a Lady")
    assert "Joshua Reynolds" in lady
    other = dict(LINKED_ART, **{"@context": "https://example.org/unknown-context.json"})
    path.write_text(json.dumps(other))
    with pytest.raises(SourceError, match=r"remote JSON-LD context .*unknown-context"):
        RdfFileSource([path])


def test_rdf_xml_reads_like_turtle(tmp_path: Path) -> None:
    ttl = tmp_path / "g.ttl"
    ttl.write_text(DIRTY_TTL.split("ex:b")[0])
    xml = tmp_path / "g.rdf"
    xml.write_bytes(ox.serialize(ox.parse(path=str(ttl)), format=ox.RdfFormat.RDF_XML) or b"")
    with RdfFileSource([ttl]) as expected, RdfFileSource([xml]) as source:
        assert source.fetch(source.entities()) == expected.fetch(expected.entities())


@pytest.mark.parametrize("suffix", [".trig", ".nq"])
def test_graph_option_reads_only_the_named_graphs(tmp_path: Path, suffix: str) -> None:
    quads = [ox.Quad(ox.NamedNode(EX + s), ox.NamedNode(RDFS_LABEL), ox.Literal(s),
                     ox.NamedNode(EX + g) if g else ox.DefaultGraph())
             for s, g in (("a", "g1"), ("b", "g2"), ("c", None), ("d", "g1"))]
    fmt = ox.RdfFormat.TRIG if suffix == ".trig" else ox.RdfFormat.N_QUADS
    path = tmp_path / f"data{suffix}"
    path.write_bytes(ox.serialize(quads, format=fmt) or b"")
    with RdfFileSource([path]) as everything:
        assert everything.entities() == [EX + "a", EX + "b", EX + "c", EX + "d"]
    with RdfFileSource([path], graphs=[EX + "g1"]) as one:
        assert one.entities() == [EX + "a", EX + "d"]
        assert one.fetch([EX + "b"]) == [] and one.triple_count() == 2
        assert one.select("SELECT ?s WHERE { ?s ?p ?o }", ["s"]) != []
    with RdfFileSource([path], graphs=[EX + "g1", EX + "g2"]) as two:
        assert len(two.entities()) == 3
    with pytest.raises(SourceError, match=r"no named graph http://example.org/g3"):
        RdfFileSource([path], graphs=[EX + "g3"])


@requires_shared
@pytest.mark.slow
def test_amon_carter_dump_builds_reporting_69_rejected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's dump: 69 statements with ']' in an IRI, 236,337 triples kept."""
    with zipfile.ZipFile(ACM) as archive:
        assert archive.namelist() == ["consolidated_data.n3"]
    out = tmp_path / "acm"
    assert cli_main(["build", str(ACM), "--out", str(out), "--no-embed", "-q"]) == 0
    printed = capsys.readouterr().out
    assert "rejected statements  69" in printed
    assert "(member consolidated_data.n3), line 56706: Invalid IRI code point ']'" in printed
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["stats"]["rejected_statements"] == 69
    assert manifest["stats"]["triples_archived"] == 236_337
    assert (out / REJECTED).read_text().count("\n# ") == 69
