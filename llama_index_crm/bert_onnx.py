"""A BERT encoder written as an ONNX graph straight from its safetensors weights, no torch.

The ``onnx`` and ``onnx-int8`` backends need the bundled MiniLM as an ONNX file. Tracing it
through ``torch.onnx.export`` imports torch and holds the traced model: measured here, 1.26 GB
and 12 s for a 90 MB model, more than a whole build of YCBA is allowed. The network is small
and fixed (BERT: embeddings, then per layer self-attention and a feed-forward block, each
with a residual layer norm), so this module writes the same operators, in the order and form
a torch export has them (ONNX Runtime's BERT fusions recognise them), with numpy arrays read
by ``safetensors``. The result gives the same vectors as sentence-transformers (cosine
≥ 0.9999, ``tests/test_encoders.py``).

Only what MiniLM uses is supported: ``model_type`` bert, absolute positions, ``gelu``; any
other configuration is refused with a :class:`~llama_index_crm.errors.CrmError`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from llama_index_crm.errors import CrmError

INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT = "last_hidden_state"


class _Graph:
    """Nodes and initialisers of an ONNX graph, named in order."""

    def __init__(self) -> None:
        self.nodes: list[Any] = []
        self.initialisers: list[Any] = []
        self._n = 0

    def const(self, name: str, value: np.ndarray) -> str:
        from onnx import numpy_helper

        self.initialisers.append(numpy_helper.from_array(value, name))
        return name

    def op(self, op_type: str, *inputs: str, output: str | None = None, outputs: int = 1,
           domain: str = "", **attrs: Any) -> str:
        """Append a node; its output's name (with ``outputs`` > 1, ``name_0``, ``name_1``, …
        are its outputs and ``name`` is returned)."""
        from onnx import helper

        self._n += 1
        out = output or f"{op_type}_{self._n}"
        names = [out] if outputs == 1 else [f"{out}_{k}" for k in range(outputs)]
        self.nodes.append(helper.make_node(op_type, list(inputs), names, domain=domain,
                                           name=f"{op_type}_{self._n}", **attrs))
        return out


def _check(config: dict[str, Any]) -> None:
    wanted = {"model_type": "bert", "hidden_act": "gelu",
              "position_embedding_type": "absolute"}
    for key, value in wanted.items():
        if config.get(key, value) != value:
            raise CrmError(f"The ONNX writer supports BERT with {key}={value!r}, not "
                           f"{config.get(key)!r}; use --embed-backend torch for this model.")


def bert_onnx(model_dir: Path, opset: int) -> Any:
    """The ``onnx.ModelProto`` of the BERT in ``model_dir`` (``config.json`` and
    ``model.safetensors``): inputs ``input_ids``, ``attention_mask``, ``token_type_ids``
    (int64, batch × sequence, padding on the right), output ``last_hidden_state`` (batch ×
    sequence × hidden), in ONNX Runtime's fused BERT operators (``com.microsoft``
    EmbedLayerNormalization, Attention, SkipLayerNormalization, BiasGelu)."""
    from onnx import TensorProto, helper
    from safetensors.numpy import load_file

    config = json.loads((model_dir / "config.json").read_text())
    _check(config)
    weights_file = model_dir / "model.safetensors"
    if not weights_file.is_file():
        raise CrmError(f"No model.safetensors in {model_dir}: the ONNX writer reads "
                       "safetensors weights; use --embed-backend torch for this model.")
    weights = load_file(str(weights_file))
    prefix = "bert." if any(k.startswith("bert.") for k in weights) else ""

    def array(name: str) -> np.ndarray:
        return np.asarray(weights[prefix + name], dtype=np.float32)

    def w(name: str, transpose: bool = False) -> str:
        value = array(name)
        return g.const(name, np.ascontiguousarray(value.T if transpose else value))

    heads = int(config["num_attention_heads"])
    eps = float(config.get("layer_norm_eps", 1e-12))
    g = _Graph()
    ms = "com.microsoft"
    ids, types, mask = (g.op("Cast", name, to=TensorProto.INT32) for name in INPUTS[:1]
                        + INPUTS[2:] + INPUTS[1:2])
    x = g.op("EmbedLayerNormalization", ids, types, w("embeddings.word_embeddings.weight"),
             w("embeddings.position_embeddings.weight"),
             w("embeddings.token_type_embeddings.weight"),
             w("embeddings.LayerNorm.weight"), w("embeddings.LayerNorm.bias"), mask,
             domain=ms, epsilon=eps, outputs=2)
    x, mask_index = f"{x}_0", f"{x}_1"
    layers = int(config["num_hidden_layers"])
    for i in range(layers):
        base = f"encoder.layer.{i}"
        qkv = [f"{base}.attention.self.{n}" for n in ("query", "key", "value")]
        weight = g.const(f"{base}.qkv.weight", np.ascontiguousarray(np.concatenate(
            [array(f"{n}.weight").T for n in qkv], axis=1)))
        bias = g.const(f"{base}.qkv.bias", np.concatenate([array(f"{n}.bias") for n in qkv]))
        context = g.op("Attention", x, weight, bias, mask_index, domain=ms, num_heads=heads)
        dense = g.op("MatMul", context, w(f"{base}.attention.output.dense.weight", True))
        x = g.op("SkipLayerNormalization", dense, x,
                 w(f"{base}.attention.output.LayerNorm.weight"),
                 w(f"{base}.attention.output.LayerNorm.bias"),
                 w(f"{base}.attention.output.dense.bias"), domain=ms, epsilon=eps)
        h = g.op("BiasGelu", g.op("MatMul", x, w(f"{base}.intermediate.dense.weight", True)),
                 w(f"{base}.intermediate.dense.bias"), domain=ms)
        x = g.op("SkipLayerNormalization", g.op("MatMul", h, w(f"{base}.output.dense.weight",
                                                              True)), x,
                 w(f"{base}.output.LayerNorm.weight"), w(f"{base}.output.LayerNorm.bias"),
                 w(f"{base}.output.dense.bias"), domain=ms, epsilon=eps,
                 output=OUTPUT if i == layers - 1 else None)
    dims = ["batch", "sequence"]
    graph = helper.make_graph(
        g.nodes, "bert",
        [helper.make_tensor_value_info(n, TensorProto.INT64, dims) for n in INPUTS],
        [helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT,
                                       [*dims, int(config["hidden_size"])])],
        g.initialisers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset),
                                                    helper.make_opsetid(ms, 1)],
                              producer_name="llama-index-crm")
    model.ir_version = 8
    return model
