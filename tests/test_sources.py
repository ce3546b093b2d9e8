"""Graph sources: RDF files in process and a real SPARQL endpoint give the same graph."""

from __future__ import annotations

import base64
import gzip
import http.server
import json
import socket
import threading
import time
import urllib.parse
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest
from conftest import SHARED, requires_shared

from llama_index_crm.errors import SourceError
from llama_index_crm.rdf import XSD, Literal, Triple
from llama_index_crm.sources import (
    GraphSource,
    RdfFileSource,
    SparqlEndpointSource,
    open_source,
)
from llama_index_crm.sources._sparql_terms import (
    iri_ref,
    parse_json,
    parse_tsv,
    parse_tsv_term,
    safe_iris,
    values_query,
)
from llama_index_crm.sources.credentials import AUTH_ENV
from llama_index_crm.sources.endpoint_http import Answer, parse_header

EX = "http://example.org/"
CRM = "http://www.cidoc-crm.org/cidoc-crm/"
YCBA_SAMPLE = SHARED / "datasets" / "ycba" / "ycba_sample_150.nt.gz"
CRAFTED = "http://x/a> } ; DROP ALL ; { <http://x/b"

GRAPH_TTL = """\
@prefix crm: <http://www.cidoc-crm.org/cidoc-crm/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix ex: <http://example.org/> .

ex:asinou a crm:E22_Human-Made_Object ;
    rdfs:label "Asinou"@en , "plain label" ;
    crm:P108i_was_produced_by ex:production ;
    crm:P43_has_dimension [ a crm:E54_Dimension ; crm:P90_has_value "42"^^xsd:integer ] .
ex:production a crm:E12_Production ;
    crm:P4_has_time-span ex:timespan .
ex:timespan a crm:E52_Time-Span ;
    crm:P82_at_some_time_within "1192"^^xsd:gYear .
ex:LocalClass a rdfs:Class ; rdfs:label "a schema subject" .
crm:E22_Human-Made_Object rdfs:label "Human-Made Object"@en .
"""
ENTITIES = [EX + "asinou", EX + "production", EX + "timespan"]

GRAPH_TRIG = """\
@prefix crm: <http://www.cidoc-crm.org/cidoc-crm/> .
@prefix ex: <http://example.org/> .
ex:asinou crm:P1_is_identified_by ex:name .
ex:g1 { ex:asinou crm:P2_has_type ex:church . ex:name crm:P190_has_symbolic_content "Asinou" . }
ex:g2 { ex:asinou crm:P2_has_type ex:church . ex:church crm:P2_has_type ex:building . }
"""


def _no_blanks(triples: list[Triple]) -> set[Triple]:
    return {t for t in triples if not t.s.startswith("_:") and not str(t.o).startswith("_:")}


def _blanks_as_one(triples: list[Triple]) -> set[Triple]:
    """Triples with every blank node renamed ``_:b`` (the graphs here hold one)."""

    def name(term: str | Literal) -> str | Literal:
        return "_:b" if isinstance(term, str) and term.startswith("_:") else term

    return {Triple(str(name(t.s)), t.p, name(t.o)) for t in triples}


def _everything(source: GraphSource) -> list[Triple]:
    return source.fetch(source.entities())


@pytest.fixture()
def graph_ttl(tmp_path: Path) -> Path:
    path = tmp_path / "graph.ttl"
    path.write_text(GRAPH_TTL, encoding="utf-8")
    return path


@pytest.fixture()
def graph_trig(tmp_path: Path) -> Path:
    path = tmp_path / "graph.trig"
    path.write_text(GRAPH_TRIG, encoding="utf-8")
    return path


def _serialized(graph_ttl: Path, fmt: ox.RdfFormat) -> bytes:
    triples = [q.triple for q in ox.parse(path=str(graph_ttl))]
    if fmt.supports_datasets:
        out = ox.serialize([ox.Quad(t.subject, t.predicate, t.object) for t in triples], None, fmt)
    else:
        out = ox.serialize(triples, None, fmt)
    assert out is not None
    return out


# -- files ----------------------------------------------------------------------------


def test_file_entities_skip_schema_ontology_and_blank_nodes(graph_ttl: Path) -> None:
    with RdfFileSource([graph_ttl]) as source:
        assert isinstance(source, GraphSource)
        assert source.entities() == ENTITIES
        assert source.triple_count() == 14
        assert "graph.ttl" in source.describe()


