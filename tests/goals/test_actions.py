"""Every action's effects and guards (specs/goals.md §5)."""

from __future__ import annotations

from typing import Any

import pytest

from nervous.engines.goals import GoalError, Goals, Scope, Subtask
from nervous.engines.goals.actions import Ctx
from nervous.kernel.storage import MemoryStore
from nervous.testing.growth import linear_run

T0 = 1_781_686_800.0  # 2026-06-17T09:00:00Z, as in conftest


def _doc(goals: Any) -> Any:
    return goals.store.read("goals", "demo/main").value


# ------------------------------------------------------------------------------------ analyze, refine


def test_analyze_assigns_ids_sets_current_and_defaults(goals: Any) -> None:
    first = goals.analyze("  Build a todo API  ").goal
    second = goals.analyze("Second").goal
    assert (first.id, second.id) == ("goal-001", "goal-002")
    assert first.prompt == "Build a todo API"
    assert first.intent.goal == first.intent.intent_summary == "Build a todo API"
    assert first.intent.framing is None and first.status == "analyzed"
    assert first.budget.progress_at == "2026-06-17T09:00:00.000Z"
    assert _doc(goals)["current_goal_id"] == "goal-002"


@pytest.mark.parametrize("prompt", [None, "", "   ", 5])
def test_analyze_requires_a_prompt(goals: Any, prompt: Any) -> None:
    with pytest.raises(GoalError) as err:
        goals.analyze(prompt)
    assert err.value.code == "invalid_arg" and "prompt" in err.value.message
    assert _doc(goals) is None


def test_empty_framing_is_omitted(goals: Any) -> None:
    goal = goals.analyze("x", framing={"scope": [], "non_goals": ["  "], "decision_needed": " "}).goal
    assert goal.intent.framing is None
    assert "framing" not in _doc(goals)["goals"]["goal-001"]["intent"]


@pytest.mark.parametrize("intent, expected", [
    ({}, False),
    ({"complexity": "high"}, True),
    ({"risks": [{"description": "outage", "severity": "high"}]}, True),
    ({"risks": ["a", "b", "c"]}, True),
    ({"risks": ["a", "b"]}, False),
    ({"complexity": "high", "needs_magi": False}, False),
    ({"needs_magi": True}, True),
])
def test_needs_magi_heuristic_and_override(goals: Any, intent: dict[str, Any], expected: bool) -> None:
    assert goals.analyze("x", **intent).goal.intent.needs_magi is expected


def test_readiness_gaps(goals: Any) -> None:
    result = goals.analyze("x", needs_magi=True)
    assert result.data["readiness_gaps"] == ["success_criteria", "scope", "decision_needed"]
    assert "refine the missing fields" in result.next
    result = goals.refine(success_criteria=["ok"], framing={"scope": ["api"], "decision_needed": "which db"})
    assert result.data["readiness_gaps"] == []
    assert result.next == "run deliberation, then plan"


def test_refine_partial_update_merges_framing_and_clears(goals: Any) -> None:
    gid = goals.analyze("x", framing={"scope": ["a"], "assumptions": ["b"], "decision_needed": "d"},
                        constraints=["c1"]).goal.id
    goal = goals.refine(gid, framing={"scope": ["z"]}).goal
    assert goal.intent.framing.scope == ["z"] and goal.intent.framing.assumptions == ["b"]
    assert goal.intent.constraints == ["c1"] and goal.id == gid
    goal = goals.refine(gid, framing={"assumptions": [], "decision_needed": ""}).goal
    assert goal.intent.framing.assumptions == [] and goal.intent.framing.decision_needed is None
    goal = goals.refine(gid, framing={"scope": []}).goal
    assert goal.intent.framing is None
    assert len(_doc(goals)["goals"]) == 1


def test_refine_needs_magi_only_when_passed(goals: Any) -> None:
    gid = goals.analyze("x", needs_magi=True).goal.id
    assert goals.refine(gid, complexity="low").goal.intent.needs_magi is True
    assert goals.refine(gid, needs_magi=False).goal.intent.needs_magi is False


def test_refine_guards(goals: Any, make_goal: Any) -> None:
    gid = make_goal("analyzed")
    with pytest.raises(GoalError) as err:
        goals.refine(gid)
    assert err.value.code == "invalid_arg"
    planned = make_goal("planned")
    with pytest.raises(GoalError) as err:
        goals.refine(planned, goal="new")
    assert err.value.code == "invalid_transition"


