"""Drain (specs/goals.md §6): gating, snapshot, risk gates, revisits, retries, budgets, run status."""

from __future__ import annotations

from typing import Any

import pytest

from nervous.engines.goals import GoalError

T0 = 1_781_686_800.0  # 2026-06-17T09:00:00Z


def drain(goals: Any, **kw: Any) -> Any:
    return goals.drain(explicit=True, **kw).run


# ------------------------------------------------------------------------------------ gating and snapshot


@pytest.mark.parametrize("mode, flags, allowed", [
    ("off", {}, False), ("off", {"explicit": True}, False), ("off", {"force": True}, True),
    ("on_explicit_nervous", {}, False), ("on_explicit_nervous", {"explicit": True}, True),
    ("on_explicit_nervous", {"force": True}, True), ("always", {}, True),
])
def test_drain_modes(goals: Any, mode: str, flags: dict[str, bool], allowed: bool) -> None:
    goals.set_config(drain_mode=mode)
    if allowed:
        run = goals.drain(**flags).run
        assert run.explicit is bool(flags.get("explicit")) and run.forced is bool(flags.get("force"))
    else:
        with pytest.raises(GoalError) as err:
            goals.drain(**flags)
        assert err.value.code == "not_permitted"
        assert goals.store.read("goals", "demo/main").value["drain_runs"] == {}


def test_snapshot_is_oldest_open_goals_and_isolates_the_rest(goals: Any, make_goal: Any,
                                                             clock_at: list[float]) -> None:
    ids = []
    for i in range(4):
        clock_at[0] = T0 + i
        ids.append(make_goal(prompt=f"task {i}"))
    clock_at[0] = T0 + 10
    make_goal("completed", prompt="old news")
    bad = make_goal(prompt="push to production")  # would escalate, but is outside the snapshot
    run = drain(goals, max_goals=3)
    assert run.goal_ids == ids[:3]
    assert run.terminal_goal_ids == [] and run.policy.max_goals == 3
    assert goals.get(bad).goal.status == "analyzed"
    assert any("snapshot limited to 3 of 5" in e for e in run.evidence)


@pytest.mark.parametrize("value, expected", [(None, 25), (0, 1), (-5, 1), (1000, 250), (7, 7)])
def test_max_goals_clamped(goals: Any, value: Any, expected: int) -> None:
    assert drain(goals, max_goals=value).policy.max_goals == expected


def test_policy_selection(goals: Any) -> None:
    assert drain(goals).policy.name == "default"
    run = drain(goals, policy_name="conservative")
    assert (run.policy.max_replans_per_goal, run.policy.max_retries_per_goal,
            run.policy.max_no_progress_iterations) == (1, 1, 2)
    goals.set_config(default_drain_policy="aggressive")
    assert drain(goals).policy.max_replans_per_goal == 5
    with pytest.raises(GoalError) as err:
        drain(goals, policy_name="yolo")
    assert err.value.code == "invalid_arg" and "aggressive, conservative, default" in err.value.message
    assert drain(goals).policy.hard_stop_categories[:7] == ["critical", "security", "data_loss", "regression",
                                                             "policy", "credential", "production"]


# ------------------------------------------------------------------------------------ hard stops and gates


@pytest.mark.parametrize("gate", ["strict", "auto_deliberate", "user_accepted"])
def test_hard_stop_escalates_without_acceptance(goals: Any, make_goal: Any, gate: str) -> None:
    goals.set_config(risk_gate_mode=gate)
    gid = make_goal("executing", prompt="Rotate API credentials")
    run = drain(goals)
    goal = goals.get(gid).goal
    assert goal.status == "needs_amygdala"
    assert goal.blocker.evidence == 'Matched hard-stop category "credential" in prompt: Rotate API credentials'
    assert goal.blocker.next_revisit_at == "2026-06-17T09:00:00.000Z"
    assert '"credential"' in goal.blocker.reason and goal.blocker.unblock_conditions
    assert {"strict": "strict gate", "auto_deliberate": "deliberation approval",
            "user_accepted": "scoped user acceptance"}[gate] in goal.blocker.reason
    assert run.risk_accepted_goal_ids == [] and run.blocked_goal_ids == [gid]
    assert run.due_revisit_goal_ids == []  # escalated this run: not also a due revisit
    assert run.waiting_goal_ids == [gid] and run.status == "blocked"
    assert any(goal.blocker.evidence in e for e in run.evidence)
    # the next run sees it as a due revisit
    run2 = drain(goals)
    assert run2.due_revisit_goal_ids == [gid] and run2.status == "running"
    assert goals.get(gid).goal.blocker.revisit_count == 1


