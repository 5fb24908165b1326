"""The built-in perception matcher ``lexical``: offline, no model, sub-millisecond.

Each region is a weighted bag of words: its signal words (spec §4.3.1), the words of its name, its
description, and a bounded index of entity-filtered words from tasks it solved (never raw text; the
engine filters them before :meth:`LexicalMatcher.observe` sees them). Every solved task adds
``1/sqrt(n)`` to each of its ``n`` words, so a long, detailed task does not outweigh several short
ones. Words meet on a light stem (:mod:`nervous_plugins.lexical_words`).

A task is scored against every region with a cosine over idf-weighted terms: term frequencies are
square-root dampened and idf enters with a softened power on both sides. The query may use every
word of the task, including names the entity filter keeps out of storage (they can still match a
region's name), and looks up generic related words (``photo`` → ``image``) at a reduced weight.
Words of the task that no region knows count against every region, so a task about something
never learned scores low and is answered as a miss below ``threshold``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

from nervous.errors import ConfigError
from nervous.plugin.cortex import MatcherMemory, words

from .lexical_words import light_stem, related_terms

#: a word of a task (a pattern: ``re`` compiles it on first use, and a miss on an empty cortex never does)
_WORD = r"[^\W\d_]+(?:['’-][^\W\d_]+)*"

DEFAULTS: dict[str, float] = {
    "threshold": 0.165,  # tuned on data/perception dev (docs/benchmarks/perception.md)
    "prefix": 0,  # cut stems to this many letters; 0 keeps whole stems
    "unknown_weight": 0.5,  # weight of never-seen task words, relative to the rarest known word
    "signal_weight": 0.0,  # extra weight of a signal word in a region that has an index (it is in it)
    "name_weight": 1.0,  # weight of each word of the region's name
    "description_weight": 1.0,  # weight of each word of a region's description
    "related_weight": 0.3,  # query weight of a related word (0 turns the related-word table off)
    "idf_power": 0.75,  # idf exponent on each side of the cosine (1 = classic tf-idf)
    "task_length_power": 0.5,  # a solved task adds 1/n**power to each of its n words
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
        self.description_weight = float(merged["description_weight"])
        self.related_weight = float(merged["related_weight"])
        self.idf_power = float(merged["idf_power"])
        self.task_length_power = float(merged["task_length_power"])
        self.max_words = int(merged["max_words"])
        self._stop_words: frozenset[str] | None = None
        self._related_terms: dict[str, frozenset[str]] | None = None
        self._cache_key: Any = None
        self._compiled: _Compiled | None = None

    # ------------------------------------------------------------------ words

    @property
    def _stop(self) -> frozenset[str]:
        """Words never used as terms; read on first use (a miss on an empty cortex needs none)."""
        if self._stop_words is None:
            self._stop_words = words("stopwords") | words("temporal")
        return self._stop_words

    @property
    def _related(self) -> dict[str, frozenset[str]]:
        """The related-word table (hundreds of stems), built on first use rather than with the matcher."""
        if self._related_terms is None:
            self._related_terms = related_terms(self.prefix) if self.related_weight else {}
        return self._related_terms

    def term(self, word: str) -> str:
        base = light_stem(word)
        return base[: self.prefix] if self.prefix else base

    def terms(self, text: str) -> set[str]:
        out = set()
        for match in re.finditer(_WORD, text.casefold()):
            word = match.group().replace("’", "'")
            if word.endswith("'s"):
                word = word[:-2]
            part = word.split("'", 1)[0]
            if len(part) >= 2 and part not in self._stop:
                out.add(self.term(part))
        return out

    # ------------------------------------------------------------------ learning (engine calls)

    def observe(self, state: dict[str, Any], region: str, observed: Iterable[str]) -> None:
        """Add the entity-filtered words of one solved task to the region's bounded index."""
        valid = _valid_words(observed)
        if valid:
            self._add(state, region, valid, 1.0 / len(valid) ** self.task_length_power)

    def describe(self, state: dict[str, Any], region: str, described: Iterable[str]) -> None:
        """Add the entity-filtered words of a region's description (each at ``description_weight``)."""
        valid = _valid_words(described)
        if valid and self.description_weight:
            self._add(state, region, valid, self.description_weight)

    def _add(self, state: dict[str, Any], region: str, new: list[str], weight: float) -> None:
        """The index is stored compactly as one string per region (``"word:weight ..."``, oldest
        first) so reading the memory for every task stays cheap."""
        regions = state.setdefault("regions", {})
        bag = decode_bag(regions.get(region))
        if len(bag) > self.max_words:  # stored over the bound (an imported file, a lowered max_words):
            # cut to it once, lightest and oldest first, so each new word below scans max_words at most
            for weakest in sorted(bag, key=bag.__getitem__)[: len(bag) - self.max_words]:
                del bag[weakest]
        for word in new:
            if word in bag:
                bag[word] += weight
                continue
            if len(bag) >= self.max_words:
                # evict the lightest word, the oldest among equals (dicts keep insertion order)
                weakest = min(bag, key=lambda w: bag[w])
                del bag[weakest]
            bag[word] = weight
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
            for word, weight in words_seen.items():
                t = self.term(word)
                bag[t] = bag.get(t, 0.0) + weight
            bags[region] = bag
        compiled = _Compiled(bags, memory.last_used, self.idf_power)
        if key is not None:
            self._cache_key, self._compiled = key, compiled
        return compiled

    def query(self, task: str, compiled: _Compiled) -> dict[str, float]:
        """The task's term weights: its own terms at 1, related terms at ``related_weight``."""
        own = self.terms(task)
        weights = dict.fromkeys(own, 1.0)
        if self._related:
            for t in own:
                for other in self._related.get(t, ()):
                    if other not in weights or weights[other] < self.related_weight:
                        weights[other] = self.related_weight
        unknown = compiled.unknown_weight(self.unknown_weight)
        return {t: compiled.weight.get(t, unknown) * w for t, w in weights.items()}

    def scores(self, task: str, memory: MatcherMemory) -> list[tuple[str, float]]:
        """Every region with a positive score, best first (before the miss threshold)."""
        if not memory.signals:
            return []
        compiled = self._compile(memory)
        query = self.query(task, compiled)
        if not query:
            return []
        norm = math.sqrt(sum(v * v for v in query.values())) or 1.0
        totals: dict[str, float] = {}
        for t, q in query.items():
            postings = compiled.postings.get(t)
            if postings:
                q /= norm
                for region, value in postings:
                    totals[region] = totals.get(region, 0.0) + value * q
        last = compiled.last_used
        return sorted(totals.items(), key=lambda kv: (-round(kv[1], 12), _neg_date(last.get(kv[0], "")), kv[0]))

    def match(self, task: str, memory: Any, limit: int = 3) -> list[tuple[str, float]]:
        """Regions scoring at least ``threshold``, best first; empty means a miss."""
        ranked = self.scores(task, memory)
        return [(r, s) for r, s in ranked[:limit] if s >= self.threshold]


