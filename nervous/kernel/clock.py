"""Time in one place, so tests can fix it (``NERVOUS_NOW`` or :func:`set_clock`).

``datetime`` is imported by the functions that format or parse (a perception that learns nothing
never does; the module costs as much to load as a record class).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

_clock: Callable[[], float] | None = None


def set_clock(fn: Callable[[], float] | None) -> None:
    """Replace the clock (seconds since the epoch); ``None`` restores the real one."""
    global _clock
    _clock = fn


def now() -> float:
    if _clock is not None:
        return _clock()
    fixed = os.environ.get("NERVOUS_NOW")
    if fixed:
        try:
            t = parse_timestamp(fixed)
        except (ValueError, OverflowError, OSError):
            t = None
        if t is None or not FIXED_RANGE[0] <= t < FIXED_RANGE[1]:
            from ..errors import ConfigError

            raise ConfigError(f"NERVOUS_NOW={fixed[:80]!r} is not an ISO 8601 timestamp from 1970 to 8999 "
                              "(e.g. 2026-03-04T18:40:11Z)", details={"variable": "NERVOUS_NOW"})
        return t
    return time.time()


#: the times ``NERVOUS_NOW`` may fix, in seconds since the epoch (1970-01-01 to 9000-01-01 UTC): a date written from
#: one, in any time zone and with any horizon added, is one a four-digit year spells
FIXED_RANGE = (0.0, 221845392000.0)


def utc_timestamp(t: float | None = None) -> str:
    """ISO 8601 with ``Z``, whole seconds: ``2026-03-04T18:40:11Z``."""
    from datetime import UTC, datetime

    return datetime.fromtimestamp(now() if t is None else t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def utc_date(t: float | None = None) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(now() if t is None else t, UTC).strftime("%Y-%m-%d")


def parse_timestamp(text: str) -> float:
    from datetime import UTC, datetime

    text = text.strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    dt = datetime.fromisoformat(text)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.timestamp()
