"""Encoder backends of the bundled MiniLM: ONNX Runtime (fp32 or int8) and a static model.

``torch`` (sentence-transformers through LlamaIndex's ``HuggingFaceEmbedding``) is the
reference. The other backends run without torch once their model file exists:

* ``onnx``: the same network exported to ONNX and run by ONNX Runtime, tokenised by
  ``tokenizers``, mean-pooled and L2-normalised in numpy, as sentence-transformers does for
  MiniLM. Same vectors (cosine ≥ 0.9999 with torch).
* ``onnx-int8``: that export with int8 weights (dynamic quantisation of the matrix products).
* ``model2vec``: a static model distilled from the same MiniLM by model2vec: one vector per
  word piece, averaged. Another model, many times faster, weaker; an opt-in "fast" mode.

The model files are made locally from the bundled weights on first use (the ONNX file is
written from the safetensors weights without torch; the distillation needs torch; nothing is
downloaded) and kept in :func:`models_dir`
(``$LLAMA_INDEX_CRM_CACHE/models``, by default ``~/.cache/llama-index-crm/models``), one
folder per model, backend and version of this recipe. Each is written to a temporary sibling
and renamed, so a folder there is always complete.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import shutil
import tempfile
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding
from pydantic import Field, PrivateAttr

from llama_index_crm.errors import CrmError

TORCH = "torch"
ONNX = "onnx"
ONNX_INT8 = "onnx-int8"
MODEL2VEC = "model2vec"
BACKENDS = (TORCH, ONNX, ONNX_INT8, MODEL2VEC)
"""Encoder backends, by name (``--embed-backend``)."""
ALIASES = {"fast": MODEL2VEC, "fp32": TORCH, "int8": ONNX_INT8}
MAX_TOKENS = 256
"""Word pieces MiniLM reads (its ``max_seq_length``); longer texts are clipped to this."""
ONNX_OPSET = 17
ARTEFACT_VERSION = "2"
"""Bumped when the way model files are made changes (their folder names include it)."""
MODEL2VEC_DIMS = 256
"""PCA dimensions of the distilled static model (model2vec's default)."""
CACHE_ENV_VAR = "LLAMA_INDEX_CRM_CACHE"


def backend_name(backend: str) -> str:
    """The canonical name of ``backend`` (aliases resolved).

    >>> backend_name("fast")
    'model2vec'

    Raises:
        CrmError: an unknown backend.
    """
    name = ALIASES.get(backend, backend)
    if name not in BACKENDS:
        raise CrmError(f"Unknown embedding backend {backend!r}; choose one of "
                       f"{', '.join(BACKENDS)} (or 'fast' for model2vec).")
    return name


# -- model files -----------------------------------------------------------------------------
def models_dir() -> Path:
    """Where model files made here live: ``$LLAMA_INDEX_CRM_CACHE/models`` or
    ``~/.cache/llama-index-crm/models`` (next to the embedding cache)."""
    env = os.environ.get(CACHE_ENV_VAR)
    return (Path(env) if env else Path.home() / ".cache" / "llama-index-crm") / "models"


def _fingerprint(model_dir: Path) -> str:
    """A short key of a model folder that is cheap to compute (configs and weight sizes)."""
    digest = hashlib.sha256(ARTEFACT_VERSION.encode())
    for name in ("config.json", "tokenizer.json", "modules.json"):
        path = model_dir / name
        if path.is_file():
            digest.update(path.read_bytes())
    for name in ("model.safetensors", "pytorch_model.bin"):
        path = model_dir / name
        if path.is_file():
            digest.update(f"{name}:{path.stat().st_size}".encode())
    return digest.hexdigest()[:12]


def artefact_dir(model_dir: Path, backend: str, folder: Path | None = None) -> Path:
    """The folder of the model file(s) of ``backend`` made from ``model_dir``."""
    slug = model_dir.parent.name if model_dir.name == "model" else model_dir.name
    return (folder or models_dir()) / f"{slug}-{_fingerprint(model_dir)}-{backend}"


def _atomic_folder(target: Path, make: Callable[[Path], None]) -> Path:
    """``target``, made by ``make(tmp)`` into a temporary sibling and renamed when complete
    (a folder there is never half-written; two processes making it at once both succeed)."""
    if target.is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        make(tmp)
        tmp.chmod(0o755)
        try:
            os.rename(tmp, target)
        except OSError:  # another process finished first: keep its folder
            if not target.is_dir():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Silence the warnings and log lines of tracing, exporting and quantising."""
    import logging

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            yield
    finally:
        root.setLevel(level)


def _export_onnx(model_dir: Path, out: Path) -> None:
    """The transformer of ``model_dir`` (last hidden state) as ``out/model.onnx`` in ONNX
    Runtime's fused BERT operators, written from the safetensors weights
    (:mod:`~llama_index_crm.bert_onnx`: no torch, ~2 s)."""
    import onnx

    from llama_index_crm.bert_onnx import bert_onnx

    onnx.save(bert_onnx(model_dir, ONNX_OPSET), str(out / "model.onnx"))
    shutil.copy(model_dir / "tokenizer.json", out / "tokenizer.json")


def _quantise(source: Path, out: Path) -> None:
    """``source/model.onnx`` with int8 weights (dynamic quantisation) into ``out``.

    Weights per channel, in 7 bits (``reduce_range``): without VNNI (AVX2 only), 8-bit
    products can saturate; full-range int8 gave cosines down to 0.92 with fp32 here.
    """
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with _quiet():
        quantize_dynamic(str(source / "model.onnx"), str(out / "model.onnx"),
                         weight_type=QuantType.QInt8, per_channel=True, reduce_range=True,
                         extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
    shutil.copy(source / "tokenizer.json", out / "tokenizer.json")


def onnx_model_dir(model_dir: Path, *, int8: bool = False, folder: Path | None = None) -> Path:
    """The folder of the ONNX export of ``model_dir`` (made on first use, without torch)."""
    fp32 = _atomic_folder(artefact_dir(model_dir, ONNX, folder),
                          lambda tmp: _export_onnx(model_dir, tmp))
    if not int8:
        return fp32
    return _atomic_folder(artefact_dir(model_dir, ONNX_INT8, folder),
                          lambda tmp: _quantise(fp32, tmp))


MODEL2VEC_REMOVE = r"\[unused\d+\]"
"""Word pieces left out of the distilled vocabulary (model2vec's default)."""


def _distil(model_dir: Path, out: Path) -> None:
    """A model2vec static model distilled from ``model_dir`` into ``out`` (needs torch)."""
    from model2vec.distill import distill
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    with _quiet(), contextlib.redirect_stderr(io.StringIO()):
        model = distill(model_name=str(model_dir), pca_dims=MODEL2VEC_DIMS,
                        token_remove_pattern=MODEL2VEC_REMOVE)
    model.save_pretrained(str(out))


def model2vec_dir(model_dir: Path, folder: Path | None = None) -> Path:
    """The folder of the static model distilled from ``model_dir`` (made on first use)."""
    return _atomic_folder(artefact_dir(model_dir, MODEL2VEC, folder),
                          lambda tmp: _distil(model_dir, tmp))


# -- inference -------------------------------------------------------------------------------
def normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows left as they are), as float32."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vectors / norms


class ArrayEmbedding(BaseEmbedding):
    """An encoder of this package: :meth:`encode` gives normalised numpy vectors for a
    batch, and LlamaIndex's methods are read from it."""

    backend: str = Field(description="the encoder backend (recorded, part of the cache key)")

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Normalised vectors of ``texts``, one row each."""
        raise NotImplementedError

    def _get_query_embedding(self, query: str) -> list[float]:
        return self.encode([query])[0].tolist()

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self.encode([text])[0].tolist()

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self.encode(texts).tolist()


class OnnxEmbedding(ArrayEmbedding):
    """MiniLM through ONNX Runtime: ``tokenizers`` + ONNX + mean pooling, no torch.

    Args:
        model_dir: a folder with ``model.onnx`` and ``tokenizer.json`` (:func:`onnx_model_dir`).
        model_name: the name recorded in manifests (the base model's).
        backend: ``onnx`` or ``onnx-int8`` (recorded, part of the cache key).
        threads: ONNX Runtime intra-op threads (None: one per core).
    """

    model_dir: str = Field(description="folder with model.onnx and tokenizer.json")
    backend: str = Field(default=ONNX, description="onnx or onnx-int8")
    max_tokens: int = Field(default=MAX_TOKENS, description="word pieces read per text")
    threads: int | None = Field(default=None, description="ONNX Runtime intra-op threads")
    _session: Any = PrivateAttr(default=None)
    _tokenizer: Any = PrivateAttr(default=None)
    _inputs: list[str] = PrivateAttr(default_factory=list)

    def __init__(self, **data: Any) -> None:
        super().__init__(**data)
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if self.threads:
            options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        # idle threads sleep instead of spinning: on 2 shared cores, spinning cost ~20 % more
        # CPU per document for the same wall time
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = ort.InferenceSession(str(Path(self.model_dir) / "model.onnx"),
                                             options, providers=["CPUExecutionProvider"])
        self._inputs = [i.name for i in self._session.get_inputs()]
        tokenizer = Tokenizer.from_file(str(Path(self.model_dir) / "tokenizer.json"))
        tokenizer.enable_truncation(max_length=self.max_tokens)
        tokenizer.enable_padding()  # to the longest text of each call
        self._tokenizer = tokenizer

    @classmethod
    def class_name(cls) -> str:
        return "OnnxEmbedding"

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """Word pieces of each text as the model reads it (clipped to ``max_tokens``)."""
        self._tokenizer.no_padding()
        try:
            return [len(e.ids) for e in self._tokenizer.encode_batch(list(texts))]
        finally:
            self._tokenizer.enable_padding()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Normalised vectors of ``texts`` (one call; padded to the longest)."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = np.asarray([e.ids for e in encodings], dtype=np.int64)
        mask = np.asarray([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask,
                 "token_type_ids": np.zeros_like(ids)}
        hidden = self._session.run(None, {k: v for k, v in feeds.items() if k in self._inputs})[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return normalise(pooled)


class StaticEmbedding(ArrayEmbedding):
    """A model2vec static model: the mean of its word-piece vectors, no torch.

    Args:
        model_dir: a folder written by model2vec (:func:`model2vec_dir`).
        model_name: the name recorded in manifests (the base model's it was distilled from).
    """

    model_dir: str = Field(description="folder of a model2vec static model")
    backend: str = Field(default=MODEL2VEC, description="model2vec")
    max_tokens: int = Field(default=MAX_TOKENS, description="word pieces read per text")
    _model: Any = PrivateAttr(default=None)

    def __init__(self, **data: Any) -> None:
        super().__init__(**data)
        from model2vec import StaticModel

        self._model = StaticModel.from_pretrained(self.model_dir)

    @classmethod
    def class_name(cls) -> str:
        return "StaticEmbedding"

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Normalised vectors of ``texts``."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        vectors = self._model.encode(list(texts), max_length=self.max_tokens,
                                     show_progress_bar=False, use_multiprocessing=False)
        return normalise(np.asarray(vectors, dtype=np.float32))
