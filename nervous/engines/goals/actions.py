"""The mutating goal actions (specs/goals.md §5.1–§5.11), as pure functions over a :class:`GoalFile`.

Each runs inside one storage transaction: it checks every guard before changing anything, and a
raised :class:`GoalError` discards the whole mutation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from attrs import define, field

from ...kernel.messages import AppendOnce
from . import args as A
from . import timefmt
from .document import GoalFile, id_number, next_id
from .errors import GoalError, invalid_arg
from .model import (
    ACCEPTANCE_MODES,
    FRAMING_LISTS,
    GATE_MODES,
    LEVELS,
    PRIORITIES,
    RECOMMENDATIONS,
    RETRYABILITY,
    Budget,
    Check,
    ExecutionPlan,
    Goal,
    GoalBlocker,
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
from .status import ACTIONABLE, NON_TERMINAL, WAITING, check_transition, is_terminal

MAX_PLAN_HISTORY = 10
MAX_FAILURE_HISTORY = 20
INTENT_FIELDS = ("goal", "intent_summary", "success_criteria", "constraints", "risks", "expected_output",
                 "framing", "complexity", "needs_magi", "magi_rationale")


@define
class Ctx:
    """What an action needs besides the document: the time and a place for warnings."""

    now_t: float
    warnings: list[str] = field(factory=list)
    #: ``warn(message)``: each message once, in linear time however many there are
    warn: AppendOnce = field(init=False, repr=False, eq=False)

    def __attrs_post_init__(self) -> None:
        self.warn = AppendOnce(self.warnings)

    @property
    def now(self) -> str:
        return timefmt.iso(self.now_t)


# ------------------------------------------------------------------------------------ resolution


def newest(goals: Sequence[Goal]) -> Goal | None:
    if not goals:
        return None
    return max(goals, key=lambda g: (timefmt.parse(g.created_at) or 0.0, id_number(g.id)))


def resolve(gf: GoalFile, ref: str | None) -> Goal:
    """The one meaning of a goal reference (§4): absent/"current", "latest", or an id."""
    ref = (ref or "current").strip() or "current"
    goals = list(gf.goals.values())
    if ref == "current":
        cur = gf.goals.get(gf.current_goal_id or "")
        if cur is not None and not is_terminal(cur.status):
            return cur
        found = newest([g for g in goals if g.status in ACTIONABLE]) or newest(
            [g for g in goals if g.status in WAITING])
        if found is None:
            raise GoalError("not_found", "no current goal: there is no actionable or waiting goal"
                            " (start one with analyze)")
        return found
    if ref == "latest":
        found = newest(goals)
        if found is None:
            raise GoalError("not_found", "no goals yet (start one with analyze)")
        return found
    if ref in gf.goals:
        return gf.goals[ref]
    if ref in gf.quarantined_goals or ref in gf.pending_quarantine:
        raise GoalError("not_found", f"goal {ref} is quarantined (malformed); see quarantined_goals")
    raise GoalError("not_found", f"no goal {ref!r}")


def _touch(goal: Goal, ctx: Ctx, *, progress: bool = True) -> None:
    goal.updated_at = ctx.now
    if progress:
        goal.budget.progress_at = ctx.now


def _set_status(gf: GoalFile, goal: Goal, target: str) -> None:
    check_transition(goal.id, goal.status, target)
    goal.status = target
    if is_terminal(target) and gf.current_goal_id == goal.id:
        gf.current_goal_id = None


def _require(goal: Goal, allowed: Sequence[str], action: str, code: str = "invalid_transition") -> None:
    if goal.status not in allowed:
        raise GoalError(code, f"{action} needs {goal.id} to be {' or '.join(allowed)}; it is {goal.status}")


def _resolve_failure(goal: Goal, ctx: Ctx, resolution: str) -> None:
    if goal.failure is None:
        return
    goal.failure.terminal_resolution = resolution
    goal.failure.resolved_at = ctx.now
    goal.failure_history.append(goal.failure)
    del goal.failure_history[:-MAX_FAILURE_HISTORY]
    goal.failure = None


# ------------------------------------------------------------------------------------ intent


def _risks(value: Any) -> list[Risk] | None:
    if value is None:
        return None
    if isinstance(value, (str, dict)) or hasattr(value, "description"):
        value = [value]
    if not isinstance(value, (list, tuple)):
        raise invalid_arg(f"risks: expected a list, got {type(value).__name__}")
    out = []
    for i, item in enumerate(value):
        if isinstance(item, str):
            item = {"description": item}
        raw = A.as_mapping(item, f"risks[{i}]")
        desc = A.required_str(raw.get("description"), f"risks[{i}].description")
        sev = A.choice(raw.get("severity"), f"risks[{i}].severity", LEVELS) or "medium"
        out.append(Risk(desc, sev))
    return out


def _framing_updates(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    raw = A.as_mapping(value, "framing")
    allowed = set(FRAMING_LISTS) | {"decision_needed"}
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise invalid_arg(f"framing: unknown key(s) {', '.join(unknown)}; accepted: {', '.join(sorted(allowed))}")
    out: dict[str, Any] = {k: A.str_list(raw[k], f"framing.{k}") for k in FRAMING_LISTS if k in raw}
    if "decision_needed" in raw:
        out["decision_needed"] = A.optional_str(raw["decision_needed"], "framing.decision_needed") or None
    return out


def _apply_framing(current: TaskFraming | None, updates: dict[str, Any]) -> TaskFraming | None:
    framing = current or TaskFraming()
    for k, v in updates.items():
        setattr(framing, k, [] if v is None and k != "decision_needed" else v)
    return None if framing.is_empty() else framing


def needs_magi_heuristic(intent: IntentAnalysis) -> bool:
    return (intent.complexity == "high" or any(r.severity == "high" for r in intent.risks)
            or len(intent.risks) >= 3)


def readiness_gaps(goal: Goal) -> list[str]:
    """What deliberation needs before it can start (§5.1); empty unless ``needs_magi``."""
    intent = goal.intent
    if not intent.needs_magi:
        return []
    framing = intent.framing or TaskFraming()
    gaps = []
    if not intent.goal.strip():
        gaps.append("objective")
    if not intent.success_criteria:
        gaps.append("success_criteria")
    if not framing.scope:
        gaps.append("scope")
    if not framing.decision_needed:
        gaps.append("decision_needed")
    return gaps


def _apply_intent(intent: IntentAnalysis, kw: dict[str, Any], *, creating: bool) -> None:
    for name in ("goal", "intent_summary", "expected_output", "magi_rationale"):
        if kw.get(name) is not None:
            value = A.optional_str(kw[name], name)
            if name == "magi_rationale":
                intent.magi_rationale = value or None
            elif value or not creating:
                setattr(intent, name, value)
    for name in ("success_criteria", "constraints"):
        items = A.str_list(kw.get(name), name)
        if items is not None:
            setattr(intent, name, items)
    risks = _risks(kw.get("risks"))
    if risks is not None:
        intent.risks = risks
    complexity = A.choice(kw.get("complexity"), "complexity", LEVELS)
    if complexity is not None:
        intent.complexity = complexity
    framing = _framing_updates(kw.get("framing"))
    if framing is not None:
        intent.framing = _apply_framing(intent.framing, framing)


def analyze(gf: GoalFile, ctx: Ctx, *, prompt: Any = None, **kw: Any) -> Goal:
    text = A.required_str(prompt, "prompt")
    A.reject_unknown(kw, set(INTENT_FIELDS), "analyze")
    intent = IntentAnalysis(intent_summary=text, goal=text)
    _apply_intent(intent, kw, creating=True)
    explicit = A.flag(kw.get("needs_magi"), "needs_magi")
    intent.needs_magi = needs_magi_heuristic(intent) if explicit is None else explicit
    gid = next_id("goal", gf.all_goal_keys())
    goal = Goal(id=gid, prompt=text, intent=intent, status="analyzed",
                budget=Budget(progress_at=ctx.now), created_at=ctx.now, updated_at=ctx.now)
    gf.goals[gid] = goal
    gf.current_goal_id = gid
    return goal


def refine(gf: GoalFile, ctx: Ctx, *, goal_id: Any = None, **kw: Any) -> Goal:
    A.reject_unknown(kw, set(INTENT_FIELDS), "refine")
    if all(kw.get(k) is None for k in INTENT_FIELDS):
        raise invalid_arg(f"refine needs at least one of {', '.join(INTENT_FIELDS)}")
    goal = resolve(gf, goal_id)
    _require(goal, ("analyzed",), "refine")
    _apply_intent(goal.intent, kw, creating=False)
    explicit = A.flag(kw.get("needs_magi"), "needs_magi")
    if explicit is not None:
        goal.intent.needs_magi = explicit
    _touch(goal, ctx)
    return goal


# ------------------------------------------------------------------------------------ plan and link


def _subtask_specs(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, (str, dict)):
        value = [value]
    if not isinstance(value, (list, tuple)) or not value:
        raise invalid_arg("subtasks: at least one subtask is required")
    specs = []
    for i, item in enumerate(value):
        if isinstance(item, str):
            item = {"title": item}
        raw = A.as_mapping(item, f"subtasks[{i}]")
        unknown = sorted(set(raw) - {"title", "description", "dependencies", "priority", "assigned_to", "id",
                                     "axon_task_id"})
        if unknown:
            raise invalid_arg(f"subtasks[{i}]: unknown key(s) {', '.join(unknown)}")
        specs.append({
            "title": A.required_str(raw.get("title"), f"subtasks[{i}].title"),
            "description": A.optional_str(raw.get("description"), f"subtasks[{i}].description") or "",
            "dependencies": A.str_list(raw.get("dependencies"), f"subtasks[{i}].dependencies") or [],
            "priority": A.choice(raw.get("priority"), f"subtasks[{i}].priority", PRIORITIES) or "medium",
            "assigned_to": A.optional_str(raw.get("assigned_to"), f"subtasks[{i}].assigned_to") or None,
        })
    return specs


def plan(gf: GoalFile, ctx: Ctx, *, goal_id: Any = None, subtasks: Any = None, magi_used: Any = None,
         magi_output_ref: Any = None) -> Goal:
    specs = _subtask_specs(subtasks)
    used = A.flag(magi_used, "magi_used") or False
    ref = A.optional_str(magi_output_ref, "magi_output_ref") or None
    goal = resolve(gf, goal_id)
    _require(goal, ("analyzed", "needs_replan"), "plan")
    check_transition(goal.id, goal.status, "planned")
    ids = [f"plan-{i + 1:03d}" for i in range(len(specs))]
    by_title: dict[str, str] = {}
    for pid, spec in zip(ids, specs, strict=True):
        by_title.setdefault(spec["title"].strip().lower(), pid)
    built = []
    for pid, spec in zip(ids, specs, strict=True):
        deps: list[str] = []
        seen: set[str] = set()  # beside ``deps``: a long list is checked in linear time
        for dep in spec["dependencies"]:
            target = by_title.get(dep.strip().lower(), dep.strip())
            if target == pid:
                ctx.warn(f"{pid} ({spec['title']}): dependency on itself dropped")
            elif target in seen:
                ctx.warn(f"{pid} ({spec['title']}): duplicate dependency {dep!r} dropped")
            else:
                deps.append(target)
                seen.add(target)
        built.append(Subtask(id=pid, title=spec["title"], description=spec["description"], dependencies=deps,
                             priority=spec["priority"], assigned_to=spec["assigned_to"]))
    if goal.plan is not None:
        goal.plan_history.append(PlanRecord(plan=goal.plan, axon_task_ids=list(goal.axon_task_ids),
                                            verification=goal.verification, archived_at=ctx.now,
                                            reason="replanned"))
        del goal.plan_history[:-MAX_PLAN_HISTORY]
    goal.axon_task_ids = []
    goal.verification = None
    goal.plan = ExecutionPlan(subtasks=built, magi_used=used, magi_output_ref=ref, created_at=ctx.now)
    if goal.status == "needs_replan":
        goal.budget.replans += 1
    _resolve_failure(goal, ctx, "resolved by replan")
    _set_status(gf, goal, "planned")
    _touch(goal, ctx)
    return goal


def _link_specs(value: Any) -> list[tuple[str | None, str]]:
    if isinstance(value, (str, dict)):
        value = [value]
    if not isinstance(value, (list, tuple)) or not value:
        raise invalid_arg("links: at least one link {plan_id?, axon_task_id} is required")
    out = []
    for i, item in enumerate(value):
        if isinstance(item, str):
            item = {"axon_task_id": item}
        raw = A.as_mapping(item, f"links[{i}]")
        unknown = sorted(set(raw) - {"plan_id", "axon_task_id"})
        if unknown:
            raise invalid_arg(f"links[{i}]: unknown key(s) {', '.join(unknown)}")
        pid = A.optional_str(raw.get("plan_id"), f"links[{i}].plan_id") or None
        out.append((pid, A.required_str(raw.get("axon_task_id"), f"links[{i}].axon_task_id")))
    return out


def link(gf: GoalFile, ctx: Ctx, *, goal_id: Any = None, links: Any = None) -> Goal:
    specs = _link_specs(links)
    goal = resolve(gf, goal_id)
    _require(goal, ("planned", "executing"), "link")
    if goal.plan is None:
        raise GoalError("invalid_transition", f"{goal.id} has no plan to link")
    subtasks = {s.id: s for s in goal.plan.subtasks}
    for pid, _task in specs:
        if pid is not None and pid not in subtasks:
            raise invalid_arg(f"links: {goal.id} has no subtask {pid} (has {', '.join(subtasks)})")
    linked = set(goal.axon_task_ids)  # indexes built once: many links are applied in linear time
    titled: dict[str, list[Subtask]] = {}
    for s in goal.plan.subtasks:
        titled.setdefault(s.title, []).append(s)
    for pid, task in specs:
        if task not in linked:
            goal.axon_task_ids.append(task)
            linked.add(task)
        if pid is not None:
            subtasks[pid].axon_task_id = task
        else:
            same = titled.get(task, [])
            if len(same) == 1:
                same[0].axon_task_id = task
    if goal.status == "planned":
        _set_status(gf, goal, "executing")
    _touch(goal, ctx)
    return goal


# ------------------------------------------------------------------------------------ verify, complete


def _checks(value: Any) -> list[Check]:
    if isinstance(value, dict) or hasattr(value, "criterion"):
        value = [value]
    if not isinstance(value, (list, tuple)) or not value:
        raise invalid_arg("checks: at least one check {criterion, passed, evidence?} is required")
    out = []
    for i, item in enumerate(value):
        raw = A.as_mapping(item, f"checks[{i}]")
        criterion = A.required_str(raw.get("criterion"), f"checks[{i}].criterion")
        passed = A.flag(raw.get("passed"), f"checks[{i}].passed")
        if passed is None:
            raise invalid_arg(f"checks[{i}].passed is required (true or false)")
        out.append(Check(criterion, passed, A.optional_str(raw.get("evidence"), f"checks[{i}].evidence") or ""))
    return out


def verify(gf: GoalFile, ctx: Ctx, *, goal_id: Any = None, checks: Any = None, all_axon_complete: Any = None,
           recommendation: Any = None, concerns: Any = None, override_evidence: Any = None,
           actor: Any = None) -> Goal:
    checks_ = _checks(checks)
    complete = A.flag(all_axon_complete, "all_axon_complete") or False
    explicit = A.choice(recommendation, "recommendation", RECOMMENDATIONS)
    concerns_ = A.str_list(concerns, "concerns") or []
    override_ev = A.optional_str(override_evidence, "override_evidence") or None
    who = A.optional_str(actor, "actor") or "user"
    goal = resolve(gf, goal_id)
    _require(goal, ("executing", "verified", "needs_replan"), "verify")
    failing = [c.criterion for c in checks_ if not c.passed]
    rec = explicit or ("approve" if not failing else "revise")
    override = None
    if rec == "approve" and failing:
        if override_ev is None:
            raise invalid_arg("approve refused: failing check(s): " + "; ".join(failing)
                              + " (give override_evidence to approve anyway; the override is recorded)")
        override = Override(evidence=override_ev, actor=who, at=ctx.now)
        concerns_.append("approved over failing checks")
    target = "verified" if rec == "approve" else "needs_replan"
    check_transition(goal.id, goal.status, target)
    if rec == "approve" and not complete:
        ctx.warn(f"{goal.id} approved while all_axon_complete is false: make sure linked tasks are done")
    goal.verification = VerificationReport(checks=checks_, all_axon_complete=complete, recommendation=rec,
                                           ready_for_magi_review=rec == "approve", concerns=concerns_,
                                           override=override, created_at=ctx.now)
    _set_status(gf, goal, target)
    _touch(goal, ctx)
    return goal


def complete(gf: GoalFile, ctx: Ctx, *, goal_id: Any = None) -> Goal:
    goal = resolve(gf, goal_id)
    if goal.status != "verified":
        raise GoalError("unverified", f"complete needs {goal.id} to be verified; it is {goal.status}"
                        " (verify it against the success criteria first)")
    _set_status(gf, goal, "completed")
    _resolve_failure(goal, ctx, "resolved by completion")
    if goal.blocker is not None and goal.blocker.terminal_resolution is None:
        goal.blocker.terminal_resolution = "completed"
    _touch(goal, ctx)
    return goal


# ------------------------------------------------------------------------------------ waiting states


def _non_terminal(goal: Goal, action: str) -> None:
    if goal.status not in NON_TERMINAL:
        raise GoalError("invalid_transition", f"{action}: {goal.id} is {goal.status} (terminal)")


def block(gf: GoalFile, ctx: Ctx, *, goal_id: Any = None, reason: Any = None, evidence: Any = None,
          related_ids: Any = None, next_revisit_at: Any = None, unblock_conditions: Any = None,
          status: str = "blocked") -> Goal:
    reason_ = A.required_str(reason, "reason")
    evidence_ = A.required_str(evidence, "evidence")
    related = A.str_list(related_ids, "related_ids") or []
    revisit = A.timestamp(next_revisit_at, "next_revisit_at") or ctx.now
    conditions = A.str_list(unblock_conditions, "unblock_conditions") or []
    goal = resolve(gf, goal_id)
    _non_terminal(goal, "escalate" if status == "needs_amygdala" else "block")
    _set_status(gf, goal, status)
    goal.blocker = GoalBlocker(status=status, reason=reason_, evidence=evidence_, related_ids=related,
                               next_revisit_at=revisit, revisit_count=0, unblock_conditions=conditions,
                               awaits_human=False, created_at=ctx.now)
    _touch(goal, ctx)
    return goal


def escalate(gf: GoalFile, ctx: Ctx, **kw: Any) -> Goal:
    return block(gf, ctx, **kw, status="needs_amygdala")


def accept_risk(gf: GoalFile, ctx: Ctx, *, goal_id: Any = None, reason: Any = None, evidence: Any = None,
                risk_gate_mode: Any = None, actor: Any = None, scope: Any = None, related_ids: Any = None,
                expires_at: Any = None) -> Goal:
    reason_ = A.required_str(reason, "reason")
    evidence_ = A.required_str(evidence, "evidence")
    mode_arg = A.choice(risk_gate_mode, "risk_gate_mode", GATE_MODES)
    expires = A.timestamp(expires_at, "expires_at")
    if expires is not None and (timefmt.parse(expires) or 0) <= ctx.now_t:
        raise invalid_arg(f"expires_at {expires} is not in the future (now is {ctx.now})")
    goal = resolve(gf, goal_id)
    _non_terminal(goal, "accept_risk")
    if mode_arg in ACCEPTANCE_MODES:
        mode = mode_arg
    else:
        gate = gf.config.risk_gate_mode
        mode = "user_accepted" if gate == "strict" else gate
    goal.risk_acceptance = RiskAcceptance(
        mode=mode, actor=A.optional_str(actor, "actor") or "user", scope=A.optional_str(scope, "scope") or goal.id,
        reason=reason_, evidence=evidence_, related_ids=A.str_list(related_ids, "related_ids") or [],
        accepted_at=ctx.now, expires_at=expires)
    _touch(goal, ctx)
    return goal


def record_failure(gf: GoalFile, ctx: Ctx, *, goal_id: Any = None, reason: Any = None, evidence: Any = None,
                   related_ids: Any = None, retryability: Any = None, max_attempts: Any = None,
                   next_retry_at: Any = None) -> Goal:
    reason_ = A.required_str(reason, "reason")
    evidence_ = A.required_str(evidence, "evidence")
    related = A.str_list(related_ids, "related_ids") or []
    retry = A.choice(retryability, "retryability", RETRYABILITY)
    limit = A.integer(max_attempts, "max_attempts")
    if limit is not None and not 1 <= limit <= 25:  # refused, never silently changed
        raise invalid_arg(f"max_attempts: {limit} is not an attempt limit; expected 1 to 25")
    next_retry = A.timestamp(next_retry_at, "next_retry_at")
    goal = resolve(gf, goal_id)
    _non_terminal(goal, "record_failure")
    prev = goal.failure
    goal.failure = GoalFailure(
        reason=reason_, evidence=evidence_,
        related_ids=list(dict.fromkeys([*(prev.related_ids if prev else []), *related])),
        retryability=retry or (prev.retryability if prev else "unknown"),
        attempts=(prev.attempts + 1) if prev else 1,
        max_attempts=limit if limit is not None else (prev.max_attempts if prev else 3),
        next_retry_at=next_retry if next_retry is not None else (prev.next_retry_at if prev else None),
        last_failure_at=ctx.now)
    _touch(goal, ctx)
    return goal


def reopen(gf: GoalFile, ctx: Ctx, *, goal_id: Any = None, reason: Any = None, evidence: Any = None,
           related_ids: Any = None) -> Goal:
    reason_ = A.required_str(reason, "reason")
    evidence_ = A.required_str(evidence, "evidence")
    related = A.str_list(related_ids, "related_ids") or []
    goal = resolve(gf, goal_id)
    _require(goal, WAITING, "reopen")
    _set_status(gf, goal, "needs_replan")
    if goal.blocker is not None:
        b = goal.blocker
        b.last_revisit_at = ctx.now
        b.revisit_count += 1
        b.terminal_resolution = f"{reason_} — {evidence_}"
        b.related_ids = list(dict.fromkeys([*b.related_ids, *related]))
        b.awaits_human = False
    goal.budget.exhausted = None
    goal.budget.replans = 0
    _resolve_failure(goal, ctx, f"resolved by reopen: {reason_}")
    _touch(goal, ctx)
    return goal


def cancel(gf: GoalFile, ctx: Ctx, *, goal_id: Any = None, reason: Any = None) -> Goal:
    reason_ = A.optional_str(reason, "reason") or None
    goal = resolve(gf, goal_id)
    _non_terminal(goal, "cancel")
    _set_status(gf, goal, "cancelled")
    if reason_ and goal.blocker is not None:
        goal.blocker.terminal_resolution = reason_
    _touch(goal, ctx)
    return goal


def set_current(gf: GoalFile, ctx: Ctx, *, goal_id: Any = None) -> Goal:
    ref = A.required_str(goal_id, "goal_id")
    goal = resolve(gf, ref)
    if is_terminal(goal.status):
        raise GoalError("invalid_transition", f"set_current: {goal.id} is {goal.status}; only non-terminal goals"
                        " can be current")
    gf.current_goal_id = goal.id
    return goal




MUTATIONS: dict[str, Callable[..., Goal]] = {
    "analyze": analyze, "refine": refine, "plan": plan, "link": link, "verify": verify, "complete": complete,
    "block": block, "escalate": escalate, "accept_risk": accept_risk, "record_failure": record_failure,
    "reopen": reopen, "cancel": cancel, "set_current": set_current,
}
