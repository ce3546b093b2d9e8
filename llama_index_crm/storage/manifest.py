"""``manifest.json``: what a persisted folder holds and which code and ontology wrote it.

Shared by the build (which writes it, :func:`~llama_index_crm.build.folder.write_manifest`)
and the query side (which checks it before loading anything, :func:`read_manifest`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from llama_index_crm import __version__
from llama_index_crm.errors import IndexFormatError
from llama_index_crm.ontology import find_config_dir

MANIFEST = "manifest.json"
FORMAT = "llama-index-crm/4"
"""Folder format: 3 added ``names.parquet`` (the name table of the exact-answer layer); 4
added ``direct``, ``widened_by`` and ``via`` to ``fr_edges.parquet``, and documents list
derived FR targets apart from direct ones."""


def config_hash() -> str:
    """A short hash of the ontology configuration the documents were built with."""
    digest = hashlib.sha256()
    for path in sorted(Path(find_config_dir()).glob("*.json")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def rebuild_hint(folder: Path) -> str:
    """The command that rebuilds ``folder``."""
    return f"Rebuild it: crm-rag build <your RDF files or --endpoint URL> --out {folder}"


def read_manifest(path: Path) -> dict[str, Any]:
    """The manifest of an embedded index folder, checked against this code.

    Raises:
        IndexFormatError: no manifest, invalid JSON, another format, package version or
            ontology configuration, or a structural build without embeddings.
    """
    file = path / MANIFEST
    if not file.exists():
        raise IndexFormatError(f"{path} is not a llama-index-crm index (no {MANIFEST}). "
                               f"{rebuild_hint(path)}")
    try:
        manifest: dict[str, Any] = json.loads(file.read_text())
    except ValueError as exc:
        raise IndexFormatError(f"{file} is not valid JSON ({exc}). {rebuild_hint(path)}") \
            from exc
    if manifest.get("format") != FORMAT or manifest.get("package_version") != __version__:
        raise IndexFormatError(
            f"{path} was written by llama-index-crm {manifest.get('package_version')} "
            f"(format {manifest.get('format')}); this is {__version__} ({FORMAT}). "
            f"{rebuild_hint(path)}"
        )
    if manifest.get("config_hash") != config_hash():
        raise IndexFormatError(
            f"{path} was built with another ontology configuration (config hash "
            f"{manifest.get('config_hash')}, now {config_hash()}). {rebuild_hint(path)}"
        )
    if not manifest.get("embedding"):
        raise IndexFormatError(f"{path} has documents but no embeddings (a structural build). "
                               f"{rebuild_hint(path)}")
    return manifest
