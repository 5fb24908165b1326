"""Timestamps of the goal file: ISO 8601 UTC with milliseconds and ``Z`` (specs/goals.md §1)."""

from __future__ import annotations

from datetime import UTC, datetime

from ...kernel import clock


def iso(t: float | None = None) -> str:
    t = clock.now() if t is None else t
    dt = datetime.fromtimestamp(t, UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def parse(text: str | None) -> float | None:
    """Seconds since the epoch, or ``None`` for missing or unparsable values."""
    if not isinstance(text, str) or not text.strip():
        return None
    try:
        return clock.parse_timestamp(text)
    except ValueError:
        return None
