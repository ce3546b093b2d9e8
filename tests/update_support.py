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


_BM25_BY_TOKEN = frozenset({"vocab.index.json", "data.csc.index.npy", "indices.csc.index.npy",
                            "indptr.csc.index.npy"})
"""BM25 files whose token ids follow the vocabulary's order, which bm25s takes from a set
(it varies with the process's hash seed): compared token by token."""


def _bm25_by_token(folder: Path) -> dict[str, tuple[list[int], list[float]]]:
    """Token → (documents, scores) of a stored bm25s index (one CSC column per token)."""
    vocab = json.loads((folder / "vocab.index.json").read_text())
    indptr = np.load(folder / "indptr.csc.index.npy")
    indices = np.load(folder / "indices.csc.index.npy")
    data = np.load(folder / "data.csc.index.npy")
    # a token past the last column (bm25s's empty token) has no scores
    return {token: (indices[indptr[i]:indptr[i + 1]].tolist(),
                    data[indptr[i]:indptr[i + 1]].tolist()) if i + 1 < len(indptr)
            else ([], []) for token, i in vocab.items()}


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
    for name in ("fr_offsets.npy", "fr_targets.npy"):  # over the same term ids
        fa, fb = np.load(updated / name), np.load(full / name)
        if fa.dtype != fb.dtype or not np.array_equal(fa, fb):
            problems.append(f"{name}: different FR-link arrays")
    # computed from the rows in their order: equal as written, not only as sets
    for name in ("pagerank.parquet", "fr_edges.parquet"):
        if not pq.read_table(updated / name).equals(pq.read_table(full / name)):
            problems.append(f"{name}: not the same rows in the same order")
    for part in sorted(p.name for p in (full / "bm25").iterdir()):
        if part in _BM25_BY_TOKEN:
            continue
        if (updated / "bm25" / part).read_bytes() != (full / "bm25" / part).read_bytes():
            problems.append(f"bm25/{part} differs")
    if _bm25_by_token(updated / "bm25") != _bm25_by_token(full / "bm25"):
        problems.append("bm25: different scores for some token")
    sa = json.loads((updated / "statistics.json").read_text())
    sb = json.loads((full / "statistics.json").read_text())
    if sa != sb:
        problems.append("statistics.json differs")
    ma = json.loads((updated / "manifest.json").read_text())
    mb = json.loads((full / "manifest.json").read_text())
    if ma["counts"] != mb["counts"]:
        problems.append(f"manifest counts: {ma['counts']} vs {mb['counts']}")
    for stat in ("entities", "documents", "satellites_absorbed", "uncategorised",
                 "documents_chained", "triples_archived"):
        if ma["stats"][stat] != mb["stats"][stat]:
            problems.append(f"manifest stats {stat}: {ma['stats'][stat]} vs {mb['stats'][stat]}")
    return problems


CRM = "http://www.cidoc-crm.org/cidoc-crm/"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"


def most_named(triples: list[Triple], low: int = 20, high: int = 3000) -> str:
    """A node with an rdfs:label that many subjects link to (its name is in many
    documents): the most linked one with between ``low`` and ``high`` links."""
    labelled = {t.s for t in triples if t.p == RDFS_LABEL and isinstance(t.o, Literal)}
    counts: dict[str, int] = {}
    for t in triples:
        if isinstance(t.o, str) and t.o in labelled and t.p != RDF_TYPE:
            counts[t.o] = counts.get(t.o, 0) + 1
    fitting = [(n, node) for node, n in counts.items() if low <= n <= high]
    return max(fitting)[1]


def mixed_delta(triples: list[Triple], tag: str = "u") -> tuple[list[Triple], list[Triple],
                                                               dict[str, str]]:
    """A delta of every kind on a real graph: (added, removed, what it did).

    A label shown in many documents renamed; an actor removed with every triple naming it;
    a new work produced by an existing actor, of an existing type, depicting an existing
    subject; some types and a time-span taken off existing entities.
    """
    rng = sorted(triples, key=lambda t: (t.s, t.p, str(t.o)))
    hub = most_named(rng)
    old_labels = [t for t in rng if t.s == hub and t.p == RDFS_LABEL]
    removed = list(old_labels)
    added = [Triple(hub, RDFS_LABEL, Literal(f"{old_labels[0].o.value} ({tag} renamed)",  # type: ignore[union-attr]
                                             old_labels[0].o.lang, old_labels[0].o.datatype))]  # type: ignore[union-attr]
    makers: dict[str, int] = {}
    for t in rng:
        if t.p == CRM + "P14_carried_out_by" and isinstance(t.o, str):
            makers[t.o] = makers.get(t.o, 0) + 1
    ranked = sorted(makers, key=lambda a: (-makers[a], a))
    victim = next((a for a in ranked if 2 <= makers[a] <= 10), ranked[-1])
    removed += [t for t in rng if t.s == victim or t.o == victim]
    maker = ranked[0]
    made = {t.s for t in rng if t.p == CRM + "P108i_was_produced_by"}
    typed = [t for t in rng if t.p == CRM + "P2_has_type" and "/object/" in t.s] or [
        t for t in rng if t.p == CRM + "P2_has_type" and t.s in made]
    kind = typed[0].o
    depicted = next((t.o for t in rng if t.p == CRM + "P62_depicts"), hub)
    work = f"http://example.org/{tag}/object/1"
    production = f"http://example.org/{tag}/production/1"
    added += [
        Triple(work, RDF_TYPE, CRM + "E22_Human-Made_Object"),
        Triple(work, RDFS_LABEL, Literal(f"A new acquisition {tag}", "en")),
        Triple(work, CRM + "P2_has_type", kind),
        Triple(work, CRM + "P62_depicts", depicted),
        Triple(work, CRM + "P108i_was_produced_by", production),
        Triple(production, RDF_TYPE, CRM + "E12_Production"),
        Triple(production, CRM + "P14_carried_out_by", maker),
    ]
    removed += [t for t in typed[1:4] if t.s != hub]
    spans = [t for t in rng if t.p == CRM + "P4_has_time-span"]
    removed += spans[:1]
    return added, removed, {"renamed": hub, "removed_entity": victim, "maker": maker,
                            "new_work": work}


def changed_graph(triples: list[Triple], added: list[Triple],
                  removed: list[Triple]) -> list[Triple]:
    """``triples`` with ``removed`` taken out and ``added`` put in."""
    gone = set(removed)
    return [t for t in triples if t not in gone] + [t for t in added if t not in gone]
