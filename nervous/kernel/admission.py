"""The install gate's admission mark, in the kernel so install targets (plugins) can check it.

:meth:`nervous.engines.install.gate.Gate.admit` runs a staged install inside :func:`admission`; an install target
calls :func:`require_admission` before it writes, so a write that did not pass the gate is refused
(a tripwire for a new install path that bypasses it).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

from ..errors import Refused

_ADMITTED: contextvars.ContextVar[Any] = contextvars.ContextVar("nervous_gate_admitted", default=None)


@contextlib.contextmanager
def admission(verdict: Any) -> Iterator[Any]:
    """Mark ``verdict`` as admitted while the staged install runs (only :meth:`Gate.admit` should enter it)."""
    token = _ADMITTED.set(verdict)
    try:
        yield verdict
    finally:
        _ADMITTED.reset(token)


def admitted() -> Any:
    """The verdict of the admission in progress (install targets refuse writes outside one)."""
    return _ADMITTED.get()


def require_admission(what: str) -> Any:
    """Raise unless an admission is in progress: install targets call this before writing."""
    verdict = _ADMITTED.get()
    if verdict is None:
        raise Refused(f"{what}: skills reach the disk only through the install gate", code="not_admitted")
    return verdict


__all__ = ["admission", "admitted", "require_admission"]
