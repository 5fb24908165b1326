"""Microsecond UTC stamps for audit and backup file names, from the injectable clock."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from ...kernel import clock

STAMP_RE = re.compile(r"^(\d{8}-\d{6}-\d{6})(?:-(\d+))?-")
_LEGACY_RE = re.compile(r"^(\d{8})-?(\d{6})")


def stamp(t: float | None = None) -> str:
    """``YYYYMMDD-HHMMSS-ffffff`` (UTC)."""
    return datetime.fromtimestamp(clock.now() if t is None else t, UTC).strftime("%Y%m%d-%H%M%S-%f")


def sort_key(name: str) -> tuple[str, int, str]:
    """Order of stack entries and audit files: stamp, collision suffix, then name.

    Legacy names with ``YYYYMMDDHHMMSS`` or ``YYYYMMDD-HHMMSS`` stamps sort at microsecond zero.
    """
    m = STAMP_RE.match(name)
    if m:
        return m.group(1), int(m.group(2) or 0), name
    legacy = _LEGACY_RE.match(name)
    if legacy:
        return f"{legacy.group(1)}-{legacy.group(2)}-000000", -1, name
    return "", 0, name
