"""Built-in drain policies: budgets that bound a goal drain (specs/goals.md §6.2).

Policies only tune budgets; they never authorise risk. Third-party plugins add their own by
implementing the same hook.
"""

from __future__ import annotations

from typing import Any

from attrs import frozen

from nervous.plugin import Provider, hookimpl


@frozen
class BudgetPolicy:
    """A :class:`nervous.plugin.protocols.DrainPolicy`: replans and retries per goal, no-progress runs per loop."""

    name: str
    max_replans: int
    max_retries: int
    max_no_progress: int


#: name -> (max_replans_per_goal, max_retries_per_goal, max_no_progress_iterations, description)
BUDGETS = {
    "default": (3, 3, 5, "balanced budgets: 3 replans, 3 retries, 5 runs without progress"),
    "conservative": (1, 1, 2, "stop early: 1 replan, 1 retry, 2 runs without progress"),
    "aggressive": (5, 5, 8, "keep going: 5 replans, 5 retries, 8 runs without progress"),
}


def _factory(name: str) -> Any:
    replans, retries, stalls, _ = BUDGETS[name]

    def make(_ctx: Any) -> BudgetPolicy:
        return BudgetPolicy(name, replans, retries, stalls)

    return make


@hookimpl
def nervous_drain_policies() -> list[Provider]:
    return [Provider(name, spec[3], _factory(name)) for name, spec in BUDGETS.items()]
