"""The goal status machine (specs/goals.md §3): which status may follow which."""

from __future__ import annotations

from .errors import GoalError

ACTIONABLE = ("analyzed", "planned", "executing", "verified", "needs_replan")
WAITING = ("blocked", "needs_amygdala")
TERMINAL = ("completed", "cancelled")
NON_TERMINAL = ACTIONABLE + WAITING
STATUS_ORDER = ACTIONABLE + WAITING + TERMINAL

#: from -> allowed targets (same-status transitions are always allowed for non-terminal goals)
TRANSITIONS: dict[str, frozenset[str]] = {
    "analyzed": frozenset({"planned", "blocked", "needs_amygdala", "cancelled"}),
    "planned": frozenset({"analyzed", "executing", "blocked", "needs_amygdala", "cancelled"}),
    "executing": frozenset({"analyzed", "verified", "needs_replan", "blocked", "needs_amygdala", "cancelled"}),
    "verified": frozenset({"needs_replan", "blocked", "needs_amygdala", "completed", "cancelled"}),
    "needs_replan": frozenset({"planned", "verified", "blocked", "needs_amygdala", "cancelled"}),
    "blocked": frozenset({"needs_replan", "needs_amygdala", "cancelled"}),
    "needs_amygdala": frozenset({"needs_replan", "blocked", "cancelled"}),
    "completed": frozenset(),
    "cancelled": frozenset(),
}


def can_transition(current: str, target: str) -> bool:
    if current in TERMINAL:
        return False
    return current == target or target in TRANSITIONS.get(current, frozenset())


def check_transition(goal_id: str, current: str, target: str) -> None:
    """Raise ``invalid_transition`` naming both statuses unless the move is in the table."""
    if not can_transition(current, target):
        why = "it is terminal" if current in TERMINAL else "the status table has no such edge"
        raise GoalError("invalid_transition", f"{goal_id}: cannot go from {current} to {target} ({why})")


def is_terminal(status: str) -> bool:
    return status in TERMINAL
