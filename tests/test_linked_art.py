"""Linked Art as published: records one per file with the context by URL (resolved from the
copy shipped in the package), dates as records write them, record-local identifiers kept
apart, and the profile's patterns (roles, sets, statements, custodians) as FRs and
document lines. The MoMA samples are cut from ../shared/datasets/moma at run time."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import SHARED, requires_shared

from llama_index_crm.cli import main as cli_main
from llama_index_crm.ontology import Ontology
from llama_index_crm.sources import RdfFileSource, jsonld_contexts
from llama_index_crm.sources.linked_art import (
    RecordScopes,
    date_order,
    normalise_date,
    prepare,
)

DATA = Path(__file__).parent / "data"
MOMA = SHARED / "datasets" / "moma"
EXHIBITION_1 = "http://linkedart.example.com/exhibition/1"
BARR = "http://linkedart.example.com/person/8462"
CRM = "http://www.cidoc-crm.org/cidoc-crm/"


@pytest.fixture
def packaged_context_only(monkeypatch: pytest.MonkeyPatch,
                          tmp_path: Path) -> Iterator[None]:
    """No LLAMA_INDEX_CRM_CONTEXTS and no ../shared copy: only the package's own."""
    monkeypatch.delenv(jsonld_contexts.CONTEXTS_ENV, raising=False)
    monkeypatch.setattr(jsonld_contexts, "DEV_CONTEXTS", tmp_path / "no-shared")
    jsonld_contexts._saved.cache_clear()
    yield
    jsonld_contexts._saved.cache_clear()


def _build(inputs: list[Path], out: Path, *extra: str) -> tuple[dict[str, str], list[dict]]:
    assert cli_main(["build", *map(str, inputs), "--out", str(out), "--no-embed", "-q",
                     *extra]) == 0
    table = pq.read_table(out / "documents.parquet", columns=["doc_id", "text"]).to_pydict()
    edges = pq.read_table(out / "fr_edges.parquet").to_pylist()
    return dict(zip(table["doc_id"], table["text"], strict=True)), edges


# ----------------------------------------------------------------------------- dates
@pytest.mark.parametrize(("value", "end", "order", "expected"), [
    ("1929-11-07T00:00:00", False, "ydm", "1929-11-07T00:00:00"),  # ISO stays as it is
    ("1929", False, "ymd", "1929-01-01T00:00:00"),
    ("1929", True, "ymd", "1929-12-31T23:59:59"),
    ("1929-02", True, "ymd", "1929-02-28T23:59:59"),
    ("1928-02", True, "ymd", "1928-02-29T23:59:59"),
    ("1929-7-11", False, "ydm", "1929-11-07T00:00:00"),  # MoMA: year-day-month
    ("1929-7-11", False, "ymd", "1929-07-11T00:00:00"),
    ("2004-20-11", True, "ydm", "2004-11-20T23:59:59"),
    ("1929/1931", False, "ymd", "1929-01-01T00:00:00"),  # EDTF-style range
    ("1929/1931", True, "ymd", "1931-12-31T23:59:59"),
    ("../1931", False, "ymd", "1931-01-01T00:00:00"),
    ("19XX", True, "ymd", "1999-12-31T23:59:59"),
    ("1929~", False, "ymd", "1929-01-01T00:00:00"),
])
def test_dates_as_records_write_them(value: str, end: bool, order: str, expected: str) -> None:
    assert normalise_date(value, end, order) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize("value", ["about 1900", "1929-13-40", "29-1-1", ""])
def test_what_is_no_date_is_not_made_one(value: str) -> None:
    assert normalise_date(value, False) is None
    record = {"id": "http://x.org/r", "timespan": {"type": "TimeSpan",
                                                    "begin_of_the_begin": value}}
    fixed, done = prepare(record, "http://x.org/r", {}, "ymd")
    assert fixed["timespan"]["begin_of_the_begin"] == {"@value": value}  # plain text
    assert done.undated == [value]


def test_the_date_order_is_what_the_records_show() -> None:
    assert date_order(["1929-7-11", "1939-18-10 "]) == "ydm"
    assert date_order(["1929-7-11", "1939-10-18"]) == "ymd"
    assert date_order(["1929-7-11"]) == "ymd"  # no evidence: ISO order


