"""The integer-encoded triple index used at query time.

:class:`TripleStore` loads ``triples.parquet`` (see :mod:`.triple_writer`) into numpy:
every distinct term (subject, predicate or encoded object) gets an ``int32`` id, its rank
in byte order, so ids sort like the strings they stand for. Triples are three id arrays
sorted by subject, with CSR offsets by subject and an object-sorted copy of the predicate
and subject columns with CSR offsets by object: both adjacency look-ups are slices
(O(degree)), about 20 bytes a triple plus 17 a term. The strings stay in Arrow buffers
(:class:`TermDictionary`, one label column); no Python object exists per triple.

>>> store = TripleStore.from_triples(
...     [Triple("ex:a", "ex:p", "ex:b"), Triple("ex:b", "ex:q", "ex:a")]
... )
>>> store.neighbours("ex:a"), store.degree("ex:a"), len(store)
(['ex:b'], 2, 2)
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from llama_index_crm.errors import IndexFormatError
from llama_index_crm.rdf import Literal, Triple, decode_object, encode_object, fold_label
from llama_index_crm.storage.triple_writer import (
    COLUMNS,
    FORMAT_KEY,
    ROW_GROUP_SIZE,
    TRIPLE_SCHEMA,
    TRIPLES_FORMAT,
    HashSet,
    TripleRow,
    dedup_batches,
)

SUBJECTS_BATCH = 10_000
"""Subjects decoded at a time by :meth:`TripleStore.subjects`."""

RELABEL_ALL_ABOVE = 0.25
"""A patched store finds the labels of the terms a change touched in their rows of the
archive; above this share of its rows, in all of them."""

SMALL_TAKE = 256
"""Up to this many ids, :meth:`TermDictionary.take` decodes in Python (no Arrow call)."""

REBUILD_HINT = "Rebuild the index with `crm-rag build`."


class TermDictionary:
    """Distinct terms in byte order; a term's id is its position.

    The strings live in one Arrow ``large_string`` array; :meth:`id_of` is a binary search
    over its buffers, so the dictionary costs the string bytes plus 8 bytes a term.

    Args:
        terms: Distinct, non-null strings sorted in byte order.
    """

    def __init__(self, terms: pa.Array) -> None:
        self._array = terms.cast(pa.large_string())
        _, offsets, data = self._array.buffers()
        start = self._array.offset
        self._offsets = (
            np.frombuffer(offsets, dtype=np.int64)[start : start + len(terms) + 1]
            if offsets is not None
            else np.zeros(1, dtype=np.int64)
        )
        self._data = memoryview(data) if data is not None else memoryview(b"")
        self.is_literal: np.ndarray = pc.starts_with(self._array, '"').to_numpy(
            zero_copy_only=False
        )
        """Boolean per id: whether the term is an encoded literal."""

    def __len__(self) -> int:
        return len(self._array)

    @property
    def array(self) -> pa.Array:
        """The terms as an Arrow ``large_string`` array."""
        return self._array

    def _bytes(self, term_id: int) -> bytes:
        return bytes(self._data[self._offsets[term_id] : self._offsets[term_id + 1]])

    def id_of(self, term: str) -> int | None:
        """The id of ``term``, or ``None`` when it does not occur."""
        key = term.encode()
        pos = bisect.bisect_left(range(len(self)), key, key=self._bytes)
        return pos if pos < len(self) and self._bytes(pos) == key else None

    def position(self, term: str) -> int:
        """How many terms sort before ``term`` (its id, when it occurs)."""
        return bisect.bisect_left(range(len(self)), term.encode(), key=self._bytes)

    def term(self, term_id: int) -> str:
        """The string of ``term_id``."""
        if not 0 <= term_id < len(self):
            raise IndexError(f"term id {term_id} out of range")
        return self._bytes(term_id).decode()

    def take(self, ids: np.ndarray | Sequence[int]) -> list[str]:
        """The strings of several ids, in order."""
        if len(ids) <= SMALL_TAKE:
            data, offsets = self._data, self._offsets
            return [str(data[offsets[i] : offsets[i + 1]], "utf-8") for i in ids]
        return [str(t) for t in self._array.take(pa.array(ids, pa.int64())).to_pylist()]

    def nbytes(self) -> int:
        """Bytes of the string data and its offsets."""
        return int(self._offsets.nbytes + (self._offsets[-1] - self._offsets[0]))


SMALL_LOOKUP = 256
"""Up to this many terms are looked up one by one (binary search) rather than hashed."""


def _dictionary(column: pa.ChunkedArray) -> tuple[pa.Array, np.ndarray]:
    """A string column as (dictionary, int32 codes), whether or not read dictionary-encoded."""
    if not pa.types.is_dictionary(column.type):
        column = pc.dictionary_encode(column)
    column = column.unify_dictionaries()
    if column.num_chunks == 0:
        return pa.array([], pa.large_string()), np.zeros(0, np.int32)
    codes = [chunk.indices.to_numpy(zero_copy_only=False) for chunk in column.chunks]
    dictionary = column.chunk(0).dictionary.cast(pa.large_string())
    return dictionary, np.concatenate(codes).astype(np.int32, copy=False)


def _recode(dictionary: pa.Array, codes: np.ndarray, into: pa.Array) -> np.ndarray:
    """Codes into ``dictionary`` rewritten as positions in ``into`` (a superset)."""
    mapping = pc.index_in(dictionary, value_set=into).to_numpy(zero_copy_only=False)
    return mapping.astype(np.int32)[codes]


def _encode(table: pa.Table) -> tuple[TermDictionary, list[np.ndarray], pa.Array]:
    """Term dictionary, ``[s, p, o]`` id arrays and one label per term for an archive table."""
    term_dicts, term_codes = zip(
        *(_dictionary(table.column(c)) for c in ("s", "p", "o")), strict=True
    )
    distinct = pc.unique(pa.concat_arrays(list(term_dicts)))
    terms = distinct.take(pc.sort_indices(distinct))
    ids = [_recode(d, c, terms) for d, c in zip(term_dicts, term_codes, strict=True)]
    return TermDictionary(terms), ids, _labels_of(table, len(terms), ids)


def _encode_known(table: pa.Table, terms: pa.Array) -> tuple[TermDictionary, list[np.ndarray],
                                                              pa.Array]:
    """:func:`_encode` when the sorted distinct terms of the table are known already."""
    value_set = terms.cast(pa.string())
    ids = []
    for name in ("s", "p", "o"):
        column = table.column(name)
        if pa.types.is_dictionary(column.type):
            column = column.cast(pa.string())
        found = pc.index_in(column, value_set=value_set)
        if found.null_count:
            raise ValueError(f"a term of column {name} is not among the terms given")
        ids.append(found.to_numpy(zero_copy_only=False).astype(np.int32))
    used = np.zeros(len(terms), dtype=bool)
    for i in ids:
        used[i] = True
    if not used.all():
        raise ValueError("some terms given occur in no triple of the table")
    return TermDictionary(terms), ids, _labels_of(table, len(terms), ids)


def _labels_of(table: pa.Table, n_terms: int, ids: list[np.ndarray]) -> pa.Array:
    """One label per term: the first non-empty one of its rows as subject, predicate,
    object (in that order, rows in table order); null for a term with none."""
    values: list[pa.Array] = []
    term_ids: list[np.ndarray] = []
    positions: list[np.ndarray] = []
    parts: list[np.ndarray] = []
    for part, (name, part_ids) in enumerate(zip(("s_label", "p_label", "o_label"), ids,
                                                strict=True)):
        column = table.column(name)
        if pa.types.is_dictionary(column.type):
            dictionary, codes = _dictionary(column)
            filled = pc.not_equal(dictionary, "").to_numpy(zero_copy_only=False)[codes]
            rows = np.flatnonzero(filled)
            values.append(dictionary)
            positions.append(codes[rows].astype(np.int64))
        else:
            array = column.combine_chunks().cast(pa.large_string())
            rows = np.flatnonzero(pc.not_equal(array, "").to_numpy(zero_copy_only=False))
            values.append(array)
            positions.append(rows)
        term_ids.append(part_ids[rows])
        parts.append(np.full(len(rows), part, dtype=np.int8))
    labelled, first = np.unique(np.concatenate(term_ids), return_index=True)
    part_of = np.concatenate(parts)[first]
    position_of = np.concatenate(positions)[first]
    pieces, order = [], []
    for part, array in enumerate(values):
        which = np.flatnonzero(part_of == part)
        pieces.append(array.take(pa.array(position_of[which])))
        order.append(which)
    chosen = pa.concat_arrays(pieces).take(pa.array(np.argsort(np.concatenate(order))))
    per_term = np.full(n_terms, -1, dtype=np.int64)
    per_term[labelled] = np.arange(len(labelled))
    return chosen.take(pa.array(per_term, mask=per_term < 0))


ENCODING_SUFFIXES = (".ids.npz", ".terms.arrow")
"""Beside an archive ``triples.parquet``: ``triples.parquet.ids.npz`` (term ids of every
triple, sorted, and the archive's digest) and ``triples.parquet.terms.arrow`` (the sorted
terms and their labels), written by :meth:`TripleStore.write_encoding`."""


def encoding_files(archive: Path) -> tuple[Path, Path]:
    """The files :meth:`TripleStore.write_encoding` keeps beside ``archive``."""
    return tuple(archive.with_name(archive.name + x) for x in ENCODING_SUFFIXES)  # type: ignore[return-value]


def _digest(path: Path) -> bytes:
    """A digest of a file's bytes (an archive of 1.3 M triples: ~25 MB, a few ms)."""
    import hashlib

    h = hashlib.blake2b(digest_size=16)
    with path.open("rb") as f:
        while chunk := f.read(1 << 22):
            h.update(chunk)
    return h.digest()


