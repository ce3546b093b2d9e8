"""The checkpointed parts of a build, and what :meth:`DocumentBuilder.finish` makes of them.

Each chunk checkpoints its documents, triples, label candidates and FR edges as small
Parquet parts. The finish merges them without holding a Python object per document or per
triple: the documents stay Arrow rows (about the size of their text), the archive-wide labels
and the triple store live only as long as the step that needs them (and Arrow's memory pool
is handed back between steps), chaining is decided from the documents' lengths, URIs and
categories (:class:`~llama_index_crm.build.chaining.ChainPlan`), and the final documents
are made a slice at a time (:class:`FinalDocuments`), so that the docstore is filled part
by part.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import overload

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from llama_index_crm.build.chaining import ChainPlan
from llama_index_crm.build.documents import EntityDocument
from llama_index_crm.storage.triple_writer import TripleWriter
from llama_index_crm.storage.triples import TermDictionary, TripleStore

TRIPLES_FILE = "triples.parquet"
FR_EDGES_FILE = "fr_edges.parquet"
UNCHAINED_FILE = "unchained.parquet"
"""The documents as written, before chaining: what an update rewrites and chains again."""
LABELS_FILE = "labels.parquet"
"""The archive-wide label of every term (term, label, rank: 0 a document's label, 1 a real
label, 2 a fallback): what an update starts from."""
_REDUCE_ROWS = 2_000_000
"""Label candidates gathered before they are reduced to one per term."""
TRIPLE_COLUMNS = ("s", "s_label", "p", "p_label", "o", "o_label")
_FR_EDGE_SCHEMA = pa.schema([("s", pa.string()), ("fr", pa.string()), ("o", pa.string()),
                             ("direct", pa.bool_()), ("widened_by", pa.string()),
                             ("via", pa.string())])

_DOC_SCHEMA = pa.schema(
    [
        ("uri", pa.string()),
        ("label", pa.string()),
        ("category", pa.string()),
        ("classes", pa.list_(pa.string())),
        ("text", pa.string()),
        ("satellites", pa.list_(pa.string())),
        ("named", pa.bool_()),
    ]
)



def _fr_edge_rows(docs: list[EntityDocument]) -> pa.Table:
    """Every FR match of ``docs`` as rows (s, fr, o, direct, widened_by, via): a part of the
    FR graph behind PageRank."""
    rows = [(d.uri, e) for d in docs for e in d.fr_edges]
    return pa.table({
        "s": pa.array([s for s, _ in rows], pa.string()),
        "fr": pa.array([e.fr for _, e in rows], pa.string()),
        "o": pa.array([e.o for _, e in rows], pa.string()),
        "direct": pa.array([e.direct for _, e in rows], pa.bool_()),
        "widened_by": pa.array([e.widened_by for _, e in rows], pa.string()),
        "via": pa.array([e.via for _, e in rows], pa.string()),
    }, schema=_FR_EDGE_SCHEMA)


def _merge_fr_edges(path: Path, parts: list[Path]) -> None:
    """The FR-edge parts of every chunk as one ``fr_edges.parquet``, part by part."""
    with pq.ParquetWriter(path, _FR_EDGE_SCHEMA) as writer:
        for part in parts:
            writer.write_table(pq.read_table(part, schema=_FR_EDGE_SCHEMA))


def _best_labels(parts: list[Path], docs: pa.Table) -> tuple[pa.Array, pa.Array, pa.Array]:
    """One label per term for the whole archive, whatever chunk a triple came from.

    A chunk names only the nodes it fetched; across chunks the same term may carry its
    label, a marked fallback or nothing. Each chunk checkpoints the names of the nodes it
    described (``labels-*.parquet``). Preference: the entity's document label (``docs``:
    the documents' rows), then a real label, then a fallback, then nothing (ties: the
    smallest string).
    """
    pieces = [pa.table({"term": docs.column("uri"), "label": docs.column("label"),
                        "rank": pa.array(np.zeros(docs.num_rows, np.int8))})]
    rows = docs.num_rows
    for part in parts:
        pieces.append(pq.read_table(part))
        rows += pieces[-1].num_rows
        if rows > _REDUCE_ROWS:  # keep memory bounded by the number of distinct terms
            pieces = [reduce_labels(pieces)]
            rows = pieces[0].num_rows
    best = reduce_labels(pieces)
    return (best.column("term").combine_chunks(), best.column("label").combine_chunks(),
            best.column("rank").combine_chunks())


def reduce_labels(tables: list[pa.Table]) -> pa.Table:
    """Label candidates (term, label, rank) reduced to the best per term: the lowest rank,
    then the smallest label; sorted by term."""
    merged = pa.concat_tables(tables).sort_by(
        [("term", "ascending"), ("rank", "ascending"), ("label", "ascending")])
    best = merged.group_by("term", use_threads=False).aggregate(
        [("label", "first"), ("rank", "first")])
    return best.rename_columns(["term", "label", "rank"]).sort_by("term")


def write_labels(path: Path, terms: pa.Array, labels: pa.Array, ranks: pa.Array) -> None:
    """Write the archive-wide labels (``labels.parquet``) atomically."""
    tmp = path.with_suffix(".tmp")
    pq.write_table(pa.table({"term": terms.cast(pa.string()), "label": labels.cast(pa.string()),
                             "rank": ranks.cast(pa.int8())}), tmp)
    tmp.replace(path)


def document_table(docs: list[EntityDocument]) -> pa.Table:
    """Documents as rows of the parts' schema (no FR edges, no chaining)."""
    return pa.table({name: pa.array([getattr(d, name) for d in docs], field.type)
                     for name, field in zip(_DOC_SCHEMA.names, _DOC_SCHEMA, strict=True)},
                    schema=_DOC_SCHEMA)


