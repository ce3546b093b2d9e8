"""A build from an endpoint killed with SIGKILL mid-way continues with ``--resume`` and gives
the documents of an uninterrupted build (against a real ``oxigraph serve``)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
from conftest import DEMO

from llama_index_crm.build.folder import build_folder, work_dir_for
from llama_index_crm.cli import main as cli_main
from llama_index_crm.sources import SparqlEndpointSource

ROOT = Path(__file__).resolve().parents[1]
CHUNK_SIZE = 20
"""16 chunks of the demo's 310 entities."""
SLOW_RPS = "30"
"""Requests a second of the run to kill: a chunk takes about a second, so that it is
killed mid-way, between two checkpoints or in the middle of a chunk."""
KILL_AFTER_CHUNKS = 3
DEADLINE_S = 120.0


def _build(url: str, out: Path, *extra: str) -> list[str]:
    return ["build", "--endpoint", url, "--out", str(out), "--no-embed", "-q", "--workers",
            "1", "--chunk-size", str(CHUNK_SIZE), *extra]


def _texts(folder: Path) -> dict[str, str]:
    rows = pq.read_table(folder / "documents.parquet", columns=["doc_id", "text"]).to_pylist()
    return {row["doc_id"]: row["text"] for row in rows}


def _chunks_done(work: Path) -> int:
    try:
        return len(json.loads((work / "progress.json").read_text())["done"])
    except (OSError, ValueError, KeyError):
        return 0


def test_killed_endpoint_build_resumes_to_the_same_documents(
    serve_graph: Callable[[Path], str], tmp_path: Path
) -> None:
    url = serve_graph(DEMO)
    assert cli_main(_build(url, tmp_path / "whole")) == 0

    out = tmp_path / "resumed"
    work = work_dir_for(out.resolve())
    run = subprocess.Popen(
        [sys.executable, "-m", "llama_index_crm.cli", *_build(url, out, "--max-rps", SLOW_RPS)],
        cwd=ROOT, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + DEADLINE_S
    try:
        while _chunks_done(work) < KILL_AFTER_CHUNKS:
            assert run.poll() is None, run.stderr.read() if run.stderr else ""
            assert time.monotonic() < deadline, "the build made no progress"
            time.sleep(0.02)
    finally:
        os.killpg(run.pid, signal.SIGKILL)
        run.wait()
    killed_at = _chunks_done(work)
    assert KILL_AFTER_CHUNKS <= killed_at < 310 // CHUNK_SIZE
    assert not out.exists()  # nothing half-written where the index goes

    seen: list[int] = []  # what `crm-rag build ... --resume` runs, with a progress callback
    build_folder(SparqlEndpointSource(url), out, chunk_size=CHUNK_SIZE, resume=True,
                 on_chunk=lambda done, total: seen.append(done))
    assert seen[0] == (killed_at + 1) * CHUNK_SIZE  # the checkpointed chunks were kept
    assert _texts(out) == _texts(tmp_path / "whole")
    assert not work.exists()
    whole = json.loads((tmp_path / "whole" / "manifest.json").read_text())["stats"]
    resumed = json.loads((out / "manifest.json").read_text())["stats"]
    for key in ("entities", "documents", "satellites_absorbed", "documents_chained",
                "triples_archived", "chunks"):
        assert resumed[key] == whole[key], key
