"""The analysis worker's own process: the collector is tuned there, never in the caller's process."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import pytest

from nervous.kernel.bounded import Worker, can_fork

pytestmark = pytest.mark.skipif(not can_fork(), reason="workers need fork")


class _Node:
    def __init__(self) -> None:
        self.other: Any = None


#: weak references to the cycles a call left behind, kept in the worker between calls
_LEFT: list[weakref.ref[_Node]] = []


def _probe(cycles: int) -> dict[str, Any]:
    """Leave ``cycles`` unreachable reference cycles behind; report the collector's state and how many
    cycles of earlier calls are still alive."""
    alive_before = sum(r() is not None for r in _LEFT)
    for _ in range(cycles):
        a, b = _Node(), _Node()
        a.other, b.other = b, a
        _LEFT.append(weakref.ref(a))
    return {"enabled": gc.isenabled(), "frozen": gc.get_freeze_count(), "alive_before": alive_before}


def test_a_paused_worker_collects_the_cycles_of_each_call() -> None:
    w = Worker(_probe, pause_gc=True)
    try:
        first = w.call((500,), 30)
        second = w.call((0,), 30)
    finally:
        w.close()
    assert first["enabled"] is False  # paused while the call runs
    assert first["frozen"] > 0  # what the worker inherited is frozen
    assert first["alive_before"] == 0
    assert second["alive_before"] == 0  # the 500 cycles of the first call were collected after it


def test_a_default_worker_leaves_the_collector_alone() -> None:
    w = Worker(_probe)
    try:
        out = w.call((1,), 30)
    finally:
        w.close()
    assert out["enabled"] is True and out["frozen"] == gc.get_freeze_count()


def test_the_callers_collector_is_untouched() -> None:
    enabled, frozen, thresholds = gc.isenabled(), gc.get_freeze_count(), gc.get_threshold()
    w = Worker(_probe, pause_gc=True)
    try:
        w.call((10,), 30)
    finally:
        w.close()
    assert (gc.isenabled(), gc.get_freeze_count(), gc.get_threshold()) == (enabled, frozen, thresholds)
