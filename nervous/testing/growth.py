"""Growth checks for tests: work that should be linear in its input, measured as a ratio, never a wall clock.

An operation run on 8× the input may cost up to 8× the CPU time (with slack for a loaded machine and a small
fixed floor); a quadratic one costs 64×. CPU time of this process is what is compared, so other load on the
machine does not inflate it much, and each size keeps the better of two runs.
"""

from __future__ import annotations

import time
from collections.abc import Callable


def cpu_seconds(fn: Callable[[], object]) -> float:
    """CPU seconds this process spends in ``fn()``."""
    start = time.process_time()
    fn()
    return time.process_time() - start


def assert_linear(cost: Callable[[int], float], n: int, *, factor: int = 8, slack: float = 3.0,
                  floor: float = 0.05) -> None:
    """``cost(size)`` (CPU seconds of one run) at ``factor * n`` is at most ``factor * slack`` times its cost at
    ``n``, plus ``floor`` seconds. ``cost(n)`` runs once first, unmeasured (imports, caches)."""
    cost(n)
    small = min(cost(n) for _ in range(2))
    large = min(cost(factor * n) for _ in range(2))
    assert large <= factor * slack * small + floor, (n, small, large)


def linear_run(run: Callable[[int], object], n: int, **kw: float) -> None:
    """:func:`assert_linear` for a ``run(size)`` whose whole call is the work measured."""
    assert_linear(lambda size: cpu_seconds(lambda: run(size)), n, **kw)  # type: ignore[arg-type]
