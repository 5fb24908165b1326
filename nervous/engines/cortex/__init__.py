"""The skill cortex: the acquisition memory that routes tasks to skills and learns from every use.

See specs/skill-cortex.md. :class:`Cortex` (in :mod:`nervous.engines.cortex.engine`) is the engine other
parts of nervous call; it is imported lazily so ``import nervous.engines.cortex.entities`` stays light.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Cortex", "Perception", "OutcomeResult"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import engine

        return getattr(engine, name)
    raise AttributeError(f"module 'nervous.engines.cortex' has no attribute {name!r}")