# ------------------------------------------------------------------ record-local ids
def test_record_local_identifiers_are_found_and_scoped() -> None:
    person = {"id": "http://x.org/person/9", "type": "Person", "_label": "Ann Lee"}
    a = {"id": "http://x.org/ex/1", "type": "Activity", "carried_out_by": [person],
         "timespan": {"id": "https://x.org/TimeSpan/0", "type": "TimeSpan", "_label": "1930"}}
    b = {"id": "http://x.org/ex/2", "type": "Activity", "carried_out_by": [person],
         "part_of": [{"id": "http://x.org/ex/1", "type": "Activity"}],
         "timespan": {"id": "https://x.org/TimeSpan/0", "type": "TimeSpan", "_label": "1931"}}
    scopes = RecordScopes()
    scopes.add(a, "a.json")
    scopes.add(b, "b.json")
    # the time-span is two things; the person and the record ex/1 are one each
    assert scopes.colliding() == {"https://x.org/TimeSpan/0": 2}
    fixed, done = prepare(b, "http://x.org/ex/2", scopes.colliding(), "ymd")
    assert fixed["timespan"]["id"] == "http://x.org/ex/2/TimeSpan/0"
    assert fixed["carried_out_by"][0]["id"] == "http://x.org/person/9" and done.scoped == 1


# -------------------------------------------------------------- a Linked Art object
def test_a_linked_art_object_record_builds_with_the_packaged_context(
        tmp_path: Path, packaged_context_only: None) -> None:
    docs, edges = _build([DATA / "linked_art_object.json"], tmp_path / "index")
    obj = "https://museum.example/object/night-scene"
    text = docs[obj]
    assert text.startswith("[Thing] Night Scene")
    assert "Type: Painting (Type of Work)" in text  # classified_as of classified_as
    assert "Provenance Statement: Bought by Paul Mellon" in text  # a statement is a fact
    assert "Dimensions Statement: Oil on canvas, 64.8 x 77.5 cm" in text
    mine = {(e["fr"], e["o"]) for e in edges if e["s"] == obj}
    assert ("thing-thing-is-member-of", "https://museum.example/set/paintings") in mine
    assert ("thing-actor-is-kept-by", "https://museum.example/group/museum") in mine
    assert ("thing-actor-created-by", "https://museum.example/person/atkinson") in mine
    members = {(e["fr"], e["o"]) for e in edges
               if e["s"] == "https://museum.example/set/paintings"}
    assert ("thing-thing-has-member", obj) in members


def test_a_linked_art_exhibition_with_its_objects_curator_and_place(
        tmp_path: Path, packaged_context_only: None) -> None:
    docs, edges = _build([DATA / "linked_art_object.json", DATA / "linked_art_exhibition.json"],
                         tmp_path / "index")
    show, obj = ("https://museum.example/activity/nocturnes-1990",
                 "https://museum.example/object/night-scene")
    mine = {(e["fr"], e["o"]) for e in edges if e["s"] == show}
    assert ("event-thing-used-set-members", obj) in mine  # used a set whose member it is
    assert ("event-actor-had-in-a-role", "https://museum.example/person/curator-1") in mine
    assert ("event-actor-by", "https://museum.example/group/museum") in mine
    assert ("event-place-from", "https://museum.example/place/gallery-2") in mine
    back = {(e["fr"], e["o"]) for e in edges if e["s"] == obj}
    assert ("thing-event-used-in-as-set-member", show) in back
    text = docs[show]
    assert "Curator: Mary Ward" in text  # P14.1 in the role: the assignment's type
    assert "Date: 1990-03-01 to 1990-06-30" in text
    with RdfFileSource([DATA / "linked_art_object.json"]) as source:
        dates = {q.object.value for q in source.store
                 if q.predicate.value.startswith(CRM + "P82")}
    assert dates == {"1880-01-01T00:00:00", "1882-12-31T23:59:59"}  # year, range


def test_la_terms_resolve() -> None:
    onto = Ontology.default()
    assert onto.canonical("https://linked.art/ns/terms/member_of") == "member_of"
    assert onto.inverse("member_of") == "has_member"
    assert onto.class_category("Set") == "Thing"
    assert onto.canonical("http://example.org/terms/member_of") is None


