"""Fixed one-minute windows per caller and bucket, with ClawHub's headers (protocols §A3)."""

from __future__ import annotations

import threading
import time

from attrs import frozen

from .rules import Reject


@frozen
class RateLimits:
    """Requests per minute and caller for each bucket; ``enabled=False`` sends headers but never 429."""

    read: int = 3000
    download: int = 1200
    write: int = 300
    enabled: bool = True


class RateLimiter:
    """In-process counters (each server limits its own callers; a balancer spreads them)."""

    def __init__(self, limits: RateLimits) -> None:
        self.limits = limits
        self._lock = threading.Lock()
        self._counts: dict[tuple[str, str], int] = {}
        self._window = 0

    def check(self, bucket: str, caller: str, now: float | None = None) -> dict[str, str]:
        """Count one request; the headers to send, or :class:`Reject` 429 when over the limit."""
        now = time.time() if now is None else now
        window = int(now // 60)
        limit = int(getattr(self.limits, bucket))
        reset_at = (window + 1) * 60
        delay = max(1, int(reset_at - now))
        with self._lock:
            if window != self._window:
                self._counts.clear()
                self._window = window
            count = self._counts.get((bucket, caller), 0) + 1
            self._counts[(bucket, caller)] = count
        headers = {"X-RateLimit-Limit": str(limit), "RateLimit-Limit": str(limit),
                   "X-RateLimit-Reset": str(reset_at), "RateLimit-Reset": str(delay)}
        if self.limits.enabled and count > limit:
            raise Reject(429, "Rate limit exceeded", headers={
                **headers, "X-RateLimit-Remaining": "0", "RateLimit-Remaining": "0", "Retry-After": str(delay)})
        return headers
