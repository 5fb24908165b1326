"""Numbers read from someone else's JSON: ``1e400``, ``NaN`` and ``true`` are no number.

Python's JSON reader turns ``1e400`` into infinity and accepts ``NaN``; written back out they make
output that no strict JSON reader takes, so a registry's answer is held to finite numbers here.
"""

from __future__ import annotations

import math
from typing import Any


def answer_number(value: Any) -> float | None:
    """A finite number from an answer, else ``None`` (booleans, strings, ``NaN`` and infinities)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:  # an int too large for a float
        return None
    return number if math.isfinite(number) else None


def answer_int(value: Any) -> int | None:
    """A whole number from an answer (a finite float is truncated), else ``None``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    number = answer_number(value)
    return int(number) if number is not None else None


def text_number(text: str) -> float | None:
    """A number written as text (a header's ``Retry-After``), else ``None`` (``nan``, ``inf``, ``1e400`` too)."""
    try:
        number = float(text.strip())
    except ValueError:
        return None
    return number if math.isfinite(number) else None
