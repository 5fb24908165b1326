"""Durable goals: intent, plan, links, verification, blockers and a bounded drain (specs/goals.md).

Host agents use :class:`Goals` (one method per action, typed records in and out); the CLI is
``nervous goal``. Everything is stored through the configured storage backend.
"""

from __future__ import annotations

from .engine import COLLECTION, GoalResult, Goals
from .errors import GoalError
from .hardstop import HardStopMatcher
from .location import Scope, resolve_scope
from .model import (
    Budget,
    Check,
    DrainPolicySpec,
    DrainRun,
    ExecutionPlan,
    Goal,
    GoalBlocker,
    GoalConfig,
    GoalFailure,
    IntentAnalysis,
    Override,
    PlanRecord,
    Risk,
    RiskAcceptance,
    Subtask,
    TaskFraming,
    VerificationReport,
)

__all__ = [
    "Goals", "GoalResult", "GoalError", "COLLECTION", "Scope", "resolve_scope", "HardStopMatcher",
    "Budget", "Check", "DrainPolicySpec", "DrainRun", "ExecutionPlan", "Goal", "GoalBlocker", "GoalConfig",
    "GoalFailure", "IntentAnalysis", "Override", "PlanRecord", "Risk", "RiskAcceptance", "Subtask",
    "TaskFraming", "VerificationReport",
]