def test_file_fetch_terms_and_directions(graph_ttl: Path) -> None:
    with RdfFileSource([graph_ttl]) as source:
        out = set(source.fetch([EX + "asinou"], incoming=False))
        label = "http://www.w3.org/2000/01/rdf-schema#label"
        assert Triple(EX + "asinou", label, Literal("Asinou", "en", None)) in out
        assert Triple(EX + "asinou", label, Literal("plain label")) in out
        blank = next(t.o for t in out if t.p == CRM + "P43_has_dimension")
        assert isinstance(blank, str) and blank.startswith("_:")
        inner = set(source.fetch([blank]))
        assert Triple(blank, CRM + "P90_has_value", Literal("42", None, XSD + "integer")) in inner
        assert Triple(EX + "asinou", CRM + "P43_has_dimension", blank) in inner
        again = source.fetch([EX + "asinou"], incoming=False)
        assert blank in {t.o for t in again}  # stable ids
        ts = set(source.fetch([EX + "timespan"]))
        year = Literal("1192", None, XSD + "gYear")
        assert Triple(EX + "timespan", CRM + "P82_at_some_time_within", year) in ts
        assert Triple(EX + "production", CRM + "P4_has_time-span", EX + "timespan") in ts
        assert not any(
            t.s == EX + "production" for t in source.fetch([EX + "timespan"], incoming=False)
        )
        assert source.fetch(["not an iri", "_:no such blank", '"lit"']) == []


def test_trig_named_graphs_are_unioned_and_deduplicated(graph_trig: Path) -> None:
    with RdfFileSource([graph_trig]) as source:
        assert source.entities() == [EX + "asinou", EX + "church", EX + "name"]
        out = source.fetch([EX + "asinou"])
        assert len(out) == 2 == len(set(out))
        assert source.triple_count() == 4


@pytest.mark.parametrize(
    ("suffix", "fmt"),
    [
        (".nt", ox.RdfFormat.N_TRIPLES),
        (".n3", ox.RdfFormat.N_TRIPLES),
        (".nq", ox.RdfFormat.N_QUADS),
        (".trig", ox.RdfFormat.TRIG),
        (".rdf", ox.RdfFormat.RDF_XML),
        (".owl", ox.RdfFormat.RDF_XML),
        (".jsonld", ox.RdfFormat.JSON_LD),
    ],
)
def test_each_format_reads_the_same_graph(
    graph_ttl: Path, tmp_path: Path, suffix: str, fmt: ox.RdfFormat
) -> None:
    other = tmp_path / f"copy{suffix}"
    other.write_bytes(_serialized(graph_ttl, fmt))
    with RdfFileSource([graph_ttl]) as expected, RdfFileSource([other]) as source:
        assert source.entities() == ENTITIES
        assert _blanks_as_one(_everything(source)) == _blanks_as_one(_everything(expected))


def test_gzip_zip_and_directory(graph_ttl: Path, tmp_path: Path) -> None:
    lines = _serialized(graph_ttl, ox.RdfFormat.N_TRIPLES).decode().splitlines(keepends=True)
    half = len(lines) // 2
    gz = tmp_path / "graph.nt.gz"
    gz.write_bytes(gzip.compress("".join(lines).encode()))
    archive = tmp_path / "archive" / "graph.n3.zip"
    archive.parent.mkdir()
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("part1.n3", "".join(lines[:half]))
        zf.writestr("part2.nt.gz", gzip.compress("".join(lines[half:]).encode()))
        zf.writestr("LICENSE", "not RDF")
    with RdfFileSource([graph_ttl]) as expected:
        reference = _blanks_as_one(_everything(expected))
    for inputs in ([gz], [archive], [archive.parent]):
        with RdfFileSource(inputs) as source:
            assert source.entities() == ENTITIES
            assert _blanks_as_one(_everything(source)) == reference


def test_on_disk_store(graph_ttl: Path, tmp_path: Path) -> None:
    with RdfFileSource([graph_ttl], store_path=tmp_path / "store") as source:
        assert source.entities() == ENTITIES
    with pytest.raises(SourceError, match="closed"):
        source.fetch([EX + "asinou"])


