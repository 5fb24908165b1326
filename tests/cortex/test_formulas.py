"""The formulas of spec §4.2 and their test vectors (§4.2.6)."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nervous.engines.cortex.formulas import (
    apply_failure,
    apply_success,
    effective_weight,
    failure_weight,
    success_weight,
)
from nervous.engines.cortex.memory import Candidate, date_epoch
from nervous.kernel.clock import utc_timestamp
from nervous.kernel.config import CortexConfig

CFG = CortexConfig()
TODAY = date(2026, 3, 4)


def test_three_successes_in_a_fresh_window() -> None:
    w = 0.5
    seen = []
    for k in range(3):
        w = success_weight(w, k, CFG)
        seen.append(w)
    assert seen == pytest.approx([0.575, 0.606875, 0.62653125], abs=1e-12)


def test_successes_spaced_beyond_the_window() -> None:
    w = 0.5
    for n in range(1, 11):
        w = success_weight(w, 0, CFG)
        if n == 6:
            assert w == pytest.approx(0.8114, abs=1e-4)
    assert w == pytest.approx(0.90156, abs=1e-5)


def test_daily_successes_need_31_and_63() -> None:
    w, reached = 0.5, {}
    for n in range(1, 80):
        w = success_weight(w, min(n - 1, 6), CFG)
        for goal in (0.8, 0.9):
            if goal not in reached and round(w, 10) >= goal:
                reached[goal] = n
    assert reached == {0.8: 31, 0.9: 63}


def test_five_daily_successes() -> None:
    w = 0.5
    for n in range(5):
        w = success_weight(w, n, CFG)
    assert w == pytest.approx(0.651320, abs=1e-6)


@pytest.mark.parametrize(("failure", "factor"), sorted(CortexConfig().failure_factors.items()))
def test_failure_factors(failure: str, factor: float) -> None:
    assert failure_weight(0.5, failure, CFG) == pytest.approx(0.5 * factor)


def test_unknown_failure_uses_runtime_factor() -> None:
    assert failure_weight(0.5, "mystery", CFG) == pytest.approx(0.3)


@pytest.mark.parametrize(("idle", "expected"), [(9, 0.9025), (10, 0.8972), (90, 0.475), (126, 0.285), (200, 0.285)])
def test_idle_decay(idle: int, expected: float) -> None:
    assert effective_weight(0.95, TODAY - timedelta(days=idle), TODAY, CFG) == pytest.approx(expected, abs=1e-4)


def test_low_weight_idle_is_pruned() -> None:
    assert effective_weight(0.3, TODAY - timedelta(days=130), TODAY, CFG) == pytest.approx(0.09)


@given(st.floats(0, 1), st.integers(0, 64))
def test_success_raises_weight_within_bounds(weight: float, recent: int) -> None:
    new = success_weight(weight, recent, CFG)
    assert weight <= new <= 1.0


@given(st.floats(0, 1), st.sampled_from(sorted(CortexConfig().failure_factors)))
def test_failure_lowers_weight_within_bounds(weight: float, failure: str) -> None:
    new = failure_weight(weight, failure, CFG)
    assert 0.0 <= new <= weight


@given(st.floats(0, 1), st.integers(0, 400))
def test_effective_weight_bounds(weight: float, idle: int) -> None:
    eff = effective_weight(weight, TODAY - timedelta(days=idle), TODAY, CFG)
    assert weight * CFG.decay_floor - 1e-12 <= eff <= weight + 1e-12


# ------------------------------------------------------------------ a v1 count of recent successes is not materialised


def _v1_candidate(count: int, last_used: str = "2026-03-04") -> Candidate:
    raw = {"slug": "x", "weight": 0.5, "last_used": last_used,
           "runs": {"success": 3, "fail": 0, "recent_successes_7d": count}}
    return Candidate(raw, {}, TODAY, "cortex.motor.r.candidates[0]", lambda _m: None)


def test_a_huge_v1_recent_count_makes_at_most_cap_times() -> None:
    """``recent_successes_7d: 10**12`` made 10**12 virtual times (out of memory) from a few bytes of JSON."""
    now = date_epoch(TODAY) + 43_200
    cand = _v1_candidate(10**12)
    count, times = cand.recent_successes(now - CFG.recent_window, CFG.recent_times_cap)
    assert count == 10**12 and len(times) == CFG.recent_times_cap
    assert cand.recent_successes(date_epoch(TODAY) + 86_399, 5) == (0, [])  # outside the window: none
    assert len(cand.recent_times()) == 64
    apply_success(cand, now, CFG)
    assert cand.weight == pytest.approx(success_weight(0.5, 10**12, CFG))  # the count still weighs in
    runs = cand.raw["runs"]
    assert runs["recent_successes_7d"] == len(runs["recent_success_times"]) == CFG.recent_times_cap
    failed = _v1_candidate(10**12)
    apply_failure(failed, "api_error", "", now, CFG)
    assert len(failed.raw["runs"]["recent_success_times"]) == CFG.recent_times_cap


def test_recent_times_keep_the_latest_in_the_window() -> None:
    stamps = [f"2026-03-0{d}T10:00:00Z" for d in (4, 1, 3, 2)]
    cand = Candidate({"slug": "x", "runs": {"recent_success_times": [*stamps, "not a time"]}}, {}, TODAY, "",
                     lambda _m: None)
    count, times = cand.recent_successes(date_epoch(date(2026, 3, 2)), 2)
    assert count == 3 and [utc_timestamp(t)[:10] for t in times] == ["2026-03-03", "2026-03-04"]
    assert cand.recent_successes(0.0, 0) == (4, [])
