"""The goal records (specs/goals.md §2, §6.7, §7) and their lenient JSON round trip.

Stored documents outlive releases and may be hand-edited, so reading never fails on a bad value:
each field falls back to its documented default with a warning that reaches the caller (§8.6),
and keys we do not know are kept in ``extra`` and written back unchanged.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from typing import Any, TypeVar, Union

import attrs
from attrs import define, field

Warn = Callable[[str], None]
T = TypeVar("T")

STATUSES = ("analyzed", "planned", "executing", "verified", "needs_replan", "blocked", "needs_amygdala",
            "completed", "cancelled")
LEVELS = ("low", "medium", "high")
PRIORITIES = ("low", "medium", "high", "critical")
RECOMMENDATIONS = ("approve", "revise", "replan", "escalate_to_magi")
RETRYABILITY = ("unknown", "retryable", "not_retryable")
ACCEPTANCE_MODES = ("auto_deliberate", "user_accepted", "disabled")
GATE_MODES = ("strict", "auto_deliberate", "user_accepted", "disabled")
DRAIN_MODES = ("off", "on_explicit_nervous", "always")
RUN_STATUSES = ("running", "completed", "blocked", "exhausted")
EXHAUSTION_REASONS = ("replans", "retries", "not_retryable")
BLOCKER_STATUSES = ("blocked", "needs_amygdala")


def _field(default: Any = attrs.NOTHING, *, factory: Callable[[], Any] | None = None,
           choices: tuple[str, ...] | None = None, fallback: Any = None, omit_none: bool = False) -> Any:
    meta = {"choices": choices, "fallback": fallback, "omit_none": omit_none}
    if factory is not None:
        return field(factory=factory, metadata=meta)
    return field(default=default, metadata=meta)


def _extra() -> Any:
    return field(factory=dict, repr=False)


# ------------------------------------------------------------------------------------ intent


@define
class Risk:
    description: str = ""
    severity: str = _field("medium", choices=LEVELS, fallback="medium")
    extra: dict[str, Any] = _extra()


@define
class TaskFraming:
    context: list[str] = _field(factory=list)
    scope: list[str] = _field(factory=list)
    non_goals: list[str] = _field(factory=list)
    assumptions: list[str] = _field(factory=list)
    open_questions: list[str] = _field(factory=list)
    candidate_options: list[str] = _field(factory=list)
    decision_needed: str | None = _field(None, omit_none=True)
    extra: dict[str, Any] = _extra()

    def is_empty(self) -> bool:
        return not any(getattr(self, k) for k in FRAMING_LISTS) and not self.decision_needed and not self.extra


FRAMING_LISTS = ("context", "scope", "non_goals", "assumptions", "open_questions", "candidate_options")


@define
class IntentAnalysis:
    intent_summary: str = ""
    goal: str = ""
    success_criteria: list[str] = _field(factory=list)
    constraints: list[str] = _field(factory=list)
    risks: list[Risk] = _field(factory=list)
    expected_output: str = ""
    framing: TaskFraming | None = _field(None, omit_none=True)
    complexity: str = _field("medium", choices=LEVELS, fallback="medium")
    needs_magi: bool = False
    magi_rationale: str | None = _field(None, omit_none=True)
    extra: dict[str, Any] = _extra()


# ------------------------------------------------------------------------------------ plan


@define
class Subtask:
    id: str
    title: str
    description: str = ""
    dependencies: list[str] = _field(factory=list)
    priority: str = _field("medium", choices=PRIORITIES, fallback="medium")
    assigned_to: str | None = None
    axon_task_id: str | None = None
    extra: dict[str, Any] = _extra()


@define
class ExecutionPlan:
    subtasks: list[Subtask] = _field(factory=list)
    magi_used: bool = False
    magi_output_ref: str | None = None
    created_at: str = ""
    extra: dict[str, Any] = _extra()


# ------------------------------------------------------------------------------------ verification


@define
class Check:
    criterion: str
    passed: bool
    evidence: str = ""
    extra: dict[str, Any] = _extra()


@define
class Override:
    evidence: str
    actor: str = "user"
    at: str = ""
    extra: dict[str, Any] = _extra()


@define
class VerificationReport:
    checks: list[Check] = _field(factory=list)
    all_axon_complete: bool = False
    recommendation: str = _field("revise", choices=RECOMMENDATIONS, fallback="revise")
    ready_for_magi_review: bool = False
    concerns: list[str] = _field(factory=list)
    override: Override | None = None
    created_at: str = ""
    extra: dict[str, Any] = _extra()


# ------------------------------------------------------------------------------------ blockers, risk, failures


@define
class GoalBlocker:
    status: str = _field("blocked", choices=BLOCKER_STATUSES, fallback="blocked")
    reason: str = ""
    evidence: str = ""
    related_ids: list[str] = _field(factory=list)
    next_revisit_at: str | None = None
    last_revisit_at: str | None = _field(None, omit_none=True)
    revisit_count: int = 0
    unblock_conditions: list[str] = _field(factory=list)
    terminal_resolution: str | None = _field(None, omit_none=True)
    awaits_human: bool = False
    created_at: str = ""
    extra: dict[str, Any] = _extra()


@define
class RiskAcceptance:
    mode: str = _field("user_accepted", choices=ACCEPTANCE_MODES, fallback="user_accepted")
    actor: str = "user"
    scope: str = ""
    reason: str = ""
    evidence: str = ""
    related_ids: list[str] = _field(factory=list)
    accepted_at: str = ""
    expires_at: str | None = _field(None, omit_none=True)
    extra: dict[str, Any] = _extra()


@define
class GoalFailure:
    reason: str = ""
    evidence: str = ""
    related_ids: list[str] = _field(factory=list)
    retryability: str = _field("unknown", choices=RETRYABILITY, fallback="unknown")
    attempts: int = 1
    max_attempts: int = 3
    next_retry_at: str | None = _field(None, omit_none=True)
    last_failure_at: str = ""
    terminal_resolution: str | None = _field(None, omit_none=True)
    resolved_at: str | None = _field(None, omit_none=True)
    extra: dict[str, Any] = _extra()


@define
class PlanRecord:
    plan: ExecutionPlan | None = None
    axon_task_ids: list[str] = _field(factory=list)
    verification: VerificationReport | None = None
    archived_at: str = ""
    reason: str = "replanned"
    extra: dict[str, Any] = _extra()


@define
class Exhaustion:
    reason: str = _field("replans", choices=EXHAUSTION_REASONS, fallback="replans")
    detail: str = ""
    at: str = ""
    run_id: str | None = None
    extra: dict[str, Any] = _extra()


@define
class Budget:
    replans: int = 0
    progress_at: str | None = None
    exhausted: Exhaustion | None = None
    extra: dict[str, Any] = _extra()


# ------------------------------------------------------------------------------------ goal


@define
class Goal:
    id: str
    prompt: str
    intent: IntentAnalysis
    status: str = _field("analyzed", choices=STATUSES, fallback="analyzed")
    plan: ExecutionPlan | None = _field(None, omit_none=True)
    axon_task_ids: list[str] = _field(factory=list)
    verification: VerificationReport | None = _field(None, omit_none=True)
    blocker: GoalBlocker | None = None
    risk_acceptance: RiskAcceptance | None = None
    failure: GoalFailure | None = None
    failure_history: list[GoalFailure] = _field(factory=list)
    plan_history: list[PlanRecord] = _field(factory=list)
    budget: Budget = _field(factory=Budget)
    created_at: str = ""
    updated_at: str = ""
    extra: dict[str, Any] = _extra()


# ------------------------------------------------------------------------------------ drain and config


@define
class DrainPolicySpec:
    name: str = "default"
    max_goals: int = 25
    max_replans_per_goal: int = 3
    max_retries_per_goal: int = 3
    max_no_progress_iterations: int = 5
    hard_stop_categories: list[str] = _field(factory=list)
    extra: dict[str, Any] = _extra()


@define
class DrainRun:
    id: str
    status: str = _field("running", choices=RUN_STATUSES, fallback="blocked")
    policy: DrainPolicySpec = _field(factory=DrainPolicySpec)
    risk_gate_mode: str = _field("auto_deliberate", choices=GATE_MODES, fallback="strict")
    explicit: bool = False
    forced: bool = False
    goal_ids: list[str] = _field(factory=list)
    actionable_goal_ids: list[str] = _field(factory=list)
    due_revisit_goal_ids: list[str] = _field(factory=list)
    retryable_goal_ids: list[str] = _field(factory=list)
    needs_retry_classification_goal_ids: list[str] = _field(factory=list)
    workable_goal_ids: list[str] = _field(factory=list)
    blocked_goal_ids: list[str] = _field(factory=list)
    waiting_goal_ids: list[str] = _field(factory=list)
    terminal_goal_ids: list[str] = _field(factory=list)
    risk_accepted_goal_ids: list[str] = _field(factory=list)
    exhausted_goal_ids: list[str] = _field(factory=list)
    no_progress_streak: int = 0
    evidence: list[str] = _field(factory=list)
    created_at: str = ""
    updated_at: str = ""
    extra: dict[str, Any] = _extra()


@define
class GoalConfig:
    drain_mode: str = _field("on_explicit_nervous", choices=DRAIN_MODES, fallback="on_explicit_nervous")
    default_drain_policy: str = "default"
    risk_gate_mode: str = _field("auto_deliberate", choices=GATE_MODES, fallback="auto_deliberate")
    risk_gate_evidence: str | None = _field(None, omit_none=True)
    updated_at: str | None = _field(None, omit_none=True)
    extra: dict[str, Any] = _extra()


# ------------------------------------------------------------------------------------ lenient parsing

_SKIP = object()
_resolved: set[type] = set()


def _fields(cls: type) -> tuple[attrs.Attribute, ...]:  # type: ignore[type-arg]
    if cls not in _resolved:
        attrs.resolve_types(cls, globals())
        _resolved.add(cls)
    return tuple(attrs.fields(cls))


def parse(cls: type[T], raw: Any, where: str, warn: Warn) -> T:
    """Build ``cls`` from stored JSON, coercing bad values to defaults with a warning."""
    if not isinstance(raw, dict):
        warn(f"{where}: expected an object, got {type(raw).__name__}; using defaults")
        raw = {}
    kwargs: dict[str, Any] = {}
    known: set[str] = set()
    for f in _fields(cls):
        if f.name == "extra":
            continue
        known.add(f.name)
        if f.name not in raw:
            if f.default is attrs.NOTHING:  # required: the caller checked presence; be safe anyway
                kwargs[f.name] = _empty(f.type)
            continue
        value = _value(f, f.type, raw[f.name], f"{where}.{f.name}", warn)
        if value is _SKIP:
            if f.default is attrs.NOTHING:
                kwargs[f.name] = _empty(f.type)
            continue
        kwargs[f.name] = value
    kwargs["extra"] = {k: v for k, v in raw.items() if k not in known}
    return cls(**kwargs)


def _empty(tp: Any) -> Any:
    if tp is str:
        return ""
    if tp is bool:
        return False
    if tp is int:
        return 0
    if attrs.has(tp):
        return parse(tp, {}, "", lambda _m: None)
    return None


def _value(f: attrs.Attribute, tp: Any, v: Any, where: str, warn: Warn) -> Any:  # type: ignore[type-arg]
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        if v is None:
            return None
        tp = next(a for a in typing.get_args(tp) if a is not type(None))
        origin = typing.get_origin(tp)
    choices = f.metadata.get("choices")
    if choices:
        if isinstance(v, str) and v in choices:
            return v
        fallback = f.metadata.get("fallback")
        warn(f"{where}: invalid value {v!r} (expected one of {', '.join(choices)}); using {fallback!r}")
        return fallback
    if tp is str:
        if isinstance(v, str):
            return v
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            warn(f"{where}: expected a string, got a number; converted")
            return str(v)
    elif tp is bool:
        if isinstance(v, bool):
            return v
    elif tp is int:
        if isinstance(v, int) and not isinstance(v, bool):
            return v
        if isinstance(v, float) and v.is_integer():
            return int(v)
    elif origin is list:
        (item,) = typing.get_args(tp)
        if item is str:
            if isinstance(v, str):
                warn(f"{where}: expected a list of strings, got a string; normalised")
                return [v.strip()] if v.strip() else []
            if isinstance(v, list):
                kept = [x.strip() for x in v if isinstance(x, str) and x.strip()]
                if len(kept) != len(v) and any(not isinstance(x, str) for x in v):
                    warn(f"{where}: dropped non-string items")
                return kept
        elif isinstance(v, list):
            out = []
            for i, x in enumerate(v):
                if isinstance(x, dict) and _has_required(item, x):
                    out.append(parse(item, x, f"{where}[{i}]", warn))
                else:
                    warn(f"{where}[{i}]: malformed entry dropped: {x!r}")
            return out
    elif origin is dict:
        if isinstance(v, dict):
            return v
    elif attrs.has(tp):
        if isinstance(v, dict):
            return parse(tp, v, where, warn)
    elif tp is Any:
        return v
    warn(f"{where}: unexpected value {v!r}; using the default")
    return _SKIP


_REQUIRED_KEYS: dict[type, tuple[str, ...]] = {}


def _has_required(cls: type, raw: dict[str, Any]) -> bool:
    if cls not in _REQUIRED_KEYS:
        _REQUIRED_KEYS[cls] = tuple(f.name for f in _fields(cls)
                                    if f.default is attrs.NOTHING and f.name != "extra")
    return all(k in raw for k in _REQUIRED_KEYS[cls])


def dump(obj: Any) -> Any:
    """A record (or list/dict of records) as JSON data; unknown keys written back after ours."""
    if attrs.has(type(obj)):
        out: dict[str, Any] = {}
        for f in _fields(type(obj)):
            if f.name == "extra":
                continue
            v = getattr(obj, f.name)
            if v is None and f.metadata.get("omit_none"):
                continue
            out[f.name] = dump(v)
        for k, v in getattr(obj, "extra", {}).items():
            out.setdefault(k, v)
        return out
    if isinstance(obj, list):
        return [dump(x) for x in obj]
    if isinstance(obj, dict):
        return {k: dump(v) for k, v in obj.items()}
    return obj


def parse_goal(raw: dict[str, Any], where: str, warn: Warn) -> Goal:
    goal = parse(Goal, raw, where, warn)
    intent = goal.intent
    if intent.framing is not None and intent.framing.is_empty():
        intent.framing = None
    return goal


__all__ = [
    "Risk", "TaskFraming", "IntentAnalysis", "Subtask", "ExecutionPlan", "Check", "Override",
    "VerificationReport", "GoalBlocker", "RiskAcceptance", "GoalFailure", "PlanRecord", "Exhaustion",
    "Budget", "Goal", "DrainPolicySpec", "DrainRun", "GoalConfig", "parse", "dump", "parse_goal",
    "STATUSES",
]
