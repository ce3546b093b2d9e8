"""Streaming writer of the Parquet triple archive (``triples.parquet``).

The archive has six string columns, ``s, s_label, p, p_label, o, o_label``; objects are
stored encoded (:func:`llama_index_crm.rdf.encode_object`), labels are ``""`` when unknown.
A triple is kept once per build, whatever the number of chunks it arrives in: the writer
remembers a 64-bit hash of every ``(s, p, o)`` it wrote (8 bytes a triple once spilled to
numpy). Two distinct triples sharing a hash would drop the second one; with 64 bits that
is about a one-in-a-hundred-thousand chance for 15 million triples.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "triples.parquet")
>>> with TripleWriter(path) as writer:
...     writer.write([("ex:a", "A", "ex:p", None, '"x"', None)] * 2)
1
>>> writer.count
1
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import TypeAlias

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from llama_index_crm.rdf import Literal, encode_object

ROW_GROUP_SIZE = 50_000
"""Rows buffered before a Parquet row group is written."""

HASH_SPILL_SIZE = 50_000
"""Recent hashes kept in a Python set before they move to a sorted numpy block."""

COLUMNS = ("s", "s_label", "p", "p_label", "o", "o_label")
FORMAT_KEY = b"llama_index_crm.format"
TRIPLES_FORMAT = b"triples/1"
TRIPLE_SCHEMA = pa.schema(
    [pa.field(name, pa.string(), nullable=False) for name in COLUMNS],
    metadata={FORMAT_KEY: TRIPLES_FORMAT},
)

TripleRow: TypeAlias = tuple[str, str | None, str, str | None, str | Literal, str | None]
"""``(s, s_label, p, p_label, o, o_label)``; ``o`` encoded, labels ``None`` when unknown."""


def triple_hash(s: str, p: str, o: str) -> int:
    """The 64-bit key under which a triple is deduplicated (``o`` encoded)."""
    key = f"{s}\x00{p}\x00{o}".encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "little")


class HashSet:
    """A memory-light set of 64-bit hashes.

    Recent hashes sit in a Python set; every :data:`HASH_SPILL_SIZE` of them move into a
    sorted ``uint64`` block, and blocks of similar size are merged (as in an LSM tree), so a
    membership test is a few binary searches and the set costs about 8 bytes an element.
    """

    def __init__(self, spill_size: int = HASH_SPILL_SIZE) -> None:
        """Create an empty set.

        Args:
            spill_size: How many hashes the Python set holds before spilling to numpy.
        """
        self._spill_size = spill_size
        self._recent: set[int] = set()
        self._blocks: list[np.ndarray] = []

    def __len__(self) -> int:
        return len(self._recent) + sum(block.size for block in self._blocks)

    def add_new(self, hashes: list[int]) -> list[bool]:
        """Add ``hashes``; return, for each, whether it was new (first of its kind)."""
        old = np.zeros(len(hashes), dtype=bool)
        if self._blocks and hashes:
            query = np.fromiter(hashes, dtype=np.uint64, count=len(hashes))
            for block in self._blocks:
                pos = np.minimum(np.searchsorted(block, query), block.size - 1)
                old |= block[pos] == query
        is_new: list[bool] = []
        for value, seen in zip(hashes, old.tolist(), strict=True):
            fresh = not seen and value not in self._recent
            if fresh:
                self._recent.add(value)
            is_new.append(fresh)
        if len(self._recent) >= self._spill_size:
            self._spill()
        return is_new

    def nbytes(self) -> int:
        """Bytes held by the numpy blocks (the Python set is not counted)."""
        return sum(block.nbytes for block in self._blocks)

    def _spill(self) -> None:
        block = np.sort(np.fromiter(self._recent, dtype=np.uint64, count=len(self._recent)))
        self._recent = set()
        self._blocks.append(block)
        while len(self._blocks) > 1 and self._blocks[-2].size < 2 * self._blocks[-1].size:
            last = self._blocks.pop()
            self._blocks[-1] = np.sort(np.concatenate([self._blocks[-1], last]))


def dedup_batches(
    rows: Iterable[TripleRow], seen: HashSet, batch_size: int = ROW_GROUP_SIZE
) -> Iterator[pa.Table]:
    """Tables of at most ``batch_size`` rows, each triple kept only the first time it is seen.

    This is the one encoding path of the archive: :class:`TripleWriter` and
    :meth:`TripleStore.from_triples` both go through it.

    Args:
        rows: ``(s, s_label, p, p_label, o, o_label)`` tuples; ``o`` may be a :class:`Literal`
            (it is encoded) and labels may be ``None`` (stored as ``""``).
        seen: Hashes of the triples already emitted; updated in place.
        batch_size: Rows read from ``rows`` per table.
    """
    iterator = iter(rows)
    while batch := list(itertools.islice(iterator, batch_size)):
        columns: list[list[str]] = [[] for _ in COLUMNS]
        hashes: list[int] = []
        for s, s_label, p, p_label, o, o_label in batch:
            o_text = o if isinstance(o, str) else encode_object(o)
            hashes.append(triple_hash(s, p, o_text))
            for column, value in zip(
                columns,
                (s, s_label or "", p, p_label or "", o_text, o_label or ""),
                strict=True,
            ):
                column.append(value)
        keep = seen.add_new(hashes)
        arrays = [pa.array(list(itertools.compress(c, keep)), pa.string()) for c in columns]
        yield pa.Table.from_arrays(arrays, schema=TRIPLE_SCHEMA)


class TripleWriter:
    """Write deduplicated triples to one Parquet file, chunk after chunk.

    The file stays open across :meth:`write` calls and is complete once :meth:`close` (or the
    end of a ``with`` block) returns; build it inside a temporary folder that is renamed when
    the whole index is complete.

    Args:
        path: Destination file, usually ``<persist dir>/triples.parquet``.
        labels: When ``False``, ``s_label``/``p_label``/``o_label`` are written empty.
        row_group_size: Rows per Parquet row group.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        labels: bool = True,
        row_group_size: int = ROW_GROUP_SIZE,
    ) -> None:
        self.path = Path(path)
        self.labels = labels
        self.row_group_size = row_group_size
        self._seen = HashSet()
        self._pending: list[pa.Table] = []
        self._pending_rows = 0
        self._count = 0
        self._writer: pq.ParquetWriter | None = pq.ParquetWriter(
            self.path, TRIPLE_SCHEMA, compression="zstd"
        )

    @property
    def count(self) -> int:
        """Distinct triples accepted so far (buffered ones included)."""
        return self._count

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has been called."""
        return self._writer is None

    def write(self, rows: Iterable[TripleRow]) -> int:
        """Append ``rows``, skipping triples already written in this build.

        Args:
            rows: ``(s, s_label, p, p_label, o, o_label)`` tuples, ``o`` encoded with
                :func:`~llama_index_crm.rdf.encode_object` (a :class:`Literal` is encoded
                for you); ``None`` labels become ``""``.

        Returns:
            The number of new triples among ``rows``.
        """
        if self._writer is None:
            raise ValueError(f"TripleWriter for {self.path} is closed")
        source = rows if self.labels else ((s, "", p, "", o, "") for s, _, p, _, o, _ in rows)
        added = 0
        for table in dedup_batches(source, self._seen, self.row_group_size):
            added += table.num_rows
            self._pending.append(table)
            self._pending_rows += table.num_rows
        self._count += added
        if self._pending_rows >= self.row_group_size:
            self._flush(final=False)
        return added

    def close(self) -> None:
        """Write the buffered rows and the Parquet footer. Closing twice is harmless."""
        if self._writer is None:
            return
        self._flush(final=True)
        self._writer.close()
        self._writer = None

    def __enter__(self) -> TripleWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _flush(self, *, final: bool) -> None:
        assert self._writer is not None
        table = pa.concat_tables(self._pending) if self._pending else TRIPLE_SCHEMA.empty_table()
        full = table.num_rows if final else table.num_rows - table.num_rows % self.row_group_size
        if full:
            self._writer.write_table(table.slice(0, full), row_group_size=self.row_group_size)
        rest = table.slice(full)
        self._pending = [rest] if rest.num_rows else []
        self._pending_rows = rest.num_rows
