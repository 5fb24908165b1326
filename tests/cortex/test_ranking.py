"""Ranking policies (spec §10): the seed order exactly, the bandit baselines, the probe rule."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nervous_plugins.ranking import (
    DiscountedThompsonPolicy,
    SeedPolicy,
    SeedProbePolicy,
    ThompsonPolicy,
    UCB1Policy,
)

from nervous.config import Config
from nervous.cortex.policy import CandidateView, RankingPolicy, at_least, seed_order
from nervous.errors import ConfigError, ProviderError
from nervous.manager import PluginManager

DAY = 86_400
NOW = 1_772_000_000.0


def view(slug: str, weight: float = 0.5, effective: float | None = None, *, successes: int = 0,
         failures: int = 0, state: dict[str, Any] | None = None, last_used: float | None = NOW,
         reflex: bool = False) -> CandidateView:
    return CandidateView(
        identity=f"clawhub:{slug}", slug=slug, source="clawhub", version="1.0.0", fingerprint="f" * 64,
        weight=weight, effective_weight=weight if effective is None else effective, successes=successes,
        failures=failures, runs_total=successes + failures, consecutive_successes=0, last_used=last_used,
        reflex=reflex, tags=(), policy_state=state or {})


def slugs(views: list[CandidateView]) -> list[str]:
    return [v.slug for v in views]


# ------------------------------------------------------------------------------ selection


def test_every_builtin_policy_is_offered_and_seed_is_the_default(nervous_pm: Any) -> None:
    names = set(nervous_pm.providers("ranking policy"))
    assert {"seed", "seed-probe", "thompson", "ucb1", "discounted-thompson"} <= names
    assert nervous_pm.ranking_policy().name == "seed"
    for name in names:
        policy = nervous_pm.ranking_policy(name)
        assert isinstance(policy, RankingPolicy) and policy.name == name


def test_unknown_policy_lists_the_available_ones() -> None:
    cfg = Config()
    cfg.cortex.ranking_policy = "greedy-ish"
    pm = PluginManager(cfg, autoload=False)
    with pytest.raises(ProviderError, match="available: .*seed-probe"):
        pm.ranking_policy()


def test_policy_settings_are_validated_and_applied() -> None:
    cfg = Config()
    cfg.plugins.settings["seed-probe"] = {"probe_base": 8, "probe_cap": 64, "probe_idle_days": 30}
    cfg.plugins.settings["discounted-thompson"] = {"gamma": 0.9}
    pm = PluginManager(cfg, autoload=False)
    probe = pm.ranking_policy("seed-probe")
    assert (probe.base, probe.cap, probe.max_idle_days) == (8, 64, 30)
    assert pm.ranking_policy("discounted-thompson").gamma == 0.9
    bad = Config()
    bad.plugins.settings["discounted-thompson"] = {"gamma": 1.5}
    with pytest.raises(ConfigError, match="gamma"):
        PluginManager(bad, autoload=False).ranking_policy("discounted-thompson")
    with pytest.raises(ConfigError, match="probe_base"):
        SeedProbePolicy(base=10, cap=5)


def test_phase1_floor_comes_from_the_configuration() -> None:
    cfg = Config()
    cfg.cortex.phase1_min_effective = 0.5
    policy = PluginManager(cfg, autoload=False).ranking_policy("seed")
    assert slugs(policy.rank("r", [view("a", 0.45), view("b", 0.55)], NOW, random.Random(0))) == ["b"]


# ------------------------------------------------------------------------------ seed


def test_seed_drops_below_the_floor_and_sorts_by_effective_weight() -> None:
    cands = [view("low", 0.9, 0.29), view("mid", 0.6), view("top", 0.95, 0.9025), view("edge", 0.3)]
    ranked = SeedPolicy().rank("r", cands, NOW, random.Random(1))
    assert slugs(ranked) == ["top", "mid", "edge"]  # 0.3 is kept (drop only if < 0.3)


def test_seed_floor_is_compared_on_ten_decimals() -> None:
    ranked = SeedPolicy().rank("r", [view("a", 0.2999999999999)], NOW, random.Random(0))
    assert slugs(ranked) == ["a"]
    assert at_least(0.8999999999999, 0.9) and not at_least(0.89999, 0.9)


def test_seed_ties_break_on_stored_weight_then_successes_then_slug() -> None:
    cands = [
        view("d", 0.6, 0.5, successes=9),
        view("c", 0.8, 0.5, successes=1),
        view("b", 0.6, 0.5, successes=3),
        view("a", 0.6, 0.5, successes=3),
    ]
    assert slugs(SeedPolicy().rank("r", cands, NOW, random.Random(0))) == ["c", "d", "a", "b"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1), st.integers(0, 20)), min_size=0, max_size=6,
                unique_by=lambda t: t[0]))
def test_seed_is_the_original_rule_whatever_the_input_order(rows: list[tuple[float, float, int]]) -> None:
    cands = [view(f"s{i}", w, w * d, successes=n) for i, (w, d, n) in enumerate(rows)]
    ranked = SeedPolicy().rank("r", cands, NOW, random.Random(0))
    shuffled = list(cands)
    random.Random(3).shuffle(shuffled)
    assert slugs(SeedPolicy().rank("r", shuffled, NOW, random.Random(9))) == slugs(ranked)
    assert all(round(v.effective_weight, 10) >= 0.3 for v in ranked)
    assert len(ranked) == sum(round(c.effective_weight, 10) >= 0.3 for c in cands)
    effs = [v.effective_weight for v in ranked]
    assert effs == sorted(effs, reverse=True)
    assert SeedPolicy().on_outcome("r", cands, cands[0] if cands else "x", "success", NOW) == {}


# ------------------------------------------------------------------------------ bandits


def test_thompson_and_ucb1_are_deterministic_given_rng_and_keep_every_candidate() -> None:
    cands = [view("a", 0.1, successes=2, failures=8), view("b", 0.9, successes=8, failures=2), view("c", 0.5)]
    for policy in (ThompsonPolicy(), UCB1Policy(), DiscountedThompsonPolicy()):
        first = slugs(policy.rank("r", cands, NOW, random.Random(42)))
        again = slugs(policy.rank("r", list(reversed(cands)), NOW, random.Random(42)))
        assert first == again and sorted(first) == ["a", "b", "c"]


def test_thompson_prefers_the_better_record_most_of_the_time() -> None:
    cands = [view("bad", successes=2, failures=18), view("good", successes=18, failures=2)]
    rng = random.Random(5)
    tops = [ThompsonPolicy().rank("r", cands, NOW, rng)[0].slug for _ in range(200)]
    assert tops.count("good") > 190


def test_ucb1_tries_untried_candidates_first_then_uses_the_bound() -> None:
    cands = [view("tried", successes=5, failures=0), view("new")]
    assert slugs(UCB1Policy().rank("r", cands, NOW, random.Random(0)))[0] == "new"
    # N = 12 region uses: a: 9/10 + sqrt(2 ln 12 / 10) = 1.605; b: 1/2 + sqrt(2 ln 12 / 2) = 2.076
    cands = [view("a", successes=9, failures=1), view("b", successes=1, failures=1)]
    assert slugs(UCB1Policy().rank("r", cands, NOW, random.Random(0))) == ["b", "a"]


def test_discounted_thompson_update_matches_the_spec_formula() -> None:
    policy = DiscountedThompsonPolicy()
    used = view("u", state={"alpha": 3.0, "beta": 2.0})
    other = view("o", state={"alpha": 5.0, "beta": 1.0})
    fresh = view("n")
    states = policy.on_outcome("r", [used, other, fresh], used, "success", NOW)
    assert states["clawhub:u"] == {"alpha": pytest.approx(1 + 0.95 * 2 + 1), "beta": pytest.approx(1 + 0.95 * 1)}
    assert states["clawhub:o"] == {"alpha": pytest.approx(1 + 0.95 * 4), "beta": pytest.approx(1.0)}
    assert states["clawhub:n"] == {"alpha": 1.0, "beta": 1.0}
    states = policy.on_outcome("r", [used], "clawhub:u", "runtime_error", NOW)
    assert states["clawhub:u"] == {"alpha": pytest.approx(1 + 0.95 * 2), "beta": pytest.approx(1 + 0.95 + 1)}
    assert policy.on_version_change(used) == {"alpha": 1.0, "beta": 1.0}


def test_discounted_thompson_has_no_floor() -> None:
    ranked = DiscountedThompsonPolicy().rank("r", [view("low", 0.05)], NOW, random.Random(0))
    assert slugs(ranked) == ["low"]


# ------------------------------------------------------------------------------ seed-probe


def test_seed_probe_is_the_seed_order_while_nothing_is_due() -> None:
    cands = [view("top", 0.9), view("mid", 0.6), view("low", 0.2)]
    assert slugs(SeedProbePolicy().rank("r", cands, NOW, random.Random(0))) == ["top", "mid"]


def test_seed_probe_retries_a_neglected_candidate_below_the_floor_once_due() -> None:
    policy = SeedProbePolicy(base=4, cap=16)
    cands = [view("top", 0.9), view("low", 0.2, state={"idle": 4, "backoff": 4, "follow": False})]
    assert slugs(policy.rank("r", cands, NOW, random.Random(0))) == ["low", "top"]


def test_seed_probe_probes_a_candidate_left_idle_too_long() -> None:
    policy = SeedProbePolicy(base=32, cap=64, max_idle_days=90)
    old = view("old", 0.4, 0.2, last_used=NOW - 91 * DAY)
    recent = view("old", 0.4, 0.2, last_used=NOW - 89 * DAY)
    assert slugs(policy.rank("r", [view("top", 0.9), old], NOW, random.Random(0)))[0] == "old"
    assert slugs(policy.rank("r", [view("top", 0.9), recent], NOW, random.Random(0))) == ["top"]


def test_seed_probe_backoff_doubles_on_failure_and_follows_up_on_success() -> None:
    policy = SeedProbePolicy(base=4, cap=16)
    top = view("top", 0.9, state={"idle": 0})
    low = view("low", 0.2, state={"idle": 4, "backoff": 4, "follow": False})
    states = policy.on_outcome("r", [top, low], low, "runtime_error", NOW)
    assert states["clawhub:low"]["backoff"] == 8 and states["clawhub:low"]["follow"] is False
    assert states["clawhub:top"]["idle"] == 1
    capped = view("low", 0.2, state={"idle": 16, "backoff": 16})
    assert policy.on_outcome("r", [capped], capped, "api_error", NOW)["clawhub:low"]["backoff"] == 16
    states = policy.on_outcome("r", [top, low], low, "success", NOW)
    assert states["clawhub:low"]["follow"] is True
    follow = view("low", 0.3, state=states["clawhub:low"])
    assert slugs(policy.rank("r", [top, follow], NOW, random.Random(0)))[0] == "low"
    # an ordinary success of the exploited candidate resets its back-off
    worn = view("top", 0.9, state={"idle": 0, "backoff": 16})
    assert policy.on_outcome("r", [worn], worn, "success", NOW)["clawhub:top"]["backoff"] == 4


def test_seed_probe_starts_a_follow_up_on_new_content() -> None:
    assert SeedProbePolicy(base=4).on_version_change(view("x"))["follow"] is True


def test_seed_probe_probe_share_is_bounded_for_a_candidate_that_stays_bad() -> None:
    """A candidate that always fails is probed O(log n + n / cap) times in n region uses."""
    policy = SeedProbePolicy(base=4, cap=64, max_idle_days=10_000)
    states: dict[str, dict[str, Any]] = {}
    probes = 0
    for _ in range(2000):
        cands = [view("top", 0.9, state=states.get("clawhub:top")),
                 view("bad", 0.35, state=states.get("clawhub:bad"))]
        used = policy.rank("r", cands, NOW, random.Random(0))[0]
        probes += used.slug == "bad"
        outcome = "success" if used.slug == "top" else "runtime_error"
        states = policy.on_outcome("r", cands, used, outcome, NOW)
    assert 2000 / 64 <= probes <= 2000 / 64 + 10


def test_seed_probe_ignores_malformed_state() -> None:
    policy = SeedProbePolicy(base=4, cap=16)
    junk = view("low", 0.2, state={"idle": "many", "backoff": -3, "follow": None, "at": "yesterday"})
    assert slugs(policy.rank("r", [view("top", 0.9), junk], NOW, random.Random(0))) == ["top"]
    assert policy.on_outcome("r", [junk], junk, "success", NOW)["clawhub:low"]["backoff"] == 4


def test_seed_order_helper_matches_the_seed_policy() -> None:
    cands = [view("a", 0.4), view("b", 0.7), view("c", 0.1)]
    assert slugs(seed_order(cands)) == slugs(SeedPolicy().rank("r", cands, NOW, random.Random(0)))
