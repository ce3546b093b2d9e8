"""Rows of ``documents.parquet``: an Arrow table as loaded, plus the changes made since.

One row per node: ``doc_id, class_name, text, metadata`` (JSON), ``hash, ref_doc_id, uri``
(``metadata["uri"]``, so look-ups by entity need no JSON parsing) and ``node``, the rest of
LlamaIndex's node JSON (relationships, templates, excluded keys). A row whose ``node`` is
null records only a hash (``set_document_hash`` for a node that is not stored).

Loaded rows are turned into Python objects only when asked for; additions, updates and
deletions live in an overlay until :meth:`DocumentTable.to_arrow` merges them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, fields

import pyarrow as pa
from llama_index.core.constants import DATA_KEY
from llama_index.core.schema import BaseNode
from llama_index.core.storage.docstore.utils import doc_to_json, json_to_doc

from llama_index_crm.storage.triple_writer import FORMAT_KEY

DOCUMENTS_FORMAT = b"documents/1"
FIELDS = ("doc_id", "class_name", "text", "metadata", "hash", "ref_doc_id", "uri", "node")
DOCUMENT_SCHEMA = pa.schema(
    [pa.field(name, pa.string(), nullable=name != "doc_id") for name in FIELDS],
    metadata={FORMAT_KEY: DOCUMENTS_FORMAT},
)
GROUP_FIELDS = ("ref_doc_id", "uri")
"""Columns with a look-up from value to doc ids."""


@dataclass(frozen=True, slots=True)
class DocumentRecord:
    """One row of ``documents.parquet`` without its ``doc_id``; ``node`` is ``None`` for a
    hash-only entry."""

    class_name: str | None = None
    text: str | None = None
    metadata: str | None = None
    hash: str | None = None
    ref_doc_id: str | None = None
    uri: str | None = None
    node: str | None = None

    @classmethod
    def from_node(cls, node: BaseNode) -> DocumentRecord:
        """Split a node's JSON (``doc_to_json``) into readable columns and the rest."""
        wrapped = doc_to_json(node)
        data = wrapped[DATA_KEY]
        text = data.pop("text", None)
        metadata = data.pop("metadata", None) or {}
        resource = data.get("text_resource")
        if isinstance(resource, dict) and text is not None and resource.get("text") == text:
            del resource["text"]  # restored from the text column by to_node
        uri = metadata.get("uri")
        return cls(
            class_name=data.get("class_name"),
            text=text,
            metadata=json.dumps(metadata, ensure_ascii=False),
            hash=node.hash,
            ref_doc_id=node.ref_doc_id,
            uri=None if uri is None else str(uri),
            node=json.dumps(wrapped, ensure_ascii=False),
        )

    def to_node(self) -> BaseNode:
        """The node this record was made from (``json_to_doc``)."""
        if self.node is None:
            raise ValueError("a hash-only record holds no node")
        wrapped = json.loads(self.node)
        data = wrapped[DATA_KEY]
        data["metadata"] = json.loads(self.metadata) if self.metadata else {}
        if self.text is not None:
            data["text"] = self.text
            resource = data.get("text_resource")
            if isinstance(resource, dict) and "text" not in resource:
                resource["text"] = self.text
        return json_to_doc(wrapped)

    def metadata_dict(self) -> dict:
        """The node metadata, parsed."""
        return json.loads(self.metadata) if self.metadata else {}


assert tuple(f.name for f in fields(DocumentRecord)) == FIELDS[1:]


