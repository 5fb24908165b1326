"""Built-in candidate ranking policies (spec §10.2), offered on ``nervous_ranking_policies``.

* ``seed`` — the original skill-cortex order (the default).
* ``seed-probe`` — the seed order plus evidence-driven probes, so a neglected candidate that has
  improved is tried again and can win the top rank back, and a reflex veto for near-equal rivals.
* ``seed-confident`` — ``seed-probe``'s order with a reflex rule on confidence bounds (per content,
  against every rival) in place of the seed's weight gates.
* ``thompson``, ``ucb1``, ``discounted-thompson`` — bandit baselines measured against them by
  ``benchmarks/learning.py``.

Every policy is deterministic given the ``rng`` the engine passes: candidates are visited in
identity order before any draw, so the input order never changes the result.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from nervous.errors import ConfigError
from nervous.plugin.cortex import (
    CandidateView,
    RankingPolicy,
    identity_of,
    is_success,
    seed_order,
    seed_sort_key,
)

if TYPE_CHECKING:
    import random


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


#: pseudo-runs of the sceptical prior on a rival, at the incumbent's success rate (seed-probe veto)
RIVAL_PRIOR = 40.0
#: region outcomes after which a rival's counts weigh half in the seed-confident reflex rule
RIVAL_HALF_LIFE = 30.0


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

    *Evidence.* Per candidate the policy counts the successes and failures of its current content
    (``s``, ``f``; reset on a version or fingerprint change; the seed's lifetime counters stand in
    until the policy has seen an outcome) and remembers the counts of its rivals, so a rival
    that pruning removes is not forgotten by the reflex veto.

    *Order.* The seed's first choice is the incumbent. A candidate whose posterior beats the
    incumbent's with probability >= ``promote`` goes first instead (the evidence overrules a seed
    weight that lags behind). Otherwise one Beta(1 + s, 1 + f) sample is drawn per candidate, and
    when a rival with *less* evidence than the incumbent draws higher, that rival is probed first
    for this one task (Thompson-style: frequent while evidence is thin, ever rarer for a
    candidate that keeps failing, likely again after a version change, possible below the 0.3
    floor). Candidates under the floor follow the seed order as last fallbacks. An empty seed
    order stays a miss, so the host still searches the registries again.

    *Reflex.* The seed gates all apply; on top, the fast path is withheld unless the posterior
    probability that the incumbent is the best candidate, remembered rivals included, is at least
    ``confidence``. Rivals are judged under a sceptical prior: ``rival_prior`` pseudo-runs at the
    incumbent's own success rate, i.e. a rival tried only a few times is presumed as good as the
    incumbent until its own runs say otherwise.
    """

    name: ClassVar[str] = "seed-probe"
    description: ClassVar[str] = "seed order plus posterior-sampled probes of neglected candidates and a reflex veto"

    def __init__(self, *, min_effective: float = 0.3, confidence: float = 0.95, promote: float = 0.8,
                 rival_prior: float = RIVAL_PRIOR, memory: int = 8, fallback_tail: bool = True) -> None:
        super().__init__(min_effective=min_effective)
        for key, value in (("reflex_confidence", confidence), ("promote_confidence", promote)):
            if not 0.5 <= value <= 1.0:
                raise ConfigError(f"seed-probe: {key} must be in [0.5, 1], got {value}")
        if rival_prior < 0 or memory < 0:
            raise ConfigError(f"seed-probe: rival_prior and rival_memory must be >= 0, got {rival_prior}, {memory}")
        self.confidence = confidence
        self.promote = promote
        self.rival_prior = rival_prior
        self.memory = memory
        self.fallback_tail = fallback_tail

    # ------------------------------------------------------------------ evidence

    @staticmethod
    def evidence(view: CandidateView) -> tuple[int, int]:
        """(successes, failures) of the current content, or the seed counters before the first outcome."""
        s, f = _count(view.policy_state.get("s")), _count(view.policy_state.get("f"))
        if s is None or f is None:
            return view.successes, view.failures
        return s, f

    @staticmethod
    def remembered(candidates: Sequence[CandidateView]) -> dict[str, tuple[int, int]]:
        """Rival evidence kept in the candidates' states, for rivals no longer among them."""
        present = {c.identity for c in candidates}
        out: dict[str, tuple[int, int]] = {}
        for view in _by_identity(candidates):
            rivals = view.policy_state.get("rivals")
            if not isinstance(rivals, dict):
                continue
            for key, pair in sorted((k, v) for k, v in rivals.items() if isinstance(k, str)):
                if key in present or not isinstance(pair, list) or len(pair) != 2:
                    continue
                s, f = _count(pair[0]), _count(pair[1])
                if s is not None and f is not None and (key not in out or s + f > sum(out[key])):
                    out[key] = (s, f)
        return out

    # ------------------------------------------------------------------ ranking

    def rank(
        self, region: str, candidates: Sequence[CandidateView], now: float, rng: random.Random
    ) -> list[CandidateView]:
        order = seed_order(candidates, self.min_effective)
        if not order:
            return order  # a miss, as in the seed: the host searches again
        kept = {c.identity for c in order}
        if self.fallback_tail:
            order += sorted((c for c in candidates if c.identity not in kept), key=seed_sort_key)
        top = order[0]
        first = self._clear_winner(top, candidates) or self._probe(top, candidates, rng) or top
        return [first, *(c for c in order if c.identity != first.identity)]

    def _clear_winner(self, top: CandidateView, candidates: Sequence[CandidateView]) -> CandidateView | None:
        """The rival most likely better than the incumbent, if that probability is >= ``promote``."""
        if self.promote >= 1.0:
            return None
        mine = self.evidence(top)
        mean_top = (1 + mine[0]) / (2 + sum(mine))
        best: tuple[float, CandidateView] | None = None
        for c in _by_identity(candidates):
            theirs = self.evidence(c)
            mean = (1 + theirs[0]) / (2 + sum(theirs))
            if c.identity == top.identity or mean <= mean_top or (best is not None and mean <= best[0]):
                continue
            if beta_beats(mine, theirs) >= self.promote:
                best = (mean, c)
        return best[1] if best else None

    def _probe(self, top: CandidateView, candidates: Sequence[CandidateView],
               rng: random.Random) -> CandidateView | None:
        """A less-known rival whose posterior sample beats the incumbent's, if any."""
        draws = {c.identity: rng.betavariate(1 + self.evidence(c)[0], 1 + self.evidence(c)[1])
                 for c in _by_identity(candidates)}
        known = sum(self.evidence(top))
        rivals = [c for c in candidates if c.identity != top.identity and sum(self.evidence(c)) < known]
        if not rivals:
            return None
        probe = max(rivals, key=lambda c: (draws[c.identity], c.identity))
        return probe if draws[probe.identity] > draws[top.identity] else None

    # ------------------------------------------------------------------ learning

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
        counts: dict[str, tuple[int, int]] = {}
        for view in _by_identity(candidates):
            s, f = _count(view.policy_state.get("s")), _count(view.policy_state.get("f"))
            if s is None or f is None:
                s, f = view.successes, view.failures
                if view.identity == used_id:
                    # the view comes after the seed update: its counters already hold this outcome
                    s, f = max(0, s - won), max(0, f - (not won))
            if view.identity == used_id:
                s, f = s + won, f + (not won)
            counts[view.identity] = (s, f)
        remembered = self.remembered(candidates)
        states: dict[str, dict[str, Any]] = {}
        for view in _by_identity(candidates):
            rivals = {k: v for k, v in remembered.items() if k != view.identity}
            rivals.update((k, v) for k, v in counts.items() if k != view.identity)
            # bounded: keep the rivals most likely to matter, i.e. with the best posterior mean
            keep = sorted(rivals.items(), key=lambda kv: (-(1 + kv[1][0]) / (2 + sum(kv[1])), kv[0]))
            s, f = counts[view.identity]
            states[view.identity] = {"s": s, "f": f, "rivals": {k: [a, b] for k, (a, b) in keep[:self.memory]}}
        return states

    def on_version_change(self, candidate: CandidateView) -> dict[str, Any] | None:
        rivals = candidate.policy_state.get("rivals")
        return {"s": 0, "f": 0, "rivals": dict(rivals) if isinstance(rivals, dict) else {}}

    # ------------------------------------------------------------------ reflex

    def best_probability(self, ranked: Sequence[CandidateView]) -> float:
        """A lower bound (union bound) on P(the first candidate is the best) under the sceptical prior."""
        if not ranked:
            return 0.0
        top = self.evidence(ranked[0])
        mean_top = (1 + top[0]) / (2 + sum(top))
        rivals = [self.evidence(c) for c in ranked[1:]]
        if self.memory:
            rivals += list(self.remembered(ranked).values())
        n0 = self.rival_prior
        beaten = sum(beta_beats(top, (s + n0 * mean_top, f + n0 * (1 - mean_top))) for s, f in rivals)
        return max(0.0, 1.0 - beaten)

    def reflex_allowed(self, region: str, ranked: Sequence[CandidateView]) -> tuple[bool, str]:
        p_best = self.best_probability(ranked)
        if p_best < self.confidence:
            return False, (f"P({ranked[0].slug if ranked else '?'} is the best candidate) >= {p_best:.3f} only, "
                           f"below {self.confidence}: its rivals are too close or too little tried")
        return True, ""


