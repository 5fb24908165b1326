"""The contracts that provider factories return. Plugins implement these; engines call them."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from ..records import (
    InstallRecord,
    IntentVerdict,
    ReviewDecision,
    RiskAssessment,
    ScanContext,
    SearchHit,
    SideEffects,
    SkillBundle,
    SkillMetadata,
    SkillRef,
    SkillVersion,
)


@runtime_checkable
class Registry(Protocol):
    """A skill source. Errors are :class:`nervous.errors.RegistryError`, ``NotFound`` or ``Refused``."""

    name: str

    def search(self, query: str, limit: int = 10) -> list[SearchHit]: ...

    def resolve(self, ref: SkillRef) -> SkillMetadata: ...

    def versions(self, ref: SkillRef) -> list[SkillVersion]: ...

    def version(self, ref: SkillRef, version: str | None = None) -> SkillVersion: ...

    def fetch(self, ref: SkillRef, version: str | None = None) -> SkillBundle: ...


@runtime_checkable
class InstallTarget(Protocol):
    """Where installed skills live (e.g. ``./skills`` with a clawhub-compatible lockfile)."""

    name: str

    def install(self, bundle: SkillBundle, *, force: bool = False) -> InstallRecord: ...

    def uninstall(self, slug: str) -> InstallRecord: ...

    def installed(self) -> list[InstallRecord]: ...

    def unmanaged(self) -> list[str]: ...


@runtime_checkable
class ReviewPolicy(Protocol):
    """Decides what to do with a classified, scored skill."""

    name: str

    def decide(
        self,
        bundle: SkillBundle,
        side_effects: SideEffects,
        risk: RiskAssessment,
        context: ScanContext,
        intent: IntentVerdict | None,
    ) -> ReviewDecision: ...


@runtime_checkable
class Matcher(Protocol):
    """Routes a task description to regions of the cortex memory."""

    name: str

    def match(self, task: str, memory: Any, limit: int = 3) -> list[tuple[str, float]]:
        """Return ``(region, score)`` pairs, best first; an empty list is a miss."""
        ...


@runtime_checkable
class RankingPolicy(Protocol):
    """Orders a region's candidates (see specs/skill-cortex.md §10.1)."""

    name: str

    def rank(self, region: str, candidates: Sequence[Any], now: float, rng: random.Random) -> list[Any]: ...

    def on_outcome(
        self, region: str, candidates: Sequence[Any], used: Any, outcome: str, now: float
    ) -> dict[str, Any]: ...

    def on_version_change(self, candidate: Any) -> Any | None: ...


@runtime_checkable
class DrainPolicy(Protocol):
    """Budgets that bound a drain run (see specs/goals.md §6.2)."""

    name: str
    max_replans: int
    max_retries: int
    max_no_progress: int
