"""Helpers for the update tests and benchmark: graphs changed on disk, and a comparison of
two index folders (an updated one and a full build of the changed graph)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from llama_index_crm.rdf import Literal, Triple, encode_object
from llama_index_crm.sources import RdfFileSource


def graph_triples(paths: list[Path]) -> list[Triple]:
    """Every triple of RDF files, sorted."""
    source = RdfFileSource(paths)
    try:
        return sorted(source.triples(), key=lambda t: (t.s, t.p, encode_object(t.o)))
    finally:
        source.close()


def nt_term(term: str | Literal) -> str:
    """A node or literal in N-Triples syntax."""
    if isinstance(term, Literal):
        return encode_object(term) if term.lang or not term.datatype else \
            f"{encode_object(Literal(term.value))}^^<{term.datatype}>"
    return term if term.startswith("_:") else f"<{term}>"


def write_nt(path: Path, triples: list[Triple]) -> Path:
    """Write triples as N-Triples."""
    with path.open("w", encoding="utf-8") as out:
        for t in triples:
            out.write(f"{nt_term(t.s)} <{t.p}> {nt_term(t.o)} .\n")
    return path


def _sorted_rows(table: object, key: list[str]) -> list[dict[str, object]]:
    rows = table.to_pylist()  # type: ignore[attr-defined]
    return sorted(rows, key=lambda r: tuple(json.dumps(r[k], sort_keys=True) for k in key))


def compare_folders(updated: Path, full: Path) -> list[str]:
    """The differences between two index folders that should be equal (empty: equal).

    Compared: documents (text and metadata), the triple archive with labels, FR edges,
    names, document metadata, row order, vectors by document (within float tolerance),
    statistics, and the manifest's counts and build figures.
    """
    problems: list[str] = []

    def rows(folder: Path, name: str, key: list[str], drop: tuple[str, ...] = ()
             ) -> list[dict[str, object]]:
        table = pq.read_table(folder / name)
        table = table.select([c for c in table.column_names if c not in drop])
        return _sorted_rows(table, key)

    for name, key, drop in (
            ("documents.parquet", ["doc_id"], ()),
            ("triples.parquet", ["s", "p", "o"], ()),
            ("fr_edges.parquet", ["s", "fr", "o"], ()),
            ("names.parquet", ["node", "name", "kind"], ()),
            ("doc_meta.parquet", ["doc_id"], ()),
            ("unchained.parquet", ["uri"], ()),
            ("labels.parquet", ["term"], ())):
        a, b = rows(updated, name, key, drop), rows(full, name, key, drop)
        if a != b:
            only_a = [r for r in a if r not in b][:3]
            only_b = [r for r in b if r not in a][:3]
            problems.append(f"{name}: {len(a)} vs {len(b)} rows; updated only: {only_a}; "
                            f"full only: {only_b}")
    ids_a = json.loads((updated / "doc_ids.json").read_text())
    ids_b = json.loads((full / "doc_ids.json").read_text())
    if ids_a != ids_b:
        problems.append("doc_ids.json: different rows")
    else:
        va, vb = np.load(updated / "vectors.npy"), np.load(full / "vectors.npy")
        if va.shape != vb.shape or not np.allclose(va, vb, atol=1e-5):
            problems.append("vectors.npy: different vectors")
    sa = json.loads((updated / "statistics.json").read_text())
    sb = json.loads((full / "statistics.json").read_text())
    if sa != sb:
        problems.append("statistics.json differs")
    ma = json.loads((updated / "manifest.json").read_text())
    mb = json.loads((full / "manifest.json").read_text())
    if ma["counts"] != mb["counts"]:
        problems.append(f"manifest counts: {ma['counts']} vs {mb['counts']}")
    for key in ("entities", "documents", "satellites_absorbed", "uncategorised",
                "documents_chained", "triples_archived"):
        if ma["stats"][key] != mb["stats"][key]:
            problems.append(f"manifest stats {key}: {ma['stats'][key]} vs {mb['stats'][key]}")
    return problems
