"""Building into a folder atomically: a temporary sibling, renamed when complete.

An interrupted build leaves the previous folder untouched; ``resume=True`` continues in the
temporary sibling from its last completed chunk.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

from llama_index_crm import __version__
from llama_index_crm.build.builder import (
    CHUNK_SIZE,
    DEFAULT_FR_PATHS,
    BuildStats,
    ChunkEngine,
    DocumentBuilder,
    FRPaths,
)
from llama_index_crm.build.memory import release_freed_memory
from llama_index_crm.build.parts import FinalDocuments
from llama_index_crm.build.reader import to_document
from llama_index_crm.errors import EmptyGraphError, SourceError
from llama_index_crm.ontology.config_dir import find_config_dir
from llama_index_crm.sources.base import GraphSource
from llama_index_crm.sources.rdf_parsing import LoadReport
from llama_index_crm.storage import CrmDocumentStore
from llama_index_crm.storage.manifest import FORMAT, MANIFEST, config_hash

REJECTED = "rejected.nt"
"""The statements a lenient file build skipped, each after a comment saying where and why."""


def work_dir_for(out_dir: Path) -> Path:
    """The temporary sibling a build of ``out_dir`` is written into."""
    return out_dir.parent / f".{out_dir.name}.building"


def replace_folder(work: Path, out_dir: Path) -> None:
    """Move ``work`` to ``out_dir``, replacing an existing folder only at the very end."""
    old = out_dir.parent / f".{out_dir.name}.old"
    if old.exists():
        shutil.rmtree(old)
    if out_dir.exists():
        out_dir.rename(old)
    work.rename(out_dir)
    if old.exists():
        shutil.rmtree(old)


def recover_folder(out_dir: Path) -> None:
    """Put back the previous folder when a replacement was killed between its two renames
    (``out_dir`` gone, ``.<name>.old`` still there)."""
    old = out_dir.parent / f".{out_dir.name}.old"
    if not out_dir.exists() and old.exists():
        old.rename(out_dir)


def source_record(source: GraphSource) -> dict[str, object]:
    """What the manifest says about a source: its description and its settings (the
    options it was opened with, never a password or a header value)."""
    settings = getattr(source, "settings", None)
    return {"description": source.describe(),
            "settings": settings() if callable(settings) else {}}


def linked_art_paths(folder: Path) -> dict[str, object]:
    """The Linked Art profile's FRs that matched in a built folder: FR id → its edges and
    its paths (``config/fundamental_relationships.json``, ``"profile": "linked-art"``)."""
    edges_file = folder / "fr_edges.parquet"
    if not edges_file.exists():
        return {}
    config = json.loads((Path(find_config_dir()) / "fundamental_relationships.json")
                        .read_text(encoding="utf-8"))
    profile = {fr["id"]: [p["id"] for p in fr["paths"]]
               for fr in config["relationships"] if fr.get("profile") == "linked-art"}
    if not profile:
        return {}
    column = pq.read_table(edges_file, columns=["fr"]).column("fr")
    counts = pc.value_counts(column).to_pylist()
    return {row["values"]: {"edges": row["counts"], "paths": profile[row["values"]]}
            for row in sorted(counts, key=lambda r: str(r["values"]))
            if row["values"] in profile}


def write_manifest(folder: Path, source: str | dict[str, object], stats: BuildStats,
                   extra: dict[str, object] | None = None) -> dict[str, object]:
    """Write ``manifest.json``: versions, source, counts and the ontology config hash.

    Args:
        folder: The folder to write into.
        source: The source's description, or its :func:`source_record`.
        stats: The build's figures.
        extra: More top-level entries.
    """
    record = source if isinstance(source, dict) else {"description": source, "settings": {}}
    manifest: dict[str, object] = {
        "format": FORMAT,
        "package_version": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "source": record["description"],
        "source_settings": record["settings"],
        "config_hash": config_hash(),
        "stats": stats.as_dict(),
        "embedding": None,
    }
    linked_art = linked_art_paths(folder)
    if linked_art:
        manifest["linked_art_paths"] = linked_art
    manifest.update(extra or {})
    tmp = folder / (MANIFEST + ".tmp")
    tmp.write_text(json.dumps(manifest, indent=1, ensure_ascii=False))
    tmp.replace(folder / MANIFEST)
    return manifest


def build_structure(
    source: GraphSource,
    work: Path,
    *,
    resume: bool = False,
    chunk_size: int = CHUNK_SIZE,
    workers: int = 1,
    on_chunk: Callable[[int, int], None] | None = None,
    fr_paths: FRPaths = DEFAULT_FR_PATHS,
    close_source: bool = False,
    engine: ChunkEngine | None = None,
) -> tuple[FinalDocuments, CrmDocumentStore, BuildStats]:
    """Documents, triple archive and docstore of ``source``, written into ``work``.

    On failure ``work`` is removed when there is nothing to resume (an empty graph), and
    kept when the source failed after some chunks were checkpointed (``resume=True``).
    With ``close_source`` the source is closed once every chunk is built, before the
    triple merge: a parsed graph does not stay in memory under the merge and embedding.
    ``engine``: runs the chunks instead of ``workers`` processes (Ray; same documents).
    """
    if work.exists() and not resume:
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    builder = DocumentBuilder(source, work, chunk_size=chunk_size, fr_paths=fr_paths)
    try:
        for _ in builder.run(resume=resume, workers=workers, on_chunk=on_chunk,
                             engine=engine):
            pass
        if close_source:
            source.close()
            release_freed_memory()
        docs = builder.finish()
    except EmptyGraphError:  # nothing to resume
        shutil.rmtree(work, ignore_errors=True)
        raise
    except SourceError:  # the source may come back: keep checkpoints for --resume
        discard_unless_resumable(work)
        raise
    builder.stats.rejected_statements = write_rejections(work, source)
    docstore = CrmDocumentStore(triple_store=builder.triple_store)
    for batch in docs.batches():  # a slice of the documents at a time
        docstore.add_documents([to_document(d) for d in batch])
    docstore.persist(str(work))
    return docs, docstore, builder.stats


def report_of(source: GraphSource) -> LoadReport:
    """What ``source`` skipped or repaired while reading (only files have anything)."""
    report = getattr(source, "report", None)
    return report if isinstance(report, LoadReport) else LoadReport()


def write_rejections(work: Path, source: GraphSource) -> int:
    """Write ``rejected.nt`` when ``source`` skipped statements; return how many."""
    rejected = report_of(source).rejections
    if rejected:
        tmp = work / (REJECTED + ".tmp")
        with tmp.open("w", encoding="utf-8") as out:
            out.write(f"# {len(rejected)} statement(s) of {source.describe()} that could not "
                      "be parsed and were left out of the build, as found in the files.\n")
            out.writelines(r.as_nt_block() for r in rejected)
        tmp.replace(work / REJECTED)
    return len(rejected)


def discard_unless_resumable(work: Path) -> None:
    """Remove a failed build's folder, unless it holds checkpoints ``--resume`` can use."""
    if not (work / "progress.json").exists():
        shutil.rmtree(work, ignore_errors=True)


def build_folder(
    source: GraphSource,
    out_dir: Path,
    *,
    resume: bool = False,
    chunk_size: int = CHUNK_SIZE,
    workers: int = 1,
    on_chunk: Callable[[int, int], None] | None = None,
    fr_paths: FRPaths = DEFAULT_FR_PATHS,
    close_source: bool = False,
    engine: ChunkEngine | None = None,
) -> tuple[FinalDocuments, BuildStats]:
    """Build ``source`` into ``out_dir`` atomically (see the module docstring).

    The work happens in a temporary sibling folder that replaces ``out_dir`` only once
    complete. Interrupted, it stays for ``resume=True``; when the graph turns out to hold
    nothing to build from, it is removed and ``out_dir`` is left as it was.
    """
    out_dir = Path(out_dir).resolve()
    work = work_dir_for(out_dir)
    docs, _, stats = build_structure(
        source, work, resume=resume, chunk_size=chunk_size, workers=workers, on_chunk=on_chunk,
        fr_paths=fr_paths, close_source=close_source, engine=engine,
    )
    write_manifest(work, source_record(source), stats)
    replace_folder(work, out_dir)
    return docs, stats