@pytest.mark.parametrize("gate", ["auto_deliberate", "user_accepted"])
def test_matching_acceptance_lets_the_goal_proceed(goals: Any, make_goal: Any, gate: str) -> None:
    goals.set_config(risk_gate_mode=gate)
    gid = make_goal("executing", prompt="Deploy the API to production")
    goals.accept_risk(gid, reason="approved", evidence="ticket-77", risk_gate_mode=gate)
    run = drain(goals)
    assert run.risk_accepted_goal_ids == [gid] and run.actionable_goal_ids == [gid]
    assert any("ticket-77" in e and gate in e for e in run.evidence)
    assert goals.get(gid).goal.status == "executing"


def test_acceptance_of_the_other_mode_does_not_count(goals: Any, make_goal: Any) -> None:
    goals.set_config(risk_gate_mode="user_accepted")
    gid = make_goal(prompt="Deploy to production")
    goals.accept_risk(gid, reason="r", evidence="e", risk_gate_mode="auto_deliberate")
    drain(goals)
    assert goals.get(gid).goal.status == "needs_amygdala"


def test_strict_gate_ignores_acceptances(goals: Any, make_goal: Any) -> None:
    goals.set_config(risk_gate_mode="strict")
    gid = make_goal(prompt="Deploy to production")
    goals.accept_risk(gid, reason="r", evidence="e", risk_gate_mode="user_accepted")
    drain(goals)
    assert goals.get(gid).goal.status == "needs_amygdala"


def test_acceptance_scope(goals: Any, make_goal: Any) -> None:
    a = make_goal(prompt="Deploy to production")
    b = make_goal(prompt="Fix the regression")
    c = make_goal(prompt="Security review")
    goals.accept_risk(a, reason="r", evidence="e", scope="production")  # category scope
    goals.accept_risk(b, reason="r", evidence="e", scope="goal-999")  # someone else's scope
    goals.accept_risk(c, reason="r", evidence="e")  # default: the goal itself
    run = drain(goals)
    assert run.risk_accepted_goal_ids == [a, c]
    assert goals.get(b).goal.status == "needs_amygdala"


def test_acceptance_expiry(goals: Any, make_goal: Any, clock_at: list[float]) -> None:
    gid = make_goal("executing", prompt="Deploy to production")
    goals.accept_risk(gid, reason="window", evidence="change-5", expires_at="2026-06-17T10:00:00Z")
    clock_at[0] = T0 + 1800
    assert drain(goals).risk_accepted_goal_ids == [gid]
    clock_at[0] = T0 + 3600  # expires_at == now: expired
    run = drain(goals)
    assert run.risk_accepted_goal_ids == [] and goals.get(gid).goal.status == "needs_amygdala"


def test_disabled_gate_records_evidence(goals: Any, make_goal: Any) -> None:
    goals.set_config(risk_gate_mode="disabled", dangerous_opt_in=True, risk_gate_evidence="automation window 42")
    gid = make_goal(prompt="Drop the production table", constraints=["avoid data loss"])
    run = drain(goals)
    assert run.risk_gate_mode == "disabled"
    assert run.risk_accepted_goal_ids == [gid] and run.workable_goal_ids == [gid]
    assert any("automation window 42" in e and "production" in e for e in run.evidence)


def test_hard_stop_only_scans_actionable_goals(goals: Any, make_goal: Any) -> None:
    gid = make_goal("blocked", prompt="Deploy to production")
    run = drain(goals)
    assert goals.get(gid).goal.status == "blocked" and run.due_revisit_goal_ids == [gid]


# ------------------------------------------------------------------------------------ revisits and retries


