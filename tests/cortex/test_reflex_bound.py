"""The reflex bound benchmark: its interval, its observer on worlds whose answer is known, a small real run."""

from __future__ import annotations

import random
from collections.abc import Callable
from types import ModuleType

import pytest


@pytest.fixture(scope="module")
def bound(load_benchmark: Callable[[str], ModuleType]) -> ModuleType:
    return load_benchmark("reflex_bound")


def test_the_interval_observer_uses_the_textbook_wilson_interval(bound: ModuleType) -> None:
    low, high = bound.wilson_bounds(8, 2, 1.96)
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)
    assert bound.wilson_bounds(3, 7, 0.0) == pytest.approx((0.3, 0.3))
    assert bound.wilson_bounds(0, 0, 1.96) == (0.0, 1.0)


def _world(bound: ModuleType, ps: list[float], tasks: int) -> object:
    learning = bound.learning
    rng = random.Random(7)
    region = learning.Region("r", [learning.Skill(f"s{i}", p, ()) for i, p in enumerate(ps)])
    region.times = [float(t) for t in range(tasks)]
    region.draws = [[(rng.random(), 0.5, 0.5) for _ in ps] for _ in range(tasks)]
    return learning.World("stationary-close", 0, [region], [], [(t, 0, t) for t in range(tasks)])


def test_the_observer_fires_and_is_right_when_the_best_is_obvious(bound: ModuleType) -> None:
    counts = bound.observer(_world(bound, [1.0, 0.0], 50))
    tasks, fired, wrong = counts[1.96]
    assert tasks == 50 and fired >= 45 and wrong == 0


def test_the_observer_is_often_wrong_on_identical_candidates_at_z_zero(bound: ModuleType) -> None:
    # equal success rates: the first candidate is "best" by index, the empirical leader changes with luck
    tasks, fired, wrong = bound.observer(_world(bound, [0.5, 0.5], 400))[0.0]
    assert fired > 0 and wrong > 0
    _, fired_strict, _ = bound.observer(_world(bound, [0.5, 0.5], 400))[2.33]
    assert fired_strict < fired


def test_a_small_run_reports_the_seed_policy_beside_the_observer(bound: ModuleType) -> None:
    run = bound.job((100, 3, 40, 2.0, 300))
    assert run["seed"] == 100 and 0.0 <= (run["seed_coverage"] or 0.0) <= 1.0
    for key, levels in (("observer", bound.ZS), ("bayes", bound.TAUS)):
        tasks = {t for t, _, _ in run[key].values()}
        assert len(tasks) == 1 and tasks.pop() > 0
        fired = [run[key][level][1] for level in levels]
        assert fired == sorted(fired, reverse=True)  # a stricter threshold never fires more


def test_best_probabilities_follow_the_evidence_under_the_close_prior(bound: ModuleType) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    even = bound.best_probabilities(rng, np.array([50.0, 50.0]), 100, 4000)
    assert even.sum() == pytest.approx(1.0) and abs(even[0] - 0.5) < 0.05
    apart = bound.best_probabilities(rng, np.array([985.0, 950.0]), 1000, 4000)
    assert apart[0] > 0.99  # 0.985 against 0.95: within the prior's gap, and the first is clearly better
    impossible = bound.best_probabilities(rng, np.array([990.0, 500.0]), 1000, 400)
    assert list(impossible) == [0.5, 0.5]  # evidence the prior rules out: no confidence at all (never fires)


def test_the_pair_posterior_is_symmetric_and_follows_the_evidence(bound: ModuleType) -> None:
    assert bound.pair_probability(30, 20, 30, 20, 1) == pytest.approx(0.5, abs=1e-9)
    ahead = bound.pair_probability(800, 200, 600, 400, 2)  # the prior keeps the two within 0.05: needs many runs
    assert ahead > 0.99 and bound.pair_probability(600, 400, 800, 200, 2) == pytest.approx(1 - ahead)
    slightly = bound.pair_probability(33, 17, 30, 20, 0)
    assert 0.5 < slightly < 0.9  # three more successes in fifty are weak evidence for rates this close


def test_the_host_observer_sees_one_outcome_a_task_and_only_of_the_best_two(bound: ModuleType) -> None:
    _decide, sees = bound.host_view([0.3, 0.9, 0.1, 0.88])
    shown = [(task, i) for task in range(40) for i in range(4) if sees(task, i)]
    assert [task for task, _ in shown] == list(range(40))  # one outcome a task
    assert {i for _, i in shown} == {1, 3} and shown[0][1] != shown[1][1]  # the best two, in turn


def test_the_host_observer_is_right_where_evidence_piles_up_and_unsure_where_it_cannot(bound: ModuleType) -> None:
    tasks, fired, wrong = bound.host_observer(_world(bound, [0.95, 0.91, 0.2], 3000))[0.9]
    assert tasks == 3000 and fired > 1500 and wrong < fired * 0.05
    _, fired_equal, _ = bound.host_observer(_world(bound, [0.5, 0.5, 0.1], 400))[0.99]
    _, fired_loose, _ = bound.host_observer(_world(bound, [0.5, 0.5, 0.1], 400))[0.6]
    assert fired_equal < fired_loose


def test_bad_arguments_are_refused_with_a_message(bound: ModuleType, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    for bad in (["--seeds", "0"], ["--days", "-1"], ["--rate", "0"], ["--samples", "-5"]):
        monkeypatch.setattr("sys.argv", ["reflex_bound.py", *bad])
        with pytest.raises(SystemExit) as exc:
            bound.main()
        assert exc.value.code == 2 and "must be positive" in capsys.readouterr().err