def _as_row(row: Triple | TripleRow) -> TripleRow:
    if len(row) == 6:
        return row
    s, p, o = row
    return (s, "", p, "", o, "")


def _csr(keys: np.ndarray, n_terms: int) -> np.ndarray:
    offsets = np.zeros(n_terms + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys, minlength=n_terms), out=offsets[1:])
    return offsets


class TripleStore:
    """Triples of one graph, dictionary-encoded, with O(degree) adjacency by subject and object.

    Build one with :meth:`load` (a ``triples.parquet`` archive), :meth:`from_table` or
    :meth:`from_triples`; all three share one encoding path.

    Args:
        table: An archive table with the six columns of ``TRIPLE_SCHEMA`` (dictionary-encoded
            columns are accepted).
        path: The archive file ``table`` was read from, if any.
    """

    def __init__(self, table: pa.Table, path: str | Path | None = None,
                 terms: pa.Array | None = None) -> None:
        self.path = None if path is None else Path(path)
        """The archive this store was loaded from (``None`` when built in memory)."""
        self._terms, (s, p, o), self._labels = _encode(table) if terms is None else \
            _encode_known(table, terms)
        order = np.lexsort((o, p, s))
        self._index(s[order], p[order], o[order])

    def _index(self, s: np.ndarray, p: np.ndarray, o: np.ndarray) -> None:
        """Take the id arrays (sorted by subject, predicate, object) and index them."""
        self.s_ids: np.ndarray = s
        """Subject ids, sorted by subject (then predicate, then object)."""
        self.p_ids: np.ndarray = p
        """Predicate ids aligned with :attr:`s_ids`."""
        self.o_ids: np.ndarray = o
        """Object ids aligned with :attr:`s_ids`."""
        by_object = np.argsort(self.o_ids, kind="stable")
        self._in_p = self.p_ids[by_object]
        self._in_s = self.s_ids[by_object]
        self._out_offsets = _csr(self.s_ids, len(self._terms))
        self._in_offsets = _csr(self.o_ids, len(self._terms))
        self._lower_labels: pa.Array | None = None

    # ----- construction -----------------------------------------------------------------
    @classmethod
    def from_table(cls, table: pa.Table) -> TripleStore:
        """A store over an archive table already in memory."""
        return cls(table)

    def terms_after(self, removed: Iterable[tuple[str, str, str]],
                    added: Iterable[tuple[str, str, str]]) -> pa.Array:
        """The sorted distinct terms of this archive with the rows ``removed`` (each one
        of its rows) taken out and the rows ``added`` (none of its rows) put in: the
        ``terms`` of the store of that archive (``TripleStore(table, terms=...)``), found
        without encoding the archive again."""
        return self._terms_after(removed, added)[0]

    def _terms_after(self, removed: Iterable[tuple[str, str, str]],
                     added: Iterable[tuple[str, str, str]]) -> tuple[pa.Array, np.ndarray]:
        """:meth:`terms_after`, and the id among them of each of this store's term ids
        (-1: gone): the terms kept stay in order, the new ones are put in between them
        at their places (found by binary search), nothing is sorted again."""
        counts = np.bincount(np.concatenate([self.s_ids, self.p_ids, self.o_ids]),
                             minlength=len(self._terms)).astype(np.int64)
        fresh: set[str] = set()
        for row in removed:
            for term in row:
                term_id = self._terms.id_of(term)
                if term_id is None:
                    raise ValueError(f"{row} is not a row of this archive")
                counts[term_id] -= 1
        for row in added:
            for term in row:
                term_id = self._terms.id_of(term)
                if term_id is None:
                    fresh.add(term)
                else:
                    counts[term_id] += 1
        keep = counts > 0
        kept = self._terms.array.filter(pa.array(keep))
        kept_before = np.concatenate([[0], np.cumsum(keep)])  # kept ids below each id
        new = sorted(fresh, key=lambda t: t.encode())
        places = np.asarray([kept_before[self._terms.position(t)] for t in new],
                            dtype=np.int64)
        term_map = np.full(len(self._terms), -1, dtype=np.int64)
        rank = np.arange(len(kept), dtype=np.int64)
        term_map[keep] = rank + np.searchsorted(places, rank, side="right")
        if not new:
            return kept, term_map
        pieces, last = [], 0
        for term, place in zip(new, places.tolist(), strict=True):
            pieces += [kept.slice(last, place - last), pa.array([term], pa.large_string())]
            last = place
        pieces.append(kept.slice(last))
        return pa.concat_arrays(pieces), term_map

    def patched(self, removed: Iterable[tuple[str, str, str]],
                added: Iterable[tuple[str, str, str]], table: pa.Table,
                path: str | Path | None, relabelled: Iterable[str] = ()
                ) -> tuple[TripleStore, np.ndarray]:
        """The store of ``table``, this store's archive with the rows ``removed`` (each
        one of its rows) taken out, the rows ``added`` (none of its rows) put in and the
        labels of the terms ``relabelled`` changed: made from this store's id arrays
        renumbered, not by encoding ``table`` again (the same terms, ids and labels).
        Also returns the new id of each of this store's term ids (-1: gone)."""
        removed, added = list(removed), list(added)
        terms, term_map = self._terms_after(removed, added)
        store = TripleStore.__new__(TripleStore)
        store.path = None if path is None else Path(path)
        store._terms = TermDictionary(terms)
        drop: list[int] = []
        for row in removed:
            sid, pid, oid = (self._terms.id_of(t) for t in row)
            if sid is None or pid is None or oid is None:
                raise ValueError(f"{row} is not a row of this archive")
            p_ids, o_ids = self.out_ids(sid)
            hit = np.flatnonzero((p_ids == pid) & (o_ids == oid))
            drop.extend((int(self._out_offsets[sid]) + hit).tolist())
        keep = np.ones(len(self), dtype=bool)
        keep[drop] = False
        ids = [term_map[a[keep]].astype(np.int32) for a in (self.s_ids, self.p_ids, self.o_ids)]
        if added:  # renumbered in order, the rows stay sorted; the added ones are sorted in
            more = [np.asarray([store._terms.id_of(row[k]) for row in added], dtype=np.int32)
                    for k in range(3)]
            n = len(terms)
            if n ** 3 < 2 ** 63:  # each row as one int64 key: the new rows inserted in place
                keys = (ids[0].astype(np.int64) * n + ids[1]) * n + ids[2]
                new = (more[0].astype(np.int64) * n + more[1]) * n + more[2]
                order = np.argsort(new)
                at = np.searchsorted(keys, new[order])
                ids = [np.insert(a, at, b[order]) for a, b in zip(ids, more, strict=True)]
            else:
                ids = [np.concatenate([a, b]) for a, b in zip(ids, more, strict=True)]
                order = np.lexsort((ids[2], ids[1], ids[0]))
                ids = [a[order] for a in ids]
        # labels: the earlier ones, but for the terms whose labels or parts changed, found
        # in their rows of the table as _labels_of finds them in the whole table. A term's
        # label is the first non-empty one of its rows as subject, predicate, object, and
        # every row gives a term the same label in the same part (the archive's labels are
        # per term; a predicate's per predicate): a term of a changed row whose label did
        # not change keeps its label while it keeps rows in the same parts (rdfs:label, a
        # predicate of 100,000 rows, is not looked at again for one label changed).
        back = np.full(len(terms), -1, dtype=np.int64)
        back[term_map[term_map >= 0]] = np.flatnonzero(term_map >= 0)
        labels = self._labels.cast(pa.large_string()).take(pa.array(back, mask=back < 0))
        dirty = {t for t in relabelled if store._terms.id_of(t) is not None}
        moved = sorted({t for row in removed + added for t in row})
        new_ids, old_ids = (np.asarray([-1 if (i := d.id_of(t)) is None else i for t in moved],
                                       dtype=np.int64) for d in (store._terms, self._terms))
        if len(moved):
            there = new_ids >= 0
            was = np.stack([np.bincount(a, minlength=len(self._terms))[np.maximum(old_ids, 0)]
                            for a in (self.s_ids, self.p_ids, self.o_ids)]) > 0
            now = np.stack([np.bincount(a, minlength=len(terms))[np.maximum(new_ids, 0)]
                            for a in ids]) > 0
            same = (old_ids >= 0) & (was == now).all(axis=0)
            dirty |= {t for t, keep, ok in zip(moved, same.tolist(), there.tolist(),
                                               strict=True) if ok and not keep}
        if dirty:
            value_set = pa.array(sorted(dirty), pa.string())
            hit = pc.or_(pc.or_(pc.is_in(table.column("s"), value_set=value_set),
                                pc.is_in(table.column("p"), value_set=value_set)),
                         pc.is_in(table.column("o"), value_set=value_set))
            if pc.sum(hit).as_py() > table.num_rows * RELABEL_ALL_ABOVE:  # label every row
                labels = _encode_known(table, terms)[2].cast(pa.large_string())
            else:
                sub_dict, _, sub_labels = _encode(table.filter(hit))
                key = pa.array(sorted(dirty), pa.large_string())
                wanted = pc.index_in(key, value_set=sub_dict.array).to_numpy(
                    zero_copy_only=False).astype(np.int64)
                where = pc.index_in(key, value_set=terms).to_numpy(
                    zero_copy_only=False).astype(np.int64)
                position = np.arange(len(terms), dtype=np.int64)
                position[where] = len(terms) + np.arange(len(where))
                labels = pa.concat_arrays([labels, sub_labels.cast(pa.large_string()).take(
                    pa.array(wanted))]).take(pa.array(position))
        store._labels = labels
        store._index(*ids)
        return store, term_map

    def positions_in(self, other: TripleStore) -> np.ndarray:
        """The id in ``other`` of each term of this store (-1 where ``other`` has no such
        term), by term id: since ids are ranks in byte order, the ids of the terms both
        stores hold keep their order."""
        found = pc.index_in(self._terms.array, value_set=other._terms.array)  # noqa: SLF001
        return found.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)

    @classmethod
    def from_triples(cls, rows: Iterable[Triple | TripleRow]) -> TripleStore:
        """A small in-memory store (tests, candidate pools), deduplicated like the archive.

        Args:
            rows: :class:`Triple` values (no labels) or ``(s, s_label, p, p_label, o,
                o_label)`` rows as given to :class:`TripleWriter`.
        """
        batches = list(dedup_batches(map(_as_row, rows), HashSet()))
        return cls(pa.concat_tables(batches) if batches else TRIPLE_SCHEMA.empty_table())

    @classmethod
    def load(cls, path: str | Path, fs: Any | None = None) -> TripleStore:
        """Load a ``triples.parquet`` archive written by :class:`TripleWriter`.

        Args:
            path: The archive file.
            fs: An fsspec or pyarrow filesystem; the local one when ``None``.

        Raises:
            IndexFormatError: The file is missing, unreadable or not a triple archive.
        """
        if fs is None and not Path(path).is_file():
            raise IndexFormatError(f"Triple archive {path} is missing. {REBUILD_HINT}")
        if fs is None:
            cached = cls._from_encoding(Path(path))
            if cached is not None:
                return cached
        try:
            table = pq.read_table(
                str(path),
                columns=list(COLUMNS),
                read_dictionary=list(COLUMNS),
                filesystem=fs,
            )
        except (pa.ArrowException, OSError, ValueError, KeyError) as exc:
            raise IndexFormatError(
                f"Cannot read triple archive {path}: {exc}. {REBUILD_HINT}"
            ) from exc
        found = (table.schema.metadata or {}).get(FORMAT_KEY)
        if found != TRIPLES_FORMAT:
            raise IndexFormatError(
                f"{path} is not a {TRIPLES_FORMAT.decode()} archive (format {found!r}). "
                + REBUILD_HINT
            )
        return cls(table, path=path)

    # ----- the encoding kept beside the archive --------------------------------------
    @classmethod
    def _from_encoding(cls, path: Path) -> TripleStore | None:
        """The store of the archive ``path`` from the encoding :meth:`write_encoding` kept
        beside it, or None when there is none, or it is not the encoding of this archive
        (its digest differs: the archive was written again without it)."""
        ids_file, terms_file = encoding_files(path)
        if not (ids_file.is_file() and terms_file.is_file()):
            return None
        try:
            with np.load(ids_file) as arrays:
                if bytes(arrays["digest"]) != _digest(path):
                    return None
                s, p, o = arrays["s"], arrays["p"], arrays["o"]
            with pa.memory_map(str(terms_file)) as source:
                table = pa.ipc.open_file(source).read_all()
        except (OSError, ValueError, KeyError, pa.ArrowException):
            return None
        store = cls.__new__(cls)
        store.path = path
        store._terms = TermDictionary(table.column("term").combine_chunks())
        store._labels = table.column("label").combine_chunks()
        store._index(s, p, o)
        return store

    def write_encoding(self) -> None:
        """Keep this store's encoding (term ids of every triple, sorted terms and their
        labels) beside its archive (:attr:`path`), which :meth:`load` then reads instead of
        encoding the archive again; written atomically, with the archive's digest."""
        if self.path is None:
            raise ValueError("a store made in memory has no archive to keep its encoding by")
        ids_file, terms_file = encoding_files(self.path)
        tmp = terms_file.with_name(terms_file.name + ".tmp")
        table = pa.table({"term": self._terms.array, "label": self._labels.cast(
            pa.large_string())})
        with pa.OSFile(str(tmp), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)
        tmp.replace(terms_file)
        tmp = ids_file.with_name(ids_file.name + ".tmp.npz")
        np.savez(tmp, s=self.s_ids, p=self.p_ids, o=self.o_ids,
                 digest=np.frombuffer(_digest(self.path), dtype=np.uint8))
        tmp.replace(ids_file)

    def to_parquet(self, where: str | Path | BinaryIO, fs: Any | None = None) -> None:
        """Write the store back to a ``triples.parquet`` archive (labels included).

        Args:
            where: A path or a binary file object.
            fs: An fsspec or pyarrow filesystem for a path; the local one when ``None``.
        """
        sink = str(where) if isinstance(where, Path) else where
        with pq.ParquetWriter(sink, TRIPLE_SCHEMA, compression="zstd", filesystem=fs) as writer:
            for start in range(0, len(self), ROW_GROUP_SIZE):
                sl = slice(start, start + ROW_GROUP_SIZE)
                arrays = []
                for ids in (self.s_ids[sl], self.p_ids[sl], self.o_ids[sl]):
                    index = pa.array(ids)
                    arrays.append(self._terms.array.take(index).cast(pa.string()))
                    arrays.append(self._labels.take(index).fill_null("").cast(pa.string()))
                writer.write_table(pa.Table.from_arrays(arrays, schema=TRIPLE_SCHEMA))

    # ----- id level ---------------------------------------------------------------------
    def ids_of(self, terms: pa.Array | pa.ChunkedArray | Sequence[str]) -> np.ndarray:
        """Ids of many terms at once (vectorised); -1 where a term does not occur."""
        if not isinstance(terms, pa.Array | pa.ChunkedArray) and len(terms) <= SMALL_LOOKUP:
            # a few terms: binary searches, not a hash table over every term of the store
            found_ids = [self._terms.id_of(t) for t in terms]
            return np.asarray([-1 if i is None else i for i in found_ids], dtype=np.int64)
        array = terms if isinstance(terms, pa.Array | pa.ChunkedArray) else pa.array(
            list(terms), pa.large_string())
        found = pc.index_in(array, value_set=self._terms.array)
        return found.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)

    def id_of(self, term: str) -> int | None:
        """The id of a term (IRI, blank node or encoded literal), ``None`` if absent."""
        return self._terms.id_of(term)

    def term(self, term_id: int) -> str:
        """The string (encoded, for a literal) of a term id."""
        return self._terms.term(term_id)

    def take(self, ids: np.ndarray | Sequence[int]) -> list[str]:
        """The strings of several term ids, in order."""
        return self._terms.take(ids)

    def starts_with(self, prefix: str) -> np.ndarray:
        """Boolean per term id: whether the term starts with ``prefix`` (vectorised)."""
        return pc.starts_with(self._terms.array, prefix).to_numpy(zero_copy_only=False)

    def out_ids(self, term_id: int) -> tuple[np.ndarray, np.ndarray]:
        """``(p_ids, o_ids)`` of the triples whose subject is ``term_id`` (numpy views)."""
        start, end = self._out_offsets[term_id], self._out_offsets[term_id + 1]
        return self.p_ids[start:end], self.o_ids[start:end]

    def in_ids(self, term_id: int) -> tuple[np.ndarray, np.ndarray]:
        """``(p_ids, s_ids)`` of the triples whose object is ``term_id`` (numpy views)."""
        start, end = self._in_offsets[term_id], self._in_offsets[term_id + 1]
        return self._in_p[start:end], self._in_s[start:end]

    def edges(self, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every triple touching ``nodes``, vectorised: ``(index into nodes, predicate id,
        the other end, forward)``; ``forward`` is True where the node is the subject."""
        nodes = np.asarray(nodes, dtype=np.int64)
        parts = []
        for offsets, preds, others, forward in ((self._out_offsets, self.p_ids, self.o_ids, True),
                                                (self._in_offsets, self._in_p, self._in_s, False)):
            starts, ends = offsets[nodes], offsets[nodes + 1]
            sizes = (ends - starts).astype(np.int64)
            owner = np.repeat(np.arange(len(nodes), dtype=np.int64), sizes)
            first = np.cumsum(sizes) - sizes
            pos = np.arange(int(sizes.sum()), dtype=np.int64) - np.repeat(first - starts, sizes)
            parts.append((owner, preds[pos].astype(np.int64), others[pos].astype(np.int64),
                          np.full(len(pos), forward)))
        return tuple(np.concatenate(x) for x in zip(*parts, strict=True))  # type: ignore[return-value]

    def degrees(self, nodes: np.ndarray) -> np.ndarray:
        """Triples per node (as subject plus as object), vectorised."""
        nodes = np.asarray(nodes, dtype=np.int64)
        return (self._out_offsets[nodes + 1] - self._out_offsets[nodes]
                + self._in_offsets[nodes + 1] - self._in_offsets[nodes])

    def neighbour_ids(self, term_id: int) -> np.ndarray:
        """Sorted distinct ids of the nodes linked to ``term_id`` either way (no literals)."""
        ids = np.unique(np.concatenate([self.out_ids(term_id)[1], self.in_ids(term_id)[1]]))
        return ids[~self._terms.is_literal[ids] & (ids != term_id)]

    @property
    def out_offsets(self) -> np.ndarray:
        """CSR offsets into :attr:`s_ids` / :attr:`p_ids` / :attr:`o_ids` per subject id."""
        return self._out_offsets

    @property
    def in_offsets(self) -> np.ndarray:
        """CSR offsets into :attr:`in_p` / :attr:`in_s` per object id."""
        return self._in_offsets

    @property
    def in_p(self) -> np.ndarray:
        """Predicate ids sorted by object (see :attr:`in_offsets`)."""
        return self._in_p

    @property
    def in_s(self) -> np.ndarray:
        """Subject ids sorted by object (see :attr:`in_offsets`)."""
        return self._in_s

    @property
    def is_literal(self) -> np.ndarray:
        """Boolean per term id: whether the term is a literal."""
        return self._terms.is_literal

    # ----- string level -----------------------------------------------------------------
    def outgoing(self, uri: str) -> list[tuple[str, str | Literal]]:
        """``(p, o)`` of the triples whose subject is ``uri``, objects decoded."""
        term_id = self.id_of(uri)
        return [] if term_id is None else self._outgoing(term_id)

    def incoming(self, uri: str) -> list[tuple[str, str]]:
        """``(s, p)`` of the triples whose object is ``uri``."""
        term_id = self.id_of(uri)
        return [] if term_id is None else self._incoming(term_id)

    def triples_of(self, uri: str) -> list[Triple]:
        """Every triple with ``uri`` as subject or object (outgoing first, each once)."""
        term_id = self.id_of(uri)
        if term_id is None:
            return []
        out = [Triple(uri, p, o) for p, o in self._outgoing(term_id)]
        return out + [Triple(s, p, uri) for s, p in self._incoming(term_id) if s != uri]

    def _outgoing(self, term_id: int) -> list[tuple[str, str | Literal]]:
        p_ids, o_ids = self.out_ids(term_id)
        strings = self._terms.take(np.concatenate([p_ids, o_ids]))
        n = len(p_ids)
        return [(p, decode_object(o)) for p, o in zip(strings[:n], strings[n:], strict=True)]

    def _incoming(self, term_id: int) -> list[tuple[str, str]]:
        p_ids, s_ids = self.in_ids(term_id)
        strings = self._terms.take(np.concatenate([s_ids, p_ids]))
        n = len(s_ids)
        return list(zip(strings[:n], strings[n:], strict=True))

    def neighbours(self, uri: str) -> list[str]:
        """Distinct nodes linked to ``uri`` either way, literals and ``uri`` excluded, sorted."""
        term_id = self.id_of(uri)
        return [] if term_id is None else self._terms.take(self.neighbour_ids(term_id))

    def degree(self, uri: str) -> int:
        """Number of triples with ``uri`` as subject or object (a self-loop counts once)."""
        term_id = self.id_of(uri)
        if term_id is None:
            return 0
        out_o = self.out_ids(term_id)[1]
        n_in = int(self._in_offsets[term_id + 1] - self._in_offsets[term_id])
        return len(out_o) + n_in - int(np.count_nonzero(out_o == term_id))

    def label(self, term: str) -> str | None:
        """A term's label: the one stored with it, else a literal's value, else ``None``."""
        term_id = self.id_of(term)
        stored = self.label_of(term_id) if term_id is not None else None
        if stored is None and term.startswith('"'):
            decoded = decode_object(term)
            return decoded.value if isinstance(decoded, Literal) else None
        return stored

    def label_of(self, term_id: int) -> str | None:
        """The label stored for a term id (``None`` when none was written)."""
        value = self._labels[term_id].as_py()
        return str(value) if value else None

    def labelled_with_suffix_other_than(self, suffix: str) -> np.ndarray:
        """Boolean per term id: it has a non-empty label that does not end with
        ``suffix`` (vectorised, computed once per suffix)."""
        cache = self.__dict__.setdefault("_suffix_masks", {})
        found = cache.get(suffix)
        if found is None:
            labels = self._labels
            found = pc.fill_null(pc.and_(pc.greater(pc.utf8_length(labels), 0),
                                         pc.invert(pc.ends_with(labels, suffix))),
                                 False).to_numpy(zero_copy_only=False)
            cache[suffix] = found
        return found

    def ids_labelled(self, name: str) -> np.ndarray:
        """Ids of the non-literal terms whose label is ``name`` (case and spaces ignored).

        Finds vocabulary terms and other nodes without a document of their own ("Ireland",
        a place the data only names) from a name in a question. One vectorised pass over
        the label column (lower-cased once, on first use).
        """
        if self._lower_labels is None:
            self._lower_labels = pc.utf8_lower(self._labels.cast(pa.string()))
        wanted = fold_label(name)
        if not wanted:
            return np.empty(0, dtype=np.int64)
        hits = np.flatnonzero(pc.fill_null(pc.equal(self._lower_labels, wanted),
                                           False).to_numpy(zero_copy_only=False))
        return hits[~self.is_literal[hits]] if len(hits) else hits

    def ids_containing(self, word: str) -> np.ndarray:
        """Ids of the non-literal terms whose label holds ``word`` (case ignored): the
        candidates of a folded-label match, checked by the caller."""
        if self._lower_labels is None:
            self._lower_labels = pc.utf8_lower(self._labels.cast(pa.string()))
        if not word:
            return np.empty(0, dtype=np.int64)
        hits = np.flatnonzero(pc.fill_null(pc.match_substring(self._lower_labels,
                                                              word.lower()),
                                           False).to_numpy(zero_copy_only=False))
        return hits[~self.is_literal[hits]] if len(hits) else hits

    def subjects(self) -> Iterator[str]:
        """Every distinct subject, in byte order."""
        ids = np.flatnonzero(np.diff(self._out_offsets))
        for start in range(0, len(ids), SUBJECTS_BATCH):
            yield from self._terms.take(ids[start : start + SUBJECTS_BATCH])

    def __contains__(self, item: object) -> bool:
        """``term in store`` (a node or :class:`Literal` occurs anywhere) or
        ``Triple(s, p, o) in store``."""
        if isinstance(item, str | Literal):
            return self.id_of(encode_object(item)) is not None
        if isinstance(item, tuple) and len(item) == 3:
            s, p, o = (self.id_of(t if isinstance(t, str) else encode_object(t)) for t in item)
            if s is None or p is None or o is None:
                return False
            p_ids, o_ids = self.out_ids(s)
            return bool(np.any((p_ids == p) & (o_ids == o)))
        return False

    def __len__(self) -> int:
        return len(self.s_ids)

    @property
    def terms(self) -> int:
        """Number of distinct terms."""
        return len(self._terms)

    def nbytes(self, *, include_strings: bool = False) -> int:
        """Bytes of the numpy arrays (ids, offsets, literal flags); with ``include_strings``
        also the term dictionary and the label column."""
        arrays = (
            self.s_ids,
            self.p_ids,
            self.o_ids,
            self._in_p,
            self._in_s,
            self._out_offsets,
            self._in_offsets,
            self._terms.is_literal,
        )
        total = sum(a.nbytes for a in arrays)
        if include_strings:
            total += self._terms.nbytes() + self._labels.nbytes
        return int(total)

    def __repr__(self) -> str:
        return f"TripleStore({len(self)} triples, {self.terms} terms)"
