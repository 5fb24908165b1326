"""The result record of ``perceive``; it carries the warnings met on the way.

The outcome record is in :mod:`nervous.engines.cortex.outcome` (``perceive`` never builds one, and
each attrs class costs its generated methods at import).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from attrs import asdict, field, frozen

from ...kernel.lazy import lazy_names

if TYPE_CHECKING:
    from ...kernel.cortex.policy import CandidateView


def strings(values: Iterable[str]) -> tuple[str, ...]:
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
    warnings: tuple[str, ...] = field(default=(), converter=strings)

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


#: ``OutcomeResult`` (in :mod:`.outcome`), still importable from here, loaded when first asked for
__getattr__, __dir__ = lazy_names(__name__, {"OutcomeResult": "nervous.engines.cortex.outcome"})