class DocumentTable:
    """Document rows by id: a loaded Arrow table plus an overlay of changes.

    Args:
        table: Rows as read from ``documents.parquet`` (``DOCUMENT_SCHEMA`` columns); empty
            when ``None``.
    """

    def __init__(self, table: pa.Table | None = None) -> None:
        self._base = (table if table is not None else DOCUMENT_SCHEMA.empty_table()).select(
            list(FIELDS)
        )
        self._base = self._base.combine_chunks()
        ids = self._base.column("doc_id").to_pylist()
        self._rows: dict[str, int] = {doc_id: row for row, doc_id in enumerate(ids)}
        self._overlay: dict[str, DocumentRecord] = {}
        self._deleted: set[str] = set()
        self._groups: dict[str, dict[str, dict[str, None]]] = {}

    def get(self, doc_id: str) -> DocumentRecord | None:
        """The record of ``doc_id``, or ``None``."""
        if doc_id in self._overlay:
            return self._overlay[doc_id]
        row = self._rows.get(doc_id)
        if row is None or doc_id in self._deleted:
            return None
        return DocumentRecord(*(self._base.column(name)[row].as_py() for name in FIELDS[1:]))

    def ids(self) -> Iterator[str]:
        """Every doc id: loaded ones in file order, then the ones added since."""
        yield from (d for d in self._rows if d not in self._deleted)
        yield from (d for d in self._overlay if d not in self._rows)

    def values(self, field: str) -> Iterator[tuple[str, str | None]]:
        """``(doc_id, value of field)`` for every record, without building records."""
        column = self._base.column(field).to_pylist()
        for doc_id, value in zip(self._rows, column, strict=True):
            if doc_id not in self._deleted and doc_id not in self._overlay:
                yield doc_id, value
        for doc_id, record in self._overlay.items():
            yield doc_id, getattr(record, field)

    def put(self, doc_id: str, record: DocumentRecord) -> None:
        """Add or replace the record of ``doc_id``."""
        self._unindex(doc_id)
        self._overlay[doc_id] = record
        self._deleted.discard(doc_id)
        for field, groups in self._groups.items():
            key = getattr(record, field)
            if key is not None:
                groups.setdefault(key, {})[doc_id] = None

    def drop(self, doc_id: str) -> DocumentRecord | None:
        """Remove ``doc_id``; return its record (``None`` when absent)."""
        record = self.get(doc_id)
        if record is not None:
            self._unindex(doc_id)
            self._overlay.pop(doc_id, None)
            if doc_id in self._rows:
                self._deleted.add(doc_id)
        return record

    def members(self, field: str, key: str) -> list[str]:
        """Ids of the records whose ``field`` (``ref_doc_id`` or ``uri``) is ``key``."""
        return list(self._grouping(field).get(key, ()))

    def keys(self, field: str) -> list[str]:
        """Distinct non-null values of ``field`` (``ref_doc_id`` or ``uri``)."""
        return list(self._grouping(field))

    def to_arrow(self) -> pa.Table:
        """All current rows as one table with ``DOCUMENT_SCHEMA``."""
        ids = self._base.column("doc_id").to_pylist()
        keep = [d not in self._deleted and d not in self._overlay for d in ids]
        columns: dict[str, list[str | None]] = {"doc_id": list(self._overlay)}
        for name in FIELDS[1:]:
            columns[name] = [getattr(record, name) for record in self._overlay.values()]
        added = pa.Table.from_pydict(columns, schema=DOCUMENT_SCHEMA)
        base = self._base.filter(pa.array(keep, pa.bool_())).cast(DOCUMENT_SCHEMA)
        return pa.concat_tables([base, added])

    def _grouping(self, field: str) -> dict[str, dict[str, None]]:
        if field not in GROUP_FIELDS:
            raise ValueError(f"no look-up by {field!r}; expected one of {GROUP_FIELDS}")
        if field not in self._groups:
            groups: dict[str, dict[str, None]] = {}
            pairs = zip(self._rows, self._base.column(field).to_pylist(), strict=True)
            for doc_id, key in pairs:
                if key is not None and doc_id not in self._deleted and doc_id not in self._overlay:
                    groups.setdefault(key, {})[doc_id] = None
            for doc_id, record in self._overlay.items():
                if (key := getattr(record, field)) is not None:
                    groups.setdefault(key, {})[doc_id] = None
            self._groups[field] = groups
        return self._groups[field]

    def _unindex(self, doc_id: str) -> None:
        record = self.get(doc_id)
        if record is None:
            return
        for field, groups in self._groups.items():
            key = getattr(record, field)
            group = groups.get(key) if key is not None else None
            if group is not None and key is not None:
                group.pop(doc_id, None)
                if not group:
                    del groups[key]
