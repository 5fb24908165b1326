"""The optional perception matcher ``semantic``: lexical scores fused with sentence embeddings.

It learns exactly what the ``lexical`` matcher learns (its bounded word index, which it reuses) and
keeps, per region, a bounded list of the entity-filtered word sequences of the last solved tasks
("phrasings", never raw text) and the description's words. Each of those texts is embedded once with
all-MiniLM-L6-v2 (:mod:`nervous_plugins.semantic_encoder`); a region's embedding score is the best
cosine between the task and its texts, blended with the cosine to their mean. The routing score is a
weighted sum of the lexical cosine and that embedding score; below ``threshold`` the task is a miss.
The weights and threshold were calibrated on the development split with tool-disjoint folds
(docs/benchmarks/perception.md).

Embeddings of region texts are cached in memory and on disk (the cache folder, keyed by the model's
fingerprint and each text's hash), so a new process does not re-encode the whole memory.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from nervous.errors import ConfigError
from nervous.plugin.cortex import MatcherMemory

from .lexical_matcher import DEFAULTS as LEXICAL_DEFAULTS
from .lexical_matcher import LexicalMatcher, _valid_words
from .semantic_encoder import (
    BACKENDS,
    MAX_TOKENS,
    PRECISIONS,
    load_encoder,
    onnxruntime_available,
    resolve_precision,
)

DEFAULTS: dict[str, float] = {
    "threshold": 0.28,  # miss below this fused score (docs/benchmarks/perception.md)
    "lexical_weight": 0.5,  # share of the lexical cosine in the fused score (the rest: embeddings)
    "max_share": 0.5,  # embedding score: this share of the best text's cosine, the rest the mean's
    "max_phrases": 16,  # solved-task phrasings kept per region (oldest dropped first)
    "max_tokens": MAX_TOKENS,  # word pieces of a task embedded, [CLS] and [SEP] included (docs/benchmarks.md)
}
_QUERY_CACHE = 64  # the engine may ask twice for the same task (perceive, then explain)


class SemanticMatcher(LexicalMatcher):
    name = "semantic"

    def __init__(self, settings: dict[str, Any] | None = None, cache_dir: Path | None = None,
                 encoder: Any = None) -> None:
        settings = dict(settings or {})
        backend = settings.pop("backend", "auto")
        if backend not in BACKENDS:
            raise ConfigError(f"plugins.semantic.backend: expected one of {', '.join(BACKENDS)}, got {backend!r}")
        precision = settings.pop("precision", "auto")
        if precision not in PRECISIONS:
            raise ConfigError(f"plugins.semantic.precision: expected one of {', '.join(PRECISIONS)}, got {precision!r}")
        if precision == "int8" and backend == "numpy":
            raise ConfigError("plugins.semantic.precision: int8 needs backend onnxruntime (or auto)")
        if encoder is None and (backend == "onnxruntime" or precision == "int8") and not onnxruntime_available():
            raise ConfigError("plugins.semantic: backend onnxruntime / precision int8 need onnxruntime (not "
                              "installed); install it with: pip install 'nervous[semantic]'")
        own = {k: v for k, v in settings.items() if k in DEFAULTS}
        rest = {k: v for k, v in settings.items() if k not in DEFAULTS}
        for key in rest:
            if key not in LEXICAL_DEFAULTS:
                raise ConfigError(f"plugins.semantic.{key}: unknown setting; expected one of "
                                  f"{', '.join(sorted({*DEFAULTS, *LEXICAL_DEFAULTS, 'backend', 'precision'} - {'threshold'}))}"
                                  ", threshold")
        super().__init__(rest)
        merged = {**DEFAULTS, **own}
        for key, value in merged.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ConfigError(f"plugins.semantic.{key}: expected a non-negative number, got {value!r}")
        for key in ("lexical_weight", "max_share"):
            if merged[key] > 1:
                raise ConfigError(f"plugins.semantic.{key}: expected a number from 0 to 1, got {merged[key]!r}")
        self.threshold = float(merged["threshold"])
        self.lexical_weight = float(merged["lexical_weight"])
        self.max_share = float(merged["max_share"])
        self.max_phrases = int(merged["max_phrases"])
        if merged["max_tokens"] < 2:
            raise ConfigError(f"plugins.semantic.max_tokens: expected at least 2, got {merged['max_tokens']!r}")
        self.max_tokens = min(int(merged["max_tokens"]), MAX_TOKENS)
        #: the precision in use: ``auto`` (default) is int8 with ONNX Runtime and float32 with numpy
        self.precision = resolve_precision(backend, precision) if encoder is None else getattr(
            encoder, "precision", precision)
        self.encoder = encoder or load_encoder(backend, self.precision)
        self._vectors = _VectorCache(self.encoder, cache_dir)
        self._regions_key: Any = None
        self._regions: _RegionVectors | None = None
        self._queries: dict[str, np.ndarray] = {}

    # ------------------------------------------------------------------ learning (engine calls)

    def observe(self, state: dict[str, Any], region: str, observed: Iterable[str]) -> None:
        valid = _valid_words(observed)
        super().observe(state, region, valid)
        if valid and self.max_phrases:
            phrases = state.setdefault("phrases", {})
            kept = [p for p in str(phrases.get(region) or "").split("|") if p]
            kept.append(" ".join(valid))
            phrases[region] = "|".join(kept[-self.max_phrases:])

    def describe(self, state: dict[str, Any], region: str, described: Iterable[str]) -> None:
        valid = _valid_words(described)
        super().describe(state, region, valid)
        if valid:
            state.setdefault("described", {})[region] = " ".join(valid)

    def forget(self, state: dict[str, Any], region: str) -> None:
        super().forget(state, region)
        for key in ("phrases", "described"):
            part = state.get(key)
            if isinstance(part, dict):
                part.pop(region, None)

    # ------------------------------------------------------------------ matching

    def region_texts(self, memory: MatcherMemory) -> dict[str, list[str]]:
        """What each region is embedded from: its name with its description (or, for a region
        learned without one, its signal words), then its stored phrasings."""
        state = memory.state if isinstance(memory.state, dict) else {}
        described = _part(state, "described")
        phrases = _part(state, "phrases")
        texts: dict[str, list[str]] = {}
        for region, signals in memory.signals.items():
            name = region.replace("-", " ")
            about = described.get(region) if isinstance(described.get(region), str) else " ".join(signals)
            head = f"{name}: {about}" if about else name
            stored = phrases.get(region)
            texts[region] = [head, *(p for p in (stored.split("|") if isinstance(stored, str) else []) if p)]
        return texts

    def _region_vectors(self, memory: MatcherMemory) -> _RegionVectors:
        key = memory.revision
        if key is not None and key == self._regions_key and self._regions is not None:
            return self._regions
        built = _RegionVectors(self.region_texts(memory), self._vectors, memory.last_used)
        if key is not None:
            self._regions_key, self._regions = key, built
        return built

    def _query(self, task: str) -> np.ndarray:
        vec = self._queries.get(task)
        if vec is None:
            vec = self.encoder.encode([task], self.max_tokens)[0]
            if len(self._queries) >= _QUERY_CACHE:
                self._queries.pop(next(iter(self._queries)))
            self._queries[task] = vec
        return vec

    def scores(self, task: str, memory: MatcherMemory) -> list[tuple[str, float]]:
        """Every region with its fused score, best first (before the miss threshold)."""
        if not memory.signals:
            return []
        lexical = dict(super().scores(task, memory))
        regions = self._region_vectors(memory)
        query = self._query(task)
        best = np.maximum.reduceat(regions.matrix @ query, regions.starts)  # every region has its head text
        central = regions.centroids @ query
        embedded = self.max_share * best + (1 - self.max_share) * central
        w = self.lexical_weight
        fused = [w * lexical.get(r, 0.0) + (1 - w) * e for r, e in zip(regions.names, embedded.tolist(), strict=True)]
        # best first; ties: the most recently used region, then the name (precomputed per memory)
        order = sorted(range(len(fused)), key=lambda i: (-round(fused[i], 9), regions.tie_rank[i]))
        return [(regions.names[i], fused[i]) for i in order]


def _part(state: dict[str, Any], key: str) -> dict[str, Any]:
    value = state.get(key)
    return value if isinstance(value, dict) else {}


def _neg_date(day: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in day)


class _RegionVectors:
    """Every region's text vectors stacked (``owner`` maps rows to regions, whose rows are
    contiguous from ``starts``), their unit means, and each region's place among equal scores."""

    def __init__(self, texts: dict[str, list[str]], cache: _VectorCache, last_used: dict[str, str]) -> None:
        self.names = list(texts)
        flat = [t for region in self.names for t in texts[region]]
        self.owner = np.asarray([i for i, region in enumerate(self.names) for _t in texts[region]], dtype=np.int64)
        sizes = [len(texts[region]) for region in self.names]
        self.starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        ties = sorted(range(len(self.names)), key=lambda i: (_neg_date(last_used.get(self.names[i], "")), self.names[i]))
        self.tie_rank = [0] * len(self.names)
        for place, i in enumerate(ties):
            self.tie_rank[i] = place
        self.matrix = cache.vectors(flat)
        sums = np.zeros((len(self.names), self.matrix.shape[1]), dtype=np.float32)
        np.add.at(sums, self.owner, self.matrix)
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        self.centroids = sums / np.where(norms > 0, norms, 1.0)