# ---------------------------------------------------------------- MoMA, as published
def _moma_records(folder: Path, names: list[str]) -> list[Path]:
    folder.mkdir()
    with zipfile.ZipFile(MOMA / "raw.zip") as archive:
        for name in names:
            (folder / name).write_bytes(archive.read(f"raw/{name}"))
    return [folder]


@requires_shared
def test_moma_records_build_with_roles_and_collisions_reported(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _moma_records(tmp_path / "raw", ["ex_1.json", "ex_10.json", "p_1.json",
                                              "p_10.json"])
    out = tmp_path / "index"
    docs, edges = _build(folder, out)
    printed = capsys.readouterr().out
    assert "Record-local identifiers used by several records" in printed
    assert "https://linkedart.example.com/Set/0" in printed
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["source_settings"]["record_local_ids_scoped"] > 0
    assert "event-actor-had-in-a-role" in manifest["linked_art_paths"]
    barr_in = {e["s"] for e in edges
               if e["fr"] == "event-actor-had-in-a-role" and e["o"] == BARR}
    assert {EXHIBITION_1, "http://linkedart.example.com/exhibition/10"} <= barr_in
    text = docs[EXHIBITION_1]
    assert "Director: Alfred H. Barr, Jr." in text
    assert "Artist: Georges-Pierre Seurat; Paul Cézanne; Paul Gauguin; Vincent van Gogh" in text
    assert "1929-11-07 to 1929-12-07" in text  # "1929-7-11" is year-day-month
    assert "1929-7-11" not in text
    # the role sets and assignments are folded into the exhibition
    assert not any("/Set/" in uri or "AttributeAssignment" in uri for uri in docs)
    # each record's Set/0 is its own: exhibition 1's artists are not exhibition 10's
    again, again_edges = _build(folder, tmp_path / "as-published", "--no-record-scopes")
    merged = {e["o"] for e in again_edges
              if e["fr"] == "event-actor-had-in-a-role" and e["s"] == EXHIBITION_1}
    scoped = {e["o"] for e in edges
              if e["fr"] == "event-actor-had-in-a-role" and e["s"] == EXHIBITION_1}
    assert scoped < merged  # read as published, Set/0 mixes the records' people


@requires_shared
def test_moma_ntriples_sample_links_exhibitions_and_people(tmp_path: Path) -> None:
    keep = (f"<{EXHIBITION_1}>", f"<{EXHIBITION_1}/", f"<{BARR}>", f"<{BARR}/",
            "<http://vocab.getty.edu/aat/")
    lines = []
    with zipfile.ZipFile(MOMA / "moma_1929_1959.nt.zip") as archive, \
            archive.open("moma_1929_1959.nt") as stream:
        for raw in stream:
            line = raw.decode("utf-8")
            if line.startswith(keep):
                lines.append(line)
    sample = tmp_path / "moma_sample.nt"
    sample.write_text("".join(lines), encoding="utf-8")
    docs, edges = _build([sample], tmp_path / "index")
    pairs = {(e["s"], e["fr"], e["o"]) for e in edges}
    assert (EXHIBITION_1, "event-actor-had-in-a-role", BARR) in pairs
    assert (BARR, "actor-event-was-in-a-role-in", EXHIBITION_1) in pairs
    assert "Director: Alfred H. Barr, Jr." in docs[EXHIBITION_1]
    assert "Director in (event): Cézanne, Gauguin, Seurat, Van Gogh" in docs[BARR]
    assert "Biography Statement: American, 1902–1981" in docs[BARR]  # a fact of his


def test_shipped_context_is_the_published_one() -> None:
    shipped = jsonld_contexts.PACKAGED_CONTEXTS / "linked-art.json"
    context = json.loads(shipped.read_text(encoding="utf-8"))["@context"]
    assert context["Set"]["@id"] == "la:Set" and context["equivalent"]["@id"] == "la:equivalent"
    assert context["begin_of_the_begin"]["@type"] == "xsd:dateTime"
    assert (jsonld_contexts.PACKAGED_CONTEXTS / "NOTICE").read_text().count("Apache") == 1
    if (SHARED / "datasets" / "ontology" / "linked-art.json").exists():
        published = json.loads((SHARED / "datasets" / "ontology" / "linked-art.json")
                               .read_text(encoding="utf-8"))["@context"]
        assert context == published