def write_documents(path: Path, docs: list[EntityDocument]) -> None:
    """Write documents as written, before chaining (``unchained.parquet``), atomically."""
    write_document_table(path, document_table(docs))


def write_document_table(path: Path, table: pa.Table) -> None:
    """:func:`write_documents` of documents as rows of the parts' schema.

    Without their ``satellites``: that list names the satellites the chunk happened to
    fetch (a right no document shows is known when its own entity is in the same chunk),
    so it depends on the chunks, and nothing reads it."""
    tmp = path.with_suffix(".tmp")
    index = table.schema.get_field_index("satellites")
    table = table.set_column(index, "satellites",
                             pa.array([[]] * table.num_rows, pa.list_(pa.string())))
    pq.write_table(table.combine_chunks(), tmp)  # one chunk: the pages of a build in one go
    tmp.replace(path)


def read_documents(path: Path) -> list[EntityDocument]:
    """Read what :func:`write_documents` wrote."""
    return documents_of(pq.read_table(path))


def documents_of(table: pa.Table) -> list[EntityDocument]:
    """Documents from rows of the parts' schema (column by column: a dict per row costs
    twice as much)."""
    names = [f.name for f in _DOC_SCHEMA]
    if table.column_names != names:
        return [EntityDocument(**row) for row in table.to_pylist()]
    uri, label, category, classes, text, satellites, named = (
        table.column(n).to_pylist() for n in names)
    return [EntityDocument(u, lab, c, cl, t, satellites=sat, named=nd)
            for u, lab, c, cl, t, sat, nd in zip(uri, label, category, classes, text,
                                                 satellites, named, strict=True)]


def fr_edge_rows(docs: list[EntityDocument]) -> pa.Table:
    """The FR edges of ``docs`` as ``fr_edges.parquet`` rows."""
    return _fr_edge_rows(docs)


def _relabel(table: pa.Table, terms: pa.Array, labels: pa.Array) -> pa.Table:
    """``table`` with its s_label / o_label columns taken from the archive-wide labels."""
    s_label = labels.take(pc.index_in(table.column("s"), value_set=terms))
    is_literal = pc.starts_with(table.column("o"), '"')
    o_best = labels.take(pc.index_in(table.column("o"), value_set=terms))
    o_label = pc.if_else(is_literal, table.column("o_label"), pc.fill_null(o_best, ""))
    table = table.set_column(table.schema.get_field_index("s_label"), "s_label",
                             pc.fill_null(s_label, ""))
    return table.set_column(table.schema.get_field_index("o_label"), "o_label", o_label)


BATCH = 2_000
"""Final documents made at a time by :meth:`FinalDocuments.batches`."""


def read_table_parts(parts: list[Path], schema: pa.Schema = _DOC_SCHEMA) -> pa.Table:
    """The rows of Parquet parts, in order, as one table of ``schema`` (one chunk a part;
    cast, so that a list's item is named as Arrow names it, not as Parquet does)."""
    tables = [pq.read_table(part).cast(schema) for part in parts]
    return pa.concat_tables(tables) if tables else schema.empty_table()


