"""The skill evolver (specs/evolver.md): reusable workflows become reviewed, versioned, reversible skills.

Candidates live in ``./.skill-evolver/`` of a workspace and publish to ``./skills/learned-<slug>/``.
Every draft goes through the classification, risk-scoring and review-policy hooks; high-risk or
refused drafts never become candidates. Multi-file changes commit all-or-nothing through a journal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import EvolverError

if TYPE_CHECKING:
    from .engine import Evolver

__all__ = ["Evolver", "EvolverError"]


def __getattr__(name: str) -> Any:
    if name == "Evolver":
        from .engine import Evolver

        return Evolver
    raise AttributeError(name)
