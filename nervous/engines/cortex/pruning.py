"""Pruning (spec §7): runs at the end of every mutating transaction, never on load."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from . import lessons as lessons_mod
from . import memory
from .entities import stem
from .formulas import below, effective_weight


def prune(doc: dict[str, Any], cfg: Any, today: date, *, protected: tuple[str, str] | None = None,
          is_blacklisted: Callable[[str, str], bool] = lambda _s, _slug: False,
          forget_matcher_region: Callable[[str], None] = lambda _r: None) -> list[str]:
    """Apply every pruning rule; ``protected`` is the ``(region, identity)`` just used. Returns what went."""
    removed: list[str] = []
    motor = memory.motor(doc)
    warn = lambda _m: None  # noqa: E731 - coercion warnings were reported on read
    for name in list(motor):
        region = motor[name]
        if not isinstance(region, dict):
            continue
        cands = memory.region_candidates(region)
        scored = []
        for raw in cands:
            if not memory.is_valid_candidate(raw):
                continue
            cand = memory.Candidate(raw, region, today, f"motor.{name}", warn)
            eff = effective_weight(cand.weight, cand.last_used, today, cfg)
            keep_always = (protected == (name, cand.identity)
                           and not is_blacklisted(cand.source, cand.slug))
            scored.append((raw, cand, eff, keep_always))
        survivors = []
        for raw, cand, eff, keep_always in scored:
            if below(eff, cfg.prune_min_effective) and not keep_always:
                removed.append(f"candidate {name}/{cand.slug} (effective weight {eff:.3f})")
            else:
                survivors.append((raw, cand, eff, keep_always))
        if len(survivors) > cfg.max_candidates_per_region:
            evictable = sorted((s for s in survivors if not s[3]),
                               key=lambda s: (round(s[2], 10), round(s[1].weight, 10),
                                              s[1].last_used, s[1].slug))
            excess = len(survivors) - cfg.max_candidates_per_region
            gone = {id(s[0]) for s in evictable[:excess]}
            for s in evictable[:excess]:
                removed.append(f"candidate {name}/{s[1].slug} (region keeps {cfg.max_candidates_per_region})")
            survivors = [s for s in survivors if id(s[0]) not in gone]
        kept_ids = {id(s[0]) for s in survivors}
        new_list = [raw for raw in cands if id(raw) in kept_ids or not memory.is_valid_candidate(raw)]
        if len(new_list) != len(cands):
            region["candidates"] = new_list
    # regions
    for name in list(motor):
        region = motor[name]
        if not isinstance(region, dict) or not any(memory.is_valid_candidate(c)
                                                   for c in memory.region_candidates(region)):
            if protected is None or protected[0] != name or not isinstance(region, dict):
                del motor[name]
                removed.append(f"region {name} (no candidates)")
    if len(motor) > cfg.max_regions:
        def runs(region: Any) -> int:
            total = 0
            for raw in memory.region_candidates(region):
                if memory.is_valid_candidate(raw):
                    c = memory.Candidate(raw, region, today, "", warn)
                    total += c.successes + c.failures
            return total

        order = sorted((n for n in motor if protected is None or n != protected[0]),
                       key=lambda n: (memory.region_last_used(motor[n], today), runs(motor[n]), n))
        for name in order[: len(motor) - cfg.max_regions]:
            del motor[name]
            removed.append(f"region {name} (at most {cfg.max_regions} regions)")
    alive = set(motor)
    # patterns
    pats = memory.patterns(doc)
    kept_patterns = []
    for pattern in pats:
        if isinstance(pattern, dict) and pattern.get("region") not in alive:
            removed.append(f"pattern of region {pattern.get('region')}")
            continue
        if isinstance(pattern, dict) and isinstance(pattern.get("signal"), list):
            signals = pattern["signal"]
            if len(signals) > cfg.max_signals_per_pattern:
                pattern["signal"] = signals[len(signals) - cfg.max_signals_per_pattern:]
        kept_patterns.append(pattern)
    if len(kept_patterns) != len(pats):
        doc["cortex"]["sensory"]["patterns"] = kept_patterns
    # lessons
    all_lessons = memory.lessons(doc)
    kept_lessons = []
    for lesson in all_lessons:
        if isinstance(lesson, dict) and lesson.get("type") in lessons_mod.LESSON_TYPES:
            region_name = lesson.get("region")
            too_weak = lessons_mod.confidence(lesson) < cfg.lesson_min_confidence
            orphan = region_name is not None and region_name not in alive
            if too_weak or orphan:
                removed.append(f"lesson {lesson.get('type')} ({'confidence' if too_weak else 'region gone'})")
                continue
        kept_lessons.append(lesson)
    known = [x for x in kept_lessons if isinstance(x, dict) and x.get("type") in lessons_mod.LESSON_TYPES]
    if len(known) > cfg.max_lessons:
        weakest = sorted(known, key=lambda x: (lessons_mod.confidence(x), str(x.get("created", "")),
                                               str(x.get("type"))))
        gone = {id(x) for x in weakest[: len(known) - cfg.max_lessons]}
        removed.extend(f"lesson {x.get('type')} (at most {cfg.max_lessons})" for x in weakest if id(x) in gone)
        kept_lessons = [x for x in kept_lessons if id(x) not in gone]
    if len(kept_lessons) != len(all_lessons):
        doc["cortex"]["prefrontal"]["lessons"] = kept_lessons
    # counters and matcher state of pruned regions
    counters = doc.get("counters")
    if isinstance(counters, dict):
        for family in counters.values():
            if isinstance(family, dict):
                for name in [n for n in family if n not in alive]:
                    del family[name]
    for name in _matcher_regions(doc) - alive:
        forget_matcher_region(name)
    return removed


def _matcher_regions(doc: dict[str, Any]) -> set[str]:
    state = doc.get("matcher_state")
    names: set[str] = set()
    if isinstance(state, dict):
        for per_matcher in state.values():
            regions = per_matcher.get("regions") if isinstance(per_matcher, dict) else None
            if isinstance(regions, dict):
                names.update(regions)
    return names


def merge_signals(doc: dict[str, Any], region: str, signals: list[str], cap: int) -> list[str]:
    """Merge filtered signals into the region's (first) pattern, skipping stem-equal words (§4.3.4)."""
    memory.ensure_v1(doc)
    pats = doc["cortex"]["sensory"]["patterns"]
    target = next((p for p in pats if isinstance(p, dict) and p.get("region") == region), None)
    if target is None:
        target = {"signal": [], "region": region}
        pats.append(target)
    if not isinstance(target.get("signal"), list):
        target["signal"] = []
    present: set[str] = set()
    for p in pats:
        if isinstance(p, dict) and p.get("region") == region and isinstance(p.get("signal"), list):
            for s in p["signal"]:
                if isinstance(s, str):
                    present.update((s, stem(s)))
    added = []
    for word in signals:
        if word in present or stem(word) in present:
            continue
        target["signal"].append(word)
        present.update((word, stem(word)))
        added.append(word)
    if len(target["signal"]) > cap:
        target["signal"] = target["signal"][len(target["signal"]) - cap:]
    return added
