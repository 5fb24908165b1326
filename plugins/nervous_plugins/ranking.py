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


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _beta_log_density(a: float, b: float, xs: Sequence[float]) -> list[float]:
    norm = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    return [norm + (a - 1) * math.log(x) + (b - 1) * math.log1p(-x) for x in xs]


def beta_beats(top: tuple[float, float], other: tuple[float, float], points: int = 400) -> float:
    """P(X > Y) for X ~ Beta(1 + other), Y ~ Beta(1 + top) (successes, failures); midpoint rule.

    Deterministic (no sampling), so a reflex decision never depends on a random draw.
    """
    xs = [(i + 0.5) / points for i in range(points)]
    dens_top = [math.exp(v) / points for v in _beta_log_density(1 + top[0], 1 + top[1], xs)]
    dens_other = [math.exp(v) / points for v in _beta_log_density(1 + other[0], 1 + other[1], xs)]
    beaten, above = 0.0, sum(dens_other)
    for d_top, d_other in zip(dens_top, dens_other, strict=True):
        above -= d_other  # mass of the other candidate strictly above this point
        beaten += d_top * (above + d_other / 2)
    return min(1.0, max(0.0, beaten))


class SeedProbePolicy(RankingPolicy):
    """The seed order, plus evidence-driven probes of neglected candidates and a reflex veto.

    The policy keeps, per candidate, the successes and failures of its *current* content
    (``policy_state["seed-probe"] = {"s", "f"}``, reset on a version or fingerprint change; the
    seed's lifetime counters stand in until the policy has seen the candidate). The seed's first
    choice is the incumbent. For each task one Beta(1 + s, 1 + f) sample is drawn for every
    candidate; when some other candidate's sample beats the incumbent's, that candidate is probed
    first, for this task only, with the seed order behind it as the fallback. This is a
    Thompson-style comparison, so probes are frequent only while the evidence is thin or close:
    a candidate that fails its probes is probed ever more rarely, a version change (fresh
    counts) or an incumbent whose successes stop (a wider posterior relative to its rivals) makes
    them likely again, and a candidate below the seed's 0.3 floor can still be probed.

    The seed weight, counters, floor and reflex rules are all kept; a probed candidate's own
    success raises its seed weight until the seed order puts it first. Reflex is withheld when
    the posterior probability that the incumbent is the region's best is below ``confidence``
    (0.95), so a region of near-equal skills stays in standard mode.
    """

    name: ClassVar[str] = "seed-probe"
    description: ClassVar[str] = "seed order plus posterior-sampled probes of neglected candidates and a reflex veto"

    def __init__(self, *, min_effective: float = 0.3, confidence: float = 0.95, fallback_tail: bool = False,
                 probe_margin: float = 0.0, promote: float = 0.95, rival_prior: float = 0.0,
                 min_rival_runs: int = 0, less_known_only: bool = True) -> None:
        super().__init__(min_effective=min_effective)
        if not 0.5 <= confidence <= 1.0:
            raise ConfigError(f"seed-probe: reflex_confidence must be in [0.5, 1], got {confidence}")
        self.confidence = confidence
        self.fallback_tail = fallback_tail
        self.probe_margin = probe_margin
        self.promote = promote
        self.rival_prior = rival_prior
        self.min_rival_runs = min_rival_runs
        self.less_known_only = less_known_only

    @staticmethod
    def evidence(view: CandidateView) -> tuple[int, int]:
        """(successes, failures) of the current content, or the seed counters before the first outcome."""
        s, f = _count(view.policy_state.get("s")), _count(view.policy_state.get("f"))
        if s is None or f is None:
            return view.successes, view.failures
        return s, f

    def rank(
        self, region: str, candidates: Sequence[CandidateView], now: float, rng: random.Random
    ) -> list[CandidateView]:
        order = seed_order(candidates, self.min_effective)
        if not order:
            return order  # a miss, as in the seed: the host searches again
        kept = {c.identity for c in order}
        below = sorted((c for c in candidates if c.identity not in kept), key=seed_sort_key)
        tail = below if self.fallback_tail else []
        top = order[0]
        full = [*order, *tail]
        leader = self._clear_winner(top, candidates)
        if leader is not None:
            return [leader, *(c for c in full if c.identity != leader.identity)]
        rivals = [c for c in candidates if c.identity != top.identity]
        if top.reflex and self.min_rival_runs:
            unsure = [c for c in rivals if sum(self.evidence(c)) < self.min_rival_runs]
            if unsure:  # confirm the runner-ups before the incumbent may take the fast path
                probe = min(unsure, key=lambda c: (sum(self.evidence(c)), seed_sort_key(c)))
                return [probe, *(c for c in full if c.identity != probe.identity)]
        draws = {c.identity: rng.betavariate(1 + self.evidence(c)[0], 1 + self.evidence(c)[1])
                 for c in _by_identity(candidates)}
        known = sum(self.evidence(top))
        if self.less_known_only:
            rivals = [c for c in rivals if sum(self.evidence(c)) < known]
        if rivals:
            probe = max(rivals, key=lambda c: (draws[c.identity], c.identity))
            if draws[probe.identity] > draws[top.identity] + self.probe_margin:
                return [probe, *(c for c in full if c.identity != probe.identity)]
        return full

    def _clear_winner(self, top: CandidateView, candidates: Sequence[CandidateView]) -> CandidateView | None:
        """A candidate that beats the seed's first choice with posterior probability >= ``promote``."""
        if self.promote >= 1.0:
            return None
        mine = self.evidence(top)
        mean_top = (1 + mine[0]) / (2 + sum(mine))
        best: tuple[float, str, CandidateView] | None = None
        for c in _by_identity(candidates):
            theirs = self.evidence(c)
            mean = (1 + theirs[0]) / (2 + sum(theirs))
            if c.identity == top.identity or mean <= mean_top:
                continue
            if beta_beats(mine, theirs) >= self.promote and (best is None or mean > best[0]):
                best = (mean, c.identity, c)
        return best[2] if best else None

    def on_outcome(
        self,
        region: str,
        candidates: Sequence[CandidateView],
        used: CandidateView | str,
        outcome: str,
        now: float,
    ) -> dict[str, dict[str, Any]]:
        used_id = identity_of(used)
        won = is_success(outcome)
        for view in candidates:
            if view.identity != used_id:
                continue
            s, f = _count(view.policy_state.get("s")), _count(view.policy_state.get("f"))
            if s is None or f is None:
                # first outcome seen by this policy: the view comes after the seed update, so the
                # seed counters already hold this outcome
                s, f = max(0, view.successes - won), max(0, view.failures - (not won))
            return {view.identity: {"s": s + won, "f": f + (not won)}}
        return {}

    def on_version_change(self, candidate: CandidateView) -> dict[str, Any] | None:
        return {"s": 0, "f": 0}

    def best_probability(self, ranked: Sequence[CandidateView]) -> float:
        """A lower bound on P(the first candidate has the highest success rate) under Beta posteriors."""
        if not ranked:
            return 0.0
        top = self.evidence(ranked[0])
        n0 = self.rival_prior
        mean_top = (1 + top[0]) / (2 + sum(top))
        beaten = 0.0
        for c in ranked[1:]:
            s, f = self.evidence(c)
            # sceptical prior: a rival is presumed as good as the incumbent until its own runs say otherwise
            beaten += beta_beats(top, (s + n0 * mean_top, f + n0 * (1 - mean_top)))
        return max(0.0, 1.0 - beaten)

    def reflex_allowed(self, region: str, ranked: Sequence[CandidateView]) -> tuple[bool, str]:
        few = [c.slug for c in ranked[1:] if sum(self.evidence(c)) < self.min_rival_runs]
        if few:
            return False, f"{', '.join(few)} tried fewer than {self.min_rival_runs} times"
        p_best = self.best_probability(ranked)
        if p_best < self.confidence:
            return False, (f"P({ranked[0].slug if ranked else '?'} is the best candidate) = {p_best:.3f} "
                           f"< {self.confidence}: the other candidates are too close or too little tried")
        return True, ""


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
    confidence = _setting(ctx.settings, "reflex_confidence", 0.95, low=0.5, high=1.0)
    margin = _setting(ctx.settings, "probe_margin", 0.0, low=0.0, high=1.0)
    tail = ctx.settings.get("fallback_tail", False)
    if not isinstance(tail, bool):
        raise ConfigError(f"ranking policy setting 'fallback_tail': expected true or false, got {tail!r}")
    promote = _setting(ctx.settings, "promote_confidence", 0.95, low=0.5, high=1.0)
    rival_prior = _setting(ctx.settings, "rival_prior", 0.0, low=0.0, high=1000.0)
    rival_runs = int(_setting(ctx.settings, "min_rival_runs", 0, low=0, high=1000))
    lko = ctx.settings.get("less_known_only", True)
    return SeedProbePolicy(min_effective=_min_effective(ctx), confidence=confidence, fallback_tail=tail,
                           probe_margin=margin, promote=promote, rival_prior=rival_prior,
                           min_rival_runs=rival_runs, less_known_only=bool(lko))


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
