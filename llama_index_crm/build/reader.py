"""``CidocCrmReader``: CIDOC-CRM graphs as LlamaIndex documents, one per entity.

>>> from llama_index_crm import CidocCrmReader
>>> reader = CidocCrmReader(paths=["examples/data/troodos.ttl"])  # doctest: +SKIP
>>> docs = list(reader.lazy_load_data())                           # doctest: +SKIP
>>> reader.triple_store.neighbours(docs[0].metadata["uri"])        # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.readers.base import BasePydanticReader
from llama_index.core.schema import Document

from llama_index_crm.build.builder import (
    CHUNK_SIZE,
    DEFAULT_FR_PATHS,
    BuildStats,
    DocumentBuilder,
    FRPaths,
)
from llama_index_crm.build.chaining import CHAIN_THRESHOLD
from llama_index_crm.build.documents import EntityDocument
from llama_index_crm.errors import CrmError
from llama_index_crm.sources import open_source
from llama_index_crm.storage import TripleStore

HIDDEN_METADATA = ["uri", "chained_from", "classes", "category", "label"]
"""Metadata kept out of the embedded text (the document text already names all of it)."""
HIDDEN_FROM_LLM = ["uri", "chained_from"]
"""Metadata kept out of what an LLM reads: identifiers, not facts."""


def to_document(doc: EntityDocument) -> Document:
    """The LlamaIndex ``Document`` of a built entity document (id = the entity's IRI)."""
    return Document(
        id_=doc.uri,
        text=doc.text,
        metadata={
            "uri": doc.uri,
            "label": doc.label,
            "category": doc.category,
            "classes": list(doc.classes),
            "chained_from": list(doc.chained_from),
        },
        excluded_embed_metadata_keys=list(HIDDEN_METADATA),
        excluded_llm_metadata_keys=list(HIDDEN_FROM_LLM),
    )


def _filename(doc: EntityDocument) -> str:
    """``<label slug>-<8 hex of the IRI>.md``: readable, and unique per entity."""
    slug = re.sub(r"[^\w-]+", "_", doc.label, flags=re.UNICODE).strip("_")[:80] or "entity"
    return f"{slug}-{hashlib.sha1(doc.uri.encode()).hexdigest()[:8]}.md"


class CidocCrmReader(BasePydanticReader):
    """Reads a CIDOC-CRM graph (RDF files or a SPARQL endpoint) into entity documents.

    Each document describes one entity: its fundamental category, names, types, dates and
    every Fundamental Relationship walked from it, with thin vocabulary nodes folded in
    and thin documents chained into their richest neighbour. The triples seen are kept in
    a Parquet archive exposed as :attr:`triple_store`.

    Args:
        paths: RDF files (Turtle, N-Triples, N-Quads, TriG, RDF/XML, JSON-LD, .zip, .gz).
        endpoint: a SPARQL endpoint URL, instead of files.
        chunk_size: entities processed together.
        workers: processes building chunks at once (each opens the source again).
        lang: preferred language of names.
        chain_threshold: documents shorter than this many characters are chained.
        fr_paths: ``"sparql"`` (FR paths as SPARQL property-path queries per chunk),
            ``"walk"`` (walked through the fetched neighbourhood) or ``"auto"`` (the
            queries, unless the server's profile prefers the walk); same documents.
        work_dir: folder for ``triples.parquet``; a temporary folder when None.
        write_markdown: also write one Markdown file per document into ``markdown_dir``.
        markdown_dir: where Markdown files go (default ``<work_dir>/markdown``).
    """

    is_remote: bool = False
    paths: list[str] = Field(default_factory=list)
    endpoint: str | None = None
    chunk_size: int = CHUNK_SIZE
    workers: int = 1
    lang: str = "en"
    chain_threshold: int = CHAIN_THRESHOLD
    fr_paths: FRPaths = DEFAULT_FR_PATHS
    work_dir: str | None = None
    write_markdown: bool = False
    markdown_dir: str | None = None

    _triple_store: TripleStore | None = PrivateAttr(default=None)
    _stats: BuildStats | None = PrivateAttr(default=None)

    @classmethod
    def class_name(cls) -> str:
        """Name used in serialised LlamaIndex components."""
        return "CidocCrmReader"

    @property
    def triple_store(self) -> TripleStore:
        """The triples archived by the last load (raises before any load)."""
        if self._triple_store is None:
            raise CrmError("No triples yet: iterate lazy_load_data() or call load_data() first.")
        return self._triple_store

    @property
    def stats(self) -> BuildStats | None:
        """Figures of the last load."""
        return self._stats

    def build(self, work_dir: Path, *, resume: bool = False) -> list[EntityDocument]:
        """Run the whole build into ``work_dir`` and return the final entity documents."""
        source = open_source(self.paths, endpoint=self.endpoint)
        try:
            builder = DocumentBuilder(
                source, work_dir, chunk_size=self.chunk_size, lang=self.lang,
                chain_threshold=self.chain_threshold, fr_paths=self.fr_paths,
            )
            for _ in builder.run(resume=resume, workers=self.workers):
                pass
            docs = list(builder.finish())
        finally:
            source.close()
        self._triple_store = builder.triple_store
        self._stats = builder.stats
        return docs

    def lazy_load_data(self, *args: Any, **load_kwargs: Any) -> Iterable[Document]:
        """Build, then yield one ``Document`` per entity."""
        if args or load_kwargs:
            raise TypeError(
                "CidocCrmReader takes its sources as fields (paths=..., endpoint=...), "
                f"not as load arguments: got {args or ''} {load_kwargs or ''}"
            )
        if self.work_dir:
            work = Path(self.work_dir)
            work.mkdir(parents=True, exist_ok=True)
            docs = self.build(work)
        else:
            tmp = Path(tempfile.mkdtemp(prefix="crm-reader-"))
            try:
                docs = self.build(tmp)
            finally:
                # the triple store was loaded into memory; its file is no longer needed
                shutil.rmtree(tmp, ignore_errors=True)
        md_dir = Path(self.markdown_dir or Path(self.work_dir or ".") / "markdown")
        for doc in docs:
            if self.write_markdown:
                folder = md_dir / doc.category
                folder.mkdir(parents=True, exist_ok=True)
                (folder / _filename(doc)).write_text(doc.text + "\n", encoding="utf-8")
            yield to_document(doc)
