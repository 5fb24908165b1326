"""List cursors as ClawHub hands them out: an opaque, URL-safe token for an offset.

One codec for the registry server and the test stand-in, so both accept each other's cursors.
"""

from __future__ import annotations

import base64


def encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"o:{offset}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str | None) -> int:
    """The offset a cursor stands for (0 without one); :class:`ValueError` for anything else."""
    if not cursor:
        return 0
    raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    if not raw.startswith("o:"):
        raise ValueError(raw)
    return max(0, int(raw[2:]))
