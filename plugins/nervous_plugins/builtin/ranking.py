"""The ``ranking`` built-in plugin: registration only.

The policies (:mod:`nervous_plugins.ranking`) are imported by the factories, on first use, so
loading every plugin at start-up stays cheap. A test checks that these names and descriptions are
the implementation's own.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from nervous.plugin import Provider, hookimpl

#: (name, description) of every policy, as the policy classes declare them
POLICIES = (
    ("seed", "the original order: effective weight, candidates below 0.3 dropped (default)"),
    ("seed-probe", "seed order plus posterior-sampled probes of neglected candidates and a reflex veto"),
    ("seed-confident", "seed-probe's order with a reflex rule on Wilson confidence bounds"),
    ("thompson", "Thompson sampling on total successes and failures (baseline)"),
    ("ucb1", "UCB1 upper confidence bound on success rate (baseline)"),
    ("discounted-thompson", "Thompson sampling with discounted evidence, gamma 0.95 (baseline)"),
)


def _factory(name: str, ctx: Any) -> Any:
    from nervous_plugins.ranking import _factory as create

    return create(name, ctx)


@hookimpl
def nervous_ranking_policies() -> list[Provider]:
    return [Provider(name, description, partial(_factory, name)) for name, description in POLICIES]