def test_due_revisits(goals: Any, make_goal: Any, clock_at: list[float]) -> None:
    due = make_goal("executing")
    goals.block(due, reason="r", evidence="e", next_revisit_at="2026-06-17T08:00:00Z")
    later = make_goal("executing")
    goals.escalate(later, reason="r", evidence="e", next_revisit_at="2026-06-17T12:00:00Z")
    run = drain(goals)
    assert run.due_revisit_goal_ids == [due] and run.workable_goal_ids == [due]
    assert run.waiting_goal_ids == [later] and run.blocked_goal_ids == [due, later]
    b = goals.get(due).goal.blocker
    assert (b.revisit_count, b.last_revisit_at) == (1, "2026-06-17T09:00:00.000Z")
    assert goals.get(later).goal.blocker.revisit_count == 0
    clock_at[0] = T0 + 4 * 3600
    assert drain(goals).due_revisit_goal_ids == [due, later]


def test_unparsable_revisit_time_counts_as_due(goals: Any, make_goal: Any) -> None:
    gid = make_goal("blocked")

    def corrupt(doc: dict[str, Any]) -> None:
        doc["goals"][gid]["blocker"]["next_revisit_at"] = "someday"

    goals.store.update("goals", "demo/main", corrupt)
    assert drain(goals).due_revisit_goal_ids == [gid]


def test_retry_classification_and_retry_queue(goals: Any, make_goal: Any, clock_at: list[float]) -> None:
    unknown = make_goal("executing")
    goals.record_failure(unknown, reason="odd", evidence="run-1")
    retry_now = make_goal("executing")
    goals.record_failure(retry_now, reason="timeout", evidence="run-2", retryability="retryable")
    retry_later = make_goal("executing")
    goals.record_failure(retry_later, reason="rate limited", evidence="run-3", retryability="retryable",
                         next_retry_at="2026-06-17T11:00:00Z")
    run = drain(goals)
    assert run.needs_retry_classification_goal_ids == [unknown]
    assert run.retryable_goal_ids == [retry_now]
    assert run.actionable_goal_ids == []  # a goal with an unresolved failure is not plain actionable
    assert run.workable_goal_ids == [unknown, retry_now]
    assert run.waiting_goal_ids == [retry_later] and run.status == "running"
    clock_at[0] = T0 + 2 * 3600
    assert drain(goals).retryable_goal_ids == [retry_now, retry_later]


def test_failure_resolution_rejoins_actionable(goals: Any, make_goal: Any) -> None:
    gid = make_goal("needs_replan")
    goals.record_failure(gid, reason="r", evidence="e", retryability="retryable", next_retry_at="2027-01-01T00:00:00Z")
    assert drain(goals).actionable_goal_ids == []
    goals.plan(gid, subtasks=["again"])
    assert drain(goals).actionable_goal_ids == [gid]


# ------------------------------------------------------------------------------------ budgets


def _exhausted(goals: Any, gid: str, reason: str, run_id: str) -> None:
    goal = goals.get(gid).goal
    assert goal.status == "blocked"
    assert goal.blocker.awaits_human is True and goal.blocker.next_revisit_at is None
    assert goal.blocker.reason.startswith(f"drain budget exhausted: {reason} (")
    assert goal.blocker.evidence == run_id
    assert goal.blocker.unblock_conditions == ["reopen with new evidence", "or cancel"]
    assert (goal.budget.exhausted.reason, goal.budget.exhausted.run_id) == (reason, run_id)
    assert goals.get(gid).next == "a human must decide: reopen with new evidence, or cancel"


def test_replan_budget(goals: Any, make_goal: Any) -> None:
    gid = make_goal("needs_replan")
    for _ in range(1):
        goals.plan(gid, subtasks=["again"])
        goals.link(gid, links=["t"])
        goals.verify(gid, checks=[{"criterion": "c", "passed": False}])
    run = drain(goals, policy_name="conservative")  # 1 replan allowed, 1 used
    _exhausted(goals, gid, "replans", run.id)
    assert goals.get(gid).goal.budget.exhausted.detail == "1/1"
    assert run.exhausted_goal_ids == [gid] and run.workable_goal_ids == [] and run.status == "exhausted"
    assert drain(goals).due_revisit_goal_ids == []  # awaits a human: never due
    goal = goals.reopen(gid, reason="human looked", evidence="notes").goal
    assert goal.budget.replans == 0 and goal.budget.exhausted is None and goal.status == "needs_replan"
    assert drain(goals, policy_name="conservative").actionable_goal_ids == [gid]


