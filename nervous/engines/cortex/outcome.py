"""The result record of recording an outcome (phase 4); it carries the warnings met on the way."""

from __future__ import annotations

from typing import Any

from attrs import field, frozen

from .results import strings


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
    warnings: tuple[str, ...] = field(default=(), converter=strings)

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
