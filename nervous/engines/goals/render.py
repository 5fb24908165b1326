"""Markdown views of goals, runs and the store, and the "what's next" hint (specs/goals.md §4).

The hint is what makes a goal resumable without the conversation that created it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import timefmt
from .actions import readiness_gaps
from .model import DrainRun, Goal, GoalConfig
from .settings import describe
from .status import ACTIONABLE, STATUS_ORDER, WAITING


def next_hint(goal: Goal, *, replan_limit: int = 3) -> str:
    b = goal.blocker
    if goal.status in WAITING and b is not None and b.awaits_human:
        return "a human must decide: reopen with new evidence, or cancel"
    if goal.failure is not None and goal.status not in ("completed", "cancelled"):
        f = goal.failure
        if f.retryability == "unknown":
            return (f"classify the failure ({f.reason}): record_failure with retryability retryable or "
                    "not_retryable, or replan")
        when = f" at {f.next_retry_at}" if f.next_retry_at else ""
        return f"retry when due{when} (attempt {f.attempts + 1} of {f.max_attempts}), or replan"
    status = goal.status
    if status == "analyzed":
        if goal.intent.needs_magi:
            gaps = readiness_gaps(goal)
            if gaps:
                return f"refine the missing fields ({', '.join(gaps)}), then deliberate"
            return "run deliberation, then plan"
        return "plan: break the goal into subtasks"
    if status == "planned":
        return "create external tasks and link them"
    if status == "executing":
        return "do the work; then verify against the success criteria"
    if status == "verified":
        return "optional final review; then complete"
    if status == "needs_replan":
        return f"plan again (budget: {goal.budget.replans}/{replan_limit} replans used)"
    if status in WAITING:
        conditions = "; ".join(b.unblock_conditions) if b is not None and b.unblock_conditions else \
            "the blocker"
        if "reopen" in conditions:
            return f"resolve: {conditions} (or cancel)"
        return f"resolve: {conditions}; then reopen with evidence (or cancel)"
    if status == "completed":
        return "nothing: the goal is completed"
    return "nothing: the goal is cancelled"


def goal_markdown(goal: Goal, *, current: bool = False, hint: str | None = None) -> str:
    intent = goal.intent
    lines = [f"## {goal.id} · {goal.status}{' (current)' if current else ''}", "", f"**Prompt:** {goal.prompt}"]
    if intent.goal and intent.goal != goal.prompt:
        lines.append(f"**Goal:** {intent.goal}")
    lines.append(f"**Complexity:** {intent.complexity} · **deliberation:** "
                 f"{'needed' if intent.needs_magi else 'not needed'}")
    if intent.success_criteria:
        lines += ["", "**Success criteria:**", *(f"- {c}" for c in intent.success_criteria)]
    if intent.constraints:
        lines += ["", "**Constraints:**", *(f"- {c}" for c in intent.constraints)]
    if intent.risks:
        lines += ["", "**Risks:**", *(f"- {r.severity}: {r.description}" for r in intent.risks)]
    if intent.framing is not None:
        f = intent.framing
        parts = [(k.replace("_", " "), getattr(f, k)) for k in ("scope", "non_goals", "assumptions",
                                                                 "open_questions", "candidate_options", "context")]
        shown = [f"- {k}: {', '.join(v)}" for k, v in parts if v]
        if f.decision_needed:
            shown.append(f"- decision needed: {f.decision_needed}")
        lines += ["", "**Framing:**", *shown]
    if goal.plan is not None:
        lines += ["", "**Plan:**"]
        for s in goal.plan.subtasks:
            deps = f" (after {', '.join(s.dependencies)})" if s.dependencies else ""
            task = f" → {s.axon_task_id}" if s.axon_task_id else ""
            lines.append(f"- {s.id} [{s.priority}] {s.title}{deps}{task}")
    if goal.axon_task_ids:
        lines += ["", f"**Linked tasks:** {', '.join(goal.axon_task_ids)}"]
    if goal.verification is not None:
        v = goal.verification
        passed = sum(1 for c in v.checks if c.passed)
        lines += ["", f"**Verification:** {v.recommendation} ({passed}/{len(v.checks)} checks passed)"]
        lines += [f"- [{'x' if c.passed else ' '}] {c.criterion}" + (f" — {c.evidence}" if c.evidence else "")
                  for c in v.checks]
        if v.override is not None:
            lines.append(f"- override by {v.override.actor}: {v.override.evidence}")
    if goal.blocker is not None and goal.status in WAITING:
        b = goal.blocker
        lines += ["", f"**Blocker ({b.status}):** {b.reason}", f"- evidence: {b.evidence}"]
        if b.next_revisit_at:
            lines.append(f"- next revisit: {b.next_revisit_at} (revisited {b.revisit_count}×)")
        if b.awaits_human:
            lines.append("- waiting for a human")
    if goal.failure is not None:
        f2 = goal.failure
        lines += ["", f"**Failure:** {f2.reason} ({f2.retryability}, attempt {f2.attempts}/{f2.max_attempts})"]
    if goal.risk_acceptance is not None:
        a = goal.risk_acceptance
        expiry = f", expires {a.expires_at}" if a.expires_at else ""
        lines += ["", f"**Risk accepted:** {a.mode} by {a.actor} for {a.scope}{expiry}: {a.evidence}"]
    if hint is not None:
        lines += ["", f"**Next:** {hint}"]
    return "\n".join(lines)


def list_markdown(goals: Sequence[Goal], current_id: str | None) -> str:
    if not goals:
        return "No goals."
    rows = ["| id | status | prompt |", "|---|---|---|"]
    for g in goals:
        mark = " *" if g.id == current_id else ""
        rows.append(f"| {g.id}{mark} | {g.status} | {g.prompt.replace('|', '/')} |")
    return "\n".join(rows)


def run_markdown(run: DrainRun) -> str:
    lines = [f"## {run.id} · {run.status}", "",
             f"policy {run.policy.name} (replans {run.policy.max_replans_per_goal}, retries "
             f"{run.policy.max_retries_per_goal}, no-progress {run.policy.max_no_progress_iterations}), "
             f"risk gate {run.risk_gate_mode}, {len(run.goal_ids)} goal(s) in the snapshot", ""]
    queues = [("workable", run.workable_goal_ids), ("actionable", run.actionable_goal_ids),
              ("due revisit", run.due_revisit_goal_ids), ("retryable", run.retryable_goal_ids),
              ("needs retry classification", run.needs_retry_classification_goal_ids),
              ("blocked", run.blocked_goal_ids), ("waiting", run.waiting_goal_ids),
              ("exhausted", run.exhausted_goal_ids), ("risk accepted", run.risk_accepted_goal_ids)]
    lines += [f"- {name}: {', '.join(ids)}" for name, ids in queues if ids]
    if run.evidence:
        lines += ["", "**Evidence:**", *(f"- {e}" for e in run.evidence)]
    return "\n".join(lines)


def run_hint(run: DrainRun) -> str:
    if run.status == "running":
        return f"work the workable goals in order ({', '.join(run.workable_goal_ids)}): set_current, act, then drain again"
    if run.status == "exhausted":
        return "stop and report to the user: budgets are exhausted"
    if run.status == "blocked":
        return "nothing workable now: wait for revisits, retries or a human decision"
    return "nothing left to drain"


def summary_markdown(data: dict[str, Any]) -> str:
    counts = data["counts"]
    lines = ["## Goals", "", "**By status:** " + (", ".join(f"{s} {counts[s]}" for s in STATUS_ORDER
                                                            if counts.get(s)) or "none")]
    cur = data.get("current")
    lines.append(f"**Current:** {cur['id']} ({cur['status']}): {cur['prompt']}" if cur else "**Current:** none")
    lines.append(f"**Config:** {data['config_line']}")
    if data["active"]:
        lines += ["", "**Active:**", *(f"- {g['id']} ({g['status']}): {g['prompt']}" for g in data["active"])]
    attention = data["needs_attention"]
    items = [(label, attention[key]) for key, label in (
        ("due_revisits", "due revisits"), ("retry_due", "retry due"), ("unclassified_failures",
                                                                        "unclassified failures"),
        ("awaiting_human", "awaiting a human"))]
    shown = [f"- {label}: {', '.join(ids)}" for label, ids in items if ids]
    if attention["quarantined"]:
        shown.append(f"- quarantined goals: {attention['quarantined']}")
    if shown:
        lines += ["", "**Needs attention:**", *shown]
    last = data.get("last_drain")
    if last:
        lines += ["", f"**Last drain:** {last['id']} {last['status']} at {last['created_at']}"]
    return "\n".join(lines)


def config_markdown(cfg: GoalConfig) -> str:
    return f"**Goal config:** {describe(cfg)}"


def is_due(goal: Goal, now_t: float) -> bool:
    b = goal.blocker
    if goal.status not in WAITING or b is None or b.awaits_human:
        return False
    t = timefmt.parse(b.next_revisit_at)
    return t is None or t <= now_t


__all__ = ["next_hint", "goal_markdown", "list_markdown", "run_markdown", "summary_markdown", "ACTIONABLE"]
