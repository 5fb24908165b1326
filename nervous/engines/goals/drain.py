"""Drain: a bounded pass over the open goals that says what can be worked next (specs/goals.md §6).

A run never silently abandons a goal: afterwards every goal of its snapshot is workable, waiting
with revisit or retry evidence, or awaiting a human with a recorded reason. Budgets are enforced,
and hard-stop matches go through the configured risk gate.
"""

from __future__ import annotations

from typing import Any

from . import args as A
from . import timefmt
from .actions import Ctx
from .document import GoalFile, id_number, next_id
from .errors import GoalError
from .hardstop import HardStopMatch, HardStopMatcher
from .model import DrainPolicySpec, DrainRun, Exhaustion, Goal, GoalBlocker
from .status import ACTIONABLE, NON_TERMINAL, WAITING, check_transition

DEFAULT_MAX_GOALS = 25
MAX_GOALS_LIMIT = 250

_ESCALATION = {
    "strict": ('Hard-stop category "{c}" requires human risk review (strict gate)',
               ["record the human decision", "switch the gate or finish the goal outside drain", "or cancel"]),
    "auto_deliberate": ('Hard-stop category "{c}" needs recorded deliberation approval',
                        ["accept_risk with risk_gate_mode=auto_deliberate and the approval evidence",
                         "then reopen"]),
    "user_accepted": ('Hard-stop category "{c}" needs scoped user acceptance',
                      ["accept_risk with risk_gate_mode=user_accepted, actor and scope", "then reopen"]),
}


def check_mode(drain_mode: str, *, explicit: bool, force: bool) -> None:
    """§6.1: ``off`` needs ``force``; ``on_explicit_nervous`` needs ``explicit`` or ``force``."""
    if force or drain_mode == "always":
        return
    if drain_mode == "on_explicit_nervous" and explicit:
        return
    need = "force=true" if drain_mode == "off" else "explicit=true (the user explicitly asked to drain) or force=true"
    raise GoalError("not_permitted", f"drain is not permitted in drain_mode {drain_mode}: pass {need}")


def clamp_max_goals(value: Any) -> int:
    n = A.integer(value, "max_goals")
    return DEFAULT_MAX_GOALS if n is None else min(max(n, 1), MAX_GOALS_LIMIT)


def _acceptance_covers(goal: Goal, mode: str, match: HardStopMatch, now_t: float) -> bool:
    """An unexpired acceptance of ``mode`` whose scope is this goal (or the matched category)."""
    acc = goal.risk_acceptance
    if acc is None or acc.mode != mode:
        return False
    if acc.scope not in (goal.id, match.category):
        return False
    if acc.expires_at is None:
        return True
    expires = timefmt.parse(acc.expires_at)
    return expires is not None and expires > now_t


def _escalate(gf: GoalFile, goal: Goal, mode: str, match: HardStopMatch, ctx: Ctx) -> None:
    reason, conditions = _ESCALATION[mode]
    check_transition(goal.id, goal.status, "needs_amygdala")
    goal.status = "needs_amygdala"
    goal.blocker = GoalBlocker(status="needs_amygdala", reason=reason.format(c=match.category),
                               evidence=match.line, related_ids=[], next_revisit_at=ctx.now, revisit_count=0,
                               unblock_conditions=list(conditions), awaits_human=False, created_at=ctx.now)
    goal.updated_at = ctx.now


def _exhaustion(goal: Goal, policy: DrainPolicySpec) -> tuple[str, str] | None:
    if goal.status == "needs_replan" and goal.budget.replans >= policy.max_replans_per_goal:
        return "replans", f"{goal.budget.replans}/{policy.max_replans_per_goal}"
    f = goal.failure
    if f is not None and f.retryability == "retryable":
        if f.attempts >= f.max_attempts:
            return "retries", f"{f.attempts}/{f.max_attempts} attempts"
        if f.attempts > policy.max_retries_per_goal:
            return "retries", f"{f.attempts - 1}/{policy.max_retries_per_goal} retries"
    if f is not None and f.retryability == "not_retryable":
        return "not_retryable", f.reason
    return None


def _exhaust(goal: Goal, reason: str, detail: str, run_id: str, ctx: Ctx) -> str:
    check_transition(goal.id, goal.status, "blocked")
    goal.status = "blocked"
    goal.blocker = GoalBlocker(status="blocked", reason=f"drain budget exhausted: {reason} ({detail})",
                               evidence=run_id, related_ids=[run_id], next_revisit_at=None, revisit_count=0,
                               unblock_conditions=["reopen with new evidence", "or cancel"], awaits_human=True,
                               created_at=ctx.now)
    goal.budget.exhausted = Exhaustion(reason=reason, detail=detail, at=ctx.now, run_id=run_id)
    goal.updated_at = ctx.now
    return f"{goal.id}: drain budget exhausted: {reason} ({detail}); waiting for a human"


def _revisit_due(goal: Goal, now_t: float) -> bool:
    b = goal.blocker
    if b is None:
        return True
    if b.awaits_human:
        return False
    t = timefmt.parse(b.next_revisit_at)
    return t is None or t <= now_t


def _retry_due(goal: Goal, policy: DrainPolicySpec, now_t: float) -> bool:
    f = goal.failure
    if f is None or f.retryability != "retryable":
        return False
    if f.attempts >= f.max_attempts or f.attempts > policy.max_retries_per_goal:
        return False
    t = timefmt.parse(f.next_retry_at)
    return f.next_retry_at is None or (t is not None and t <= now_t)