_WORD_SHAPE = r"^[^\W\d_]+(?:-[^\W\d_]+)*$"


def _valid_words(candidates: Iterable[str]) -> list[str]:
    return [w for w in dict.fromkeys(candidates) if isinstance(w, str) and re.match(_WORD_SHAPE, w)]


def decode_bag(value: Any) -> dict[str, float]:
    """``"word:weight word:weight"`` → ``{word: weight}``; anything malformed is skipped."""
    bag: dict[str, float] = {}
    if not isinstance(value, str):
        return bag
    for item in value.split():
        word, _, weight = item.rpartition(":")
        try:
            number = float(weight)
        except ValueError:
            continue
        if word and math.isfinite(number) and number > 0:
            bag[word] = number
    return bag


def encode_bag(bag: dict[str, float]) -> str:
    return " ".join(f"{w}:{_short(c)}" for w, c in bag.items())


def _short(weight: float) -> str:
    """Three decimals, trailing zeros dropped (``2`` not ``2.000``)."""
    text = f"{weight:.3f}".rstrip("0").rstrip(".")
    return text if text not in ("", "0") else "0.001"


def _neg_date(day: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in day)


class _Compiled:
    """An inverted index with idf-weighted, length-normalised term weights per region."""

    def __init__(self, bags: dict[str, dict[str, float]], last_used: dict[str, str], idf_power: float) -> None:
        n = len(bags)
        df: dict[str, int] = {}
        for bag in bags.values():
            for t in bag:
                df[t] = df.get(t, 0) + 1
        self.idf_power = idf_power
        #: idf ** power of every known term (the query weight of a term present once)
        self.weight = {t: math.log(1 + n / d) ** idf_power for t, d in df.items()}
        self.max_idf = math.log(1 + n / 0.5) if n else 1.0
        self.postings: dict[str, list[tuple[str, float]]] = {}
        for region, bag in bags.items():
            weights = {t: self.weight[t] * math.sqrt(c) for t, c in bag.items() if c > 0}
            length = math.sqrt(sum(w * w for w in weights.values())) or 1.0
            for t, w in weights.items():
                self.postings.setdefault(t, []).append((region, w / length))
        self.last_used = dict(last_used)

    def unknown_weight(self, share: float) -> float:
        """The query weight of a word no region knows: a share of the rarest possible idf."""
        return float((self.max_idf * share) ** self.idf_power)


def _factory(ctx: Any) -> LexicalMatcher:
    return LexicalMatcher(ctx.settings)


