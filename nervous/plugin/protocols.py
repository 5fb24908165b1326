"""The contracts that provider factories return. Plugins implement these; engines call them."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

if TYPE_CHECKING:  # annotations only: the records module is not needed to load the contracts (start-up)
    from ..kernel.cortex.policy import CandidateView
    from ..kernel.records import (
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
    """Orders a region's candidates (see specs/skill-cortex.md §10.1).

    Subclass it to inherit the defaults (the seed order, no per-candidate state, reflex allowed),
    or implement the methods on any class. ``rank`` returns the eligible candidates in order (the
    engine has already removed blacklisted ones). ``on_outcome`` runs inside the learning
    transaction, after the seed update, and returns ``{identity: new state}`` for any candidates
    of the region whose state changes (a policy may update unused candidates, e.g. to discount
    them). ``on_version_change`` returns the state to keep when a candidate's version or
    fingerprint changes, or ``None`` to clear it. ``reflex_allowed`` may withhold the fast path
    from the first-ranked candidate. Everything must be deterministic given ``rng``: no other
    source of randomness, no wall clock.
    """

    name: ClassVar[str] = "base"
    description: ClassVar[str] = ""
    #: True when :meth:`reflex_allowed` is a complete evidence rule: the engine then promotes, keeps
    #: and demotes reflex on it instead of the seed's weight and streak gates (the read-only,
    #: clean-scan, source and blacklist conditions always apply)
    reflex_rule: ClassVar[bool] = False
    #: candidates whose effective weight is below this floor are not ranked
    min_effective: float

    def __init__(self, *, min_effective: float = 0.3) -> None:
        self.min_effective = min_effective

    def rank(
        self, region: str, candidates: Sequence[CandidateView], now: float, rng: random.Random
    ) -> list[CandidateView]:
        from ..kernel.cortex.policy import seed_order

        return seed_order(candidates, self.min_effective)

    def on_outcome(
        self, region: str, candidates: Sequence[CandidateView], used: CandidateView | str, outcome: str, now: float
    ) -> dict[str, dict[str, Any]]:
        return {}

    def on_version_change(self, candidate: CandidateView) -> dict[str, Any] | None:
        return None

    def reflex_allowed(self, region: str, ranked: Sequence[CandidateView]) -> tuple[bool, str]:
        """Optional veto of the fast path for ``ranked[0]``, consulted only after every seed gate holds.

        The default allows it, so the seed reflex behaviour is unchanged; the reason is shown when vetoed.
        With :attr:`reflex_rule` set, it is consulted instead of the seed's evidence gates, both for
        promotion after an outcome and for the fast path.
        """
        return True, ""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


@runtime_checkable
class DrainPolicy(Protocol):
    """Budgets that bound a drain run (see specs/goals.md §6.2)."""

    name: str
    max_replans: int
    max_retries: int
    max_no_progress: int
