"""Built-in candidate ranking policies (spec §10.2), offered on ``nervous_ranking_policies``.

* ``seed`` — the original skill-cortex order (the default).
* ``seed-probe`` — the seed order plus a bounded probe rule, so a neglected candidate that has
  improved is tried again and can win the top rank back.
* ``thompson``, ``ucb1``, ``discounted-thompson`` — bandit baselines measured against them by
  ``benchmarks/learning.py``.

Every policy is deterministic given the ``rng`` the engine passes: candidates are visited in
identity order before any draw, so the input order never changes the result.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any, ClassVar

import nervous
from nervous.cortex.policy import (
    CandidateView,
    RankingPolicy,
    identity_of,
    is_success,
    seed_order,
    seed_sort_key,
)
from nervous.errors import ConfigError


def _by_identity(candidates: Sequence[CandidateView]) -> list[CandidateView]:
    return sorted(candidates, key=lambda c: c.identity)


def _setting(settings: dict[str, Any], key: str, default: float, *, low: float, high: float) -> float:
    value = settings.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise ConfigError(f"ranking policy setting {key!r}: expected a number in [{low}, {high}], got {value!r}")
    return float(value)


class SeedPolicy(RankingPolicy):
    """Drop effective weight < 0.3, sort by effective weight; reproduces the original exactly."""

    name: ClassVar[str] = "seed"
    description: ClassVar[str] = "the original order: effective weight, candidates below 0.3 dropped (default)"


class SeedProbePolicy(RankingPolicy):
    """The seed order, plus probes of neglected candidates with an exponential back-off.

    Each candidate counts the region uses since it was last tried (``idle``). A candidate other
    than the seed's first choice is *due* once ``idle >= backoff`` — even when its effective weight
    fell below the 0.3 floor, which the seed rule never revisits. The most overdue candidate is
    ranked first for that one task (a probe). A failed probe doubles its back-off (up to ``cap``),
    so a candidate that stays bad costs about ``1/cap`` of the region's tasks; a successful probe
    asks for a follow-up on the next use, so an improved candidate collects a run of successes,
    its seed weight climbs and it takes the top rank through the seed order itself. A version or
    fingerprint change starts a fresh follow-up: new content deserves a fresh look.

    Weights, counters and reflex rules are untouched; reflex can only fire on the first-ranked
    candidate, so a probe task simply runs in standard mode.
    """

    name: ClassVar[str] = "seed-probe"
    description: ClassVar[str] = "seed order plus bounded back-off probes that rediscover improved candidates"

    def __init__(self, *, min_effective: float = 0.3, base: int = 32, cap: int = 512, max_idle_days: float = 90,
                 soft_floor: bool = False) -> None:
        super().__init__(min_effective=min_effective)
        if not 1 <= base <= cap:
            raise ConfigError(f"seed-probe: expected 1 <= probe_base <= probe_cap, got {base} and {cap}")
        self.base = base
        self.cap = cap
        self.max_idle_days = max_idle_days
        self.soft_floor = soft_floor

    def _read(self, view: CandidateView) -> tuple[int, int, bool]:
        st = view.policy_state
        idle = st.get("idle", 0)
        backoff = st.get("backoff", self.base)
        follow = st.get("follow", False)
        idle = idle if isinstance(idle, int) and idle >= 0 else 0
        backoff = backoff if isinstance(backoff, int) and self.base <= backoff <= self.cap else self.base
        return idle, backoff, bool(follow)

    def _stale(self, view: CandidateView, now: float) -> bool:
        """Unused for ``max_idle_days``: probe it before idle decay makes pruning forget it."""
        at = view.policy_state.get("at", view.last_used)
        if isinstance(at, bool) or not isinstance(at, (int, float)):
            return False
        return now - at >= self.max_idle_days * 86_400

    def _due(self, view: CandidateView, now: float) -> bool:
        idle, backoff, follow = self._read(view)
        return follow or idle >= backoff or self._stale(view, now)

    def rank(
        self, region: str, candidates: Sequence[CandidateView], now: float, rng: random.Random
    ) -> list[CandidateView]:
        order = seed_order(candidates, self.min_effective)
        if self.soft_floor:
            kept = {c.identity for c in order}
            order += sorted((c for c in candidates if c.identity not in kept), key=seed_sort_key)
        top = order[0].identity if order else None
        due = [c for c in candidates if c.identity != top and self._due(c, now)]
        if not due:
            return order

        def urgency(c: CandidateView) -> tuple[int, float, tuple[float, float, int, str]]:
            idle, backoff, follow = self._read(c)
            return (0 if follow else 1, -idle / backoff, seed_sort_key(c))

        probe = min(due, key=urgency)
        return [probe, *(c for c in order if c.identity != probe.identity)]

    def on_outcome(
        self,
        region: str,
        candidates: Sequence[CandidateView],
        used: CandidateView | str,
        outcome: str,
        now: float,
    ) -> dict[str, dict[str, Any]]:
        used_id = identity_of(used)
        states: dict[str, dict[str, Any]] = {}
        for view in _by_identity(candidates):
            idle, backoff, follow = self._read(view)
            if view.identity != used_id:
                state = dict(view.policy_state)
                state.update(idle=idle + 1, backoff=backoff, follow=follow)
                states[view.identity] = state
                continue
            probed = follow or idle >= backoff or self._stale(view, now)
            if is_success(outcome):
                # a successful probe earns a follow-up; an ordinary success resets the back-off
                states[view.identity] = {"idle": 0, "backoff": backoff if probed else self.base,
                                         "follow": probed, "at": now}
            else:
                states[view.identity] = {"idle": 0, "backoff": min(self.cap, backoff * 2) if probed else backoff,
                                         "follow": False, "at": now}
        return states

    def on_version_change(self, candidate: CandidateView) -> dict[str, Any] | None:
        return {"idle": 0, "backoff": self.base, "follow": True}


class ThompsonPolicy(RankingPolicy):
    """Beta(1 + successes, 1 + failures) per candidate; rank by one sample each. No filter."""

    name: ClassVar[str] = "thompson"
    description: ClassVar[str] = "Thompson sampling on total successes and failures (baseline)"

    def rank(
        self, region: str, candidates: Sequence[CandidateView], now: float, rng: random.Random
    ) -> list[CandidateView]:
        draws = {c.identity: rng.betavariate(1 + c.successes, 1 + c.failures) for c in _by_identity(candidates)}
        return sorted(candidates, key=lambda c: (-draws[c.identity], c.slug, c.identity))


class UCB1Policy(RankingPolicy):
    """Untried candidates first; then mean + sqrt(2 ln N / n), N = the region's total uses."""

    name: ClassVar[str] = "ucb1"
    description: ClassVar[str] = "UCB1 upper confidence bound on success rate (baseline)"

    def rank(
        self, region: str, candidates: Sequence[CandidateView], now: float, rng: random.Random
    ) -> list[CandidateView]:
        total = sum(c.runs_total for c in candidates)

        def score(c: CandidateView) -> float:
            if c.runs_total <= 0:
                return math.inf
            return c.successes / c.runs_total + math.sqrt(2 * math.log(max(total, 1)) / c.runs_total)

        return sorted(candidates, key=lambda c: (-score(c), c.slug, c.identity))


