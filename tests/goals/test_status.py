"""Every cell of the status table (specs/goals.md §3), at the machine and through the actions."""

from __future__ import annotations

from typing import Any

import pytest

from nervous.engines.goals import GoalError
from nervous.engines.goals.model import STATUSES
from nervous.engines.goals.status import can_transition, check_transition

ALLOWED = {
    "analyzed": {"analyzed", "planned", "blocked", "needs_amygdala", "cancelled"},
    "planned": {"analyzed", "planned", "executing", "blocked", "needs_amygdala", "cancelled"},
    "executing": {"analyzed", "executing", "verified", "needs_replan", "blocked", "needs_amygdala", "cancelled"},
    "verified": {"verified", "needs_replan", "blocked", "needs_amygdala", "completed", "cancelled"},
    "needs_replan": {"planned", "verified", "needs_replan", "blocked", "needs_amygdala", "cancelled"},
    "blocked": {"needs_replan", "blocked", "needs_amygdala", "cancelled"},
    "needs_amygdala": {"needs_replan", "blocked", "needs_amygdala", "cancelled"},
    "completed": set(),
    "cancelled": set(),
}


@pytest.mark.parametrize("source", STATUSES)
@pytest.mark.parametrize("target", STATUSES)
def test_every_cell_of_the_table(source: str, target: str) -> None:
    expected = target in ALLOWED[source]
    assert can_transition(source, target) is expected
    if expected:
        check_transition("goal-001", source, target)
    else:
        with pytest.raises(GoalError) as err:
            check_transition("goal-001", source, target)
        assert err.value.code == "invalid_transition"
        assert source in err.value.message and target in err.value.message


# action -> (kwargs, status it leads to); each is tried from every status
ACTIONS: dict[str, tuple[dict[str, Any], str | None]] = {
    "plan": ({"subtasks": ["A"]}, "planned"),
    "link": ({"links": ["task-9"]}, "executing"),
    "verify": ({"checks": [{"criterion": "c", "passed": True}]}, "verified"),
    "complete": ({}, "completed"),
    "block": ({"reason": "r", "evidence": "e"}, "blocked"),
    "escalate": ({"reason": "r", "evidence": "e"}, "needs_amygdala"),
    "reopen": ({"reason": "r", "evidence": "e"}, "needs_replan"),
    "cancel": ({}, "cancelled"),
}
ACTION_FROM = {
    "plan": {"analyzed", "needs_replan"},
    "link": {"planned", "executing"},
    "verify": {"executing", "verified", "needs_replan"},
    "complete": {"verified"},
    "block": {"analyzed", "planned", "executing", "verified", "needs_replan", "blocked", "needs_amygdala"},
    "escalate": {"analyzed", "planned", "executing", "verified", "needs_replan", "blocked", "needs_amygdala"},
    "reopen": {"blocked", "needs_amygdala"},
    "cancel": {"analyzed", "planned", "executing", "verified", "needs_replan", "blocked", "needs_amygdala"},
}


@pytest.mark.parametrize("action", sorted(ACTIONS))
@pytest.mark.parametrize("source", STATUSES)
def test_actions_follow_the_table(goals: Any, make_goal: Any, action: str, source: str) -> None:
    gid = make_goal(source)
    before = goals.store.read("goals", "demo/main").value
    kwargs, target = ACTIONS[action]
    if source in ACTION_FROM[action]:
        result = getattr(goals, action)(gid, **kwargs)
        assert result.goal.status == target
        assert can_transition(source, target)
    else:
        with pytest.raises(GoalError) as err:
            getattr(goals, action)(gid, **kwargs)
        assert err.value.code == ("unverified" if action == "complete" else "invalid_transition")
        assert goals.store.read("goals", "demo/main").value == before  # a failed guard writes nothing