def test_malformed_turtle_names_file_and_line_when_strict(tmp_path: Path) -> None:
    bad = tmp_path / "broken.ttl"
    bad.write_text('<http://ex/a> <http://ex/p> "ok" .\n<http://ex/a> <http://ex/p> "open .\n')
    with pytest.raises(SourceError, match=r"broken\.ttl.*line 2.*without --strict"):
        RdfFileSource([bad], strict=True)
    archive = tmp_path / "bundle.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("good.nt", '<http://ex/a> <http://ex/p> "ok" .\n')
        zf.writestr("bad.nt", "\n\n<http://ex/a> <http://ex/p> nope .\n")
    with pytest.raises(SourceError, match=r"bundle\.zip \(member bad\.nt\), line 3"):
        RdfFileSource([archive], strict=True)
    with RdfFileSource([bad]) as lenient, RdfFileSource([archive]) as skipping:
        assert lenient.triple_count() == skipping.triple_count() == 1
        assert [(r.line, r.text) for r in skipping.report.rejections] == [
            (3, "<http://ex/a> <http://ex/p> nope .")]


def test_missing_or_unknown_files(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="not found"):
        RdfFileSource([tmp_path / "nope.ttl"])
    (tmp_path / "data.csv").write_text("a,b")
    with pytest.raises(SourceError, match="extension"):
        RdfFileSource([tmp_path / "data.csv"])


@requires_shared
def test_ycba_sample_file_source() -> None:
    with RdfFileSource([YCBA_SAMPLE]) as source:
        entities = source.entities()
        assert entities == sorted(set(entities)) and len(entities) > 100
        assert not any(e.startswith((CRM, "_:")) for e in entities)
        out = source.fetch(entities[:50])
        assert {t.s for t in out if t.s in entities[:50]} == set(entities[:50])
        assert source.triple_count() == 18743


def test_open_source(graph_ttl: Path) -> None:
    source = open_source([str(graph_ttl)])
    assert isinstance(source, RdfFileSource)
    source.close()
    assert isinstance(open_source(["http://127.0.0.1:9/sparql"]), SparqlEndpointSource)
    with pytest.raises(SourceError, match="not both"):
        open_source([str(graph_ttl)], endpoint="http://127.0.0.1:9/sparql")
    with pytest.raises(SourceError):
        open_source([])


def test_endpoint_url_credentials_move_to_basic_auth() -> None:
    source = SparqlEndpointSource("http://reader:s%40cret@[::1]:7878/query")
    assert source.url == "http://[::1]:7878/query"
    assert source._credentials is not None
    assert (source._credentials.user, source._credentials.password) == ("reader", "s@cret")
    assert source._credentials.origin == "URL"
    assert "cret" not in source.describe() + repr(source._credentials)
    assert "cret" not in json.dumps(source.settings())
    with pytest.raises(SourceError, match="http"):
        SparqlEndpointSource("ftp://example.org/sparql")


# -- query safety and result parsing (pure) ---------------------------------------------


@pytest.mark.parametrize(
    "iri",
    [
        CRAFTED,
        "http://x/a>",
        "http://x/a b",
        "http://x/a\tb",
        "http://x/a\nb",
        'http://x/"a',
        "http://x/{a}",
        "http://x/a|b",
        "http://x/a^b",
        "http://x/a`b",
        "http://x/a\\u003E",
        "http://x/\x00",
        "http://x/\x7f",
        "_:b0",
        "relative/path",
        "",
    ],
)
def test_unsafe_iris_never_enter_a_query(iri: str) -> None:
    assert iri_ref(iri) is None
    assert safe_iris([iri]) == []
    with pytest.raises(ValueError):
        values_query("s", [iri])


def test_safe_iris_keep_valid_ones_and_warn(caplog: pytest.LogCaptureFixture) -> None:
    odd = "http://example.org/caf\u00e9%20#frag?x=1&y=(2)"
    assert iri_ref(odd) == f"<{odd}>"
    assert safe_iris([EX + "a", CRAFTED, "_:b", EX + "a", odd]) == [EX + "a", odd]
    assert "DROP" in caplog.text
    query = values_query("o", [EX + "a", odd])
    assert query == f"SELECT ?s ?p ?o WHERE {{ VALUES ?o {{ <{EX}a> <{odd}> }} ?s ?p ?o }}"