def _streak(gf: GoalFile) -> int:
    if not gf.drain_runs:
        return 0
    prev = max(gf.drain_runs.values(), key=lambda r: (timefmt.parse(r.created_at) or 0.0, id_number(r.id)))
    since = timefmt.parse(prev.created_at) or 0.0
    for goal in gf.goals.values():
        t = timefmt.parse(goal.budget.progress_at)
        if t is not None and t > since:
            return 0
    return prev.no_progress_streak + 1


def drain(gf: GoalFile, ctx: Ctx, policy: DrainPolicySpec, matcher: HardStopMatcher, *, evidence: Any = None,
          force: Any = None, explicit: Any = None) -> DrainRun:
    """Run the algorithm of §6.6 and record the run. ``policy`` already carries ``max_goals``."""
    forced = A.flag(force, "force") or False
    is_explicit = A.flag(explicit, "explicit") or False
    caller_evidence = A.str_list(evidence, "evidence") or []
    check_mode(gf.config.drain_mode, explicit=is_explicit, force=forced)
    run_id = next_id("drain", gf.drain_runs)
    gate = gf.config.risk_gate_mode
    now_t = ctx.now_t

    open_goals = sorted((g for g in gf.goals.values() if g.status in NON_TERMINAL),
                        key=lambda g: (timefmt.parse(g.created_at) or 0.0, id_number(g.id)))
    snapshot = open_goals[:policy.max_goals]
    streak = _streak(gf)
    run = DrainRun(id=run_id, policy=policy, risk_gate_mode=gate, explicit=is_explicit, forced=forced,
                   goal_ids=[g.id for g in snapshot], no_progress_streak=streak, evidence=list(caller_evidence),
                   created_at=ctx.now, updated_at=ctx.now)
    if len(open_goals) > len(snapshot):
        run.evidence.append(f"snapshot limited to {policy.max_goals} of {len(open_goals)} open goals")

    escalated: set[str] = set()
    for goal in snapshot:  # 5. hard stops through the risk gate
        if goal.status not in ACTIONABLE:
            continue
        match = matcher.match_goal(goal)
        if match is None:
            continue
        if gate == "disabled":
            run.risk_accepted_goal_ids.append(goal.id)
            run.evidence.append(f"{goal.id}: {match.line}; risk gate disabled, accepted with evidence: "
                                f"{gf.config.risk_gate_evidence}")
        elif gate != "strict" and _acceptance_covers(goal, gate, match, now_t):
            acc = goal.risk_acceptance
            assert acc is not None
            run.risk_accepted_goal_ids.append(goal.id)
            run.evidence.append(f"{goal.id}: {match.line}; accepted ({acc.mode} by {acc.actor}, scope "
                                f"{acc.scope}): {acc.evidence}")
        else:
            _escalate(gf, goal, gate, match, ctx)
            escalated.add(goal.id)
            run.evidence.append(f"{goal.id}: {match.line}; escalated to needs_amygdala ({gate} gate)")

    for goal in snapshot:  # 6. budgets
        if goal.status not in ACTIONABLE:
            continue
        hit = _exhaustion(goal, policy)
        if hit is not None:
            run.evidence.append(_exhaust(goal, hit[0], hit[1], run_id, ctx))

    due: set[str] = set()
    for goal in snapshot:  # 7. due revisits
        if goal.status in WAITING and goal.id not in escalated and _revisit_due(goal, now_t):
            due.add(goal.id)
            if goal.blocker is not None:
                goal.blocker.last_revisit_at = ctx.now
                goal.blocker.revisit_count += 1
                goal.updated_at = ctx.now

    for goal in snapshot:  # 8. queues
        f = goal.failure
        retry_due = _retry_due(goal, policy, now_t)
        unclassified = f is not None and f.retryability == "unknown"
        workable = False
        if goal.status in ACTIONABLE and f is None:
            run.actionable_goal_ids.append(goal.id)
            workable = True
        if goal.id in due:
            run.due_revisit_goal_ids.append(goal.id)
            workable = True
        if retry_due:
            run.retryable_goal_ids.append(goal.id)
            workable = True
        if unclassified:
            run.needs_retry_classification_goal_ids.append(goal.id)
            workable = True
        if workable:
            run.workable_goal_ids.append(goal.id)
        if goal.status in WAITING:
            run.blocked_goal_ids.append(goal.id)
        if (goal.status in WAITING and goal.id not in due) or (f is not None and not retry_due and not unclassified):
            run.waiting_goal_ids.append(goal.id)
        if goal.budget.exhausted is not None and goal.blocker is not None and goal.blocker.awaits_human:
            run.exhausted_goal_ids.append(goal.id)

    if streak >= policy.max_no_progress_iterations:  # 9. status
        run.status = "exhausted"
        run.evidence.append(f"no progress for {streak} drain runs (limit {policy.max_no_progress_iterations});"
                            " stop and report to the user")
    elif run.workable_goal_ids:
        run.status = "running"
    elif run.exhausted_goal_ids:
        run.status = "exhausted"
    elif run.waiting_goal_ids or run.blocked_goal_ids:
        run.status = "blocked"
    else:
        run.status = "completed"
    gf.drain_runs[run_id] = run
    return run


def latest_run(gf: GoalFile) -> DrainRun | None:
    if not gf.drain_runs:
        return None
    return max(gf.drain_runs.values(), key=lambda r: (timefmt.parse(r.created_at) or 0.0, id_number(r.id)))