class DiscountedThompsonPolicy(RankingPolicy):
    """Beta(alpha, beta) kept in policy state, pulled towards Beta(1, 1) by gamma per region use.

    Reset on a version or fingerprint change; no idle-time decay and no 0.3 filter, so a neglected
    candidate keeps a chance to be sampled.
    """

    name: ClassVar[str] = "discounted-thompson"
    description: ClassVar[str] = "Thompson sampling with discounted evidence, gamma 0.95 (baseline)"

    def __init__(self, *, min_effective: float = 0.3, gamma: float = 0.95) -> None:
        super().__init__(min_effective=min_effective)
        self.gamma = gamma

    @staticmethod
    def _params(view: CandidateView) -> tuple[float, float]:
        a = view.policy_state.get("alpha", 1.0)
        b = view.policy_state.get("beta", 1.0)
        a = float(a) if isinstance(a, (int, float)) and not isinstance(a, bool) and a >= 1 else 1.0
        b = float(b) if isinstance(b, (int, float)) and not isinstance(b, bool) and b >= 1 else 1.0
        return a, b

    def rank(
        self, region: str, candidates: Sequence[CandidateView], now: float, rng: random.Random
    ) -> list[CandidateView]:
        draws = {c.identity: rng.betavariate(*self._params(c)) for c in _by_identity(candidates)}
        return sorted(candidates, key=lambda c: (-draws[c.identity], c.slug, c.identity))

    def on_outcome(
        self,
        region: str,
        candidates: Sequence[CandidateView],
        used: CandidateView | str,
        outcome: str,
        now: float,
    ) -> dict[str, dict[str, Any]]:
        used_id = identity_of(used)
        g = self.gamma
        states: dict[str, dict[str, Any]] = {}
        for view in _by_identity(candidates):
            a, b = self._params(view)
            a, b = 1 + g * (a - 1), 1 + g * (b - 1)
            if view.identity == used_id:
                x = 1.0 if is_success(outcome) else 0.0
                a, b = a + x, b + (1 - x)
            states[view.identity] = {"alpha": round(a, 12), "beta": round(b, 12)}
        return states

    def on_version_change(self, candidate: CandidateView) -> dict[str, Any] | None:
        return {"alpha": 1.0, "beta": 1.0}


