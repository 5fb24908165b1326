"""Fixtures for goal tests: an in-memory store, a fixed scope and a frozen clock."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from nervous.engines.goals import Goals, Scope
from nervous.kernel.storage import MemoryStore

T0 = 1_781_686_800.0  # 2026-06-17T09:00:00Z


@pytest.fixture
def clock_at(fixed_clock: list[float]) -> list[float]:
    fixed_clock[0] = T0
    return fixed_clock


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def goals(nervous_pm: Any, store: MemoryStore, clock_at: list[float]) -> Goals:
    return Goals(nervous_pm, store=store, scope=Scope("demo", "main"))


@pytest.fixture
def make_goal(goals: Goals) -> Callable[..., str]:
    """Create a goal and drive it to ``status`` through the public actions; returns its id."""

    def make(status: str = "analyzed", prompt: str = "Write the report", **intent: Any) -> str:
        gid = goals.analyze(prompt, **intent).goal.id
        if status == "analyzed":
            return gid
        if status in ("blocked", "needs_amygdala"):
            getattr(goals, "block" if status == "blocked" else "escalate")(gid, reason="r", evidence="e")
            return gid
        if status == "cancelled":
            goals.cancel(gid)
            return gid
        goals.plan(gid, subtasks=["Do it"])
        if status == "planned":
            return gid
        goals.link(gid, links=["task-1"])
        if status == "executing":
            return gid
        if status == "needs_replan":
            goals.verify(gid, checks=[{"criterion": "c", "passed": False}])
            return gid
        goals.verify(gid, checks=[{"criterion": "c", "passed": True}], all_axon_complete=True)
        if status == "verified":
            return gid
        goals.complete(gid)
        assert status == "completed"
        return gid

    return make
