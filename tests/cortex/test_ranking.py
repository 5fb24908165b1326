"""Ranking policies (spec §10): the seed order exactly, the bandit baselines, the probe rule."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nervous_plugins.ranking import (
    DiscountedThompsonPolicy,
    SeedConfidentPolicy,
    SeedPolicy,
    SeedProbePolicy,
    ThompsonPolicy,
    UCB1Policy,
    beta_beats,
    wilson_bounds,
)

from nervous.errors import ConfigError, ProviderError
from nervous.kernel.config import Config
from nervous.kernel.cortex.policy import CandidateView, RankingPolicy, at_least, seed_order
from nervous.kernel.manager import PluginManager

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
    assert {"seed", "seed-probe", "seed-confident", "thompson", "ucb1", "discounted-thompson"} <= names
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
    cfg.plugins.settings["seed-probe"] = {"reflex_confidence": 0.9, "promote_confidence": 0.99, "rival_prior": 5,
                                          "rival_memory": 3, "fallback_tail": False}
    cfg.plugins.settings["discounted-thompson"] = {"gamma": 0.9}
    pm = PluginManager(cfg, autoload=False)
    probe = pm.ranking_policy("seed-probe")
    assert (probe.confidence, probe.promote, probe.rival_prior, probe.memory, probe.fallback_tail) == (
        0.9, 0.99, 5.0, 3, False)
    assert pm.ranking_policy("discounted-thompson").gamma == 0.9
    bad = Config()
    bad.plugins.settings["discounted-thompson"] = {"gamma": 1.5}
    with pytest.raises(ConfigError, match="gamma"):
        PluginManager(bad, autoload=False).ranking_policy("discounted-thompson")
    for key, value in (("reflex_confidence", 0.2), ("rival_prior", -1), ("fallback_tail", "yes")):
        bad = Config()
        bad.plugins.settings["seed-probe"] = {key: value}
        with pytest.raises(ConfigError, match=key):
            PluginManager(bad, autoload=False).ranking_policy("seed-probe")
    with pytest.raises(ConfigError, match="promote_confidence"):
        SeedProbePolicy(promote=0.1)


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


def ev(s: int, f: int, **rivals: tuple[int, int]) -> dict[str, Any]:
    """A seed-probe state: current-content counts and remembered rivals."""
    return {"s": s, "f": f, "rivals": {f"clawhub:{k}": list(v) for k, v in rivals.items()}}


def firsts(policy: RankingPolicy, cands: list[CandidateView], n: int = 400, seed: int = 0) -> dict[str, int]:
    rng = random.Random(seed)
    out: dict[str, int] = {}
    for _ in range(n):
        slug = policy.rank("r", cands, NOW, rng)[0].slug
        out[slug] = out.get(slug, 0) + 1
    return out


def test_beta_beats_matches_closed_forms() -> None:
    assert beta_beats((0, 0), (0, 0)) == pytest.approx(0.5, abs=1e-3)
    # X ~ Beta(2, 1) (density 2x) against a uniform incumbent: P(X > Y) = integral of 2x * x = 2/3
    assert beta_beats((0, 0), (1, 0)) == pytest.approx(2 / 3, abs=1e-3)
    assert beta_beats((1, 0), (0, 0)) == pytest.approx(1 / 3, abs=1e-3)
    assert beta_beats((60, 2), (0, 5)) < 1e-4 and beta_beats((0, 5), (60, 2)) > 0.9999


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 60), st.integers(0, 60), st.integers(0, 60), st.integers(0, 60))
def test_beta_beats_is_a_probability_and_complementary(a: int, b: int, c: int, d: int) -> None:
    p, q = beta_beats((a, b), (c, d)), beta_beats((c, d), (a, b))
    assert 0.0 <= p <= 1.0 and p + q == pytest.approx(1.0, abs=2e-3)


def test_seed_probe_keeps_the_seed_order_when_the_evidence_agrees() -> None:
    policy = SeedProbePolicy()
    cands = [view("top", 0.9, state=ev(60, 3)), view("mid", 0.6, state=ev(20, 15)),
             view("low", 0.2, state=ev(1, 12))]
    assert firsts(policy, cands) == {"top": 400}
    # below-floor candidates follow as last fallbacks; without the tail they are dropped as in the seed
    assert slugs(policy.rank("r", cands, NOW, random.Random(0))) == ["top", "mid", "low"]
    assert slugs(SeedProbePolicy(fallback_tail=False).rank("r", cands, NOW, random.Random(0))) == ["top", "mid"]


def test_seed_probe_an_empty_seed_order_stays_a_miss() -> None:
    cands = [view("a", 0.2, state=ev(9, 1)), view("b", 0.1)]
    assert SeedProbePolicy().rank("r", cands, NOW, random.Random(0)) == []


def test_seed_probe_probes_a_little_known_rival_even_below_the_floor() -> None:
    policy = SeedProbePolicy()
    top = view("top", 0.9, state=ev(40, 8))  # about 0.83
    fresh = view("new", 0.2, state=ev(0, 0))  # e.g. a new version: P(sample beats the incumbent) ~ 0.17
    share = firsts(policy, [top, fresh]).get("new", 0) / 400
    assert 0.08 < share < 0.3
    # a rival that keeps failing is probed ever more rarely
    failed = view("new", 0.2, state=ev(0, 6))
    assert firsts(policy, [top, failed]).get("new", 0) == 0


def test_seed_probe_probes_only_rivals_with_less_evidence_than_the_incumbent() -> None:
    policy = SeedProbePolicy(promote=1.0)
    newcomer = view("newcomer", 0.6, state=ev(3, 0))
    veteran = view("veteran", 0.5, state=ev(80, 14))  # better known, not explored against a newcomer
    assert firsts(policy, [newcomer, veteran]) == {"newcomer": 400}


def test_seed_probe_puts_a_clear_winner_first() -> None:
    lagging = view("lagging", 0.35, state=ev(45, 5))  # seed weight lags behind the evidence
    lucky = view("lucky", 0.6, state=ev(2, 1))
    assert slugs(SeedProbePolicy().rank("r", [lucky, lagging], NOW, random.Random(0))) == ["lagging", "lucky"]
    # with promotion off the seed order stands (and the veteran is not probed)
    assert firsts(SeedProbePolicy(promote=1.0), [lucky, lagging]) == {"lucky": 400}


def test_seed_probe_is_deterministic_given_rng_whatever_the_input_order() -> None:
    cands = [view("a", 0.7, state=ev(5, 2)), view("b", 0.5, state=ev(1, 1)), view("c", 0.25, state=ev(0, 0))]
    policy = SeedProbePolicy()
    for seed in range(30):
        assert slugs(policy.rank("r", cands, NOW, random.Random(seed))) == slugs(
            policy.rank("r", list(reversed(cands)), NOW, random.Random(seed)))


def test_seed_probe_counts_current_content_and_remembers_rivals() -> None:
    policy = SeedProbePolicy(memory=2)
    # first outcome seen by the policy: the seed counters (already updated) stand in
    used = view("used", 0.6, successes=4, failures=1)
    other = view("other", 0.4, state=ev(2, 3, gone=(7, 1)))
    states = policy.on_outcome("r", [used, other], used, "success", NOW)
    assert states["clawhub:used"] == {"s": 4, "f": 1, "rivals": {"clawhub:gone": [7, 1], "clawhub:other": [2, 3]}}
    assert states["clawhub:other"] == {"s": 2, "f": 3, "rivals": {"clawhub:gone": [7, 1], "clawhub:used": [4, 1]}}
    again = policy.on_outcome("r", [view("used", 0.6, state=states["clawhub:used"]), other], "clawhub:used",
                              "runtime_error", NOW)
    assert again["clawhub:used"]["s"] == 4 and again["clawhub:used"]["f"] == 2
    # memory is bounded and keeps the rivals with the best posterior mean
    crowd = [view(f"c{i}", 0.5, state=ev(i, 5 - i)) for i in range(6)]
    kept = policy.on_outcome("r", crowd, crowd[0], "success", NOW)["clawhub:c0"]["rivals"]
    assert set(kept) == {"clawhub:c5", "clawhub:c4"}


def test_seed_probe_new_content_starts_fresh_counts_and_keeps_rival_memory() -> None:
    old = view("x", state=ev(30, 2, y=(3, 3)))
    assert SeedProbePolicy().on_version_change(old) == {"s": 0, "f": 0, "rivals": {"clawhub:y": [3, 3]}}


def test_seed_probe_ignores_malformed_state() -> None:
    policy = SeedProbePolicy()
    junk = view("low", 0.2, successes=1, failures=2,
                state={"s": "many", "f": -3, "rivals": {"clawhub:z": "bad", "clawhub:w": [1, True], 5: [1, 1]}})
    assert policy.evidence(junk) == (1, 2)
    assert policy.remembered([junk]) == {}
    assert slugs(policy.rank("r", [view("top", 0.9, state=ev(30, 1)), junk], NOW, random.Random(0)))[0] == "top"
    assert policy.on_outcome("r", [junk], junk, "success", NOW)["clawhub:low"]["s"] == 1


def test_seed_probe_vetoes_reflex_when_a_rival_is_close_or_little_tried() -> None:
    policy = SeedProbePolicy()
    top = view("top", 0.95, state=ev(200, 4), reflex=True)
    assert policy.reflex_allowed("r", [top, view("bad", 0.3, state=ev(10, 190))]) == (True, "")
    allowed, why = policy.reflex_allowed("r", [top, view("close", 0.5, state=ev(190, 5))])
    assert not allowed and "too close or too little tried" in why
    # one failed try proves little: under the sceptical prior the rival may still be as good
    assert not policy.reflex_allowed("r", [top, view("once", 0.3, state=ev(0, 1))])[0]
    assert SeedProbePolicy(rival_prior=0).reflex_allowed("r", [top, view("once", 0.3, state=ev(0, 1))])[0]
    # a rival that pruning removed is remembered by the incumbent
    alone = view("top", 0.95, state=ev(200, 4, gone=(190, 5)), reflex=True)
    assert not policy.reflex_allowed("r", [alone])[0]
    assert SeedProbePolicy(memory=0).reflex_allowed("r", [alone])[0]


def test_seed_order_helper_matches_the_seed_policy() -> None:
    cands = [view("a", 0.4), view("b", 0.7), view("c", 0.1)]
    assert slugs(seed_order(cands)) == slugs(SeedPolicy().rank("r", cands, NOW, random.Random(0)))


# ------------------------------------------------------------------------------ engine hook


def _cortex(policy: str) -> Any:
    from nervous.engines.cortex import Cortex
    from nervous.kernel.storage import MemoryStore

    cfg = Config()
    cfg.cortex.ranking_policy = policy
    return Cortex(PluginManager(cfg, autoload=False), MemoryStore())


def _teach(cortex: Any) -> float:
    """A reflex-ready ``reader`` and a ``twin`` that failed its only try; returns the time of the last run."""
    cortex.record_outcome("notes", "twin", "api_error", version="1.0.0", fingerprint="b" * 64,
                          tags=("network:api.example.com",), scan_decision="allow", now=NOW)
    at = NOW
    for i in range(20):  # one success per 8 days: the window is empty each time
        at = NOW + (i + 1) * 8 * DAY
        cortex.record_outcome("notes", "reader", "success", version="1.0.0", fingerprint="a" * 64,
                              tags=("network:api.example.com",), scan_decision="allow",
                              task="summarize my meeting notes", now=at)
    return at


def test_seed_reflex_is_unchanged_by_the_policy_hook() -> None:
    cortex = _cortex("seed")
    at = _teach(cortex)
    ranked = cortex.rank_region("notes", now=at + DAY)
    assert slugs(ranked) == ["reader"] and ranked[0].reflex  # twin idled under the 0.3 floor
    assert cortex.fast_path_check("notes", ranked, now=at + DAY) == []
    p = cortex.perceive("please summarize these notes", now=at + DAY)
    assert p.hit and p.reflex and p.reflex_candidate == "clawhub:reader"


def test_seed_probe_withholds_reflex_through_the_engine_and_says_why() -> None:
    cortex = _cortex("seed-probe")
    at = _teach(cortex)
    ranked = cortex.rank_region("notes", now=at + DAY, rng=random.Random(0))
    assert slugs(ranked) == ["reader", "twin"] and ranked[0].reflex  # twin is a last fallback
    reasons = cortex.fast_path_check("notes", ranked, now=at + DAY)
    assert len(reasons) == 1 and reasons[0].startswith("ranking policy withholds reflex: P(reader is the best")
    p = cortex.perceive("please summarize these notes", now=at + DAY, rng=random.Random(0))
    assert p.hit and not p.reflex and p.reflex_reasons == tuple(reasons)
    # the local gates are reported first, and an unknown first candidate is refused
    idle = cortex.rank_region("notes", now=at + 30 * DAY, rng=random.Random(0))
    assert any("effective weight" in r for r in cortex.fast_path_check("notes", idle, now=at + 30 * DAY))
    assert cortex.fast_path_check("notes", [view("stranger")], now=at) != []
    assert cortex.fast_path_check("notes", [], now=at) == ["no candidate"]


def test_registration_names_and_describes_every_policy_as_the_classes_do() -> None:
    from nervous_plugins import ranking
    from nervous_plugins.builtin import ranking as registration

    assert registration.POLICIES == tuple((cls.name, cls.description) for cls in ranking.POLICIES)


# ------------------------------------------------------------------------------ seed-confident


def test_wilson_bounds_match_the_textbook_interval() -> None:
    assert wilson_bounds(0, 0, 1.96) == (0.0, 1.0)
    low, high = wilson_bounds(8, 2, 1.96)
    assert round(low, 3) == 0.490 and round(high, 3) == 0.943
    low, high = wilson_bounds(50, 0, 1.96)
    assert high == 1.0 and round(low, 3) == 0.929
    assert wilson_bounds(0, 50, 1.96)[0] == 0.0


def test_seed_confident_rule_needs_a_high_lower_bound_that_beats_every_rival() -> None:
    policy = SeedConfidentPolicy()
    top = view("top", 0.2, state=ev(60, 2))  # a low seed weight does not matter: the counts do
    assert policy.reflex_allowed("r", [top, view("bad", 0.3, state=ev(2, 20))]) == (True, "")
    assert policy.reflex_allowed("r", [top]) == (True, "")
    # a rival tried once, or a rival's new version (no runs yet), may still be better
    allowed, why = policy.reflex_allowed("r", [top, view("once", 0.3, state=ev(1, 0))])
    assert not allowed and "does not beat once's upper bound" in why
    assert not policy.reflex_allowed("r", [top, view("new", 0.5, state=ev(0, 0))])[0]
    # close rivals are not ruled out
    assert not policy.reflex_allowed("r", [top, view("close", 0.5, state=ev(55, 3))])[0]
    # too few runs, or a rate that is merely good, keep the lower bound under the threshold
    allowed, why = policy.reflex_allowed("r", [view("few", 0.9, state=ev(4, 0))])
    assert not allowed and "lower bound" in why and "below 0.8" in why
    assert not policy.reflex_allowed("r", [view("meh", 0.9, state=ev(140, 60))])[0]
    assert SeedConfidentPolicy(min_rate=0.6).reflex_allowed("r", [view("meh", 0.9, state=ev(140, 60))])[0]
    # a pruned rival is remembered, unless memory is off
    alone = view("top", 0.2, state=ev(60, 2, gone=(3, 1)))
    assert not policy.reflex_allowed("r", [alone])[0]
    assert SeedConfidentPolicy(memory=0).reflex_allowed("r", [alone])[0]
    assert not policy.reflex_allowed("r", [])[0]


def test_seed_confident_settings_are_validated() -> None:
    cfg = Config()
    cfg.plugins.settings["seed-confident"] = {"reflex_z": 1.64, "reflex_min_rate": 0.7, "rival_memory": 2}
    policy = PluginManager(cfg, autoload=False).ranking_policy("seed-confident")
    assert (policy.z, policy.min_rate, policy.memory, policy.reflex_rule) == (1.64, 0.7, 2, True)
    for key, value in (("reflex_z", 0), ("reflex_min_rate", 1.5), ("fallback_tail", 1)):
        bad = Config()
        bad.plugins.settings["seed-confident"] = {key: value}
        with pytest.raises(ConfigError, match=key):
            PluginManager(bad, autoload=False).ranking_policy("seed-confident")


def _record(cortex: Any, slug: str, outcome: str, at: float, *, version: str = "1.0.0",
            tags: tuple[str, ...] = ("network:api.example.com",)) -> Any:
    fingerprint = (slug[0] * 63) + version[0]
    return cortex.record_outcome("notes", slug, outcome, version=version, fingerprint=fingerprint.ljust(64, "0"),
                                 tags=tags, scan_decision="allow", now=at)


def test_seed_confident_promotes_on_evidence_the_seed_weight_would_not_reach() -> None:
    cortex = _cortex("seed-confident")
    at = NOW
    for i in range(12):  # a weak rival, ruled out by its own runs
        at += 3600
        _record(cortex, "twin", "success" if i == 0 else "api_error", at)
    results = []
    for i in range(40):  # daily use with one failure: the seed weight stays far below 0.9
        at += DAY
        results.append(_record(cortex, "reader", "runtime_error" if i == 10 else "success", at))
    last = results[-1]
    assert last.reflex and last.weight < 0.9
    assert not results[10].reflex  # a failure demotes at once
    assert not results[5].reflex and any("lower bound" in b for b in results[5].reflex_blockers)
    ranked = cortex.rank_region("notes", now=at + 3600, rng=random.Random(0))
    assert ranked[0].slug == "reader" and cortex.fast_path_check("notes", ranked, now=at + 3600) == []
    # same evidence, other way: the rival publishes a new version; its runs no longer count
    _record(cortex, "twin", "success", at + 7200, version="2.0.0")
    ranked = cortex.rank_region("notes", now=at + 3 * 3600, rng=random.Random(0))
    reader = next(v for v in ranked if v.slug == "reader")
    assert not reader.reflex
    reasons = cortex.fast_path_check("notes", [reader, *(v for v in ranked if v.slug != "reader")],
                                     now=at + 3 * 3600)
    assert reasons and reasons[0] == "reflex flag not set"


def test_seed_confident_keeps_the_content_conditions() -> None:
    cortex = _cortex("seed-confident")
    at = NOW
    result = None
    for _ in range(40):
        at += DAY
        result = _record(cortex, "writer", "success", at, tags=("write:~/notes",))
    assert result is not None and not result.reflex
    assert any("write:/delete:/shell:" in b for b in result.reflex_blockers)


def _aging_cortex(half_life: float) -> Any:
    from nervous.engines.cortex import Cortex
    from nervous.kernel.storage import MemoryStore

    cfg = Config()
    cfg.cortex.ranking_policy = "seed-confident"
    cfg.plugins.settings["seed-confident"] = {"rival_half_life": half_life}
    return Cortex(PluginManager(cfg, autoload=False), MemoryStore())


def test_seed_confident_ages_a_rivals_evidence_then_probes_it() -> None:
    cortex = _aging_cortex(10)
    at = NOW
    for outcome in ("success", "api_error", "api_error", "api_error", "api_error", "api_error"):
        at += 3600  # a rival that lost its early runs
        _record(cortex, "twin", outcome, at)
    results = []
    for _ in range(60):
        at += DAY
        results.append(_record(cortex, "reader", "success", at))
    promoted = next(i for i, r in enumerate(results) if r.reflex)
    # while the holder keeps taking tasks, the rival's old losses fade and block the reflex again
    demoted = next(i for i, r in enumerate(results) if i > promoted and not r.reflex)
    assert any("twin" in b and "weighted by age" in b for b in results[demoted].reflex_blockers)
    # ... and the order probes the stale rival first, instead of ruling it out on old counts
    ranked = cortex.rank_region("notes", now=at + 3600, rng=random.Random(0))
    assert ranked[0].slug == "twin"
    reasons = cortex.fast_path_check("notes", ranked, now=at + 3600)
    assert reasons
    # a fresh loss rules it out again, and the next success of the holder restores its reflex
    _record(cortex, "twin", "api_error", at + 3600)
    assert _record(cortex, "reader", "success", at + DAY).reflex
    ranked = cortex.rank_region("notes", now=at + DAY + 3600, rng=random.Random(0))
    assert ranked[0].slug == "reader" and cortex.fast_path_check("notes", ranked, now=at + DAY + 3600) == []


def test_seed_confident_probe_finds_a_neglected_rivals_new_version() -> None:
    cortex = _aging_cortex(10)
    at = NOW
    for outcome in ("api_error",) * 6:
        at += 3600
        _record(cortex, "twin", outcome, at)
    for _ in range(60):
        at += DAY
        _record(cortex, "reader", "success", at)
    ranked = cortex.rank_region("notes", now=at + 3600, rng=random.Random(0))
    assert ranked[0].slug == "twin"  # the probe: its old counts aged out
    # the probe tries the rival's new version: its old counts no longer count, the holder loses its reflex
    result = _record(cortex, "twin", "success", at + 3600, version="2.0.0")
    assert result.successes >= 1
    ranked = cortex.rank_region("notes", now=at + 7200, rng=random.Random(0))
    reader = next(v for v in ranked if v.slug == "reader")
    assert not reader.reflex


def test_seed_confident_ages_a_pruned_rivals_evidence_too() -> None:
    policy = SeedConfidentPolicy(half_life=30)

    def holder(gone_age: int) -> CandidateView:
        return view("top", 0.2, state={**ev(60, 2, gone=(2, 8)), "rival_ages": {"clawhub:gone": gone_age}})

    # fresh evidence rules the pruned rival out (2 of 10), as before
    assert policy.reflex_allowed("r", [holder(0)]) == (True, "")
    # nobody can try it again, so its old runs fade like a present rival's and hold the reflex back
    allowed, why = policy.reflex_allowed("r", [holder(150)])
    assert not allowed and "clawhub:gone" in why and "weighted by age" in why
    # the age a rival is remembered with only grows: the rule blocks from some age on, and stays blocked
    verdicts = [policy.reflex_allowed("r", [holder(age)])[0] for age in range(0, 200, 10)]
    assert verdicts[0] and not verdicts[-1] and verdicts == sorted(verdicts, reverse=True)
    # a state written before ages were kept: the rival counts as just seen
    assert policy.reflex_allowed("r", [view("top", 0.2, state=ev(60, 2, gone=(2, 8)))]) == (True, "")


def test_seed_confident_probes_a_stale_rival_only_when_that_can_restore_the_reflex() -> None:
    policy = SeedConfidentPolicy(half_life=30)
    top = view("top", 0.9, state=ev(60, 2))  # lower bound about 0.89
    stale = view("stale", 0.3, state={**ev(0, 6), "age": 150})
    assert policy._stale_blocker([top, stale]) is stale
    assert policy._stale_blocker([top, view("stale", 0.3, state={**ev(0, 6), "age": 0})]) is None
    # a little-tried rival is left to the order's own probes and does not stop this one
    assert policy._stale_blocker([top, stale, view("once", 0.5, state=ev(1, 0))]) is stale
    # a close rival blocks on fresh evidence: probing the stale one would not restore the reflex
    assert policy._stale_blocker([top, stale, view("close", 0.8, state=ev(55, 3))]) is None
    # nor would it while a pruned rival blocks, which nobody can probe
    holder = view("top", 0.9, state={**ev(60, 2, gone=(2, 8)), "rival_ages": {"clawhub:gone": 150}})
    assert policy._stale_blocker([holder, stale]) is None
    assert SeedConfidentPolicy(half_life=30, memory=0)._stale_blocker([holder, stale]) is stale


def test_seed_confident_pruned_rival_expiry_is_a_setting() -> None:
    holder = view("top", 0.2, state={**ev(60, 2, gone=(2, 8)), "rival_ages": {"clawhub:gone": 5}})
    assert SeedConfidentPolicy().reflex_allowed("r", [holder])[0]
    # pruned_max_age=0: a rival that pruning removed blocks at once (it cannot be checked again)
    allowed, why = SeedConfidentPolicy(pruned_max_age=0).reflex_allowed("r", [holder])
    assert not allowed and "clawhub:gone" in why
    assert SeedConfidentPolicy(pruned_max_age=6).reflex_allowed("r", [holder])[0]
    assert not SeedConfidentPolicy(pruned_max_age=5).reflex_allowed("r", [holder])[0]
    # present rivals are not affected: they can be probed instead
    present = view("top", 0.2, state=ev(60, 2))
    rival = view("bad", 0.3, state={**ev(2, 8), "age": 5})
    assert SeedConfidentPolicy(pruned_max_age=0).reflex_allowed("r", [present, rival]) == (True, "")


def test_seed_confident_keeps_the_age_of_every_rival() -> None:
    policy = SeedConfidentPolicy()
    used = view("used", state={**ev(9, 1, gone=(2, 8)), "age": 3, "rival_ages": {"clawhub:gone": 40}})
    other = view("other", state={**ev(2, 3), "age": 7, "rival_ages": {"clawhub:gone": 38, "clawhub:used": 3}})
    states = policy.on_outcome("r", [used, other], used, "success", NOW)
    assert states["clawhub:used"]["age"] == 0 and states["clawhub:other"]["age"] == 8
    # the pruned rival ages with every outcome of the region (the larger remembered age is kept)
    assert states["clawhub:used"]["rival_ages"] == {"clawhub:gone": 41, "clawhub:other": 8}
    assert states["clawhub:other"]["rival_ages"] == {"clawhub:gone": 41, "clawhub:used": 0}
    # when "other" is pruned in turn, its age keeps counting in the holder's memory
    later = policy.on_outcome("r", [view("used", state=states["clawhub:used"])], "clawhub:used", "success", NOW)
    assert later["clawhub:used"]["rival_ages"] == {"clawhub:gone": 42, "clawhub:other": 9}
    # a new version of the holder restarts its own counts, not what it remembers of its rivals
    renewed = policy.on_version_change(view("used", state=later["clawhub:used"]))
    assert renewed is not None and renewed["s"] == 0 and renewed["rival_ages"] == later["clawhub:used"]["rival_ages"]
    # malformed ages are ignored
    junk = view("junk", state={"rival_ages": {"clawhub:x": -1, "clawhub:y": True, 5: 1, "clawhub:z": 2}})
    assert policy.remembered_ages([junk]) == {"clawhub:z": 2}


def test_seed_confident_ageing_setting_is_validated() -> None:
    cfg = Config()
    cfg.plugins.settings["seed-confident"] = {"rival_half_life": 12}
    assert PluginManager(cfg, autoload=False).ranking_policy("seed-confident").half_life == 12
    bad = Config()
    bad.plugins.settings["seed-confident"] = {"rival_half_life": 0}
    with pytest.raises(ConfigError, match="rival_half_life"):
        PluginManager(bad, autoload=False).ranking_policy("seed-confident")
    assert PluginManager(cfg, autoload=False).ranking_policy("seed-confident").pruned_max_age is None
    cfg.plugins.settings["seed-confident"] = {"pruned_rival_max_age": 20}
    assert PluginManager(cfg, autoload=False).ranking_policy("seed-confident").pruned_max_age == 20
    bad.plugins.settings["seed-confident"] = {"pruned_rival_max_age": -1}
    with pytest.raises(ConfigError, match="pruned_rival_max_age"):
        PluginManager(bad, autoload=False).ranking_policy("seed-confident")