class FinalDocuments(Sequence[EntityDocument]):
    """The documents of a build once chained, made from their Arrow rows when asked for.

    Args:
        table: every document as written (rows of the parts' schema), in build order.
        plan: what chaining does to them.
    """

    def __init__(self, table: pa.Table, plan: ChainPlan) -> None:
        self._table = table
        self._plan = plan
        kept = np.ones(table.num_rows, dtype=bool)
        kept[np.fromiter(plan.removed, dtype=np.int64, count=len(plan.removed))] = False
        self._rows = np.flatnonzero(kept)
        """Row of each final document."""

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, i: int) -> EntityDocument: ...

    @overload
    def __getitem__(self, i: slice) -> list[EntityDocument]: ...

    def __getitem__(self, i: int | slice) -> EntityDocument | list[EntityDocument]:
        if isinstance(i, slice):
            return self._make(self._rows[i])
        return self._make(self._rows[[range(len(self))[i]]])[0]

    def __iter__(self) -> Iterator[EntityDocument]:
        for batch in self.batches():
            yield from batch

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other,
                                                                      strict=True))

    __hash__ = None  # type: ignore[assignment]

    def batches(self, size: int = BATCH) -> Iterator[list[EntityDocument]]:
        """The final documents in order, ``size`` at a time."""
        for start in range(0, len(self._rows), size):
            yield self._make(self._rows[start:start + size])

    def _make(self, rows: np.ndarray) -> list[EntityDocument]:
        """The final documents of these rows (each chained one with its members')."""
        members = self._plan.members
        wanted = rows.tolist()
        extra = sorted({m for r in wanted for m in members.get(r, [])[1:]} - set(wanted))
        taken = wanted + extra
        by_row = dict(zip(taken, documents_of(self._table.take(pa.array(taken, pa.int64()))),
                          strict=True))
        return [self._plan.final(r, by_row[r], by_row) for r in wanted]


def merge_triples(path: Path, parts: list[Path], terms: pa.Array, labels: pa.Array) -> int:
    """The triple parts, relabelled with the archive-wide labels, as one deduplicated
    archive (``triples.parquet``), part by part; returns the number of triples."""
    with TripleWriter(path) as writer:
        for part in parts:
            table = _relabel(pq.read_table(part), terms, labels)
            writer.write(zip(*(table.column(c).to_pylist() for c in TRIPLE_COLUMNS),
                             strict=True))
    return writer.count


def document_lengths(table: pa.Table) -> list[int]:
    """The length of each document's text in characters (``len``), by row."""
    return pc.utf8_length(table.column("text")).to_pylist()


def load_store(path: Path) -> TripleStore:
    """:meth:`TripleStore.load` of an archive, read a row group at a time: the same store
    (terms, ids, labels), without the whole archive's columns in memory at once.

    First the distinct terms, then each row group's ids and label candidates; a term's
    label is, as :meth:`TripleStore.load` picks it, the first non-empty one among its rows
    as subject, then as predicate, then as object (rows in file order), and the candidates
    are reduced to one per term after each row group.
    """
    archive = pq.ParquetFile(path)
    groups = range(archive.num_row_groups)
    distinct = pa.array([], pa.large_string())
    for i in groups:
        group = archive.read_row_group(i, columns=["s", "p", "o"])
        found = [pc.unique(group.column(c).combine_chunks()).cast(pa.large_string())
                 for c in ("s", "p", "o")]
        distinct = pc.unique(pa.concat_arrays([distinct, *found]))
    terms = distinct.take(pc.sort_indices(distinct))
    del distinct
    ids: list[list[np.ndarray]] = [[], [], []]
    best = (np.zeros(0, np.int64), np.zeros(0, np.int64), pa.array([], pa.large_string()))
    start = 0
    for i in groups:
        group = archive.read_row_group(i, columns=["s", "s_label", "p", "p_label", "o",
                                                   "o_label"])
        keys, ranks, values = [best[0]], [best[1]], [best[2]]
        for part, (column, label) in enumerate((("s", "s_label"), ("p", "p_label"),
                                                 ("o", "o_label"))):
            found = pc.index_in(group.column(column), value_set=terms)
            term_ids = found.to_numpy(zero_copy_only=False).astype(np.int32)
            ids[part].append(term_ids)
            labels = group.column(label).combine_chunks().cast(pa.large_string())
            rows = np.flatnonzero(pc.not_equal(labels, "").to_numpy(zero_copy_only=False))
            keys.append(term_ids[rows].astype(np.int64))
            # earlier parts first, then earlier rows: (part, row) as one rank
            ranks.append(part * (1 << 40) + start + rows)
            values.append(labels.take(pa.array(rows)))
        start += group.num_rows
        key, rank = np.concatenate(keys), np.concatenate(ranks)
        order = np.lexsort((rank, key))
        _, first = np.unique(key[order], return_index=True)
        keep = order[first]
        best = (key[keep], rank[keep], pa.concat_arrays(values).take(pa.array(keep)))
    s, p, o = (np.concatenate(part) if part else np.zeros(0, np.int32) for part in ids)
    per_term = np.full(len(terms), -1, dtype=np.int64)
    per_term[best[0]] = np.arange(len(best[0]))
    store = TripleStore.__new__(TripleStore)
    store.path = Path(path)
    store._terms = TermDictionary(terms)  # noqa: SLF001
    store._labels = best[2].take(pa.array(per_term, mask=per_term < 0))  # noqa: SLF001
    order = np.lexsort((o, p, s))
    store._index(s[order], p[order], o[order])  # noqa: SLF001
    return store
