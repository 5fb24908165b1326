"""Smoke run of the learning benchmark (spec §10.4): real engine, small world, sane figures."""

from __future__ import annotations

import random
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

from nervous.engines.cortex import Cortex
from nervous.kernel.config import Config
from nervous.kernel.manager import PluginManager
from nervous.kernel.storage import MemoryStore


@pytest.fixture(scope="module")
def bench(load_benchmark: Callable[[str], ModuleType]) -> ModuleType:
    return load_benchmark("learning")


@pytest.fixture(scope="module")
def smoke(bench: ModuleType) -> dict[str, Any]:
    args = bench.parse_args([
        "--seeds", "20", "--regions", "2", "--days", "60", "--rate", "2", "--jobs", "2",
        "--scenarios", "stationary-easy,neglected-improves",
        "--policies", "seed,seed-probe,seed-confident,thompson,random,oracle",
    ])
    return bench.run(args)  # type: ignore[no-any-return]


def test_smoke_figures_are_sane(smoke: dict[str, Any]) -> None:
    for scenario, rows in smoke.items():
        assert set(rows) == {"seed", "seed-probe", "seed-confident", "thompson", "random", "oracle"}
        for name, row in rows.items():
            mean, se, n = row["regret"]
            assert n == 20 and mean >= 0 and se >= 0, (scenario, name)
            assert row["tasks"][0] > 50
            for key in ("best_rate", "coverage", "coverage_best", "wrong_reflex", "wrong_unknown", "reflex_fail"):
                value = row[key][0]
                assert value != value or 0.0 <= value <= 1.0, (scenario, name, key)  # NaN when undefined
            # reflex on the current best is a part of all reflex
            assert row["coverage_best"][0] <= row["coverage"][0] + 1e-12, (scenario, name)
            wrong, unknown = row["wrong_reflex"][0], row["wrong_unknown"][0]
            assert wrong != wrong or unknown <= wrong + 1e-12, (scenario, name)
        # scale: knowing the hidden probabilities picks the best skill more often than chance
        # (regret can still favour random: the oracle concentrates use on one skill, whose seed
        # weight then sinks under the floors — see docs/benchmarks/learning.md)
        assert rows["oracle"]["best_rate"][0] > rows["random"]["best_rate"][0]
        assert rows["seed"]["regret_ratio"][0] == pytest.approx(1.0)
    changed = smoke["neglected-improves"]
    for row in changed.values():
        share, _se, runs = row["recovery"]
        assert runs == 20 and 0.0 <= share <= 1.0
    assert changed["random"]["regret"][0] > changed["oracle"]["regret"][0]
    assert "recovery" not in smoke["stationary-easy"]["seed"]


def test_a_run_is_deterministic_for_a_fixed_seed(bench: ModuleType) -> None:
    job = ("incumbent-regresses", 7, 2, 90, 2.0, ("seed-probe", "discounted-thompson", "ucb1"))
    assert bench.run_job(job) == bench.run_job(job)


def test_common_random_numbers_give_every_policy_the_same_tasks(bench: ModuleType) -> None:
    _scenario, _seed, res = bench.run_job(("stationary-close", 3, 2, 60, 2.0, ("seed", "oracle", "random")))
    assert len({r["tasks"] for r in res.values()}) == 1


def test_world_has_the_requested_shape(bench: ModuleType) -> None:
    world = bench.build_world("neglected-improves", 1, 5, 200, 3.0)
    assert len(world.regions) == 5 and world.tracked == 0
    assert all(2 <= len(r.skills) <= 5 for r in world.regions)
    assert [r.name for r in world.regions] == [f"region-{i}" for i in range(5)]
    counts = [len(r.times) for r in world.regions]
    assert counts[0] > counts[-1]  # Zipf: the first region is the busiest
    (change,) = world.changes
    old = min(s.p for s in world.regions[0].skills)
    assert change.p > max(s.p for s in world.regions[0].skills) > old
    easy = bench.build_world("stationary-easy", 2, 4, 10, 3.0)
    for region in easy.regions:
        best, second = sorted((s.p for s in region.skills), reverse=True)[:2]
        assert best - second >= 0.2
    assert easy.changes == [] and easy.tracked is None


def test_bad_arguments_are_refused(bench: ModuleType) -> None:
    with pytest.raises(SystemExit):
        bench.parse_args(["--scenarios", "sunny-day"])
    with pytest.raises(SystemExit):
        bench.parse_args(["--seeds", "0"])


def test_policy_specs_carry_settings(bench: ModuleType) -> None:
    assert bench.parse_policy_spec("seed") == ("seed", {})
    assert bench.parse_policy_spec("seed-probe+rival_prior=3+fallback_tail=false") == (
        "seed-probe", {"rival_prior": 3, "fallback_tail": False})
    with pytest.raises(SystemExit):
        bench.parse_args(["--policies", "seed-probe+rival_prior"])
    _scenario, _seed, res = bench.run_job(("stationary-close", 3, 2, 40, 2.0, ("seed-probe", "seed-probe+rival_prior=0")))
    assert set(res) == {"seed-probe", "seed-probe+rival_prior=0"}


def test_policy_state_lives_in_the_engine_under_the_policy_name() -> None:
    """seed-probe through the real engine: current-content counts, rival memory, a probe below the floor."""
    cfg = Config()
    cfg.cortex.ranking_policy = "seed-probe"
    cortex = Cortex(PluginManager(cfg, autoload=False), MemoryStore())
    now = 1_772_000_000.0
    cortex.record_outcome("file-conversion", "weak", "task_mismatch", version="1.0.0", now=now)
    for i in range(5):
        cortex.record_outcome("file-conversion", "strong", "success", version="1.0.0", now=now + 1 + i)
    # new content for the weak candidate: its counts start again, so it is worth a look
    cortex.record_outcome("file-conversion", "weak", "success", version="1.1.0", now=now + 7)
    rng = random.Random(0)
    firsts = []
    for i in range(40):
        ranked = cortex.rank_region("file-conversion", now=now + 10 + i, rng=rng)
        firsts.append(ranked[0].slug)
        outcome = "success" if ranked[0].slug == "strong" else "runtime_error"
        cortex.record_outcome("file-conversion", ranked[0].slug, outcome, version=ranked[0].version,
                              now=now + 10 + i)
    assert "weak" in firsts  # probed while its evidence is thin
    assert firsts.count("strong") >= 30
    views = {v.slug: v for v in cortex.rank_region("file-conversion", now=now + 100, rng=rng)}
    strong, weak = views["strong"].policy_state, views["weak"].policy_state
    assert strong["s"] == views["strong"].successes and strong["f"] == 0
    assert weak["f"] == views["weak"].failures - 1  # the 1.0.0 failure is not held against 1.1.0
    assert strong["rivals"]["clawhub:weak"] == [weak["s"], weak["f"]]
    # new content: the counts start again, the seed counters do not
    cortex.record_outcome("file-conversion", "weak", "success", version="2.0.0", now=now + 200)
    fresh = next(v for v in cortex.rank_region("file-conversion", now=now + 201, rng=rng) if v.slug == "weak")
    assert (fresh.policy_state["s"], fresh.policy_state["f"]) == (1, 0) and fresh.failures >= 1
