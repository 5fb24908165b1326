"""The built-in perception matcher ``lexical``: offline, no model, sub-millisecond.

Each region is a bag of words: its signal words (spec §4.3.1), the words of its name, and a
bounded index of entity-filtered words from tasks it solved (never raw text; the engine filters
them before :meth:`LexicalMatcher.observe` sees them). Words are reduced to a crude stem cut to a
short prefix so ``translation``/``translate`` meet. A task is scored against every region with an
idf-weighted cosine; words of the task that no region knows count against every region, so a task
about something never learned scores low and is answered as a miss below ``threshold``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

import nervous
from nervous.cortex.entities import stem
from nervous.cortex.matching import MatcherMemory
from nervous.cortex.wordlists import words
from nervous.errors import ConfigError

_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")

DEFAULTS: dict[str, float] = {
    "threshold": 0.155,  # tuned on data/perception dev (docs/benchmarks/perception.md)
    "prefix": 6,  # stem prefix length; 0 keeps whole stems
    "unknown_weight": 0.5,  # weight of never-seen task words, relative to the rarest known word
    "signal_weight": 0.0,  # extra weight of a signal word in a region that has an index (it is in it)
    "name_weight": 1.0,  # weight of each word of the region's name
    "max_words": 128,  # bounded per-region index of observed words
}


class LexicalMatcher:
    name = "lexical"

    def __init__(self, settings: dict[str, Any] | None = None) -> None:
        merged = {**DEFAULTS, **(settings or {})}
        for key, value in merged.items():
            if key not in DEFAULTS:
                raise ConfigError(f"plugins.lexical.{key}: unknown setting; expected one of "
                                  f"{', '.join(sorted(DEFAULTS))}")
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ConfigError(f"plugins.lexical.{key}: expected a non-negative number, got {value!r}")
        self.threshold = float(merged["threshold"])
        self.prefix = int(merged["prefix"])
        self.unknown_weight = float(merged["unknown_weight"])
        self.signal_weight = float(merged["signal_weight"])
        self.name_weight = float(merged["name_weight"])
        self.max_words = int(merged["max_words"])
        self._stop = words("stopwords") | words("temporal")
        self._cache_key: Any = None
        self._compiled: _Compiled | None = None

    # ------------------------------------------------------------------ words

    def term(self, word: str) -> str:
        base = stem(word)
        return base[: self.prefix] if self.prefix else base

    def terms(self, text: str) -> set[str]:
        out = set()
        for match in _WORD.finditer(text.casefold()):
            word = match.group().replace("’", "'")
            if word.endswith("'s"):
                word = word[:-2]
            for part in word.split("'")[:1]:
                if len(part) >= 2 and part not in self._stop:
                    out.add(self.term(part))
        return out

    # ------------------------------------------------------------------ learning (engine calls)

    def observe(self, state: dict[str, Any], region: str, observed: Iterable[str]) -> None:
        """Add entity-filtered words of one solved task to the region's bounded index.

        The index is stored compactly as one string per region (``"word:count word:count"``, oldest
        first) so reading the memory for every task stays cheap.
        """
        regions = state.setdefault("regions", {})
        bag = decode_bag(regions.get(region))
        for word in dict.fromkeys(observed):
            if not isinstance(word, str) or not _WORD_SHAPE.match(word):
                continue
            if word in bag:
                bag[word] += 1
                continue
            if len(bag) >= self.max_words:
                # evict the least-seen word, the oldest among equals (dicts keep insertion order)
                weakest = min(bag, key=lambda w: bag[w])
                del bag[weakest]
            bag[word] = 1
        regions[region] = encode_bag(bag)

    def forget(self, state: dict[str, Any], region: str) -> None:
        regions = state.get("regions")
        if isinstance(regions, dict):
            regions.pop(region, None)

    # ------------------------------------------------------------------ matching

    def _compile(self, memory: MatcherMemory) -> _Compiled:
        key = memory.revision
        if key is not None and key == self._cache_key and self._compiled is not None:
            return self._compiled
        bags: dict[str, dict[str, float]] = {}
        observed = memory.state.get("regions") if isinstance(memory.state, dict) else None
        observed = observed if isinstance(observed, dict) else {}
        for region, signals in memory.signals.items():
            bag: dict[str, float] = {}
            for part in re.split(r"[^a-z]+", region.casefold()):
                if len(part) >= 2 and part not in self._stop:
                    t = self.term(part)
                    bag[t] = bag.get(t, 0.0) + self.name_weight
            words_seen = decode_bag(observed.get(region))
            # signals are words of solved tasks, so they are in the index too; a region without an
            # index (an imported v1 file) is matched on its signals alone
            signal_weight = self.signal_weight if words_seen else 1.0
            for signal in signals:
                t = self.term(signal)
                if signal_weight:
                    bag[t] = bag.get(t, 0.0) + signal_weight
            for word, count in words_seen.items():
                t = self.term(word)
                bag[t] = bag.get(t, 0.0) + float(count)
            bags[region] = bag
        compiled = _Compiled(bags, memory.last_used)
        if key is not None:
            self._cache_key, self._compiled = key, compiled
        return compiled

    def scores(self, task: str, memory: MatcherMemory) -> list[tuple[str, float]]:
        """Every region with a positive score, best first (before the miss threshold)."""
        if not memory.signals:
            return []
        compiled = self._compile(memory)
        query = self.terms(task)
        if not query:
            return []
        unknown = compiled.max_idf * self.unknown_weight
        norm = math.sqrt(sum(compiled.idf.get(t, unknown) ** 2 for t in query)) or 1.0
        totals: dict[str, float] = {}
        for t in query:
            postings = compiled.postings.get(t)
            if postings:
                q = compiled.idf[t] / norm
                for region, value in postings:
                    totals[region] = totals.get(region, 0.0) + value * q
        last = compiled.last_used
        return sorted(totals.items(), key=lambda kv: (-round(kv[1], 12), _neg_date(last.get(kv[0], "")), kv[0]))

    def match(self, task: str, memory: Any, limit: int = 3) -> list[tuple[str, float]]:
        """Regions scoring at least ``threshold``, best first; empty means a miss."""
        ranked = self.scores(task, memory)
        return [(r, s) for r, s in ranked[:limit] if s >= self.threshold]


_WORD_SHAPE = re.compile(r"^[^\W\d_]+(?:-[^\W\d_]+)*$")


def decode_bag(value: Any) -> dict[str, int]:
    """``"word:count word:count"`` → ``{word: count}``; anything malformed is skipped."""
    bag: dict[str, int] = {}
    if not isinstance(value, str):
        return bag
    for item in value.split():
        word, _, count = item.rpartition(":")
        if word and count.isdigit() and int(count) > 0:
            bag[word] = int(count)
    return bag


def encode_bag(bag: dict[str, int]) -> str:
    return " ".join(f"{w}:{c}" for w, c in bag.items())


def _neg_date(day: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in day)


class _Compiled:
    """An inverted index with idf-weighted, length-normalised term weights per region."""

    def __init__(self, bags: dict[str, dict[str, float]], last_used: dict[str, str]) -> None:
        n = len(bags)
        df: dict[str, int] = {}
        for bag in bags.values():
            for t in bag:
                df[t] = df.get(t, 0) + 1
        self.idf = {t: math.log(1 + n / d) for t, d in df.items()}
        self.max_idf = math.log(1 + n / 0.5) if n else 1.0
        self.postings: dict[str, list[tuple[str, float]]] = {}
        for region, bag in bags.items():
            weights = {t: self.idf[t] * (1 + math.log(c)) if c >= 1 else self.idf[t] * c for t, c in bag.items()}
            length = math.sqrt(sum(w * w for w in weights.values())) or 1.0
            for t, w in weights.items():
                self.postings.setdefault(t, []).append((region, w / length))
        self.last_used = dict(last_used)


def _factory(ctx: Any) -> LexicalMatcher:
    return LexicalMatcher(ctx.settings)


@nervous.hookimpl
def nervous_matchers() -> list[nervous.Provider]:
    return [nervous.Provider("lexical", "offline word matcher: signals, region names and a bounded "
                             "index of entity-filtered words (no model)", _factory)]