def test_parse_tsv_terms() -> None:
    assert parse_tsv_term("") is None
    assert parse_tsv_term("<http://x/a>") == "http://x/a"
    assert parse_tsv_term("_:b1") == "_:b1"
    assert parse_tsv_term('"x\\ty\\"z\\\\\\u00e9"@en') == Literal('x\ty"z\\é', "en", None)
    assert parse_tsv_term('"plain"') == Literal("plain")
    assert parse_tsv_term('"one\\ntwo\\r\\nthree\\b\\f"') == Literal("one\ntwo\r\nthree\b\f")
    xs = "http://www.w3.org/2001/XMLSchema#string"
    assert parse_tsv_term(f'"s"^^<{xs}>') == Literal("s")
    assert parse_tsv_term("-12") == Literal("-12", None, XSD + "integer")
    assert parse_tsv_term("1.5") == Literal("1.5", None, XSD + "decimal")
    assert parse_tsv_term("1E3") == Literal("1000", None, XSD + "double")  # canonical
    assert parse_tsv_term("true") == Literal("true", None, XSD + "boolean")
    for bad in ["nonsense", '"open', '"x"^^xsd:int', '"x"@']:
        with pytest.raises(ValueError):
            parse_tsv_term(bad)
    text = '?o\t?s\t?p\n"v"@fr\t<http://x/s>\t<http://x/p>\n\t<http://x/s>\t<http://x/p>\n'
    assert parse_tsv(text, ("s", "p", "o")) == [
        ("http://x/s", "http://x/p", Literal("v", "fr", None)),
        ("http://x/s", "http://x/p", None),
    ]
    with pytest.raises(ValueError):
        parse_tsv("?a\n<x>\t<y>\n", ("a",))


def test_parse_json_terms() -> None:
    data = {
        "head": {"vars": ["s", "o"]},
        "results": {
            "bindings": [
                {"s": {"type": "bnode", "value": "b0"}, "o": {"type": "uri", "value": "http://x"}},
                {
                    "s": {"type": "uri", "value": "http://y"},
                    "o": {"type": "literal", "value": "1192", "datatype": XSD + "gYear"},
                },  # noqa: E501
                {
                    "s": {"type": "uri", "value": "http://y"},
                    "o": {"type": "literal", "value": "a", "xml:lang": "en"},
                },  # noqa: E501
            ]
        },
    }
    assert parse_json(data, ("s", "o")) == [
        ("_:b0", "http://x"),
        ("http://y", Literal("1192", None, XSD + "gYear")),
        ("http://y", Literal("a", "en", None)),
    ]


# -- a real endpoint ----------------------------------------------------------------------


def test_endpoint_matches_file_source(
    serve_graph: Callable[[Path], str], graph_ttl: Path, graph_trig: Path
) -> None:
    for path in (graph_ttl, graph_trig):
        with RdfFileSource([path]) as files, SparqlEndpointSource(serve_graph(path)) as endpoint:
            assert endpoint.entities() == files.entities()
            entities = files.entities()
            assert _no_blanks(endpoint.fetch(entities)) == _no_blanks(files.fetch(entities))
            assert _no_blanks(endpoint.fetch(entities, incoming=False)) == _no_blanks(
                files.fetch(entities, incoming=False)
            )
            assert endpoint.fetch(["_:b0"]) == []  # blank nodes are not expanded
    g2 = SparqlEndpointSource(serve_graph(graph_trig), default_graph=EX + "g2")
    assert g2.entities() == [EX + "asinou", EX + "church"]


def test_endpoint_keeps_line_breaks_in_literals(serve_graph: Callable[[Path], str],
                                                tmp_path: Path) -> None:
    """Notes run over several lines (YCBA's do); the endpoint's TSV escapes the breaks and
    they must come back as breaks, as the file source reads them."""
    path = tmp_path / "notes.ttl"
    path.write_text(f"""
        @prefix crm: <{CRM}> .
        <{EX}asinou> a crm:E22_Human-Made_Object ;
            crm:P3_has_note \"\"\"Founded in 1105.
        Painted again\tin the 14th century.\"\"\"@en .
    """, encoding="utf-8")
    with RdfFileSource([path]) as files, SparqlEndpointSource(serve_graph(path)) as endpoint:
        from_files = files.fetch([EX + "asinou"])
        from_endpoint = endpoint.fetch([EX + "asinou"])
    note = Literal("Founded in 1105.\n        Painted again\tin the 14th century.", "en", None)
    assert Triple(EX + "asinou", CRM + "P3_has_note", note) in from_endpoint
    assert set(from_endpoint) == set(from_files)