def test_retry_budget_from_max_attempts(goals: Any, make_goal: Any) -> None:
    gid = make_goal("executing")
    for i in range(2):
        goals.record_failure(gid, reason="r", evidence=f"run-{i}", retryability="retryable", max_attempts=2)
    run = drain(goals)
    _exhausted(goals, gid, "retries", run.id)
    assert goals.get(gid).goal.budget.exhausted.detail == "2/2 attempts"


def test_retry_budget_from_policy(goals: Any, make_goal: Any) -> None:
    gid = make_goal("executing")
    for i in range(2):
        goals.record_failure(gid, reason="r", evidence=f"run-{i}", retryability="retryable", max_attempts=10)
    assert drain(goals).retryable_goal_ids == [gid]  # default policy: 3 retries
    run = drain(goals, policy_name="conservative")  # 2 attempts > 1 retry
    _exhausted(goals, gid, "retries", run.id)


def test_not_retryable_waits_for_a_human(goals: Any, make_goal: Any) -> None:
    gid = make_goal("executing")
    goals.record_failure(gid, reason="license denied", evidence="legal-1", retryability="not_retryable")
    run = drain(goals)
    _exhausted(goals, gid, "not_retryable", run.id)
    assert goals.get(gid).goal.budget.exhausted.detail == "license denied"
    assert run.status == "exhausted"


def test_no_progress_streak_exhausts_the_loop(goals: Any, make_goal: Any, clock_at: list[float]) -> None:
    gid = make_goal("executing")
    streaks = []
    for i in range(3):
        clock_at[0] = T0 + 60 * (i + 1)
        run = drain(goals, policy_name="conservative")
        streaks.append((run.no_progress_streak, run.status))
    assert streaks == [(0, "running"), (1, "running"), (2, "exhausted")]
    clock_at[0] += 60
    goals.record_failure(gid, reason="r", evidence="e")  # progress
    clock_at[0] += 60
    run = drain(goals, policy_name="conservative")
    assert (run.no_progress_streak, run.status) == (0, "running")


def test_run_status_precedence(goals: Any, make_goal: Any) -> None:
    assert drain(goals).status == "completed"
    make_goal("completed")
    assert drain(goals).status == "completed"
    waiting = make_goal("executing")
    goals.block(waiting, reason="r", evidence="e", next_revisit_at="2030-01-01T00:00:00Z")
    assert drain(goals).status == "blocked"
    exhausted = make_goal("executing")
    goals.record_failure(exhausted, reason="r", evidence="e", retryability="not_retryable")
    assert drain(goals).status == "exhausted"
    make_goal("planned")
    assert drain(goals).status == "running"


def test_drain_is_not_progress_and_keeps_200_runs(goals: Any, make_goal: Any, clock_at: list[float]) -> None:
    gid = make_goal()
    before = goals.get(gid).goal.budget.progress_at
    for i in range(203):
        clock_at[0] = T0 + i
        goals.drain(force=True)
    runs = goals.store.read("goals", "demo/main").value["drain_runs"]
    assert len(runs) == 200 and "drain-001" not in runs and "drain-203" in runs
    assert goals.get(gid).goal.budget.progress_at == before


def test_never_silently_abandon(goals: Any, make_goal: Any) -> None:
    ids = [make_goal(s) for s in ("analyzed", "planned", "executing", "verified", "needs_replan", "blocked",
                                  "needs_amygdala")]
    goals.record_failure(ids[2], reason="r", evidence="e", retryability="retryable",
                         next_retry_at="2030-01-01T00:00:00Z")
    run = drain(goals)
    accounted = set(run.workable_goal_ids) | set(run.waiting_goal_ids) | set(run.exhausted_goal_ids)
    assert accounted == set(run.goal_ids) == set(ids)
