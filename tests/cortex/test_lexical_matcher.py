"""The built-in ``lexical`` matcher: bounded index, miss threshold, speed on a full-size cortex."""

from __future__ import annotations

import math
import random
import statistics
import time
from typing import Any

import pytest
from nervous_plugins.lexical_matcher import LexicalMatcher, decode_bag, encode_bag
from nervous_plugins.lexical_words import light_stem, related_terms

from nervous.errors import ConfigError
from nervous.kernel.cortex.matching import MatcherMemory
from nervous.testing.growth import linear_run


def test_observe_is_bounded_and_weighs_each_task_by_its_length() -> None:
    matcher = LexicalMatcher({"max_words": 3})
    state: dict[str, Any] = {}
    matcher.observe(state, "r", ["alpha", "beta", "alpha"])  # two distinct words: 1/sqrt(2) each
    matcher.observe(state, "r", ["alpha", "gamma", "delta"])  # three: 1/sqrt(3) each
    bag = decode_bag(state["regions"]["r"])
    assert len(bag) == 3
    assert bag["alpha"] == pytest.approx(1 / math.sqrt(2) + 1 / math.sqrt(3), abs=2e-3)
    assert bag["beta"] == pytest.approx(1 / math.sqrt(2), abs=1e-3)
    # the bag was full when delta arrived: the lightest word (gamma, the oldest of the lightest) went
    assert "delta" in bag and "gamma" not in bag


def _bag_words(n: int) -> list[str]:
    out = []
    for i in range(n):
        word, i = "", i + 1
        while i:
            i, r = divmod(i - 1, 26)
            word = chr(97 + r) + word
        out.append("q" + word)
    return out


def test_an_index_stored_over_max_words_is_cut_once_lightest_and_oldest_first() -> None:
    """An imported index (or a lowered ``max_words``) stayed over the bound, and each new word of a
    solved task then scanned all of it: seconds per report for a long task and a big index."""
    matcher = LexicalMatcher({"max_words": 4})
    state = {"regions": {"r": encode_bag({"old": 1.0, "light": 0.2, "mid": 0.5, "keep": 2.0, "tie": 0.2,
                                          "top": 3.0})}}
    matcher.observe(state, "r", ["new"])  # weight 1: cut to 4 (light, tie), then new evicts mid
    assert decode_bag(state["regions"]["r"]) == {"old": 1.0, "keep": 2.0, "top": 3.0, "new": 1.0}

    def run(n: int) -> None:  # an index of n words, a task of n / 2 new ones
        big = {"regions": {"r": encode_bag(dict.fromkeys(_bag_words(n), 1.0))}}
        LexicalMatcher().observe(big, "r", [f"z{w}ing" for w in _bag_words(n // 2)])
        assert len(decode_bag(big["regions"]["r"])) == 128

    linear_run(run, 1000)  # each new word scanned the whole index before


def test_description_words_weigh_more_than_one_long_task() -> None:
    matcher = LexicalMatcher()
    state: dict[str, Any] = {}
    matcher.describe(state, "r", ["surf", "report"])
    matcher.observe(state, "r", ["surf", "waves", "beach", "today", "board"])
    bag = decode_bag(state["regions"]["r"])
    assert bag["report"] == 1.0 and bag["surf"] == pytest.approx(1 + 1 / math.sqrt(5), abs=1e-3)
    untouched: dict[str, Any] = {}
    LexicalMatcher({"description_weight": 0}).describe(untouched, "r", ["surf"])
    assert untouched == {}


def test_observe_refuses_non_words() -> None:
    matcher = LexicalMatcher()
    state: dict[str, Any] = {}
    matcher.observe(state, "r", ["ok", "bob@example.com", "/etc/passwd", "two words", "q3"])
    assert decode_bag(state["regions"]["r"]) == {"ok": 1}


def test_bag_codec_skips_garbage_and_reads_the_older_integer_form() -> None:
    assert decode_bag("a:1 b:x :3 c:0 d:2 e:-1 f:nan g:inf h:0.25") == {"a": 1, "d": 2, "h": 0.25}
    assert decode_bag(None) == {}
    assert decode_bag(encode_bag({"x": 4, "y-z": 1})) == {"x": 4, "y-z": 1}
    assert encode_bag({"x": 4.0, "y": 0.70710678, "z": 0.0001}) == "x:4 y:0.707 z:0.001"


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


@pytest.mark.parametrize(("words", "same"), [
    (["translate", "translation", "translating", "translated", "translations"], True),
    (["recommend", "recommendation", "recommended", "recommends"], True),
    (["image", "images", "imaging"], True),
    (["plan", "planned", "planning", "plans"], True),
    (["story", "stories"], True),
    (["optimize", "optimization", "optimizing", "optimise"], True),
    (["news", "new"], False),
    (["international", "internet"], False),
    (["career", "car"], False),
    (["call", "called", "calls"], True),
])
def test_light_stem_folds_inflection_and_derivation(words: list[str], same: bool) -> None:
    stems = {light_stem(w) for w in words}
    assert (len(stems) == 1) is same, stems


def test_related_words_reach_a_region_at_a_reduced_weight() -> None:
    state: dict[str, Any] = {}
    matcher = LexicalMatcher({"threshold": 0})
    matcher.observe(state, "images", ["image", "search", "find"])
    matcher.observe(state, "legal", ["lawyer", "contract", "court"])
    memory = MatcherMemory({"images": ("image",), "legal": ("lawyer",)}, {}, state, "rev")
    assert matcher.match("show me pictures of lighthouses", memory)[0][0] == "images"
    assert matcher.match("I need an attorney", memory)[0][0] == "legal"
    # a word's own region always beats a region reached only through a related word
    direct = dict(matcher.scores("find a lawyer", memory))
    assert direct["legal"] > direct.get("images", 0.0)
    off = LexicalMatcher({"threshold": 0, "related_weight": 0})
    assert off.match("show me pictures of lighthouses", memory) == []
    groups = related_terms()
    assert light_stem("image") in groups[light_stem("picture")]
    assert all(t not in others for t, others in groups.items())


def test_query_names_the_filter_never_stores_still_match_a_region_name() -> None:
    memory = MatcherMemory({"substack-reader": ("newsletter",)}, {}, {}, None)
    ranked = LexicalMatcher().match("Summarize the latest Substack posts", memory)
    assert ranked and ranked[0][0] == "substack-reader"


def test_engine_teaches_descriptions_through_describe(cortex: Any) -> None:
    cortex.record_outcome("surf-report", "surf-skill", "success",
                          task="Will the waves be good for surfing near the pier this afternoon?", now=1e9)
    cortex.describe_region("surf-report", "Daily surf report and swell forecast for Alice's beach.", now=1e9)
    doc = cortex.store.read("skill-cortex", "cortex").value
    bag = decode_bag(doc["matcher_state"]["lexical"]["regions"]["surf-report"])
    assert bag["swell"] == 1.0 and bag["forecast"] == 1.0  # description words at description_weight
    assert bag["waves"] < 1.0  # a task's words share one unit by length
    assert "alice" not in bag and "pier" in bag
    assert "Will the waves" not in str(doc)