def wilson_bounds(successes: float, failures: float, z: float) -> tuple[float, float]:
    """The Wilson score interval of a success rate; ``(0, 1)`` without runs."""
    n = successes + failures
    if n <= 0:
        return 0.0, 1.0
    rate = successes / n
    zz = z * z
    centre = (rate + zz / (2 * n)) / (1 + zz / n)
    half = z / (1 + zz / n) * math.sqrt(rate * (1 - rate) / n + zz / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


class SeedConfidentPolicy(SeedProbePolicy):
    """``seed-probe``'s order with a reflex rule on confidence bounds instead of the seed's weight gates.

    The seed weight is a harsh estimator for a skill used often (a p = 0.8 skill used daily settles
    near 0.2), so the weight >= 0.9 gate rarely opens, and when it does it says nothing about the
    rivals. Here, per candidate and per content (the counts reset on a version or fingerprint
    change), the Wilson interval of the success rate at ``z`` decides:

    * the candidate's lower bound is at least ``min_rate``; and
    * it is above the upper bound of every rival of the region, remembered pruned rivals included,
      and of every rival, so a rival with few runs (wide interval) or a new version (no runs)
      holds the reflex back until its own runs rule it out.

    *Ageing.* A rival's counts only rule it out while they are recent. Each candidate's state
    keeps ``age``, the number of the region's outcomes since it was last tried; a present rival's
    counts are weighted by ``0.5 ** (age / half_life)`` before its interval is taken, so a rival
    that lost its early runs, or has silently improved, widens back until it blocks the reflex
    again. The order then probes it: when the first candidate's own evidence would allow the
    reflex and a rival blocks it only because its evidence aged, that rival goes first for one
    task (the stalest first), and its fresh run either rules it out again for a while or brings
    its new version in. The probe is skipped where it cannot restore the reflex (a close rival
    blocks on fresh runs, or a pruned rival blocks). Age counts the region's tasks, not days: the
    exposure that matters is how many tasks the holder takes on faith, and an idle region takes
    none. Rivals pruned from the region age the same way (``rival_ages`` in every state): nobody
    can probe them, so once their counts fade they keep the reflex off, because a pruned rival is
    exactly the one whose improvement would go unseen. ``pruned_max_age`` voids their runs sooner.

    The engine promotes on a success when the rule holds, keeps the flag while it holds, and
    demotes as soon as a failure or a rival's evidence breaks it; the fast path re-checks it. The
    read-only, clean-scan, source and blacklist conditions are the engine's and always apply.
    """

    name: ClassVar[str] = "seed-confident"
    description: ClassVar[str] = "seed-probe's order with a reflex rule on Wilson confidence bounds"
    reflex_rule: ClassVar[bool] = True

    def __init__(self, *, min_effective: float = 0.3, promote: float = 0.8, memory: int = 8,
                 fallback_tail: bool = True, z: float = 1.96, min_rate: float = 0.8,
                 half_life: float = RIVAL_HALF_LIFE,
                 pruned_max_age: int | None = None) -> None:
        super().__init__(min_effective=min_effective, promote=promote, memory=memory, fallback_tail=fallback_tail)
        if not 0 < z <= 10 or not 0 <= min_rate <= 1 or not half_life > 0:
            raise ConfigError(f"seed-confident: reflex_z must be in (0, 10], reflex_min_rate in [0, 1] and "
                              f"rival_half_life > 0, got {z}, {min_rate}, {half_life}")
        if pruned_max_age is not None and pruned_max_age < 0:
            raise ConfigError(f"seed-confident: pruned_rival_max_age must be >= 0, got {pruned_max_age}")
        self.z = z
        self.min_rate = min_rate
        self.half_life = half_life
        self.pruned_max_age = pruned_max_age

    # ------------------------------------------------------------------ ageing

    @staticmethod
    def age(view: CandidateView) -> int:
        """The region's outcomes since this candidate was last tried (0 when unknown)."""
        return _count(view.policy_state.get("age")) or 0

    def aged(self, s: float, f: float, age: int, *, pruned: bool = False) -> tuple[float, float]:
        """(successes, failures) weighted down by ``age``, the region's outcomes since the last run."""
        if pruned and self.pruned_max_age is not None and age >= self.pruned_max_age:
            return 0.0, 0.0  # it cannot be tried again: past this age its old runs say nothing
        weight = 0.5 ** (age / self.half_life)
        return s * weight, f * weight

    def aged_evidence(self, view: CandidateView) -> tuple[float, float]:
        """(successes, failures) of the current content, weighted down by the time since its last run."""
        return self.aged(*self.evidence(view), self.age(view))

    @staticmethod
    def remembered_ages(candidates: Sequence[CandidateView]) -> dict[str, int]:
        """The age of each rival in the candidates' memories (the largest where they disagree)."""
        out: dict[str, int] = {}
        for view in _by_identity(candidates):
            ages = view.policy_state.get("rival_ages")
            if not isinstance(ages, dict):
                continue
            for key, value in ages.items():
                age = _count(value)
                if isinstance(key, str) and age is not None and age > out.get(key, -1):
                    out[key] = age
        return out

    def on_outcome(
        self,
        region: str,
        candidates: Sequence[CandidateView],
        used: CandidateView | str,
        outcome: str,
        now: float,
    ) -> dict[str, dict[str, Any]]:
        states = super().on_outcome(region, candidates, used, outcome, now)
        used_id = identity_of(used)
        # every rival ages with the region's outcomes, present or pruned: a pruned rival's evidence
        # describes content nobody has tried since, exactly like a present one's
        ages = {k: v + 1 for k, v in self.remembered_ages(candidates).items()}
        for view in candidates:
            ages[view.identity] = 0 if view.identity == used_id else self.age(view) + 1
        for view in candidates:
            if view.identity in states:
                state = states[view.identity]
                state["age"] = ages[view.identity]
                state["rival_ages"] = {k: ages[k] for k in sorted(state["rivals"]) if k in ages}
        return states

    def on_version_change(self, candidate: CandidateView) -> dict[str, Any] | None:
        state = super().on_version_change(candidate) or {}
        ages = candidate.policy_state.get("rival_ages")
        return {**state, "age": self.age(candidate), "rival_ages": dict(ages) if isinstance(ages, dict) else {}}

    # ------------------------------------------------------------------ order: probe what aged

    def rank(
        self, region: str, candidates: Sequence[CandidateView], now: float, rng: random.Random
    ) -> list[CandidateView]:
        order = super().rank(region, candidates, now, rng)
        if not order:
            return order
        stale = self._stale_blocker(order)
        if stale is None:
            return order
        return [stale, *(c for c in order if c.identity != stale.identity)]

    def _stale_blocker(self, ranked: Sequence[CandidateView]) -> CandidateView | None:
        """The stalest rival that blocks the first candidate's reflex only because its evidence aged."""
        top = ranked[0]
        s, f = self.evidence(top)
        low, _high = wilson_bounds(s, f, self.z)
        if round(low, 10) < round(self.min_rate, 10):
            return None
        blockers = []
        for c in _by_identity(ranked[1:]):
            if c.identity == top.identity:
                continue
            rs, rf = self.evidence(c)
            _l, raw_high = wilson_bounds(rs, rf, self.z)
            _l, aged_high = wilson_bounds(*self.aged_evidence(c), self.z)
            if round(raw_high, 10) >= round(low, 10):
                if (1 + rs) / (2 + rs + rf) >= low:
                    return None  # a close rival blocks on fresh evidence: no probe restores the reflex
                continue  # little tried: left to the probes of the order
            if round(low, 10) <= round(aged_high, 10):
                blockers.append(c)
        if blockers and self.memory:
            present = {c.identity for c in ranked}
            ages = self.remembered_ages(ranked)
            for key, (rs, rf) in self.remembered(ranked).items():
                if key not in present and round(wilson_bounds(*self.aged(rs, rf, ages.get(key, 0), pruned=True),
                                                              self.z)[1], 10) >= round(low, 10):
                    return None  # a pruned rival blocks, and it cannot be probed
        return max(blockers, key=lambda c: (self.age(c), c.identity)) if blockers else None

    def reflex_allowed(self, region: str, ranked: Sequence[CandidateView]) -> tuple[bool, str]:
        if not ranked:
            return False, "no candidate"
        top = ranked[0]
        s, f = self.evidence(top)
        low, _high = wilson_bounds(s, f, self.z)
        if round(low, 10) < round(self.min_rate, 10):
            return False, (f"{top.slug}: lower bound {low:.3f} of its success rate ({s}/{s + f} for this "
                           f"content) is below {self.min_rate}")
        rivals: dict[str, tuple[str, tuple[float, float]]] = {
            c.identity: (c.slug, self.aged_evidence(c)) for c in ranked[1:] if c.identity != top.identity}
        if self.memory:
            ages = self.remembered_ages(ranked)
            rivals.update((k, (k, self.aged(*v, ages.get(k, 0), pruned=True))) for k, v in self.remembered(ranked).items()
                          if k not in rivals and k != top.identity)
        for key in sorted(rivals):
            label, (rs, rf) = rivals[key]
            _rlow, rhigh = wilson_bounds(rs, rf, self.z)
            if round(rhigh, 10) >= round(low, 10):
                return False, (f"{top.slug}'s lower bound {low:.3f} does not beat {label}'s upper bound "
                               f"{rhigh:.3f} ({rs:g}/{rs + rf:g} runs, weighted by age)")
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
    tail = ctx.settings.get("fallback_tail", True)
    if not isinstance(tail, bool):
        raise ConfigError(f"ranking policy setting 'fallback_tail': expected true or false, got {tail!r}")
    return SeedProbePolicy(
        min_effective=_min_effective(ctx),
        confidence=_setting(ctx.settings, "reflex_confidence", 0.95, low=0.5, high=1.0),
        promote=_setting(ctx.settings, "promote_confidence", 0.8, low=0.5, high=1.0),
        rival_prior=_setting(ctx.settings, "rival_prior", RIVAL_PRIOR, low=0.0, high=10_000.0),
        memory=int(_setting(ctx.settings, "rival_memory", 8, low=0, high=64)),
        fallback_tail=tail,
    )


def _seed_confident(ctx: Any) -> SeedConfidentPolicy:
    tail = ctx.settings.get("fallback_tail", True)
    if not isinstance(tail, bool):
        raise ConfigError(f"ranking policy setting 'fallback_tail': expected true or false, got {tail!r}")
    return SeedConfidentPolicy(
        min_effective=_min_effective(ctx),
        promote=_setting(ctx.settings, "promote_confidence", 0.8, low=0.5, high=1.0),
        memory=int(_setting(ctx.settings, "rival_memory", 8, low=0, high=64)),
        fallback_tail=tail,
        z=_setting(ctx.settings, "reflex_z", 1.96, low=0.1, high=10.0),
        min_rate=_setting(ctx.settings, "reflex_min_rate", 0.8, low=0.0, high=1.0),
        half_life=_setting(ctx.settings, "rival_half_life", RIVAL_HALF_LIFE, low=0.5, high=100_000.0),
        pruned_max_age=(int(_setting(ctx.settings, "pruned_rival_max_age", 0, low=0, high=100_000))
                        if "pruned_rival_max_age" in ctx.settings else None),
    )


def _thompson(ctx: Any) -> ThompsonPolicy:
    return ThompsonPolicy(min_effective=_min_effective(ctx))


def _ucb1(ctx: Any) -> UCB1Policy:
    return UCB1Policy(min_effective=_min_effective(ctx))


def _discounted_thompson(ctx: Any) -> DiscountedThompsonPolicy:
    gamma = _setting(ctx.settings, "gamma", 0.95, low=0.0, high=1.0)
    return DiscountedThompsonPolicy(min_effective=_min_effective(ctx), gamma=gamma)


POLICIES: tuple[type[RankingPolicy], ...] = (
    SeedPolicy, SeedProbePolicy, SeedConfidentPolicy, ThompsonPolicy, UCB1Policy, DiscountedThompsonPolicy,
)
_FACTORIES = {
    "seed": _seed,
    "seed-probe": _seed_probe,
    "seed-confident": _seed_confident,
    "thompson": _thompson,
    "ucb1": _ucb1,
    "discounted-thompson": _discounted_thompson,
}


def _factory(name: str, ctx: Any) -> RankingPolicy:
    return _FACTORIES[name](ctx)