def test_analyze_rejects_bad_values(goals: Any) -> None:
    for kwargs in ({"complexity": "huge"}, {"risks": [{"severity": "high"}]}, {"framing": {"bogus": []}},
                   {"success_criteria": [1]}, {"unknown_field": 1}):
        with pytest.raises(GoalError) as err:
            goals.analyze("x", **kwargs)
        assert err.value.code == "invalid_arg"


# ------------------------------------------------------------------------------------ plan, link


def test_plan_ids_and_dependency_resolution(goals: Any, make_goal: Any) -> None:
    gid = make_goal()
    result = goals.plan(gid, subtasks=[
        {"title": "Scaffold"},
        {"title": "Tests", "dependencies": [" scaffold ", "plan-001", "Tests", "EXT-42"], "priority": "high"},
        Subtask(id="ignored", title="Docs", dependencies=["plan-002"]),
    ])
    subtasks = result.goal.plan.subtasks
    assert [s.id for s in subtasks] == ["plan-001", "plan-002", "plan-003"]
    assert subtasks[1].dependencies == ["plan-001", "EXT-42"]
    assert subtasks[2].dependencies == ["plan-002"]
    assert any("itself" in w for w in result.warnings) and any("duplicate" in w for w in result.warnings)
    assert result.goal.status == "planned"


@pytest.mark.parametrize("subtasks", [[], None, [{"title": ""}], [{"description": "no title"}],
                                      [{"title": "a", "priority": "urgent"}]])
def test_plan_needs_valid_subtasks(goals: Any, make_goal: Any, subtasks: Any) -> None:
    gid = make_goal()
    with pytest.raises(GoalError) as err:
        goals.plan(gid, subtasks=subtasks)
    assert err.value.code == "invalid_arg"


def test_replan_archives_history_resets_links_and_resolves_failure(goals: Any, make_goal: Any,
                                                                   clock_at: list[float]) -> None:
    gid = make_goal("needs_replan")
    goals.record_failure(gid, reason="tests failed", evidence="run-1", retryability="retryable")
    clock_at[0] += 60
    goal = goals.plan(gid, subtasks=["Again"]).goal
    assert goal.axon_task_ids == [] and goal.verification is None
    assert len(goal.plan_history) == 1
    record = goal.plan_history[0]
    assert record.reason == "replanned" and record.axon_task_ids == ["task-1"]
    assert record.verification.recommendation == "revise" and record.plan.subtasks[0].title == "Do it"
    assert goal.budget.replans == 1
    assert goal.failure is None and goal.failure_history[0].terminal_resolution == "resolved by replan"
    assert goal.failure_history[0].resolved_at == "2026-06-17T09:01:00.000Z"


def test_plan_history_keeps_ten(goals: Any, make_goal: Any) -> None:
    gid = make_goal("needs_replan")
    for i in range(12):
        goals.plan(gid, subtasks=[f"p{i}"])
        goals.link(gid, links=["t"])
        goals.verify(gid, checks=[{"criterion": "c", "passed": False}])
    goal = goals.get(gid).goal
    assert len(goal.plan_history) == 10
    assert goal.plan_history[-1].plan.subtasks[0].title == "p10"


def test_link(goals: Any, make_goal: Any) -> None:
    gid = make_goal("planned")
    goal = goals.link(gid, links=[{"plan_id": "plan-001", "axon_task_id": "task-7"}, "task-7", "Do it"]).goal
    assert goal.status == "executing"
    assert goal.axon_task_ids == ["task-7", "Do it"]
    assert goal.plan.subtasks[0].axon_task_id == "Do it"  # title match kept for compatibility
    with pytest.raises(GoalError) as err:
        goals.link(gid, links=[{"plan_id": "plan-009", "axon_task_id": "x"}])
    assert err.value.code == "invalid_arg" and "plan-009" in err.value.message
    with pytest.raises(GoalError) as err:
        goals.link(gid, links=[])
    assert err.value.code == "invalid_arg"


