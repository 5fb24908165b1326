"""Result records of the cortex engine; every one carries the warnings met on the way."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from attrs import asdict, field, frozen

from ...kernel.cortex.policy import CandidateView


def _strings(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(values)


def view_json(view: CandidateView) -> dict[str, Any]:
    out = asdict(view)
    out["tags"] = list(view.tags)
    out["effective_weight"] = round(view.effective_weight, 6)
    out["weight"] = round(view.weight, 6)
    return out


@frozen
class Perception:
    """Phase 1: a hit (a region with eligible candidates) or a miss (degrade to search)."""

    hit: bool
    region: str | None
    score: float
    matches: tuple[tuple[str, float], ...] = ()
    candidates: tuple[CandidateView, ...] = ()
    reflex: bool = False
    reflex_candidate: str | None = None
    reflex_reasons: tuple[str, ...] = ()
    lessons: tuple[dict[str, Any], ...] = ()
    #: entity-filtered search keywords for a miss (never the raw task)
    keywords: tuple[str, ...] = ()
    #: a region name proposed for a miss (kebab-case, entity-filtered)
    proposed_region: str | None = None
    degraded: bool = False
    warnings: tuple[str, ...] = field(default=(), converter=_strings)

    def to_json(self) -> dict[str, Any]:
        return {
            "hit": self.hit,
            "region": self.region,
            "score": round(self.score, 6),
            "matches": [{"region": r, "score": round(s, 6)} for r, s in self.matches],
            "candidates": [view_json(c) for c in self.candidates],
            "reflex": self.reflex,
            "reflex_candidate": self.reflex_candidate,
            "reflex_reasons": list(self.reflex_reasons),
            "lessons": list(self.lessons),
            "keywords": list(self.keywords),
            "proposed_region": self.proposed_region,
            "degraded": self.degraded,
            "warnings": list(self.warnings),
        }


@frozen
class OutcomeResult:
    """Phase 4 for one attempt: the updated candidate and what else the transaction changed."""

    region: str
    slug: str
    source: str
    outcome: str
    weight: float
    effective_weight: float
    reflex: bool
    successes: int
    failures: int
    consecutive_successes: int
    retention_suggested: bool
    reflex_blockers: tuple[str, ...] = ()
    signals_added: tuple[str, ...] = ()
    lesson_events: tuple[str, ...] = ()
    pruned: tuple[str, ...] = ()
    warnings: tuple[str, ...] = field(default=(), converter=_strings)

    def to_json(self) -> dict[str, Any]:
        return {
            "region": self.region,
            "slug": self.slug,
            "source": self.source,
            "outcome": self.outcome,
            "weight": round(self.weight, 10),
            "effective_weight": round(self.effective_weight, 10),
            "reflex": self.reflex,
            "successes": self.successes,
            "failures": self.failures,
            "consecutive_successes": self.consecutive_successes,
            "retention_suggested": self.retention_suggested,
            "reflex_blockers": list(self.reflex_blockers),
            "signals_added": list(self.signals_added),
            "lesson_events": list(self.lesson_events),
            "pruned": list(self.pruned),
            "warnings": list(self.warnings),
        }
