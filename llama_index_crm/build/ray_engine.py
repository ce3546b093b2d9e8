"""Building on Ray: a build's entity chunks and its embedding batches as Ray actor calls.

``crm-rag build ... --ray`` starts a local Ray cluster of ``--workers`` CPUs for the build;
``--ray ADDRESS`` (``auto``, ``HOST:6379`` or ``ray://HOST:10001``) joins a running one,
perhaps of several machines (``ray start --head`` on one, ``ray start --address HEAD:6379``
on the others, each with this package installed). In Python,
``CrmGraphIndex.build(..., ray=True)`` or ``ray="ADDRESS"``.

The work is split as it is for worker processes (:class:`DocumentBuilder`'s ``workers``):

* **Chunks.** Each actor holds a :class:`DocumentBuilder` and runs
  :meth:`DocumentBuilder.chunk_parts`, the function a worker process runs, on the chunks
  it is sent, in increasing order (so that the triples an actor skips as already sent are
  the ones a single process would skip). An RDF file graph stays parsed in the build
  process only: it is served to the actors over TCP (:class:`SourceServer`, with a fresh
  key); an endpoint is opened by each actor. The actors send each chunk's parts back as
  Arrow tables, and this process writes them into its work folder, so no folder is shared
  between machines; the merge is the single-process one, by chunk number. The documents
  and triples are therefore those of a single-process build, byte for byte.
* **Embedding.** The same length-sorted batches as in one process; each actor loads the
  model once (one ONNX thread per actor) and encodes the batches it is sent; the vectors
  land in the cache and the matrix in batch order, equal to a single process's up to
  float rounding. A model given as an object, rather than by name or by default, is not
  sent: it embeds in this process.

Ray is an optional extra (``pip install 'llama-index-crm[ray]'``); without it, asking for
it raises a :class:`~llama_index_crm.errors.CrmError` that says so.
"""

from __future__ import annotations

import logging
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any

import numpy as np
import pyarrow as pa
from llama_index.core.base.embeddings.base import BaseEmbedding

from llama_index_crm.build.builder import DocumentBuilder, FRPaths, _ChunkCounts, default_workers
from llama_index_crm.build.source_server import SourceServer, serves_workers
from llama_index_crm.embeddings import BatchRunner, encode_batch, load_embed_model
from llama_index_crm.errors import CrmError, WorkerError
from llama_index_crm.ontology import Ontology, find_config_dir
from llama_index_crm.sources.base import GraphSource, source_factory

logger = logging.getLogger(__name__)

INSTALL = "pip install 'llama-index-crm[ray]'"
LOCAL = "local"
"""The address that starts a local cluster for the build (``--ray`` alone)."""
IN_FLIGHT = 2
"""Calls queued on each actor: the next chunk waits there while this process writes."""


def import_ray() -> ModuleType:
    """The ``ray`` module, or a :class:`CrmError` saying how to install it."""
    try:
        import ray
    except ImportError as exc:
        raise CrmError(f"Building on Ray needs Ray, which is not installed: {INSTALL} "
                       "(or build without --ray: --workers N uses local processes).") from exc
    return ray


class _BuildActor:
    """A Ray actor of the build: for the chunks, the builder a worker process holds; for
    the embedding, the model, loaded once. Each step starts its actors and ends them, so
    that no actor holds a CPU of the cluster between steps."""

    def __init__(self) -> None:
        self.builder: DocumentBuilder | None = None
        self.error: CrmError | None = None
        self.model: BaseEmbedding | None = None
        self.model_key: tuple[str | None, str | None] | None = None

    def open(self, factory: Callable[[], GraphSource], lang: str, config_dir: str | None,
             fr_paths: FRPaths) -> None:
        self.close()
        try:
            onto = Ontology.from_config_dir(config_dir) if config_dir else Ontology.default()
            self.builder = DocumentBuilder(factory(), Path("."), ontology=onto, lang=lang,
                                           fr_paths=fr_paths)
        except CrmError as exc:  # said by the first chunk, as a worker process says it
            self.error = exc

    def chunk(self, index: int, chunk: list[str]
              ) -> tuple[int, _ChunkCounts, dict[str, pa.Table]]:
        if self.error is not None:
            raise self.error
        assert self.builder is not None, "no source opened"
        counts, parts = self.builder.chunk_parts(chunk)
        return index, counts, parts

    def close(self) -> None:
        if self.builder is not None:
            self.builder.source.close()
        self.builder, self.error = None, None

    def load(self, embed_model: str | None, backend: str | None) -> None:
        if self.model_key != (embed_model, backend):
            self.model = load_embed_model(embed_model, backend=backend, threads=1)
            self.model_key = (embed_model, backend)

    def encode(self, n: int, texts: list[str]) -> tuple[int, np.ndarray]:
        assert self.model is not None, "no model loaded"
        return n, encode_batch(self.model, texts)


def _spread(ray: ModuleType, actors: Sequence[Any], items: Iterable[tuple[Any, ...]],
            method: str) -> Iterator[Any]:
    """Call ``method`` of the actors on each of ``items``, each actor taking them in the
    order given, :data:`IN_FLIGHT` queued per actor; yield the answers as they come."""
    pending = deque(items)
    running: dict[Any, Any] = {}

    def submit(actor: Any) -> None:
        if pending:
            running[getattr(actor, method).remote(*pending.popleft())] = actor

    for _ in range(IN_FLIGHT):
        for actor in actors:
            submit(actor)
    while running:
        (ready,), _ = ray.wait(list(running), num_returns=1)
        actor = running.pop(ready)
        try:
            answer = ray.get(ready)
        except ray.exceptions.RayActorError as exc:
            raise WorkerError(
                "A Ray actor of the build died without an error of its own (killed, out of "
                "memory, or its machine left the cluster?). Run the same command again with "
                "--resume to continue.") from exc
        submit(actor)
        yield answer


