"""The replication of ``benchmarks/scale.py`` (issue 24): the demo graph × 3."""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import pyoxigraph as ox
import pytest
from conftest import DEMO

from llama_index_crm.build.folder import build_folder
from llama_index_crm.sources import RdfFileSource

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import scale  # noqa: E402

OWN = ("https://example.org/troodos",)
CRM = "http://www.cidoc-crm.org/cidoc-crm/"


def _terms(path: Path) -> tuple[list[ox.Triple], set[str], set[str]]:
    """The triples of a gzipped N-Triples file, its IRIs and its literal values."""
    triples = list(ox.parse(gzip.decompress(path.read_bytes()), format=ox.RdfFormat.N_TRIPLES))
    iris, literals = set(), set()
    for t in triples:
        for term in (t.subject, t.predicate, t.object):
            if isinstance(term, ox.NamedNode):
                iris.add(term.value)
            elif isinstance(term, ox.Literal):
                literals.add(term.value)
    return triples, iris, literals


@pytest.fixture(scope="module")
def demo_nt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo graph as N-Triples (one triple a line, as the shared datasets are)."""
    path = tmp_path_factory.mktemp("nt") / "troodos.nt"
    with open(DEMO, "rb") as fh:
        triples = list(ox.parse(fh, format=ox.RdfFormat.TURTLE))
    path.write_bytes(ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES) or b"")
    return path


def test_three_replicas_hold_three_times_the_triples_with_distinct_entities(
        demo_nt: Path, tmp_path: Path) -> None:
    replicas = []
    for k in (1, 2, 3):
        n = scale.write_replica([demo_nt], k, OWN, tmp_path / f"r{k}.nt.gz")
        replicas.append((n, *_terms(tmp_path / f"r{k}.nt.gz")))
    base_n = replicas[0][0]
    assert base_n > 1000
    assert all(n == base_n and len(triples) == base_n for n, triples, _, _ in replicas)
    union = set()
    for _, triples, _, _ in replicas:
        union.update(triples)
    assert len(union) == 3 * base_n  # no triple shared: the three are disjoint
    own = [{i for i in iris if i.startswith(OWN)} for _, _, iris, _ in replicas]
    assert own[0] and len(own[0]) == len(own[1]) == len(own[2])
    assert not own[0] & own[1] and not own[1] & own[2] and not own[0] & own[2]
    assert all(i.startswith("https://example.org/troodos/r2") for i in own[1])
    other = [{i for i in iris if not i.startswith(OWN)} for _, _, iris, _ in replicas]
    assert other[0] == other[1] == other[2]  # ontology and vocabulary IRIs untouched
    assert any(i.startswith(CRM) for i in other[0])
    # names perturbed, but only a little: most words of a label are kept
    lits = [lit for _, _, _, lit in replicas]
    assert len(lits[1] - lits[0]) > len(lits[0]) // 3
    assert "Panagia tou Araka" in lits[0]
    assert "Panagia tou Araka" not in lits[1] or "Panagia tou Araka" not in lits[2]


def test_literals_keep_their_datatype_and_language(demo_nt: Path) -> None:
    line = ('<https://example.org/troodos/x> <http://www.w3.org/2000/01/rdf-schema#label> '
            '"Church of Saint Nicholas"@en .')
    out = scale.replicate_line(line, 2, OWN)
    assert out.startswith("<https://example.org/troodos/r2/x> <http://www.w3.org/2000/01/")
    assert out.endswith('"@en .') and out != line.replace("/x>", "/r2/x>")
    dated = ('<https://example.org/troodos/t> <http://www.cidoc-crm.org/cidoc-crm/P82a_begin_'
             'of_the_begin> "1192-01-01"^^<http://www.w3.org/2001/XMLSchema#date> .')
    assert scale.replicate_line(dated, 5, OWN).split(" ", 1)[1] == dated.split(" ", 1)[1]
    escaped = '<https://example.org/troodos/e> <http://x/p> "Caf\\u00E9 Aoudi \\"Nice\\"" .'
    out = scale.replicate_line(escaped, 2, OWN)
    assert "\\u00E9" in out and out.count('\\"') == 2
    assert scale.replicate_line(line, 1, OWN) == line


def test_the_demo_graph_times_three_builds_three_times_the_documents(
        demo_nt: Path, tmp_path: Path) -> None:
    files = [tmp_path / f"r{k}.nt.gz" for k in (1, 2, 3)]
    for k, path in enumerate(files, 1):
        scale.write_replica([demo_nt], k, OWN, path)
    with RdfFileSource([files[0]]) as source:
        _, one = build_folder(source, tmp_path / "x1")
    with RdfFileSource(files) as source:
        docs, three = build_folder(source, tmp_path / "x3")
    assert one.documents > 50
    assert three.documents == 3 * one.documents
    assert three.entities == 3 * one.entities
    uris = {d.uri for d in docs}
    assert len(uris) == len(docs)
    assert any("/troodos/r3/" in u for u in uris)