@requires_shared
def test_endpoint_matches_file_source_on_ycba_sample(serve_graph: Callable[[Path], str]) -> None:
    with RdfFileSource([YCBA_SAMPLE]) as files:
        endpoint = SparqlEndpointSource(serve_graph(YCBA_SAMPLE), batch_size=100)
        entities = files.entities()
        assert endpoint.entities() == entities
        assert set(endpoint.fetch(entities)) == set(files.fetch(entities))
        paged = SparqlEndpointSource(endpoint.url, page_size=2000)  # three pages
        assert paged.entities() == entities


def test_injection_against_a_real_server(
    serve_graph: Callable[[Path], str], graph_ttl: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = SparqlEndpointSource(serve_graph(graph_ttl))
    sent: list[str] = []
    send = source._client.send

    def recording(query: str, fmt: str) -> Answer:
        sent.append(query)
        return send(query, fmt)

    monkeypatch.setattr(source._client, "send", recording)
    before = source.fetch(ENTITIES)
    crafted = [
        CRAFTED,
        EX + "nothing> } ?s ?p ?o . VALUES ?z { <http://x/y",
        EX + "asinou>} UNION {?s ?p ?o",
    ]
    assert source.fetch(crafted) == []
    assert set(source.fetch([EX + "asinou", *crafted])) == set(source.fetch([EX + "asinou"]))
    assert not any("DROP" in q or "UNION" in q or "?z" in q for q in sent)
    assert source.entities() == ENTITIES
    assert set(source.fetch(ENTITIES)) == set(before)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_unreachable_endpoint_fails_fast_with_url() -> None:
    url = f"http://127.0.0.1:{_closed_port()}/sparql"
    started = time.monotonic()
    with pytest.raises(SourceError, match=r"127\.0\.0\.1.*unreachable after 2 attempt"):
        SparqlEndpointSource(url, timeout=2, retries=1, backoff=0.01).entities()
    assert time.monotonic() - started < 5


def test_endpoint_error_statuses(serve_graph: Callable[[Path], str], graph_ttl: Path) -> None:
    base = serve_graph(graph_ttl).rsplit("/", 1)[0]
    with pytest.raises(SourceError, match=r"/nothing answered HTTP 404: .*not supported"):
        SparqlEndpointSource(base + "/nothing", retries=0).entities()
    with pytest.raises(SourceError, match=r"/update sent an unreadable .*query endpoint"):
        SparqlEndpointSource(base + "/update", retries=0).fetch([EX + "asinou"])


# -- a scripted endpoint: 5xx retries, format fallback, authentication, politeness -----

_JSON_RESULT = {
    "head": {"vars": ["s", "p", "o"]},
    "results": {"bindings": [{v: {"type": "uri", "value": EX + v} for v in "spo"}]},
}
_BASIC = "Basic " + base64.b64encode(b"reader:secret").decode()


class _Scripted(http.server.BaseHTTPRequestHandler):
    """Answers JSON only; ``statuses`` are answered first, one per request; with
    ``password`` set, a request without the right basic credentials is challenged."""

    statuses: list[int] = []
    seen: list[dict[str, str]] = []
    password: bool = False

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self._answer("GET", urllib.parse.urlsplit(self.path).query)

    def do_POST(self) -> None:  # noqa: N802
        self._answer("POST", self.rfile.read(int(self.headers.get("Content-Length", 0))).decode())

    def _answer(self, method: str, params: str) -> None:
        accept = self.headers.get("Accept", "")
        auth = self.headers.get("Authorization", "")
        query = urllib.parse.parse_qs(params).get("query", [""])[0]
        self.seen.append({"method": method, "accept": accept, "auth": auth, "query": query,
                          "key": self.headers.get("X-Api-Key", "")})
        if self.password and auth != _BASIC:
            status = 401
        else:
            status = self.statuses.pop(0) if self.statuses else 200
        if status == 200 and "json" not in accept:
            status = 406
        self.send_response(status)
        body = json.dumps(_JSON_RESULT).encode() if status == 200 else b"Busy\nmore"
        kind = "application/sparql-results+json" if status == 200 else "text/plain"
        self.send_header("Content-Type", kind)
        if status == 401:
            self.send_header("WWW-Authenticate", 'Basic realm="crm"')
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Silence the request log."""


@pytest.fixture()
def scripted() -> Iterator[tuple[str, type[_Scripted]]]:
    handler = type("Handler", (_Scripted,), {"statuses": [], "seen": []})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/sparql", handler
    server.shutdown()
    server.server_close()


def test_retries_on_5xx_then_fails(scripted: tuple[str, type[_Scripted]]) -> None:
    url, handler = scripted
    handler.statuses = [503, 503, 503]
    with pytest.raises(SourceError, match=r"answered HTTP 503: Busy \("):
        SparqlEndpointSource(url, retries=2, backoff=0.01).fetch([EX + "s"], incoming=False)
    assert len(handler.seen) == 3


def test_retry_recovers_and_results_fall_back_to_json(
    scripted: tuple[str, type[_Scripted]],
) -> None:
    url, handler = scripted
    handler.statuses = [502]
    source = SparqlEndpointSource(url, retries=1, backoff=0.01)
    expected = [Triple(EX + "s", EX + "p", EX + "o")]
    assert source.fetch([EX + "s"], incoming=False) == expected
    assert source.fetch([EX + "s"], incoming=False) == expected
    accepts = [seen["accept"] for seen in handler.seen[2:]]  # after the probe and its retry
    assert "tab-separated" in accepts[0] and "sparql-results+xml" in accepts[1]
    assert all("json" in a for a in accepts[2:]) and len(accepts) == 4


def test_basic_auth_answers_the_challenge_then_goes_up_front(
    scripted: tuple[str, type[_Scripted]], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, handler = scripted
    handler.password = True
    with pytest.raises(SourceError, match=r"HTTP 401: .*give --auth user:password"):
        SparqlEndpointSource(url, retries=0).entities()
    monkeypatch.setenv(AUTH_ENV, "reader:wrong")
    with pytest.raises(SourceError, match=r"HTTP 401: .*credentials \(from CRM_RAG_AUTH\)"):
        SparqlEndpointSource(url, retries=0).entities()
    handler.seen.clear()
    source = SparqlEndpointSource(url, retries=0, auth=("reader", "secret"))
    for _ in range(3):
        source.fetch([EX + "s"], incoming=False)
    auths = [seen["auth"] for seen in handler.seen]
    assert auths[0] == "" and set(auths[1:]) == {_BASIC}  # one challenge, then up front
    assert source.settings()["auth"] == {"user": "reader", "from": "--auth"}


def test_netrc_credentials(scripted: tuple[str, type[_Scripted]], tmp_path: Path,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    url, handler = scripted
    handler.password = True
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login reader password secret\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    monkeypatch.delenv(AUTH_ENV, raising=False)
    source = SparqlEndpointSource(url, retries=0)
    assert source.fetch([EX + "s"], incoming=False)
    assert source.settings()["auth"] == {"user": "reader", "from": str(netrc)}


def test_headers_get_post_and_rate(scripted: tuple[str, type[_Scripted]]) -> None:
    url, handler = scripted
    source = SparqlEndpointSource(url, retries=0, headers={"X-Api-Key": "k3y"}, max_rps=20)
    started = time.monotonic()
    source.fetch([EX + "s"], incoming=False)  # probe, TSV, XML, JSON: four requests
    source.fetch([EX + f"s{i}" for i in range(100)], incoming=False)  # a long query
    assert time.monotonic() - started >= 4 / 20
    assert {seen["key"] for seen in handler.seen} == {"k3y"}
    methods = [seen["method"] for seen in handler.seen]
    assert methods == ["GET"] * 4 + ["POST"]
    assert EX + "s99" in handler.seen[-1]["query"]
    settings = source.settings()
    assert settings["headers"] == ["X-Api-Key"] and "k3y" not in json.dumps(settings)
    worker = source.factory(processes=2)()
    assert worker.options.max_rps == 10 and worker.profile.name == "standard"
    with pytest.raises(SourceError, match="Name: value"):
        parse_header("no colon")