def _min_effective(ctx: Any) -> float:
    return float(ctx.config.cortex.phase1_min_effective)


def _seed(ctx: Any) -> SeedPolicy:
    return SeedPolicy(min_effective=_min_effective(ctx))


def _seed_probe(ctx: Any) -> SeedProbePolicy:
    base = int(_setting(ctx.settings, "probe_base", 32, low=1, high=1_000_000))
    cap = int(_setting(ctx.settings, "probe_cap", 512, low=1, high=1_000_000))
    idle_days = _setting(ctx.settings, "probe_idle_days", 90, low=1, high=36_500)
    soft = ctx.settings.get("soft_floor", False)
    if not isinstance(soft, bool):
        raise ConfigError(f"ranking policy setting 'soft_floor': expected true or false, got {soft!r}")
    return SeedProbePolicy(min_effective=_min_effective(ctx), base=base, cap=cap, max_idle_days=idle_days,
                           soft_floor=soft)


def _thompson(ctx: Any) -> ThompsonPolicy:
    return ThompsonPolicy(min_effective=_min_effective(ctx))


def _ucb1(ctx: Any) -> UCB1Policy:
    return UCB1Policy(min_effective=_min_effective(ctx))


def _discounted_thompson(ctx: Any) -> DiscountedThompsonPolicy:
    gamma = _setting(ctx.settings, "gamma", 0.95, low=0.0, high=1.0)
    return DiscountedThompsonPolicy(min_effective=_min_effective(ctx), gamma=gamma)


POLICIES: tuple[type[RankingPolicy], ...] = (
    SeedPolicy, SeedProbePolicy, ThompsonPolicy, UCB1Policy, DiscountedThompsonPolicy,
)
_FACTORIES = {
    "seed": _seed,
    "seed-probe": _seed_probe,
    "thompson": _thompson,
    "ucb1": _ucb1,
    "discounted-thompson": _discounted_thompson,
}


@nervous.hookimpl
def nervous_ranking_policies() -> list[nervous.Provider]:
    return [nervous.Provider(cls.name, cls.description, _FACTORIES[cls.name]) for cls in POLICIES]