class _VectorCache:
    """Text vectors by hash, in memory and (with a folder) in one file per model fingerprint that
    holds exactly the texts of the last compiled memory, so it stays as bounded as the memory."""

    def __init__(self, encoder: Any, folder: Path | None) -> None:
        self.encoder = encoder
        self.memory: dict[str, np.ndarray] = {}
        self.path = folder / f"{_slug(encoder.fingerprint)}.npz" if folder is not None else None
        self._loaded = False

    def _load(self) -> None:
        self._loaded = True
        if self.path is None or not self.path.is_file():
            return
        try:
            with np.load(self.path, allow_pickle=False) as data:
                keys, vectors = data["keys"], data["vectors"]
            if vectors.ndim == 2 and len(keys) == len(vectors) and vectors.shape[1] == self.encoder.dimension:
                self.memory.update({str(k): v.astype(np.float32) for k, v in zip(keys, vectors, strict=True)})
        except (OSError, ValueError, KeyError):
            pass  # a damaged cache is only a slower start: the vectors are computed again

    def vectors(self, texts: list[str]) -> np.ndarray:
        if not self._loaded:
            self._load()
        keys = [hashlib.sha256(t.encode("utf-8")).hexdigest()[:32] for t in texts]
        missing = [(k, t) for k, t in dict(zip(keys, texts, strict=True)).items() if k not in self.memory]
        if missing:
            fresh = self.encoder.encode([t for _k, t in missing])
            self.memory.update({k: v for (k, _t), v in zip(missing, fresh, strict=True)})
            self._save(keys)
        if not keys:
            return np.zeros((0, self.encoder.dimension), dtype=np.float32)
        return np.stack([self.memory[k] for k in keys])

    def _save(self, keys: list[str]) -> None:
        if self.path is None:
            return
        unique = list(dict.fromkeys(keys))
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".vectors-", suffix=".npz")
            try:
                with os.fdopen(fd, "wb") as fh:
                    np.savez(fh, keys=np.asarray(unique), vectors=np.stack([self.memory[k] for k in unique]))
                os.replace(tmp, self.path)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
        except OSError:
            pass  # a read-only cache folder only costs speed


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in text)


def _factory(ctx: Any) -> SemanticMatcher:
    return SemanticMatcher(ctx.settings, cache_dir=Path(ctx.paths.cache_dir) / "semantic")
