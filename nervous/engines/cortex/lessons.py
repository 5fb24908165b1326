"""Prefrontal lessons (spec §6): three structured types with the counters their triggers need."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from . import memory

if TYPE_CHECKING:
    from datetime import date

LESSON_TYPES = ("dependency_warning", "skill_quality_warning", "env_ready")


def _lessons_for_write(doc: dict[str, Any]) -> list[Any]:
    memory.ensure_v1(doc)
    result: list[Any] = doc["cortex"]["prefrontal"]["lessons"]
    return result


def find(doc: dict[str, Any], kind: str, *, region: str | None = None, key: str | None = None,
         slug: str | None = None) -> dict[str, Any] | None:
    for item in memory.lessons(doc):
        if not isinstance(item, dict) or item.get("type") != kind:
            continue
        lesson: dict[str, Any] = item
        if kind == "skill_quality_warning":
            if lesson.get("slug") == slug:
                return lesson
        elif lesson.get("region") == region and lesson.get("key") == key:
            return lesson
    return None


def confidence(lesson: dict[str, Any]) -> float:
    return memory.as_unit(lesson.get("confidence", 0.6), 0.6, "lesson.confidence", lambda _m: None)


def _adjust(lesson: dict[str, Any], delta: float, counter: str, today: date) -> None:
    lesson["confidence"] = round(min(1.0, max(0.0, confidence(lesson) + delta)), 10)
    lesson[counter] = memory.as_count(lesson.get(counter, 0), counter, lambda _m: None) + 1
    lesson["last_checked"] = today.isoformat()


def validate(lesson: dict[str, Any], cfg: Any, today: date) -> None:
    _adjust(lesson, cfg.lesson_validate, "validations", today)


def contradict(lesson: dict[str, Any], cfg: Any, today: date) -> None:
    _adjust(lesson, -cfg.lesson_contradict, "contradictions", today)


def create(doc: dict[str, Any], lesson: dict[str, Any], cfg: Any, today: date) -> dict[str, Any]:
    lesson = {**lesson, "confidence": cfg.lesson_initial_confidence, "created": today.isoformat()}
    _lessons_for_write(doc).append(lesson)
    return lesson


def _counter(doc: dict[str, Any], family: str, region: str, key: str) -> dict[str, Any]:
    counters = memory.ext(doc, "counters")
    per_region = counters.setdefault(family, {}).setdefault(region, {})
    entry = per_region.get(key)
    if not isinstance(entry, dict):
        entry = per_region[key] = {}
    result: dict[str, Any] = entry
    return result


def _observe(doc: dict[str, Any], family: str, field: str, kind: str, region: str, key: str, threshold: int,
             cfg: Any, today: date, **extra: str) -> str:
    """Bump a counter; validate the key's lesson of ``kind``, or create it once the counter reaches ``threshold``."""
    entry = _counter(doc, family, region, key)
    entry[field] = memory.as_count(entry.get(field, 0), field, lambda _m: None) + 1
    entry["last"] = today.isoformat()
    lesson = find(doc, kind, region=region, key=key)
    if lesson is not None:
        validate(lesson, cfg, today)
        return f"{kind} {region}/{key} validated"
    if entry[field] >= threshold:
        create(doc, {"type": kind, "region": region, "key": key, **extra}, cfg, today)
        return f"{kind} {region}/{key} created"
    return ""


def dependency_missing(doc: dict[str, Any], region: str, keys: Iterable[str], cfg: Any, today: date) -> list[str]:
    """Count missing dependencies; create or validate ``dependency_warning`` lessons."""
    events = [_observe(doc, "dependency_missing", "count", "dependency_warning", region, key,
                       cfg.dependency_warning_threshold, cfg, today, action="check_bin_before_install")
              for key in dict.fromkeys(keys)]
    return [e for e in events if e]


def dependency_present(doc: dict[str, Any], region: str, key: str, cfg: Any, today: date) -> list[str]:
    """A pre-check found the binary present: contradict the lesson."""
    lesson = find(doc, "dependency_warning", region=region, key=key)
    if lesson is None:
        return []
    contradict(lesson, cfg, today)
    return [f"dependency_warning {region}/{key} contradicted"]


def environment(doc: dict[str, Any], region: str, present: Iterable[str], missing: Iterable[str], cfg: Any,
                today: date) -> list[str]:
    """Track ``env_present`` streaks; create, validate or contradict ``env_ready`` lessons."""
    events = [e for e in (_observe(doc, "env_present", "streak", "env_ready", region, key, cfg.env_ready_threshold,
                                   cfg, today) for key in dict.fromkeys(present)) if e]
    for key in dict.fromkeys(missing):
        entry = _counter(doc, "env_present", region, key)
        entry["streak"] = 0
        entry["last"] = today.isoformat()
        lesson = find(doc, "env_ready", region=region, key=key)
        if lesson is not None:
            contradict(lesson, cfg, today)
            events.append(f"env_ready {region}/{key} contradicted")
    return events


def quality_event(doc: dict[str, Any], region: str, slug: str, detail: str, cfg: Any, today: date) -> list[str]:
    """A flagged ``task_mismatch``: one ``skill_quality_warning`` per slug."""
    lesson = find(doc, "skill_quality_warning", slug=slug)
    if lesson is not None:
        validate(lesson, cfg, today)
        return [f"skill_quality_warning {slug} validated"]
    create(doc, {"type": "skill_quality_warning", "slug": slug, "detail": detail, "region": region}, cfg, today)
    return [f"skill_quality_warning {slug} created"]


def quality_success(doc: dict[str, Any], region: str, slug: str, cfg: Any, today: date) -> list[str]:
    """The slug succeeded in the lesson's region (or anywhere, for a lesson without a region)."""
    lesson = find(doc, "skill_quality_warning", slug=slug)
    if lesson is None or lesson.get("region") not in (None, region):
        return []
    contradict(lesson, cfg, today)
    return [f"skill_quality_warning {slug} contradicted"]


def relevant(doc: dict[str, Any], region: str, slugs: Iterable[str], cfg: Any) -> list[dict[str, Any]]:
    """Lessons that matter for a task in ``region`` with these candidates (confidence ≥ floor)."""
    wanted = set(slugs)
    out = []
    for lesson in memory.lessons(doc):
        if not isinstance(lesson, dict) or lesson.get("type") not in LESSON_TYPES:
            continue
        if confidence(lesson) < cfg.lesson_min_confidence:
            continue
        if lesson["type"] == "skill_quality_warning":
            if lesson.get("slug") in wanted:
                out.append(dict(lesson))
        elif lesson.get("region") == region:
            out.append(dict(lesson))
    return out


def warned_slugs(doc: dict[str, Any], cfg: Any) -> set[str]:
    return {str(lesson.get("slug")) for lesson in memory.lessons(doc)
            if isinstance(lesson, dict) and lesson.get("type") == "skill_quality_warning"
            and confidence(lesson) >= cfg.lesson_min_confidence}


def unknown_type_warnings(doc: dict[str, Any]) -> list[str]:
    out = []
    for i, lesson in enumerate(memory.lessons(doc)):
        kind = lesson.get("type") if isinstance(lesson, dict) else None
        if kind not in LESSON_TYPES:
            out.append(f"cortex.prefrontal.lessons[{i}]: lesson type {kind!r} is not one of "
                       f"{', '.join(LESSON_TYPES)}; kept but ignored")
    return out