class RayEngine:
    """Runs a build's chunks (a :class:`~llama_index_crm.build.builder.ChunkEngine`) and
    its embedding batches on Ray.

    Use as a context manager around the build: it connects on entry (starting a local
    cluster, or joining ``address``) and, when it started the cluster, stops it on exit.
    Inside an already initialised Ray session it uses that session and leaves it running;
    entered again (``CrmGraphIndex.build(ray=engine)`` inside ``with engine:``), it keeps
    its session for the outer block, so that several builds share one cluster.

    Args:
        address: None or ``"local"``: a local cluster of ``workers`` CPUs started for the
            build; else the address of a running cluster (``auto``, ``HOST:PORT``,
            ``ray://HOST:10001``).
        workers: actors per step (None: the CPUs of the cluster; a local one has
            :func:`~llama_index_crm.build.builder.default_workers`).
    """

    def __init__(self, address: str | None = None, workers: int | None = None) -> None:
        self.address = None if address in (None, "", LOCAL) else address
        self.workers = workers
        self._ray: ModuleType | None = None
        self._started = False
        self._depth = 0

    @classmethod
    def of(cls, ray: RayEngine | str | bool | None, workers: int | None = None
           ) -> RayEngine | None:
        """The engine a ``ray=`` argument asks for: None or False, none; True or
        ``"local"``, a local cluster; a string, that cluster's address."""
        if ray is None or ray is False:
            return None
        if isinstance(ray, RayEngine):
            return ray
        import_ray()  # without Ray, say so before any work
        return cls(None if ray is True else ray, workers)

    # -- the session ---------------------------------------------------------------------
    def __enter__(self) -> RayEngine:
        self._depth += 1
        if self._ray is not None:  # entered again (a build inside the caller's block)
            return self
        ray = import_ray()
        if not ray.is_initialized():
            if self.address is None:
                ray.init(num_cpus=self.workers or default_workers(), include_dashboard=False,
                         logging_level=logging.WARNING)
            else:
                ray.init(address=self.address, logging_level=logging.WARNING)
            self._started = True
        self._ray = ray
        if self.workers is None:
            self.workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
        logger.info("Building on Ray (%s) with %d actors", self.address or "local cluster",
                    self.workers)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._depth -= 1
        if self._depth > 0:
            return
        if self._started and self._ray is not None:
            self._ray.shutdown()
        self._started = False
        self._ray = None

    def _session(self) -> ModuleType:
        if self._ray is None:
            raise CrmError("RayEngine is used outside its `with` block (not connected)")
        return self._ray

    @contextmanager
    def _actors(self, items: int) -> Iterator[list[Any]]:
        """Up to :attr:`workers` new actors (no more than ``items``), ended on exit."""
        ray = self._session()
        actor = ray.remote(num_cpus=1)(_BuildActor)
        actors = [actor.remote() for _ in range(max(1, min(self.workers or 1, items)))]
        try:
            yield actors
        finally:
            for a in actors:
                ray.kill(a)

    def _host(self) -> str:
        """Where the actors reach this process: loopback on a cluster started here."""
        ray = self._session()
        return "127.0.0.1" if self.address is None else str(ray.util.get_node_ip_address())

    # -- chunks --------------------------------------------------------------------------
    def run_chunks(self, builder: DocumentBuilder, todo: list[int], chunks: list[list[str]]
                   ) -> Iterator[tuple[int, _ChunkCounts]]:
        """Build ``chunks`` on the actors; write each one's parts here as it comes."""
        ray = self._session()
        server: SourceServer | None = None
        if serves_workers(builder.source):
            server = SourceServer(builder.source, address=(self._host(), 0),
                                  authkey=os.urandom(32)).start()
            factory: Callable[[], GraphSource] | None = server.recipe()
        else:
            factory = source_factory(builder.source, min(self.workers or 1, len(todo)))
        if factory is None:
            logger.warning("%s cannot be opened by Ray actors; its chunks are built in this "
                           "process.", builder.source.describe())
            yield from (builder.run_chunk(i, c) for i, c in zip(todo, chunks, strict=True))
            return
        onto_dir = builder.ontology.config_dir
        config = None if onto_dir is None or Path(onto_dir) == find_config_dir() \
            else str(onto_dir)  # the packaged one: each machine has its own copy
        try:
            with self._actors(len(todo)) as actors:
                ray.get([a.open.remote(factory, builder.lang, config, builder.fr_paths)
                         for a in actors])
                for index, counts, parts in _spread(
                        ray, actors, zip(todo, chunks, strict=True), "chunk"):
                    builder.write_parts(index, parts)
                    yield index, counts
        finally:
            if server is not None:  # the actors are gone: their connections are closed
                server.close()

    # -- embedding -----------------------------------------------------------------------
    def batch_runner(self, embed_model: BaseEmbedding | str | None,
                     backend: str | None) -> BatchRunner | None:
        """What runs the embedding batches on the actors (None: a model object, which
        embeds in this process)."""
        if isinstance(embed_model, BaseEmbedding):
            logger.info("The embedding model was given as an object: it embeds here, not "
                        "on Ray (give it by name to embed on the cluster).")
            return None

        def run(batches: Sequence[list[str]]) -> Iterator[tuple[int, np.ndarray]]:
            ray = self._session()
            if not batches:
                return
            with self._actors(len(batches)) as actors:
                ray.get([a.load.remote(embed_model, backend) for a in actors])
                logger.info("Embedding %d batches on %d Ray actors", len(batches),
                            len(actors))
                yield from _spread(ray, actors, enumerate(batches), "encode")

        return run