def test_long_lists_are_taken_in_linear_time(nervous_pm: Any, clock_at: list[float]) -> None:
    """Criteria, dependencies and links were each checked against every earlier item: a plan of
    40,000 dependencies (well within the 16 MiB of ``--args``) took 19 s, and 500,000 minutes,
    before the 1 MiB limit of a stored goal could refuse it."""
    def fresh() -> Goals:
        return Goals(nervous_pm, store=MemoryStore(), scope=Scope("demo", "main"))

    def analyze(n: int) -> None:
        criteria = [f"criterion {i}" for i in range(n)]
        assert len(fresh().analyze("x", success_criteria=criteria + criteria).goal.intent.success_criteria) == n

    def plan(n: int) -> None:
        g = fresh()
        gid = g.analyze("x").goal.id
        deps = [f"d{i}" for i in range(n)] * 2 + ["A"]  # repeated, and one on the subtask itself
        result = g.plan(gid, subtasks=[{"title": "A", "dependencies": deps}])
        assert len(result.goal.plan.subtasks[0].dependencies) == n and len(result.warnings) == 1

    def link(n: int) -> None:
        g = fresh()
        gid = g.analyze("x").goal.id
        g.plan(gid, subtasks=[f"s{i}" for i in range(n // 10)])
        tasks = [f"task-{i}" for i in range(n)]
        goal = g.link(gid, links=tasks + ["s1"] + tasks).goal
        assert len(goal.axon_task_ids) == n + 1 and goal.plan.subtasks[1].axon_task_id == "s1"

    linear_run(analyze, 1000)
    linear_run(plan, 1000)
    linear_run(link, 1000)


def test_action_warnings_are_kept_once_in_order_and_in_linear_time() -> None:
    ctx = Ctx(0.0, ["given"])
    for message in ["a", "given", "b", "a"]:
        ctx.warn(message)
    assert ctx.warnings == ["given", "a", "b"]
    ctx.warnings.append("added from outside")
    ctx.warn("added from outside")
    assert ctx.warnings == ["given", "a", "b", "added from outside"]

    def run(n: int) -> None:
        many = Ctx(0.0)
        for i in range(n):
            many.warn(f"plan-001: duplicate dependency {i} dropped")
        assert len(many.warnings) == n

    linear_run(run, 2000)


# ------------------------------------------------------------------------------------ verify, complete


def test_verify_derives_recommendation(goals: Any, make_goal: Any) -> None:
    gid = make_goal("executing")
    goal = goals.verify(gid, checks=[{"criterion": "a", "passed": True}, {"criterion": "b", "passed": False}]).goal
    assert goal.verification.recommendation == "revise" and goal.status == "needs_replan"
    assert goal.verification.ready_for_magi_review is False
    result = goals.verify(gid, checks=[{"criterion": "a", "passed": True}])
    assert result.goal.verification.recommendation == "approve" and result.goal.status == "verified"
    assert result.goal.verification.ready_for_magi_review is True
    assert any("all_axon_complete" in w for w in result.warnings)
    goal = goals.verify(gid, checks=[{"criterion": "a", "passed": True}], recommendation="escalate_to_magi").goal
    assert goal.status == "needs_replan"


def test_verify_refuses_approval_over_failing_checks(goals: Any, make_goal: Any) -> None:
    gid = make_goal("executing")
    checks = [{"criterion": "latency < 100ms", "passed": False}, {"criterion": "tests", "passed": True}]
    with pytest.raises(GoalError) as err:
        goals.verify(gid, checks=checks, recommendation="approve")
    assert err.value.code == "invalid_arg" and "latency < 100ms" in err.value.message
    goal = goals.verify(gid, checks=checks, recommendation="approve", override_evidence="PM waived",
                        actor="lead").goal
    assert goal.status == "verified"
    assert (goal.verification.override.evidence, goal.verification.override.actor) == ("PM waived", "lead")
    assert "approved over failing checks" in goal.verification.concerns


@pytest.mark.parametrize("checks", [[], [{"criterion": "c"}], [{"passed": True}], [{"criterion": "c",
                                                                                    "passed": "maybe"}]])
def test_verify_needs_valid_checks(goals: Any, make_goal: Any, checks: Any) -> None:
    gid = make_goal("executing")
    with pytest.raises(GoalError) as err:
        goals.verify(gid, checks=checks)
    assert err.value.code == "invalid_arg"


def test_complete_requires_verified_and_cleans_up(goals: Any, make_goal: Any) -> None:
    gid = make_goal("executing")
    with pytest.raises(GoalError) as err:
        goals.complete(gid)
    assert err.value.code == "unverified"
    goals.verify(gid, checks=[{"criterion": "c", "passed": True}], all_axon_complete=True)
    goals.record_failure(gid, reason="flaky", evidence="run-3")
    goal = goals.complete(gid).goal
    assert goal.status == "completed" and goal.failure is None
    assert goal.failure_history[-1].terminal_resolution == "resolved by completion"
    assert _doc(goals)["current_goal_id"] is None


# ------------------------------------------------------------------------------------ waiting states


@pytest.mark.parametrize("action, status", [("block", "blocked"), ("escalate", "needs_amygdala")])
def test_block_and_escalate_record_evidence(goals: Any, make_goal: Any, action: str, status: str) -> None:
    gid = make_goal("executing")
    goal = getattr(goals, action)(gid, reason="waiting on API key", evidence="ticket-9", related_ids=["t-1"],
                                  next_revisit_at="2026-06-18T10:00:00+02:00", unblock_conditions=["key"]).goal
    b = goal.blocker
    assert goal.status == status and b.status == status
    assert (b.reason, b.evidence, b.related_ids, b.unblock_conditions) == ("waiting on API key", "ticket-9",
                                                                           ["t-1"], ["key"])
    assert b.next_revisit_at == "2026-06-18T08:00:00.000Z" and b.revisit_count == 0 and not b.awaits_human
    goal = getattr(goals, action)(gid, reason="again", evidence="e2").goal
    assert goal.blocker.next_revisit_at == "2026-06-17T09:00:00.000Z"  # default now; blocker replaced
    for kwargs in ({"reason": "", "evidence": "e"}, {"reason": "r", "evidence": " "},
                   {"reason": "r", "evidence": "e", "next_revisit_at": "tomorrow"}):
        with pytest.raises(GoalError) as err:
            getattr(goals, action)(gid, **kwargs)
        assert err.value.code == "invalid_arg"


def test_accept_risk(goals: Any, make_goal: Any) -> None:
    gid = make_goal()
    acc = goals.accept_risk(gid, reason="approved", evidence="ticket-1").goal.risk_acceptance
    assert (acc.mode, acc.actor, acc.scope, acc.expires_at) == ("auto_deliberate", "user", gid, None)
    goals.set_config(risk_gate_mode="strict")
    assert goals.accept_risk(gid, reason="r", evidence="e").goal.risk_acceptance.mode == "user_accepted"
    acc = goals.accept_risk(gid, reason="r", evidence="e", risk_gate_mode="auto_deliberate", actor="council",
                            scope="production", expires_at="2026-06-18T09:00:00Z").goal.risk_acceptance
    assert (acc.mode, acc.actor, acc.scope, acc.expires_at) == ("auto_deliberate", "council", "production",
                                                                "2026-06-18T09:00:00.000Z")
    goal = goals.get(gid).goal
    assert goal.status == "analyzed"
    with pytest.raises(GoalError) as err:
        goals.accept_risk(gid, reason="r", evidence="e", expires_at="2026-06-17T08:59:59Z")
    assert err.value.code == "invalid_arg" and "future" in err.value.message
    with pytest.raises(GoalError):
        goals.accept_risk(gid, reason="r", evidence="")


def test_record_failure_counts_and_inherits(goals: Any, make_goal: Any) -> None:
    gid = make_goal("executing")
    f = goals.record_failure(gid, reason="boom", evidence="run-1").goal.failure
    assert (f.attempts, f.retryability, f.max_attempts, f.next_retry_at) == (1, "unknown", 3, None)
    for bad in (99, 26, 0, -1):  # out of range: refused, never silently clamped
        with pytest.raises(GoalError, match="max_attempts"):
            goals.record_failure(gid, reason="boom", evidence="run-x", max_attempts=bad)
    f = goals.record_failure(gid, reason="boom", evidence="run-2", retryability="retryable", max_attempts=25,
                             next_retry_at="2026-06-17T10:00:00Z", related_ids=["r2"]).goal.failure
    assert (f.attempts, f.retryability, f.max_attempts) == (2, "retryable", 25)
    f = goals.record_failure(gid, reason="boom", evidence="run-3", max_attempts=1).goal.failure
    assert (f.attempts, f.retryability, f.max_attempts, f.next_retry_at) == (3, "retryable", 1,
                                                                              "2026-06-17T10:00:00.000Z")
    assert goals.get(gid).goal.status == "executing"
    with pytest.raises(GoalError):
        goals.record_failure(gid, reason="x", evidence="y", retryability="sometimes")


def test_reopen(goals: Any, make_goal: Any) -> None:
    gid = make_goal("blocked")
    goals.record_failure(gid, reason="broken", evidence="run-1", retryability="not_retryable")
    goal = goals.reopen(gid, reason="dependency fixed", evidence="PR 12 merged", related_ids=["pr-12"]).goal
    b = goal.blocker
    assert goal.status == "needs_replan"
    assert b.terminal_resolution == "dependency fixed — PR 12 merged" and b.revisit_count == 1
    assert b.related_ids == ["pr-12"] and b.last_revisit_at is not None
    assert goal.budget.replans == 0 and goal.budget.exhausted is None and goal.failure is None
    assert goal.failure_history[-1].terminal_resolution == "resolved by reopen: dependency fixed"
    with pytest.raises(GoalError) as err:
        goals.reopen(gid, reason="r", evidence="")
    assert err.value.code == "invalid_arg"


def test_cancel_keeps_reason_and_clears_current(goals: Any, make_goal: Any) -> None:
    gid = make_goal("blocked")
    goal = goals.cancel(gid, reason="not needed any more").goal
    assert goal.status == "cancelled" and goal.blocker.terminal_resolution == "not needed any more"
    assert _doc(goals)["current_goal_id"] is None
    assert goals.cancel(make_goal(), reason="no blocker").goal.blocker is None


# ------------------------------------------------------------------------------------ current


def test_current_resolution(goals: Any, make_goal: Any, clock_at: list[float]) -> None:
    with pytest.raises(GoalError) as err:
        goals.get()
    assert err.value.code == "not_found"
    waiting = make_goal("blocked")
    clock_at[0] += 1
    actionable = make_goal("planned")
    clock_at[0] += 1
    done = make_goal("completed")
    assert goals.get("latest").goal.id == done
    assert goals.get().goal.id == actionable  # pointer cleared by completion → newest actionable
    goals.set_current(waiting)
    assert goals.get("current").goal.id == waiting
    goals.cancel(actionable)
    goals.set_current(waiting)
    goals.cancel(waiting)
    with pytest.raises(GoalError):
        goals.get()
    with pytest.raises(GoalError) as err:
        goals.get("goal-404")
    assert err.value.code == "not_found"


def test_current_ties_break_by_highest_id(goals: Any) -> None:
    goals.analyze("a")
    goals.analyze("b")
    goals.cancel("goal-002")
    goals.analyze("c")
    goals.cancel("goal-003")
    assert goals.get().goal.id == "goal-001"
    goals.analyze("d")
    goals.set_current("goal-001")
    assert goals.get().goal.id == "goal-001"
    goals.cancel("goal-001")
    assert goals.get().goal.id == "goal-004"


def test_set_current_refuses_terminal_and_is_not_progress(goals: Any, make_goal: Any, clock_at: list[float]) -> None:
    done = make_goal("completed")
    with pytest.raises(GoalError) as err:
        goals.set_current(done)
    assert err.value.code == "invalid_transition"
    gid = make_goal()
    clock_at[0] += 30
    goal = goals.set_current(gid).goal
    assert goal.budget.progress_at == "2026-06-17T09:00:00.000Z"


def test_progress_bearing_actions(goals: Any, make_goal: Any, clock_at: list[float]) -> None:
    gid = make_goal("executing")
    for step, call in enumerate([
        lambda: goals.accept_risk(gid, reason="r", evidence="e"),
        lambda: goals.record_failure(gid, reason="r", evidence="e"),
        lambda: goals.block(gid, reason="r", evidence="e"),
        lambda: goals.reopen(gid, reason="r", evidence="e"),
        lambda: goals.cancel(gid),
    ], start=1):
        clock_at[0] = T0 + step * 10
        assert call().goal.budget.progress_at == goals.get(gid).goal.updated_at


def test_list_and_summary(goals: Any, make_goal: Any) -> None:
    a = make_goal("executing")
    b = make_goal("blocked")
    goals.record_failure(a, reason="r", evidence="e")
    listed = goals.list()
    assert [g.id for g in listed.goals] == [a, b]
    assert [g.id for g in goals.list("blocked").goals] == [b]
    assert [g.id for g in goals.list(["blocked", "executing"]).goals] == [a, b]
    with pytest.raises(GoalError):
        goals.list("sleeping")
    data = goals.summary().data["summary"]
    assert data["counts"]["executing"] == 1 and data["counts"]["blocked"] == 1
    assert data["needs_attention"]["unclassified_failures"] == [a]
    assert data["needs_attention"]["due_revisits"] == [b]
    assert data["current"]["id"] == b


def test_dispatch_envelope(goals: Any) -> None:
    out = goals.dispatch({"action": "analyze", "prompt": "Ship it", "success_criteria": ["shipped"]})
    assert out["ok"] is True and out["action"] == "analyze" and out["goal"]["id"] == "goal-001"
    assert set(out) >= {"markdown", "next", "warnings"}
    out = goals.dispatch({"action": "plan", "goal_id": "goal-001", "subtasks": []})
    assert out == {"ok": False, "action": "plan", "code": "invalid_arg", "message": out["message"], "warnings": []}
    assert goals.dispatch({"action": "plan", "nonsense": 1})["code"] == "invalid_arg"
    assert goals.dispatch({"action": "fly"})["code"] == "invalid_arg"
    assert goals.dispatch({"action": "complete"})["code"] == "unverified"
    assert goals.dispatch({"action": "list", "status_filter": "analyzed"})["goals"][0]["id"] == "goal-001"
