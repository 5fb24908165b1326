"""The outcome names of an attempt (spec §4.3.3), apart from the ranking contract that uses them.

Plain constants in a module of their own: ``perceive`` checks nothing against them, so it need not
load the ranking-policy records (:mod:`nervous.kernel.cortex.policy`) to have them.
"""

from __future__ import annotations

#: failure types of spec §4.3.3 (an unknown type is still a failure)
FAILURE_OUTCOMES: frozenset[str] = frozenset(
    {"task_mismatch", "runtime_error", "auth_error", "dependency_missing", "api_error"}
)
SUCCESS = "success"

__all__ = ["FAILURE_OUTCOMES", "SUCCESS"]
