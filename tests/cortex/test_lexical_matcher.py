"""The built-in ``lexical`` matcher: bounded index, miss threshold, speed on a full-size cortex."""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

import pytest
from nervous_plugins.lexical_matcher import LexicalMatcher, decode_bag, encode_bag

from nervous.cortex.matching import MatcherMemory
from nervous.errors import ConfigError


def test_observe_is_bounded_and_counts() -> None:
    matcher = LexicalMatcher({"max_words": 3})
    state: dict[str, Any] = {}
    matcher.observe(state, "r", ["alpha", "beta", "alpha"])
    matcher.observe(state, "r", ["alpha", "gamma", "delta"])
    bag = decode_bag(state["regions"]["r"])
    assert len(bag) == 3 and bag["alpha"] == 2 and "delta" in bag and "beta" not in bag


def test_observe_refuses_non_words() -> None:
    matcher = LexicalMatcher()
    state: dict[str, Any] = {}
    matcher.observe(state, "r", ["ok", "bob@example.com", "/etc/passwd", "two words", "q3"])
    assert decode_bag(state["regions"]["r"]) == {"ok": 1}


def test_bag_codec_skips_garbage() -> None:
    assert decode_bag("a:1 b:x :3 c:0 d:2") == {"a": 1, "d": 2}
    assert decode_bag(None) == {}
    assert decode_bag(encode_bag({"x": 4, "y-z": 1})) == {"x": 4, "y-z": 1}


def test_match_and_miss() -> None:
    matcher = LexicalMatcher()
    state: dict[str, Any] = {}
    matcher.observe(state, "weather", ["forecast", "rain", "temperature", "weather"])
    matcher.observe(state, "images", ["resize", "photo", "image", "crop"])
    memory = MatcherMemory({"weather": ("forecast",), "images": ("resize",)}, {}, state, "rev-1")
    assert matcher.match("will it rain tomorrow, what is the forecast", memory)[0][0] == "weather"
    assert matcher.match("please crop and resize this photo", memory)[0][0] == "images"
    assert matcher.match("negotiate a mortgage refinancing schedule", memory) == []
    assert matcher.match("", memory) == []


def test_signals_alone_work_for_imported_files() -> None:
    memory = MatcherMemory({"task-management": ("query", "todo", "task")}, {}, {}, None)
    assert LexicalMatcher().match("query my todo list", memory)[0][0] == "task-management"


def test_ties_prefer_the_most_recent_region() -> None:
    memory = MatcherMemory({"report-x": ("report",), "report-y": ("report",)},
                           {"report-x": "2026-01-01", "report-y": "2026-03-01"}, {}, None)
    ranked = LexicalMatcher({"threshold": 0}).match("report", memory)
    assert [r for r, _s in ranked] == ["report-y", "report-x"] and ranked[0][1] == ranked[1][1]


@pytest.mark.parametrize("settings", [{"threshold": -1}, {"nope": 1}, {"prefix": "six"}])
def test_bad_settings(settings: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        LexicalMatcher(settings)


def test_full_size_cortex_is_fast() -> None:
    rng = random.Random(7)
    vocab = [f"{a}{b}{c}" for a in "bcdfglmnprst" for b in "aeiou" for c in ("ck", "ft", "nd", "rm", "st", "lp")]
    matcher = LexicalMatcher()
    state: dict[str, Any] = {}
    signals = {}
    for r in range(80):
        name = f"region-{chr(97 + r % 26)}{chr(97 + r // 26)}"
        signals[name] = tuple(rng.sample(vocab, 10))
        for _ in range(10):
            matcher.observe(state, name, rng.sample(vocab, 8))
    memory = MatcherMemory(signals, {}, state, "rev")
    tasks = [" ".join(rng.sample(vocab, 12)) for _ in range(300)]
    matcher.match(tasks[0], memory)
    times = []
    for task in tasks:
        t = time.perf_counter()
        matcher.match(task, memory)
        times.append(time.perf_counter() - t)
    assert statistics.median(times) < 0.001
